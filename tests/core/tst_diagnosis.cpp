// SPDX-License-Identifier: MIT
// Diagnosis (core/diagnosis): seed 003's five example kernels go through the whole chain
// (ncu metric names -> KernelFacts -> rules) and must produce the seed's findings and numbers;
// ncu's Est. Speedup formulas on seed 000's B200 GEMM figures; the session-level rules; and
// the metrics store round trip through a real session file.
#include "core/diagnosis/diagnosis.h"
#include "core/metrics/kernelmetrics.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

using namespace ws;

namespace {

// Seed 003 ("profiling GPU code") reads its reports against H100 SXM peaks.
DeviceInfo h100Seed()
{
    DeviceInfo d;
    d.name = "seed H100 SXM";
    d.peakBf16TensorFlopsPerS = 989e12;
    d.peakFp32FlopsPerS = 67e12;
    d.dramBandwidthBytesPerS = 3.35e12;
    return d;
}

struct SeedReport {
    double durationUs;
    double flops;
    bool tensor;
    double dramBytes;
    double smPct;
    double memPct;
    double occupancyPct;
    double sectorsPerRequest;
};

KernelMetrics metricsOf(const SeedReport& r)
{
    KernelMetrics m;
    m.set("gpu__time_duration.sum", r.durationUs, "usecond");
    m.set(r.tensor ? "sm__ops_path_tensor_src_bf16_dst_fp32.sum" : "derived__fp32_flop", r.flops, "flop");
    m.set("dram__bytes.sum", r.dramBytes / 1e6, "Mbyte");
    m.set("sm__throughput.avg.pct_of_peak_sustained_elapsed", r.smPct, "%");
    m.set("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", r.memPct, "%");
    m.set("sm__warps_active.avg.pct_of_peak_sustained_active", r.occupancyPct, "%");
    m.set("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1000);
    m.set("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1000 * r.sectorsPerRequest);
    return m;
}

QString kindName(FindingKind k)
{
    switch (k) {
    case FindingKind::OverheadBound:
        return "overhead";
    case FindingKind::ManyTinyKernels:
        return "many-tiny";
    case FindingKind::TinyKernel:
        return "tiny";
    case FindingKind::SmallGrid:
        return "small-grid";
    case FindingKind::LowOccupancy:
        return "low-occupancy";
    case FindingKind::AchievedOccupancy:
        return "achieved-occupancy";
    case FindingKind::RooflinePosition:
        return "roofline";
    case FindingKind::ComputeBound:
        return "compute";
    case FindingKind::MemoryBound:
        return "memory";
    case FindingKind::LatencyBound:
        return "latency";
    case FindingKind::Uncoalesced:
        return "uncoalesced";
    case FindingKind::IssueStarved:
        return "issue-starved";
    case FindingKind::TopStall:
        return "top-stall";
    }
    return "?";
}

const Finding* findingOf(const KernelDiagnosis& d, FindingKind k)
{
    for (const Finding& f : d.findings) {
        if (f.kind == k)
            return &f;
    }
    return nullptr;
}

// The seed 000 worked example (B200 BF16 GEMM): basic + follow-up sections.
KernelMetrics b200Gemm()
{
    KernelMetrics m;
    m.set("gpu__time_duration.sum", 95.30, "usecond");
    m.set("sm__throughput.avg.pct_of_peak_sustained_elapsed", 77.74, "%");
    m.set("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 38.71, "%");
    m.set("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", 12.88, "%");
    m.set("launch__grid_size", 512);
    m.set("launch__waves_per_multiprocessor", 3.46);
    m.set("launch__occupancy_limit_registers", 1);
    m.set("launch__occupancy_limit_shared_mem", 1);
    m.set("sm__maximum_warps_per_active_cycle_pct", 12.50, "%");
    m.set("sm__warps_active.avg.pct_of_peak_sustained_active", 8.97, "%");
    m.set("smsp__warps_active.avg.peak_sustained", 16);
    m.set("smsp__maximum_warps_avg_per_active_cycle", 2.00);
    m.set("smsp__warps_active.avg.per_cycle_active", 1.44);
    m.set("smsp__warps_eligible.avg.per_cycle_active", 0.04);
    m.set("smsp__issue_active.avg.per_cycle_active", 0.04);
    m.set("smsp__issue_inst0.avg.pct_of_peak_sustained_active", 96.11, "%");
    m.set("smsp__average_warp_latency_per_inst_issued.ratio", 37.00);
    m.set("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 32.11);
    m.set("smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 1.5);
    m.set("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio", 1.0);
    return m;
}

} // namespace

class TestDiagnosis : public QObject {
    Q_OBJECT
private slots:
    void seedExamples_data()
    {
        QTest::addColumn<double>("durationUs");
        QTest::addColumn<double>("flops");
        QTest::addColumn<bool>("tensor");
        QTest::addColumn<double>("dramBytes");
        QTest::addColumn<double>("smPct");
        QTest::addColumn<double>("memPct");
        QTest::addColumn<double>("occupancyPct");
        QTest::addColumn<double>("sectorsPerRequest");
        QTest::addColumn<QString>("limiter");
        QTest::addColumn<QStringList>("kinds");    // in reading order
        QTest::addColumn<QStringList>("evidence"); // substrings of the findings' text

        // The reports of seed 003's read_profile.py and the lines it prints.
        QTest::newRow("gemm_bf16_8192")
            << 1600.0 << 1.1e12 << true << 0.55e9 << 82.0 << 28.0 << 24.0 << 4.0 << "compute-bound"
            << QStringList {"roofline", "compute"}
            << QStringList {"688 TFLOP/s at 2000 FLOP/B (DRAM); roof 989 TFLOP/s -> 70% of roofline"};
        QTest::newRow("layernorm") << 95.0 << 0.17e9 << false << 0.27e9 << 18.0 << 86.0 << 71.0 << 4.0 << "memory-bound"
                                   << QStringList {"roofline", "memory"}
                                   << QStringList {"2.84 TB/s of DRAM -> 85% of peak bandwidth"};
        QTest::newRow("transpose_naive") << 410.0 << 0.0 << false << 0.54e9 << 9.0 << 41.0 << 88.0 << 32.0
                                         << "latency-bound" << QStringList {"roofline", "latency", "uncoalesced"}
                                         << QStringList {
                                                "1.32 TB/s of DRAM -> 39% of peak bandwidth", "32 sectors/request"};
        QTest::newRow("gather_embed") << 160.0 << 0.0 << false << 0.05e9 << 12.0 << 22.0 << 14.0 << 6.0
                                      << "latency-bound" << QStringList {"low-occupancy", "roofline", "latency"}
                                      << QStringList {
                                             "0.31 TB/s of DRAM -> 9% of peak bandwidth", "occupancy 14% achieved"};
        QTest::newRow("bias_add") << 4.0 << 0.2e6 << false << 1.2e6 << 6.0 << 9.0 << 60.0 << 4.0 << "latency-bound"
                                  << QStringList {"tiny", "roofline", "latency"}
                                  << QStringList {"0.30 TB/s of DRAM -> 9% of peak bandwidth", "4 us on the GPU"};
    }
    void seedExamples()
    {
        QFETCH(double, durationUs);
        QFETCH(double, flops);
        QFETCH(bool, tensor);
        QFETCH(double, dramBytes);
        QFETCH(double, smPct);
        QFETCH(double, memPct);
        QFETCH(double, occupancyPct);
        QFETCH(double, sectorsPerRequest);
        QFETCH(QString, limiter);
        QFETCH(QStringList, kinds);
        QFETCH(QStringList, evidence);

        const SeedReport r {durationUs, flops, tensor, dramBytes, smPct, memPct, occupancyPct, sectorsPerRequest};
        const KernelFacts facts = kernelFacts(metricsOf(r));
        QCOMPARE(*facts.durationNs, durationUs * 1000);
        QCOMPARE(*facts.dramBytes, dramBytes);
        const KernelDiagnosis d = diagnoseKernel(facts, RooflineCeilings::fromDevice(h100Seed()));
        QCOMPARE(QString::fromLatin1(limiterName(d.limiter)), limiter);
        QStringList got;
        QString text;
        for (const Finding& f : d.findings) {
            got << kindName(f.kind);
            text += QString::fromStdString(f.title + " | " + f.evidence + " | " + f.nextStep) + "\n";
            QVERIFY2(!f.evidence.empty() && !f.nextStep.empty(), qPrintable(kindName(f.kind)));
        }
        QCOMPARE(got, kinds);
        for (const QString& e : evidence)
            QVERIFY2(text.contains(e), qPrintable(e + QStringLiteral(" not in:\n") + text));
        // Reading order is never violated.
        for (size_t i = 1; i < d.findings.size(); ++i)
            QVERIFY(d.findings[i - 1].step <= d.findings[i].step);
        QVERIFY(QString::fromStdString(d.headline).startsWith(limiter));
    }

    // ncu's estimates on seed 000's B200 GEMM: issue slots 100 - 3.89 = 96.11 %; achieved
    // occupancy (12.50 - 8.97) / 12.50 = 28.24 %; long scoreboard 32.11 / 37.00 = 86.78 %.
    void ncuSpeedupsOnSeedGemm()
    {
        const KernelFacts f = kernelFacts(b200Gemm());
        QCOMPARE(*f.issueActivePct, 100.0 - 96.11);
        const KernelDiagnosis d = diagnoseKernel(f, RooflineCeilings::fromDevice(h100Seed()));
        QCOMPARE(d.limiter, Limiter::Compute); // 77.74 % > 38.71 %, the seed's first read

        const Finding* starved = findingOf(d, FindingKind::IssueStarved);
        QVERIFY(starved);
        QVERIFY(starved->estSpeedupPct);
        QVERIFY(qFuzzyCompare(*starved->estSpeedupPct, 96.11));
        QVERIFY(QString::fromStdString(starved->evidence).contains("0.04 eligible of 1.44 active warps"));

        const Finding* occupancy = findingOf(d, FindingKind::AchievedOccupancy);
        QVERIFY(occupancy);
        QVERIFY(qAbs(*occupancy->estSpeedupPct - 100.0 * (12.50 - 8.97) / 12.50) < 1e-9);
        QVERIFY(QString::fromStdString(occupancy->speedupBasis).contains("AchievedOccupancy"));

        const Finding* stall = findingOf(d, FindingKind::TopStall);
        QVERIFY(stall);
        QCOMPARE(QString::fromStdString(stall->title), QStringLiteral("top stall: Long Scoreboard"));
        QVERIFY(qAbs(*stall->estSpeedupPct - 100.0 * 32.11 / 37.00) < 1e-9);
        QVERIFY(QString::fromStdString(stall->evidence)
                    .contains("32.11 of 37.00 warp-cycles per issued instruction (87%)"));
        // Sorted largest first, "selected" kept but never the top stall.
        QCOMPARE(QString::fromStdString(f.stalls.front().key), QStringLiteral("long_scoreboard"));
        QCOMPARE(f.stalls.size(), size_t {3});
    }

    void speedupCappedByParent_data()
    {
        QTest::addColumn<double>("issueActivePct");
        QTest::addColumn<double>("expected");
        // local (50 - 30) / 50 = 40 %; parent = 100 - issue active.
        QTest::newRow("parent larger") << 40.0 << 40.0;
        QTest::newRow("parent smaller") << 80.0 << 20.0;
    }
    void speedupCappedByParent()
    {
        QFETCH(double, issueActivePct);
        QFETCH(double, expected);
        KernelMetrics m;
        m.set("sm__throughput.avg.pct_of_peak_sustained_elapsed", 70);
        m.set("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", 20);
        m.set("sm__maximum_warps_per_active_cycle_pct", 50);
        m.set("sm__warps_active.avg.pct_of_peak_sustained_active", 30);
        m.set("smsp__issue_active.avg.pct_of_peak_sustained_active", issueActivePct);
        const KernelDiagnosis d = diagnoseKernel(kernelFacts(m), {});
        const Finding* f = findingOf(d, FindingKind::AchievedOccupancy);
        QVERIFY(f);
        QVERIFY(qAbs(*f->estSpeedupPct - expected) < 1e-9);
    }

    void uncoalescedSpeedup()
    {
        KernelMetrics m;
        m.set("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 100);
        m.set("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 3200);
        m.set("lts__throughput.avg.pct_of_peak_sustained_elapsed", 50);
        const KernelDiagnosis d = diagnoseKernel(kernelFacts(m), {});
        const Finding* f = findingOf(d, FindingKind::Uncoalesced);
        QVERIFY(f);
        // L2 busy 50 % x excess (32 - 4) / 32.
        QVERIFY(qAbs(*f->estSpeedupPct - 50.0 * 28.0 / 32.0) < 1e-9);
        // Without SOL metrics the limiter is not guessed, and the report says what is missing.
        QCOMPARE(d.limiter, Limiter::Unknown);
        QVERIFY(!d.notCollected.empty());
    }

    void smallGrid()
    {
        KernelMetrics m;
        m.set("launch__waves_per_multiprocessor", 0.25);
        m.set("launch__grid_size", 33);
        m.set("launch__sm_count", 132);
        const KernelDiagnosis d = diagnoseKernel(kernelFacts(m), {});
        const Finding* f = findingOf(d, FindingKind::SmallGrid);
        QVERIFY(f);
        QVERIFY(QString::fromStdString(f->evidence).contains("0.25 waves per SM (grid of 33 blocks on 132 SMs)"));
    }

    void sessionRules_data()
    {
        QTest::addColumn<qint64>("busy");
        QTest::addColumn<qint64>("span");
        QTest::addColumn<qint64>("tiny");
        QTest::addColumn<qint64>("launches");
        QTest::addColumn<QStringList>("kinds");
        QTest::newRow("busy GPU, long kernels")
            << qint64(900) << qint64(1000) << qint64(1) << qint64(10) << QStringList {};
        QTest::newRow("idle GPU") << qint64(500) << qint64(1000) << qint64(1) << qint64(10) << QStringList {"overhead"};
        QTest::newRow("idle GPU, tiny kernels")
            << qint64(700) << qint64(1000) << qint64(8) << qint64(10) << QStringList {"overhead", "many-tiny"};
        QTest::newRow("exactly at the threshold")
            << qint64(800) << qint64(1000) << qint64(5) << qint64(10) << QStringList {"overhead", "many-tiny"};
    }
    void sessionRules()
    {
        QFETCH(qint64, busy);
        QFETCH(qint64, span);
        QFETCH(qint64, tiny);
        QFETCH(qint64, launches);
        QFETCH(QStringList, kinds);
        SessionFacts s;
        GpuBusySummary dev;
        dev.first = 1000;
        dev.last = 1000 + span;
        dev.busyNs = busy;
        dev.idleNs = span - busy;
        dev.gaps = 3;
        dev.largestGapNs = (span - busy) / 2;
        s.devices.push_back(dev);
        s.kernelLaunches = launches;
        s.tinyLaunches = tiny;
        s.kernelTimeNs = busy;
        s.tinyTimeNs = busy / 10;
        QStringList got;
        for (const Finding& f : diagnoseSession(s)) {
            got << kindName(f.kind);
            QCOMPARE(f.step, ReadingStep::Timeline);
        }
        QCOMPARE(got, kinds);
    }

    // The H200 metrics fixtures (warpscope-cli profile --set full): four workloads chosen to be
    // compute-, memory- and latency-bound; the rules must name each one's limiter and findings.
    void h200Fixtures_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<qint64>("kernel");
        QTest::addColumn<QString>("limiter");
        QTest::addColumn<QStringList>("kinds");
        QTest::addColumn<QString>("evidence");
        // Pointer chase, one warp per SM: 32 sectors per request, long scoreboard 99 % of cycles.
        QTest::newRow("chase") << "chase" << qint64(1) << "latency-bound"
                               << QStringList {"small-grid", "low-occupancy", "roofline", "latency", "uncoalesced",
                                      "issue-starved", "top-stall"}
                               << "32 sectors/request";
        // float4 copy: 77 % of DRAM peak (ncu: 78 %, same cache control); 16 sectors per request is
        // coalesced for 16-byte loads.
        QTest::newRow("copy") << "copy" << qint64(1) << "memory-bound"
                              << QStringList {"roofline", "memory", "issue-starved", "top-stall"}
                              << "3.72 TB/s of DRAM -> 77% of peak bandwidth";
        // cuBLAS BF16 GEMM: compute-bound at 73 % of the roofline.
        QTest::newRow("nvjet gemm") << "gemm_relu" << qint64(3) << "compute-bound"
                                    << QStringList {"achieved-occupancy", "roofline", "compute", "issue-starved",
                                           "top-stall"}
                                    << "779 TFLOP/s at 783 FLOP/B (DRAM); roof 1071 TFLOP/s -> 73% of roofline";
        // ReLU on bf16: neither unit busy, warps wait on memory.
        QTest::newRow("relu") << "gemm_relu" << qint64(4) << "latency-bound"
                              << QStringList {"achieved-occupancy", "roofline", "latency", "issue-starved", "top-stall"}
                              << "top stall: Long Scoreboard";
        QTest::newRow("softmax") << "torch_softmax" << qint64(1) << "compute-bound"
                                 << QStringList {"roofline", "compute", "top-stall"} << "top stall: Not Selected";
    }
    void h200Fixtures()
    {
        QFETCH(QString, file);
        QFETCH(qint64, kernel);
        QFETCH(QString, limiter);
        QFETCH(QStringList, kinds);
        QFETCH(QString, evidence);
        const SessionReader reader(std::string(WS_FIXTURES_DIR) + "/metrics/" + file.toStdString() + ".wscope");
        const SessionMetrics metrics = SessionMetrics::read(reader);
        const auto* k = metrics.find(kernel);
        QVERIFY(k);
        const KernelDiagnosis d
            = diagnoseKernel(kernelFacts(k->metrics, static_cast<double>(k->launch.end - k->launch.start)),
                RooflineCeilings::fromDevice(reader.readDevices().at(0)));
        QCOMPARE(QString::fromLatin1(limiterName(d.limiter)), limiter);
        QStringList got;
        QString text;
        for (const Finding& f : d.findings) {
            got << kindName(f.kind);
            text += QString::fromStdString(f.title + " | " + f.evidence) + "\n";
        }
        QCOMPARE(got, kinds);
        QVERIFY2(text.contains(evidence), qPrintable(text));
        QVERIFY(d.notCollected.empty()); // --set full: every rule had its numbers
    }

    void metricsRoundTripThroughSessionFile()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("m.wscope").toStdString();
        SessionData d;
        for (int i = 1; i <= 3; ++i) {
            KernelRecord k;
            k.id = i;
            k.start = i * 1000;
            k.end = k.start + 500;
            k.demangledName = d.strings.intern("kern" + std::to_string(i));
            d.kernels.push_back(k);
        }
        d.metricDefs = {{1, "gpu__time_duration.sum", "nsecond", "SpeedOfLight", "Duration"},
            {2, "dram__bytes.sum", "byte", "Roofline", "DRAM Bytes"}};
        d.kernelMetrics = {{1, 1, 480}, {1, 2, 4096}, {3, 1, 510}};
        {
            SessionWriter w(path);
            attachLaneCache(w);
            w.write(d);
            w.commit();
        }
        const SessionReader reader(path);
        const SessionMetrics fromFile = SessionMetrics::read(reader);
        const SessionMetrics fromMemory = SessionMetrics::fromData(d);
        for (const SessionMetrics* s : {&fromFile, &fromMemory}) {
            QCOMPARE(s->kernels().size(), size_t {2}); // kernel 2 has no metrics
            const auto* k1 = s->find(1);
            QVERIFY(k1);
            QCOMPARE(*k1->metrics.get("dram__bytes.sum"), 4096.0);
            QCOMPARE(k1->metrics.unit("gpu__time_duration.sum"), std::string("nsecond"));
            QCOMPARE(s->strings().at(k1->launch.demangledName), std::string("kern1"));
            QVERIFY(!s->find(2));
            QCOMPARE(s->definition("dram__bytes.sum")->description, std::string("DRAM Bytes"));
            QCOMPARE(*kernelFacts(s->find(3)->metrics).durationNs, 510.0);
        }
    }

    void unitsToBase_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<double>("expected");
        QTest::newRow("usecond") << 1.5 << "usecond" << 1500.0;
        QTest::newRow("msecond") << 2.0 << "msecond" << 2e6;
        QTest::newRow("Mbyte") << 3.0 << "Mbyte" << 3e6;
        QTest::newRow("Gbyte/second") << 1.2 << "Gbyte/second" << 1.2e9;
        QTest::newRow("unknown passes") << 7.0 << "warp" << 7.0;
    }
    void unitsToBase()
    {
        QFETCH(double, value);
        QFETCH(QString, unit);
        QFETCH(double, expected);
        QCOMPARE(toBaseUnit(value, unit.toStdString()), expected);
    }
};

QTEST_GUILESS_MAIN(TestDiagnosis)
#include "tst_diagnosis.moc"
