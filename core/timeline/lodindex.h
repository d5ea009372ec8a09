// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/laneends.h"
#include "core/util/cancellation.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace ws {

// How the fold measures events: an event narrower than kFoldPx pixels may be folded with its
// neighbours (Tracy uses 3 px); wider ones are drawn on their own.
inline constexpr double kFoldPx = 3.0;

// The fold key of event k: where a fold starting before k may have to stop. A fold of
// sub-pixel events can only end where the time gap before k is at least one pixel or where k
// itself is wide, i.e. where max(gap, duration / kFoldPx) >= ns per pixel. Events with a
// smaller key always touch the run and are narrow, so they are merged without looking at them.
inline double foldKey(std::span<const TimeNs> start, LaneEnds end, size_t k)
{
    const double gap = k == 0 ? 0.0 : static_cast<double>(start[k] - end[k - 1]);
    const double dur = static_cast<double>(end.duration(k)) / kFoldPx;
    return gap > dur ? gap : dur;
}

// Precomputed per-lane pyramid (fan-out 16) that makes the fold's two questions O(log n):
//   nextCandidate: first event at or after `from` whose fold key reaches a threshold, and
//   widest:        the longest event in an index range (its name colours a folded run).
// Per 16 events it stores one float (max fold key, rounded up so skipping a block is always
// safe) and one uint32 (index of the longest event): about 0.53 bytes per event. It is the
// segment-tree idea of Perfetto's mipmaps, specialised to what the fold needs.
class LodIndex {
public:
    static constexpr size_t kFanout = 16;

    LodIndex() = default;

    // Throws nothing; returns an empty index when cancelled (check the token afterwards).
    static LodIndex build(std::span<const TimeNs> start, LaneEnds end, const CancellationToken& cancel = {});

    bool empty() const { return m_levels.empty(); }
    size_t eventCount() const { return m_size; }
    size_t levelCount() const { return m_levels.size(); }
    size_t residentBytes() const;

    // First k in [from, to) with foldKey(k) >= threshold, or `to` when there is none.
    size_t nextCandidate(std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, double threshold) const;

    // Index of the longest event in [first, last) (lowest index on ties); first < last.
    size_t widest(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last) const;

private:
    struct Level {
        std::vector<float> maxKey;
        std::vector<uint32_t> widest;
    };
    size_t m_size = 0;
    std::vector<Level> m_levels; // m_levels[0]: one entry per 16 events; each next level: per 16 entries
};

// Reference implementations used when a lane has no index (small lanes) and by the tests.
size_t nextCandidateLinear(std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, double threshold);
size_t widestLinear(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last);

} // namespace ws
