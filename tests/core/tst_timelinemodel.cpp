// SPDX-License-Identifier: MIT
// TimelineModel: the lane cache, row scans and in-memory data give identical lanes; lanes
// keep their invariants (sorted, nested calls on deeper lanes); loading reports progress and
// stops when cancelled.
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <numeric>
#include <set>

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
        QVERIFY2(x.end == y.end, qPrintable(describe(x)));
        QVERIFY2(x.name == y.name, qPrintable(describe(x)));
        QVERIFY2(x.ref == y.ref, qPrintable(describe(x)));
    }
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
            QCOMPARE(lane.end.size(), lane.size());
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
            QCOMPARE(lane->end[i], k.end);
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
                QVERIFY2(lane.end[i] <= lane.start[i + 1], qPrintable(describe(lane)));
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
        copy.end.resize(lane.size());
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
        QVERIFY(copy.end == lane.end);
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
        const size_t columns = static_cast<size_t>(model->eventCount) * kLaneBytesPerEvent;
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
