// SPDX-License-Identifier: MIT
#include "core/timeline/laneblob.h"

#include "core/util/hash.h"

#include <cstring>

namespace ws {

std::string laneBlobKey(const TimelineLane& lane, size_t chunk)
{
    const LaneKindInfo& kind = laneKind(lane.kind);
    std::string key(kind.key);
    key += '/' + std::to_string(lane.pid);
    if (kind.group == TrackGroup::Device)
        key += '/' + std::to_string(lane.deviceId) + '/' + std::to_string(lane.streamId);
    else
        key += '/' + std::to_string(lane.tid) + '/' + std::to_string(lane.depth);
    key += '/' + std::to_string(chunk);
    return key;
}

std::vector<std::byte> encodeLaneChunk(const TimelineLane& lane, size_t offset, size_t count, uint32_t labelBase)
{
    LaneBlobHeader header;
    header.kind = static_cast<uint32_t>(lane.kind);
    header.pid = lane.pid;
    header.tid = lane.tid;
    header.deviceId = lane.deviceId;
    header.streamId = lane.streamId;
    header.depth = lane.depth;
    header.labelBase = labelBase;
    header.laneEvents = lane.size();
    header.chunkOffset = offset;
    header.chunkEvents = count;

    std::vector<std::byte> blob(sizeof(LaneBlobHeader) + count * kLaneBytesPerEvent);
    std::byte* p = blob.data() + sizeof(LaneBlobHeader);
    const auto put = [&p, offset, count](const auto& column) {
        const size_t bytes = count * sizeof(column[0]);
        if (bytes)
            std::memcpy(p, column.data() + offset, bytes);
        p += bytes;
    };
    put(lane.start);
    // The file keeps 64-bit ends (format 1 and 2); the lane keeps durations.
    for (size_t i = 0; i < count; ++i) {
        const TimeNs end = lane.endAt(offset + i);
        std::memcpy(p + i * sizeof(TimeNs), &end, sizeof(TimeNs));
    }
    p += count * sizeof(TimeNs);
    put(lane.name);
    put(lane.ref);
    header.hash = chunkHash(header, std::span(blob).subspan(sizeof(LaneBlobHeader)));
    std::memcpy(blob.data(), &header, sizeof(header));
    return blob;
}

bool decodeLaneChunkHeader(std::span<const std::byte> blob, LaneBlobHeader& header)
{
    if (blob.size() < sizeof(LaneBlobHeader))
        return false;
    std::memcpy(&header, blob.data(), sizeof(header));
    if (header.magic != kLaneBlobMagic || !isKnownLaneKind(static_cast<int32_t>(header.kind)))
        return false;
    if (header.chunkEvents > (blob.size() - sizeof(LaneBlobHeader)) / kLaneBytesPerEvent
        || blob.size() != sizeof(LaneBlobHeader) + header.chunkEvents * kLaneBytesPerEvent)
        return false;
    if (header.chunkOffset > header.laneEvents || header.chunkEvents > header.laneEvents - header.chunkOffset)
        return false;
    return chunkHash(header, blob.subspan(sizeof(LaneBlobHeader))) == header.hash;
}

void copyLaneChunk(std::span<const std::byte> blob, const LaneBlobHeader& header, TimelineLane& lane)
{
    const std::byte* p = blob.data() + sizeof(LaneBlobHeader);
    const size_t offset = header.chunkOffset;
    const size_t count = header.chunkEvents;
    const auto get = [&p, offset, count](auto& column) {
        const size_t bytes = count * sizeof(column[0]);
        if (bytes)
            std::memcpy(column.data() + offset, p, bytes);
        p += bytes;
    };
    get(lane.start);
    // Ends become durations from the starts just copied (exact: laneends.h).
    lane.durations.assignEnds(offset, lane.start.data() + offset, p, count);
    p += count * sizeof(TimeNs);
    get(lane.name);
    get(lane.ref);
}

} // namespace ws
