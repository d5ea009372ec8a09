// SPDX-License-Identifier: MIT
#include "core/ranking/launchtablelanes.h"

#include "core/analysis/nsysreports.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/launchblob.h"
#include "core/timeline/timelinemodel.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ws {

namespace {

// Each GPU-stream lane's events with their attributes (an index into `attributes`), from the
// launch rows; false when the rows do not cover exactly those lanes.
struct LaneAttributes {
    std::vector<LaunchAttributes> attributes;
    std::vector<std::vector<uint32_t>> indexOfLane; // per lane of the model, per event
};

bool readLaunchRows(
    const SessionReader& reader, const TimelineModel& lanes, const CancellationToken& cancel, LaneAttributes& out)
{
    std::map<std::tuple<int64_t, uint32_t, uint32_t>, size_t> laneOf;
    for (size_t i = 0; i < lanes.lanes.size(); ++i) {
        const TimelineLane& lane = lanes.lanes[i];
        if (lane.kind == LaneKind::GpuStream)
            laneOf.emplace(std::make_tuple(lane.pid, lane.deviceId, lane.streamId), i);
    }
    out.indexOfLane.assign(lanes.lanes.size(), {});
    std::vector<uint64_t> filled(lanes.lanes.size(), 0);
    std::map<LaunchAttributes, uint32_t> numbered;
    LaunchChunk chunk;
    bool usable = true;
    reader.forEachLaneChunk(kLaunchBlobKeyPrefix, [&](const SessionReader::LaneChunk& row) {
        if (cancel.isCancelled())
            throw SessionError(SessionError::Kind::Cancelled, reader.path(), "cancelled");
        if (row.format != kLaneBlobFormat)
            return usable = false;
        if (!decodeLaunchChunk(row.data, chunk))
            throw SessionError(SessionError::Kind::Corrupted, reader.path(),
                "the file is damaged: lane cache entry " + std::string(row.key) + " does not match its checksum");
        const LaunchBlobHeader& h = chunk.header;
        const auto lane = laneOf.find(std::make_tuple(h.pid, h.deviceId, h.streamId));
        if (lane == laneOf.end() || lanes.lanes[lane->second].size() != h.laneEvents)
            return usable = false;
        std::vector<uint32_t>& index = out.indexOfLane[lane->second];
        if (index.empty())
            index.assign(h.laneEvents, kNoLaunchAttributes);
        std::vector<uint32_t> global(chunk.attributes.size());
        for (size_t a = 0; a < chunk.attributes.size(); ++a) {
            const auto [it, added]
                = numbered.try_emplace(chunk.attributes[a], static_cast<uint32_t>(out.attributes.size()));
            if (added)
                out.attributes.push_back(chunk.attributes[a]);
            global[a] = it->second;
        }
        for (size_t i = 0; i < chunk.index.size(); ++i) {
            const uint32_t local = chunk.index[i];
            index[h.chunkOffset + i] = local == kNoLaunchAttributes ? kNoLaunchAttributes : global[local];
        }
        filled[lane->second] += h.chunkEvents;
        return true;
    });
    if (!usable)
        return false;
    for (const auto& [key, i] : laneOf) {
        if (filled[i] != lanes.lanes[i].size())
            return false; // no launch rows (an older file), or some missing
    }
    return true;
}

} // namespace

