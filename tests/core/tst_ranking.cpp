// SPDX-License-Identifier: MIT
// Kernel ranking (core/ranking): statistics worked out by hand on a small session, the
// overlap semantics of the time window, a brute-force check of the windowed scan, and the
// ranking of a real H200 session against cuda_gpu_kern_sum (the CLI's report) over the same
// launches, whole and through WindowedSource.
#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/ranking/compactname.h"
#include "core/ranking/kernelranking.h"
#include "core/ranking/launchidle.h"
#include "core/ranking/launchtablelanes.h"
#include "core/ranking/launchtableread.h"
#include "core/ranking/windowedsource.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <QtTest>

#include <map>
#include <random>

using namespace ws;

namespace {

struct Builder {
    SessionData d;
    int64_t nextId = 1;
    KernelRecord& kernel(TimeNs start, TimeNs end, const char* demangled, int32_t gridX = 1, uint32_t stream = 7)
    {
        KernelRecord k;
        k.id = nextId++;
        k.pid = 10;
        k.streamId = stream;
        k.start = start;
        k.end = end;
        k.demangledName = d.strings.intern(demangled);
        k.gridX = gridX;
        k.gridY = k.gridZ = 1;
        k.blockX = 128;
        k.blockY = k.blockZ = 1;
        d.kernels.push_back(k);
        return d.kernels.back();
    }
};

const KernelRank* rankOf(const std::vector<KernelRank>& ranks, const KernelLaunchTable& t, const std::string& name)
{
    for (const KernelRank& r : ranks) {
        if (t.groups()[r.group].name == name)
            return &r;
    }
    return nullptr;
}

std::string fixture(const char* rel)
{
    return std::string(WS_FIXTURES_DIR) + "/" + rel;
}

// Launch by launch, every field of `got` equals `want`'s, names and configurations included
// (both tables number them in the same order).
void compareLaunches(const KernelLaunchTable& got, const KernelLaunchTable& want)
{
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const auto& a = got.launches()[i];
        const auto& b = want.launches()[i];
        QCOMPARE(a.id, b.id);
        QCOMPARE(a.start, b.start);
        QCOMPARE(a.end, b.end);
        QCOMPARE(a.pid, b.pid);
        QCOMPARE(a.streamId, b.streamId);
        QCOMPARE(a.deviceId, b.deviceId);
        QCOMPARE(got.groups()[a.group].name, want.groups()[b.group].name);
        QCOMPARE(a.group, b.group);
        QVERIFY(got.configs()[a.config] == want.configs()[b.config]);
        QCOMPARE(a.config, b.config);
    }
}

} // namespace

class TestRanking : public QObject {
    Q_OBJECT
private slots:
    void statisticsByHand()
    {
        Builder b;
        // gemm: 100, 300, 200 ns -> total 600, avg 200, median 200, min 100, max 300.
        b.kernel(0, 100, "void gemm<float>(float*)");
        b.kernel(1000, 1300, "void gemm<float>(float*)");
        b.kernel(2000, 2200, "void gemm<float>(float*)");
        // relu: 50, 150 ns -> total 200, avg 100, median (50+150)/2 = 100.
        b.kernel(500, 550, "relu_kernel");
        b.kernel(1500, 1650, "relu_kernel");
        // copy: 200 ns once: the same total as relu with fewer calls, so it ranks before relu.
        b.kernel(3000, 3200, "copy_kernel");
        const MemoryRecordSource src(b.d);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        QCOMPARE(t.size(), size_t {6});
        QCOMPARE(t.groups().size(), size_t {3});
        const auto ranks = rankKernels(t);
        QCOMPARE(ranks.size(), size_t {3});
        // Order: total desc; ties by calls asc (copy 1 call before relu 2 calls).
        QCOMPARE(QString::fromStdString(t.groups()[ranks[0].group].name), QStringLiteral("void gemm<float>(float*)"));
        QCOMPARE(QString::fromStdString(t.groups()[ranks[1].group].name), QStringLiteral("copy_kernel"));
        QCOMPARE(QString::fromStdString(t.groups()[ranks[2].group].name), QStringLiteral("relu_kernel"));
        const KernelRank& g = ranks[0];
        QCOMPARE(g.calls, int64_t {3});
        QCOMPARE(g.totalNs, int64_t {600});
        QCOMPARE(g.avgNs, 200.0);
        QCOMPARE(g.medianNs, 200.0);
        QCOMPARE(g.minNs, int64_t {100});
        QCOMPARE(g.maxNs, int64_t {300});
        // share = 600 / (600 + 200 + 200) = 60.0 %
        QCOMPARE(g.sharePct, 60.0);
        const KernelRank& r = ranks[2];
        QCOMPARE(r.medianNs, 100.0);
        QCOMPARE(r.sharePct, 20.0);
        // The short name is derived from the demangled one.
        QCOMPARE(QString::fromStdString(t.groups()[g.group].shortName), QStringLiteral("gemm"));
        // Two configurations (grid 1 everywhere, one device): launches share one config.
        QCOMPARE(t.configs().size(), size_t {1});
    }

