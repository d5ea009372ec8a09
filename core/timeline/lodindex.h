// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/laneends.h"
#include "core/util/cancellation.h"

#include <cstddef>
#include <cstdint>
#include <optional>
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

// The least duration d with d / kFoldPx >= threshold in doubles, as foldKey and the fold's
// "wide" test compute it (exact, whatever rounding does near the boundary): those tests are then
// one integer comparison. Nothing for thresholds outside (0, 2^60], where the least one may not
// exist or not be positive (never a view's: nsPerPx >= 1/64, and 2^60 ns per pixel is 36 years).
std::optional<TimeNs> leastDurationReaching(double threshold);

// foldKey(start, end, k) >= threshold, decided on the integers the lane holds: the duration
// against the least one that reaches the threshold, the gap before k against the least gap that
// does. Both minimums are found once per threshold (a fold, a frame), so testing an event costs
// two integer comparisons instead of two int-to-double conversions and a division: the
// candidate search tests several events for each rectangle it finds. The answer equals
// foldKey's for every event and every threshold; thresholds outside (0, 2^60] fall back to it.
class CandidateThreshold {
public:
    explicit CandidateThreshold(double threshold);

    double value() const { return m_threshold; }
    bool operator()(std::span<const TimeNs> start, LaneEnds end, size_t k) const
    {
        if (!m_inIntegers) [[unlikely]]
            return foldKey(start, end, k) >= m_threshold;
        // foldKey's gap of event 0 is 0, below any threshold > 0.
        return end.duration(k) >= m_minDuration || (k > 0 && start[k] - end[k - 1] >= m_minGap);
    }

private:
    double m_threshold;
    bool m_inIntegers;
    TimeNs m_minDuration = 0;
    TimeNs m_minGap = 0;
};

// Precomputed per-lane pyramid (fan-out 16) that makes the fold's two questions O(log n):
//   nextCandidate: first event at or after `from` whose fold key reaches a threshold, and
//   widest:        the longest event in an index range (its name colours a folded run).
// Per 16 events it stores one float (max fold key, rounded up so skipping a block is always
// safe) and two uint32 (index and duration of the longest event): about 0.8 bytes per event. It is the
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
    size_t nextCandidate(std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, double threshold) const
    {
        return nextCandidate(start, end, from, to, CandidateThreshold(threshold));
    }
    size_t nextCandidate(
        std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, const CandidateThreshold& threshold) const;

    // Index of the longest event in [first, last) (lowest index on ties); first < last.
    size_t widest(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last) const;

private:
    struct Level {
        std::vector<float> maxKey;
        std::vector<uint32_t> widest;
        // widest's duration (LaneDurations::kLong: too long or negative, read it from the lane).
        std::vector<uint32_t> widestDuration;
    };
    size_t m_size = 0;
    std::vector<Level> m_levels; // m_levels[0]: one entry per 16 events; each next level: per 16 entries
};

// Reference implementations used when a lane has no index (small lanes) and by the tests.
size_t nextCandidateLinear(std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, double threshold);
size_t nextCandidateLinear(
    std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, const CandidateThreshold& threshold);
size_t widestLinear(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last);

} // namespace ws
