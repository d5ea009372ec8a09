// SPDX-License-Identifier: MIT
#pragma once

#include <QRgb>

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

// A row's scanline with every pixel of its folded runs (disjoint [x0, x1) columns) blended
// with `over`, into `out`. The diagonal hatch marks the pixels where (x + y) % 8 == 0, so line y
// of the row takes those pixels from this line and the rest from the plain scanline
// (LayerPixels::copyHatchedLines): the blends are done once per row, not once per line.
void hatchScanline(const std::vector<uint32_t>& scan, const std::vector<std::pair<int, int>>& runs, QRgb over,
    std::vector<uint32_t>& out);

} // namespace ws
