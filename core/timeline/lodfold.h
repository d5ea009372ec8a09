// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/lodindex.h"
#include "core/timeline/timelinecoordinates.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ws {

// One rectangle of a lane's draw list: a single event (count == 1) or a folded run of
// events that are too small to tell apart at this zoom. Members are the contiguous indices
// [first, first + count); the rectangle covers exactly the union of their pixel spans (no
// pixel without an event is painted, so idle gaps of one pixel stay visible) and `widest`,
// the longest member, gives the run its colour ("widest event wins").
struct LodRect {
    int32_t x0 = 0;
    int32_t x1 = 0;
    uint32_t first = 0;
    uint32_t count = 0;
    uint32_t widest = 0;
    bool operator==(const LodRect&) const = default;
};

// First index whose span ends right of column 0, and first index starting at or right of
// the last column: [first, last) are the events that touch the viewport.
struct VisibleRange {
    size_t first = 0;
    size_t last = 0;
};
VisibleRange visibleRange(std::span<const TimeNs> start, LaneEnds end, const TimelineCoordinates& c);

// The same range, searched outward from `hint` (partitionPointNear) instead of over the whole
// lane: a lane of 10M events costs two cold binary searches of 24 probes each, most of them cache
// misses, in every frame that cannot take its folds over (zooms). Any hint gives the same range.
VisibleRange visibleRange(
    std::span<const TimeNs> start, LaneEnds end, const TimelineCoordinates& c, const VisibleRange& hint);

// Where a lane's visible range probably lies in view `c`, from the draw list `previous` that
// foldLane made for it in view `was` (any view of the same lane): the first event of the
// rectangle under each of c's edges, as `was` drew them. Nothing when `previous` is empty.
std::optional<VisibleRange> visibleRangeHint(
    std::span<const LodRect> previous, const TimelineCoordinates& was, const TimelineCoordinates& c);

// Appends the draw list of one lane (sorted by start, non-overlapping) for the viewport.
// Tracy's galloping fold in pixel space: per frame O(rects * log n) with an index, however
// many events the lane holds. Without an index (small lanes) the candidate search is linear
// in the visible events; the output is identical either way, and whatever `hint` is
// (visibleRangeHint: where to start looking for the visible events).
void foldLane(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
    std::vector<LodRect>& out, const std::optional<VisibleRange>& hint = {});

// The same draw list, built from `previous`: the one foldLane made for this lane in the view
// `shift` whole pixels left of `c` on the same grid (c.pixelShiftFrom(thatView) == shift).
// Rectangles that lie inside both views are taken over moved by `shift`; the fold runs only
// where the view exposed new columns and where a rectangle touched either view's edge. The
// output equals foldLane's exactly: a rectangle depends only on the event it starts at and on
// columns that a whole-pixel pan moves by exactly `shift`. Returns how many rectangles it took
// over. `hint` as for foldLane.
size_t foldLaneReusing(std::span<const TimeNs> start, LaneEnds end, const LodIndex* index, const TimelineCoordinates& c,
    std::span<const LodRect> previous, int64_t shift, std::vector<LodRect>& out,
    const std::optional<VisibleRange>& hint = {});

// Lanes at least this long get a LodIndex when a session is opened.
inline constexpr size_t kLodIndexMinEvents = 4096;

} // namespace ws
