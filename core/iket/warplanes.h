// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/timelinemodel.h"

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <tuple>

namespace ws::iket {

// Timeline lanes of in-kernel traces (LaneKind::WarpRole): per (kernel, block, warp), one lane
// per push/pop nesting depth, one per row of overlapping asynchronous ranges, and one for
// marks, in that order (lane.depth numbers them). Labels read "producer · warp 0",
// "producer · warp 0 · depth 1", "producer · warp 0 · async", "producer · warp 0 · marks".
// They are built when a session is opened (warp events are few next to API calls), never
// stored in the lane cache. Events refer to warp_event rows by id.
// TimelineModel gets them through WarpLaneProvider (warplaneprovider.h), which also attaches
// the per-role summaries.
//
// `lost` (from droppedEventsByWarp): a warp that ran out of slots says so on its first lane,
// "producer · warp 0 · 138 events lost", where a user reading that warp looks (issue 23: no loss
// is silent).
// `unrecorded` (from unrecordedWarpsByKernel): warps of a kernel that had no slots at all (the
// kernel ran a larger grid than its Launch was sized for) have no lane; the kernel's first lane
// says how many, "loader · warp 0 · 396 warps of this launch not recorded".
using WarpKey = std::tuple<int64_t, int32_t, int32_t>; // kernel id, block, warp
void appendWarpLanes(TimelineModel& model, std::span<const WarpEvent> events,
    const std::map<WarpKey, int64_t>& lost = {}, const std::map<int64_t, int64_t>& unrecorded = {});

// Per warp, the events it lost, from the session's meta `iket_dropped_warps` (lines of
// "<launch> (kernel #<id>): block <b> warp <w> (<n>)", as ingest writes them). Lines of launches
// whose kernel was not found, or that do not parse, are left out.
std::map<WarpKey, int64_t> droppedEventsByWarp(const std::map<std::string, std::string>& meta);

// Per kernel id, the warps that recorded nothing because they lay outside their Launch's grid,
// from the session's meta `iket_out_of_range` (lines of "<launch> (kernel #<id>): <n> warps").
std::map<int64_t, int64_t> unrecordedWarpsByKernel(const std::map<std::string, std::string>& meta);

} // namespace ws::iket
