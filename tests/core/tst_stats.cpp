// SPDX-License-Identifier: MIT
// The nsys stats reports (core/analysis/nsysreports.h) on a small hand-built session. Every
// expected value below is worked out by hand in the comments next to it; rows are compared as
// "cell|cell|..." strings of formatCell() (integers plain, decimals with one digit).
#include "core/analysis/durationsummary.h"
#include "core/analysis/nsysreports.h"
#include "core/report/reportformat.h"

#include <QtTest>

#include <stdexcept>

using namespace ws;

namespace {

constexpr int64_t kPid = 100;
constexpr int64_t kOtherPid = 200;
constexpr int64_t kMain = 101;
constexpr int64_t kWorker = 102;

QString rowText(const ReportTable& t, int row)
{
    QStringList cells;
    for (const auto& cell : t.rows.at(static_cast<size_t>(row)))
        cells << QString::fromStdString(formatCell(cell));
    return cells.join(QLatin1Char('|'));
}

QStringList allRows(const ReportTable& t)
{
    QStringList rows;
    for (int r = 0; r < static_cast<int>(t.rows.size()); ++r)
        rows << rowText(t, r);
    return rows;
}

QStringList headers(const ReportTable& t)
{
    QStringList h;
    for (const auto& c : t.columns)
        h << QString::fromStdString(c.header());
    return h;
}

struct Builder {
    SessionData d;
    int64_t nextId = 1;

