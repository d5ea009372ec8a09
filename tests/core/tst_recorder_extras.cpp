// SPDX-License-Identifier: MIT
// `record --gpu-metrics` and `record --nvtx-timing` without a GPU: hand-built raw files with
// PM sampling and NVTX timing records go through RawIngest into counter tracks and benchmark
// runs; the buffer sizing and clock decisions the injection library makes are checked as the
// pure functions they are; the nvtx_timing_sum report is computed from sessions written to and
// read back from real files. The H200 recordings of the same features are tested from
// tests/fixtures/recorder (see recordedFixture*).
#include "core/analysis/nvtxtimingreport.h"
#include "core/bench/benchresult.h"
#include "core/ingest/nvtxtimingingest.h"
#include "core/ingest/rawingest.h"
#include "core/raw/nvtxtiming.h"
#include "core/raw/pmsampling.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace ws;

namespace {

struct RawBuilder {
    std::string bytes;

    explicit RawBuilder(int64_t pid)
    {
        raw::FileHeader h {};
        std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
        h.version = raw::kFormatVersion;
        h.headerSize = sizeof(h);
        h.pid = pid;
        h.parentPid = 1;
        bytes.assign(reinterpret_cast<const char*>(&h), sizeof(h));
    }
    template <typename P> void add(raw::RecordType t, const P& p, std::string_view trailing = {})
    {
        raw::appendFrame(bytes, t, p, trailing);
    }
    void metrics(uint32_t device, uint64_t periodNs)
    {
        for (uint32_t i = 0; i < std::size(raw::kPmMetrics); ++i)
            add(raw::RecordType::PmMetric, raw::PmMetricRecord {device, i, periodNs}, raw::kPmMetrics[i].name);
    }
    void sample(uint32_t device, int64_t start, int64_t end, std::vector<double> values)
    {
        raw::PmSampleRecord r {start, end, device, uint32_t(values.size())};
        add(raw::RecordType::PmSample, r,
            std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)));
    }
    void timing(std::string_view name, uint32_t instance, int64_t gpuNs,
        raw::NvtxTimingStatus status = raw::NvtxTimingStatus::Ok)
    {
        raw::NvtxTimingRecord r {};
        r.hostStart = 1000 + instance * 10;
        r.hostEnd = r.hostStart + 5;
        r.tid = 42;
        r.gpuNs = gpuNs;
        r.status = uint32_t(status);
        r.instance = instance;
        add(raw::RecordType::NvtxTiming, r, name);
    }
    raw::RawFile file() const { return raw::RawFile::fromBytes(bytes, "built.raw"); }
};

SessionData ingest(std::vector<RawBuilder> builders, std::vector<std::string>* warnings = nullptr)
{
    RawIngest in;
    for (auto& b : builders) {
        b.add(raw::RecordType::End, raw::EndRecord {}); // a clean exit: no "process died" warning
        in.addFile(b.file());
    }
    SessionData s = in.finish();
    if (warnings)
        *warnings = in.warnings();
    return s;
}

std::vector<CounterSample> samplesOf(const SessionData& s, const std::string& track)
{
    std::vector<CounterSample> out;
    for (const auto& t : s.counterTracks)
        if (t.name == track)
            for (const auto& c : s.counterSamples)
                if (c.trackId == t.id)
                    out.push_back(c);
    return out;
}

QString cell(const ReportCell& c)
{
    if (const auto* s = std::get_if<std::string>(&c))
        return QString::fromStdString(*s);
    if (const auto* i = std::get_if<int64_t>(&c))
        return QString::number(*i);
    if (const auto* d = std::get_if<double>(&c))
        return QString::number(*d, 'f', 1);
    return QStringLiteral("NULL");
}

} // namespace

class TestRecorderExtras : public QObject {
    Q_OBJECT

private slots:
    // ---- PM sampling ----

