// SPDX-License-Identifier: MIT
// `record --gpu-metrics` never loses samples silently (issue 23): the sampler's sizing from the
// period, its PmGap records and the gaps ingest finds itself between samples during a kernel
// become meta (count, total, longest, list) with the coverage of the kernel span, which the
// record summary and `info` put in words. Hand-built raw files through RawIngest, no GPU.
#include "core/ingest/rawingest.h"
#include "core/model/gpumetricsgaps.h"
#include "core/raw/pmsampling.h"

#include <QtTest>

#include <cmath>

#include <string>

using namespace ws;

namespace {

struct RawBuilder {
    std::string bytes;
    uint32_t strings = 0;

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
    // Back-to-back samples [from, to) every period, values 1, 2, 3.
    void samples(uint32_t device, int64_t from, int64_t to, int64_t period)
    {
        for (int64_t t = from; t + period <= to; t += period) {
            const double v[3] = {1, 2, 3};
            raw::PmSampleRecord r {t, t + period, device, 3};
            add(raw::RecordType::PmSample, r, std::string_view(reinterpret_cast<const char*>(v), sizeof v));
        }
    }
    void gap(uint32_t device, int64_t start, int64_t end, raw::PmGapReason why)
    {
        add(raw::RecordType::PmGap, raw::PmGapRecord {start, end, device, static_cast<uint32_t>(why)});
    }
    void kernel(uint32_t device, int64_t start, int64_t end)
    {
        const uint32_t id = ++strings;
        add(raw::RecordType::String, raw::StringDef {id, 0}, "k" + std::to_string(id));
        raw::KernelRecord k {};
        k.start = start;
        k.end = end;
        k.deviceId = device;
        k.name = id;
        k.correlationId = id;
        add(raw::RecordType::Kernel, k);
    }
    raw::RawFile file() const { return raw::RawFile::fromBytes(bytes, "built.raw"); }
};

SessionData ingest(RawBuilder b)
{
    RawIngest in;
    b.add(raw::RecordType::End, raw::EndRecord {});
    in.addFile(b.file());
    return in.finish();
}

std::string meta(const SessionData& s, const char* key)
{
    const auto it = s.meta.find(key);
    return it == s.meta.end() ? std::string("(none)") : it->second;
}

} // namespace

class TestGpuMetricsGaps : public QObject {
    Q_OBJECT

private slots:
    // The decode cadence, image and hardware buffer follow the period.
    void sizing_data()
    {
        QTest::addColumn<qulonglong>("periodNs");
        QTest::addColumn<qulonglong>("intervalNs");
        QTest::addColumn<uint>("imageSamples");
        QTest::addColumn<qulonglong>("hwBytes");
        // 128 periods per decode (1 .. 20 ms); the image holds 8 intervals + 2 samples (64 .. 2048).
        QTest::newRow("20us") << 20'000ull << 2'560'000ull << 1026u << (256ull << 20);
        QTest::newRow("1us: 1 ms floor, 2048 cap") << 1'000ull << 1'000'000ull << 2048u << (256ull << 20);
        QTest::newRow("100us") << 100'000ull << 12'800'000ull << 1026u << (128ull << 20);
        QTest::newRow("1 ms: 20 ms ceiling") << 1'000'000ull << 20'000'000ull << 162u << (128ull << 20);
        QTest::newRow("10 ms: 64-sample floor") << 10'000'000ull << 20'000'000ull << 64u << (128ull << 20);
    }
    void sizing()
    {
        QFETCH(qulonglong, periodNs);
        QFETCH(qulonglong, intervalNs);
        QFETCH(uint, imageSamples);
        QFETCH(qulonglong, hwBytes);
        const raw::PmSizing z = raw::pmSizing(periodNs, 0, 16);
        QCOMPARE(z.decodeIntervalNs, intervalNs);
        QCOMPARE(z.imageSamples, imageSamples);
        QCOMPARE(z.hardwareBufferBytes, hwBytes);
        QCOMPARE(z.evaluators, 2u); // 16 hardware threads / 8
        QCOMPARE(z.images, 3u);
        QCOMPARE(raw::pmSizing(periodNs, 0, 2).evaluators, 1u);
        QCOMPARE(raw::pmSizing(periodNs, 0, 64, 2).evaluators, 2u); // WS_PM_EVAL_THREADS
    }

