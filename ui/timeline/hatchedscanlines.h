// SPDX-License-Identifier: MIT
#pragma once

#include <QRgb>

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace ws {

// `over` (ARGB) blended onto the opaque `under`, as the rasteriser draws grids and hatches.
inline QRgb blendOver(QRgb under, QRgb over)
{
    const int a = qAlpha(over);
    const auto mix = [a](int o, int u) { return (o * a + u * (255 - a)) / 255; };
    return qRgb(mix(qRed(over), qRed(under)), mix(qGreen(over), qGreen(under)), mix(qBlue(over), qBlue(under)));
}

// A row's scanline with the diagonal hatch of its folded runs: the hatch marks the pixels
// where (x + y) % 8 == 0, so line y of the row is one of eight variants of the scanline
// (y % 8). Blending those once per variant rather than once per line of the row (18 lines)
// gives the same pixels for a third of the blends, and each line is then a plain copy.
class HatchedScanlines {
public:
    // runs: disjoint [x0, x1) columns of the folded runs, within the scanline.
    void build(const std::vector<uint32_t>& scan, const std::vector<std::pair<int, int>>& runs, QRgb over);
    // The line for image row y.
    const uint32_t* line(int y) const { return m_lines[static_cast<size_t>(y & 7)].data(); }

private:
    std::array<std::vector<uint32_t>, 8> m_lines;
};

} // namespace ws
