// SPDX-License-Identifier: MIT
#pragma once

#include <QImage>
#include <QPoint>
#include <QRect>
#include <QRgb>

#include <cstdint>
#include <utility>
#include <vector>

namespace ws {

// The pixels of one layer of a frame (the pinned rows, or the visible scrolling rows), kept
// as what they are made of rather than as an image: per line of the event area a scanline
// (one per row, shared by the row's lines) or a colour, per line of the label column the
// row's label cell, and the blits drawn over them (slice labels, counters, idle notes).
//
// Why: a row is uniform vertically, so an image of the rows repeats each scanline down the
// row. Writing that image on the worker and copying it into the window on the GUI thread
// moved every pixel twice (the measured "pixel floor", 1.6-1.75 ms p95 of a 2 ms budget);
// composing the rows straight into the window's backing store writes each pixel once, from
// scanlines that stay in cache. toImage() composes the same pixels into an image where the
// target is not a plain RGB32 buffer (a QPixmap, a scaled display, a frame shown moved).
class LayerPixels {
public:
    LayerPixels() = default;
    // `width` x `height` pixels; the event area starts at column `eventLeft` (left of it is
    // the label column); lines nothing is drawn on are `background`.
    LayerPixels(int width, int height, int eventLeft, QRgb background);

    bool isNull() const { return m_height <= 0 || m_width <= 0; }
    int width() const { return m_width; }
    int height() const { return m_height; }
    QSize size() const { return isNull() ? QSize() : QSize(m_width, m_height); }
    int eventLeft() const { return m_eventLeft; }
    int eventWidth() const { return m_width - m_eventLeft; }

    // Event-area lines [y0, y1) in one colour.
    void fillLines(int y0, int y1, QRgb c);
    // Event-area lines [y0, y1) as `scan` (eventWidth() pixels, copied once for all of them).
    void copyLines(int y0, int y1, const uint32_t* scan);
    // The same with the diagonal hatch of folded runs: line y has `hatched` (every pixel of the
    // runs blended) where (x + y) % 8 == 0 inside one of `runs` (event-area columns [x0, x1)).
    void copyHatchedLines(
        int y0, int y1, const uint32_t* scan, const uint32_t* hatched, const std::vector<std::pair<int, int>>& runs);
    // Label-column lines [y, y + cell.height()) from `cell` (RGB32, at least as wide as the
    // column; lines outside the layer are left out).
    void setLabelCell(int y, const QImage& cell);
    // `img` (RGB32) with its top-left at `at`, clipped to `clip` and to the layer. Blits are
    // drawn over the lines and cells, in the order they were added.
    void blit(const QImage& img, QPoint at, const QRect& clip);

    // Writes the layer's pixels inside `area` (layer coordinates) into a 32-bit buffer whose
    // pixel (origin.x() + x, origin.y() + y) is the layer's (x, y); the caller makes sure all
    // of those lie inside the buffer.
    void compose(uchar* bits, qsizetype bytesPerLine, QPoint origin, const QRect& area) const;
    // The whole layer as an RGB32 image (null when the layer is).
    QImage toImage() const;

    int blitCount() const { return static_cast<int>(m_blits.size()); }

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct Line {
        uint32_t scan = kNone;  // offset in m_scans, or kNone: `fill`
        uint32_t hatch = kNone; // index in m_hatches
        QRgb fill = 0;
    };
    struct Hatch {
        uint32_t hatched = 0; // offset in m_scans
        uint32_t runsBegin = 0;
        uint32_t runsEnd = 0;
    };
    struct Blit {
        QImage image;
        QRect source; // in `image`
        QPoint at;    // where source's top-left lands, layer coordinates
    };

    uint32_t storeScan(const uint32_t* scan);
    void composeLine(uint32_t* dst, int y, int x0, int x1) const;

    int m_width = 0;
    int m_height = 0;
    int m_eventLeft = 0;
    QRgb m_background = 0xffffffffu;
    std::vector<Line> m_lines;           // per line, the event area
    std::vector<const uint32_t*> m_cell; // per line, the label column (nullptr: background)
    std::vector<QImage> m_cells;         // keeps the cells m_cell points into
    std::vector<uint32_t> m_scans;
    std::vector<Hatch> m_hatches;
    std::vector<std::pair<int, int>> m_runs;
    std::vector<Blit> m_blits;
};

} // namespace ws
