// SPDX-License-Identifier: MIT
#include "core/timeline/timelinemodel.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sqlite.h"
#include "core/store/storeerror.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/lanebuilder.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace ws {

namespace {

using Kind = SessionError::Kind;

// Rows between two looks at the cancellation token: ~64k rows take a few milliseconds.
constexpr int64_t kPollRows = 1 << 16;

// The six tables whose rows become lane events.
constexpr const char* kLaneTables[] = {"kernel", "memcpy", "memset", "api_call", "nvtx_range", "sync"};

size_t stringBytes(const std::string& s)
{
    // libstdc++ keeps up to 15 characters inline.
    return sizeof(std::string) + (s.capacity() > 15 ? s.capacity() + 1 : 0);
}

StringTable withLabels(const std::vector<std::string>& sessionStrings)
{
    std::vector<std::string> all;
    all.reserve(sessionStrings.size() + laneLabelStrings().size());
    all = sessionStrings;
    for (const std::string_view label : laneLabelStrings())
        all.emplace_back(label);
    StringTable table;
    table.assign(std::move(all));
    return table;
}

void checkLimits(const TimelineModel& model)
{
    // Lanes are addressed by int and events by quint32 further up (selection, LOD, hit tests).
    if (model.lanes.size() > TimelineModel::kMaxLanes)
        throw std::length_error("the session has " + std::to_string(model.lanes.size())
            + " timeline lanes; the timeline addresses at most " + std::to_string(TimelineModel::kMaxLanes));
    for (const TimelineLane& lane : model.lanes) {
        if (lane.size() > TimelineModel::kMaxLaneEvents)
            throw std::length_error("timeline lane \"" + lane.label + "\" has " + std::to_string(lane.size())
                + " events; a lane holds at most " + std::to_string(TimelineModel::kMaxLaneEvents));
    }
}

void finalize(TimelineModel& model)
{
    checkLimits(model);
    sortLanes(model.lanes);
    model.begin = std::numeric_limits<TimeNs>::max();
    model.end = std::numeric_limits<TimeNs>::min();
    model.eventCount = 0;
    for (const TimelineLane& lane : model.lanes) {
        if (lane.size() == 0)
            continue;
        model.begin = std::min(model.begin, lane.start.front());
        model.end = std::max(model.end, *std::max_element(lane.end.begin(), lane.end.end()));
        model.eventCount += static_cast<int64_t>(lane.size());
    }
    if (model.eventCount == 0)
        model.begin = model.end = 0;
}

class Loader {
public:
    Loader(const SessionReader& reader, const ProgressCallback& progress, const CancellationToken& cancel)
        : m_reader(reader)
        , m_progress(progress)
        , m_cancel(cancel)
    {
    }

    void poll(double fraction, const char* phase) const
    {
        if (m_cancel.isCancelled())
            throw SessionError(Kind::Cancelled, m_reader.path(), "loading was cancelled");
        if (m_progress)
            m_progress(std::clamp(fraction, 0.0, 1.0), phase);
    }

    // Expected lane events according to the writer's row counts; -1 when the file has none.
    int64_t storedLaneEvents() const
    {
        const auto counts = m_reader.storedRowCounts();
        if (counts.empty())
            return -1;
        int64_t total = 0;
        for (const char* table : kLaneTables) {
            const auto it = counts.find(table);
            // Counts are read from the file: clamp each so a damaged one cannot overflow the sum.
            total += it == counts.end() ? 0 : std::clamp<int64_t>(it->second, 0, int64_t(1) << 40);
        }
        return total;
    }

    // False when there is no usable cache (none, other format, stale): the caller scans rows.
    bool fromLaneCache(TimelineModel& model, StringId labelBase)
    {
        const int64_t expected = storedLaneEvents();
        std::map<std::tuple<uint32_t, int64_t, int64_t, uint32_t, uint32_t, int32_t>, size_t> laneIndex;
        std::vector<uint64_t> filled;
        int64_t loaded = 0;
        sqlite::Statement st(m_reader.handle(), "SELECT lane_key, format, data FROM lane_blob", false);
        while (st.step()) {
            if (st.columnInt64(1) != kLaneBlobFormat)
                return false;
            const auto blob = st.columnBlob(2);
            LaneBlobHeader header;
            if (!decodeLaneChunkHeader(blob, header))
                throw SessionError(Kind::Corrupted, m_reader.path(),
                    "the file is damaged: lane cache entry " + std::string(st.columnText(0))
                        + " does not match its checksum");
            if (header.labelBase != labelBase)
                return false; // strings were rewritten after the cache was built
            const auto key
                = std::make_tuple(header.kind, header.pid, header.tid, header.deviceId, header.streamId, header.depth);
            auto [it, inserted] = laneIndex.try_emplace(key, model.lanes.size());
            if (inserted) {
                TimelineLane& lane = model.lanes.emplace_back();
                lane.kind = static_cast<LaneKind>(header.kind);
                lane.pid = header.pid;
                lane.tid = header.tid;
                lane.deviceId = header.deviceId;
                lane.streamId = header.streamId;
                lane.depth = header.depth;
                lane.label = laneLabel(lane.kind, lane.depth, lane.streamId);
                lane.start.resize(header.laneEvents);
                lane.end.resize(header.laneEvents);
                lane.name.resize(header.laneEvents);
                lane.ref.resize(header.laneEvents);
                filled.push_back(0);
            }
            TimelineLane& lane = model.lanes[it->second];
            if (lane.size() != header.laneEvents)
                throw SessionError(Kind::Corrupted, m_reader.path(),
                    "the file is damaged: lane cache chunks of " + std::string(st.columnText(0))
                        + " disagree on the lane size");
            copyLaneChunk(blob, header, lane);
            filled[it->second] += header.chunkEvents;
            loaded += static_cast<int64_t>(header.chunkEvents);
            poll(expected > 0 ? 0.1 + 0.9 * static_cast<double>(loaded) / static_cast<double>(expected) : 0.5,
                "reading lanes");
        }
        if (model.lanes.empty())
            return false; // no cache at all (or no events: the row scan is instant then)
        for (size_t i = 0; i < filled.size(); ++i) {
            if (filled[i] != model.lanes[i].size())
                throw SessionError(Kind::Corrupted, m_reader.path(),
                    "the file is damaged: the lane cache misses chunks of lane " + model.lanes[i].label);
        }
        // Rows added after commit (e.g. by hand in the sqlite3 shell) make the cache stale.
        return expected < 0 || loaded == expected;
    }

