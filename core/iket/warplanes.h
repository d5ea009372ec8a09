// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/timelinemodel.h"

#include <span>

namespace ws::iket {

// Timeline lanes of in-kernel traces (LaneKind::WarpRole): per (kernel, block, warp), one lane
// per push/pop nesting depth, one per row of overlapping asynchronous ranges, and one for
// marks, in that order (lane.depth numbers them). Labels read "producer · warp 0",
// "producer · warp 0 · depth 1", "producer · warp 0 · async", "producer · warp 0 · marks".
// They are built when a session is opened (warp events are few next to API calls), never
// stored in the lane cache. Events refer to warp_event rows by id.
// TimelineModel gets them through WarpLaneProvider (warplaneprovider.h), which also attaches
// the per-role summaries.
void appendWarpLanes(TimelineModel& model, std::span<const WarpEvent> events);

} // namespace ws::iket
