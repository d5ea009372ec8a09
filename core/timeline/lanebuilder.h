// SPDX-License-Identifier: MIT
#pragma once

// Sorts events into timeline lanes. The one implementation behind all three ways a
// TimelineModel comes to be (the writer's lane cache at commit, row scans of an older file,
// and SessionData in memory), so the three give identical lanes.

#include "core/model/records.h"
#include "core/timeline/timelinemodel.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ws {

class SessionWriter;

// Names for events whose table has no name column (copies, memsets, syncs). They are not
// in the session's string table: a TimelineModel appends them after the file's strings, so
// their ids are labelBase + index, where labelBase is the number of strings in the file.
std::span<const std::string_view> laneLabelStrings();

// Where an event's name goes before labelBase is known: the high bit marks a label index.
inline constexpr StringId kDeferredLabel = 0x80000000u;
StringId memcpyLabel(CopyKind kind);
StringId memsetLabel();
StringId syncLabel(SyncKind kind);
// Shortest available kernel name: short, else demangled, else mangled.
StringId kernelLaneName(StringId shortName, StringId demangledName, StringId mangledName);

// Deeper nesting than this shares the last lane (keeps a pathological trace from creating
// thousands of rows).
inline constexpr int kMaxLaneDepth = 63;

struct LaneEvent {
    TimeNs start = 0;
    TimeNs end = 0;
    StringId name = 0;
    EventRef ref;
};

class LaneBuilder {
public:
    // A row id EventRef cannot address (past 29 bits) is not added; finish() then throws
    // EventRefRangeError naming it instead of handing out lanes. Whoever writes a file keeps
    // writing its rows meanwhile and may leave the lane cache out when finish() refuses.
    void add(const KernelRecord& r, int64_t rowid);
    void add(const MemcpyRecord& r, int64_t rowid);
    void add(const MemsetRecord& r, int64_t rowid);
    void add(const ApiCallRecord& r, int64_t rowid);
    void add(const NvtxRangeRecord& r, int64_t rowid);
    void add(const SyncRecord& r, int64_t rowid);

    // The lane group an event belongs to: (kind, pid, a, b) with a = tid or device, b = stream.
    // `part` separates sources that arrive as separate sorted runs (kernels, copies, memsets).
    void addEvent(LaneKind kind, int64_t pid, int64_t a, int64_t b, int part, const LaneEvent& event);

    int64_t eventCount() const { return m_events; }

    // Sorts each group by (start, longer first, ref), splits nesting into depth lanes (CUDA
    // API, NVTX), resolves deferred labels against `labelBase` and hands lanes to `sink`
    // group by group in a fixed order, releasing each group's memory before the next.
    // Throws EventRefRangeError (and starts over empty) when a row id was past the limit.
    void finish(StringId labelBase, const std::function<void(TimelineLane&&)>& sink);

private:
    struct Key {
        LaneKind kind = LaneKind::CudaApi;
        int64_t pid = 0;
        int64_t a = 0;
        int64_t b = 0;
        bool operator==(const Key&) const = default;
        bool operator<(const Key& o) const { return std::tie(kind, pid, a, b) < std::tie(o.kind, o.pid, o.a, o.b); }
    };
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    static constexpr int kParts = 3;
    struct Group {
        Key key;
        std::array<std::vector<LaneEvent>, kParts> parts;
        std::array<bool, kParts> sorted {true, true, true};
    };

    Group& group(const Key& key);
    bool addressable(EventTable table, int64_t rowid);
    void finishGroup(Group& group, StringId labelBase, const std::function<void(TimelineLane&&)>& sink) const;

    std::vector<Group> m_groups;
    std::unordered_map<Key, size_t, KeyHash> m_index;
    Key m_lastKey;
    size_t m_lastIndex = SIZE_MAX;
    int64_t m_events = 0;
    std::optional<std::pair<EventTable, int64_t>> m_unaddressable; // the first row id past the limit
};

// Makes `writer` store the lane cache (table lane_blob) at commit: a LaneBuilder sees every event
// row it stores. Every producer of session files calls it right after creating the writer
// (files without a lane cache still open, by scanning rows, only slower).
void attachLaneCache(SessionWriter& writer);

// "CUDA API", "NVTX (depth 2)", "stream 7", "sync" (laneKindLabel, trackkind.h).
std::string laneLabel(LaneKind kind, int depth, uint32_t streamId);

// Canonical row order (laneOrderKey, trackkind.h): host lanes per process and thread (API,
// NVTX, sync), then GPU lanes per device and stream, then in-kernel lanes per launch.
void sortLanes(std::vector<TimelineLane>& lanes);

} // namespace ws
