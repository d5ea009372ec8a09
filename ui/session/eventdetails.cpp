// SPDX-License-Identifier: MIT
#include "ui/session/eventdetails.h"

#include "core/store/sessionreader.h"
#include "core/timeline/trackkind.h"
#include "ui/session/backgroundjob.h"
#include "ui/session/sessionfile.h"
#include "ui/style/timeformat.h"

#include <algorithm>
#include <queue>
#include <span>

namespace ws {

namespace {

constexpr size_t kBatch = 200;
constexpr size_t kMaxCandidates = 40000;

QString str(const SessionSnapshot& s, int64_t id)
{
    return id > 0 ? s.qstr(static_cast<StringId>(id)) : QString();
}

QString dim3(int64_t x, int64_t y, int64_t z)
{
    return QStringLiteral("(%1, %2, %3)").arg(x).arg(y).arg(z);
}

QString copyKindName(int k)
{
    static const char* names[]
        = {"unknown", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
    return (k >= 0 && k <= 10) ? QString::fromLatin1(names[k]) : QString::number(k);
}

// The tables whose rows link a launch to its GPU work by correlation id: the registry's kinds
// with DetailsPolicy::RowAndLaunch (API calls, kernels, memcpy, memset).
const std::vector<EventTable>& launchTables()
{
    static const std::vector<EventTable> tables = [] {
        std::vector<EventTable> out;
        for (const TrackKind& kind : trackKinds()) {
            if (kind.table && kind.details == DetailsPolicy::RowAndLaunch)
                out.push_back(*kind.table);
        }
        return out;
    }();
    return tables;
}

// Of `ids` (rows of `table`), those whose correlation id is `correlationId`. Which tables link
// launches is the registry's call; the store's query is typed by record, so each of them
// names its record type here.
std::vector<int64_t> correlated(
    const SessionReader& r, EventTable table, uint32_t correlationId, std::span<const int64_t> ids)
{
    if (trackKind(table).details != DetailsPolicy::RowAndLaunch)
        return {};
    switch (table) {
    case EventTable::Kernel:
        return r.idsWithCorrelation<KernelRecord>(correlationId, ids);
    case EventTable::Memcpy:
        return r.idsWithCorrelation<MemcpyRecord>(correlationId, ids);
    case EventTable::Memset:
        return r.idsWithCorrelation<MemsetRecord>(correlationId, ids);
    case EventTable::ApiCall:
        return r.idsWithCorrelation<ApiCallRecord>(correlationId, ids);
    default:
        return {};
    }
}

struct Candidate {
    TimeNs start;
    int lane;
    quint32 index;
};

// Walks the events of `lanes` in time order from `from` (backwards or forwards) and returns
// the first whose row has `correlationId`, checking rowids in batches with one query per
// batch and table. Correlation ids are per process; callers pass only that process' lanes.
bool findCorrelated(const SessionReader& db, const SessionSnapshot& s, const std::vector<int>& lanes, TimeNs from,
    bool backwards, uint32_t correlationId, Candidate* found)
{
    const auto& L = s.model->lanes;
    struct Cursor {
        int lane;
        int64_t k;
    };
    const auto startOf
        = [&](const Cursor& c) { return L[static_cast<size_t>(c.lane)].start[static_cast<size_t>(c.k)]; };
    const auto later = [&](const Cursor& a, const Cursor& b) {
        return backwards ? startOf(a) < startOf(b) : startOf(a) > startOf(b);
    };
    std::priority_queue<Cursor, std::vector<Cursor>, decltype(later)> heap(later);
    for (int li : lanes) {
        const auto& st = L[static_cast<size_t>(li)].start;
        const auto ub = std::upper_bound(st.begin(), st.end(), from) - st.begin();
        const int64_t k = backwards ? ub - 1 : (std::lower_bound(st.begin(), st.end(), from) - st.begin());
        if (k >= 0 && k < static_cast<int64_t>(st.size()))
            heap.push({li, k});
    }
    size_t checked = 0;
    while (!heap.empty() && checked < kMaxCandidates) {
        std::vector<Candidate> batch;
        while (!heap.empty() && batch.size() < kBatch) {
            Cursor c = heap.top();
            heap.pop();
            batch.push_back({startOf(c), c.lane, static_cast<quint32>(c.k)});
            c.k += backwards ? -1 : 1;
            if (c.k >= 0 && c.k < static_cast<int64_t>(L[static_cast<size_t>(c.lane)].size()))
                heap.push(c);
        }
        checked += batch.size();
        // One query per table in the batch.
        for (const EventTable table : launchTables()) {
            std::vector<const Candidate*> of;
            for (const auto& c : batch) {
                if (L[static_cast<size_t>(c.lane)].ref[c.index].table() == table)
                    of.push_back(&c);
            }
            if (of.empty())
                continue;
            std::vector<int64_t> ids;
            ids.reserve(of.size());
            for (const Candidate* c : of)
                ids.push_back(L[static_cast<size_t>(c->lane)].ref[c->index].rowid());
            const std::vector<int64_t> hits = correlated(db, table, correlationId, ids);
            if (hits.empty())
                continue;
            // The outermost call wins (cudaLaunchKernel over the cuLaunchKernel inside it, which
            // carries the same correlation id), then the nearest in time (batch order).
            const Candidate* best = nullptr;
            for (const Candidate* c : of) {
                const auto& lane = L[static_cast<size_t>(c->lane)];
                if (std::find(hits.begin(), hits.end(), lane.ref[c->index].rowid()) == hits.end())
                    continue;
                if (!best || lane.depth < L[static_cast<size_t>(best->lane)].depth)
                    best = c;
            }
            if (best) {
                *found = *best;
                return true;
            }
        }
    }
    return false;
}

void addLink(const SessionSnapshot& s, EventDetails& d, const Candidate& c, const QString& label)
{
    const TimelineLane& lane = s.model->lanes[static_cast<size_t>(c.lane)];
    d.linkLane = c.lane;
    d.linkIndex = c.index;
    d.linkStart = lane.start[c.index];
    d.linkEnd = lane.endAt(c.index);
    d.linkName = s.qstr(lane.name[c.index]);
    d.fields.append({label, QStringLiteral("%1 at +%2").arg(d.linkName, formatDuration(d.linkStart - s.begin()))});
}

std::vector<int> lanesOf(const SessionSnapshot& s, LaneKind kind, int64_t pid)
{
    std::vector<int> out;
    for (size_t i = 0; i < s.model->lanes.size(); ++i) {
        const auto& l = s.model->lanes[i];
        if (l.kind == kind && l.pid == pid)
            out.push_back(static_cast<int>(i));
    }
    return out;
}

void gpuWorkLink(const SessionReader& db, const SessionSnapshot& s, EventDetails& d, int64_t pid)
{
    if (d.correlationId == 0)
        return;
    // The launching call started before the work was queued (or, without that stamp, before
    // it started): walk API calls backwards from there.
    const TimeNs from = d.queued > 0 ? d.queued : d.start;
    Candidate c {};
    if (findCorrelated(db, s, lanesOf(s, LaneKind::CudaApi, pid), from, true, d.correlationId, &c)) {
        addLink(s, d, c, QStringLiteral("Launched by"));
        d.fields.append({QStringLiteral("Launch to start"), formatDuration(d.start - d.linkStart)});
    }
}

} // namespace

EventDetails queryEventDetails(const SessionReader* reader, const SessionSnapshot& s, int laneIndex, quint32 index)
{
    EventDetails d;
    d.lane = laneIndex;
    d.index = index;
    if (!s.model || laneIndex < 0 || static_cast<size_t>(laneIndex) >= s.model->lanes.size()
        || index >= s.model->lanes[static_cast<size_t>(laneIndex)].size()) {
        d.error = QStringLiteral("no such event");
        return d;
    }
    const TimelineLane& lane = s.model->lanes[static_cast<size_t>(laneIndex)];
    d.ref = lane.ref[index];
    d.name = s.qstr(lane.name[index]);
    d.start = lane.start[index];
    d.end = lane.endAt(index);
    d.fields.append({QStringLiteral("Start"), QStringLiteral("+%1").arg(formatDuration(d.start - s.begin()))});
    d.fields.append({QStringLiteral("Duration"), formatDuration(d.end - d.start)});
    if (!reader)
        return d;
    const SessionReader& db = *reader;
    const int64_t rowid = d.ref.rowid();
    try {
        switch (d.ref.table()) {
        case EventTable::Kernel: {
            const auto k = db.readRow<KernelRecord>(rowid);
            if (!k)
                break;
            d.found = true;
            d.correlationId = k->correlationId;
            d.queued = k->queued;
            d.submitted = k->submitted;
            d.fields.append({QStringLiteral("Kernel"), str(s, k->demangledName)});
            d.fields.append({QStringLiteral("Stream"),
                QStringLiteral("%1 (GPU %2, context %3)").arg(k->streamId).arg(k->deviceId).arg(k->contextId)});
            d.fields.append({QStringLiteral("Grid"), dim3(k->gridX, k->gridY, k->gridZ)});
            d.fields.append({QStringLiteral("Block"), dim3(k->blockX, k->blockY, k->blockZ)});
            if (k->clusterX > 0)
                d.fields.append({QStringLiteral("Cluster"), dim3(k->clusterX, k->clusterY, k->clusterZ)});
            d.fields.append({QStringLiteral("Registers / thread"), QString::number(k->registersPerThread)});
            d.fields.append({QStringLiteral("Shared memory"),
                QStringLiteral("%1 static + %2 dynamic")
                    .arg(formatBytes(k->staticSmemBytes), formatBytes(k->dynamicSmemBytes))});
            if (k->localMemPerThread > 0)
                d.fields.append({QStringLiteral("Local memory / thread"), formatBytes(k->localMemPerThread)});
            if (k->graphId > 0)
                d.fields.append({QStringLiteral("CUDA graph"), QString::number(k->graphId)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            d.fields.append({QStringLiteral("Launch id"), QString::number(rowid)});
            if (d.queued > 0)
                d.fields.append({QStringLiteral("Queued for"), formatDuration(d.start - d.queued)});
            gpuWorkLink(db, s, d, k->pid);
            break;
        }
        case EventTable::Memcpy: {
            const auto m = db.readRow<MemcpyRecord>(rowid);
            if (!m)
                break;
            d.found = true;
            d.correlationId = m->correlationId;
            d.fields.append({QStringLiteral("Copy"), copyKindName(static_cast<int>(m->copyKind))});
            d.fields.append({QStringLiteral("Size"), formatBytes(m->bytes)});
            if (d.end > d.start)
                d.fields.append({QStringLiteral("Throughput"),
                    QStringLiteral("%1 GB/s").arg(
                        static_cast<double>(m->bytes) / static_cast<double>(d.end - d.start), 0, 'f', 2)});
            d.fields.append(
                {QStringLiteral("Stream"), QStringLiteral("%1 (GPU %2)").arg(m->streamId).arg(m->deviceId)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            gpuWorkLink(db, s, d, m->pid);
            break;
        }
        case EventTable::Memset: {
            const auto m = db.readRow<MemsetRecord>(rowid);
            if (!m)
                break;
            d.found = true;
            d.correlationId = m->correlationId;
            d.fields.append({QStringLiteral("Size"), formatBytes(m->bytes)});
            d.fields.append({QStringLiteral("Value"), QString::number(m->value)});
            d.fields.append(
                {QStringLiteral("Stream"), QStringLiteral("%1 (GPU %2)").arg(m->streamId).arg(m->deviceId)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            gpuWorkLink(db, s, d, m->pid);
            break;
        }
        case EventTable::ApiCall: {
            const auto a = db.readRow<ApiCallRecord>(rowid);
            if (!a)
                break;
            d.found = true;
            d.correlationId = a->correlationId;
            d.fields.append({QStringLiteral("API"),
                a->domain == ApiDomain::Driver ? QStringLiteral("driver") : QStringLiteral("runtime")});
            d.fields.append({QStringLiteral("Thread"), QString::number(a->tid)});
            d.fields.append({QStringLiteral("Return value"), QString::number(a->returnValue)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            Candidate c {};
            if (d.correlationId != 0
                && findCorrelated(db, s, lanesOf(s, LaneKind::GpuStream, a->pid), d.start, false, d.correlationId, &c))
                addLink(s, d, c, QStringLiteral("Launched"));
            break;
        }
        case EventTable::NvtxRange: {
            const auto r = db.readRow<NvtxRangeRecord>(rowid);
            if (!r)
                break;
            d.found = true;
            d.fields.append({QStringLiteral("Thread"), QString::number(r->tid)});
            if (r->endTid != r->tid && r->endTid != 0)
                d.fields.append({QStringLiteral("Ended on thread"), QString::number(r->endTid)});
            if (r->domain > 0)
                d.fields.append({QStringLiteral("Domain"), str(s, r->domain)});
            d.fields.append({QStringLiteral("Depth"), QString::number(r->depth)});
            break;
        }
        case EventTable::Sync: {
            const auto r = db.readRow<SyncRecord>(rowid);
            if (!r)
                break;
            d.found = true;
            d.fields.append({QStringLiteral("Stream"),
                r->streamId == 0xFFFFFFFFu ? QStringLiteral("all (context)") : QString::number(r->streamId)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(r->correlationId)});
            break;
        }
        case EventTable::WarpEvent: {
            const auto w = db.readRow<WarpEvent>(rowid);
            if (!w)
                break;
            d.found = true;
            d.fields.append({QStringLiteral("Kernel launch"), QString::number(w->kernelId)});
            d.fields.append({QStringLiteral("Block / warp"), QStringLiteral("%1 / %2").arg(w->block).arg(w->warp)});
            d.fields.append({QStringLiteral("SM"), QString::number(w->sm)});
            d.fields.append({QStringLiteral("Role"), str(s, w->role)});
            break;
        }
        case EventTable::Overhead:
            d.found = true;
            break;
        }
    } catch (const std::exception& e) {
        d.error = QString::fromUtf8(e.what());
    }
    return d;
}

EventDetailsSource::EventDetailsSource(QObject* parent)
    : QObject(parent)
{
    qRegisterMetaType<ws::EventDetails>();
    // One thread, as before: hover and selection queries never run at once, and each thread
    // keeps its own connection to the file.
    QThreadPool* pool = BackgroundJob::pool("event details", 1);
    for (auto& job : m_jobs)
        job = new BackgroundJob(pool, this);
}

EventDetailsSource::~EventDetailsSource() = default;

void EventDetailsSource::setSession(
    std::shared_ptr<const SessionSnapshot> snapshot, std::shared_ptr<const SessionFile> file)
{
    m_snapshot = std::move(snapshot);
    m_file = std::move(file);
    m_cache.clear();
    for (BackgroundJob* job : m_jobs)
        job->discard();
}

static quint64 cacheKey(int lane, quint32 index)
{
    return (static_cast<quint64>(static_cast<quint32>(lane)) << 32) | index;
}

const EventDetails* EventDetailsSource::cached(int lane, quint32 index) const
{
    const auto it = m_cache.constFind(cacheKey(lane, index));
    return it == m_cache.constEnd() ? nullptr : &it.value();
}

void EventDetailsSource::request(Channel channel, int lane, quint32 index)
{
    if (!m_snapshot)
        return;
    BackgroundJob* job = m_jobs[channel];
    if (const EventDetails* d = cached(lane, index)) {
        job->discard(); // an older request on this channel must not overwrite this answer
        emit detailsReady(channel, *d);
        return;
    }
    // Each channel keeps only its newest request: a queued one that a newer one replaced is
    // skipped before it reads anything.
    job->start(
        [snapshot = m_snapshot, file = m_file, lane, index](const BackgroundJob::Context&) {
            const SessionReader* reader = nullptr;
            try {
                if (file && snapshot->hasFile)
                    reader = &file->reader();
            } catch (const std::exception&) {
                // the tooltip still shows what the lane knows
            }
            // A failed read still answers, with the reason: the Selection dock then says why
            // instead of waiting on "reading…" for a result that never comes.
            try {
                return queryEventDetails(reader, *snapshot, lane, index);
            } catch (const std::exception& e) {
                EventDetails failed;
                failed.lane = lane;
                failed.index = index;
                failed.error = QString::fromUtf8(e.what());
                return failed;
            }
        },
        [this, channel](EventDetails d) {
            if (m_cache.size() > 4096)
                m_cache.clear();
            m_cache.insert(cacheKey(d.lane, d.index), d);
            emit detailsReady(channel, d);
        });
}

} // namespace ws
