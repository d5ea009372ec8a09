// SPDX-License-Identifier: MIT
#pragma once

#include <QFont>
#include <QHash>
#include <QImage>
#include <QRgb>

#include <array>

namespace ws {

// The "1,234 × " in front of a folded run's label (or "1,234 × …" when the name does not fit),
// composed from glyphs rendered once.
//
// Why: the count of a folded run changes with nearly every zoom step, and laying out and
// drawing "N × name" again for each new count was a third of a frame's build. The name part
// is cached like any other label; this draws the count from per-character coverage masks
// (digits, the group separator, " × " and "…"), blended onto the slice colour the way the raster
// engine blends a glyph, at whole-pixel positions (rounded from the font's fractional
// advances). A prefix depends only on (count, fill, ink) and the font, so a cached prefix
// and a freshly composed one are the same pixels.
class CountPrefix {
public:
    explicit CountPrefix(const QFont& font);
    const QFont& font() const { return m_font; }
    // The prefix's width in px: where the name starts. `ellipsis`: "N × …", the whole label of
    // a run too narrow for a readable name.
    int width(quint32 count, bool ellipsis = false) const;
    // RGB32, `width(count, ellipsis)` wide and as tall as a line of the font; cached.
    const QImage& image(quint32 count, QRgb fill, QRgb ink, bool ellipsis = false);
    // Composes without the cache (what image() caches; tests compare the two).
    QImage compose(quint32 count, QRgb fill, QRgb ink, bool ellipsis = false) const;

private:
    struct Glyph {
        QImage coverage; // Format_Grayscale8, the glyph's origin at kMargin
        double advance = 0;
    };
    static constexpr int kMargin = 2; // ink left of the origin (and right of the advance)
    static int slot(QChar c);
    static QString text(quint32 count, bool ellipsis);

    QFont m_font;
    int m_height = 0;
    std::array<Glyph, 14> m_glyphs; // 0-9, ',', ' ', '×', '…'
    struct Key {
        quint32 count;
        QRgb fill;
        QRgb ink;
        bool ellipsis;
        bool operator==(const Key&) const = default;
    };
    friend size_t qHash(const Key& k, size_t seed) { return qHashMulti(seed, k.count, k.fill, k.ink, k.ellipsis); }
    QHash<Key, QImage> m_images;
};

} // namespace ws
