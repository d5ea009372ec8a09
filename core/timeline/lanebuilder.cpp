// SPDX-License-Identifier: MIT
#include "core/timeline/lanebuilder.h"

#include "core/store/rowobserver.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/launchblob.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <tuple>

namespace ws {

namespace {

// Copy names follow Nsight Systems ("[CUDA memcpy Host-to-Device]") so users recognise them.
constexpr std::string_view kLabels[] = {
    "[CUDA memcpy Unknown]",
    "[CUDA memcpy Host-to-Device]",
    "[CUDA memcpy Device-to-Host]",
    "[CUDA memcpy Host-to-Array]",
    "[CUDA memcpy Array-to-Host]",
    "[CUDA memcpy Array-to-Array]",
    "[CUDA memcpy Array-to-Device]",
    "[CUDA memcpy Device-to-Array]",
    "[CUDA memcpy Device-to-Device]",
    "[CUDA memcpy Host-to-Host]",
    "[CUDA memcpy Peer-to-Peer]",
    "[CUDA memset]",
    "Synchronize",
    "Event synchronize",
    "Stream wait event",
    "Stream synchronize",
    "Context synchronize",
};
constexpr StringId kMemsetIndex = 11;
constexpr StringId kSyncIndex = 12;

bool before(const LaneEvent& x, const LaneEvent& y)
{
    // Longer first on equal starts so that a call precedes the calls nested in it.
    return std::tie(x.start, y.end, x.ref.packed) < std::tie(y.start, x.end, y.ref.packed);
}

// Events merged into one lane arrive as separate sorted parts (kernels, copies, memsets).
template <EventTable table> int partOf()
{
    static const int part = trackKind(table).part; // looked up once, not per event
    return part;
}

} // namespace

std::span<const std::string_view> laneLabelStrings()
{
    return kLabels;
}

StringId memcpyLabel(CopyKind kind)
{
    const auto index = static_cast<int32_t>(kind);
    return kDeferredLabel | static_cast<StringId>(index > 0 && index < static_cast<int32_t>(kMemsetIndex) ? index : 0);
}

StringId memsetLabel()
{
    return kDeferredLabel | kMemsetIndex;
}

StringId syncLabel(SyncKind kind)
{
    const auto index = static_cast<int32_t>(kind);
    return kDeferredLabel | (kSyncIndex + static_cast<StringId>(index > 0 && index <= 4 ? index : 0));
}

StringId kernelLaneName(StringId shortName, StringId demangledName, StringId mangledName)
{
    return shortName ? shortName : demangledName ? demangledName : mangledName;
}

size_t LaneBuilder::KeyHash::operator()(const Key& k) const
{
    uint64_t h = static_cast<uint64_t>(k.kind) * 0x9E3779B97F4A7C15ULL;
    for (const int64_t v : {k.pid, k.a, k.b})
        h = (h ^ static_cast<uint64_t>(v)) * 0xBF58476D1CE4E5B9ULL + (h >> 29);
    return static_cast<size_t>(h);
}

LaneBuilder::Group& LaneBuilder::group(const Key& key)
{
    // Events of one lane tend to arrive in runs; skip the hash lookup for those.
    if (m_lastIndex != SIZE_MAX && key == m_lastKey)
        return m_groups[m_lastIndex];
    auto [it, inserted] = m_index.try_emplace(key, m_groups.size());
    if (inserted) {
        m_groups.emplace_back();
        m_groups.back().key = key;
    }
    m_lastKey = key;
    m_lastIndex = it->second;
    return m_groups[it->second];
}

void LaneBuilder::addEvent(LaneKind kind, int64_t pid, int64_t a, int64_t b, int part, const LaneEvent& event)
{
    Group& g = group(Key {kind, pid, a, b});
    auto& events = g.parts[static_cast<size_t>(part)];
    if (g.sorted[static_cast<size_t>(part)] && !events.empty() && before(event, events.back()))
        g.sorted[static_cast<size_t>(part)] = false;
    events.push_back(event);
    ++m_events;
}

void LaneBuilder::add(const KernelRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::Kernel, rowid))
        return;
    addEvent(LaneKind::GpuStream, r.pid, r.deviceId, r.streamId, partOf<EventTable::Kernel>(),
        {r.start, r.end, kernelLaneName(r.shortName, r.demangledName, r.mangledName),
            EventRef::make(EventTable::Kernel, rowid)});
}

