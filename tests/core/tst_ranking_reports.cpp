// SPDX-License-Identifier: MIT
// The two reports the panels add to the CLI's set: nvtx_gpu_proj_sum (NVTX ranges projected
// onto the GPU work they launched) and gpu_idle_gaps, on hand-built sessions whose expected
// values are worked out in the comments, plus invariants on real H200 sessions.
#include "core/analysis/gpuidlegaps.h"
#include "core/analysis/nvtxgpuprojection.h"
#include "core/analysis/sessionfilesource.h"
#include "core/ranking/launchidle.h"
#include "core/report/reportformat.h"
#include "core/store/sessionreader.h"

#include <QtTest>

using namespace ws;

namespace {

// summarizeGpuBusy(launch table, copies), what the kernel panels show, must be the devices of
// analyzeGpuIdle(source), what the stats report and the CLI use, field by field.
void compareWithLaunchTablePath(const RecordSource& src)
{
    const GpuIdleAnalysis want = analyzeGpuIdle(src);
    std::map<uint32_t, std::vector<GpuWork>> copies;
    std::vector<std::string> labels;
    addCopiesAndMemsets(src, copies, labels);
    const std::vector<GpuBusySummary> got = summarizeGpuBusy(KernelLaunchTable::build(src), copies);
    QCOMPARE(got.size(), want.devices.size());
    for (size_t i = 0; i < want.devices.size(); ++i) {
        const GpuBusySummary& a = got[i];
        const GpuBusySummary& b = want.devices[i];
        QCOMPARE(a.deviceId, b.deviceId);
        QCOMPARE(a.first, b.first);
        QCOMPARE(a.last, b.last);
        QCOMPARE(a.operations, b.operations);
        QCOMPARE(a.busyNs, b.busyNs);
        QCOMPARE(a.idleNs, b.idleNs);
        QCOMPARE(a.gaps, b.gaps);
        QCOMPARE(a.largestGapNs, b.largestGapNs);
    }
}

constexpr int64_t kPid = 10;

QString rowText(const ReportTable& t, int row)
{
    QStringList cells;
    for (const auto& cell : t.rows.at(static_cast<size_t>(row)))
        cells << QString::fromStdString(formatCell(cell));
    return cells.join(QLatin1Char('|'));
}

struct Builder {
    SessionData d;
    int64_t nextId = 1;
    void range(int64_t tid, TimeNs start, TimeNs end, const char* name, int depth, int64_t endTid = 0)
    {
        NvtxRangeRecord r;
        r.id = nextId++;
        r.pid = kPid;
        r.tid = tid;
        r.endTid = endTid ? endTid : tid;
        r.start = start;
        r.end = end;
        r.name = d.strings.intern(name);
        r.depth = depth;
        d.nvtxRanges.push_back(r);
    }
    void api(int64_t tid, uint32_t corr, TimeNs start, TimeNs end)
    {
        ApiCallRecord a;
        a.id = nextId++;
        a.pid = kPid;
        a.tid = tid;
        a.correlationId = corr;
        a.start = start;
        a.end = end;
        a.name = d.strings.intern("cudaLaunchKernel_v7000");
        d.apiCalls.push_back(a);
    }
    void kernel(
        uint32_t corr, TimeNs start, TimeNs end, const char* name = "k", uint32_t device = 0, uint32_t stream = 7)
    {
        KernelRecord k;
        k.id = nextId++;
        k.pid = kPid;
        k.deviceId = device;
        k.streamId = stream;
        k.correlationId = corr;
        k.start = start;
        k.end = end;
        k.demangledName = d.strings.intern(name);
        d.kernels.push_back(k);
    }
    void memcpy(uint32_t corr, TimeNs start, TimeNs end, uint32_t device = 0)
    {
        MemcpyRecord m;
        m.id = nextId++;
        m.pid = kPid;
        m.deviceId = device;
        m.correlationId = corr;
        m.start = start;
        m.end = end;
        m.copyKind = CopyKind::HtoD;
        d.memcpys.push_back(m);
    }
    void memset(uint32_t corr, TimeNs start, TimeNs end)
    {
        MemsetRecord m;
        m.id = nextId++;
        m.pid = kPid;
        m.correlationId = corr;
        m.start = start;
        m.end = end;
        d.memsets.push_back(m);
    }
};

} // namespace

