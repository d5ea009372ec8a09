// SPDX-License-Identifier: MIT
#include "core/timeline/lodfold.h"

#include "core/timeline/partitionpoint.h"

#include <algorithm>

namespace ws {

namespace {

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

VisibleRange visibleRange(
    std::span<const TimeNs> start, LaneEnds end, const TimelineCoordinates& c, const VisibleRange& hint)
{
    const size_t n = std::min(start.size(), end.size());
    const size_t first
        = partitionPointNear(0, n, hint.first, [&](size_t k) { return c.span(start[k], end[k]).x1 <= 0; });
    const size_t last
        = partitionPointNear(first, n, hint.last, [&](size_t k) { return c.column(start[k]) < c.width(); });
    return {first, last};
}

std::optional<VisibleRange> visibleRangeHint(
    std::span<const LodRect> previous, const TimelineCoordinates& was, const TimelineCoordinates& c)
{
    if (previous.empty())
        return std::nullopt;
    // The event at time t as `was` drew it: in the rectangle that covers t's column, as far into
    // its members as t is into its columns (a folded run of a zoomed-out view holds thousands
    // of events; spread evenly is a better guess than its first). Columns are clamped to
    // [-1, width + 1], so an edge outside `was` lands on its first or last rectangle and the
    // search gallops from there: cheaper than the cold search after pans and zooms out (the
    // edge is near), dearer only after a jump (measured: docs/timeline.md, "zoom fold").
    const auto at = [&](TimeNs t) -> size_t {
        const int64_t x = was.column(t);
        const size_t j = partitionPoint(0, previous.size(), [&](size_t k) { return previous[k].x1 <= x; });
        if (j == previous.size())
            return static_cast<size_t>(previous.back().first) + previous.back().count;
        const LodRect& r = previous[j];
        const double into = (was.timeToX(t) - r.x0) / std::max(r.x1 - r.x0, 1);
        return r.first + static_cast<size_t>(std::clamp(into, 0.0, 1.0) * (r.count - 1));
    };
    return VisibleRange {at(c.viewStart()), at(c.viewEnd())};
}

namespace {

// One lane's fold for one view: the rectangle that starts at event i, whatever came before it
// (a rectangle's end depends only on where it starts), so a fold can resume at any index that
// begins a rectangle.
class LaneFold {
public:
    LaneFold(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
        const std::optional<VisibleRange>& hint)
        : m_start(start)
        , m_end(end)
        , m_index(index && !index->empty() && index->eventCount() == start.size() ? index : nullptr)
        , m_c(c)
        , m_nsPerPx(c.nsPerPx())
        , m_vis(hint ? visibleRange(start, end, c, *hint) : visibleRange(start, end, c))
        // Slightly below one pixel so that rounding can only add candidates, never lose one: a
        // candidate is checked exactly below, a non-candidate is merged unseen.
        , m_threshold(c.nsPerPx() * (1.0 - 1e-9))
        , m_minWide(leastDurationReaching(c.nsPerPx()))
    {
    }

    const VisibleRange& visible() const { return m_vis; }

