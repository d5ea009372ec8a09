// SPDX-License-Identifier: MIT
#pragma once

// The lane cache: each lane's columns stored as one BLOB per chunk in table lane_blob, so
// opening a session is a few large memcpys instead of millions of row decodes. Formats 1 and 2 are
// documented in docs/session-format.md ("lane_blob").

#include "core/timeline/timelinemodel.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ws {

static_assert(std::endian::native == std::endian::little, "lane_blob is little-endian; add byte swapping");

// Format 2 adds the launch rows (launchblob.h) beside the GPU-stream chunks; the lane chunks
// themselves are laid out as in format 1, which readers still take (without launch rows).
inline constexpr int kLaneBlobFormat = 2;
inline constexpr int kLaneBlobFormatWithoutLaunches = 1;
inline constexpr uint32_t kLaneBlobMagic = 0x424C5357; // "WSLB"
// Events per chunk: 24 MiB blobs stay far below SQLite's 1 GB value limit at any lane size.
inline constexpr size_t kLaneChunkEvents = size_t(1) << 20;
inline constexpr size_t kLaneBytesPerEvent = 2 * sizeof(TimeNs) + sizeof(StringId) + sizeof(EventRef);

// Fixed 72-byte header in front of the columns (start[n], end[n], name[n], ref[n]).
struct LaneBlobHeader {
    uint32_t magic = kLaneBlobMagic;
    uint32_t kind = 0;
    int64_t pid = 0;
    int64_t tid = 0;
    uint32_t deviceId = 0;
    uint32_t streamId = 0;
    int32_t depth = 0;
    uint32_t labelBase = 0; // number of strings in the file when the cache was built
    uint64_t laneEvents = 0;
    uint64_t chunkOffset = 0;
    uint64_t chunkEvents = 0;
    uint64_t hash = 0; // hashBytes over header (hash = 0) and payload
};
static_assert(sizeof(LaneBlobHeader) == 72);

// "gpu/<pid>/<device>/<stream>/<chunk>", "api/<pid>/<tid>/<depth>/<chunk>", ...
std::string laneBlobKey(const TimelineLane& lane, size_t chunk);

// Encodes events [offset, offset + count) of `lane`.
std::vector<std::byte> encodeLaneChunk(const TimelineLane& lane, size_t offset, size_t count, uint32_t labelBase);

// Validates size, magic, kind, bounds and hash; false when any is wrong.
bool decodeLaneChunkHeader(std::span<const std::byte> blob, LaneBlobHeader& header);

// Copies the chunk's columns into `lane` (already sized to header.laneEvents).
void copyLaneChunk(std::span<const std::byte> blob, const LaneBlobHeader& header, TimelineLane& lane);

} // namespace ws
