// SPDX-License-Identifier: MIT
#pragma once

// The launch rows of the lane cache (format 2): for each chunk of a GPU-stream lane, what the
// kernel panels need of each kernel beyond the lane's start, end and row id (its names, its run
// and its launch configuration), so that the panels build their launch table from the lanes the
// timeline already loaded instead of decoding every kernel row (~1 µs a row in SQLite). Layout in
// docs/session-format.md ("lane_blob").

#include "core/model/records.h"
#include "core/timeline/timelinemodel.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ws {

// One kernel's attributes in a launch row. Launches repeat a few hundred of these, so a chunk
// stores each distinct one once and an index per event.
struct LaunchAttributes {
    StringId demangledName = 0;
    StringId mangledName = 0;
    StringId shortName = 0;
    uint32_t runId = 0;
    KernelShape shape;

    static LaunchAttributes of(const KernelRecord& k);
    bool operator==(const LaunchAttributes&) const = default;
    bool operator<(const LaunchAttributes& o) const; // any strict order: the chunks' dedup
};
static_assert(sizeof(LaunchAttributes) == 68);

inline constexpr uint32_t kLaunchBlobMagic = 0x414C5357; // "WSLA"
// An event of the lane that is not a kernel (a copy or a memset) has no attributes.
inline constexpr uint32_t kNoLaunchAttributes = UINT32_MAX;
// Launch rows sort after the lanes' "gpu/" rows and are read on their own by key range.
inline constexpr std::string_view kLaunchBlobKeyPrefix = "launch/";

// Fixed 56-byte header, then index[n] (uint32, into the chunk's attributes, or
// kNoLaunchAttributes) and attributes[m].
struct LaunchBlobHeader {
    uint32_t magic = kLaunchBlobMagic;
    uint32_t attributes = 0; // m
    int64_t pid = 0;
    uint32_t deviceId = 0;
    uint32_t streamId = 0;
    uint64_t laneEvents = 0;
    uint64_t chunkOffset = 0;
    uint64_t chunkEvents = 0; // n
    uint64_t hash = 0;        // hashBytes over header (hash = 0) and payload, as for lane chunks
};
static_assert(sizeof(LaunchBlobHeader) == 56);

// What the writer's lane cache keeps of each kernel row until commit, for the launch rows: its
// attributes, each distinct one once (8 bytes a kernel: its row id and an index).
class LaunchAttributeLog {
public:
    // Row ids past EventRef::kMaxRowId are not kept: the lane cache refuses them anyway.
    void add(const KernelRecord& k, int64_t rowid);
    // The attributes of a kernel row added before; only after seal(), which orders the log.
    void seal();
    const LaunchAttributes& of(int64_t rowid) const;

private:
    std::vector<std::pair<uint32_t, uint32_t>> m_rows; // (row id, index into m_distinct)
    std::vector<LaunchAttributes> m_distinct;
    std::map<LaunchAttributes, uint32_t> m_index;
    bool m_dense = false; // row ids consecutive from the first: of() indexes instead of searching
};

// "launch/<pid>/<device>/<stream>/<chunk>": the launch row beside lane chunk `chunk`.
std::string launchBlobKey(const TimelineLane& lane, size_t chunk);

// Encodes events [offset, offset + count) of a GPU-stream lane; `attributesOf(rowid)` gives each
// kernel event's attributes (the caller's, valid during the call).
std::vector<std::byte> encodeLaunchChunk(const TimelineLane& lane, size_t offset, size_t count,
    const std::function<const LaunchAttributes&(int64_t kernelRowId)>& attributesOf);

// A decoded launch row: `index` per event of the chunk into `attributes`.
struct LaunchChunk {
    LaunchBlobHeader header;
    std::vector<uint32_t> index;
    std::vector<LaunchAttributes> attributes;
};
// Validates size, magic, bounds, hash and every index; false when any is wrong.
bool decodeLaunchChunk(std::span<const std::byte> blob, LaunchChunk& out);
// Size, magic, bounds and hash only, without copying (the timeline's loader, which skips the
// launch rows but reports damage wherever it reads).
bool checkLaunchChunk(std::span<const std::byte> blob);

} // namespace ws
