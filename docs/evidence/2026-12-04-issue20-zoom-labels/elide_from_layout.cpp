// Experiment (2026-12-04 20:34 UTC, not part of the build): can the right-elided text of a name be found for
// every width from one QTextLayout per name (grapheme x positions by cursorToX, the ellipsis by
// QFontMetricsF), as QTextEngine::elidedText sums them? Compared with QFontMetrics::elidedText for
// 322 names x 601 widths x 4 fonts; names with bidi, format or control characters left to elidedText.
//   g++ -O1 -std=c++20 -fPIC elide_from_layout.cpp $(pkg-config --cflags --libs Qt6Gui) -o exp
//   QT_QPA_PLATFORM=offscreen ./exp > elide_from_layout.txt
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QRawFont>
#include <QSet>
#include <QTextBoundaryFinder>
#include <QTextLayout>
#include <cstdio>
#include <vector>
// Elide right from one layout: cumulative grapheme x positions, as QTextEngine::elidedText sums them.
struct Prepared {
    QString text;
    std::vector<int> bounds;
    std::vector<double> x;
    double total;
    double ell;
    bool ok;
};
static bool simple(const QString& s)
{
    for (QChar c : s) {
        const auto d = c.direction();
        if (d == QChar::DirR || d == QChar::DirAL || d == QChar::DirRLE || d == QChar::DirRLO || d == QChar::DirLRE
            || d == QChar::DirLRO || d == QChar::DirPDF || d == QChar::DirRLI || d == QChar::DirLRI
            || d == QChar::DirFSI || d == QChar::DirPDI)
            return false;
        if (c.category() == QChar::Other_Format || c.category() == QChar::Other_Control || c.unicode() == 0x9c)
            return false;
    }
    return true;
}
Prepared prepare(const QString& s, const QFont& f)
{
    Prepared p;
    p.text = s;
    p.ok = simple(s) && s.size() > 1;
    QTextLayout layout(s, f);
    QTextOption o;
    o.setWrapMode(QTextOption::NoWrap);
    layout.setTextOption(o);
    layout.beginLayout();
    QTextLine line = layout.createLine();
    line.setLineWidth(1e6);
    layout.endLayout();
    QTextBoundaryFinder bf(QTextBoundaryFinder::Grapheme, s);
    int b = 0;
    p.bounds.push_back(0);
    while ((b = bf.toNextBoundary()) > 0 && b <= s.size())
        p.bounds.push_back(b);
    for (int k : p.bounds)
        p.x.push_back(line.cursorToX(k));
    p.total = p.x.back();
    p.ell = QFontMetricsF(f).horizontalAdvance(QChar(0x2026));
    if (!QRawFont::fromFont(f).supportsCharacter(QChar(0x2026)))
        p.ok = false;
    return p;
}
QString elide(const Prepared& p, int w, const QFontMetrics& fm)
{
    if (!p.ok)
        return fm.elidedText(p.text, Qt::ElideRight, w);
    if (p.total <= w)
        return p.text;
    const double avail = w - p.ell;
    if (avail < 0)
        return QString();
    double cur = 0;
    size_t g = 0;
    int pos;
    do {
        pos = p.bounds[g];
        cur += p.x[g + 1] - p.x[g];
        ++g;
    } while (g + 1 < p.bounds.size() && cur < avail);
    return p.text.left(pos) + QChar(0x2026);
}
int main(int argc, char** argv)
{
    QGuiApplication app(argc, argv);
    QStringList names = {"k", "ab", "cudaLaunchKernel", "cudaStreamSynchronize", "[CUDA memcpy Host-to-Device]",
        "ampere_sgemm_128x64_nn", "void flash_attn_fwd_kernel<128, true, false>",
        "std::vector<std::pair<int, std::map<std::string, double>>>::emplace_back",
        "at::native::(anonymous namespace)::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
        "WWWWWWWWWWWWWWWWWWWWiiiiiiiiiiiiiiiiiiii", QString::fromUtf8("Ünïcödé kernel façade — naïve"),
        QString::fromUtf8("行列乗算カーネル_fp16"),
        QString::fromUtf8("e\u0301e\u0301e\u0301 combining accents a\u0308o\u0308"),
        QString::fromUtf8("emoji 🚀🔥 kernel 👩‍👩‍👧 family"),
        QString::fromUtf8("שלום kernel عربي mixed"), "tab\tand  double  spaces",
        QString::fromUtf8("1,234 × gemm_kernel"), "fmha_cutlassF_f16_aligned_64x128_rf_sm80",
        "Memcpy DtoH (Device -> Pinned)", "AVAVAVAVTeTeTe To.Yo.", "ffi fl ffl office", "   leading spaces"};
    for (int i = 0; i < 300; ++i)
        names << QString("kernel_%1_%2<%3>")
                     .arg(i * 7919 % 1000)
                     .arg(QString(QChar(char16_t(i % 26 + 'a'))).repeated(i % 9 + 1))
                     .arg(i * 31);
    long bad = 0, n = 0, fast = 0;
    QSet<QString> bads;
    for (int variant = 0; variant < 4; ++variant) {
        QFont f = QGuiApplication::font();
        if (variant == 1)
            f.setBold(true);
        if (variant == 2)
            f.setPixelSize(11);
        if (variant == 3)
            f.setPointSizeF(9.5);
        QFontMetrics fm(f);
        for (const QString& s : names) {
            Prepared p = prepare(s, f);
            fast += p.ok;
            for (int w = 0; w <= 600; ++w) {
                ++n;
                QString a = elide(p, w, fm), e = fm.elidedText(s, Qt::ElideRight, w);
                if (a != e) {
                    if (bad < 15)
                        printf("MISMATCH v%d w=%d '%s' got '%s' want '%s'\n", variant, w, qPrintable(s), qPrintable(a),
                            qPrintable(e));
                    ++bad;
                    bads.insert(s);
                }
            }
        }
    }
    for (const QString& b : bads)
        printf("name with mismatches: %s\n", qPrintable(b));
    printf("%ld comparisons, %ld mismatches, fast-path names %ld of %d\n", n, bad, fast, 4 * int(names.size()));
}