    void kernel(int64_t pid, uint32_t corr, TimeNs start, TimeNs end, const char* demangled, const char* mangled = "",
        const char* shortName = "")
    {
        KernelRecord k;
        k.id = nextId++;
        k.pid = pid;
        k.deviceId = pid == kPid ? 0 : 1;
        k.streamId = 7;
        k.correlationId = corr;
        k.start = start;
        k.end = end;
        k.demangledName = d.strings.intern(demangled);
        k.mangledName = d.strings.intern(mangled);
        k.shortName = d.strings.intern(shortName);
        k.gridX = 128;
        k.gridY = 1;
        k.gridZ = 1;
        k.blockX = 256;
        k.blockY = 2;
        k.blockZ = 1;
        d.kernels.push_back(k);
    }
    void api(
        int64_t tid, uint32_t corr, TimeNs start, TimeNs end, const char* name, ApiDomain domain = ApiDomain::Runtime)
    {
        ApiCallRecord a;
        a.id = nextId++;
        a.pid = kPid;
        a.tid = tid;
        a.correlationId = corr;
        a.start = start;
        a.end = end;
        a.domain = domain;
        a.name = d.strings.intern(name);
        d.apiCalls.push_back(a);
    }
    void nvtx(TimeNs start, TimeNs end, const char* name, NvtxStyle style, int depth, const char* domain = "")
    {
        NvtxRangeRecord r;
        r.id = nextId++;
        r.pid = kPid;
        r.tid = kMain;
        r.endTid = style == NvtxStyle::StartEnd ? kWorker : kMain;
        r.start = start;
        r.end = end;
        r.name = d.strings.intern(name);
        r.domain = d.strings.intern(domain);
        r.style = style;
        r.depth = depth;
        d.nvtxRanges.push_back(r);
    }
};

const char* const kGemm = "void gemm<float>(float*, int)";

SessionData handBuiltSession()
{
    Builder b;
    // --- kernels ------------------------------------------------------------------------
    // gemm: k1 10 ns, k2 20 ns, k3 30 ns (runtime launches), k4 100 ns (driver launch).
    b.kernel(kPid, 1, 1020, 1030, kGemm);
    b.kernel(kPid, 2, 1140, 1160, kGemm);
    b.kernel(kPid, 3, 1205, 1235, kGemm);
    b.kernel(kPid, 4, 1400, 1500, kGemm);
    // relu (extern "C": no mangled name): 50, 70, 60 ns. k7 has no launch record (corr 0).
    b.kernel(kPid, 5, 2050, 2100, "relu_kernel");
    b.kernel(kPid, 6, 2200, 2270, "relu_kernel");
    b.kernel(kPid, 0, 2300, 2360, "relu_kernel");
    // reduce: one launch with only a mangled name (demangles to "reduce(float*, int)", 7 ns)
    // and one in another process with the demangled name recorded (13 ns): one group.
    // Its correlation id 1 collides with pid 100's first launch: must not join (pid differs).
    b.kernel(kPid, 7, 3000, 3007, "", "_Z6reducePfi");
    b.kernel(kOtherPid, 1, 500, 513, "reduce(float*, int)");
    // Equal totals of 10 ns: kernD twice 5 ns, kernE once 10 ns (tie broken by count asc).
    b.kernel(kPid, 0, 4000, 4005, "kernD");
    b.kernel(kPid, 0, 4010, 4015, "kernD");
    b.kernel(kPid, 0, 4100, 4110, "kernE");

    // --- API calls ----------------------------------------------------------------------
    b.api(kMain, 1, 1000, 1010, "cudaLaunchKernel_v7000");                // 10
    b.api(kMain, 2, 1100, 1150, "cudaLaunchKernel_v7000");                // 50
    b.api(kMain, 3, 1200, 1205, "cudaLaunchKernel_v7000");                // 5
    b.api(kWorker, 4, 1300, 1320, "cuLaunchKernelEx", ApiDomain::Driver); // cuBLAS-style
    b.api(kMain, 5, 2000, 2010, "cudaLaunchKernel_v7000");                // 10
    b.api(kMain, 5, 2002, 2008, "cuLaunchKernel", ApiDomain::Driver);     // nested in the runtime call
    b.api(kMain, 6, 2150, 2160, "cudaLaunchKernel_v7000");                // 10
    b.api(kMain, 7, 2990, 2995, "cudaLaunchKernel_v7000");                // 5
    b.api(kMain, 8, 5000, 5100, "cudaMemcpy_v3020");                      // 100
    b.api(kMain, 9, 5200, 5400, "cudaMemcpy_v3020");                      // 200
    b.api(kMain, 10, 100, 900, "cudaGetDeviceProperties_v2_v12000");      // 800
    b.api(kMain, 11, 6000, 6004, "cudaProfilerStart");                    // 4

    // --- NVTX ---------------------------------------------------------------------------
    b.nvtx(0, 10000, "outer", NvtxStyle::PushPop, 0);            // 10000
    b.nvtx(1000, 2000, "inner", NvtxStyle::PushPop, 1);          // 1000
    b.nvtx(1000, 1100, "gemm", NvtxStyle::PushPop, 2, "cuBLAS"); // 100, inside the inner one
    b.nvtx(3000, 3500, "inner", NvtxStyle::PushPop, 1);          // 500
    b.nvtx(4000, 4300, "inner", NvtxStyle::PushPop, 1);          // 300
    b.nvtx(500, 2500, "load", NvtxStyle::StartEnd, 0);           // 2000, ends on the worker thread
    b.nvtx(7000, 7100, "load", NvtxStyle::PushPop, 1);           // 100, same name, other style
    return b.d;
}

} // namespace

