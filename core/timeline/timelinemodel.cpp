// SPDX-License-Identifier: MIT
#include "core/timeline/timelinemodel.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/launchblob.h"

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
        model.end = std::max(model.end, lane.ends().max());
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
        bool usable = true;
        m_reader.forEachLaneChunk([&](const SessionReader::LaneChunk& chunk) {
            if (chunk.format != kLaneBlobFormat && chunk.format != kLaneBlobFormatWithoutLaunches)
                return usable = false;
            // The kernel panels' rows beside the GPU lanes (launchblob.h): not lanes, but damage
            // in them is damage to the file, reported as in any other chunk.
            if (chunk.key.starts_with(kLaunchBlobKeyPrefix)) {
                if (!checkLaunchChunk(chunk.data))
                    throw SessionError(Kind::Corrupted, m_reader.path(),
                        "the file is damaged: lane cache entry " + std::string(chunk.key)
                            + " does not match its checksum");
                return true;
            }
            LaneBlobHeader header;
            if (!decodeLaneChunkHeader(chunk.data, header))
                throw SessionError(Kind::Corrupted, m_reader.path(),
                    "the file is damaged: lane cache entry " + std::string(chunk.key) + " does not match its checksum");
            if (header.labelBase != labelBase)
                return usable = false; // strings were rewritten after the cache was built
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
                lane.durations.resize(header.laneEvents);
                lane.name.resize(header.laneEvents);
                lane.ref.resize(header.laneEvents);
                filled.push_back(0);
            }
            TimelineLane& lane = model.lanes[it->second];
            if (lane.size() != header.laneEvents)
                throw SessionError(Kind::Corrupted, m_reader.path(),
                    "the file is damaged: lane cache chunks of " + std::string(chunk.key)
                        + " disagree on the lane size");
            copyLaneChunk(chunk.data, header, lane);
            filled[it->second] += header.chunkEvents;
            loaded += static_cast<int64_t>(header.chunkEvents);
            poll(expected > 0 ? 0.1 + 0.9 * static_cast<double>(loaded) / static_cast<double>(expected) : 0.5,
                "reading lanes");
            return true;
        });
        if (!usable)
            return false;
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
            total = m_reader.rowCount<KernelRecord>() + m_reader.rowCount<MemcpyRecord>()
                + m_reader.rowCount<MemsetRecord>() + m_reader.rowCount<ApiCallRecord>()
                + m_reader.rowCount<NvtxRangeRecord>() + m_reader.rowCount<SyncRecord>();
        }
        LaneBuilder builder;
        int64_t done = 0;
        const auto scan = [&]<class R>(const char* table, auto&& addRow) {
            const std::string phase = std::string("scanning ") + table;
            m_reader.forEachRow<R>([&](const R& row) {
                addRow(row);
                if ((++done % kPollRows) == 0)
                    poll(total > 0 ? 0.05 + 0.85 * static_cast<double>(done) / static_cast<double>(total) : 0.5,
                        phase.c_str());
            });
        };
        scan.template operator()<KernelRecord>("kernel", [&](const KernelRecord& k) {
            builder.addEvent(LaneKind::GpuStream, k.pid, k.deviceId, k.streamId, 0,
                {k.start, k.end, kernelLaneName(k.shortName, k.demangledName, k.mangledName),
                    EventRef::make(EventTable::Kernel, k.id)});
        });
        scan.template operator()<MemcpyRecord>("memcpy", [&](const MemcpyRecord& m) {
            builder.addEvent(LaneKind::GpuStream, m.pid, m.deviceId, m.streamId, 1,
                {m.start, m.end, memcpyLabel(m.copyKind), EventRef::make(EventTable::Memcpy, m.id)});
        });
        scan.template operator()<MemsetRecord>("memset", [&](const MemsetRecord& m) {
            builder.addEvent(LaneKind::GpuStream, m.pid, m.deviceId, m.streamId, 2,
                {m.start, m.end, memsetLabel(), EventRef::make(EventTable::Memset, m.id)});
        });
        scan.template operator()<ApiCallRecord>("api_call", [&](const ApiCallRecord& a) {
            builder.addEvent(LaneKind::CudaApi, a.pid, a.tid, 0, 0,
                {a.start, a.end, a.name, EventRef::make(EventTable::ApiCall, a.id)});
        });
        scan.template operator()<NvtxRangeRecord>("nvtx_range", [&](const NvtxRangeRecord& n) {
            builder.addEvent(LaneKind::Nvtx, n.pid, n.tid, 0, 0,
                {n.start, n.end, n.name, EventRef::make(EventTable::NvtxRange, n.id)});
        });
        scan.template operator()<SyncRecord>("sync", [&](const SyncRecord& y) {
            builder.addEvent(LaneKind::Sync, y.pid, y.tid, 0, 0,
                {y.start, y.end, syncLabel(y.kind), EventRef::make(EventTable::Sync, y.id)});
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
    // The reader's typed reads throw SessionError naming the file when SQLite fails.
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

std::string processExitNote(const ProcessInfo& process)
{
    static constexpr const char* kNames[] = {"", "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT",
        "SIGBUS", "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};
    constexpr int kKnown = static_cast<int>(sizeof(kNames) / sizeof(kNames[0]));
    if (process.exitSignal > 0) {
        return process.exitSignal < kKnown ? std::string("killed by ") + kNames[process.exitSignal]
                                           : "killed by signal " + std::to_string(process.exitSignal);
    }
    if (process.exitCode > 0)
        return "exited with code " + std::to_string(process.exitCode);
    return {};
}

} // namespace ws