void LaneBuilder::add(const MemcpyRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::Memcpy, rowid))
        return;
    addEvent(LaneKind::GpuStream, r.pid, r.deviceId, r.streamId, partOf<EventTable::Memcpy>(),
        {r.start, r.end, memcpyLabel(r.copyKind), EventRef::make(EventTable::Memcpy, rowid)});
}

void LaneBuilder::add(const MemsetRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::Memset, rowid))
        return;
    addEvent(LaneKind::GpuStream, r.pid, r.deviceId, r.streamId, partOf<EventTable::Memset>(),
        {r.start, r.end, memsetLabel(), EventRef::make(EventTable::Memset, rowid)});
}

void LaneBuilder::add(const ApiCallRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::ApiCall, rowid))
        return;
    addEvent(
        LaneKind::CudaApi, r.pid, r.tid, 0, 0, {r.start, r.end, r.name, EventRef::make(EventTable::ApiCall, rowid)});
}

void LaneBuilder::add(const NvtxRangeRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::NvtxRange, rowid))
        return;
    addEvent(
        LaneKind::Nvtx, r.pid, r.tid, 0, 0, {r.start, r.end, r.name, EventRef::make(EventTable::NvtxRange, rowid)});
}

void LaneBuilder::add(const SyncRecord& r, int64_t rowid)
{
    if (!addressable(EventTable::Sync, rowid))
        return;
    addEvent(LaneKind::Sync, r.pid, r.tid, 0, 0,
        {r.start, r.end, syncLabel(r.kind), EventRef::make(EventTable::Sync, rowid)});
}

bool LaneBuilder::addressable(EventTable table, int64_t rowid)
{
    if (rowid >= 0 && rowid <= EventRef::kMaxRowId) [[likely]]
        return true;
    if (!m_unaddressable)
        m_unaddressable = std::make_pair(table, rowid);
    return false;
}

void LaneBuilder::finish(StringId labelBase, const std::function<void(TimelineLane&&)>& sink)
{
    if (m_unaddressable) {
        const auto [table, rowid] = *m_unaddressable;
        *this = LaneBuilder();
        EventRef::throwOutOfRange(table, rowid);
    }
    // A fixed group order makes the writer's lane cache byte-identical for identical input.
    std::vector<size_t> order(m_groups.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [this](size_t x, size_t y) { return m_groups[x].key < m_groups[y].key; });
    m_index.clear();
    m_lastIndex = SIZE_MAX;
    for (const size_t i : order) {
        finishGroup(m_groups[i], labelBase, sink);
        m_groups[i] = Group();
    }
    m_groups.clear();
    m_events = 0;
}

