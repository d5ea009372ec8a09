// SPDX-License-Identifier: MIT
#include "ui/timeline/hatchedscanlines.h"

#include <algorithm>

namespace ws {

void HatchedScanlines::build(const std::vector<uint32_t>& scan, const std::vector<std::pair<int, int>>& runs, QRgb over)
{
    // Runs are mostly one colour (their widest event's): remember the last blend.
    QRgb lastUnder = 0;
    QRgb lastBlend = blendOver(0, over);
    const int width = static_cast<int>(scan.size());
    for (int phase = 0; phase < 8; ++phase) {
        std::vector<uint32_t>& l = m_lines[static_cast<size_t>(phase)];
        l.assign(scan.begin(), scan.end());
        for (const auto& [x0, x1] : runs) {
            const int end = std::min(x1, width);
            for (int x = std::max(x0, 0) + ((8 - ((std::max(x0, 0) + phase) & 7)) & 7); x < end; x += 8) {
                if (l[static_cast<size_t>(x)] != lastUnder) {
                    lastUnder = l[static_cast<size_t>(x)];
                    lastBlend = blendOver(lastUnder, over);
                }
                l[static_cast<size_t>(x)] = lastBlend;
            }
        }
    }
}

} // namespace ws
