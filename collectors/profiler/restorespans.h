// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

namespace ws::profiler {

// Bytes of one watched region (an allocation a launch's arguments point to) that a `none` replay
// copies back from the region's saved copy (ChangedMemory). Offsets count from the region's start,
// so a span never reaches into another region, even one that follows it in the address space.
struct RestoreSpan {
    size_t region = 0; // index of the region
    size_t offset = 0;
    size_t bytes = 0;
    bool operator==(const RestoreSpan&) const = default;
};

// What restoreChanged copies for the `changed` spans (grouped by region, offsets ascending within
// one, as the compare finds them): each widened to the whole `granule`s around it, counted from its
// region's start and clipped to the region's size (`regionBytes[region]`), and the spans of one
// region that then overlap or touch merged into one copy. A granule no larger than the compare's
// `block` leaves the spans as they are. Free of CUDA so that CI checks it against a byte map
// (tests/core/tst_restorespans.cpp); on the GPU a wrong span would corrupt the program's memory.
inline std::vector<RestoreSpan> widenToGranules(
    std::span<const RestoreSpan> changed, std::span<const size_t> regionBytes, size_t granule, size_t block)
{
    std::vector<RestoreSpan> out;
    if (granule <= block) {
        out.assign(changed.begin(), changed.end());
        return out;
    }
    for (const RestoreSpan& c : changed) {
        const size_t begin = c.offset / granule * granule;
        const size_t end = std::min(regionBytes[c.region], (c.offset + c.bytes + granule - 1) / granule * granule);
        if (!out.empty() && out.back().region == c.region && out.back().offset + out.back().bytes >= begin) {
            out.back().bytes = std::max(out.back().offset + out.back().bytes, end) - out.back().offset;
            continue;
        }
        out.push_back({c.region, begin, end - begin});
    }
    return out;
}

} // namespace ws::profiler
