// SPDX-License-Identifier: MIT
#pragma once

#include "core/iket/warprolesummary.h"
#include "core/model/records.h"
#include "core/model/sessiondata.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ws {

class SessionReader;

// Which table an event on a lane came from, packed with its rowid so a lane costs 4 bytes per
// event for the back-reference (details such as grid/block are fetched by rowid on hover).
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

struct EventRef {
    uint32_t packed = 0;
    static constexpr int kRowBits = 29;
    static EventRef make(EventTable t, int64_t rowid)
    {
        return EventRef {
            (static_cast<uint32_t>(t) << kRowBits) | (static_cast<uint32_t>(rowid) & ((1u << kRowBits) - 1))};
    }
    EventTable table() const { return static_cast<EventTable>(packed >> kRowBits); }
    int64_t rowid() const { return packed & ((1u << kRowBits) - 1); }
    bool operator==(const EventRef&) const = default;
};

enum class LaneKind : int32_t {
    CudaApi = 0,   // one per (pid, tid): runtime + driver calls
    Nvtx = 1,      // one per (pid, tid, depth)
    GpuStream = 2, // one per (pid, device, stream): kernels, memcpy, memset
    Sync = 3,      // one per (pid, tid)
    WarpRole = 4,  // in-kernel events, one per (kernel, block, warp, row): see iket/warplanes.h
};

// One row of the timeline: events sorted by start, non-overlapping, struct-of-arrays so a
// visible-range lookup is a lower_bound over `end` and `start` (24 bytes per event).
struct TimelineLane {
    LaneKind kind = LaneKind::CudaApi;
    int64_t pid = 0;
    int64_t tid = 0;       // CudaApi, Nvtx, Sync
    uint32_t deviceId = 0; // GpuStream
    uint32_t streamId = 0; // GpuStream
    int32_t depth = 0;     // Nvtx nesting level, WarpRole depth
    int64_t kernelId = 0;  // WarpRole
    int32_t block = 0;     // WarpRole: linear block index
    int32_t warp = 0;      // WarpRole: warp index in the block
    StringId role = 0;     // WarpRole: the warp's role (its name), 0 elsewhere
    std::string label;     // "stream 7", "CUDA API", "NVTX (depth 1)"
    std::vector<TimeNs> start;
    std::vector<TimeNs> end;
    std::vector<StringId> name;
    std::vector<EventRef> ref;

    size_t size() const { return start.size(); }
    size_t residentBytes() const
    {
        return start.capacity() * sizeof(TimeNs) + end.capacity() * sizeof(TimeNs) + name.capacity() * sizeof(StringId)
            + ref.capacity() * sizeof(EventRef) + label.capacity() + sizeof(*this);
    }
};

// Immutable, in-memory view of a session for the timeline; shared between threads as
// std::shared_ptr<const TimelineModel>. SQLite is never touched per frame.
struct TimelineModel {
    std::string path;
    // The session's strings, then laneLabelStrings() (names for copies, memsets and syncs,
    // which have no name column): ids below the session's string count mean the same as in
    // the file.
    StringTable strings;
    std::vector<ProcessInfo> processes;
    std::vector<ThreadInfo> threads;
    std::vector<DeviceInfo> devices;
    std::vector<TimelineLane> lanes; // ordered: per process: API/NVTX per thread; per device: streams
    TimeNs begin = 0;
    TimeNs end = 0;
    int64_t eventCount = 0;
    bool fromLaneCache = false; // true when loaded from lane_blob instead of row scans
    // In-kernel traces: per (kernel, role) phase statistics, shown with the warp-role rows.
    std::vector<iket::RoleSummary> warpRoles;

    size_t residentBytes() const;

    // Loads lanes from the session (lane_blob cache when present, else row scans sorted into
    // lanes). Progress per phase; throws SessionError(Cancelled) when `cancel` fires.
    // useLaneCache = false forces the row scans (tests and benchmarks compare the two).
    static std::shared_ptr<const TimelineModel> load(const SessionReader& reader, const ProgressCallback& progress = {},
        const CancellationToken& cancel = {}, bool useLaneCache = true);

    // Builds lanes from data already in memory (ingest, importers, tests).
    static std::shared_ptr<const TimelineModel> fromSessionData(const SessionData& data);
};

} // namespace ws