std::optional<KernelLaunchTable> launchTableFromLanes(const SessionReader& reader, const TimelineModel& lanes,
    const std::set<uint32_t>& runIds, const CancellationToken& cancel)
{
    if (!lanes.fromLaneCache)
        return std::nullopt;
    LaneAttributes rows;
    if (!readLaunchRows(reader, lanes, cancel, rows))
        return std::nullopt;

    // The launches in start order, merged straight from the lanes (each in start order) through a
    // heap of the lanes' next kernels: one table, no second copy to sort or merge.
    // `group` holds the attributes' index until they are numbered below.
    size_t kernels = 0;
    for (size_t l = 0; l < lanes.lanes.size(); ++l) {
        const std::vector<uint32_t>& index = rows.indexOfLane[l];
        const TimelineLane& lane = lanes.lanes[l];
        for (size_t i = 0; i < index.size(); ++i) {
            const bool kernel = lane.ref[i].table() == EventTable::Kernel;
            if (kernel != (index[i] != kNoLaunchAttributes))
                return std::nullopt; // the rows describe other events than the lanes hold
            kernels += kernel && (runIds.empty() || runIds.contains(rows.attributes[index[i]].runId));
        }
    }
    if (cancel.isCancelled())
        throw SessionError(SessionError::Kind::Cancelled, reader.path(), "cancelled");
    // A lane's next counted kernel, with its sort key copied in (the heap compares keys only).
    struct Head {
        TimeNs start = 0;
        int64_t id = 0;
        size_t lane = 0;
        size_t at = 0;
    };
    // Moves `h` to its lane's next counted kernel at or after h.at; false past the lane's end.
    const auto advance = [&](Head& h) {
        const std::vector<uint32_t>& index = rows.indexOfLane[h.lane];
        for (; h.at < index.size(); ++h.at) {
            const uint32_t a = index[h.at];
            if (a != kNoLaunchAttributes && (runIds.empty() || runIds.contains(rows.attributes[a].runId))) {
                const TimelineLane& lane = lanes.lanes[h.lane];
                h.start = lane.start[h.at];
                h.id = lane.ref[h.at].rowid();
                return true;
            }
        }
        return false;
    };
    const auto later = [](const Head& a, const Head& b) { return std::tie(a.start, a.id) > std::tie(b.start, b.id); };
    // Each lane's device as a small slot number, for the numbering below.
    std::vector<uint32_t> devices;
    std::vector<uint32_t> slotOfLane(lanes.lanes.size(), 0);
    for (size_t l = 0; l < lanes.lanes.size(); ++l) {
        if (rows.indexOfLane[l].empty())
            continue;
        const uint32_t device = lanes.lanes[l].deviceId;
        auto it = std::find(devices.begin(), devices.end(), device);
        if (it == devices.end())
            it = devices.insert(devices.end(), device);
        slotOfLane[l] = static_cast<uint32_t>(it - devices.begin());
    }
    std::vector<Head> heads;
    for (size_t l = 0; l < lanes.lanes.size(); ++l) {
        Head h {0, 0, l, 0};
        if (advance(h))
            heads.push_back(h);
    }
    std::make_heap(heads.begin(), heads.end(), later);
    std::vector<KernelLaunchTable::Launch> launches;
    launches.reserve(kernels);
    while (!heads.empty()) {
        std::pop_heap(heads.begin(), heads.end(), later);
        Head& h = heads.back();
        const TimelineLane& lane = lanes.lanes[h.lane];
        launches.push_back({h.id, h.start, lane.endAt(h.at), lane.pid, rows.indexOfLane[h.lane][h.at],
            slotOfLane[h.lane], lane.streamId, lane.deviceId});
        ++h.at;
        if (advance(h))
            std::push_heap(heads.begin(), heads.end(), later);
        else
            heads.pop_back();
    }
    rows.indexOfLane = {};

    // Groups by demangled name and configurations by value, numbered in the order of their first
    // launch by id, as build() numbers them over the rows: the launches of one (attributes, device)
    // key share both, so the keys are ordered by their smallest id, and the launches walked in
    // order twice (where visiting 3M launches in id order was a cache miss each).
    const size_t slots = std::max<size_t>(devices.size(), 1);
    const auto keyOf = [slots](const KernelLaunchTable::Launch& l) { return size_t {l.group} * slots + l.config; };
    std::vector<int64_t> firstId(rows.attributes.size() * slots, INT64_MAX);
    for (const KernelLaunchTable::Launch& l : launches) {
        int64_t& first = firstId[keyOf(l)];
        first = std::min(first, l.id);
    }
    std::vector<size_t> keys;
    for (size_t k = 0; k < firstId.size(); ++k) {
        if (firstId[k] != INT64_MAX)
            keys.push_back(k);
    }
    std::sort(keys.begin(), keys.end(), [&](size_t a, size_t b) { return firstId[a] < firstId[b]; });
    std::vector<KernelGroup> groups;
    std::vector<LaunchConfig> configs;
    std::unordered_map<std::string, uint32_t> groupOfName;
    std::map<LaunchConfig, uint32_t> configIndex;
    std::vector<uint32_t> groupOfKey(firstId.size(), 0);
    std::vector<uint32_t> configOfKey(firstId.size(), 0);
    for (const size_t key : keys) {
        const LaunchAttributes& a = rows.attributes[key / slots];
        KernelRecord k;
        k.demangledName = a.demangledName;
        k.mangledName = a.mangledName;
        k.shortName = a.shortName;
        std::string name = kernelName(k, lanes.strings, KernelNaming::Demangled);
        const auto [group, newGroup] = groupOfName.try_emplace(name, static_cast<uint32_t>(groups.size()));
        if (newGroup) {
            groups.push_back({std::move(name), kernelName(k, lanes.strings, KernelNaming::Base),
                k.mangledName ? lanes.strings.at(k.mangledName) : std::string()});
        }
        groupOfKey[key] = group->second;
        const LaunchConfig c(a.shape, devices[key % slots]);
        const auto [config, newConfig] = configIndex.try_emplace(c, static_cast<uint32_t>(configs.size()));
        if (newConfig)
            configs.push_back(c);
        configOfKey[key] = config->second;
    }
    for (KernelLaunchTable::Launch& l : launches) {
        const size_t key = keyOf(l);
        l.group = groupOfKey[key];
        l.config = configOfKey[key];
    }
    // Merged in start order above; a lane whose equal starts it orders longer first is sorted then.
    return KernelLaunchTable::fromLaunches(std::move(launches), std::move(groups), std::move(configs));
}

} // namespace ws