void LaneBuilder::finishGroup(Group& g, StringId labelBase, const std::function<void(TimelineLane&&)>& sink) const
{
    // Sort each run (usually already sorted: a cheap check at insertion time), then merge.
    std::vector<LaneEvent> events;
    for (size_t p = 0; p < kParts; ++p) {
        auto& part = g.parts[p];
        if (!g.sorted[p])
            std::sort(part.begin(), part.end(), before);
        if (events.empty()) {
            events = std::move(part);
        } else if (!part.empty()) {
            std::vector<LaneEvent> merged;
            merged.reserve(events.size() + part.size());
            std::merge(events.begin(), events.end(), part.begin(), part.end(), std::back_inserter(merged), before);
            events = std::move(merged);
        }
        part = {};
    }
    if (events.empty())
        return;

    // Nesting: a call that starts before the enclosing one ended goes one lane deeper. The
    // stack holds the end of the open event per depth; events on one depth never overlap.
    const bool nests = laneKind(g.key.kind).nests;
    std::vector<uint8_t> depthOf;
    std::vector<size_t> perDepth(1, 0);
    if (nests) {
        depthOf.resize(events.size());
        std::vector<TimeNs> open;
        for (size_t i = 0; i < events.size(); ++i) {
            while (!open.empty() && open.back() <= events[i].start)
                open.pop_back();
            const int depth = std::min(static_cast<int>(open.size()), kMaxLaneDepth);
            if (open.size() <= static_cast<size_t>(kMaxLaneDepth))
                open.push_back(events[i].end);
            depthOf[i] = static_cast<uint8_t>(depth);
            if (perDepth.size() <= static_cast<size_t>(depth))
                perDepth.resize(static_cast<size_t>(depth) + 1, 0);
            ++perDepth[static_cast<size_t>(depth)];
        }
    } else {
        perDepth[0] = events.size();
    }

    std::vector<TimelineLane> lanes(perDepth.size());
    for (size_t d = 0; d < lanes.size(); ++d) {
        TimelineLane& lane = lanes[d];
        lane.kind = g.key.kind;
        lane.pid = g.key.pid;
        if (laneKind(g.key.kind).group == TrackGroup::Device) {
            lane.deviceId = static_cast<uint32_t>(g.key.a);
            lane.streamId = static_cast<uint32_t>(g.key.b);
        } else {
            lane.tid = g.key.a;
        }
        lane.depth = static_cast<int32_t>(d);
        lane.label = laneLabel(lane.kind, lane.depth, lane.streamId);
        // Exact sizes: resident memory is part of the contract (20 bytes per event).
        lane.start.reserve(perDepth[d]);
        lane.durations.reserve(perDepth[d]);
        lane.name.reserve(perDepth[d]);
        lane.ref.reserve(perDepth[d]);
    }
    for (size_t i = 0; i < events.size(); ++i) {
        const LaneEvent& e = events[i];
        TimelineLane& lane = lanes[nests ? depthOf[i] : 0];
        lane.start.push_back(e.start);
        lane.appendEnd(e.end);
        lane.name.push_back((e.name & kDeferredLabel) ? labelBase + (e.name & ~kDeferredLabel) : e.name);
        lane.ref.push_back(e.ref);
    }
    events = {};
    for (TimelineLane& lane : lanes)
        sink(std::move(lane));
}

std::string laneLabel(LaneKind kind, int depth, uint32_t streamId)
{
    return laneKindLabel(kind, depth, streamId);
}

void sortLanes(std::vector<TimelineLane>& lanes)
{
    // The one row order (trackkind.h): the row tree sorts with the same key.
    std::stable_sort(lanes.begin(), lanes.end(),
        [](const TimelineLane& x, const TimelineLane& y) { return laneOrderKey(x) < laneOrderKey(y); });
}

namespace {

// The writer's lane cache: lanes built from the rows as they are stored, encoded in chunks at
// commit (see laneblob.h).
class LaneCacheObserver final : public SessionRowObserver {
public:
    void stored(const KernelRecord& r) override
    {
        m_lanes.add(r, r.id);
        m_launches.add(r, r.id);
    }
    void stored(const MemcpyRecord& r) override { m_lanes.add(r, r.id); }
    void stored(const MemsetRecord& r) override { m_lanes.add(r, r.id); }
    void stored(const ApiCallRecord& r) override { m_lanes.add(r, r.id); }
    void stored(const NvtxRangeRecord& r) override { m_lanes.add(r, r.id); }
    void stored(const SyncRecord& r) override { m_lanes.add(r, r.id); }

    void finish(StringId stringCount, const std::function<void(LaneChunkRow&&)>& emit) override
    {
        m_launches.seal();
        const auto attributesOf = [this](int64_t rowid) -> const LaunchAttributes& { return m_launches.of(rowid); };
        m_lanes.finish(stringCount, [&](TimelineLane&& lane) {
            for (size_t offset = 0, chunk = 0; offset < lane.size(); offset += kLaneChunkEvents, ++chunk) {
                const size_t count = std::min(kLaneChunkEvents, lane.size() - offset);
                emit({laneBlobKey(lane, chunk), static_cast<int64_t>(kLaneBlobFormat),
                    encodeLaneChunk(lane, offset, count, stringCount)});
                // Beside each GPU-stream chunk, its kernels' names, runs and configurations: the
                // kernel panels' launch table then needs no kernel row (launchblob.h).
                if (lane.kind == LaneKind::GpuStream) {
                    emit({launchBlobKey(lane, chunk), static_cast<int64_t>(kLaneBlobFormat),
                        encodeLaunchChunk(lane, offset, count, attributesOf)});
                }
            }
        });
    }

private:
    LaneBuilder m_lanes;
    LaunchAttributeLog m_launches;
};

} // namespace

void attachLaneCache(SessionWriter& writer)
{
    writer.attach(std::make_unique<LaneCacheObserver>());
}

} // namespace ws
