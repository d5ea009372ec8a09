// SPDX-License-Identifier: MIT
#include "core/timeline/trackkind.h"

#include "core/timeline/timelinemodel.h"

#include <algorithm>

namespace ws {

namespace {

// THE registry (see trackkind.h for how to add a kind).
constexpr TrackKind kTrackKinds[] = {
    {"kernel", "kernel", EventTable::Kernel, LaneKind::GpuStream, "kernel", 0, DetailsPolicy::RowAndLaunch},
    {"memcpy", "memcpy", EventTable::Memcpy, LaneKind::GpuStream, "memcpy", 1, DetailsPolicy::RowAndLaunch},
    {"memset", "memset", EventTable::Memset, LaneKind::GpuStream, "memset", 2, DetailsPolicy::RowAndLaunch},
    {"api", "CUDA API call", EventTable::ApiCall, LaneKind::CudaApi, "api_call", 0, DetailsPolicy::RowAndLaunch},
    {"nvtx", "NVTX range", EventTable::NvtxRange, LaneKind::Nvtx, "nvtx_range", 0, DetailsPolicy::Row},
    {"sync", "synchronization", EventTable::Sync, LaneKind::Sync, "sync", 0, DetailsPolicy::Row},
    // Recorded, not shown on a lane yet: the entry names it for tooltips and details.
    {"overhead", "profiler overhead", EventTable::Overhead, std::nullopt, "overhead", 0, DetailsPolicy::None},
    {"warp", "warp event", EventTable::WarpEvent, LaneKind::WarpRole, "warp_event", 0, DetailsPolicy::Row},
    {"counter", "counter sample", std::nullopt, std::nullopt, "counter_sample", 0, DetailsPolicy::None,
        ColourPolicy::Series},
};

// Indexed by LaneKind.
constexpr LaneKindInfo kLaneKinds[] = {
    {LaneKind::CudaApi, "CUDA API", "api", TrackGroup::Thread, 0, true, false, 22},
    {LaneKind::Nvtx, "NVTX", "nvtx", TrackGroup::Thread, 1, true, false, 20},
    {LaneKind::GpuStream, "stream", "gpu", TrackGroup::Device, 0, false, false, 22},
    {LaneKind::Sync, "sync", "sync", TrackGroup::Thread, 2, false, false, 22},
    {LaneKind::WarpRole, "warp", "warp", TrackGroup::Kernel, 0, false, true, 16},
};

constexpr LaneKindInfo kUnknownLane {LaneKind::CudaApi, "lane", "lane", TrackGroup::Thread, 9, false, false, 22};
constexpr TrackKind kUnknownTrack {"unknown", "event", std::nullopt, std::nullopt, "", 0, DetailsPolicy::None};

constexpr bool laneTableInOrder()
{
    for (size_t i = 0; i < std::size(kLaneKinds); ++i) {
        if (static_cast<size_t>(kLaneKinds[i].kind) != i)
            return false;
    }
    return true;
}
static_assert(laneTableInOrder(), "kLaneKinds is indexed by LaneKind");

constexpr bool tablesFitEventRef()
{
    for (const TrackKind& k : kTrackKinds) {
        if (k.table && static_cast<uint32_t>(*k.table) >= (1u << (32 - EventRef::kRowBits)))
            return false;
    }
    return true;
}
static_assert(tablesFitEventRef(), "EventRef packs the table into the bits above its row id: widen it first");

} // namespace

std::span<const TrackKind> trackKinds()
{
    return kTrackKinds;
}

std::span<const LaneKindInfo> laneKinds()
{
    return kLaneKinds;
}

const TrackKind& trackKind(EventTable table)
{
    for (const TrackKind& k : kTrackKinds) {
        if (k.table == table)
            return k;
    }
    return kUnknownTrack;
}

const TrackKind& counterTrackKind()
{
    return kTrackKinds[std::size(kTrackKinds) - 1];
}

bool isKnownLaneKind(int32_t value)
{
    return value >= 0 && static_cast<size_t>(value) < std::size(kLaneKinds);
}

const LaneKindInfo& laneKind(LaneKind kind)
{
    const auto value = static_cast<int32_t>(kind);
    return isKnownLaneKind(value) ? kLaneKinds[static_cast<size_t>(value)] : kUnknownLane;
}

std::string laneKindLabel(LaneKind kind, int depth, uint32_t streamId)
{
    const LaneKindInfo& info = laneKind(kind);
    std::string label(info.label);
    if (info.group == TrackGroup::Device)
        return label + ' ' + std::to_string(streamId);
    if (depth > 0)
        label += " (depth " + std::to_string(depth) + ")";
    return label;
}

LaneOrderKey laneOrderKey(const TimelineLane& l)
{
    // Per process: its threads' lanes, then its streams per device; in-kernel lanes (which
    // belong to a launch, not a process) after every process.
    const LaneKindInfo& info = laneKind(l.kind);
    const auto group = static_cast<int64_t>(info.group);
    switch (info.group) {
    case TrackGroup::Thread:
        return {{0, l.pid, group, l.tid, info.order, l.depth, 0, 0}};
    case TrackGroup::Device:
        return {{0, l.pid, group, l.deviceId, l.streamId, info.order, l.depth, 0}};
    case TrackGroup::Kernel:
        return {{1, l.kernelId, l.block, l.warp, info.order, l.depth, l.pid, 0}};
    }
    return {{2, 0, 0, 0, 0, 0, 0, 0}};
}

} // namespace ws
