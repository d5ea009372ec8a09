// SPDX-License-Identifier: MIT
#include "ui/timeline/countprefix.h"

#include "ui/style/timeformat.h"

#include <QFontMetricsF>
#include <QPainter>

#include <cmath>

namespace ws {

namespace {

const QString kGlyphs = QStringLiteral("0123456789, ×…");

} // namespace

CountPrefix::CountPrefix(const QFont& font)
    : m_font(font)
{
    const QFontMetrics fm(font);
    const QFontMetricsF fmf(font);
    m_height = fm.height();
    for (int i = 0; i < kGlyphs.size(); ++i) {
        Glyph& g = m_glyphs[static_cast<size_t>(i)];
        g.advance = fmf.horizontalAdvance(kGlyphs[i]);
        // White on black: the pixel is the glyph's coverage.
        QImage img(static_cast<int>(std::ceil(g.advance)) + 2 * kMargin, m_height, QImage::Format_RGB32);
        img.fill(0xff000000u);
        QPainter p(&img);
        p.setFont(font);
        p.setPen(Qt::white);
        p.drawText(kMargin, fm.ascent(), QString(kGlyphs[i]));
        p.end();
        g.coverage = img.convertToFormat(QImage::Format_Grayscale8);
    }
}

int CountPrefix::slot(QChar c)
{
    return static_cast<int>(kGlyphs.indexOf(c));
}

QString CountPrefix::text(quint32 count, bool ellipsis)
{
    return formatCount(count) + (ellipsis ? QStringLiteral(" × …") : QStringLiteral(" × "));
}

int CountPrefix::width(quint32 count, bool ellipsis) const
{
    double w = 0;
    for (const QChar c : text(count, ellipsis)) {
        const int i = slot(c);
        w += i >= 0 ? m_glyphs[static_cast<size_t>(i)].advance : 0;
    }
    return static_cast<int>(std::lround(w));
}

QImage CountPrefix::compose(quint32 count, QRgb fill, QRgb ink, bool ellipsis) const
{
    QImage img(std::max(width(count, ellipsis), 1), m_height, QImage::Format_RGB32);
    img.fill(fill);
    // Raw rows: QImage's accessors are out-of-line calls (scanLine() also checks for a detach),
    // which per pixel cost more than the blend.
    uchar* bits = img.bits();
    const qsizetype stride = img.bytesPerLine();
    const int imgWidth = img.width();
    const int ir = qRed(ink), ig = qGreen(ink), ib = qBlue(ink);
    double pen = 0;
    for (const QChar c : text(count, ellipsis)) {
        const int i = slot(c);
        if (i < 0)
            continue; // formatCount writes digits and ',' only
        const Glyph& g = m_glyphs[static_cast<size_t>(i)];
        const int x0 = static_cast<int>(std::lround(pen)) - kMargin;
        pen += g.advance;
        const uchar* covBits = g.coverage.constBits();
        const qsizetype covStride = g.coverage.bytesPerLine();
        const int covEnd = std::min(g.coverage.width(), imgWidth - x0);
        for (int y = 0; y < m_height; ++y) {
            const uchar* cov = covBits + y * covStride;
            auto* dst = reinterpret_cast<QRgb*>(bits + y * stride);
            for (int x = std::max(0, -x0); x < covEnd; ++x) {
                const int a = cov[x];
                if (a == 0)
                    continue;
                QRgb& d = dst[x0 + x];
                const auto mix = [a](int o, int u) { return (o * a + u * (255 - a) + 127) / 255; };
                d = qRgb(mix(ir, qRed(d)), mix(ig, qGreen(d)), mix(ib, qBlue(d)));
            }
        }
    }
    return img;
}

const QImage& CountPrefix::image(quint32 count, QRgb fill, QRgb ink, bool ellipsis)
{
    // Counts change with nearly every zoom step and composing one costs a few microseconds:
    // the cache only spares frames that show the same runs again (pans), so it stays small
    // (an image is ~3 KB).
    if (m_images.size() > 1024)
        m_images.clear();
    const Key key {count, fill, ink, ellipsis};
    auto it = m_images.constFind(key);
    if (it == m_images.cend())
        it = m_images.insert(key, compose(count, fill, ink, ellipsis));
    return *it;
}

} // namespace ws