class TestRankingReports : public QObject {
    Q_OBJECT
private slots:
    void nvtxProjection()
    {
        Builder b;
        b.range(1, 0, 1000, "step", 0);
        b.range(1, 100, 400, "fwd", 1);
        b.range(1, 500, 900, "bwd", 1);
        b.range(1, 950, 990, "idle", 1);       // launches nothing: no projection
        b.range(1, 1100, 1300, "fwd", 0);      // a second fwd, outermost
        b.range(2, 0, 2000, "other", 0);       // its thread launched nothing
        b.range(1, 0, 5000, "crossing", 0, 3); // ended on another thread: not projected
        b.api(1, 1, 110, 120);
        b.kernel(1, 200, 300); // in step and fwd
        b.api(1, 2, 150, 160);
        b.memcpy(2, 310, 350); // in step and fwd
        b.api(1, 3, 600, 610);
        b.kernel(3, 700, 1200); // in step and bwd; runs past both ranges
        b.api(1, 4, 395, 405);
        b.kernel(4, 420, 430); // call straddles fwd's end: only in step
        b.api(1, 5, 1110, 1120);
        b.kernel(5, 1250, 1260); // in the second fwd
        b.kernel(99, 0, 5);      // no launch call recorded: in no range

        const MemoryRecordSource src(b.d);
        const auto proj = projectNvtxRanges(src);
        QCOMPARE(proj.size(), size_t {4}); // step, fwd, bwd, fwd#2
        const NvtxProjection* step = nullptr;
        for (const auto& p : proj) {
            if (p.name == "step")
                step = &p;
        }
        QVERIFY(step);
        // Work launched inside step: ops 1..4 -> earliest start 200, latest end 1200.
        QCOMPARE(step->projectedStart, TimeNs {200});
        QCOMPARE(step->projectedEnd, TimeNs {1200});
        QCOMPARE(step->gpuOps, int64_t {4});
        QCOMPARE(step->children, int64_t {3}); // fwd, bwd, idle

        const ReportTable t = nvtxGpuProjSum(src);
        QCOMPARE(QString::fromStdString(t.columns[2].header()), QStringLiteral("Total Proj Time (ns)"));
        QCOMPARE(t.rows.size(), size_t {3});
        // step: proj 1000, range 1000, 1 instance, 4 ops, level 0, 3 children.
        QCOMPARE(rowText(t, 0), QStringLiteral("step|PushPop|1000|1000|1|1000.0|1000.0|1000|1000|0.0|4|4.0|0.0|3.0"));
        // bwd: op 3 only, [700, 1200) -> 500.
        QCOMPARE(rowText(t, 1), QStringLiteral("bwd|PushPop|500|400|1|500.0|500.0|500|500|0.0|1|1.0|1.0|0.0"));
        // fwd: projections 150 ([200, 350)) and 10 ([1250, 1260)): total 160, avg 80, median
        // 80, stdev sqrt((70^2 + 70^2) / 1) = 98.99 -> 99.0; range time 300 + 200; ops 2 + 1
        // -> 1.5 on average; levels (1 + 0) / 2.
        QCOMPARE(rowText(t, 2), QStringLiteral("fwd|PushPop|160|500|2|80.0|80.0|10|150|99.0|3|1.5|0.5|0.0"));
    }

    void idleGaps()
    {
        Builder b;
        b.kernel(0, 0, 100, "k1");
        b.kernel(0, 50, 150, "void ns::k2<int>(int)", 0, 8); // overlaps on another stream
        b.memcpy(0, 300, 400);
        b.kernel(0, 400, 450, "k3"); // starts exactly when the copy ends: no gap
        b.memset(0, 1000, 1010);
        b.kernel(0, 5000, 6000, "far", 1); // device 1: one kernel, no gap

        const MemoryRecordSource src(b.d);
        const GpuIdleAnalysis a = analyzeGpuIdle(src);
        QCOMPARE(a.devices.size(), size_t {2});
        const GpuBusySummary& d0 = a.devices[0];
        // Union [0,150) [300,450) [1000,1010): busy 310 of 1010, idle 700 in 2 gaps.
        QCOMPARE(d0.first, TimeNs {0});
        QCOMPARE(d0.last, TimeNs {1010});
        QCOMPARE(d0.busyNs, int64_t {310});
        QCOMPARE(d0.idleNs, int64_t {700});
        QCOMPARE(d0.gaps, int64_t {2});
        QCOMPARE(d0.largestGapNs, TimeNs {550});
        QCOMPARE(d0.operations, int64_t {5});
        QCOMPARE(a.devices[1].gaps, int64_t {0});
        QCOMPARE(a.devices[1].idleNs, int64_t {0});

        const ReportTable t = gpuIdleGaps(src);
        QCOMPARE(t.rows.size(), size_t {2});
        QCOMPARE(rowText(t, 0), QStringLiteral("150|150|0|k2|[CUDA memcpy Host-to-Device]"));
        QCOMPARE(rowText(t, 1), QStringLiteral("450|550|0|k3|[CUDA memset]"));
        // A threshold keeps the summary whole but lists only the long gaps.
        const GpuIdleAnalysis longOnly = analyzeGpuIdle(src, 200);
        QCOMPARE(longOnly.gaps.size(), size_t {1});
        QCOMPARE(longOnly.devices[0].gaps, int64_t {2});
        compareWithLaunchTablePath(src);
    }

    // Invariants on real H200 sessions: busy + idle = span, gaps are disjoint, ordered and
    // inside the span; every projected range lies within its work's span and launched some.
    void realSessions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("gemm_relu") << QStringLiteral("recorder/sessions/gemm_relu.wscope");
        QTest::newRow("torch_nvtx") << QStringLiteral("recorder/sessions/torch_nvtx.wscope");
        QTest::newRow("graphs") << QStringLiteral("recorder/sessions/graphs.wscope");
    }
    void realSessions()
    {
        QFETCH(QString, file);
        const SessionReader reader(std::string(WS_FIXTURES_DIR) + "/" + file.toStdString());
        const SessionFileSource src(reader);
        const GpuIdleAnalysis a = analyzeGpuIdle(src);
        QVERIFY(!a.devices.empty());
        int64_t gapSum = 0;
        for (size_t i = 0; i < a.gaps.size(); ++i) {
            QVERIFY(a.gaps[i].duration() > 0);
            if (i > 0 && a.gaps[i].deviceId == a.gaps[i - 1].deviceId)
                QVERIFY(a.gaps[i].start >= a.gaps[i - 1].end);
            gapSum += a.gaps[i].duration();
        }
        int64_t idle = 0;
        for (const auto& d : a.devices) {
            QCOMPARE(d.busyNs + d.idleNs, d.last - d.first);
            idle += d.idleNs;
        }
        QCOMPARE(gapSum, idle);
        compareWithLaunchTablePath(src);
        for (const NvtxProjection& p : projectNvtxRanges(src)) {
            QVERIFY(p.gpuOps > 0);
            QVERIFY(p.projectedEnd >= p.projectedStart);
        }
    }
};

QTEST_GUILESS_MAIN(TestRankingReports)
#include "tst_ranking_reports.moc"