class TestStats : public QObject {
    Q_OBJECT

private slots:
    void summary_data()
    {
        QTest::addColumn<QList<qint64>>("durations");
        QTest::addColumn<QString>("expected"); // total|count|avg|median|min|max|stdev
        // One value: stdev is 0 (nsys prints 0.0 for single instances).
        QTest::newRow("single") << QList<qint64> {7} << "7|1|7.0|7.0|7|7|0.0";
        // Odd count: median is the middle of 5 10 20 -> 10. mean 35/3 = 11.666.. -> 11.7.
        // stdev: devs -6.667, -1.667, 8.333 -> 44.444 + 2.778 + 69.444 = 116.667; /2 = 58.333;
        // sqrt = 7.6376 -> 7.6.
        QTest::newRow("odd") << QList<qint64> {20, 5, 10} << "35|3|11.7|10.0|5|20|7.6";
        // Even count: median = (20 + 30) / 2 = 25. mean 40; devs -30 -20 -10 60 -> squares
        // 900 + 400 + 100 + 3600 = 5000; / (4 - 1) = 1666.67; sqrt = 40.82 -> 40.8 (sample).
        QTest::newRow("even") << QList<qint64> {100, 10, 30, 20} << "160|4|40.0|25.0|10|100|40.8";
        // Even count with a half-ns median: (2 + 3) / 2 = 2.5. mean 2.5; devs -1.5 -.5 .5 1.5
        // -> 2.25+.25+.25+2.25 = 5; /3 = 1.6667; sqrt = 1.291 -> 1.3.
        QTest::newRow("half median") << QList<qint64> {4, 1, 3, 2} << "10|4|2.5|2.5|1|4|1.3";
        // The two sem_wait durations from a published `nsys stats` osrt_sum: nsys printed
        // Avg/Med 167,993,715.5 and StdDev 233,376,198.5 = |a - b| / sqrt(2) (sample stdev).
        QTest::newRow("nsys osrt_sum sem_wait") << QList<qint64> {2971823, 333015608}
                                                << "335987431|2|167993715.5|167993715.5|2971823|333015608|233376198.5";
        // Published pthread_cond_timedwait row: 3 calls, StdDev 6,745.9 (sample; population
        // would be 5,508.0).
        QTest::newRow("nsys osrt_sum 3 calls") << QList<qint64> {500068942, 500081552, 500071092}
                                               << "1500221586|3|500073862.0|500071092.0|500068942|500081552|6745.9";
    }
    void summary()
    {
        QFETCH(QList<qint64>, durations);
        QFETCH(QString, expected);
        std::vector<int64_t> values(durations.begin(), durations.end());
        const DurationSummary s = summarizeDurations(values);
        const QString got = QStringLiteral("%1|%2|%3|%4|%5|%6|%7")
                                .arg(s.total)
                                .arg(s.count)
                                .arg(QString::fromStdString(formatCell(s.avg)))
                                .arg(QString::fromStdString(formatCell(s.median)))
                                .arg(s.min)
                                .arg(s.max)
                                .arg(QString::fromStdString(formatCell(s.stdev)));
        QCOMPARE(got, expected);
    }

    void rounding_data()
    {
        QTest::addColumn<qint64>("num");
        QTest::addColumn<qint64>("den");
        QTest::addColumn<double>("expected");
        QTest::newRow("1/3") << qint64(1) << qint64(3) << 0.3;
        QTest::newRow("2/3") << qint64(2) << qint64(3) << 0.7;
        // 23/20 = 1.15 exactly: half rounds away from zero. In binary 1.15 is 1.1499999...,
        // which is why the ratio is rounded on integers.
        QTest::newRow("1.15 tie") << qint64(23) << qint64(20) << 1.2;
        QTest::newRow("-1.15 tie") << qint64(-23) << qint64(20) << -1.2;
        QTest::newRow("1.25 tie") << qint64(5) << qint64(4) << 1.3;
        QTest::newRow("huge") << (qint64(1) << 62) << qint64(2) << double(qint64(1) << 61);
    }
    void rounding()
    {
        QFETCH(qint64, num);
        QFETCH(qint64, den);
        QFETCH(double, expected);
        QCOMPARE(roundedRatio(num, den), expected);
    }

