// SPDX-License-Identifier: MIT
#include "ui/panels/sourcesyntax.h"

#include <QSet>
#include <QString>

namespace ws {

namespace {

bool isIdentStart(QChar c)
{
    return c.isLetter() || c == QLatin1Char('_');
}

bool isIdent(QChar c)
{
    return c.isLetterOrNumber() || c == QLatin1Char('_');
}

const QSet<QString>& cudaKeywords()
{
    static const QSet<QString> k = {QStringLiteral("if"), QStringLiteral("else"), QStringLiteral("for"),
        QStringLiteral("while"), QStringLiteral("do"), QStringLiteral("return"), QStringLiteral("break"),
        QStringLiteral("continue"), QStringLiteral("switch"), QStringLiteral("case"), QStringLiteral("default"),
        QStringLiteral("goto"), QStringLiteral("const"), QStringLiteral("constexpr"), QStringLiteral("static"),
        QStringLiteral("inline"), QStringLiteral("extern"), QStringLiteral("volatile"), QStringLiteral("struct"),
        QStringLiteral("class"), QStringLiteral("union"), QStringLiteral("enum"), QStringLiteral("template"),
        QStringLiteral("typename"), QStringLiteral("namespace"), QStringLiteral("using"), QStringLiteral("sizeof"),
        QStringLiteral("static_cast"), QStringLiteral("reinterpret_cast"), QStringLiteral("const_cast"),
        QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("nullptr"), QStringLiteral("this"),
        QStringLiteral("new"), QStringLiteral("delete"), QStringLiteral("public"), QStringLiteral("private"),
        QStringLiteral("auto"), QStringLiteral("__global__"), QStringLiteral("__device__"), QStringLiteral("__host__"),
        QStringLiteral("__shared__"), QStringLiteral("__constant__"), QStringLiteral("__restrict__"),
        QStringLiteral("__forceinline__"), QStringLiteral("__noinline__"), QStringLiteral("__launch_bounds__"),
        QStringLiteral("__syncthreads"), QStringLiteral("__syncwarp"), QStringLiteral("__threadfence")};
    return k;
}

const QSet<QString>& cudaTypes()
{
    static const QSet<QString> t = {QStringLiteral("void"), QStringLiteral("bool"), QStringLiteral("char"),
        QStringLiteral("short"), QStringLiteral("int"), QStringLiteral("long"), QStringLiteral("float"),
        QStringLiteral("double"), QStringLiteral("unsigned"), QStringLiteral("signed"), QStringLiteral("size_t"),
        QStringLiteral("int8_t"), QStringLiteral("int16_t"), QStringLiteral("int32_t"), QStringLiteral("int64_t"),
        QStringLiteral("uint8_t"), QStringLiteral("uint16_t"), QStringLiteral("uint32_t"), QStringLiteral("uint64_t"),
        QStringLiteral("half"), QStringLiteral("__half"), QStringLiteral("__nv_bfloat16"), QStringLiteral("float2"),
        QStringLiteral("float4"), QStringLiteral("int2"), QStringLiteral("int4"), QStringLiteral("dim3"),
        QStringLiteral("threadIdx"), QStringLiteral("blockIdx"), QStringLiteral("blockDim"), QStringLiteral("gridDim"),
        QStringLiteral("warpSize")};
    return t;
}

void push(QVector<SourceSyntax::Run>& runs, int start, int length, SourceSyntax::Kind kind)
{
    if (length <= 0)
        return;
    // Neighbouring runs of one kind merge (fewer draw calls, simpler tests).
    if (!runs.isEmpty() && runs.back().kind == kind && runs.back().start + runs.back().length == start) {
        runs.back().length += length;
        return;
    }
    runs.push_back({start, length, kind});
}

// A number literal from `i`: digits, hex, a fraction, an exponent and suffixes (1.0f, 0x1Fu).
int numberEnd(QStringView s, int i)
{
    const int n = static_cast<int>(s.size());
    if (i + 1 < n && s[i] == QLatin1Char('0') && (s[i + 1] == QLatin1Char('x') || s[i + 1] == QLatin1Char('X'))) {
        i += 2;
        while (i < n && (s[i].isDigit() || QStringLiteral("abcdefABCDEF").contains(s[i])))
            ++i;
    } else {
        while (i < n && (s[i].isDigit() || s[i] == QLatin1Char('.')))
            ++i;
        if (i < n && (s[i] == QLatin1Char('e') || s[i] == QLatin1Char('E'))) {
            ++i;
            if (i < n && (s[i] == QLatin1Char('+') || s[i] == QLatin1Char('-')))
                ++i;
            while (i < n && s[i].isDigit())
                ++i;
        }
    }
    while (i < n && QStringLiteral("uUlLfF").contains(s[i]))
        ++i;
    return i;
}

} // namespace

QVector<SourceSyntax::Run> SourceSyntax::cudaLine(QStringView s, bool& inBlockComment)
{
    QVector<Run> runs;
    const int n = static_cast<int>(s.size());
    int i = 0;
    if (inBlockComment) {
        const qsizetype close = s.indexOf(QStringLiteral("*/"));
        if (close < 0) {
            push(runs, 0, n, Comment);
            return runs;
        }
        push(runs, 0, static_cast<int>(close) + 2, Comment);
        i = static_cast<int>(close) + 2;
        inBlockComment = false;
    }
    // A preprocessor line is one run (up to a comment).
    int first = i;
    while (first < n && s[first].isSpace())
        ++first;
    if (first < n && s[first] == QLatin1Char('#')) {
        push(runs, i, first - i, Plain);
        qsizetype end = s.indexOf(QStringLiteral("//"), first);
        end = end < 0 ? n : end;
        push(runs, first, static_cast<int>(end) - first, Preprocessor);
        if (end < n)
            push(runs, static_cast<int>(end), n - static_cast<int>(end), Comment);
        return runs;
    }
    while (i < n) {
        const QChar c = s[i];
        if (c == QLatin1Char('/') && i + 1 < n && s[i + 1] == QLatin1Char('/')) {
            push(runs, i, n - i, Comment);
            break;
        }
        if (c == QLatin1Char('/') && i + 1 < n && s[i + 1] == QLatin1Char('*')) {
            const qsizetype close = s.indexOf(QStringLiteral("*/"), i + 2);
            const int end = close < 0 ? n : static_cast<int>(close) + 2;
            push(runs, i, end - i, Comment);
            inBlockComment = close < 0;
            i = end;
            continue;
        }
        if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            int j = i + 1;
            while (j < n && s[j] != c) {
                if (s[j] == QLatin1Char('\\'))
                    ++j;
                ++j;
            }
            const int end = std::min(n, j + 1);
            push(runs, i, end - i, String);
            i = end;
            continue;
        }
        if (c.isDigit() || (c == QLatin1Char('.') && i + 1 < n && s[i + 1].isDigit())) {
            // Not the digits of an identifier (x2): those were consumed with it.
            const int end = numberEnd(s, i);
            push(runs, i, end - i, Number);
            i = end;
            continue;
        }
        if (isIdentStart(c)) {
            int j = i + 1;
            while (j < n && isIdent(s[j]))
                ++j;
            const QString word = s.mid(i, j - i).toString();
            const Kind k = cudaKeywords().contains(word) ? Keyword : cudaTypes().contains(word) ? Type : Plain;
            push(runs, i, j - i, k);
            i = j;
            continue;
        }
        push(runs, i, 1, Plain);
        ++i;
    }
    return runs;
}

