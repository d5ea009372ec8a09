// SPDX-License-Identifier: MIT
#pragma once

#include <QFont>
#include <QHash>
#include <QImage>
#include <QRgb>
#include <QString>

namespace ws {

// The ruler's tick labels, drawn once per text and copied in on later paints.
//
// Why: the ruler laid out and drew every tick's text on every paint (a fifth of the GUI
// thread's paint while zooming), though a pan mostly shows texts it showed before. An image
// is the strip of the ruler that drawText would have drawn the text into, as tall as the
// ruler above its bottom line and as wide as the text plus its possible overhang, rendered by
// the same drawText call on the ruler's background, so copying it gives the same pixels as
// long as nothing else was drawn under it (RulerPainter checks that labels do not overlap).
// Cleared when the font, colours, ruler height or target format change.
class RulerLabels {
public:
    struct Style {
        QFont font;
        QRgb ink = 0;
        QRgb background = 0;
        int rulerHeight = 0;
        QImage::Format format = QImage::Format_RGB32;
        bool operator==(const Style&) const = default;
    };
    // Once per paint, before the calls below (clears the images when the style changed).
    void setStyle(const Style& style);
    // A tick label's image; its top-left goes at (tick x + kTextOffset, 0).
    const QImage& image(const QString& text, bool bold);
    // The visible span left of the ruler ("view 1.000 ms"), drawn in `rect` = (kSpanX, 0,
    // width, ruler height); its top-left goes at (kSpanX, 0).
    const QImage& spanImage(const QString& text, int width);
    // horizontalAdvance of "000.000 ms" in the style's font: the ruler's tick spacing.
    int spacingText();
    // What the images hold: `text` drawn by drawText(rect, flags) with the image's top-left
    // at the origin.
    static QImage render(const Style& style, const QString& text, bool bold, const QRect& rect);
    static constexpr int kSpanX = 6;
    static constexpr int kTextOffset = 3;
    // Ink that may reach right of a text's advance (the image includes it).
    static constexpr int kOverhang = 2;
    int size() const { return static_cast<int>(m_images[0].size() + m_images[1].size() + m_spans.size()); }

private:
    Style m_style;
    bool m_valid = false;
    int m_spacing = -1;
    QHash<QString, QImage> m_images[2]; // regular, bold
    QHash<QString, QImage> m_spans;
    int m_spanWidth = -1;
};

} // namespace ws