    void fromRows(TimelineModel& model, StringId labelBase)
    {
        int64_t total = storedLaneEvents();
        if (total < 0) {
            total = 0;
            for (const char* table : kLaneTables) {
                sqlite::Statement count(m_reader.handle(), std::string("SELECT count(*) FROM ") + table, false);
                total += count.step() ? count.columnInt64(0) : 0;
            }
        }
        LaneBuilder builder;
        int64_t done = 0;
        const auto scan = [&](const char* table, const char* sql, auto&& addRow) {
            sqlite::Statement st(m_reader.handle(), sql, false);
            const std::string phase = std::string("scanning ") + table;
            while (st.step()) {
                addRow(st);
                if ((++done % kPollRows) == 0)
                    poll(total > 0 ? 0.05 + 0.85 * static_cast<double>(done) / static_cast<double>(total) : 0.5,
                        phase.c_str());
            }
        };
        scan("kernel",
            "SELECT id, pid, device_id, stream_id, start, end, short_name, demangled_name, mangled_name "
            "FROM kernel",
            [&](const sqlite::Statement& s) {
                builder.addEvent(LaneKind::GpuStream, s.columnInt64(1), static_cast<uint32_t>(s.columnInt64(2)),
                    static_cast<uint32_t>(s.columnInt64(3)), 0,
                    {s.columnInt64(4), s.columnInt64(5),
                        kernelLaneName(static_cast<StringId>(s.columnInt64(6)), static_cast<StringId>(s.columnInt64(7)),
                            static_cast<StringId>(s.columnInt64(8))),
                        EventRef::make(EventTable::Kernel, s.columnInt64(0))});
            });
        scan("memcpy", "SELECT id, pid, device_id, stream_id, start, end, copy_kind FROM memcpy",
            [&](const sqlite::Statement& s) {
                builder.addEvent(LaneKind::GpuStream, s.columnInt64(1), static_cast<uint32_t>(s.columnInt64(2)),
                    static_cast<uint32_t>(s.columnInt64(3)), 1,
                    {s.columnInt64(4), s.columnInt64(5),
                        memcpyLabel(static_cast<CopyKind>(static_cast<int32_t>(s.columnInt64(6)))),
                        EventRef::make(EventTable::Memcpy, s.columnInt64(0))});
            });
        scan("memset", "SELECT id, pid, device_id, stream_id, start, end FROM memset", [&](const sqlite::Statement& s) {
            builder.addEvent(LaneKind::GpuStream, s.columnInt64(1), static_cast<uint32_t>(s.columnInt64(2)),
                static_cast<uint32_t>(s.columnInt64(3)), 2,
                {s.columnInt64(4), s.columnInt64(5), memsetLabel(),
                    EventRef::make(EventTable::Memset, s.columnInt64(0))});
        });
        scan("api_call", "SELECT id, pid, tid, start, end, name FROM api_call", [&](const sqlite::Statement& s) {
            builder.addEvent(LaneKind::CudaApi, s.columnInt64(1), s.columnInt64(2), 0, 0,
                {s.columnInt64(3), s.columnInt64(4), static_cast<StringId>(s.columnInt64(5)),
                    EventRef::make(EventTable::ApiCall, s.columnInt64(0))});
        });
        scan("nvtx_range", "SELECT id, pid, tid, start, end, name FROM nvtx_range", [&](const sqlite::Statement& s) {
            builder.addEvent(LaneKind::Nvtx, s.columnInt64(1), s.columnInt64(2), 0, 0,
                {s.columnInt64(3), s.columnInt64(4), static_cast<StringId>(s.columnInt64(5)),
                    EventRef::make(EventTable::NvtxRange, s.columnInt64(0))});
        });
        scan("sync", "SELECT id, pid, tid, start, end, kind FROM sync", [&](const sqlite::Statement& s) {
            builder.addEvent(LaneKind::Sync, s.columnInt64(1), s.columnInt64(2), 0, 0,
                {s.columnInt64(3), s.columnInt64(4),
                    syncLabel(static_cast<SyncKind>(static_cast<int32_t>(s.columnInt64(5)))),
                    EventRef::make(EventTable::Sync, s.columnInt64(0))});
        });
        poll(0.9, "sorting lanes");
        builder.finish(labelBase, [&](TimelineLane&& lane) {
            model.lanes.push_back(std::move(lane));
            poll(0.9, "sorting lanes");
        });
    }

private:
    const SessionReader& m_reader;
    const ProgressCallback& m_progress;
    const CancellationToken& m_cancel;
};

} // namespace

