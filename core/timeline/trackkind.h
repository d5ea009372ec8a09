// SPDX-License-Identifier: MIT
#pragma once

// The event kinds of the timeline, declared once (like Qt Creator's TimelineModel: one model
// per kind of event). Every place that needs a kind's label, its row order, its lane-cache key,
// how its details are found or how it is coloured asks this registry instead of switching over
// kinds itself.
//
// Adding an event kind:
//   1. one EventTable value (if its events come from a new table) and one kTrackKinds entry
//      in trackkind.cpp: label, table, lane kind, merge part, details, colour. EventRef packs
//      the table into 3 bits and all 8 are taken: a ninth table needs a wider EventRef first
//      (a static_assert in trackkind.cpp says so);
//   2. if its events get a new kind of lane: one LaneKind value (append: the lane cache stores
//      it) and one kLaneKinds entry: label, cache key, group, order, nesting, row height;
//   3. its loader: either rows the LaneBuilder sorts into lanes (core/timeline/lanebuilder.h,
//      TimelineModel's row scan), or a LaneProvider (core/timeline/laneprovider.h) that
//      appends finished lanes, as core/iket does for warp roles.
// Nothing else switches over kinds: the row tree, the row order, labels, tooltips and the
// lane cache follow from the two tables.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ws {

// Which table an event on a lane came from (packed into EventRef: values are stored in lane
// caches, so append only).
enum class EventTable : uint32_t {
    Kernel = 0,
    Memcpy = 1,
    Memset = 2,
    ApiCall = 3,
    NvtxRange = 4,
    Sync = 5,
    WarpEvent = 6,
    Overhead = 7
};

// The kind of a timeline lane (stored in lane caches: append only).
enum class LaneKind : int32_t {
    CudaApi = 0,   // one per (pid, tid): runtime + driver calls
    Nvtx = 1,      // one per (pid, tid, depth)
    GpuStream = 2, // one per (pid, device, stream): kernels, memcpy, memset
    Sync = 3,      // one per (pid, tid)
    WarpRole = 4,  // in-kernel events, one per (kernel, block, warp, row): see iket/warplanes.h
};

// Where a kind's rows sit in the row tree, in this order: process > thread, GPU, kernel.
enum class TrackGroup : int32_t {
    Thread = 0, // under its process and thread
    Device = 1, // under its GPU
    Kernel = 2, // under the kernel launch it was recorded in
};

// How an event gets its colour.
enum class ColourPolicy {
    ByName, // a hash of the event's name (communication kernels in their own family)
    Series, // counters: a hash of the series' name, area under the line
};

// What an event's details are read from.
enum class DetailsPolicy {
    Row,          // its row, by id, in `TrackKind::rowTable`
    RowAndLaunch, // its row, plus the launch link (API call <-> GPU work by correlation id)
    None,         // nothing beyond start, duration and name
};

// One kind of event.
struct TrackKind {
    std::string_view id;         // stable identifier: "kernel", "api", "counter"
    std::string_view eventLabel; // what one event is called in tooltips: "CUDA API call"
    std::optional<EventTable> table;
    std::optional<LaneKind> lane; // the lane kind its events go on; counters have none
    std::string_view rowTable;    // the session table its rows live in ("" for none)
    int part = 0;                 // events merged into one lane arrive as separate sorted parts
    DetailsPolicy details = DetailsPolicy::Row;
    ColourPolicy colour = ColourPolicy::ByName;
};

// One kind of lane.
struct LaneKindInfo {
    LaneKind kind = LaneKind::CudaApi;
    std::string_view label; // "CUDA API"; streams are named by their id ("stream 7")
    std::string_view key;   // lane-cache key prefix ("api"), in files: never change one
    TrackGroup group = TrackGroup::Thread;
    int order = 0;         // among the lanes of one thread, device or kernel
    bool nests = false;    // overlapping events split into depth lanes (calls inside calls)
    bool instants = false; // zero-length events are marks, drawn as ticks
    int rowHeight = 22;    // preferred row height in pixels
};

// Every event kind, in a fixed order (kernel, memcpy, memset, API, NVTX, sync, overhead, warp
// role, counter).
std::span<const TrackKind> trackKinds();
// Every lane kind, in LaneKind order.
std::span<const LaneKindInfo> laneKinds();

const TrackKind& trackKind(EventTable table);
const TrackKind& counterTrackKind();
// Unknown values (a damaged lane cache) get a neutral entry rather than a crash.
const LaneKindInfo& laneKind(LaneKind kind);
bool isKnownLaneKind(int32_t value);

struct TimelineLane;

// "CUDA API", "NVTX (depth 2)", "stream 7", "sync".
std::string laneKindLabel(LaneKind kind, int depth, uint32_t streamId);

// The one row order of the timeline: per process, each thread's lanes (API, NVTX, sync, by
// depth), then the process's streams (per device, per stream); then in-kernel lanes (per
// launch, block, warp, row). TimelineModel's lanes and the row tree both sort with it (the
// tree then puts every process above every GPU).
struct LaneOrderKey {
    int64_t v[8] = {};
    auto operator<=>(
        const LaneOrderKey&) const = default; // NOLINT(modernize-use-nullptr): clang-tidy 14 misreads the defaulted <=>
};
LaneOrderKey laneOrderKey(const TimelineLane& lane);

} // namespace ws
