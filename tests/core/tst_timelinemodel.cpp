// SPDX-License-Identifier: MIT
// TimelineModel: the lane cache, row scans and in-memory data give identical lanes; lanes
// keep their invariants (sorted, nested calls on deeper lanes); loading reports progress and
// stops when cancelled.
#include "core/iket/warplaneprovider.h"
#include "core/iket/warplanes.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/store/sqlite.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"
#include "core/timeline/trackkind.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <numeric>
#include <set>
#include <sqlite3.h>

using namespace ws;
using Kind = SessionError::Kind;

namespace {

SynthOptions synthOptions(int64_t events)
{
    SynthOptions o;
    o.events = events;
    o.seed = 11;
    o.batchEvents = 4096; // many batches: lanes are assembled across appends
    return o;
}

void writeSynthetic(const std::string& path, const SynthOptions& options)
{
    SessionWriter writer(path);
    attachLaneCache(writer);
    writeSyntheticSession(options, writer);
    writer.commit();
}

QString describe(const TimelineLane& l)
{
    return QStringLiteral("%1 pid %2 tid %3 dev %4 stream %5 depth %6")
        .arg(QString::fromStdString(l.label))
        .arg(l.pid)
        .arg(l.tid)
        .arg(l.deviceId)
        .arg(l.streamId)
        .arg(l.depth);
}

void compareModels(const TimelineModel& a, const TimelineModel& b)
{
    QCOMPARE(a.strings.all(), b.strings.all());
    QVERIFY(a.processes == b.processes);
    QVERIFY(a.threads == b.threads);
    QVERIFY(a.devices == b.devices);
    QCOMPARE(a.begin, b.begin);
    QCOMPARE(a.end, b.end);
    QCOMPARE(a.eventCount, b.eventCount);
    QCOMPARE(a.lanes.size(), b.lanes.size());
    for (size_t i = 0; i < a.lanes.size(); ++i) {
        const TimelineLane& x = a.lanes[i];
        const TimelineLane& y = b.lanes[i];
        QCOMPARE(describe(x), describe(y));
        QVERIFY(x.kind == y.kind);
        QVERIFY2(x.start == y.start, qPrintable(describe(x)));
        QVERIFY2(x.durations == y.durations, qPrintable(describe(x)));
        QVERIFY2(x.name == y.name, qPrintable(describe(x)));
        QVERIFY2(x.ref == y.ref, qPrintable(describe(x)));
    }
}

// A small session with one in-kernel trace: kernel 3 on stream 7, two warps of block 0.
SessionData warpSession()
{
    SessionData s;
    s.processes.push_back({100, "prog", "prog", 0, 0, 0, 0, 1});
    KernelRecord k;
    k.id = 3;
    k.pid = 100;
    k.streamId = 7;
    k.start = 1000;
    k.end = 9000;
    k.shortName = s.strings.intern("pipelined");
    s.kernels.push_back(k);
    ApiCallRecord api;
    api.id = 1;
    api.pid = 100;
    api.tid = 100;
    api.start = 900;
    api.end = 950;
    api.name = s.strings.intern("cudaLaunchKernel");
    s.apiCalls.push_back(api);
    const StringId producer = s.strings.intern("producer");
    const StringId consumer = s.strings.intern("consumer");
    int64_t id = 1;
    const auto add = [&](int32_t warp, StringId role, const char* name, TimeNs b, TimeNs e) {
        WarpEvent w;
        w.id = id++;
        w.kernelId = 3;
        w.warp = warp;
        w.role = role;
        w.name = s.strings.intern(name);
        w.kind = WarpEventKind::Range;
        w.begin = b;
        w.end = e;
        s.warpEvents.push_back(w);
    };
    add(0, producer, "load", 1000, 2000);
    add(1, consumer, "wait_full", 1000, 2200);
    add(1, consumer, "compute", 2200, 4000);
    return s;
}

} // namespace

