// SPDX-License-Identifier: MIT
#pragma once

#include <QColor>
#include <QPalette>
#include <QStringView>
#include <QVector>

namespace ws {

// Syntax colouring of the Source panel: CUDA C++ lines and SASS instructions split into runs of
// one kind, each painted in its colour by SyntaxDelegate. A lexer of the few kinds that make a
// listing readable (keywords, types, literals, comments, preprocessor; opcodes, registers,
// predicates, constants), not a parser: an odd token falls back to plain text.
class SourceSyntax {
public:
    enum Kind {
        Plain,
        Keyword,
        Type,
        Number,
        String,
        Comment,
        Preprocessor,
        Opcode,
        Register,  // R12, UR4, RZ, SR_TID.X
        Predicate, // P0, !PT, @P1
        Constant,  // c[0x0][0x210], desc[UR4]
        Label,     // `(.L_x_8)
        KindCount
    };

    struct Run {
        int start = 0;
        int length = 0;
        Kind kind = Plain;
        bool operator==(const Run&) const = default;
    };

    // One line of CUDA C++. `inBlockComment` carries a /* … */ comment from line to line: in,
    // whether the line starts inside one; out, whether the next does.
    static QVector<Run> cudaLine(QStringView line, bool& inBlockComment);
    // One SASS instruction ("@!P0 BRA `(.L_x_7)", "IMAD.WIDE.U32 R2, R7, 0x4, R2").
    static QVector<Run> sassInstruction(QStringView text);

    // The colour of each kind on a background (darker hues on light backgrounds, lighter on
    // dark ones); Plain is `text`.
    static QColor color(Kind kind, const QColor& background, const QColor& text);
};

} // namespace ws