    void window_data()
    {
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<int>("longCalls");
        QTest::addColumn<int>("shortCalls");
        QTest::addColumn<int>("zeroCalls");
        // long: [0, 1000); short: [100,110), [500,510), [990,1000); zero-length at 600.
        QTest::newRow("everything (empty window)") << qint64(0) << qint64(0) << 1 << 3 << 1;
        QTest::newRow("inside the long kernel only") << qint64(200) << qint64(300) << 1 << 0 << 0;
        QTest::newRow("touching a start is in") << qint64(500) << qint64(501) << 1 << 1 << 0;
        QTest::newRow("touching an end is out") << qint64(510) << qint64(520) << 1 << 0 << 0;
        QTest::newRow("zero-length inside") << qint64(600) << qint64(601) << 1 << 0 << 1;
        QTest::newRow("zero-length at the end is out") << qint64(590) << qint64(600) << 1 << 0 << 0;
        QTest::newRow("after everything") << qint64(1000) << qint64(2000) << 0 << 0 << 0;
        QTest::newRow("all") << qint64(-5) << qint64(5000) << 1 << 3 << 1;
    }
    void window()
    {
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(int, longCalls);
        QFETCH(int, shortCalls);
        QFETCH(int, zeroCalls);
        Builder b;
        b.kernel(0, 1000, "long");
        b.kernel(100, 110, "short");
        b.kernel(500, 510, "short");
        b.kernel(990, 1000, "short");
        b.kernel(600, 600, "zero");
        const MemoryRecordSource src(b.d);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        const auto ranks = rankKernels(t, {begin, end});
        auto calls = [&](const char* n) {
            const KernelRank* r = rankOf(ranks, t, n);
            return r ? static_cast<int>(r->calls) : 0;
        };
        QCOMPARE(calls("long"), longCalls);
        QCOMPARE(calls("short"), shortCalls);
        QCOMPARE(calls("zero"), zeroCalls);
        // Whole durations count, never clipped to the window.
        if (const KernelRank* r = rankOf(ranks, t, "long"))
            QCOMPARE(r->totalNs, int64_t {1000});
    }