class TestTimelineModel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath("synth.wscope").toStdString();
        writeSynthetic(m_path, synthOptions(kEvents));
        m_data = makeSyntheticSession(synthOptions(kEvents));
    }

    void laneCacheRowScanAndMemoryAgree()
    {
        SessionReader reader(m_path);
        const auto cached = TimelineModel::load(reader);
        const auto scanned = TimelineModel::load(reader, {}, {}, /*useLaneCache=*/false);
        const auto memory = TimelineModel::fromSessionData(m_data);
        QVERIFY(cached->fromLaneCache);
        QVERIFY(!scanned->fromLaneCache);
        QCOMPARE(cached->path, m_path);
        compareModels(*cached, *scanned);
        compareModels(*cached, *memory);
    }

    void lanesCoverEveryEventOnce()
    {
        const auto model = TimelineModel::fromSessionData(m_data);
        const size_t expected = m_data.kernels.size() + m_data.memcpys.size() + m_data.memsets.size()
            + m_data.apiCalls.size() + m_data.nvtxRanges.size() + m_data.syncs.size();
        QCOMPARE(static_cast<size_t>(model->eventCount), expected);
        std::set<uint32_t> refs;
        for (const TimelineLane& lane : model->lanes) {
            QCOMPARE(lane.durations.size(), lane.size());
            QCOMPARE(lane.name.size(), lane.size());
            QCOMPARE(lane.ref.size(), lane.size());
            for (const EventRef r : lane.ref)
                QVERIFY(refs.insert(r.packed).second);
        }
        QCOMPARE(refs.size(), expected);

        // Every kernel sits on its stream's lane with its own times and name.
        std::map<std::tuple<int64_t, uint32_t, uint32_t>, const TimelineLane*> streams;
        for (const TimelineLane& lane : model->lanes) {
            if (lane.kind == LaneKind::GpuStream)
                streams[{lane.pid, lane.deviceId, lane.streamId}] = &lane;
        }
        for (const KernelRecord& k : m_data.kernels) {
            const TimelineLane* lane = streams.at({k.pid, k.deviceId, k.streamId});
            const auto it = std::find(lane->ref.begin(), lane->ref.end(), EventRef::make(EventTable::Kernel, k.id));
            QVERIFY(it != lane->ref.end());
            const auto i = static_cast<size_t>(it - lane->ref.begin());
            QCOMPARE(lane->start[i], k.start);
            QCOMPARE(lane->endAt(i), k.end);
            QCOMPARE(model->strings.at(lane->name[i]), m_data.str(k.shortName));
        }
        // Copies are named like Nsight Systems names them.
        const MemcpyRecord& m = m_data.memcpys.front();
        const TimelineLane* lane = streams.at({m.pid, m.deviceId, m.streamId});
        const auto it = std::find(lane->ref.begin(), lane->ref.end(), EventRef::make(EventTable::Memcpy, m.id));
        QVERIFY(it != lane->ref.end());
        QCOMPARE(model->strings.at(lane->name[static_cast<size_t>(it - lane->ref.begin())]),
            std::string(
                m.copyKind == CopyKind::HtoD ? "[CUDA memcpy Host-to-Device]" : "[CUDA memcpy Device-to-Host]"));
    }

    void lanesAreSortedAndDoNotOverlap()
    {
        const auto model = TimelineModel::fromSessionData(m_data);
        std::set<std::string> labels;
        for (const TimelineLane& lane : model->lanes) {
            labels.insert(lane.label);
            QVERIFY(lane.size() > 0);
            for (size_t i = 0; i + 1 < lane.size(); ++i) {
                QVERIFY2(lane.start[i] <= lane.start[i + 1], qPrintable(describe(lane)));
                QVERIFY2(lane.endAt(i) <= lane.start[i + 1], qPrintable(describe(lane)));
            }
        }
        // Runtime calls contain their driver calls: those land one lane deeper. NVTX nests 4 deep.
        for (const char* label : {"CUDA API", "CUDA API (depth 1)", "NVTX", "NVTX (depth 1)", "NVTX (depth 2)",
                 "NVTX (depth 3)", "stream 7", "stream 13", "sync"})
            QVERIFY2(labels.contains(label), label);
        QVERIFY(model->begin < model->end);
    }

    void laneOrderGroupsThreadsThenDevices()
    {
        const auto model = TimelineModel::fromSessionData(m_data);
        // Per process: each thread's API, NVTX and sync lanes together, then its streams.
        int64_t pid = -1;
        bool inDevices = false;
        for (const TimelineLane& lane : model->lanes) {
            if (lane.pid != pid) {
                QVERIFY(lane.pid > pid);
                pid = lane.pid;
                inDevices = false;
            }
            if (lane.kind == LaneKind::GpuStream)
                inDevices = true;
            else
                QVERIFY2(!inDevices, "thread lanes come before the process's stream lanes");
        }
    }

    void nestingGoesToDeeperLanes()
    {
        // A hand-made thread: a runtime call with a nested driver call, then a separate call
        // starting exactly where the first ended.
        SessionData d;
        const StringId rt = d.strings.intern("cudaLaunchKernel");
        const StringId drv = d.strings.intern("cuLaunchKernel");
        d.apiCalls = {{1, 1, 1, 1, 100, 200, ApiDomain::Runtime, 0, rt, 0},
            {2, 1, 1, 1, 120, 180, ApiDomain::Driver, 0, drv, 0}, {3, 1, 1, 2, 200, 250, ApiDomain::Runtime, 0, rt, 0},
            {4, 1, 1, 2, 100, 200, ApiDomain::Driver, 0, drv, 0}}; // same span as 1: nests below
        const auto model = TimelineModel::fromSessionData(d);
        QCOMPARE(model->lanes.size(), size_t(3));
        QCOMPARE(model->lanes[0].label, std::string("CUDA API"));
        QCOMPARE(model->lanes[0].start, (std::vector<TimeNs> {100, 200}));
        QCOMPARE(model->lanes[1].start, (std::vector<TimeNs> {100})); // id 4, equal span
        QCOMPARE(model->lanes[1].ref[0], EventRef::make(EventTable::ApiCall, 4));
        QCOMPARE(model->lanes[2].start, (std::vector<TimeNs> {120}));
        QCOMPARE(model->lanes[2].depth, 2);
        QCOMPARE(model->begin, TimeNs(100));
        QCOMPARE(model->end, TimeNs(250));
    }

    void unsortedInputIsSorted()
    {
        SessionData d = m_data;
        std::reverse(d.kernels.begin(), d.kernels.end());
        std::reverse(d.nvtxRanges.begin(), d.nvtxRanges.end());
        std::rotate(
            d.apiCalls.begin(), d.apiCalls.begin() + static_cast<long>(d.apiCalls.size() / 3), d.apiCalls.end());
        compareModels(*TimelineModel::fromSessionData(d), *TimelineModel::fromSessionData(m_data));
    }

    void chunkedLaneBlobsReassemble()
    {
        const auto model = TimelineModel::fromSessionData(m_data);
        const TimelineLane& lane = *std::max_element(
            model->lanes.begin(), model->lanes.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
        QVERIFY(lane.size() > 100);
        // Three chunks of uneven size, decoded in reverse order.
        const size_t cut1 = lane.size() / 3, cut2 = lane.size() - 7;
        std::vector<std::vector<std::byte>> blobs = {encodeLaneChunk(lane, cut2, lane.size() - cut2, 9),
            encodeLaneChunk(lane, cut1, cut2 - cut1, 9), encodeLaneChunk(lane, 0, cut1, 9)};
        TimelineLane copy;
        copy.start.resize(lane.size());
        copy.durations.resize(lane.size());
        copy.name.resize(lane.size());
        copy.ref.resize(lane.size());
        for (const auto& blob : blobs) {
            LaneBlobHeader header;
            QVERIFY(decodeLaneChunkHeader(blob, header));
            QCOMPARE(header.labelBase, 9u);
            QCOMPARE(header.laneEvents, lane.size());
            copyLaneChunk(blob, header, copy);
        }
        QVERIFY(copy.start == lane.start);
        QVERIFY(copy.durations == lane.durations);
        QVERIFY(copy.name == lane.name);
        QVERIFY(copy.ref == lane.ref);
        // Any flipped bit, a short blob or a wrong size is refused.
        for (const size_t at : {size_t(0), size_t(40), sizeof(LaneBlobHeader) + 3, blobs[1].size() - 1}) {
            auto bad = blobs[1];
            bad[at] ^= std::byte {0x10};
            LaneBlobHeader header;
            QVERIFY(!decodeLaneChunkHeader(bad, header));
        }
        LaneBlobHeader header;
        QVERIFY(!decodeLaneChunkHeader(std::span(blobs[1]).first(blobs[1].size() - 24), header));
        QVERIFY(!decodeLaneChunkHeader(std::span(blobs[1]).first(10), header));
        QCOMPARE(laneBlobKey(lane, 2).substr(0, 4), std::string(lane.kind == LaneKind::GpuStream ? "gpu/" : "api/"));
    }

    void residentMemoryIsColumnsPlusLittle()
    {
        SessionReader reader(m_path);
        const auto model = TimelineModel::load(reader);
        // 20 bytes an event in memory (the file's 24 keep 64-bit ends; the lane keeps 32-bit
        // durations), plus the side table's entry for each event of 2^32 ns or longer.
        constexpr size_t kPerEvent = sizeof(TimeNs) + sizeof(uint32_t) + sizeof(StringId) + sizeof(EventRef);
        static_assert(kPerEvent == 20 && kLaneBytesPerEvent == 24);
        size_t listed = 0;
        for (const TimelineLane& lane : model->lanes)
            listed += lane.durations.longCount();
        const size_t columns = static_cast<size_t>(model->eventCount) * kPerEvent
            + listed * (sizeof(uint32_t) + sizeof(TimeNs) + 4); // (index, duration) with its padding
        QVERIFY(model->residentBytes() >= columns);
        // Exact-size columns; the rest (lanes, strings, processes) is small and fixed.
        QVERIFY2(model->residentBytes() < columns + 64 * 1024,
            qPrintable(QString::number(model->residentBytes() - columns)));
    }

    void loadReportsProgress_data()
    {
        QTest::addColumn<bool>("useLaneCache");
        QTest::newRow("lane cache") << true;
        QTest::newRow("row scans") << false;
    }

    void loadReportsProgress()
    {
        QFETCH(bool, useLaneCache);
        SessionReader reader(m_path);
        std::vector<double> fractions;
        std::set<std::string> phases;
        TimelineModel::load(
            reader,
            [&](double f, const char* phase) {
                fractions.push_back(f);
                phases.insert(phase);
            },
            {}, useLaneCache);
        QVERIFY(fractions.size() >= 3);
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.front(), 0.0);
        QCOMPARE(fractions.back(), 1.0);
        QVERIFY(phases.size() >= 2);
    }

    void cancellationThrows_data()
    {
        QTest::addColumn<bool>("useLaneCache");
        QTest::addColumn<int>("cancelAtCall");
        QTest::newRow("cache, before start") << true << 0;
        QTest::newRow("cache, while reading") << true << 2;
        QTest::newRow("rows, before start") << false << 0;
        QTest::newRow("rows, while scanning") << false << 3;
    }

    void cancellationThrows()
    {
        QFETCH(bool, useLaneCache);
        QFETCH(int, cancelAtCall);
        SessionReader reader(m_path);
        CancellationToken cancel;
        if (cancelAtCall == 0)
            cancel.cancel();
        int calls = 0;
        int callsAfterCancel = 0;
        try {
            TimelineModel::load(
                reader,
                [&](double, const char*) {
                    if (cancel.isCancelled())
                        ++callsAfterCancel;
                    if (++calls == cancelAtCall)
                        cancel.cancel();
                },
                cancel, useLaneCache);
            QFAIL("load must throw when cancelled");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::Cancelled);
            QCOMPARE(e.path(), m_path);
        }
        QVERIFY(callsAfterCancel == 0);
        // The reader stays usable after a cancelled load.
        QVERIFY(TimelineModel::load(reader)->eventCount > 0);
    }

    void trackKindRegistryCoversEveryKind()
    {
        // One entry per event table, each with a label and the table its rows live in.
        std::set<std::string_view> ids;
        for (uint32_t t = 0; t <= static_cast<uint32_t>(EventTable::Overhead); ++t) {
            const TrackKind& k = trackKind(static_cast<EventTable>(t));
            QVERIFY2(k.table == static_cast<EventTable>(t), qPrintable(QString::number(t)));
            QVERIFY(!k.eventLabel.empty());
            QVERIFY(!k.rowTable.empty());
        }
        for (const TrackKind& k : trackKinds())
            QVERIFY2(ids.insert(k.id).second, std::string(k.id).c_str());
        for (const char* id : {"kernel", "memcpy", "memset", "api", "nvtx", "sync", "overhead", "warp", "counter"})
            QVERIFY2(ids.count(id), id);
        QCOMPARE(counterTrackKind().colour, ColourPolicy::Series);
        // One entry per lane kind, each with its own lane-cache key (stored in files).
        std::set<std::string_view> keys;
        for (const LaneKindInfo& l : laneKinds()) {
            QCOMPARE(&laneKind(l.kind), &l);
            QVERIFY(keys.insert(l.key).second);
        }
        QCOMPARE(std::string(laneKind(LaneKind::Nvtx).key), std::string("nvtx"));
        QCOMPARE(laneKindLabel(LaneKind::Nvtx, 2, 0), std::string("NVTX (depth 2)"));
        QCOMPARE(laneKindLabel(LaneKind::GpuStream, 0, 7), std::string("stream 7"));
        // Every kind that puts events on a lane names a known lane kind.
        for (const TrackKind& k : trackKinds()) {
            if (k.lane)
                QVERIFY(isKnownLaneKind(static_cast<int32_t>(*k.lane)));
        }
        QVERIFY(!isKnownLaneKind(static_cast<int32_t>(laneKinds().size())));
    }

    void laneOrderFollowsTheRegistry()
    {
        // Two processes sharing a device, and an in-kernel trace: per process its threads'
        // lanes then its streams; in-kernel lanes last.
        SessionData d = warpSession();
        SessionData other = warpSession();
        KernelRecord k = other.kernels.front();
        k.id = 4;
        k.pid = 50;
        k.streamId = 9;
        d.kernels.push_back(k);
        ApiCallRecord api = other.apiCalls.front();
        api.id = 2;
        api.pid = 50;
        api.tid = 50;
        d.apiCalls.push_back(api);
        const auto model = TimelineModel::fromSessionData(d, iket::laneProviders());
        QStringList got;
        for (const TimelineLane& l : model->lanes)
            got << QStringLiteral("%1 %2").arg(l.pid).arg(QString::fromStdString(l.label));
        const QStringList expected {
            "50 CUDA API", "50 stream 9", "100 CUDA API", "100 stream 7", "0 producer · warp 0", "0 consumer · warp 1"};
        QCOMPARE(got, expected);
        for (size_t i = 1; i < model->lanes.size(); ++i)
            QVERIFY(laneOrderKey(model->lanes[i - 1]) < laneOrderKey(model->lanes[i]));
    }

    void warpLanesComeFromTheLaneProvider()
    {
        const SessionData d = warpSession();
        // Without the provider: the six event tables only.
        const auto plain = TimelineModel::fromSessionData(d);
        QVERIFY(std::none_of(plain->lanes.begin(), plain->lanes.end(),
            [](const TimelineLane& l) { return l.kind == LaneKind::WarpRole; }));
        QVERIFY(iket::warpRoles(*plain).empty());
        QCOMPARE(plain->eventCount, int64_t(2));
        // With it: one lane per warp, and the per-role summaries beside them.
        const auto memory = TimelineModel::fromSessionData(d, iket::laneProviders());
        QCOMPARE(memory->eventCount, int64_t(2 + d.warpEvents.size()));
        const auto& roles = iket::warpRoles(*memory);
        QCOMPARE(roles.size(), size_t(2));
        QCOMPARE(memory->strings.at(roles[0].role), std::string("consumer"));
        QVERIFY(roles[0].waitShare() > 0.3);
        // The file path gives the same lanes as the in-memory path.
        QTemporaryDir dir;
        const std::string path = dir.filePath("warps.wscope").toStdString();
        {
            SessionWriter writer(path);
            writer.write(d);
            writer.commit();
        }
        SessionReader reader(path);
        const auto file = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        compareModels(*file, *memory);
        QCOMPARE(iket::warpRoles(*file).size(), roles.size());
    }

    // A warp that ran out of slots says so on its lane, from the meta ingest writes (issue 23).
    void warpLanesSayWhatAWarpLost()
    {
        SessionData d = warpSession();
        d.meta["iket_dropped_warps"] = "pipelined (kernel #3): block 0 warp 1 (138)\n"
                                       "other (kernel #9): block 2 warp 3 (5)\n"
                                       "lost (kernel not found): block 0 warp 0 (7)";
        const auto lost = iket::droppedEventsByWarp(d.meta);
        QCOMPARE(lost.size(), size_t(2)); // the unmatched launch names no kernel id
        QCOMPARE(lost.at({3, 0, 1}), int64_t(138));
        QCOMPARE(lost.at({9, 2, 3}), int64_t(5));
        const auto model = TimelineModel::fromSessionData(d, iket::laneProviders());
        QStringList labels;
        for (const TimelineLane& l : model->lanes) {
            if (l.kind == LaneKind::WarpRole)
                labels << QString::fromStdString(l.label);
        }
        QCOMPARE(labels, (QStringList {"producer · warp 0", "consumer · warp 1 · 138 events lost"}));
        // The file path reads the same meta.
        QTemporaryDir dir;
        const std::string path = dir.filePath("lost.wscope").toStdString();
        {
            SessionWriter writer(path);
            writer.write(d);
            writer.commit();
        }
        SessionReader reader(path);
        const auto file = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        compareModels(*file, *model);
    }

    // Warps outside their Launch's grid have no lane: the kernel's first lane says how many.
    void warpLanesSayWhatALaunchDidNotRecord()
    {
        SessionData d = warpSession();
        d.meta["iket_out_of_range"] = "narrow (kernel #3): 396 warps\n"
                                      "other (kernel #9): 12 warps\n"
                                      "lost (kernel not found): 5 warps";
        const auto unrecorded = iket::unrecordedWarpsByKernel(d.meta);
        QCOMPARE(unrecorded.size(), size_t(2));
        QCOMPARE(unrecorded.at(3), int64_t(396));
        QCOMPARE(unrecorded.at(9), int64_t(12));
        const auto model = TimelineModel::fromSessionData(d, iket::laneProviders());
        QStringList labels;
        for (const TimelineLane& l : model->lanes) {
            if (l.kind == LaneKind::WarpRole)
                labels << QString::fromStdString(l.label);
        }
        QCOMPARE(
            labels, (QStringList {"producer · warp 0 · 396 warps of this launch not recorded", "consumer · warp 1"}));
    }

    // The H200 recording of the loss cases: the narrow launch's first lane says what it lacks.
    void realRecordingSaysWhatALaunchDidNotRecord()
    {
        SessionReader reader(WS_FIXTURES_DIR "/iket/streams_losses.wscope");
        const auto model = TimelineModel::load(reader, {}, {}, true, iket::laneProviders());
        int unrecorded = 0;
        int lost = 0;
        for (const TimelineLane& l : model->lanes) {
            if (l.kind != LaneKind::WarpRole)
                continue;
            if (l.label.ends_with(" · 132 warps of this launch not recorded")) {
                ++unrecorded;
                QCOMPARE(l.kernelId, int64_t(3));
                QCOMPARE(l.block, 0);
                QCOMPARE(l.warp, 0);
            }
            lost += l.label.find(" · 11 events lost") != std::string::npos ? 1 : 0;
        }
        QCOMPARE(unrecorded, 1);
        QCOMPARE(lost, 264); // every warp of the short buffer, on its first lane
    }

    void eventRefRefusesRowIdsBeyondItsBits()
    {
        const EventRef last = EventRef::make(EventTable::Sync, EventRef::kMaxRowId);
        QCOMPARE(last.table(), EventTable::Sync);
        QCOMPARE(last.rowid(), EventRef::kMaxRowId);
        QCOMPARE(EventRef::kMaxRowId, int64_t(536870911));
        for (const int64_t bad : {EventRef::kMaxRowId + 1, int64_t(1) << 32, int64_t(-1)}) {
            try {
                EventRef::make(EventTable::Kernel, bad);
                QFAIL("a row id beyond 29 bits must not wrap");
            } catch (const EventRefRangeError& e) {
                const std::string what = e.what();
                QVERIFY2(what.find("kernel row id " + std::to_string(bad)) != std::string::npos, e.what());
                QVERIFY2(what.find("536870911") != std::string::npos, e.what());
            }
        }
        // The lane builder (the writer's lane cache, in-memory sessions) keeps taking rows and
        // refuses at finish(), so a writer can finish its tables and leave the cache out.
        LaneBuilder builder;
        ApiCallRecord call;
        call.start = 10;
        call.end = 20;
        builder.add(call, 1);
        builder.add(call, EventRef::kMaxRowId + 1);
        builder.add(call, 3);
        int sunk = 0;
        QVERIFY_THROWS_EXCEPTION(EventRefRangeError, builder.finish(0, [&](TimelineLane&&) { ++sunk; }));
        QCOMPARE(sunk, 0);
        QCOMPARE(builder.eventCount(), int64_t(0));
        builder.add(call, 4); // starts over empty
        builder.finish(0, [&](TimelineLane&& lane) { sunk += static_cast<int>(lane.size()); });
        QCOMPARE(sunk, 1);
        // In memory: the record that cannot be addressed is refused, not wrapped onto row 5.
        SessionData d = warpSession();
        d.kernels.front().id = (int64_t(1) << 29) + 5;
        QVERIFY_THROWS_EXCEPTION(EventRefRangeError, TimelineModel::fromSessionData(d));
    }

    void loadRefusesRowIdsBeyondTheLimit()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("big-ids.wscope").toStdString();
        {
            SessionWriter writer(path);
            writer.write(warpSession());
            writer.commit();
        }
        {
            // As with the sqlite3 shell: an API call whose id needs 30 bits.
            sqlite::Database db(path, SQLITE_OPEN_READWRITE);
            db.exec("UPDATE api_call SET id = 536870912 WHERE id = 1;");
        }
        SessionReader reader(path);
        try {
            TimelineModel::load(reader, {}, {}, /*useLaneCache=*/false);
            QFAIL("load must refuse a row id it cannot address");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), Kind::BadInput);
            QCOMPARE(e.path(), path);
            QVERIFY2(e.reason().find("api_call row id 536870912") != std::string::npos, e.what());
            QVERIFY2(e.reason().find("536870911") != std::string::npos, e.what());
        }
    }

    void emptySession()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("empty.wscope").toStdString();
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.commit();
        }
        SessionReader reader(path);
        const auto model = TimelineModel::load(reader);
        QCOMPARE(model->eventCount, int64_t(0));
        QVERIFY(model->lanes.empty());
        QCOMPARE(model->begin, TimeNs(0));
        QCOMPARE(model->end, TimeNs(0));
        QCOMPARE(model->strings.size(), 1 + laneLabelStrings().size());
    }

private:
    static constexpr int64_t kEvents = 60000;
    QTemporaryDir m_dir;
    std::string m_path;
    SessionData m_data;
};

QTEST_GUILESS_MAIN(TestTimelineModel)
#include "tst_timelinemodel.moc"