    void kernSum()
    {
        const SessionData d = handBuiltSession();
        const ReportTable t = cudaGpuKernSum(MemoryRecordSource(d));
        QCOMPARE(t.id, std::string("cuda_gpu_kern_sum"));
        QCOMPARE(headers(t),
            QStringList({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                "StdDev (ns)", "Name"}));
        // Totals: gemm 10+20+30+100 = 160; relu 50+70+60 = 180; reduce 7+13 = 20; kernD 10;
        // kernE 10. Sum 380.
        // Time (%): relu 180/380 = 47.37 -> 47.4; gemm 160/380 = 42.11 -> 42.1;
        //           reduce 20/380 = 5.26 -> 5.3; kernE, kernD 10/380 = 2.63 -> 2.6.
        // gemm: avg 40.0, median (20+30)/2 = 25.0, stdev sqrt(5000/3) = 40.8.
        // relu: 50 60 70 -> avg 60.0, median 60.0, stdev sqrt((100+0+100)/2) = 10.0.
        // reduce: 7, 13 -> avg 10.0, median 10.0, stdev |13-7|/sqrt(2) = 4.24 -> 4.2.
        // kernE (1 instance) sorts before kernD (2 instances) at equal totals.
        QCOMPARE(allRows(t),
            QStringList({
                "47.4|180|3|60.0|60.0|50|70|10.0|relu_kernel",
                "42.1|160|4|40.0|25.0|10|100|40.8|void gemm<float>(float*, int)",
                "5.3|20|2|10.0|10.0|7|13|4.2|reduce(float*, int)",
                "2.6|10|1|10.0|10.0|10|10|0.0|kernE",
                "2.6|10|2|5.0|5.0|5|5|0.0|kernD",
            }));
    }

    void kernSumBaseNames()
    {
        const SessionData d = handBuiltSession();
        const ReportTable t = computeReport("cuda_gpu_kern_sum:base", MemoryRecordSource(d));
        const int name = t.columnIndex("Name");
        QStringList names;
        for (const auto& row : t.rows)
            names << QString::fromStdString(std::get<std::string>(row.at(static_cast<size_t>(name))));
        // No short names were recorded: derived from the full names.
        QCOMPARE(names, QStringList({"relu_kernel", "gemm", "reduce", "kernE", "kernD"}));
    }

    void apiSum()
    {
        const SessionData d = handBuiltSession();
        const ReportTable t = cudaApiSum(MemoryRecordSource(d));
        QCOMPARE(headers(t),
            QStringList({"Time (%)", "Total Time (ns)", "Num Calls", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                "StdDev (ns)", "Name"}));
        // Runtime calls only (the two driver calls are left out).
        // cudaLaunchKernel_v7000: 10 50 5 10 10 5 -> total 90, avg 15.0; sorted 5 5 10 10 10 50
        //   -> median (10+10)/2 = 10.0; devs -5 35 -10 -5 -5 -10 -> 25+1225+100+25+25+100 = 1500;
        //   /5 = 300; sqrt = 17.32 -> 17.3.
        // cudaMemcpy_v3020: 100 200 -> avg/med 150.0, stdev 100/sqrt(2) = 70.71 -> 70.7.
        // cudaGetDeviceProperties_v2_v12000: 800. nsys strips only when substr(name, -6, 2) is
        // "_v" (a 4-digit version); here it is "v1", so the name stays as recorded.
        // cudaProfilerStart: 4 (no suffix, unchanged).
        // Sum 90 + 300 + 800 + 4 = 1194: 800/1194 = 67.00 -> 67.0; 300/1194 = 25.13 -> 25.1;
        // 90/1194 = 7.54 -> 7.5; 4/1194 = 0.34 -> 0.3.
        QCOMPARE(allRows(t),
            QStringList({
                "67.0|800|1|800.0|800.0|800|800|0.0|cudaGetDeviceProperties_v2_v12000",
                "25.1|300|2|150.0|150.0|100|200|70.7|cudaMemcpy",
                "7.5|90|6|15.0|10.0|5|50|17.3|cudaLaunchKernel",
                "0.3|4|1|4.0|4.0|4|4|0.0|cudaProfilerStart",
            }));
    }

