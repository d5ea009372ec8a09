// SPDX-License-Identifier: MIT
// core/bench: statistics against hand-computed values, drift detection, option and workload
// validation, declared work and throughput formulas, JSON and session round trips through
// the real SessionWriter / SessionReader.
#include "core/bench/benchjson.h"
#include "core/bench/benchoptions.h"
#include "core/bench/benchreport.h"
#include "core/bench/benchresult.h"
#include "core/bench/benchstats.h"
#include "core/bench/benchworkload.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

#include <cmath>
#include <functional>

using namespace ws;
using namespace ws::bench;

Q_DECLARE_METATYPE(std::vector<double>)
Q_DECLARE_METATYPE(ws::bench::DriftCheck::Trend)
Q_DECLARE_METATYPE(std::function<void(ws::bench::BenchOptions&)>)

namespace {

// A result with every field set to something other than its default, so a round trip that
// drops a field shows up as an inequality.
BenchResult sampleResult()
{
    BenchResult r;
    r.environment = {{"gpu.name", "NVIDIA H200"}, {"cuda.runtime_version", "13.0"}, {"host.name", "node-1"}};
    DeviceInfo d;
    d.id = 0;
    d.pid = 4242;
    d.name = "NVIDIA H200";
    d.uuid = "GPU-00112233-4455-6677-8899-aabbccddeeff";
    d.ccMajor = 9;
    d.smCount = 132;
    d.smClockKhz = 1980000;
    d.l2Bytes = 62914560;
    d.globalMemBytes = 150754820096;
    d.dramBandwidthBytesPerS = 4.8e12;
    r.devices.push_back(d);

    BenchRunResult a;
    a.workload = "copy";
    a.implementation = "memcpy";
    a.size = 32 << 20;
    a.dtype = "fp32";
    a.options.warmupMs = 25;
    a.options.repeat = 3;
    a.options.rounds = 2;
    a.options.cooldownMs = 1.5;
    a.options.rtol = 0;
    a.options.atol = 0;
    a.flushBytes = 256 << 20;
    a.boundary = "One call: one cudaMemcpyAsync device-to-device of 32 MiB.";
    a.workBytes = 2.0 * (32 << 20);
    a.throughputKind = ThroughputKind::Kernel;
    a.workText = "bytes read + bytes written";
    a.warmupCalls = 812;
    a.warmupElapsedMs = 24.75;
    a.warmupChunks = {40.5, 31.25, 30.125};
    a.rounds = {30.0, 31.0};
    a.calls = {{29.5, 30.0, 30.5}, {31.0, 30.75, 31.25}};
    a.roundPositions = {0, 1};
    a.check = {true, true, 4096, 8388608, 0, 0, 0, 0, "the source buffer as uploaded"};
    a.warnings = {"later rounds are 3.33% slower"};

    BenchRunResult b = a;
    b.implementation = "copy-kernel";
    b.options.cache = CachePolicy::Warm;
    b.options.timer = TimerKind::CudaEventsPerBatch;
    b.options.warmupMs.reset();
    b.options.warmupCalls = 500;
    b.options.alternate = false;
    b.flushBytes = 0;
    b.rounds = {12.5, 12.25};
    b.calls.clear();
    b.roundPositions = {1, 0};
    b.warnings.clear();
    r.runs = {a, b};
    return r;
}

} // namespace

