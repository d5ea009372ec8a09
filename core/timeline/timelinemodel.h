// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/model/sessiondata.h"
#include "core/timeline/laneends.h"
#include "core/timeline/laneprovider.h"
#include "core/timeline/trackkind.h"
#include "core/util/cancellation.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws {

class SessionReader;

// Thrown by EventRef::make for a row id it cannot address; TimelineModel::load turns it into
// a SessionError naming the file.
class EventRefRangeError : public std::out_of_range {
public:
    using std::out_of_range::out_of_range;
};

// An event's table (EventTable, core/timeline/trackkind.h) packed with its rowid so a lane
// costs 4 bytes per event for the back-reference (details such as grid/block are fetched by
// rowid on hover).
struct EventRef {
    uint32_t packed = 0;
    static constexpr int kRowBits = 29;
    // The largest row id an EventRef addresses: 2^29 - 1 = 536,870,911 rows per table.
    static constexpr int64_t kMaxRowId = (int64_t(1) << kRowBits) - 1;
    // Throws EventRefRangeError beyond [0, kMaxRowId]: a larger id must never wrap onto
    // another row (the tooltip, details and arrows would describe the wrong event).
    static EventRef make(EventTable t, int64_t rowid)
    {
        if (rowid < 0 || rowid > kMaxRowId) [[unlikely]]
            throwOutOfRange(t, rowid);
        return EventRef {(static_cast<uint32_t>(t) << kRowBits) | static_cast<uint32_t>(rowid)};
    }
    [[noreturn]] static void throwOutOfRange(EventTable t, int64_t rowid);
    EventTable table() const { return static_cast<EventTable>(packed >> kRowBits); }
    int64_t rowid() const { return packed & ((1u << kRowBits) - 1); }
    bool operator==(const EventRef&) const = default;
};

// One row of the timeline: events sorted by start, non-overlapping, struct-of-arrays so a
// visible-range lookup is a binary search over the ends and starts (20 bytes per event: the
// ends are kept as 32-bit durations, laneends.h).
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
    LaneDurations durations; // end - start per event: read ends with endAt() or ends()
    std::vector<StringId> name;
    std::vector<EventRef> ref;

    size_t size() const { return start.size(); }
    TimeNs endAt(size_t i) const { return LaneDurations::endOf(start[i], durations[i]); }
    LaneEnds ends() const { return {start.data(), durations}; }
    // The end of the next event whose start is already in `start` (events are appended start first).
    void appendEnd(TimeNs end) { durations.push_back(LaneDurations::durationOf(start[durations.size()], end)); }
    void setEnd(size_t i, TimeNs end) { durations.set(i, LaneDurations::durationOf(start[i], end)); }
    size_t residentBytes() const
    {
        return start.capacity() * sizeof(TimeNs) + durations.residentBytes() + name.capacity() * sizeof(StringId)
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
    // What lane providers computed beside their lanes (e.g. iket::WarpRoleSummaries); read
    // back by the provider's own layer.
    std::vector<std::shared_ptr<const LaneAttachment>> attachments;

    // A lane is addressed by an int and an event in it by a quint32 (selection, LOD, hit
    // tests): a model beyond these is refused when loaded, never wrapped.
    static constexpr size_t kMaxLanes = static_cast<size_t>(std::numeric_limits<int32_t>::max());
    static constexpr size_t kMaxLaneEvents = std::numeric_limits<uint32_t>::max();

    size_t residentBytes() const;

    // Loads lanes from the session (lane_blob cache when present, else row scans sorted into
    // lanes), then the lanes of each provider (e.g. iket::laneProviders(): warp roles).
    // Progress per phase; throws SessionError(Cancelled) when `cancel` fires, and
    // SessionError(BadInput) naming the limit when the session has more rows, lanes or events
    // per lane than the model can address. useLaneCache = false forces the row scans (tests
    // and benchmarks compare the two).
    static std::shared_ptr<const TimelineModel> load(const SessionReader& reader, const ProgressCallback& progress = {},
        const CancellationToken& cancel = {}, bool useLaneCache = true, LaneProviders providers = {});

    // Builds lanes from data already in memory (ingest, importers, tests). Throws
    // EventRefRangeError / std::length_error past the same limits.
    static std::shared_ptr<const TimelineModel> fromSessionData(const SessionData& data, LaneProviders providers = {});
};

// How a process ended when it did not end well, for its row on the timeline: "killed by
// SIGSEGV", "exited with code 2"; "" for a clean exit or an unknown end. A killed or crashed
// target must be seen where the user looks, not only in the session's metadata.
std::string processExitNote(const ProcessInfo& process);

} // namespace ws
