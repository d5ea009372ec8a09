// SPDX-License-Identifier: MIT
#include "core/timeline/lodfold.h"

#include <algorithm>

namespace ws {

namespace {

// Binary search for the first index in [lo, hi) where `pred` turns false (pred is monotonic).
template <typename Pred> size_t partitionPoint(size_t lo, size_t hi, Pred pred)
{
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (pred(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t toColumn(int64_t x)
{
    return static_cast<int32_t>(x); // already clamped to [-1, width + 1] by TimelineCoordinates
}

} // namespace

VisibleRange visibleRange(std::span<const TimeNs> start, LaneEnds end, const TimelineCoordinates& c)
{
    const size_t n = std::min(start.size(), end.size());
    // x1 of a span is monotonic in the index (starts and ends are both sorted), so is x0.
    const size_t first = partitionPoint(0, n, [&](size_t k) { return c.span(start[k], end[k]).x1 <= 0; });
    const size_t last = partitionPoint(first, n, [&](size_t k) { return c.column(start[k]) < c.width(); });
    return {first, last};
}

void foldLane(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
    std::vector<LodRect>& out)
{
    const VisibleRange vis = visibleRange(start, end, c);
    const double nsPerPx = c.nsPerPx();
    // Slightly below one pixel so that rounding can only add candidates, never lose one: a
    // candidate is checked exactly below, a non-candidate is merged unseen.
    const double threshold = nsPerPx * (1.0 - 1e-9);
    const bool indexed = index && !index->empty() && index->eventCount() == start.size();
    const auto isWide = [&](size_t k) { return static_cast<double>(end[k] - start[k]) / kFoldPx >= nsPerPx; };

    size_t i = vis.first;
    while (i < vis.last) {
        const PixelSpan s = c.span(start[i], end[i]);
        if (isWide(i)) {
            out.push_back({toColumn(s.x0), toColumn(s.x1), static_cast<uint32_t>(i), 1, static_cast<uint32_t>(i)});
            ++i;
            continue;
        }
        // A fold starting at i. Every event before the next candidate is narrow and touches
        // the run, so only candidates need a look.
        int64_t runEnd = s.x1;
        size_t next = i + 1;
        for (;;) {
            const size_t cand = indexed ? index->nextCandidate(start, end, next, vis.last, threshold)
                                        : nextCandidateLinear(start, end, next, vis.last, threshold);
            if (cand > next)
                runEnd = std::max(runEnd, c.span(start[cand - 1], end[cand - 1]).x1);
            next = cand;
            if (cand >= vis.last)
                break;
            const PixelSpan cs = c.span(start[cand], end[cand]);
            if (cs.x0 > runEnd || isWide(cand))
                break; // a visible gap, or an event that deserves its own rectangle
            runEnd = std::max(runEnd, cs.x1);
            ++next;
        }
        const size_t count = next - i;
        const size_t widest
            = (indexed && count > 64) ? index->widest(start, end, i, next) : widestLinear(start, end, i, next);
        out.push_back({toColumn(s.x0), toColumn(runEnd), static_cast<uint32_t>(i), static_cast<uint32_t>(count),
            static_cast<uint32_t>(widest)});
        i = next;
    }
}

} // namespace ws