class TestBench : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stats_data()
    {
        QTest::addColumn<std::vector<double>>("samples");
        QTest::addColumn<double>("median");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<double>("stddev");
        QTest::addColumn<double>("p05");
        QTest::addColumn<double>("p95");
        // mean 2.5; squared deviations 2.25 + 0.25 + 0.25 + 2.25 = 5, / (n-1) = 5/3, sqrt = 1.290994;
        // p05: position 0.05 x 3 = 0.15 -> 1 + 0.15 = 1.15; p95: position 2.85 -> 3.85.
        QTest::newRow("even count") << std::vector<double> {1, 2, 3, 4} << 2.5 << 2.5 << 1.0 << 4.0
                                    << std::sqrt(5.0 / 3.0) << 1.15 << 3.85;
        // Unsorted input; deviations -1, 0, 1 -> variance 2/2 = 1; p05: position 0.1 -> 1.1.
        QTest::newRow("unsorted odd") << std::vector<double> {3, 1, 2} << 2.0 << 2.0 << 1.0 << 3.0 << 1.0 << 1.1 << 2.9;
        // One outlier moves the mean (1400 / 5 = 280) but not the median (100). Deviations
        // -180, -179, -181, -180, 720: squares sum to 648002, / 4 = 162000.5, sqrt = 402.49286;
        // sorted 99 100 100 101 1000: p05 position 0.2 -> 99.2; p95 position 3.8 -> 101 + 0.8 x 899 = 820.2.
        QTest::newRow("outlier") << std::vector<double> {100, 101, 99, 100, 1000} << 100.0 << 280.0 << 99.0 << 1000.0
                                 << std::sqrt(162000.5) << 99.2 << 820.2;
        QTest::newRow("single") << std::vector<double> {5} << 5.0 << 5.0 << 5.0 << 5.0 << 0.0 << 5.0 << 5.0;
        QTest::newRow("constant") << std::vector<double> {7, 7, 7, 7} << 7.0 << 7.0 << 7.0 << 7.0 << 0.0 << 7.0 << 7.0;
    }

    void stats()
    {
        QFETCH(std::vector<double>, samples);
        QFETCH(double, median);
        QFETCH(double, mean);
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(double, stddev);
        QFETCH(double, p05);
        QFETCH(double, p95);
        const auto s = computeStats(samples);
        QCOMPARE(s.count, samples.size());
        QCOMPARE(s.median, median);
        QCOMPARE(s.mean, mean);
        QCOMPARE(s.min, min);
        QCOMPARE(s.max, max);
        QVERIFY(std::fabs(s.stddev - stddev) < 1e-9);
        QVERIFY(std::fabs(s.cov - (mean != 0 ? stddev / mean : 0)) < 1e-12);
        QVERIFY(std::fabs(s.p05 - p05) < 1e-9);
        QVERIFY(std::fabs(s.p95 - p95) < 1e-9);
        QCOMPARE(bench::median(samples), median);
    }

    void statsEmpty()
    {
        const auto s = computeStats({});
        QCOMPARE(s.count, size_t(0));
        QCOMPARE(s.median, 0.0);
        QCOMPARE(s.cov, 0.0);
    }

    void covOfCloseSamples()
    {
        // Samples around 1e6 with a spread of 1: a one-pass variance would cancel
        // catastrophically; two-pass gives stddev = 1 exactly (deviations -1, 0, 1).
        const std::vector<double> v {1e6 - 1, 1e6, 1e6 + 1};
        const auto s = computeStats(v);
        QVERIFY(std::fabs(s.stddev - 1.0) < 1e-9);
        QVERIFY(std::fabs(s.cov - 1e-6) < 1e-15);
    }

    void bootstrap()
    {
        std::vector<double> v;
        for (int i = 0; i < 101; ++i)
            v.push_back(100.0 + (i % 10)); // values 100..109, median 104
        const auto a = bootstrapMedianInterval(v, 0.95, 500, 7);
        const auto b = bootstrapMedianInterval(v, 0.95, 500, 7);
        QCOMPARE(a.low, b.low); // deterministic for a seed
        QCOMPARE(a.high, b.high);
        QVERIFY(a.low <= 104.0 && 104.0 <= a.high);
        QVERIFY(a.low >= 100.0 && a.high <= 109.0);
        QVERIFY(a.high - a.low < 9.0); // narrower than the range of the data
        const auto single = bootstrapMedianInterval(std::vector<double> {3.0});
        QCOMPARE(single.low, 3.0);
        QCOMPARE(single.high, 3.0);
    }

    void drift_data()
    {
        QTest::addColumn<std::vector<double>>("series");
        QTest::addColumn<double>("tolerance");
        QTest::addColumn<DriftCheck::Trend>("trend");
        QTest::addColumn<double>("earlyVsRest");
        using T = DriftCheck::Trend;
        QTest::newRow("flat") << std::vector<double>(8, 10.0) << 0.02 << T::Stable << 0.0;
        // n = 8, first quarter = 2 values: median(12, 11) = 11.5 vs median of the rest 10 -> +15%.
        QTest::newRow("early rounds falling")
            << std::vector<double> {12, 11, 10, 10, 10, 10, 10, 10} << 0.02 << T::Falling << 0.15;
        // Early median 10 vs rest 10 -> 0; last quarter median(11, 12) = 11.5 vs before 10 -> rising.
        QTest::newRow("late rounds rising")
            << std::vector<double> {10, 10, 10, 10, 10, 10, 11, 12} << 0.02 << T::Rising << 0.0;
        // +-1% noise stays under a 2% tolerance: early median(10, 10.1) = 10.05 vs rest
        // median(9.9, 10, 10.05, 9.95, 10, 10) = 10 -> +0.5%.
        QTest::newRow("noise under tolerance")
            << std::vector<double> {10, 10.1, 9.9, 10, 10.05, 9.95, 10, 10} << 0.02 << T::Stable << 0.005;
        // A single slow first round among 12: first quarter median(20, 10, 10) = 10 -> stable.
        QTest::newRow("one outlier is not drift")
            << std::vector<double> {20, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10} << 0.02 << T::Stable << 0.0;
        // Same falling series, tolerance above the 15% change.
        QTest::newRow("tolerance decides")
            << std::vector<double> {12, 11, 10, 10, 10, 10, 10, 10} << 0.2 << T::Stable << 0.15;
        QTest::newRow("too few") << std::vector<double> {12, 10, 10} << 0.02 << T::TooFewSamples << 0.0;
    }

    void drift()
    {
        QFETCH(std::vector<double>, series);
        QFETCH(double, tolerance);
        QFETCH(DriftCheck::Trend, trend);
        QFETCH(double, earlyVsRest);
        const auto d = checkDrift(series, tolerance);
        QCOMPARE(trendName(d.trend), trendName(trend));
        QVERIFY2(std::fabs(d.earlyVsRest - earlyVsRest) < 1e-12, qPrintable(QString::number(d.earlyVsRest)));
    }

    void driftSlope()
    {
        // 10, 11, ..., 17: every pairwise slope is 1 per step; overall median 13.5 -> 1/13.5.
        std::vector<double> v;
        for (int i = 0; i < 8; ++i)
            v.push_back(10 + i);
        QVERIFY(std::fabs(checkDrift(v, 0.02).slopePerStep - 1.0 / 13.5) < 1e-12);
        // A long series is binned before Theil-Sen; a linear ramp keeps its slope.
        std::vector<double> longRamp;
        for (int i = 0; i < 1000; ++i)
            longRamp.push_back(1000.0 - i * 0.5);
        const auto d = checkDrift(longRamp, 0.02);
        QVERIFY2(std::fabs(d.slopePerStep - (-0.5 / 750.25)) < 1e-4 * 0.5 / 750.25 * 10,
            qPrintable(QString::number(d.slopePerStep, 'g', 10)));
        QCOMPARE(trendName(d.trend), "falling");
    }

    void driftWarningsFromRuns()
    {
        BenchRunResult run;
        run.options.driftTolerance = 0.02;
        run.rounds = {12, 11, 10, 10, 10, 10, 10, 10};
        // Warm-up: first chunks slow (ignored), second half flat.
        run.warmupChunks = {50, 20, 15, 12, 10, 10, 10, 10, 10, 10};
        auto w = driftWarnings(run);
        QCOMPARE(w.size(), size_t(1));
        QVERIFY(QString::fromStdString(w[0]).startsWith("rounds still falling"));
        QVERIFY(QString::fromStdString(w[0]).contains("15.00%"));
        // Second half of the warm-up still falling: 14, 13, 10, 10, 10 -> median(14) vs median(13, 10, 10, 10)
        // = 10 -> +40% with k = 1.
        run.warmupChunks = {50, 40, 30, 20, 15, 14, 13, 10, 10, 10};
        run.rounds = std::vector<double>(8, 10.0);
        w = driftWarnings(run);
        QCOMPARE(w.size(), size_t(1));
        QVERIFY(QString::fromStdString(w[0]).startsWith("warm-up: the time per call was still falling"));
    }

    void validation_data()
    {
        QTest::addColumn<std::function<void(BenchOptions&)>>("change");
        QTest::addColumn<QString>("error"); // empty: valid
        using F = std::function<void(BenchOptions&)>;
        QTest::newRow("defaults") << F([](BenchOptions&) {}) << QString();
        QTest::newRow("warm batch") << F([](BenchOptions& o) {
            o.cache = CachePolicy::Warm;
            o.timer = TimerKind::CudaEventsPerBatch;
        }) << QString();
        QTest::newRow("flush in batch") << F([](BenchOptions& o) { o.timer = TimerKind::CudaEventsPerBatch; })
                                        << "--cache flush cannot be combined with --timer cuda-events-per-batch";
        QTest::newRow("both warm-ups") << F([](BenchOptions& o) {
            o.warmupMs = 10;
            o.warmupCalls = 10;
        }) << "not both";
        QTest::newRow("negative warm-up") << F([](BenchOptions& o) { o.warmupMs = -1; }) << "--warmup-ms must be";
        QTest::newRow("nan warm-up") << F([](BenchOptions& o) { o.warmupMs = std::nan(""); }) << "--warmup-ms must be";
        QTest::newRow("negative warm-up calls")
            << F([](BenchOptions& o) { o.warmupCalls = -5; }) << "--warmup-calls must be >= 0";
        QTest::newRow("zero warm-up allowed") << F([](BenchOptions& o) { o.warmupCalls = 0; }) << QString();
        QTest::newRow("repeat 0") << F([](BenchOptions& o) { o.repeat = 0; }) << "--repeat";
        QTest::newRow("rounds 0") << F([](BenchOptions& o) { o.rounds = 0; }) << "--rounds must be >= 1";
        QTest::newRow("cooldown") << F([](BenchOptions& o) { o.cooldownMs = -2; }) << "--cooldown-ms";
        QTest::newRow("rtol") << F([](BenchOptions& o) { o.rtol = -1e-3; }) << "--rtol";
        QTest::newRow("atol inf") << F([](BenchOptions& o) { o.atol = INFINITY; }) << "--atol";
        QTest::newRow("drift tolerance") << F([](BenchOptions& o) { o.driftTolerance = 0; }) << "drift tolerance";
        QTest::newRow("flush bytes with warm") << F([](BenchOptions& o) {
            o.cache = CachePolicy::Warm;
            o.flushBytes = 1 << 30;
        }) << "--flush-bytes applies to --cache flush only";
        QTest::newRow("batch of one") << F([](BenchOptions& o) {
            o.cache = CachePolicy::Warm;
            o.timer = TimerKind::CudaEventsPerBatch;
            o.repeat = 1;
        }) << "needs --repeat >= 2";
    }

    void validation()
    {
        QFETCH(std::function<void(BenchOptions&)>, change);
        QFETCH(QString, error);
        BenchOptions o;
        change(o);
        const auto errors = validationErrors(o);
        if (error.isEmpty()) {
            QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
            validate(o); // does not throw
            return;
        }
        QVERIFY(!errors.empty());
        bool found = false;
        for (const auto& e : errors)
            found = found || QString::fromStdString(e).contains(error);
        QVERIFY2(found, qPrintable(QString::fromStdString(errors.front())));
        try {
            validate(o);
            QFAIL("validate() accepted invalid options");
        } catch (const BenchOptionError& e) {
            QVERIFY(QString::fromUtf8(e.what()).contains(error));
            QVERIFY(!QString::fromUtf8(e.what()).contains('\n')); // one line
        }
    }

    void deviceValidation()
    {
        BenchOptions o;
        const int64_t l2 = int64_t(50) << 20;
        QVERIFY(deviceValidationErrors(o, l2).empty());
        QCOMPARE(o.resolvedFlushBytes(l2), int64_t(256) << 20);                 // default: 256 MiB
        QCOMPARE(o.resolvedFlushBytes(int64_t(200) << 20), int64_t(400) << 20); // or 2 x L2 when larger
        o.flushBytes = int64_t(64) << 20;
        const auto errors = deviceValidationErrors(o, l2);
        QCOMPARE(errors.size(), size_t(1));
        QCOMPARE(QString::fromStdString(errors[0]),
            "--flush-bytes 64 MiB is smaller than 2 x L2 (2 x 50 MiB): the flush would leave part of the "
            "previous call's data in L2");
        o.flushBytes = int64_t(100) << 20;
        QVERIFY(deviceValidationErrors(o, l2).empty());
    }

    void byteSizes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("bytes"); // -1: rejected
        QTest::newRow("plain") << "4096" << qint64(4096);
        QTest::newRow("M") << "32M" << qint64(32) * 1024 * 1024;
        QTest::newRow("MiB") << "24MiB" << qint64(24) * 1024 * 1024;
        QTest::newRow("GiB spaced") << " 1 GiB " << (qint64(1) << 30);
        QTest::newRow("fraction") << "1.5k" << qint64(1536);
        QTest::newRow("fraction not whole") << "1.3" << qint64(-1);
        QTest::newRow("bad suffix") << "12q" << qint64(-1);
        QTest::newRow("negative") << "-5" << qint64(-1);
        QTest::newRow("empty") << "" << qint64(-1);
        QTest::newRow("words") << "big" << qint64(-1);
    }

    void byteSizes()
    {
        QFETCH(QString, text);
        QFETCH(qint64, bytes);
        const auto parsed = parseByteSize(text.toStdString());
        if (bytes < 0) {
            QVERIFY(!parsed);
            return;
        }
        QVERIFY(parsed);
        QCOMPARE(*parsed, bytes);
    }

    void formatBytes()
    {
        QCOMPARE(bench::formatBytes(int64_t(256) << 20), std::string("256 MiB"));
        QCOMPARE(bench::formatBytes(int64_t(2) << 30), std::string("2 GiB"));
        QCOMPARE(bench::formatBytes(1536), std::string("1536 B")); // 1.5 KiB is not a whole KiB
        QCOMPARE(bench::formatBytes(3072), std::string("3 KiB"));
        QCOMPARE(bench::formatBytes(1000), std::string("1000 B"));
    }

    void workloads_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<QString>("size"); // "" = default
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QStringList>("impls");
        QTest::addColumn<QString>("error"); // empty: valid
        QTest::addColumn<qint64>("resolvedSize");
        QTest::newRow("gemm default") << "gemm"
                                      << ""
                                      << "" << QStringList() << "" << qint64(4096);
        QTest::newRow("gemm fp16") << "gemm"
                                   << "2048"
                                   << "fp16" << QStringList() << "" << qint64(2048);
        QTest::newRow("copy 24M") << "copy"
                                  << "24M"
                                  << "" << QStringList {"memcpy"} << "" << qint64(24) * 1024 * 1024;
        QTest::newRow("unknown") << "conv"
                                 << ""
                                 << "" << QStringList()
                                 << "unknown workload 'conv' (known: gemm, gemm-relu, copy, multistream, pdl)"
                                 << qint64(0);
        QTest::newRow("dtype") << "gemm"
                               << ""
                               << "int8" << QStringList() << "gemm supports --dtype bf16, fp16, fp32; got 'int8'"
                               << qint64(0);
        QTest::newRow("copy dtype") << "copy"
                                    << ""
                                    << "bf16" << QStringList() << "copy supports --dtype fp32" << qint64(0);
        QTest::newRow("size text") << "gemm"
                                   << "huge"
                                   << "" << QStringList() << "--size 'huge' is not a size" << qint64(0);
        QTest::newRow("gemm too small") << "gemm"
                                        << "8"
                                        << "" << QStringList() << "out of range for gemm (16 to 32768)" << qint64(0);
        QTest::newRow("gemm multiple") << "gemm"
                                       << "1001"
                                       << "" << QStringList() << "--size 1001 for gemm must be a multiple of 8"
                                       << qint64(0);
        QTest::newRow("copy multiple") << "copy"
                                       << "1000"
                                       << "" << QStringList() << "must be a multiple of 16 bytes" << qint64(0);
        QTest::newRow("impl") << "pdl"
                              << ""
                              << "" << QStringList {"fast"}
                              << "workload pdl has no implementation 'fast' (it has: pdl, serialized)" << qint64(0);
        QTest::newRow("impl twice") << "pdl"
                                    << ""
                                    << "" << QStringList {"pdl", "pdl"} << "is named twice" << qint64(0);
    }

    void workloads()
    {
        QFETCH(QString, workload);
        QFETCH(QString, size);
        QFETCH(QString, dtype);
        QFETCH(QStringList, impls);
        QFETCH(QString, error);
        QFETCH(qint64, resolvedSize);
        std::vector<std::string> implementations;
        for (const auto& i : impls)
            implementations.push_back(i.toStdString());
        const std::string sizeText = size.toStdString();
        const std::string dtypeText = dtype.toStdString();
        const auto call = [&] {
            return resolveWorkload(workload.toStdString(),
                size.isEmpty() ? std::nullopt : std::optional<std::string_view>(sizeText),
                dtype.isEmpty() ? std::nullopt : std::optional<std::string_view>(dtypeText), implementations);
        };
        if (error.isEmpty()) {
            const auto c = call();
            QCOMPARE(c.workload, workload.toStdString());
            QCOMPARE(c.size, resolvedSize);
            QVERIFY(!c.dtype.empty());
            QCOMPARE(c.implementations, implementations);
            return;
        }
        try {
            call();
            QFAIL("accepted");
        } catch (const BenchOptionError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(error), e.what());
        }
    }

    void declaredWork_data()
    {
        QTest::addColumn<QString>("workload");
        QTest::addColumn<qint64>("size");
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<QString>("impl");
        QTest::addColumn<int>("timer");
        QTest::addColumn<double>("flops");
        QTest::addColumn<double>("bytes");
        QTest::addColumn<QString>("kind");
        // 2 x 4096^3 = 137438953472 FLOP; A, B, C of 4096^2 bf16 = 3 x 33554432 bytes.
        QTest::newRow("gemm bf16") << "gemm" << qint64(4096) << "bf16"
                                   << "cublas" << int(TimerKind::CudaEventsPerCall) << 137438953472.0 << 100663296.0
                                   << "kernel";
        // Same FLOPs over GEMM + ReLU: effective; ReLU adds a read and a write of C.
        QTest::newRow("gemm-relu") << "gemm-relu" << qint64(4096) << "bf16"
                                   << "cublas+relu" << int(TimerKind::CudaEventsPerCall) << 137438953472.0
                                   << 167772160.0 << "effective";
        // fp32: 4 bytes per element.
        QTest::newRow("gemm fp32") << "gemm" << qint64(1024) << "fp32"
                                   << "cublas" << int(TimerKind::CudaEventsPerBatch) << 2147483648.0 << 12582912.0
                                   << "kernel";
        // The wall clock includes launch and synchronization: never a kernel rate.
        QTest::newRow("gemm wallclock") << "gemm" << qint64(4096) << "bf16"
                                        << "cublas" << int(TimerKind::WallclockSyncPerCall) << 137438953472.0
                                        << 100663296.0 << "effective";
        QTest::newRow("copy") << "copy" << qint64(32 << 20) << "fp32"
                              << "memcpy" << int(TimerKind::CudaEventsPerCall) << 0.0 << 67108864.0 << "kernel";
        // 7 arrays of n floats move through memory.
        QTest::newRow("multistream") << "multistream" << qint64(1 << 20) << "fp32"
                                     << "two-streams" << int(TimerKind::CudaEventsPerCall) << 0.0 << 29360128.0
                                     << "effective";
        QTest::newRow("pdl") << "pdl" << qint64(1 << 20) << "fp32"
                             << "pdl" << int(TimerKind::CudaEventsPerCall) << 0.0 << 20971520.0 << "effective";
    }

    void declaredWork()
    {
        QFETCH(QString, workload);
        QFETCH(qint64, size);
        QFETCH(QString, dtype);
        QFETCH(QString, impl);
        QFETCH(int, timer);
        QFETCH(double, flops);
        QFETCH(double, bytes);
        QFETCH(QString, kind);
        WorkloadConfig c {workload.toStdString(), size, dtype.toStdString(), {}};
        const auto w = bench::declaredWork(c, impl.toStdString(), static_cast<TimerKind>(timer));
        QCOMPARE(w.flops, flops);
        QCOMPARE(w.bytes, bytes);
        QCOMPARE(QString::fromStdString(std::string(throughputKindKey(w.kind))), kind);
        QVERIFY(!w.operation.empty());
        QVERIFY(!w.workText.empty());
    }

    void boundaryText()
    {
        const auto batch = describeBoundary("one GEMM", TimerKind::CudaEventsPerBatch, CachePolicy::Warm, 100, 0);
        QVERIFY(batch.find("One call: one GEMM.") == 0);
        QVERIFY(batch.find("before the first and after the last of 100 back-to-back calls") != std::string::npos);
        QVERIFY(batch.find("Cache: warm") != std::string::npos);
        const auto flush
            = describeBoundary("one GEMM", TimerKind::CudaEventsPerCall, CachePolicy::Flush, 100, int64_t(256) << 20);
        QVERIFY(flush.find("a 256 MiB buffer (at least 2 x L2) is written on the timing stream, before the start "
                           "event (outside the interval)")
            != std::string::npos);
        const auto wall
            = describeBoundary("one GEMM", TimerKind::WallclockSyncPerCall, CachePolicy::Flush, 10, int64_t(256) << 20);
        QVERIFY(wall.find("host steady clock") != std::string::npos);
        QVERIFY(wall.find("synchronized before the clock starts") != std::string::npos);
        // The three timers never share a label.
        QVERIFY(timerLabel(TimerKind::CudaEventsPerBatch) != timerLabel(TimerKind::CudaEventsPerCall));
        QVERIFY(timerLabel(TimerKind::CudaEventsPerCall) != timerLabel(TimerKind::WallclockSyncPerCall));
        QVERIFY(timerShortLabel(TimerKind::CudaEventsPerBatch) != timerShortLabel(TimerKind::WallclockSyncPerCall));
        for (auto t : {TimerKind::CudaEventsPerBatch, TimerKind::CudaEventsPerCall, TimerKind::WallclockSyncPerCall})
            QCOMPARE(*timerFromKey(timerKey(t)), t);
        QVERIFY(!timerFromKey("proton"));
    }

    void throughput()
    {
        BenchRunResult run;
        run.unit = "us";
        run.workFlops = 137438953472.0; // 2 x 4096^3
        run.workBytes = 100663296.0;
        run.throughputKind = ThroughputKind::Kernel;
        run.workText = "2 x 4096 x 4096 x 4096 FLOP";
        // 137438953472 / 175 us / 1e6 = 785.365 TFLOP/s; 100663296 / 175 / 1e3 = 575.2 GB/s.
        const auto f = throughputFigures(run, 175.0);
        QCOMPARE(f.size(), size_t(2));
        QCOMPARE(f[0].unit, std::string("TFLOP/s"));
        QVERIFY(std::fabs(f[0].value - 785.3654484114286) < 1e-9);
        QCOMPARE(QString::fromStdString(f[0].formula),
            "TFLOP/s = FLOP / t_us / 10^6 = 1.37439e+11 / 175.0000 / 10^6 = 785.4 (kernel throughput; work: 2 x "
            "4096 x 4096 x 4096 FLOP)");
        QCOMPARE(f[1].unit, std::string("GB/s"));
        QVERIFY(std::fabs(f[1].value - 575.21883428571) < 1e-6);
        // The same time in ms gives the same figure; an effective run says so.
        run.unit = "ms";
        run.throughputKind = ThroughputKind::Effective;
        const auto g = throughputFigures(run, 0.175);
        QVERIFY(std::fabs(g[0].value - f[0].value) < 1e-9);
        QVERIFY(QString::fromStdString(g[0].formula).contains("effective throughput"));
        run.unit = "furlongs";
        QVERIFY(throughputFigures(run, 1.0).empty());
    }

    void summaryUsesCallsWhenPresent()
    {
        const auto r = sampleResult();
        const auto perCall = summarize(r.runs[0]);
        QCOMPARE(perCall.stats.count, size_t(6));
        // Calls 29.5 30 30.5 31 30.75 31.25 -> sorted 29.5 30 30.5 30.75 31 31.25: median (30.5 + 30.75) / 2.
        QCOMPARE(perCall.stats.median, 30.625);
        QCOMPARE(perCall.roundStats.count, size_t(2));
        QVERIFY(perCall.basis.find("6 per-call samples in 2 rounds") != std::string::npos);
        const auto batch = summarize(r.runs[1]);
        QCOMPARE(batch.stats.count, size_t(2));
        QCOMPARE(batch.stats.median, 12.375);
        QVERIFY(batch.basis.find("2 round values, each the mean of 3 back-to-back calls") != std::string::npos);
        const auto text = formatReport(r);
        QVERIFY(text.find("copy / memcpy") != std::string::npos);
        QVERIFY(text.find(std::string(timerLabel(TimerKind::CudaEventsPerBatch))) != std::string::npos);
        QVERIFY(text.find("WARNING:   later rounds are 3.33% slower") != std::string::npos);
    }

    void jsonRoundTrip()
    {
        const auto r = sampleResult();
        const auto text = toJson(r);
        const auto back = benchResultFromJson(text, "result.json");
        QVERIFY(back == r);
        // Doubles survive exactly.
        BenchResult odd = r;
        odd.runs[0].rounds = {0.1 + 0.2, 1.0 / 3.0};
        odd.runs[0].calls[1] = {1e-300, 123456789.123456789, 2.0 / 3.0};
        QVERIFY(benchResultFromJson(toJson(odd), "x") == odd);
    }

    void jsonRequestAndFailure()
    {
        BenchRequest req;
        req.workload = {"gemm", 4096, "bf16", {"cublas"}};
        req.options.timer = TimerKind::CudaEventsPerBatch;
        req.options.cache = CachePolicy::Warm;
        req.options.warmupCalls = 500;
        req.device = 1;
        QVERIFY(requestFromJson(requestToJson(req), "req.json") == req);
        const BenchFailure f {"correctness", "implementation 'x' fails"};
        const auto parsed = failureFromJson(failureToJson(f));
        QVERIFY(parsed);
        QVERIFY(*parsed == f);
        QVERIFY(!failureFromJson(toJson(sampleResult())));
        QVERIFY(!failureFromJson("not json"));
    }

    void jsonErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "{\"format\": "
                                  << "result.json: not valid JSON at offset";
        QTest::newRow("array") << "[1, 2]"
                               << "result.json: expected a JSON object";
        QTest::newRow("format") << R"({"format": "other", "version": 1})"
                                << "result.json: $.format: expected 'warpscope-bench'";
        QTest::newRow("version") << R"({"format": "warpscope-bench", "version": 9})"
                                 << "result.json: $.version: unsupported version 9";
        QTest::newRow("runs missing")
            << R"({"format": "warpscope-bench", "version": 1, "environment": {}, "devices": []})"
            << "result.json: $: missing field 'runs'";
        QTest::newRow("env value")
            << R"({"format": "warpscope-bench", "version": 1, "environment": {"a": 1}, "devices": [], "runs": []})"
            << "result.json: $.environment.a: expected a string";
        QTest::newRow("run field")
            << R"({"format": "warpscope-bench", "version": 1, "environment": {}, "devices": [], "runs": [{"workload": 3}]})"
            << "result.json: $.runs[0].workload: expected a string";
    }

    void jsonErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        try {
            benchResultFromJson(text.toStdString(), "result.json");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(error), e.what());
        }
    }

    void jsonSampleMismatch()
    {
        auto r = sampleResult();
        r.runs[0].calls.pop_back(); // 1 round of calls for 2 rounds
        try {
            benchResultFromJson(toJson(r), "r.json");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("$.runs[0].calls: has 1 rounds but rounds has 2"), e.what());
        }
    }

    void sessionMapping()
    {
        const auto r = sampleResult();
        const auto data = toSessionData(r);
        QCOMPARE(data.meta.at("kind"), std::string("bench"));
        QCOMPARE(data.benchRuns.size(), size_t(2));
        const auto& a = data.benchRuns[0];
        QCOMPARE(a.id, 1u);
        QCOMPARE(a.workload, std::string("copy"));
        QCOMPARE(a.implementation, std::string("memcpy"));
        QCOMPARE(a.timer, std::string("cuda-events-per-call"));
        QCOMPARE(a.cachePolicy, std::string("flush"));
        QCOMPARE(a.unit, std::string("us"));
        QCOMPARE(a.workBytes, 2.0 * (32 << 20));
        QCOMPARE(data.benchRuns[1].timer, std::string("cuda-events-per-batch"));
        QCOMPARE(data.benchRuns[1].cachePolicy, std::string("warm"));
        // Run 1: 2 round rows (call -1) + 6 call rows; run 2: 2 round rows.
        QCOMPARE(data.benchSamples.size(), size_t(10));
        int roundRows = 0;
        for (const auto& s : data.benchSamples)
            roundRows += s.call == -1;
        QCOMPARE(roundRows, 4);
        QVERIFY(benchResultFromSession(data, "mem") == r);
    }

    void sessionFileRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto path = dir.filePath("bench.wscope").toStdString();
        const auto r = sampleResult();
        {
            SessionWriter w(path);
            attachLaneCache(w);
            w.write(toSessionData(r));
            w.commit();
        }
        const SessionReader reader(path);
        const auto counts = reader.tableCounts();
        QCOMPARE(counts.at("bench_run"), int64_t(2));
        QCOMPARE(counts.at("bench_sample"), int64_t(10));
        const auto data = reader.readAll();
        QCOMPARE(data.meta.at("kind"), std::string("bench"));
        QCOMPARE(reader.meta().at("complete"), std::string("1"));
        const auto back = benchResultFromSession(data, path);
        QVERIFY(back == r);
    }

    void sessionErrors()
    {
        SessionData empty;
        try {
            benchResultFromSession(empty, "a.wscope");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), "a.wscope: the session holds no benchmark runs");
        }
        auto data = toSessionData(sampleResult());
        data.benchSamples.push_back({99, 0, -1, 1.0});
        try {
            benchResultFromSession(data, "b.wscope");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QCOMPARE(
                QString::fromUtf8(e.what()), "b.wscope: bench_sample refers to bench_run 99, which does not exist");
        }
        data = toSessionData(sampleResult());
        data.benchRuns[0].timer = "sundial";
        try {
            benchResultFromSession(data, "c.wscope");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), "c.wscope: bench_run 1: unknown timer 'sundial'");
        }
        data = toSessionData(sampleResult());
        data.benchRuns[1].optionsJson = "{}";
        try {
            benchResultFromSession(data, "d.wscope");
            QFAIL("accepted");
        } catch (const BenchFormatError& e) {
            QCOMPARE(QString::fromUtf8(e.what()), "d.wscope: bench_run 2: options_json: missing field 'size'");
        }
    }

    void defaultTolerances()
    {
        QCOMPARE(defaultTolerance({"copy", 1024, "fp32", {}}).rtol, 0.0);
        QCOMPARE(defaultTolerance({"copy", 1024, "fp32", {}}).atol, 0.0);
        QCOMPARE(defaultTolerance({"gemm", 4096, "bf16", {}}).rtol, 2e-2);
        QCOMPARE(defaultTolerance({"gemm-relu", 4096, "bf16", {}}).atol, 1e-2);
        QVERIFY(defaultTolerance({"gemm", 4096, "fp32", {}}).rtol < defaultTolerance({"gemm", 4096, "fp16", {}}).rtol);
    }
};

QTEST_GUILESS_MAIN(TestBench)
#include "tst_bench.moc"