QVector<SourceSyntax::Run> SourceSyntax::sassInstruction(QStringView s)
{
    QVector<Run> runs;
    const int n = static_cast<int>(s.size());
    int i = 0;
    bool opcodeSeen = false;
    while (i < n) {
        const QChar c = s[i];
        if (c.isSpace() || c == QLatin1Char(',') || c == QLatin1Char(';')) {
            push(runs, i, 1, Plain);
            ++i;
            continue;
        }
        // A guard predicate: @P0, @!PT.
        if (c == QLatin1Char('@')) {
            int j = i + 1;
            while (j < n && !s[j].isSpace())
                ++j;
            push(runs, i, j - i, Predicate);
            i = j;
            continue;
        }
        if (c == QLatin1Char('`')) {
            int j = i + 1;
            while (j < n && s[j] != QLatin1Char(')') && !s[j].isSpace())
                ++j;
            j = std::min(n, j + 1);
            push(runs, i, j - i, Label);
            i = j;
            continue;
        }
        // One operand: up to a comma or space outside brackets (c[0x0][0x210], desc[UR4][R2.64]).
        int j = i;
        int depth = 0;
        while (j < n && (depth > 0 || (!s[j].isSpace() && s[j] != QLatin1Char(',')))) {
            depth += s[j] == QLatin1Char('[') ? 1 : s[j] == QLatin1Char(']') ? -1 : 0;
            ++j;
        }
        const QStringView word = s.mid(i, j - i);
        Kind k = Plain;
        if (opcodeSeen && word.contains(QLatin1Char('['))) {
            k = Constant;
        } else if (!opcodeSeen) {
            k = Opcode;
            opcodeSeen = true;
        } else {
            QStringView w = word;
            if (w.startsWith(QLatin1Char('!')) || w.startsWith(QLatin1Char('-')) || w.startsWith(QLatin1Char('|'))
                || w.startsWith(QLatin1Char('~')))
                w = w.mid(1);
            const auto regLike = [](QStringView v, QLatin1String prefix) {
                if (!v.startsWith(prefix) || v.size() == prefix.size())
                    return v == prefix + QLatin1String("Z");
                for (qsizetype x = prefix.size(); x < v.size(); ++x) {
                    if (v[x] == QLatin1Char('.'))
                        return x > prefix.size();
                    if (!v[x].isDigit())
                        return false;
                }
                return true;
            };
            if (regLike(w, QLatin1String("UR")) || regLike(w, QLatin1String("R")) || w.startsWith(QLatin1String("SR_"))
                || w == QLatin1String("RZ") || w == QLatin1String("URZ"))
                k = Register;
            else if (regLike(w, QLatin1String("UP")) || regLike(w, QLatin1String("P")) || w == QLatin1String("PT")
                || w == QLatin1String("UPT"))
                k = Predicate;
            else if (!w.isEmpty() && (w[0].isDigit() || w.startsWith(QLatin1String("0x"))))
                k = Number;
        }
        push(runs, i, j - i, k);
        i = j;
    }
    return runs;
}