    void imageSamples_data()
    {
        QTest::addColumn<qulonglong>("periodNs");
        QTest::addColumn<double>("durationS");
        QTest::addColumn<uint>("expected");
        // One 10 ms decode interval at 20 us = 500 samples, +50 % headroom, +2.
        QTest::newRow("20us until exit") << 20'000ull << 0.0 << 752u;
        QTest::newRow("20us, 2 ms duration") << 20'000ull << 0.002 << 152u; // 100 samples
        QTest::newRow("20us, 1 s duration: the interval decides") << 20'000ull << 1.0 << 752u;
        QTest::newRow("floor of 64") << 20'000ull << 0.0001 << 64u;
        QTest::newRow("1us until exit") << 1'000ull << 0.0 << 15002u;
        QTest::newRow("100 ms period") << 100'000'000ull << 0.0 << 64u;
    }
    void imageSamples()
    {
        QFETCH(qulonglong, periodNs);
        QFETCH(double, durationS);
        QFETCH(uint, expected);
        QCOMPARE(raw::pmImageSamples(periodNs, durationS), expected);
    }

    void hardwareBuffer_data()
    {
        QTest::addColumn<qulonglong>("periodNs");
        QTest::addColumn<qulonglong>("expected");
        QTest::newRow("2us: 20001 samples x 8 KB") << 2'000ull << 20001ull * 8192;
        QTest::newRow("20us: the 128 MB floor") << 20'000ull << (128ull << 20);
        QTest::newRow("1us: the 256 MB ceiling") << 1'000ull << (256ull << 20);
    }
    void hardwareBuffer()
    {
        QFETCH(qulonglong, periodNs);
        QFETCH(qulonglong, expected);
        QCOMPARE(raw::pmHardwareBufferBytes(periodNs), expected);
    }

    void clockDomain_data()
    {
        QTest::addColumn<qlonglong>("ts");
        QTest::addColumn<qlonglong>("expected");
        // now: realtime 1.8e18, monotonic 5e12 (offset 1.8e18 - 5e12).
        QTest::newRow("realtime sample 3 ms ago")
            << 1'800'000'000'000'000'000ll - 3'000'000 << 5'000'000'000'000ll - 3'000'000;
        QTest::newRow("monotonic sample 3 ms ago")
            << 5'000'000'000'000ll - 3'000'000 << 5'000'000'000'000ll - 3'000'000;
        QTest::newRow("monotonic sample 2 s ago") << 4'998'000'000'000ll << 4'998'000'000'000ll;
    }
    void clockDomain()
    {
        QFETCH(qlonglong, ts);
        QFETCH(qlonglong, expected);
        QCOMPARE(raw::pmToMonotonic(ts, 1'800'000'000'000'000'000ll, 5'000'000'000'000ll), expected);
    }

