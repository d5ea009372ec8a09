// SPDX-License-Identifier: MIT
// The sessions recorded on the H200 with `warpscope-cli record` and committed as fixtures
// (tests/fixtures/recorder/sessions, scripts/h200/record-all.sh) and the GUI's demo session
// (resources/demo/h200-gemm-relu.wscope): each opens with SessionReader and holds what the
// recorded program did: kernel names and counts, NVTX ranges (PyTorch's too), graph ids,
// child processes, exit status.
#include "core/store/sessionreader.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <set>

using namespace ws;

namespace {

SessionData load(const QString& name)
{
    const SessionReader reader((QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/") + name).toStdString());
    return reader.readAll();
}

std::map<std::string, int> kernelCounts(const SessionData& s)
{
    std::map<std::string, int> n;
    for (const auto& k : s.kernels)
        ++n[s.str(k.shortName)];
    return n;
}

std::map<std::string, int> rangeCounts(const SessionData& s)
{
    std::map<std::string, int> n;
    for (const auto& r : s.nvtxRanges)
        ++n[s.str(r.name)];
    return n;
}

} // namespace

class TestIngestSessions : public QObject {
    Q_OBJECT

private slots:
    void gemmRelu()
    {
        const SessionData s = load(QStringLiteral("gemm_relu.wscope"));
        const auto k = kernelCounts(s);
        QCOMPARE(k.size(), size_t(3));
        QCOMPARE(k.at("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), 24);
        QCOMPARE(k.at("relu_kernel"), 24);
        QCOMPARE(k.at("fill_kernel"), 2);
        const auto r = rangeCounts(s);
        QCOMPARE(r.at("gemm"), 24);
        QCOMPARE(r.at("relu"), 24);
        QCOMPARE(r.at("timed loop"), 1);
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.processes[0].name, std::string("ws-example-gemm-relu"));
        QCOMPARE(s.devices.size(), size_t(1));
        QCOMPARE(s.devices[0].smCount, 132);
        QVERIFY(s.devices[0].peakBf16TensorFlopsPerS > 1e15);
        QCOMPARE(s.meta.at("dropped_records"), std::string("0"));
        QCOMPARE(s.meta.at("kernels_joined_to_api"), std::string("50"));
        // The GEMM's kernel time: 4096^3 BF16 on an H200 takes 165-185 us.
        for (const auto& kr : s.kernels)
            if (s.str(kr.shortName).rfind("nvjet", 0) == 0)
                QVERIFY2(kr.end - kr.start > 150'000 && kr.end - kr.start < 200'000,
                    qPrintable(QString::number(kr.end - kr.start)));
    }

    // The demo holds the four runs of issue 17 (scripts/device/jobs/loop.sh): its trace run is
    // the same program as the recorder fixture, every traced launch has its --set full profile
    // linked, the GEMM has PC samples and the benchmark has its samples.
    void demoSessionIsTheGemmRecording()
    {
        const SessionReader demo(WS_RESOURCES_DIR "/demo/h200-gemm-relu.wscope");
        SessionData d = demo.readAll();
        std::vector<std::string> kinds;
        for (const RunInfo& r : d.runs)
            kinds.push_back(r.kind);
        QCOMPARE(kinds, (std::vector<std::string> {"trace", "profile", "pc-sampling", "bench"}));
        const SessionData g = load(QStringLiteral("gemm_relu.wscope"));
        const size_t traced
            = std::count_if(d.kernels.begin(), d.kernels.end(), [](const KernelRecord& k) { return k.runId == 1; });
        std::erase_if(d.kernels, [](const KernelRecord& k) { return k.runId != 1; });
        QCOMPARE(d.kernels.size(), g.kernels.size());
        QCOMPARE(d.nvtxRanges.size(), g.nvtxRanges.size());
        QCOMPARE(kernelCounts(d), kernelCounts(g));
        // Independently of any other recording: what examples/cuda/gemm_relu.cu launches for the
        // run's own arguments — the GEMM and the ReLU once for the check, then once per warm-up
        // and timed iteration, two fills; one "gemm" and one "relu" range around each.
        QCOMPARE(
            d.runs[0].commandLine.substr(d.runs[0].commandLine.find(" --")), std::string(" --warmup 3 --iters 20"));
        const int perKernel = 1 + 3 + 20;
        QCOMPARE(kernelCounts(d),
            (std::map<std::string, int> {{"fill_kernel", 2},
                {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", perKernel}, {"relu_kernel", perKernel}}));
        std::map<std::string, int> ranges;
        for (const auto& r : d.nvtxRanges)
            if (r.runId == 1)
                ++ranges[d.str(r.name)];
        QCOMPARE(ranges,
            (std::map<std::string, int> {{"check", 1}, {"gemm", perKernel}, {"relu", perKernel}, {"setup", 1},
                {"timed loop", 1}, {"warmup", 1}}));
        QCOMPARE(traced, size_t(2 + 2 * perKernel));
        std::set<int64_t> linkedTraced;
        for (const KernelLink& l : d.kernelLinks)
            linkedTraced.insert(l.traceKernelId);
        QCOMPARE(linkedTraced.size(), traced); // every traced launch has metrics
        QVERIFY(!d.sourceCounters.empty());
        QVERIFY(!d.benchSamples.empty());
    }

    void torchNvtx()
    {
        const SessionData s = load(QStringLiteral("torch_nvtx.wscope"));
        const auto r = rangeCounts(s);
        QCOMPARE(r.at("mm"), 23);
        QCOMPARE(r.at("relu"), 23);
        QCOMPARE(r.at("setup"), 1);
        for (int i = 0; i < 20; ++i)
            QCOMPARE(r.at("step " + std::to_string(i)), 1);
        const auto k = kernelCounts(s);
        QCOMPARE(k.at("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), 24);
        QCOMPARE(s.processes[0].exitCode, 0);
        QVERIFY(s.environment.at("cupti_library").find("site-packages/nvidia/cu13") != std::string::npos);
    }

    void graphs()
    {
        const SessionData s = load(QStringLiteral("graphs.wscope"));
        QCOMPARE(s.kernels.size(), size_t(20));
        std::set<uint32_t> graphIds;
        for (const auto& k : s.kernels) {
            QVERIFY(k.graphNodeId != 0);
            graphIds.insert(k.graphId);
        }
        QCOMPARE(graphIds.size(), size_t(1));
        QVERIFY(*graphIds.begin() != 0);
        QCOMPARE(rangeCounts(s).at("graph launch"), 10);
    }

    void launchBound()
    {
        const SessionData s = load(QStringLiteral("launch_2k.wscope"));
        QCOMPARE(s.kernels.size(), size_t(3000)); // 1000 warm-up + 2000
        QCOMPARE(kernelCounts(s).at("empty_kernel"), 3000);
        QCOMPARE(s.apiCalls.size(), size_t(3002));
        QCOMPARE(s.meta.at("dropped_records"), std::string("0"));
        for (size_t i = 1; i < s.kernels.size(); ++i)
            QVERIFY(s.kernels[i - 1].start <= s.kernels[i].start);
    }

    void children()
    {
        // /bin/sh starting two CUDA programs: the shell (no CUDA, its exit status from the
        // launcher) and both children, each with its own kernels.
        const SessionData s = load(QStringLiteral("children.wscope"));
        QCOMPARE(s.processes.size(), size_t(3));
        std::map<std::string, ProcessInfo> byName;
        for (const auto& p : s.processes)
            byName[p.name] = p;
        QCOMPARE(byName.at("sh").exitCode, 0);
        QCOMPARE(byName.at("ws-example-launch-bound").parentPid, byName.at("sh").pid);
        QCOMPARE(byName.at("ws-example-graphs").parentPid, byName.at("sh").pid);
        std::map<int64_t, int> perPid;
        for (const auto& k : s.kernels)
            ++perPid[k.pid];
        QCOMPARE(perPid.at(byName.at("ws-example-launch-bound").pid), 1050);
        QCOMPARE(perPid.at(byName.at("ws-example-graphs").pid), 4);
    }

    void segfault()
    {
        const SessionData s = load(QStringLiteral("segv.wscope"));
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.processes[0].exitSignal, 11);
        QCOMPARE(s.meta.at("target_exit"), std::string("killed by signal 11 (Segmentation fault)"));
        QCOMPARE(s.kernels.size(), size_t(201));
        QCOMPARE(rangeCounts(s).at("doomed"), 1);
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("1"));
    }

    void captureRange()
    {
        const SessionData s = load(QStringLiteral("gemm_capture_profiler.wscope"));
        QCOMPARE(s.meta.at("record.capture_range"), std::string("cudaProfilerApi"));
        QCOMPARE(s.kernels.size(), size_t(10));
        const auto r = rangeCounts(s);
        QCOMPARE(r.count("setup"), size_t(0));
        QCOMPARE(r.at("gemm"), 5);
        QCOMPARE(s.apiCalls.size(), size_t(16));
    }
};

QTEST_GUILESS_MAIN(TestIngestSessions)
#include "tst_ingest_sessions.moc"