    // --duration caps the image at what the whole collection needs (+50 % + 2).
    void sizingForShortDurations()
    {
        QCOMPARE(raw::pmSizing(20'000, 0.002, 16).imageSamples, 152u); // 100 samples
        QCOMPARE(raw::pmSizing(20'000, 0.0001, 16).imageSamples, 64u);
        QCOMPARE(raw::pmSizing(20'000, 10.0, 16).imageSamples, 1026u);
    }

    void gapTest()
    {
        QVERIFY(!raw::pmIsGap(1000, 1000, 20'000));
        QVERIFY(!raw::pmIsGap(1000, 11'000, 20'000));
        QVERIFY(raw::pmIsGap(1000, 11'001, 20'000));
    }

    void encodeDecode()
    {
        const std::vector<GpuMetricsGap> gaps {{12, 0, 100, 250, 1}, {-1, 3, 7, 9, 4}};
        const std::string text = encodeGpuMetricsGaps(gaps);
        QCOMPARE(text, std::string("12:0:100:250:1;-1:3:7:9:4"));
        QCOMPARE(decodeGpuMetricsGaps(text), gaps);
        // Malformed entries are skipped, the rest kept.
        QCOMPARE(decodeGpuMetricsGaps("x;12:0:100:250:1;1:2:3;5:0:9:8:1;1:0:1:2:1:9").size(), size_t(1));
        QVERIFY(decodeGpuMetricsGaps("").empty());
    }

    void coverage_data()
    {
        QTest::addColumn<std::vector<TimeNs>>("ts");
        QTest::addColumn<double>("percent");
        QTest::newRow("back to back") << std::vector<TimeNs> {0, 10, 20, 30, 40, 50, 60, 70, 80, 90} << 100.0;
        // 30..70 missing: samples at 20 and 70 are 50 apart, so 20 covers one period only.
        QTest::newRow("a hole") << std::vector<TimeNs> {0, 10, 20, 70, 80, 90} << 60.0;
        QTest::newRow("starting late") << std::vector<TimeNs> {50, 60, 70, 80, 90} << 50.0;
        QTest::newRow("none") << std::vector<TimeNs> {} << 0.0;
    }
    void coverage()
    {
        QFETCH(std::vector<TimeNs>, ts);
        QFETCH(double, percent);
        const GpuMetricsCoverage c = gpuMetricsCoverage(ts, 10, 0, 100);
        QCOMPARE(c.span, TimeNs(100));
        QCOMPARE(c.percent(), percent);
    }

    // Reported gaps (clipped to the first kept sample), gaps found between samples during a
    // kernel, none found between samples while no kernel ran; overlapping ones merge.
    void ingestGaps()
    {
        const int64_t p = 20'000;
        RawBuilder b(300);
        b.metrics(0, p);
        b.samples(0, 0, 1'000'000, p);         // first [0, 20 us) is dropped by ingest
        b.samples(0, 1'500'000, 2'000'000, p); // 1.0 .. 1.5 ms missing, a kernel runs: found
        b.samples(0, 3'000'000, 4'000'000, p); // 2.0 .. 3.0 ms missing, reported by the sampler
        b.samples(0, 5'000'000, 6'000'000, p); // 4.0 .. 5.0 ms missing, no kernel, not reported
        b.gap(0, 2'000'000, 3'000'000, raw::PmGapReason::Overflow);
        b.gap(0, 2'500'000, 3'000'000, raw::PmGapReason::Missing); // overlaps: merged
        b.gap(0, -50'000, 10'000, raw::PmGapReason::Missing);      // before the first kept sample
        b.kernel(0, 100'000, 1'800'000);
        b.kernel(0, 5'500'000, 5'900'000);
        const SessionData s = ingest(b);
        QCOMPARE(meta(s, gpumetricskey::kGaps), std::string("2"));
        QCOMPARE(meta(s, gpumetricskey::kGapNs), std::string("1500000"));
        QCOMPARE(meta(s, gpumetricskey::kGapLongestNs), std::string("1000000"));
        const auto list = decodeGpuMetricsGaps(meta(s, gpumetricskey::kGapList));
        QCOMPARE(list.size(), size_t(2));
        QCOMPARE(list[0], (GpuMetricsGap {300, 0, 1'000'000, 1'500'000, uint32_t(raw::PmGapReason::Missing)}));
        QCOMPARE(list[1], (GpuMetricsGap {300, 0, 2'000'000, 3'000'000, uint32_t(raw::PmGapReason::Overflow)}));
        // Kernel span 0.1 .. 5.9 ms (5.8 ms): samples cover 0.1-1.0, 1.5-2.0, 3.0-4.0, 5.0-5.9 ms.
        QCOMPARE(meta(s, gpumetricskey::kKernelSpanNs), std::string("5800000"));
        QCOMPARE(meta(s, gpumetricskey::kCoveragePct), std::string("56.90"));
    }

    void noGapsFullCoverage()
    {
        RawBuilder b(301);
        b.metrics(0, 20'000);
        b.samples(0, 0, 2'000'000, 20'000);
        b.kernel(0, 500'000, 1'500'000);
        const SessionData s = ingest(b);
        QCOMPARE(meta(s, gpumetricskey::kGaps), std::string("0"));
        QCOMPARE(meta(s, gpumetricskey::kGapList), std::string(""));
        QCOMPARE(meta(s, gpumetricskey::kCoveragePct), std::string("100.00"));
    }

    // A value CUPTI evaluated to NaN is left out (SQLite cannot store it), counted and warned.
    void notANumberLeftOut()
    {
        RawBuilder b(302);
        b.metrics(0, 50'000);
        b.samples(0, 0, 200'000, 50'000);
        const double v[3] = {1, std::nan(""), 3};
        b.add(raw::RecordType::PmSample, raw::PmSampleRecord {200'000, 250'000, 0, 3},
            std::string_view(reinterpret_cast<const char*>(v), sizeof v));
        RawIngest in;
        b.add(raw::RecordType::End, raw::EndRecord {});
        in.addFile(b.file());
        const SessionData s = in.finish();
        QCOMPARE(s.counterSamples.size(), size_t(3 * 3 + 2)); // first interval dropped
        for (const auto& c : s.counterSamples)
            QVERIFY(std::isfinite(c.value));
        QCOMPARE(meta(s, "gpu_metrics.not_a_number"), std::string("1"));
        QCOMPARE(meta(s, gpumetricskey::kSamples), std::string("4"));
        bool warned = false;
        for (const auto& w : in.warnings())
            warned = warned || w.find("1 GPU metric value(s) evaluated to NaN") != std::string::npos;
        QVERIFY(warned);
    }

    // What the record summary and `info` print.
    void describe()
    {
        std::map<std::string, std::string> m {{gpumetricskey::kSamples, "320000"}, {gpumetricskey::kPeriodNs, "20000"},
            {gpumetricskey::kCoveragePct, "97.50"}, {gpumetricskey::kKernelSpanNs, "6400000000"},
            {gpumetricskey::kGaps, "2"}, {gpumetricskey::kGapNs, "160000000"},
            {gpumetricskey::kGapLongestNs, "150000000"},
            {gpumetricskey::kGapList, "9:0:100:10000100:1;9:0:200000000:350000000:4"}};
        const std::map<std::string, std::string> env {
            {"gpu_metrics.stop_latency_ms", "0.412"}, {"gpu_metrics.drain_ms", "7.900"}};
        const auto lines = describeGpuMetrics(m, env);
        QCOMPARE(lines.size(), size_t(3));
        QCOMPARE(lines[0],
            std::string("320000 samples per track, every 20 us; they cover 97.50 % of the kernel span (6400.000 ms)"));
        QCOMPARE(lines[1],
            std::string("2 gap(s) without samples, 160.000 ms in all (longest 150.000 ms): not decoded before the "
                        "program exited, samples missing from the hardware buffer"));
        QCOMPARE(lines[2],
            std::string("sampling stopped 0.412 ms after the program's end; its last samples were written 7.900 ms "
                        "after it"));
        m[gpumetricskey::kGaps] = "0";
        QCOMPARE(describeGpuMetrics(m, {})[1], std::string("no gaps: no sample was lost"));
        QVERIFY(describeGpuMetrics({}, env).empty());
    }
};

QTEST_GUILESS_MAIN(TestGpuMetricsGaps)
#include "tst_gpu_metrics_gaps.moc"