QColor SourceSyntax::color(Kind kind, const QColor& background, const QColor& text)
{
    const bool dark = background.lightnessF() < 0.5;
    // Light palette, dark palette: hues as in common editor themes, contrast ≥ 4.5 on each.
    switch (kind) {
    case Keyword:
        return dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x00, 0x33, 0xb3);
    case Type:
        return dark ? QColor(0x4e, 0xc9, 0xb0) : QColor(0x00, 0x6e, 0x6e);
    case Number:
        return dark ? QColor(0xf7, 0x8c, 0x6c) : QColor(0x1a, 0x75, 0x1a);
    case String:
        return dark ? QColor(0xc3, 0xe8, 0x8d) : QColor(0xa3, 0x15, 0x15);
    case Comment:
        return dark ? QColor(0x8b, 0x94, 0x9e) : QColor(0x58, 0x60, 0x69);
    case Preprocessor:
        return dark ? QColor(0xc7, 0x92, 0xea) : QColor(0x7a, 0x1f, 0xa2);
    case Opcode:
        return dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x00, 0x33, 0xb3);
    case Register:
        return dark ? QColor(0xe0, 0xc0, 0x80) : QColor(0x80, 0x4d, 0x00);
    case Predicate:
        return dark ? QColor(0xc7, 0x92, 0xea) : QColor(0x7a, 0x1f, 0xa2);
    case Constant:
        return dark ? QColor(0x4e, 0xc9, 0xb0) : QColor(0x00, 0x6e, 0x6e);
    case Label:
        return dark ? QColor(0xf7, 0x8c, 0x6c) : QColor(0x1a, 0x75, 0x1a);
    case Plain:
    case KindCount:
        break;
    }
    return text;
}

} // namespace ws