    void pmSamplesBecomeCounterTracks()
    {
        RawBuilder b(100);
        b.metrics(0, 20'000);
        // Out of order, as decodes may interleave with nothing guaranteeing order; the first
        // interval spans 887 ms from before Start and must go.
        b.sample(0, 1'040'000, 1'060'000, {30, 20, 60});
        b.sample(0, 120'000, 1'000'000, {1, 2, 3});
        b.sample(0, 1'000'000, 1'020'000, {95.5, 25, 14.6});
        b.sample(0, 1'020'000, 1'040'000, {0, 49.6, 80.5});
        std::vector<std::string> warnings;
        const SessionData s = ingest({b}, &warnings);
        QCOMPARE(s.counterTracks.size(), size_t(3));
        QCOMPARE(s.counterTracks[0].name, std::string("Tensor pipe active"));
        QCOMPARE(s.counterTracks[1].name, std::string("DRAM throughput"));
        QCOMPARE(s.counterTracks[2].name, std::string("Warps active"));
        for (const auto& t : s.counterTracks) {
            QCOMPARE(t.pid, int64_t(100));
            QCOMPARE(t.deviceId, 0u);
            QCOMPARE(t.unit, std::string("%"));
        }
        const auto tensor = samplesOf(s, "Tensor pipe active");
        QCOMPARE(tensor.size(), size_t(3));
        QCOMPARE(tensor[0].ts, int64_t(1'000'000)); // at the interval's start, sorted
        QCOMPARE(tensor[0].value, 95.5);
        QCOMPARE(tensor[1].value, 0.0);
        QCOMPARE(tensor[2].value, 30.0);
        const auto warps = samplesOf(s, "Warps active");
        QCOMPARE(warps[1].value, 80.5);
        QCOMPARE(s.meta.at("gpu_metrics.samples"), std::string("3"));
        QCOMPARE(s.meta.at("gpu_metrics.dropped_first"), std::string("1"));
        QCOMPARE(s.meta.at("gpu_metrics.period_ns"), std::string("20000"));
        QCOMPARE(s.meta.at("unknown_raw_records"), std::string("0"));
        QVERIFY(warnings.empty());
    }

    void pmSamplesPerDeviceAndMalformed()
    {
        RawBuilder b(7);
        b.metrics(1, 50'000);
        b.sample(1, 0, 900, {1, 1, 1});
        b.sample(1, 1000, 1050, {2, 2, 2});
        b.sample(1, 1050, 1100, {3, 3});    // one value short: skipped
        b.sample(2, 1000, 1050, {4, 4, 4}); // no metric definitions for device 2
        std::vector<std::string> warnings;
        const SessionData s = ingest({b}, &warnings);
        QCOMPARE(s.counterTracks.size(), size_t(3));
        QCOMPARE(s.counterTracks[0].deviceId, 1u);
        QCOMPARE(samplesOf(s, "DRAM throughput").size(), size_t(1));
        QCOMPARE(samplesOf(s, "DRAM throughput")[0].value, 2.0);
        QCOMPARE(warnings.size(), size_t(1));
        QVERIFY2(warnings[0].find("2 GPU metric sample(s)") != std::string::npos, warnings[0].c_str());
    }

    void noPmRecordsNoTracks()
    {
        RawBuilder b(5);
        const SessionData s = ingest({b});
        QVERIFY(s.counterTracks.empty());
        QVERIFY(s.meta.count("gpu_metrics.samples") == 0);
    }

    // ---- NVTX timing ----

    void nvtxTimingReport_data()
    {
        QTest::addColumn<QList<qlonglong>>("gpuNs");
        QTest::addColumn<QStringList>("expected"); // Range, Instances, Med, Avg, Min, Max, StdDev, CoV
        QTest::newRow("odd") << QList<qlonglong> {2'000'000, 2'010'000,
            1'990'000} << QStringList {"step", "3", "2000000.0", "2000000.0", "1990000", "2010000", "10000.0", "0.5"};
        QTest::newRow("even, median of the middle two") << QList<qlonglong> {1'000, 3'000, 2'000,
            10'000} << QStringList {"step", "4", "2500.0", "4000.0", "1000", "10000", "4082.5", "102.1"};
        QTest::newRow("one instance: no spread") << QList<qlonglong> {
            171'500} << QStringList {"step", "1", "171500.0", "171500.0", "171500", "171500", "0.0", "0.0"};
    }
    void nvtxTimingReport()
    {
        QFETCH(QList<qlonglong>, gpuNs);
        QFETCH(QStringList, expected);
        RawBuilder b(300);
        // Records arrive in completion order; untimed instances are not samples.
        for (int i = int(gpuNs.size()) - 1; i >= 0; --i)
            b.timing("step", uint32_t(i), gpuNs[i]);
        b.timing("step", uint32_t(gpuNs.size()), 0, raw::NvtxTimingStatus::NoContext);
        std::vector<std::string> warnings;
        const SessionData s = ingest({b}, &warnings);
        QCOMPARE(s.benchRuns.size(), size_t(1));
        QCOMPARE(s.benchRuns[0].implementation, std::string(kNvtxTimingImplementation));
        QCOMPARE(s.benchRuns[0].workload, std::string("step"));
        QCOMPARE(warnings.size(), size_t(1));
        QVERIFY(warnings[0].find("no CUDA context") != std::string::npos);

        // Through a real file: written, read back by the report and by the benchmark reader.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("t.wscope")).toStdString();
        {
            SessionWriter w(path);
            attachLaneCache(w);
            w.write(s);
            w.commit();
        }
        const SessionReader reader(path);
        const ReportTable t = nvtxTimingSum(reader);
        QCOMPARE(t.id, std::string("nvtx_timing_sum"));
        QCOMPARE(t.rows.size(), size_t(1));
        QStringList got;
        for (int c = 0; c < 8; ++c)
            got << cell(t.rows[0][size_t(c)]);
        QCOMPARE(got, expected);
        const bench::BenchResult back = bench::benchResultFromSession(reader.readAll(), path);
        QCOMPARE(back.runs.size(), size_t(1));
        QCOMPARE(back.runs[0].rounds.size(), size_t(gpuNs.size()));
        for (int i = 0; i < gpuNs.size(); ++i) // instance order, in us
            QCOMPARE(back.runs[0].rounds[size_t(i)], double(gpuNs[i]) / 1e3);
        QCOMPARE(back.runs[0].warnings.size(), size_t(1));
    }

    void nvtxTimingSeveralNamesAndProcesses()
    {
        RawBuilder a(10), b(11);
        a.timing("fwd", 0, 5'000);
        a.timing("bwd", 0, 9'000);
        b.timing("fwd", 0, 7'000);
        b.timing("fwd", 1, 0, raw::NvtxTimingStatus::EventFailed);
        const SessionData s = ingest({a, b});
        const ReportTable t = nvtxTimingSum(s.benchRuns, s.benchSamples);
        std::map<QString, QString> median;
        for (const auto& row : t.rows)
            median[cell(row[0])] = cell(row[2]);
        QCOMPARE(median.size(), size_t(3));
        QCOMPARE(median[QStringLiteral("bwd [nvtx-timing (pid 10)]")], QStringLiteral("9000.0"));
        QCOMPARE(median[QStringLiteral("fwd [nvtx-timing (pid 10)]")], QStringLiteral("5000.0"));
        QCOMPARE(median[QStringLiteral("fwd [nvtx-timing (pid 11)]")], QStringLiteral("7000.0"));
    }

    // H200: the recorder's events at push/pop against the events the program placed inside the
    // same range itself (tests/fixtures/recorder/extras/README.md).
    void h200NvtxTimingAgainstProgramEvents()
    {
        const QString dir = QStringLiteral(WS_FIXTURES_DIR "/recorder/extras/nvtx-timing");
        RawIngest in;
        QCOMPARE(in.addDirectory(dir.toStdString()), size_t(1));
        const SessionData s = in.finish();
        QVERIFY(in.warnings().empty());
        QCOMPARE(s.benchRuns.size(), size_t(1));
        const bench::BenchResult r = bench::benchResultFromSession(s, "fixture");
        const std::vector<double>& recorded = r.runs[0].rounds; // us, instance order
        QCOMPARE(recorded.size(), size_t(30));

        QFile csv(dir + QStringLiteral("/own-events.csv"));
        QVERIFY(csv.open(QIODevice::ReadOnly));
        std::vector<double> own; // us
        for (const QByteArray& line : csv.readAll().split('\n').mid(1))
            if (!line.trimmed().isEmpty())
                own.push_back(line.split(',').at(1).toDouble() * 1e3);
        QCOMPARE(own.size(), recorded.size());
        // Every instance: the recorder's interval contains the program's (two more events in
        // the stream, a few us) and is within 1 % of it.
        for (size_t i = 0; i < own.size(); ++i) {
            QVERIFY2(recorded[i] >= own[i] - 0.5, qPrintable(QString::number(i)));
            QVERIFY2(std::abs(recorded[i] - own[i]) / own[i] < 0.01, qPrintable(QString::number(i)));
        }
        const auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
        };
        const double diff = (median(recorded) - median(own)) / median(own);
        qInfo("H200 NVTX timing: recorder median %.3f us, program %.3f us (%+.3f %%)", median(recorded), median(own),
            diff * 100);
        QVERIFY(std::abs(diff) < 0.01);
        const ReportTable t = nvtxTimingSum(s.benchRuns, s.benchSamples);
        QCOMPARE(std::get<int64_t>(t.rows[0][1]), int64_t(30));
        QCOMPARE(std::get<double>(t.rows[0][2]), 1709568.0); // Med (ns), as printed on the H200
    }

    // H200, gemm-relu with --capture-range=cudaProfilerApi: the program ended its capture range
    // before PM set-up finished, so the only sample written is the first one, which spans the
    // 592 ms from before Start. Ingest drops it.
    void h200FirstSampleDropped()
    {
        const std::string dir = WS_FIXTURES_DIR "/recorder/extras/gpu-metrics-first-only";
        const raw::RawFile file = raw::RawFile::load(dir + "/ws-586.raw");
        std::vector<raw::PmSampleRecord> raws;
        for (const auto& f : file.frames())
            if (f.type == raw::RecordType::PmSample)
                raws.push_back(raw::readPayload<raw::PmSampleRecord>(f.payload));
        QCOMPARE(raws.size(), size_t(1));
        QVERIFY(raws[0].end - raws[0].start > 100 * 20'000); // far longer than one 20 us period
        RawIngest in;
        QCOMPARE(in.addDirectory(dir), size_t(1));
        const SessionData s = in.finish();
        QCOMPARE(s.counterTracks.size(), size_t(3));
        QVERIFY(s.counterSamples.empty());
        QCOMPARE(s.meta.at("gpu_metrics.dropped_first"), std::string("1"));
        QCOMPARE(s.environment.at("gpu_metrics.chip"), std::string("GH100"));
    }

    // H200, the same program with set-up in the context callback: 20 us samples during the timed
    // loop, tensor-pipe-busy samples inside the GEMM kernels' intervals (the clocks agree).
    void h200GemmCounterTracks()
    {
        const SessionData s = SessionReader(WS_FIXTURES_DIR "/recorder/extras/gpu-metrics-gemm.wscope").readAll();
        QCOMPARE(s.counterTracks.size(), size_t(3));
        std::map<std::string, std::vector<CounterSample>> byName;
        for (const auto& t : s.counterTracks) {
            QCOMPARE(t.unit, std::string("%"));
            byName[t.name] = samplesOf(s, t.name);
        }
        const auto& tensor = byName["Tensor pipe active"];
        QCOMPARE(tensor.size(), size_t(956));
        QCOMPARE(byName["DRAM throughput"].size(), size_t(956));
        QCOMPARE(byName["Warps active"].size(), size_t(956));
        std::vector<TimeNs> gaps;
        for (size_t i = 1; i < tensor.size(); ++i)
            gaps.push_back(tensor[i].ts - tensor[i - 1].ts);
        std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
        QVERIFY(std::abs(gaps[gaps.size() / 2] - 20'000) <= 200);
        double maxTensor = 0;
        for (const auto& c : tensor)
            maxTensor = std::max(maxTensor, c.value);
        QVERIFY(maxTensor > 90 && maxTensor <= 100.5);

        std::vector<std::pair<TimeNs, TimeNs>> gemms;
        for (const auto& k : s.kernels)
            if (s.str(k.shortName).rfind("nvjet", 0) == 0)
                gemms.emplace_back(k.start, k.end);
        QCOMPARE(gemms.size(), size_t(200));
        std::sort(gemms.begin(), gemms.end());
        int busy = 0, inside = 0;
        for (const auto& c : tensor) {
            if (c.value <= 50)
                continue;
            ++busy;
            auto it = std::upper_bound(gemms.begin(), gemms.end(), std::make_pair(c.ts, INT64_MAX));
            if (it != gemms.begin() && c.ts <= std::prev(it)->second + 25'000)
                ++inside;
        }
        qInfo("H200 PM: %zu samples/track, %d of %d tensor-busy samples inside a GEMM", tensor.size(), inside, busy);
        QVERIFY(busy > 100);
        QVERIFY(inside >= busy * 9 / 10);
    }

    void reportIgnoresOtherBenchRuns()
    {
        BenchRun other {1, "gemm", "cublas", "", "cuda-events-per-call", "warm", "us", "{}", 0, 0};
        const std::vector<BenchSample> samples {{1, 0, -1, 5.0}};
        QVERIFY(nvtxTimingSum({other}, samples).rows.empty());
    }
};

QTEST_GUILESS_MAIN(TestRecorderExtras)
#include "tst_recorder_extras.moc"
