// SPDX-License-Identifier: MIT
// The store's typed reads (core/store/sessionreader.h) on a real file: one row by id, rows by
// (pid, correlation id), time windows, counter series, lane cache chunks, metrics, source tables,
// environment. Every value is checked against what was written.
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

SessionData sample()
{
    SessionData d;
    d.environment = {{"host", "gpu-01"}, {"driver_version", "580.65.06"}};
    const StringId name = d.strings.intern("relu_kernel");
    d.processes = {{100, "app", "./app", 0, 0, 0, 0, 1}, {200, "other", "./other", 0, 0, 0, 0, 1}};
    d.threads = {{100, 100, "main"}, {200, 200, "main"}};
    for (int i = 0; i < 6; ++i) {
        KernelRecord k;
        k.id = i + 1;
        k.pid = i < 4 ? 100 : 200;
        k.correlationId = 10 + static_cast<uint32_t>(i % 2); // 10, 11, 10, 11, ...
        k.start = 1000 * (i + 1);
        k.end = k.start + 500;
        k.shortName = name;
        d.kernels.push_back(k);
    }
    d.memcpys = {{1, 100, 0, 1, 13, 10, 100, 900, 1 << 20, CopyKind::HtoD, 3, 2, 0}};
    d.memsets = {{1, 100, 0, 1, 7, 11, 2100, 2200, 4096, 0, 0}};
    d.apiCalls = {{1, 100, 100, 10, 50, 120, ApiDomain::Runtime, 211, name, 0},
        {2, 100, 100, 11, 1900, 1950, ApiDomain::Runtime, 211, name, 0},
        {3, 200, 200, 10, 4900, 4950, ApiDomain::Runtime, 211, name, 0}};
    d.nvtxRanges = {{1, 100, 100, 100, 400, 3000, name, 0, 0, 0, NvtxStyle::PushPop, 0}};
    d.syncs = {{1, 100, 100, 0, 1, 7, 12, 1300, 2100, SyncKind::StreamSynchronize, 0}};
    d.warpEvents = {{1, 1, 0, 3, 17, name, name, WarpEventKind::Range, 1100, 1400, 0}};
    d.metricDefs = {{1, "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "SpeedOfLight", ""},
        {2, "dram__bytes.sum", "byte", "Memory", ""}};
    d.kernelMetrics = {{2, 1, 87.5}, {2, 2, 1e9}, {5, 1, 12.0}};
    d.counterTracks = {{1, 100, 0, "sm__warps_active", "%"}, {2, 100, 0, "dram__throughput", "%"}};
    d.counterSamples = {{1, 1000, 12.5}, {2, 1000, 3.0}, {1, 2000, 25.0}, {2, 3000, 4.0}};
    return d;
}

std::vector<int64_t> idsOf(const std::vector<KernelRecord>& rows)
{
    std::vector<int64_t> ids;
    for (const auto& r : rows)
        ids.push_back(r.id);
    return ids;
}

} // namespace