    // Appends the rectangle that starts at i (< visible().last); returns the index after it.
    size_t rectAt(size_t i, std::vector<LodRect>& out)
    {
        const PixelSpan s = m_c.spanFrom(i == m_stop ? m_stopColumn : m_c.column(m_start[i]), m_end[i]);
        if (isWide(i)) {
            out.push_back({toColumn(s.x0), toColumn(s.x1), static_cast<uint32_t>(i), 1, static_cast<uint32_t>(i)});
            return i + 1;
        }
        // A fold starting at i. Every event before the next candidate is narrow and touches
        // the run, so only candidates need a look.
        int64_t runEnd = s.x1;
        size_t next = i + 1;
        for (;;) {
            const size_t cand = m_index ? m_index->nextCandidate(m_start, m_end, next, m_vis.last, m_threshold)
                                        : nextCandidateLinear(m_start, m_end, next, m_vis.last, m_threshold);
            if (cand > next)
                runEnd = std::max(runEnd, m_c.span(m_start[cand - 1], m_end[cand - 1]).x1);
            next = cand;
            if (cand >= m_vis.last)
                break;
            // An event that deserves its own rectangle, or a visible gap (cheapest test first:
            // each of an event's columns costs a division).
            if (isWide(cand))
                break;
            const int64_t x0 = m_c.column(m_start[cand]);
            if (x0 > runEnd) {
                m_stop = cand; // the next rectangle starts here: its first column is known
                m_stopColumn = x0;
                break;
            }
            runEnd = std::max(runEnd, m_c.spanFrom(x0, m_end[cand]).x1);
            ++next;
        }
        const size_t count = next - i;
        const size_t widest
            = m_index ? m_index->widest(m_start, m_end, i, next) : widestLinear(m_start, m_end, i, next);
        out.push_back({toColumn(s.x0), toColumn(runEnd), static_cast<uint32_t>(i), static_cast<uint32_t>(count),
            static_cast<uint32_t>(widest)});
        return next;
    }

private:
    bool isWide(size_t k) const
    {
        if (m_minWide) [[likely]]
            return m_end.duration(k) >= *m_minWide;
        return static_cast<double>(m_end[k] - m_start[k]) / kFoldPx >= m_nsPerPx;
    }

    std::span<const TimeNs> m_start;
    LaneEnds m_end;
    const LodIndex* m_index;
    // Copies: the fold's loop appends to a vector, which the compiler must assume may write
    // anywhere a reference points.
    TimelineCoordinates m_c;
    double m_nsPerPx;
    VisibleRange m_vis;
    CandidateThreshold m_threshold;
    std::optional<TimeNs> m_minWide; // the least duration of a wide event (leastDurationReaching)
    // Where the last fold stopped at a visible gap, and that event's column.
    size_t m_stop = SIZE_MAX;
    int64_t m_stopColumn = 0;
};

// Whether previous[j], folded for a view `shift` pixels left of this one's, is exactly the
// rectangle a fold of this view makes at the same event. The rectangle reads the columns of its
// members and of the event after it (where it stopped); those are the same moved by `shift`
// while neither view clamps them, i.e. while the rectangle and the next one's start lie inside
// both views. The next rectangle existing also says the fold did not stop at the view's right
// edge.
bool sameInBoth(std::span<const LodRect> previous, size_t j, int64_t shift, int width)
{
    if (j + 1 >= previous.size())
        return false;
    const LodRect& r = previous[j];
    const int64_t stop = previous[j + 1].x0;
    return r.x0 >= 0 && r.x1 <= width && stop < width && r.x0 - shift >= 0 && r.x1 - shift <= width
        && stop - shift < width;
}

} // namespace

void foldLane(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
    std::vector<LodRect>& out, const std::optional<VisibleRange>& hint)
{
    LaneFold fold(start, end, index, c, hint);
    for (size_t i = fold.visible().first; i < fold.visible().last;)
        i = fold.rectAt(i, out);
}

size_t foldLaneReusing(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
    std::span<const LodRect> previous, int64_t shift, std::vector<LodRect>& out,
    const std::optional<VisibleRange>& hint)
{
    LaneFold fold(start, end, index, c, hint);
    size_t j = 0;
    size_t taken = 0;
    for (size_t i = fold.visible().first; i < fold.visible().last;) {
        while (j < previous.size() && previous[j].first < i)
            ++j;
        if (j < previous.size() && previous[j].first == i && sameInBoth(previous, j, shift, c.width())) {
            LodRect r = previous[j];
            r.x0 = toColumn(r.x0 - shift);
            r.x1 = toColumn(r.x1 - shift);
            out.push_back(r);
            i += r.count;
            ++j;
            ++taken;
            continue;
        }
        i = fold.rectAt(i, out);
    }
    return taken;
}

} // namespace ws