    void versionSuffix_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("stripped");
        QTest::newRow("v7000") << "cudaLaunchKernel_v7000"
                               << "cudaLaunchKernel";
        QTest::newRow("v3020") << "cudaMemcpy_v3020"
                               << "cudaMemcpy";
        // A 5-digit version: substr(name, -6, 2) is "v1", nsys keeps the name.
        QTest::newRow("5-digit version") << "cudaGetDeviceProperties_v2_v12000"
                                         << "cudaGetDeviceProperties_v2_v12000";
        // substr(name, -6, 2) of "cuGetProcAddress_v2" is "ss": kept.
        QTest::newRow("short suffix") << "cuGetProcAddress_v2"
                                      << "cuGetProcAddress_v2";
        QTest::newRow("plain") << "cudaFree"
                               << "cudaFree";
        QTest::newRow("exactly six") << "_v1234"
                                     << "";
        QTest::newRow("too short") << "_v12"
                                   << "_v12";
    }
    void versionSuffix()
    {
        QFETCH(QString, name);
        QFETCH(QString, stripped);
        const std::string n = name.toStdString();
        QCOMPARE(QString::fromStdString(std::string(stripApiVersionSuffix(n))), stripped);
    }

    void nvtxSumReport()
    {
        const SessionData d = handBuiltSession();
        const ReportTable t = nvtxSum(MemoryRecordSource(d));
        QCOMPARE(headers(t),
            QStringList({"Time (%)", "Total Time (ns)", "Instances", "Avg (ns)", "Med (ns)", "Min (ns)", "Max (ns)",
                "StdDev (ns)", "Style", "Range"}));
        // outer 10000; inner 1000 500 300 -> total 1800, avg 600.0, median 500.0, stdev:
        // devs 400 -100 -300 -> 160000+10000+90000 = 260000; /2 = 130000; sqrt = 360.56 -> 360.6.
        // load start/end 2000 and load push/pop 100 are separate rows (style is part of the key).
        // cuBLAS:gemm 100 carries its domain. Sum 10000+1800+2000+100+100 = 14000:
        // 71.43 -> 71.4, 14.29 -> 14.3, 12.86 -> 12.9, 0.71 -> 0.7 twice. Equal totals and
        // counts: "cuBLAS:gemm" sorts before "load".
        QCOMPARE(allRows(t),
            QStringList({
                "71.4|10000|1|10000.0|10000.0|10000|10000|0.0|PushPop|outer",
                "14.3|2000|1|2000.0|2000.0|2000|2000|0.0|StartEnd|load",
                "12.9|1800|3|600.0|500.0|300|1000|360.6|PushPop|inner",
                "0.7|100|1|100.0|100.0|100|100|0.0|PushPop|cuBLAS:gemm",
                "0.7|100|1|100.0|100.0|100|100|0.0|PushPop|load",
            }));
    }

    void execTrace()
    {
        const SessionData d = handBuiltSession();
        const ReportTable t = cudaKernExecTrace(MemoryRecordSource(d));
        QCOMPARE(headers(t),
            QStringList({"API Start (ns)", "API Dur (ns)", "Queue Start (ns)", "Queue Dur (ns)", "Kernel Start (ns)",
                "Kernel Dur (ns)", "Total Dur (ns)", "PID", "TID", "DevId", "API Function", "GridXYZ", "BlockXYZ",
                "Kernel Name"}));
        const QString grid = QStringLiteral(" 128    1    1");
        const QString block = QStringLiteral(" 256    2    1");
        const QString tail = QLatin1Char('|') + grid + QLatin1Char('|') + block + QLatin1Char('|');
        // Sorted by API start. Queue = k.start - api.end when >= 0, else NULL (empty).
        // Total = max(api.end, k.end) - api.start.
        QCOMPARE(allRows(t),
            QStringList({
                // api [1000,1010], k [1020,1030]: queue 1010 +10; total 1030-1000 = 30.
                "1000|10|1010|10|1020|10|30|100|101|0|cudaLaunchKernel" + tail + kGemm,
                // api [1100,1150], k [1140,1160]: started before the call returned ->
                // no queue; total 1160-1100 = 60.
                "1100|50|||1140|20|60|100|101|0|cudaLaunchKernel" + tail + kGemm,
                // api [1200,1205], k [1205,1235]: queue of exactly 0 is kept; total 35.
                "1200|5|1205|0|1205|30|35|100|101|0|cudaLaunchKernel" + tail + kGemm,
                // driver launch on the worker thread (cuBLAS): api [1300,1320],
                // k [1400,1500]: queue 80, total 200.
                "1300|20|1320|80|1400|100|200|100|102|0|cuLaunchKernelEx" + tail + kGemm,
                // corr 5 has a runtime and a nested driver call: the runtime one wins.
                // api [2000,2010], k [2050,2100]: queue 40, total 100.
                "2000|10|2010|40|2050|50|100|100|101|0|cudaLaunchKernel" + tail + "relu_kernel",
                // api [2150,2160], k [2200,2270]: queue 40, total 120.
                "2150|10|2160|40|2200|70|120|100|101|0|cudaLaunchKernel" + tail + "relu_kernel",
                // api [2990,2995], k [3000,3007]: queue 5, total 17; name demangled here.
                "2990|5|2995|5|3000|7|17|100|101|0|cudaLaunchKernel" + tail + "reduce(float*, int)",
            }));
        // Left out: relu/kernD/kernE without a launch (corr 0), and pid 200's kernel whose
        // correlation id 1 exists only in pid 100.
        const int queueDur = t.columnIndex("Queue Dur");
        QVERIFY(std::holds_alternative<std::monostate>(t.rows.at(1).at(static_cast<size_t>(queueDur))));
    }

    void zeroTotalsGiveNullShare()
    {
        // SQLite's total * 100.0 / 0 is NULL, so a report of zero-length calls has no Time (%).
        Builder b;
        b.api(kMain, 1, 50, 50, "cudaFree");
        b.api(kMain, 2, 60, 60, "cudaFree");
        const ReportTable t = cudaApiSum(MemoryRecordSource(b.d));
        QCOMPARE(allRows(t), QStringList({"|0|2|0.0|0.0|0|0|0.0|cudaFree"}));
    }

    void emptySession()
    {
        const SessionData d;
        for (const auto& info : availableReports()) {
            const ReportTable t = computeReport(info.id, MemoryRecordSource(d));
            QVERIFY(!t.columns.empty());
            QVERIFY(t.rows.empty());
        }
    }

    void unknownReports_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("unknown") << "cuda_gpu_sum";
        QTest::newRow("empty") << "";
        QTest::newRow("bad option") << "cuda_gpu_kern_sum:fancy";
        QTest::newRow("option not taken") << "nvtx_sum:base";
        QTest::newRow("projection takes no option") << "nvtx_gpu_proj_sum:base";
        QTest::newRow("gap threshold not a number") << "gpu_idle_gaps:1ms";
        QTest::newRow("negative gap threshold") << "gpu_idle_gaps:-5";
    }
    void unknownReports()
    {
        QFETCH(QString, spec);
        const SessionData d;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeReport(spec.toStdString(), MemoryRecordSource(d)));
    }

    void timeSpan()
    {
        const SessionData d = handBuiltSession();
        const TimeSpan span = MemoryRecordSource(d).timeSpan();
        QVERIFY(span.valid);
        QCOMPARE(span.begin, TimeNs(0));   // the outer NVTX range
        QCOMPARE(span.end, TimeNs(10000)); // ... which also ends last
        QVERIFY(!MemoryRecordSource(SessionData()).timeSpan().valid);
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