class TestStoreReads : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_path;
    SessionData m_data = sample();

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath("reads.wscope").toStdString();
        SessionWriter writer(m_path);
        attachLaneCache(writer);
        writer.write(m_data);
        writer.commit();
    }

    void oneRowById()
    {
        const SessionReader reader(m_path);
        const auto k = reader.readKernel(3);
        QVERIFY(k.has_value());
        QCOMPARE(k->start, m_data.kernels[2].start);
        QCOMPARE(k->correlationId, m_data.kernels[2].correlationId);
        QVERIFY(!reader.readKernel(99).has_value());
        QCOMPARE(reader.readMemcpy(1)->bytes, m_data.memcpys[0].bytes);
        QCOMPARE(reader.readMemset(1)->bytes, m_data.memsets[0].bytes);
        QCOMPARE(reader.readApiCall(2)->correlationId, 11u);
        QCOMPARE(reader.readNvtxRange(1)->end, 3000);
        QCOMPARE(reader.readSync(1)->kind, SyncKind::StreamSynchronize);
        QCOMPARE(reader.readWarpEvent(1)->sm, 17);
        QCOMPARE(reader.readRow<KernelRecord>(6)->pid, 200);
    }

    void rowsByCorrelation()
    {
        const SessionReader reader(m_path);
        QCOMPARE(idsOf(reader.readByCorrelation<KernelRecord>(100, 10)), (std::vector<int64_t> {1, 3}));
        QCOMPARE(idsOf(reader.readByCorrelation<KernelRecord>(200, 10)), (std::vector<int64_t> {5}));
        QVERIFY(reader.readByCorrelation<KernelRecord>(300, 10).empty());
        QCOMPARE(reader.readByCorrelation<ApiCallRecord>(100, 11).size(), size_t(1));
        QCOMPARE(reader.readByCorrelation<MemcpyRecord>(100, 10).size(), size_t(1));
        QCOMPARE(reader.readByCorrelation<MemsetRecord>(100, 11).size(), size_t(1));
        const std::vector<int64_t> candidates {2, 3, 4, 42};
        QCOMPARE(reader.idsWithCorrelation<KernelRecord>(11, candidates), (std::vector<int64_t> {2, 4}));
        QVERIFY(reader.idsWithCorrelation<KernelRecord>(11, {}).empty());
    }

    void streamsATimeWindow()
    {
        const SessionReader reader(m_path);
        std::vector<int64_t> ids;
        // Kernels 2 (2000..2500) and 3 (3000..3500) overlap [2400, 3000]; kernel 1 ends at 1500.
        reader.forEachRow<KernelRecord>(
            SessionReader::TimeWindow {2400, 3000}, [&](const KernelRecord& k) { ids.push_back(k.id); });
        QCOMPARE(ids, (std::vector<int64_t> {2, 3}));
        ids.clear();
        reader.forEachRow<KernelRecord>([&](const KernelRecord& k) { ids.push_back(k.id); });
        QCOMPARE(ids.size(), size_t(6));
        std::vector<CounterSample> samples;
        reader.forEachRow<CounterSample>(
            SessionReader::TimeWindow {1500, 3000}, [&](const CounterSample& s) { samples.push_back(s); });
        QCOMPARE(samples.size(), size_t(2));
        const auto range = reader.timeRange<KernelRecord>();
        QVERIFY(range.has_value());
        QCOMPARE(range->first, 1000);
        QCOMPARE(range->second, 6500);
        QVERIFY(!reader.timeRange<NvtxMarkRecord>().has_value());
        QCOMPARE(reader.rowCount<KernelRecord>(), 6);
    }

    // A slice by id, [first, last): what the launch table's parallel read splits a table into.
    void streamsAnIdSlice()
    {
        const SessionReader reader(m_path);
        const auto ids = reader.idRange<KernelRecord>();
        QVERIFY(ids.has_value());
        QCOMPARE(ids->first, 1);
        QCOMPARE(ids->second, 6);
        std::vector<int64_t> got;
        reader.forEachRow<KernelRecord>(
            SessionReader::IdRange {2, 5}, [&](const KernelRecord& k) { got.push_back(k.id); });
        QCOMPARE(got, (std::vector<int64_t> {2, 3, 4}));
        got.clear();
        reader.forEachRow<KernelRecord>(
            SessionReader::IdRange {6, 6}, [&](const KernelRecord& k) { got.push_back(k.id); });
        QVERIFY(got.empty());
        QVERIFY(!reader.idRange<NvtxMarkRecord>().has_value());
    }

    void counterSeries()
    {
        const SessionReader reader(m_path);
        const auto tracks = reader.readCounterTracks();
        QCOMPARE(tracks.size(), size_t(2));
        QCOMPARE(tracks[1].name, std::string("dram__throughput"));
        QCOMPARE(reader.readCounterSamples().size(), size_t(4));
        const auto one = reader.readCounterSamples(1);
        QCOMPARE(one.size(), size_t(2));
        QCOMPARE(one[1].value, 25.0);
        QVERIFY(reader.readCounterSamples(9).empty());
    }

    void laneCacheChunks()
    {
        const SessionReader reader(m_path);
        int chunks = 0;
        reader.forEachLaneChunk([&](const SessionReader::LaneChunk& c) {
            ++chunks;
            return !c.key.empty() && !c.data.empty();
        });
        QVERIFY(chunks > 0);
        int stoppedAfter = 0;
        reader.forEachLaneChunk([&](const SessionReader::LaneChunk&) {
            ++stoppedAfter;
            return false;
        });
        QCOMPARE(stoppedAfter, 1);
    }

    void laneCacheOnlyWhenAttached()
    {
        // The store knows nothing of lanes: without attachLaneCache the file has no lane_blob
        // rows and the timeline comes from a row scan, with the same lanes.
        const std::string bare = m_dir.filePath("bare.wscope").toStdString();
        {
            SessionWriter writer(bare);
            writer.write(m_data);
            writer.commit();
        }
        const SessionReader plain(bare);
        int chunks = 0;
        plain.forEachLaneChunk([&](const SessionReader::LaneChunk&) { return ++chunks > 0; });
        QCOMPARE(chunks, 0);
        const auto scanned = TimelineModel::load(plain);
        QVERIFY(!scanned->fromLaneCache);
        const SessionReader cachedReader(m_path);
        const auto cached = TimelineModel::load(cachedReader);
        QVERIFY(cached->fromLaneCache);
        QCOMPARE(cached->lanes.size(), scanned->lanes.size());
        for (size_t i = 0; i < cached->lanes.size(); ++i) {
            QCOMPARE(cached->lanes[i].start, scanned->lanes[i].start);
            QVERIFY(cached->lanes[i].ref == scanned->lanes[i].ref);
        }
    }

    void metricsAndEnvironment()
    {
        const SessionReader reader(m_path);
        QCOMPARE(reader.readMetricDefs().size(), size_t(2));
        QCOMPARE(reader.readKernelMetrics().size(), size_t(3));
        QCOMPARE(idsOf(reader.readMeasuredKernels()), (std::vector<int64_t> {2, 5}));
        QCOMPARE(reader.readEnvironment(), m_data.environment);
        QVERIFY(reader.hasTable("kernel"));
        QVERIFY(!reader.hasTable("no_such_table"));
        QVERIFY(reader.readSourceCounters().empty());
    }
};

QTEST_GUILESS_MAIN(TestStoreReads)
#include "tst_store_reads.moc"
