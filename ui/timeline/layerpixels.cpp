// SPDX-License-Identifier: MIT
#include "ui/timeline/layerpixels.h"

#include "ui/timeline/pixelfill.h"

#include <algorithm>
#include <cstring>

namespace ws {

LayerPixels::LayerPixels(int width, int height, int eventLeft, QRgb background)
    : m_width(std::max(width, 0))
    , m_height(std::max(height, 0))
    , m_eventLeft(std::clamp(eventLeft, 0, m_width))
    , m_background(background | 0xff000000u)
{
    m_lines.assign(static_cast<size_t>(m_height), Line {kNone, kNone, m_background});
    m_cell.assign(static_cast<size_t>(m_height), nullptr);
}

uint32_t LayerPixels::storeScan(const uint32_t* scan)
{
    const auto at = static_cast<uint32_t>(m_scans.size());
    m_scans.insert(m_scans.end(), scan, scan + eventWidth());
    return at;
}

void LayerPixels::fillLines(int y0, int y1, QRgb c)
{
    for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y)
        m_lines[static_cast<size_t>(y)] = Line {kNone, kNone, c};
}

void LayerPixels::copyLines(int y0, int y1, const uint32_t* scan)
{
    if (std::max(y0, 0) >= std::min(y1, m_height))
        return;
    const uint32_t at = storeScan(scan);
    for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y)
        m_lines[static_cast<size_t>(y)] = Line {at, kNone, 0};
}

void LayerPixels::copyHatchedLines(
    int y0, int y1, const uint32_t* scan, const uint32_t* hatched, const std::vector<std::pair<int, int>>& runs)
{
    if (std::max(y0, 0) >= std::min(y1, m_height))
        return;
    const uint32_t at = storeScan(scan);
    Hatch h;
    h.hatched = storeScan(hatched);
    h.runsBegin = static_cast<uint32_t>(m_runs.size());
    for (const auto& [x0, x1] : runs) {
        const int a = std::max(x0, 0);
        const int b = std::min(x1, eventWidth());
        if (a < b)
            m_runs.emplace_back(a, b);
    }
    h.runsEnd = static_cast<uint32_t>(m_runs.size());
    const auto index = static_cast<uint32_t>(m_hatches.size());
    m_hatches.push_back(h);
    for (int y = std::max(y0, 0); y < std::min(y1, m_height); ++y)
        m_lines[static_cast<size_t>(y)] = Line {at, index, 0};
}

void LayerPixels::setLabelCell(int y, const QImage& cell)
{
    if (cell.isNull() || cell.width() < m_eventLeft || cell.depth() != 32)
        return;
    m_cells.push_back(cell);
    const uchar* bits = m_cells.back().constBits(); // shared, never written: the pointer stays valid
    const qsizetype stride = cell.bytesPerLine();
    for (int row = std::max(0, -y); row < cell.height() && y + row < m_height; ++row) {
        const int line = y + row; // >= 0: row starts at -y
        m_cell[static_cast<size_t>(line)] = reinterpret_cast<const uint32_t*>(bits + row * stride);
    }
}

void LayerPixels::blit(const QImage& img, QPoint at, const QRect& clip)
{
    if (img.isNull() || img.depth() != 32)
        return;
    const QRect target = QRect(at, img.size()).intersected(clip).intersected(QRect(0, 0, m_width, m_height));
    if (target.isEmpty())
        return;
    m_blits.push_back(Blit {img, target.translated(-at), target.topLeft()});
}

void LayerPixels::composeLine(uint32_t* dst, int y, int x0, int x1) const
{
    // Label column.
    if (const int b = std::min(x1, m_eventLeft); x0 < b) {
        if (const uint32_t* cell = m_cell[static_cast<size_t>(y)])
            std::memcpy(dst + x0, cell + x0, static_cast<size_t>(b - x0) * sizeof(uint32_t));
        else
            fillPixels(dst + x0, static_cast<size_t>(b - x0), m_background);
    }
    // Event area, in its own columns: e = x - m_eventLeft.
    const int e0 = std::max(x0, m_eventLeft) - m_eventLeft;
    const int e1 = x1 - m_eventLeft;
    if (e0 >= e1)
        return;
    const Line& line = m_lines[static_cast<size_t>(y)];
    uint32_t* out = dst + m_eventLeft;
    if (line.scan == kNone) {
        fillPixels(out + e0, static_cast<size_t>(e1 - e0), line.fill);
        return;
    }
    std::memcpy(out + e0, m_scans.data() + line.scan + e0, static_cast<size_t>(e1 - e0) * sizeof(uint32_t));
    if (line.hatch == kNone)
        return;
    const Hatch& h = m_hatches[line.hatch];
    const uint32_t* hatched = m_scans.data() + h.hatched;
    for (uint32_t i = h.runsBegin; i < h.runsEnd; ++i) {
        const int a = std::max(m_runs[i].first, e0);
        const int b = std::min(m_runs[i].second, e1);
        // The first column at or after a with (x + y) % 8 == 0.
        for (int x = a + ((8 - ((a + y) & 7)) & 7); x < b; x += 8)
            out[x] = hatched[x];
    }
}

void LayerPixels::compose(uchar* bits, qsizetype bytesPerLine, QPoint origin, const QRect& area) const
{
    const QRect r = area.intersected(QRect(0, 0, m_width, m_height));
    if (r.isEmpty())
        return;
    const auto dstLine = [&](int y) {
        return reinterpret_cast<uint32_t*>(bits + static_cast<qsizetype>(origin.y() + y) * bytesPerLine) + origin.x();
    };
    for (int y = r.top(); y <= r.bottom(); ++y)
        composeLine(dstLine(y), y, r.left(), r.right() + 1);
    for (const Blit& b : m_blits) {
        const QRect t = QRect(b.at, b.source.size()).intersected(r);
        if (t.isEmpty())
            continue;
        const uchar* src = b.image.constBits();
        const qsizetype stride = b.image.bytesPerLine();
        const int sx = b.source.left() + (t.left() - b.at.x());
        const int sy = b.source.top() + (t.top() - b.at.y());
        for (int row = 0; row < t.height(); ++row) {
            const auto* s = reinterpret_cast<const uint32_t*>(src + static_cast<qsizetype>(sy + row) * stride) + sx;
            std::memcpy(dstLine(t.top() + row) + t.left(), s, static_cast<size_t>(t.width()) * sizeof(uint32_t));
        }
    }
}

QImage LayerPixels::toImage() const
{
    if (isNull())
        return {};
    QImage img(m_width, m_height, QImage::Format_RGB32);
    if (img.isNull())
        return img;
    compose(img.bits(), img.bytesPerLine(), QPoint(0, 0), img.rect());
    return img;
}

} // namespace ws