    void windowedScanMatchesBruteForce()
    {
        std::mt19937_64 rng(42);
        Builder b;
        std::uniform_int_distribution<int> startDist(0, 1'000'000);
        std::uniform_int_distribution<int> lenDist(0, 20'000);
        const char* names[] = {"a", "b", "c", "d"};
        for (int i = 0; i < 3000; ++i) {
            const TimeNs s = startDist(rng);
            b.kernel(s, s + (i % 97 == 0 ? 200'000 : lenDist(rng)), names[i % 4], 1, static_cast<uint32_t>(i % 5));
        }
        const MemoryRecordSource src(b.d);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        for (int w = 0; w < 200; ++w) {
            const TimeNs a = startDist(rng);
            const TimeWindow window {a, a + lenDist(rng) * 5 + 1};
            std::vector<int64_t> scanned;
            t.forEachIn(window, [&](const KernelLaunchTable::Launch& l) { scanned.push_back(l.id); });
            std::vector<int64_t> brute;
            for (const KernelRecord& k : b.d.kernels) {
                if (k.start < window.end && (k.end > window.begin || (k.end == k.start && k.start >= window.begin)))
                    brute.push_back(k.id);
            }
            std::sort(scanned.begin(), scanned.end());
            std::sort(brute.begin(), brute.end());
            QCOMPARE(scanned, brute);
        }
    }

    void lookups()
    {
        Builder b;
        b.kernel(0, 10, "k", 4);
        b.kernel(20, 100, "k", 8);
        b.kernel(200, 250, "k", 4);
        b.kernel(5, 6, "other", 4);
        const MemoryRecordSource src(b.d);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        QCOMPARE(t.configs().size(), size_t {2});
        const int k = t.groupIndex("k");
        QVERIFY(k >= 0);
        QCOMPARE(t.groupIndex("missing"), -1);
        const auto* longest = t.longestOf(static_cast<uint32_t>(k));
        QVERIFY(longest);
        QCOMPARE(longest->id, int64_t {2});
        QCOMPARE(t.configs()[longest->config].grid[0], 8);
        QVERIFY(t.find(4));
        QCOMPARE(t.find(4)->start, TimeNs {5});
        QVERIFY(!t.find(99));
        // Sorted by start.
        QCOMPARE(t.launches()[1].id, int64_t {4});
    }

    // The ranking is the kernel summary the CLI prints, reorganised: on a real H200 session
    // every name has the same count, total, average, median, min, max and share.
    void equalsKernSumOnH200Sessions_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("gemm_relu") << QStringLiteral("recorder/sessions/gemm_relu.wscope");
        QTest::newRow("torch_nvtx") << QStringLiteral("recorder/sessions/torch_nvtx.wscope");
        QTest::newRow("launch_2k") << QStringLiteral("recorder/sessions/launch_2k.wscope");
        QTest::newRow("children") << QStringLiteral("recorder/sessions/children.wscope");
    }
    void equalsKernSumOnH200Sessions()
    {
        QFETCH(QString, file);
        const SessionReader reader(fixture(file.toUtf8().constData()));
        const SessionFileSource src(reader);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        QVERIFY(!t.empty());
        const TimeSpan span = src.timeSpan();
        // Whole session, and the middle third through WindowedSource.
        const TimeNs third = (span.end - span.begin) / 3;
        for (const TimeWindow w : {TimeWindow {}, TimeWindow {span.begin + third, span.begin + 2 * third}}) {
            const WindowedSource windowed(src, w);
            const ReportTable report = cudaGpuKernSum(windowed);
            const auto ranks = rankKernels(t, w);
            QCOMPARE(ranks.size(), report.rows.size());
            for (size_t i = 0; i < ranks.size(); ++i) {
                const auto& row = report.rows[i];
                const KernelRank& r = ranks[i];
                QCOMPARE(QString::fromStdString(t.groups()[r.group].name),
                    QString::fromStdString(std::get<std::string>(row[8])));
                QCOMPARE(std::get<double>(row[0]), r.sharePct);
                QCOMPARE(std::get<int64_t>(row[1]), r.totalNs);
                QCOMPARE(std::get<int64_t>(row[2]), r.calls);
                QCOMPARE(std::get<double>(row[3]), r.avgNs);
                QCOMPARE(std::get<double>(row[4]), r.medianNs);
                QCOMPARE(std::get<int64_t>(row[5]), r.minNs);
                QCOMPARE(std::get<int64_t>(row[6]), r.maxNs);
                QCOMPARE(std::get<double>(row[7]), r.stdevNs);
            }
        }
    }

    void compactNames_data()
    {
        QTest::addColumn<QString>("demangled");
        QTest::addColumn<QString>("compact");
        QTest::newRow("plain C") << "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN"
                                 << "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NTN";
        QTest::newRow("return type, qualifiers, params")
            << "void at::native::vectorized_elementwise_kernel<4, F>(int, F)"
            << "vectorized_elementwise_kernel<4, F>";
        QTest::newRow("anonymous namespace") << "void at::(anonymous namespace)::fill<float>(float*, int)"
                                             << "fill<float>";
        QTest::newRow("anonymous namespace, no params") << "at::(anonymous namespace)::kern"
                                                        << "kern";
        QTest::newRow("qualifiers inside templates stay")
            << "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MaxOps<float>>>(T3)"
            // 78 characters after compaction, so the default 60-character limit elides the middle:
            // head 44, "\u2026", tail 15; the qualifiers inside the template arguments are kept.
            << QStringLiteral("reduce_kernel<512, 1, at::native::ReduceOp<f\u2026MaxOps<float>>>");
        QTest::newRow("<unnamed> qualifier") << "void at::<unnamed>::distribution_kernel<float>(long)"
                                             << "distribution_kernel<float>";
        // 2 + 94 + 1 = 97 characters: head 44 ("k<" + 42 a), "…", tail 15 (14 a + ">").
        const QString as(94, QLatin1Char('a'));
        QTest::newRow("elided") << "void k<" + as + ">()"
                                << "k<" + QString(42, QLatin1Char('a')) + QChar(0x2026) + QString(14, QLatin1Char('a'))
                + ">";
    }
    void compactNames()
    {
        QFETCH(QString, demangled);
        QFETCH(QString, compact);
        QCOMPARE(QString::fromStdString(compactKernelName(demangled.toStdString())), compact);
    }

    void windowedSourceFiltersEveryTable()
    {
        SessionData d;
        auto api = [&](TimeNs s, TimeNs e) {
            ApiCallRecord a;
            a.id = static_cast<int64_t>(d.apiCalls.size() + 1);
            a.start = s;
            a.end = e;
            d.apiCalls.push_back(a);
        };
        api(0, 10);
        api(50, 60);
        NvtxRangeRecord r;
        r.start = 0;
        r.end = 1000;
        d.nvtxRanges.push_back(r);
        NvtxMarkRecord m;
        m.ts = 55;
        d.nvtxMarks.push_back(m);
        MemcpyRecord c;
        c.start = 100;
        c.end = 200;
        d.memcpys.push_back(c);
        const MemoryRecordSource src(d);
        const WindowedSource w(src, {40, 70});
        int apis = 0, ranges = 0, marks = 0, copies = 0;
        w.forEachApiCall([&](const ApiCallRecord&) { ++apis; });
        w.forEachNvtxRange([&](const NvtxRangeRecord&) { ++ranges; });
        w.forEachNvtxMark([&](const NvtxMarkRecord&) { ++marks; });
        w.forEachMemcpy([&](const MemcpyRecord&) { ++copies; });
        QCOMPARE(apis, 1);
        QCOMPARE(ranges, 1);
        QCOMPARE(marks, 1);
        QCOMPARE(copies, 0);
    }

    // The kernel panels read the launch table in id slices on several connections
    // (readKernelLaunchTable): it must be the one-pass build, field by field, whatever the number
    // of slices, on real sessions (one and two GPUs, a multi-run session whose profile runs the
    // table leaves out) and on a synthetic one of many kernel names and configurations.
    void slicedReadEqualsOneBuild_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("parts");
        const QString synth = QString::fromStdString(syntheticSession());
        for (const int parts : {2, 3, 8}) {
            for (const char* f : {"recorder/sessions/torch_nvtx.wscope", "recorder/sessions/launch_2k.wscope",
                     "multigpu/ddp-2gpu.wscope", "multirun/h200-gemm-relu-3runs.wscope"}) {
                QTest::addRow("%s/%d", f, parts) << QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(f) << parts;
            }
            QTest::addRow("synthetic/%d", parts) << synth << parts;
        }
    }
    void slicedReadEqualsOneBuild()
    {
        QFETCH(QString, file);
        QFETCH(int, parts);
        const SessionReader reader(file.toStdString());
        const SessionFileSource all(reader);
        const SessionFileSource timing(all, SessionFileSource::Runs::Timing);
        const KernelLaunchTable want = KernelLaunchTable::build(timing);
        const KernelLaunchTable got = readKernelLaunchTable(timing, {}, static_cast<unsigned>(parts));
        QVERIFY(want.size() > 0);
        compareLaunches(got, want);
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(got.groups().size(), want.groups().size());
        for (size_t g = 0; g < want.groups().size(); ++g) {
            QCOMPARE(got.groups()[g].shortName, want.groups()[g].shortName);
            QCOMPARE(got.groups()[g].mangled, want.groups()[g].mangled);
            QCOMPARE(got.longestOf(uint32_t(g))->id, want.longestOf(uint32_t(g))->id);
        }
        QVERIFY(got.configs() == want.configs());
        QCOMPARE(got.maxDuration(), want.maxDuration());
        for (const auto& l : want.launches())
            QCOMPARE(got.find(l.id)->start, l.start);
    }

    // The kernel panels build the launch table from the timeline's lanes and the lane cache's
    // launch rows (launchTableFromLanes) when the file has them: it must be the one-pass build
    // over the kernel rows, field by field, and give the same GPU busy summary and ranking, on the
    // real sessions above (rewritten by today's writer, which adds the launch rows) and on the
    // synthetic one. Their files as committed (lane cache format 1, no launch rows) give nothing,
    // and the panels read the rows.
    void laneLaunchTableEqualsOneBuild_data()
    {
        QTest::addColumn<QString>("file");
        for (const char* f : {"recorder/sessions/torch_nvtx.wscope", "recorder/sessions/launch_2k.wscope",
                 "multigpu/ddp-2gpu.wscope", "multirun/h200-gemm-relu-3runs.wscope"}) {
            QTest::addRow("%s", f) << QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(f);
        }
        QTest::addRow("synthetic") << QString::fromStdString(syntheticSession());
    }
    void laneLaunchTableEqualsOneBuild()
    {
        QFETCH(QString, file);
        {
            // As committed: no launch rows, so no table from the lanes.
            const SessionReader reader(file.toStdString());
            const auto model = TimelineModel::load(reader);
            const SessionFileSource timing(reader, SessionFileSource::Runs::Timing);
            QVERIFY(!launchTableFromLanes(reader, *model, timing.runIds()));
        }
        const SessionReader reader(withLaunchRows(file.toStdString()));
        const auto model = TimelineModel::load(reader);
        QVERIFY(model->fromLaneCache);
        const SessionFileSource all(reader);
        const SessionFileSource timing(all, SessionFileSource::Runs::Timing);
        const KernelLaunchTable want = KernelLaunchTable::build(timing);
        const auto got = launchTableFromLanes(reader, *model, timing.runIds());
        QVERIFY(got.has_value());
        QVERIFY(want.size() > 0);
        compareLaunches(*got, want);
        if (QTest::currentTestFailed())
            return;
        for (size_t i = 0; i < want.size(); ++i)
            QCOMPARE(got->find(want.launches()[i].id), &got->launches()[i]);
        QCOMPARE(got->groups().size(), want.groups().size());
        for (size_t g = 0; g < want.groups().size(); ++g) {
            QCOMPARE(got->groups()[g].name, want.groups()[g].name);
            QCOMPARE(got->groups()[g].shortName, want.groups()[g].shortName);
            QCOMPARE(got->groups()[g].mangled, want.groups()[g].mangled);
            QCOMPARE(got->longestOf(uint32_t(g))->id, want.longestOf(uint32_t(g))->id);
        }
        QVERIFY(got->configs() == want.configs());
        QCOMPARE(got->maxDuration(), want.maxDuration());
        QVERIFY(got->find(0) == nullptr);

        // The busy summary in one pass over the table equals the sort-and-sweep over the rows.
        std::map<uint32_t, std::vector<GpuWork>> copies;
        std::vector<std::string> labels;
        addCopiesAndMemsets(timing, copies, labels);
        const std::vector<GpuBusySummary> busy = summarizeGpuBusy(*got, copies);
        const GpuIdleAnalysis idle = analyzeGpuIdle(timing);
        QCOMPARE(busy.size(), idle.devices.size());
        for (size_t d = 0; d < busy.size(); ++d) {
            QCOMPARE(busy[d].deviceId, idle.devices[d].deviceId);
            QCOMPARE(busy[d].first, idle.devices[d].first);
            QCOMPARE(busy[d].last, idle.devices[d].last);
            QCOMPARE(busy[d].operations, idle.devices[d].operations);
            QCOMPARE(busy[d].busyNs, idle.devices[d].busyNs);
            QCOMPARE(busy[d].idleNs, idle.devices[d].idleNs);
            QCOMPARE(busy[d].gaps, idle.devices[d].gaps);
            QCOMPARE(busy[d].largestGapNs, idle.devices[d].largestGapNs);
        }

        const auto gotRanks = rankKernels(*got);
        const auto wantRanks = rankKernels(want);
        QCOMPARE(gotRanks.size(), wantRanks.size());
        for (size_t r = 0; r < wantRanks.size(); ++r) {
            QCOMPARE(got->groups()[gotRanks[r].group].name, want.groups()[wantRanks[r].group].name);
            QCOMPARE(gotRanks[r].calls, wantRanks[r].calls);
            QCOMPARE(gotRanks[r].totalNs, wantRanks[r].totalNs);
            QCOMPARE(gotRanks[r].medianNs, wantRanks[r].medianNs);
            QCOMPARE(gotRanks[r].stdevNs, wantRanks[r].stdevNs);
        }
    }

    // A launch row that does not match its checksum is damage, named as such; launch rows that
    // describe other lanes than the file's (a lane cache edited by hand) give no table.
    void damagedLaunchRowIsReported()
    {
        const std::string path = withLaunchRows(fixture("recorder/sessions/launch_2k.wscope"));
        const SessionReader reader(path);
        const auto model = TimelineModel::load(reader);
        auto other = std::make_shared<TimelineModel>(*model);
        for (TimelineLane& lane : other->lanes) {
            if (lane.kind == LaneKind::GpuStream)
                lane.streamId += 1000;
        }
        QVERIFY(!launchTableFromLanes(reader, *other, {}));

        QTemporaryDir dir;
        const QString damaged = dir.filePath(QStringLiteral("damaged.wscope"));
        QVERIFY(QFile::copy(QString::fromStdString(path), damaged));
        {
            QProcess sqlite;
            sqlite.start(QStringLiteral("sqlite3"),
                {damaged,
                    QStringLiteral("UPDATE lane_blob SET data = substr(data, 1, length(data) - 4) "
                                   "WHERE lane_key LIKE 'launch/%'")});
            if (!sqlite.waitForFinished() || sqlite.exitCode() != 0)
                QSKIP("sqlite3 is not available");
        }
        const SessionReader broken(damaged.toStdString());
        try {
            (void)launchTableFromLanes(broken, *TimelineModel::load(broken), {});
            QFAIL("a damaged launch row was read");
        } catch (const SessionError& e) {
            QCOMPARE(e.kind(), SessionError::Kind::Corrupted);
            QVERIFY(QString::fromUtf8(e.what()).contains(QLatin1String("launch/")));
        }
    }

    // find() by id: dense ids are placed by id, sparse and repeated ids sorted; each gives the
    // launch with that id (with a repeated id, the first of them in start order).
    void findsLaunchesById_data()
    {
        QTest::addColumn<std::vector<int64_t>>("ids"); // in start order
        QTest::newRow("dense") << std::vector<int64_t> {3, 1, 2, 5, 4};
        QTest::newRow("sparse") << std::vector<int64_t> {500'000'000, 1, 70'000};
        QTest::newRow("repeated") << std::vector<int64_t> {2, 1, 2, 3};
    }
    void findsLaunchesById()
    {
        QFETCH(std::vector<int64_t>, ids);
        Builder b;
        for (size_t i = 0; i < ids.size(); ++i)
            b.kernel(TimeNs(100 * i), TimeNs(100 * i + 50), "k").id = ids[i];
        const MemoryRecordSource src(b.d);
        const KernelLaunchTable t = KernelLaunchTable::build(src);
        for (size_t i = 0; i < ids.size(); ++i) {
            const size_t first = size_t(std::find(ids.begin(), ids.end(), ids[i]) - ids.begin());
            const KernelLaunchTable::Launch* l = t.find(ids[i]);
            QVERIFY(l != nullptr);
            QCOMPARE(l->start, TimeNs(100 * first));
        }
        QVERIFY(t.find(6) == nullptr);
        QVERIFY(t.find(0) == nullptr);
    }

private:
    // `source` written again by today's writer with the lane cache (and its launch rows), once
    // per run of the suite.
    static std::string withLaunchRows(const std::string& source)
    {
        static QTemporaryDir dir;
        static std::map<std::string, std::string> written;
        auto [it, added] = written.try_emplace(source);
        if (added) {
            it->second = dir.filePath(QStringLiteral("rewritten-%1.wscope").arg(written.size())).toStdString();
            const SessionData data = SessionReader(source).readAll();
            SessionWriter writer(it->second);
            attachLaneCache(writer);
            writer.write(data);
            writer.commit();
        }
        return it->second;
    }

    // 60k synthetic events (kernels of many names and configurations on several streams),
    // written once per run of the suite.
    static std::string syntheticSession()
    {
        static QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("synth.wscope")).toStdString();
        if (!QFileInfo::exists(QString::fromStdString(path))) {
            SynthOptions options;
            options.events = 60'000;
            options.seed = 11;
            SessionWriter writer(path);
            writeSyntheticSession(options, writer);
            writer.commit();
        }
        return path;
    }
};

QTEST_GUILESS_MAIN(TestRanking)
#include "tst_ranking.moc"
