// SPDX-License-Identifier: MIT
#include "ui/session/eventdetails.h"

#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sqlite.h"
#include "ui/style/timeformat.h"

#include <QMetaObject>
#include <QThread>

#include <algorithm>
#include <queue>

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

const char* tableName(EventTable t)
{
    switch (t) {
    case EventTable::Kernel:
        return "kernel";
    case EventTable::Memcpy:
        return "memcpy";
    case EventTable::Memset:
        return "memset";
    case EventTable::ApiCall:
        return "api_call";
    default:
        return nullptr;
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
bool findCorrelated(sqlite3* db, const SessionSnapshot& s, const std::vector<int>& lanes, TimeNs from, bool backwards,
    uint32_t correlationId, Candidate* found)
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
        for (const EventTable table :
            {EventTable::ApiCall, EventTable::Kernel, EventTable::Memcpy, EventTable::Memset}) {
            std::vector<const Candidate*> of;
            for (const auto& c : batch) {
                if (L[static_cast<size_t>(c.lane)].ref[c.index].table() == table)
                    of.push_back(&c);
            }
            if (of.empty())
                continue;
            std::string sql
                = std::string("SELECT id FROM ") + tableName(table) + " WHERE correlation_id = ?1 AND id IN (";
            for (size_t i = 0; i < of.size(); ++i)
                sql += (i ? ",?" : "?") + std::to_string(i + 2);
            sql += ")";
            sqlite::Statement q(db, sql, false);
            q.bind(1, static_cast<int64_t>(correlationId));
            for (size_t i = 0; i < of.size(); ++i)
                q.bind(static_cast<int>(i + 2), L[static_cast<size_t>(of[i]->lane)].ref[of[i]->index].rowid());
            std::vector<int64_t> hits;
            while (q.step())
                hits.push_back(q.columnInt64(0));
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
    d.linkEnd = lane.end[c.index];
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

void gpuWorkLink(sqlite3* db, const SessionSnapshot& s, EventDetails& d, int64_t pid)
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

EventDetails queryEventDetails(sqlite3* db, const SessionSnapshot& s, int laneIndex, quint32 index)
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
    d.end = lane.end[index];
    d.fields.append({QStringLiteral("Start"), QStringLiteral("+%1").arg(formatDuration(d.start - s.begin()))});
    d.fields.append({QStringLiteral("Duration"), formatDuration(d.end - d.start)});
    if (!db)
        return d;
    const int64_t rowid = d.ref.rowid();
    try {
        switch (d.ref.table()) {
        case EventTable::Kernel: {
            sqlite::Statement q(db,
                "SELECT pid, device_id, stream_id, correlation_id, queued, submitted, demangled_name, "
                "mangled_name, grid_x, grid_y, grid_z, block_x, block_y, block_z, cluster_x, cluster_y, "
                "cluster_z, registers_per_thread, static_smem, dynamic_smem, local_mem_per_thread, "
                "graph_id, context_id FROM kernel WHERE id = ?1",
                false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            const int64_t pid = q.columnInt64(0);
            d.correlationId = static_cast<uint32_t>(q.columnInt64(3));
            d.queued = q.columnInt64(4);
            d.submitted = q.columnInt64(5);
            d.fields.append({QStringLiteral("Kernel"), str(s, q.columnInt64(6))});
            d.fields.append({QStringLiteral("Stream"),
                QStringLiteral("%1 (GPU %2, context %3)")
                    .arg(q.columnInt64(2))
                    .arg(q.columnInt64(1))
                    .arg(q.columnInt64(22))});
            d.fields.append({QStringLiteral("Grid"), dim3(q.columnInt64(8), q.columnInt64(9), q.columnInt64(10))});
            d.fields.append({QStringLiteral("Block"), dim3(q.columnInt64(11), q.columnInt64(12), q.columnInt64(13))});
            if (q.columnInt64(14) > 0)
                d.fields.append(
                    {QStringLiteral("Cluster"), dim3(q.columnInt64(14), q.columnInt64(15), q.columnInt64(16))});
            d.fields.append({QStringLiteral("Registers / thread"), QString::number(q.columnInt64(17))});
            d.fields.append({QStringLiteral("Shared memory"),
                QStringLiteral("%1 static + %2 dynamic")
                    .arg(formatBytes(q.columnInt64(18)), formatBytes(q.columnInt64(19)))});
            if (q.columnInt64(20) > 0)
                d.fields.append({QStringLiteral("Local memory / thread"), formatBytes(q.columnInt64(20))});
            if (q.columnInt64(21) > 0)
                d.fields.append({QStringLiteral("CUDA graph"), QString::number(q.columnInt64(21))});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            d.fields.append({QStringLiteral("Launch id"), QString::number(rowid)});
            if (d.queued > 0)
                d.fields.append({QStringLiteral("Queued for"), formatDuration(d.start - d.queued)});
            gpuWorkLink(db, s, d, pid);
            break;
        }
        case EventTable::Memcpy: {
            sqlite::Statement q(db,
                "SELECT pid, device_id, stream_id, correlation_id, bytes, copy_kind FROM memcpy WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            d.correlationId = static_cast<uint32_t>(q.columnInt64(3));
            const int64_t bytes = q.columnInt64(4);
            d.fields.append({QStringLiteral("Copy"), copyKindName(q.columnInt(5))});
            d.fields.append({QStringLiteral("Size"), formatBytes(bytes)});
            if (d.end > d.start)
                d.fields.append({QStringLiteral("Throughput"),
                    QStringLiteral("%1 GB/s").arg(
                        static_cast<double>(bytes) / static_cast<double>(d.end - d.start), 0, 'f', 2)});
            d.fields.append(
                {QStringLiteral("Stream"), QStringLiteral("%1 (GPU %2)").arg(q.columnInt64(2)).arg(q.columnInt64(1))});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            gpuWorkLink(db, s, d, q.columnInt64(0));
            break;
        }
        case EventTable::Memset: {
            sqlite::Statement q(
                db, "SELECT pid, device_id, stream_id, correlation_id, bytes, value FROM memset WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            d.correlationId = static_cast<uint32_t>(q.columnInt64(3));
            d.fields.append({QStringLiteral("Size"), formatBytes(q.columnInt64(4))});
            d.fields.append({QStringLiteral("Value"), QString::number(q.columnInt64(5))});
            d.fields.append(
                {QStringLiteral("Stream"), QStringLiteral("%1 (GPU %2)").arg(q.columnInt64(2)).arg(q.columnInt64(1))});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            gpuWorkLink(db, s, d, q.columnInt64(0));
            break;
        }
        case EventTable::ApiCall: {
            sqlite::Statement q(
                db, "SELECT pid, tid, correlation_id, domain, cbid, return_value FROM api_call WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            const int64_t pid = q.columnInt64(0);
            d.correlationId = static_cast<uint32_t>(q.columnInt64(2));
            d.fields.append(
                {QStringLiteral("API"), q.columnInt(3) == 1 ? QStringLiteral("driver") : QStringLiteral("runtime")});
            d.fields.append({QStringLiteral("Thread"), QString::number(q.columnInt64(1))});
            d.fields.append({QStringLiteral("Return value"), QString::number(q.columnInt64(5))});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(d.correlationId)});
            Candidate c {};
            if (d.correlationId != 0
                && findCorrelated(db, s, lanesOf(s, LaneKind::GpuStream, pid), d.start, false, d.correlationId, &c))
                addLink(s, d, c, QStringLiteral("Launched"));
            break;
        }
        case EventTable::NvtxRange: {
            sqlite::Statement q(
                db, "SELECT tid, end_tid, domain, category, depth FROM nvtx_range WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            d.fields.append({QStringLiteral("Thread"), QString::number(q.columnInt64(0))});
            if (q.columnInt64(1) != q.columnInt64(0) && q.columnInt64(1) != 0)
                d.fields.append({QStringLiteral("Ended on thread"), QString::number(q.columnInt64(1))});
            if (q.columnInt64(2) > 0)
                d.fields.append({QStringLiteral("Domain"), str(s, q.columnInt64(2))});
            d.fields.append({QStringLiteral("Depth"), QString::number(q.columnInt64(4))});
            break;
        }
        case EventTable::Sync: {
            sqlite::Statement q(
                db, "SELECT stream_id, device_id, correlation_id, event_id FROM sync WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            const int64_t stream = q.columnInt64(0);
            d.fields.append({QStringLiteral("Stream"),
                stream == 0xFFFFFFFFll ? QStringLiteral("all (context)") : QString::number(stream)});
            d.fields.append({QStringLiteral("Correlation id"), QString::number(q.columnInt64(2))});
            break;
        }
        case EventTable::WarpEvent: {
            sqlite::Statement q(db, "SELECT kernel_id, block, warp, sm, role FROM warp_event WHERE id = ?1", false);
            q.bind(1, rowid);
            if (!q.step())
                break;
            d.found = true;
            d.fields.append({QStringLiteral("Kernel launch"), QString::number(q.columnInt64(0))});
            d.fields.append({QStringLiteral("Block / warp"),
                QStringLiteral("%1 / %2").arg(q.columnInt64(1)).arg(q.columnInt64(2))});
            d.fields.append({QStringLiteral("SM"), QString::number(q.columnInt64(3))});
            d.fields.append({QStringLiteral("Role"), str(s, q.columnInt64(4))});
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

class EventDetailsSource::Worker : public QObject {
public:
    ::sqlite3* connectionFor(const SessionSnapshot& s)
    {
        if (!s.hasFile)
            return nullptr;
        if (!m_reader || m_path != s.path) {
            m_reader.reset();
            m_path = s.path;
            try {
                m_reader = std::make_unique<SessionReader>(s.path.toStdString());
            } catch (const std::exception&) {
                return nullptr; // the tooltip still shows what the lane knows
            }
        }
        return m_reader->handle();
    }

private:
    std::unique_ptr<SessionReader> m_reader;
    QString m_path;
};

EventDetailsSource::EventDetailsSource(QObject* parent)
    : QObject(parent)
    , m_thread(new QThread(this))
    , m_worker(new Worker)
{
    qRegisterMetaType<ws::EventDetails>();
    for (auto& s : m_serial)
        s = std::make_shared<std::atomic<quint64>>(0);
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread->setObjectName(QStringLiteral("event details"));
    m_thread->start();
}

EventDetailsSource::~EventDetailsSource()
{
    for (auto& s : m_serial)
        s->fetch_add(1);
    m_thread->quit();
    m_thread->wait();
}

void EventDetailsSource::setSnapshot(std::shared_ptr<const SessionSnapshot> snapshot)
{
    m_snapshot = std::move(snapshot);
    m_cache.clear();
    for (auto& s : m_serial)
        s->fetch_add(1);
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
    const quint64 serial = m_serial[channel]->fetch_add(1) + 1;
    if (const EventDetails* d = cached(lane, index)) {
        emit detailsReady(channel, *d);
        return;
    }
    auto latest = m_serial[channel];
    auto snapshot = m_snapshot;
    Worker* worker = m_worker;
    QMetaObject::invokeMethod(
        m_worker,
        [this, worker, latest, snapshot, channel, serial, lane, index] {
            if (latest->load() != serial)
                return; // a newer request on this channel replaced it
            const EventDetails d = queryEventDetails(worker->connectionFor(*snapshot), *snapshot, lane, index);
            QMetaObject::invokeMethod(
                this, [this, channel, serial, d] { deliver(channel, serial, d); }, Qt::QueuedConnection);
        },
        Qt::QueuedConnection);
}

void EventDetailsSource::deliver(int channel, quint64 serial, const EventDetails& details)
{
    if (m_serial[channel]->load() != serial)
        return;
    if (m_cache.size() > 4096)
        m_cache.clear();
    m_cache.insert(cacheKey(details.lane, details.index), details);
    emit detailsReady(channel, details);
}

} // namespace ws