void EventRef::throwOutOfRange(EventTable t, int64_t rowid)
{
    throw EventRefRangeError(std::string(trackKind(t).rowTable) + " row id " + std::to_string(rowid)
        + " is beyond what the timeline can address (row ids 0 to " + std::to_string(kMaxRowId)
        + ", 29 bits per table)");
}

size_t TimelineModel::residentBytes() const
{
    size_t bytes = sizeof(*this) + path.capacity();
    for (const TimelineLane& lane : lanes)
        bytes += lane.residentBytes();
    bytes += (lanes.capacity() - lanes.size()) * sizeof(TimelineLane);
    // StringTable keeps each string twice (vector and hash index) plus a hash node and bucket.
    for (const std::string& s : strings.all())
        bytes += 2 * stringBytes(s) + 2 * sizeof(void*) + sizeof(StringId);
    bytes += strings.size() * sizeof(void*);
    for (const ProcessInfo& p : processes)
        bytes += sizeof(p) + p.name.capacity() + p.commandLine.capacity();
    for (const ThreadInfo& t : threads)
        bytes += sizeof(t) + t.name.capacity();
    for (const DeviceInfo& dev : devices)
        bytes += sizeof(dev) + dev.name.capacity() + dev.uuid.capacity();
    return bytes;
}

std::shared_ptr<const TimelineModel> TimelineModel::load(const SessionReader& reader, const ProgressCallback& progress,
    const CancellationToken& cancel, bool useLaneCache, LaneProviders providers)
{
    auto model = std::make_shared<TimelineModel>();
    model->path = reader.path();
    Loader loader(reader, progress, cancel);
    loader.poll(0.0, "reading strings");
    const StringTable sessionStrings = reader.readStrings();
    const auto labelBase = static_cast<StringId>(sessionStrings.size());
    model->strings = withLabels(sessionStrings.all());
    model->processes = reader.readProcesses();
    model->threads = reader.readThreads();
    model->devices = reader.readDevices();
    loader.poll(0.05, "reading lanes");
    try {
        bool cached = false;
        if (useLaneCache) {
            cached = loader.fromLaneCache(*model, labelBase);
            if (!cached)
                model->lanes.clear();
        }
        if (!cached)
            loader.fromRows(*model, labelBase);
        model->fromLaneCache = cached;
        for (const LaneProvider* provider : providers)
            provider->appendLanes(*model, reader);
        finalize(*model);
    } catch (const sqlite::Error& e) {
        throw store::readError(reader.path(), e, "loading the timeline");
    } catch (const EventRefRangeError& e) {
        throw SessionError(Kind::BadInput, reader.path(), std::string("cannot show this session: ") + e.what());
    } catch (const std::length_error& e) {
        throw SessionError(Kind::BadInput, reader.path(), std::string("cannot show this session: ") + e.what());
    }
    loader.poll(1.0, "done");
    return model;
}

std::shared_ptr<const TimelineModel> TimelineModel::fromSessionData(const SessionData& data, LaneProviders providers)
{
    auto model = std::make_shared<TimelineModel>();
    model->strings = withLabels(data.strings.all());
    model->processes = data.processes;
    model->threads = data.threads;
    model->devices = data.devices;

    // Records with id 0 get the id the writer would give them: SQLite's next rowid, which is
    // one more than the largest id so far in that table.
    LaneBuilder builder;
    const auto addAll = [&builder](const auto& records) {
        int64_t maxId = 0;
        for (const auto& r : records) {
            const int64_t id = r.id != 0 ? r.id : maxId + 1;
            maxId = std::max(maxId, id);
            builder.add(r, id);
        }
    };
    addAll(data.kernels);
    addAll(data.memcpys);
    addAll(data.memsets);
    addAll(data.apiCalls);
    addAll(data.nvtxRanges);
    addAll(data.syncs);
    builder.finish(static_cast<StringId>(data.strings.size()),
        [&model](TimelineLane&& lane) { model->lanes.push_back(std::move(lane)); });
    for (const LaneProvider* provider : providers)
        provider->appendLanes(*model, data);
    finalize(*model);
    return model;
}

} // namespace ws
