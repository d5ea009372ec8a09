// SPDX-License-Identifier: MIT
#include "ui/timeline/hatchedscanlines.h"

#include <algorithm>

namespace ws {

void hatchScanline(const std::vector<uint32_t>& scan, const std::vector<std::pair<int, int>>& runs, QRgb over,
    std::vector<uint32_t>& out)
{
    out.assign(scan.begin(), scan.end());
    // Runs are mostly one colour (their widest event's): remember the last blend.
    QRgb lastUnder = 0;
    QRgb lastBlend = blendOver(0, over);
    const int width = static_cast<int>(scan.size());
    for (const auto& [x0, x1] : runs) {
        for (int x = std::max(x0, 0); x < std::min(x1, width); ++x) {
            if (out[static_cast<size_t>(x)] != lastUnder) {
                lastUnder = out[static_cast<size_t>(x)];
                lastBlend = blendOver(lastUnder, over);
            }
            out[static_cast<size_t>(x)] = lastBlend;
        }
    }
}

} // namespace ws
