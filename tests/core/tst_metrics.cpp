// SPDX-License-Identifier: MIT
// core/metrics: the profile configuration and result formats (round trips through real files,
// truncation, errors naming file and line), the result -> session mapping (launch metrics from
// the occupancy calculator, breakdown placement, derived metrics, kernel times, a session
// written and read back through the store), the ncu CSV reader and the comparison rules.
#include "core/metrics/ncucomparison.h"
#include "core/metrics/ncucsv.h"
#include "core/metrics/profileconfig.h"
#include "core/metrics/profiledescription.h"
#include "core/metrics/profileingest.h"
#include "core/metrics/profileresult.h"
#include "core/metrics/replaypasses.h"
#include "core/metrics/sectioncatalog.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace ws;

namespace {

const std::string kSections = std::string(WS_RESOURCES_DIR) + "/sections";

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

DeviceInfo h200()
{
    DeviceInfo d;
    d.id = 0;
    d.name = "NVIDIA H200";
    d.uuid = "GPU-0";
    d.ccMajor = 9;
    d.smCount = 132;
    d.regsPerSm = 65536;
    d.regsPerBlock = 65536;
    d.smemPerSm = 233472;
    d.smemPerBlock = 49152;
    d.smemPerBlockOptin = 232448;
    d.smemReservedPerBlock = 1024;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxThreadsPerBlock = 1024;
    d.warpSize = 32;
    d.dramBandwidthBytesPerS = 4.8e12;
    return d;
}

// One process that profiled a GEMM (cluster launch, 168 registers) and a ReLU, as the
// injection library writes it.
ProfileResult sampleResult()
{
    ProfileResult r;
    r.pid = 4242;
    r.processName = "gemm relu";
    r.devices.push_back(h200());
    r.metrics = {{"gpu__time_duration.sum", "nanosecond", "GPU time", ""},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "percent", "SM throughput", ""},
        {"sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed", "inst", "lsu",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "ffma", ""},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "fadd", ""},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "fmul", ""},
        {"dram__bytes.sum", "byte", "dram bytes", ""}};
    ProfiledLaunch gemm;
    gemm.index = 0;
    gemm.streamId = 7;
    gemm.contextId = 1;
    gemm.hostStartNs = 5000;
    gemm.mangledName = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
    gemm.gridX = 2, gemm.gridY = 66, gemm.gridZ = 1;
    gemm.blockX = 384, gemm.blockY = 1, gemm.blockZ = 1;
    gemm.clusterX = 2, gemm.clusterY = 1, gemm.clusterZ = 1;
    gemm.registersPerThread = 168;
    gemm.dynamicSmemBytes = 213188;
    gemm.maxDynamicSmemBytes = 232448;
    gemm.values = {{0, 172992}, {1, 89.99}, {2, 12.5}, {3, 0}, {4, 0}, {5, 0}, {6, 196345000}};
    ProfiledLaunch relu;
    relu.index = 1;
    relu.streamId = 7;
    relu.contextId = 1;
    relu.hostStartNs = 1000; // launched first (host order differs from index on purpose)
    relu.mangledName = "_Z11relu_kernelP13__nv_bfloat16m";
    relu.gridX = 65536, relu.gridY = 1, relu.gridZ = 1;
    relu.blockX = 256, relu.blockY = 1, relu.blockZ = 1;
    relu.registersPerThread = 8;
    relu.maxDynamicSmemBytes = 49152;
    relu.values = {{0, 15584}, {1, 7.49}, {3, 1000}, {4, 10}, {5, 20}, {6, 0}};
    r.launches = {gemm, relu};
    r.info = {{"passes", "26"}, {"chip", "GH100"}, {"anchor_realtime_ns", "1700000000000000000"},
        {"anchor_monotonic_ns", "900"}};
    r.notes = {"CUDA graph launches are not profiled"};
    r.complete = true;
    return r;
}

std::string serialize(const ProfileResult& r, const std::string& path)
{
    {
        ProfileResultWriter w;
        if (!w.open(path))
            return {};
        w.process(r.pid, r.processName);
        for (const auto& d : r.devices)
            w.device(d);
        for (uint32_t i = 0; i < r.metrics.size(); ++i)
            w.metric(i, r.metrics[i]);
        for (const auto& [k, v] : r.info)
            w.info(k, v);
        for (const auto& n : r.notes)
            w.note(n);
        for (const auto& l : r.launches) {
            ProfiledLaunch bare = l;
            bare.values.clear();
            w.launch(bare);
            w.values(l.index, l.values);
        }
        if (r.complete)
            w.end();
    }
    return readFile(path);
}

const KernelMetric* metricOf(const SessionData& s, int64_t kernel, const std::string& name)
{
    for (const auto& d : s.metricDefs) {
        if (d.name != name)
            continue;
        for (const auto& m : s.kernelMetrics)
            if (m.kernelId == kernel && m.metricId == d.id)
                return &m;
    }
    return nullptr;
}

const MetricDef* defOf(const SessionData& s, const std::string& name)
{
    for (const auto& d : s.metricDefs)
        if (d.name == name)
            return &d;
    return nullptr;
}

// "key=value" rows of a data-driven case, as a map (the value may hold '=').
std::map<std::string, std::string> keyValues(const QStringList& rows)
{
    std::map<std::string, std::string> m;
    for (const QString& kv : rows)
        m[kv.section('=', 0, 0).toStdString()] = kv.section('=', 1).toStdString();
    return m;
}

} // namespace

class TestMetrics : public QObject {
    Q_OBJECT

private slots:
    void configRoundTrip()
    {
        ProfileConfig c;
        c.outputDir = "/tmp/out dir";
        c.kernelRegex = "^relu|gemm$";
        c.launchSkip = 3;
        c.launchCount = 7;
        c.verbose = true;
        c.captureProfilerApi = true;
        c.cacheControl = ProfileConfig::CacheControl::All;
        c.counters = {{"sm__throughput.avg.pct_of_peak_sustained_elapsed", ArchFilter(), false},
            {"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", ArchFilter::parse("75-86,90-"), true}};
        QTemporaryDir dir;
        const std::string path = dir.filePath("config.txt").toStdString();
        c.writeFile(path);
        const auto back = ProfileConfig::readFile(path);
        QCOMPARE(QString::fromStdString(back.outputDir), QString::fromStdString(c.outputDir));
        QCOMPARE(QString::fromStdString(back.kernelRegex), QString::fromStdString(c.kernelRegex));
        QCOMPARE(back.launchSkip, c.launchSkip);
        QCOMPARE(back.launchCount, c.launchCount);
        QCOMPARE(back.verbose, true);
        QCOMPARE(back.captureProfilerApi, true);
        QCOMPARE(ProfileConfig::readFile(path).captureProfilerApi, true);
        QVERIFY(back.cacheControl == ProfileConfig::CacheControl::All);
        QCOMPARE(back.counters.size(), size_t(2));
        QVERIFY(back.counters[0] == c.counters[0]);
        QVERIFY(back.counters[1] == c.counters[1]);
    }

    // Without the option the library profiles from the start, as before the option existed.
    void configWithoutCaptureRangeProfilesFromTheStart()
    {
        ProfileConfig c;
        c.outputDir = "/x";
        QVERIFY(c.serialize().find("capture-range") == std::string::npos);
        QCOMPARE(ProfileConfig::parse(c.serialize(), "cfg").captureProfilerApi, false);
    }

    void configErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        QTest::newRow("not a config") << "hello\n"
                                      << "cfg:1:";
        QTest::newRow("bad number") << "warpscope-profile-config 1\noutput /x\nlaunch-skip many\n"
                                    << "cfg:3:";
        QTest::newRow("bad arch") << "warpscope-profile-config 1\noutput /x\nmetric x9 a.sum\n"
                                  << "cfg:3:";
        QTest::newRow("metric without name") << "warpscope-profile-config 1\noutput /x\nmetric *\n"
                                             << "cfg:3:";
        QTest::newRow("bad cache control") << "warpscope-profile-config 1\noutput /x\ncache-control some\n"
                                           << "cfg:3:";
        QTest::newRow("unknown capture range") << "warpscope-profile-config 1\noutput /x\ncapture-range nvtx:step\n"
                                               << "cfg:3:";
        QTest::newRow("no output") << "warpscope-profile-config 1\n"
                                   << "cfg: no 'output'";
        QTest::newRow("empty") << ""
                               << "cfg: empty";
    }
    void configErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        try {
            ProfileConfig::parse(text.toStdString(), "cfg");
            QFAIL("no error");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(where), e.what());
        }
    }

    void resultRoundTrip()
    {
        QTemporaryDir dir;
        const auto in = sampleResult();
        const std::string path = dir.filePath("profile-4242.txt").toStdString();
        QVERIFY(!serialize(in, path).empty());
        const auto out = ProfileResultReader::read(path);
        QCOMPARE(out.pid, in.pid);
        QCOMPARE(QString::fromStdString(out.processName), QString::fromStdString(in.processName));
        QCOMPARE(out.devices.size(), size_t(1));
        QVERIFY(out.devices[0] == in.devices[0]);
        QVERIFY(out.metrics == in.metrics);
        QVERIFY(out.launches == in.launches); // values at full precision (%.17g)
        QVERIFY(out.info == in.info);
        QVERIFY(out.notes == in.notes);
        QVERIFY(out.complete);
        QVERIFY(!out.truncated);
    }

    void truncatedResultKeepsWhatWasWritten()
    {
        QTemporaryDir dir;
        auto r = sampleResult();
        r.complete = false; // the target died before its exit handler
        const std::string path = dir.filePath("p.txt").toStdString();
        std::string text = serialize(r, path);
        text += "launch 2 dev=0 ctx=1 str"; // cut in the middle of a record
        const auto out = ProfileResultReader::parse(text, path);
        QVERIFY(out.truncated);
        QVERIFY(!out.complete);
        QCOMPARE(out.launches.size(), size_t(2));
        QCOMPARE(out.launch(0)->values.size(), size_t(7));
    }

    void resultErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        const QString head = "warpscope-profile 1\n";
        QTest::newRow("not a result") << "garbage\n"
                                      << "r.txt: not a Warpscope profile result";
        QTest::newRow("empty") << ""
                               << "r.txt: empty";
        QTest::newRow("metric out of sequence") << head + "metric 3 a.sum - - x\n"
                                                << "r.txt:2:";
        QTest::newRow("values before launch") << head + "metric 0 a.sum - - x\nvalues 5 0=1\n"
                                              << "r.txt:3:";
        QTest::newRow("value of undeclared metric")
            << head + "launch 0 dev=0 ctx=0 stream=0 t=0 grid=1,1,1 block=1,1,1 cluster=0,0,0 name=k\nvalues 0 4=1\n"
            << "r.txt:3:";
        QTest::newRow("bad grid") << head + "launch 0 grid=1,1 name=k\n"
                                  << "r.txt:2:";
        QTest::newRow("unknown record") << head + "colour red\n"
                                        << "r.txt:2:";
    }
    void resultErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        try {
            ProfileResultReader::parse(text.toStdString(), "r.txt");
            QFAIL("no error");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(where), e.what());
        }
    }

    // The replay mode in the session is the one the profiler says it ran (`replay` in its result),
    // not the one the cache control implies: from 2026-12-02 to 12-03 `all` ran none's replay.
    void ingestNamesTheReplayThatRan_data()
    {
        QTest::addColumn<QString>("cache");
        QTest::addColumn<QString>("replay");
        QTest::addColumn<QString>("expected"); // substring of profile_replay_mode
        QTest::addColumn<QStringList>("info"); // more key=value of the profiler's result
        QTest::newRow("all") << "all"
                             << "ours, L2 evicted"
                             << "memory checkpoint restored and L2 evicted" << QStringList {};
        QTest::newRow("all, replayed as none") << "all"
                                               << "ours, only the blocks the kernel changes restored"
                                               << "only the memory the kernel changed restored" << QStringList {};
        QTest::newRow("none") << "none"
                              << "ours, only the blocks the kernel changes restored"
                              << "only the memory the kernel changed restored" << QStringList {};
        QTest::newRow("none, passes after the first back to back")
            << "none"
            << "ours, only the blocks the kernel changes restored; passes after the first back to back while it "
               "changes nothing"
            << "each later pass with L2 as the pass before it left it" << QStringList {};
        QTest::newRow("none, CUPTI's kernel replay") << "none"
                                                     << "CUPTI kernel replay"
                                                     << "kernel replay" << QStringList {};
        // `none`'s default from the evening of 2026-12-04: the same replay string, and the
        // profiler's pass_start_dirty says the first pass started with dirty lines not the kernel's.
        QTest::newRow("none, the first pass starting with ncu's dirty lines")
            << "none"
            << "ours, only the blocks the kernel changes restored; passes after the first back to back while it "
               "changes nothing"
            << "with about 2.2 MB of dirty lines not the kernel's"
            << QStringList {"pass_start_dirty=2219 KiB of dirty lines written by a memset before the first pass",
                   "restore_granule_kb=4096"};
    }
    void ingestNamesTheReplayThatRan()
    {
        QFETCH(QString, cache);
        QFETCH(QString, replay);
        QFETCH(QString, expected);
        QFETCH(QStringList, info);
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        ProfileIngest ingest(catalog, catalog.request(catalog.select({}, {"basic"}), {}));
        ProfileResult r = sampleResult();
        r.info["cache_control"] = cache.toStdString();
        r.info["replay"] = replay.toStdString();
        for (const auto& [key, value] : keyValues(info))
            r.info[key] = value;
        const SessionData s = ingest.build({r}, {4242, "./gemm_relu", 0, 0});
        const auto it = s.meta.find("profile_replay_mode");
        QVERIFY(it != s.meta.end());
        QVERIFY2(QString::fromStdString(it->second).contains(expected), it->second.c_str());
        // The dirty start is named only when the profiler says it did it.
        QCOMPARE(QString::fromStdString(it->second).contains("dirty lines"), !info.isEmpty());
    }

    // WS_PROFILE_NONE_DIRTY_PASSES: lists, ranges and open ranges; the list ends at the first
    // item that is not a number or a range.
    void replayPasses_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QList<int>>("expected");
        QTest::newRow("empty") << "" << QList<int> {};
        QTest::newRow("one") << "3" << QList<int> {3};
        QTest::newRow("comma") << "0,5" << QList<int> {0, 5};
        QTest::newRow("plus") << "1+10" << QList<int> {1, 10};
        QTest::newRow("range") << "1-4" << QList<int> {1, 2, 3, 4};
        QTest::newRow("range and one") << "2-3+7" << QList<int> {2, 3, 7};
        QTest::newRow("not a number") << "all" << QList<int> {};
        QTest::newRow("stops at junk") << "4,x,6" << QList<int> {4};
        QTest::newRow("trailing separator") << "4," << QList<int> {4};
        QTest::newRow("empty range") << "5-2" << QList<int> {};
    }
    void replayPasses()
    {
        QFETCH(QString, text);
        QFETCH(QList<int>, expected);
        const std::string t = text.toStdString();
        QList<int> got;
        for (const size_t p : parseReplayPasses(t))
            got.append(static_cast<int>(p));
        QCOMPARE(got, expected);
    }
    void replayPassesOpenRange()
    {
        const std::vector<size_t> rest = parseReplayPasses("1-");
        QCOMPARE(rest.size(), kMaxReplayPass);
        QCOMPARE(rest.front(), size_t(1));
        QCOMPARE(rest.back(), kMaxReplayPass);
    }

    // A replay experiment's settings reach the session's meta (and its run description); the
    // default replay leaves the key out.
    void ingestNamesReplayExperiments_data()
    {
        QTest::addColumn<QStringList>("info"); // key=value of the profiler's result
        QTest::addColumn<QString>("expected"); // profile_replay_experiment; empty: absent
        QTest::newRow("default") << QStringList {"eviction_mode=own"} << QString();
        QTest::newRow("a compare after every pass (the default until 2026-12-04)")
            << QStringList {"eviction_mode=own", "none_compare=every"} << "none_compare=every";
        QTest::newRow("first pass as saved")
            << QStringList {"eviction_mode=own", "none_compare=first-as-saved"} << "none_compare=first-as-saved";
        QTest::newRow("dirty passes and eviction in the program's context") << QStringList {
            "none_dirty_passes=0,5", "eviction_mode=program"} << "none_dirty_passes=0,5; eviction_mode=program";
        QTest::newRow("none's dirty start and restore granule overridden")
            << QStringList {"eviction_mode=own", "replay_overrides=pass_dirty_kb=0,none_restore_kb=64"}
            << "replay_overrides=pass_dirty_kb=0,none_restore_kb=64";
    }
    void ingestNamesReplayExperiments()
    {
        QFETCH(QStringList, info);
        QFETCH(QString, expected);
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        ProfileIngest ingest(catalog, catalog.request(catalog.select({}, {"basic"}), {}));
        ProfileResult r = sampleResult();
        r.info["cache_control"] = "none";
        for (const auto& [key, value] : keyValues(info))
            r.info[key] = value;
        const SessionData s = ingest.build({r}, {4242, "./gemm_relu", 0, 0});
        const auto it = s.meta.find("profile_replay_experiment");
        if (expected.isEmpty()) {
            QVERIFY(it == s.meta.end());
            QVERIFY(!QString::fromStdString(describeProfileRun(s.meta)).contains("experiment"));
            return;
        }
        QVERIFY(it != s.meta.end());
        QCOMPARE(QString::fromStdString(it->second), expected);
        QVERIFY(QString::fromStdString(describeProfileRun(s.meta))
                    .contains("replay experiment, not the default (" + expected));
    }

    void ingestBuildsKernelsAndMetrics()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        const auto request = catalog.request(catalog.select({}, {"full"}), {});
        ProfileIngest ingest(catalog, request);
        ProfileIngest::ProcessExit root {4242, "./gemm_relu --iters 1", 0, 0};
        const SessionData s = ingest.build({sampleResult()}, root);

        QCOMPARE(QString::fromStdString(s.meta.at("session_kind")), QStringLiteral("profile"));
        QCOMPARE(QString::fromStdString(s.meta.at("profile_passes")), QStringLiteral("26"));
        QVERIFY(QString::fromStdString(s.meta.at("kernel_time_source")).contains("gpu__time_duration.sum"));
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(QString::fromStdString(s.processes[0].commandLine), QStringLiteral("./gemm_relu --iters 1"));
        QCOMPARE(s.processes[0].anchorMonotonicNs, int64_t(900));
        QCOMPARE(s.devices.size(), size_t(1));
        QCOMPARE(s.devices[0].pid, int64_t(4242));

        // Kernels numbered by host launch time: the ReLU (t=1000) first.
        QCOMPARE(s.kernels.size(), size_t(2));
        const auto& relu = s.kernels[0];
        const auto& gemm = s.kernels[1];
        QCOMPARE(QString::fromStdString(s.str(relu.shortName)), QStringLiteral("relu_kernel"));
        QCOMPARE(QString::fromStdString(s.str(relu.demangledName)),
            QStringLiteral("relu_kernel(__nv_bfloat16*, unsigned long)"));
        QCOMPARE(relu.start, int64_t(1000));
        QCOMPARE(relu.end, int64_t(1000 + 15584));
        QCOMPARE(gemm.end - gemm.start, int64_t(172992));
        QCOMPARE(gemm.clusterX, 2);
        QCOMPARE(gemm.registersPerThread, 168);

        // Counters keep their values; sections and labels come from the section files.
        QCOMPARE(metricOf(s, gemm.id, "sm__throughput.avg.pct_of_peak_sustained_elapsed")->value, 89.99);
        const auto* sol = defOf(s, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
        QCOMPARE(QString::fromStdString(sol->section), QStringLiteral("SpeedOfLight"));
        QCOMPARE(QString::fromStdString(sol->unit), QStringLiteral("%"));
        QCOMPARE(QString::fromStdString(sol->description), QStringLiteral("Compute (SM) Throughput"));
        // A breakdown constituent is placed with its breakdown, labelled the way ncu labels it.
        const auto* lsu = defOf(s, "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed");
        QCOMPARE(QString::fromStdString(lsu->section), QStringLiteral("SpeedOfLight"));
        QCOMPARE(QString::fromStdString(lsu->description), QStringLiteral("SM: Inst Executed Pipe Lsu"));
        QCOMPARE(QString::fromStdString(lsu->unit), QStringLiteral("%")); // pct submetric of an inst counter

        // Launch metrics from the launch configuration and the occupancy calculator (ncu's values).
        QCOMPARE(metricOf(s, gemm.id, "launch__grid_size")->value, 132.0);
        QCOMPARE(metricOf(s, gemm.id, "launch__cluster_size")->value, 2.0);
        QCOMPARE(metricOf(s, gemm.id, "launch__occupancy_limit_registers")->value, 1.0);
        QCOMPARE(metricOf(s, gemm.id, "launch__occupancy_limit_warps")->value, 5.0);
        QCOMPARE(metricOf(s, gemm.id, "sm__maximum_warps_per_active_cycle_pct")->value, 18.75);
        QCOMPARE(metricOf(s, gemm.id, "launch__shared_mem_config_size")->value, 233472.0);
        QCOMPARE(metricOf(s, relu.id, "launch__registers_per_thread")->value, 16.0); // 8 allocate as 16
        QCOMPARE(metricOf(s, relu.id, "launch__occupancy_limit_shared_mem")->value, 32.0);
        QCOMPARE(metricOf(s, relu.id, "launch__waves_per_multiprocessor")->value, 65536.0 / (8 * 132));
        QCOMPARE(QString::fromStdString(defOf(s, "launch__grid_size")->section), QStringLiteral("LaunchStats"));

        // Derived: FP32 FLOP = fadd + fmul + 2 ffma; a missing or zero divisor gives no value.
        QCOMPARE(metricOf(s, relu.id, "derived__fp32_flop")->value, 10.0 + 20.0 + 2 * 1000.0);
        QVERIFY(!metricOf(s, relu.id, "derived__fp32_flop_per_dram_byte")); // dram bytes 0
        QCOMPARE(metricOf(s, gemm.id, "derived__fp32_flop")->value, 0.0);
        QVERIFY(!metricOf(s, gemm.id, "derived__tensor_flop")); // its inputs were not collected

        // Every kernel_metric refers to a defined metric, once per kernel.
        std::set<std::pair<int64_t, uint32_t>> keys;
        for (const auto& m : s.kernelMetrics) {
            QVERIFY(keys.insert({m.kernelId, m.metricId}).second);
            QVERIFY(m.metricId >= 1 && m.metricId <= s.metricDefs.size());
        }
    }

    void ingestedSessionRoundTripsThroughTheStore()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        ProfileIngest ingest(catalog, catalog.request(catalog.select({}, {"basic"}), {}));
        const SessionData s = ingest.build({sampleResult()}, {4242, "./x", 0, 0});
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.wscope").toStdString();
        {
            SessionWriter w(path);
            attachLaneCache(w);
            w.write(s);
            w.commit();
        }
        const SessionData back = SessionReader(path).readAll();
        QCOMPARE(back.kernels.size(), s.kernels.size());
        QVERIFY(back.metricDefs == s.metricDefs);
        QCOMPARE(back.kernelMetrics.size(), s.kernelMetrics.size());
        QCOMPARE(QString::fromStdString(back.meta.at("session_kind")), QStringLiteral("profile"));
    }

    void breakdownLabels()
    {
        QCOMPARE(QString::fromStdString(
                     ProfileIngest::breakdownLabel("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed")),
            QStringLiteral("SM: Inst Executed Pipe Lsu"));
        QCOMPARE(
            QString::fromStdString(ProfileIngest::breakdownLabel("lts__t_sectors.avg.pct_of_peak_sustained_elapsed")),
            QStringLiteral("L2: T Sectors"));
        QCOMPARE(QString::fromStdString(ProfileIngest::displayUnit("dram__bytes.sum", "byte")), QStringLiteral("byte"));
        QCOMPARE(
            QString::fromStdString(ProfileIngest::displayUnit("sm__throughput.avg", "percent")), QStringLiteral("%"));
    }

    void ncuRawCsv()
    {
        // --page raw: header, units row, one row per launch; log lines before, thousands
        // separators and n/a inside.
        const std::string text
            = "==PROF== Connected to process 123\n"
              "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
              "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"dram__bytes.sum\","
              "\"gpu__time_duration.sum\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\"\n"
              "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"nsecond\",\"%\"\n"
              "\"0\",\"1\",\"a.out\",\"h\",\"relu_kernel(__nv_bfloat16 *, unsigned long)\",\"1\","
              "\"7\",\"(256, 1, 1)\",\"(65536, 1, 1)\",\"0\",\"9.0\",\"36,821,100\",\"15584\",\"7.49\"\n"
              "\"1\",\"1\",\"a.out\",\"h\",\"nvjet_sm90\",\"1\",\"7\",\"(384, 1, 1)\",\"(2, 66, 1)\","
              "\"0\",\"9.0\",\"n/a\",\"172,992\",\"89.99\"\n";
        const auto r = NcuCsvReader::parse(text, "n.csv");
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(
            QString::fromStdString(r[0].kernelName), QStringLiteral("relu_kernel(__nv_bfloat16 *, unsigned long)"));
        QCOMPARE(r[0].values.at("dram__bytes.sum"), 36821100.0);
        QCOMPARE(QString::fromStdString(r[0].units.at("sm__throughput.avg.pct_of_peak_sustained_elapsed")),
            QStringLiteral("%"));
        QCOMPARE(QString::fromStdString(r[1].gridSize), QStringLiteral("(2, 66, 1)"));
        QVERIFY(!r[1].values.count("dram__bytes.sum"));
        QCOMPARE(r[1].values.at("gpu__time_duration.sum"), 172992.0);
    }

    void ncuDetailsCsv()
    {
        const std::string text
            = "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\","
              "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\","
              "\"Metric Value\"\n"
              "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line "
              "profiler metrics\",\"dram__bytes.sum\",\"byte\",\"1,024\"\n"
              "\"0\",\"1\",\"a\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line "
              "profiler metrics\",\"gpu__time_duration.sum\",\"nsecond\",\"2048\"\n"
              "\"1\",\"1\",\"a\",\"h\",\"k2\",\"1\",\"7\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"Command line "
              "profiler metrics\",\"gpu__time_duration.sum\",\"nsecond\",\"n/a\"\n";
        const auto r = NcuCsvReader::parse(text, "d.csv");
        QCOMPARE(r.size(), size_t(2));
        QCOMPARE(r[0].values.at("dram__bytes.sum"), 1024.0);
        QCOMPARE(r[0].values.at("gpu__time_duration.sum"), 2048.0);
        QVERIFY(r[1].values.empty());
    }

    void ncuCsvErrors()
    {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, NcuCsvReader::parse("no header here\n", "x.csv"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
            NcuCsvReader::parse("\"ID\",\"Kernel Name\",\"a.sum\"\n\"\",\"\",\"\"\n\"0\",\"k\"\n", "x.csv"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, NcuCsvReader::read("/nonexistent/ncu.csv"));
    }

    void comparisonRules()
    {
        // Ours: 4 launches of one kernel; ncu: 4 launches. Warm-up 1 is dropped on both sides.
        SessionData s;
        const StringId name = s.strings.intern("copy_kernel");
        const std::vector<std::pair<std::string, std::string>> defs = {{"gpu__time_duration.sum", "nanosecond"},
            {"a.pct", "%"}, {"b.sum", "byte"}, {"c.ratio", "inst"}, {"z.sum", "byte"}, {"d.sum", "byte"}};
        for (size_t i = 0; i < defs.size(); ++i)
            s.metricDefs.push_back({static_cast<uint32_t>(i + 1), defs[i].first, defs[i].second, "X", ""});
        // ours per launch: duration, a (%), b, c, z, d
        const double ours[4][6] = {{99999, 50, 1000, 1.0, 0, 7}, {60000, 50.05, 1005, 1.03, 0, 9},
            {60100, 50.08, 1004, 1.03, 0, 9}, {60200, 50.06, 1006, 1.03, 0, 9}};
        for (int k = 0; k < 4; ++k) {
            KernelRecord r;
            r.id = k + 1;
            r.shortName = name;
            s.kernels.push_back(r);
            for (int m = 0; m < 6; ++m)
                s.kernelMetrics.push_back({r.id, static_cast<uint32_t>(m + 1), ours[k][m]});
        }
        std::vector<NcuResult> ncu;
        const double theirs[4][6] = {{1, 1, 1, 1, 1, 1}, {60000, 50.0, 1000, 1.0, 0, 10},
            {60050, 50.0, 1003, 1.1, 0, 10}, {60100, 50.0, 1001, 1.05, 0, 10}};
        for (int k = 0; k < 4; ++k) {
            NcuResult r;
            r.id = k;
            r.kernelName = "copy_kernel(const float4 *, float4 *, unsigned long)";
            for (int m = 0; m < 6; ++m)
                r.values[defs[m].first] = theirs[k][m];
            ncu.push_back(r);
        }
        ComparisonOptions o;
        o.warmup = 1;
        const auto rows = NcuComparison::compare(s, ncu, o);
        std::map<std::string, MetricAgreement> by;
        for (const auto& r : rows)
            by[r.metric] = r;
        QCOMPARE(by.size(), size_t(6));
        QVERIFY(by["gpu__time_duration.sum"].heldToBar); // 60 us >= 50 us
        QCOMPARE(by["gpu__time_duration.sum"].how, MetricAgreement::How::Relative);
        QCOMPARE(by["b.sum"].ours, 1005.0);
        QCOMPARE(by["b.sum"].ncu, 1001.0);
        QCOMPARE(by["b.sum"].how, MetricAgreement::How::Relative); // 0.4 %
        // 3 % off, but ncu's own launches spread (1.1 - 1.0) / 1.05 = 9.5 %.
        QCOMPARE(by["c.ratio"].how, MetricAgreement::How::WithinSpread);
        QVERIFY(std::abs(by["c.ratio"].ncuSpread - 0.1 / 1.05) < 1e-12);
        // 0.16 % relative is within 1 % anyway; the absolute rule is for small percentages.
        QCOMPARE(by["a.pct"].how, MetricAgreement::How::Relative);
        QCOMPARE(by["z.sum"].how, MetricAgreement::How::Zero);
        QCOMPARE(by["d.sum"].how, MetricAgreement::How::Disagrees); // 9 vs 10, ncu spread 0
        QVERIFY(!by["d.sum"].agrees);
        QCOMPARE(by["d.sum"].oursLaunches, 3);
    }

    void profileRunDescription_data()
    {
        QTest::addColumn<QStringList>("meta"); // key=value
        QTest::addColumn<QString>("expected"); // substring; empty: the description is empty
        QTest::newRow("trace session") << QStringList {"session_kind=trace"} << QString();
        QTest::newRow("no meta") << QStringList {} << QString();
        QTest::newRow("all") << QStringList {"session_kind=profile", "profile_passes=26", "profile_cache_control=all"}
                             << "26 replay passes each; cache control all: memory restored and L2 evicted";
        QTest::newRow("none") << QStringList {"session_kind=profile", "profile_cache_control=none"}
                              << "cache control none: L2 as CUPTI's kernel replay left it";
        QTest::newRow("none, changed memory restored")
            << QStringList {"session_kind=profile", "profile_cache_control=none",
                   "profile_replay_mode=user replay (only the memory the kernel changed restored after every run; "
                   "L2 as the previous run left it)"}
            << "each pass starts with L2 as the previous run left it, only the memory the kernel changed restored";
        QTest::newRow("none, passes after the first back to back (2026-12-04)")
            << QStringList {"session_kind=profile", "profile_cache_control=none",
                   "profile_replay_mode=user replay (only the memory the kernel changed restored; the first pass after "
                   "that memory was compared, each later pass with L2 as the pass before it left it)"}
            << "the first pass starts after the memory the kernel changed is restored, each later pass with L2 as the "
               "pass before it left it";
        QTest::newRow("none, the first pass starting with ncu's dirty lines (2026-12-04 evening)")
            << QStringList {"session_kind=profile", "profile_cache_control=none",
                   "profile_replay_mode=user replay (only the memory the kernel changed restored, 4 MiB around each "
                   "change; the first pass after that memory was compared, with about 2.2 MB of dirty lines not the "
                   "kernel's, as ncu's; each later pass with L2 as the pass before it left it)"}
            << "with about 2.2 MB of dirty lines that are not the kernel's (as ncu's passes do)";
        QTest::newRow("all, replayed as none by a profiler of 2026-12-02") << QStringList {"session_kind=profile",
            "profile_cache_control=all",
            "profile_replay_mode=user replay (only the memory the kernel changed restored after every run; "
            "L2 as the previous run left it)"} << "cache control all, but replayed as none is";
        QTest::newRow("older session") << QStringList {"session_kind=profile", "profile_passes=9"}
                                       << "cache control not recorded";
        QTest::newRow("pc sampling") << QStringList {"session_kind=profile",
            "profile_replay_mode=none: PC sampling, one run per kernel launch (kernel-serialized)"}
                                     << "PC sampling";
    }
    void profileRunDescription()
    {
        QFETCH(QStringList, meta);
        QFETCH(QString, expected);
        const QString text = QString::fromStdString(describeProfileRun(keyValues(meta)));
        if (expected.isEmpty())
            QVERIFY2(text.isEmpty(), qPrintable(text));
        else
            QVERIFY2(text.contains(expected), qPrintable(text));
        if (!expected.isEmpty() && !expected.startsWith("PC"))
            QVERIFY(text.endsWith("GPU clocks not locked"));
    }

    void comparisonPoolsNcuRuns()
    {
        // Ours: 60 us, 1035 bytes. ncu run 1 agrees with itself (1000, 1001); run 2 (1030, 1031)
        // too; only together do they show that ncu moves by 3 % between runs. Each run's first
        // launch (warm-up) is dropped on its own.
        SessionData s;
        s.metricDefs.push_back({1, "gpu__time_duration.sum", "nanosecond", "X", ""});
        s.metricDefs.push_back({2, "b.sum", "byte", "X", ""});
        for (int i = 0; i < 3; ++i) {
            KernelRecord k;
            k.id = i + 1;
            k.shortName = s.strings.intern("copy_kernel");
            s.kernels.push_back(k);
            s.kernelMetrics.push_back({k.id, 1, 60000});
            s.kernelMetrics.push_back({k.id, 2, i == 0 ? 1.0 : 1035.0});
        }
        auto run = [](std::vector<double> bytes) {
            std::vector<NcuResult> out;
            for (size_t i = 0; i < bytes.size(); ++i) {
                NcuResult r;
                r.id = static_cast<int64_t>(i);
                r.kernelName = "copy_kernel";
                r.values = {{"gpu__time_duration.sum", 60000}, {"b.sum", bytes[i]}};
                out.push_back(r);
            }
            return out;
        };
        ComparisonOptions o;
        o.warmup = 1;
        const auto one = NcuComparison::compare(s, run({5, 1000, 1001}), o);
        const auto both = NcuComparison::compare(s, std::vector {run({5, 1000, 1001}), run({9999, 1030, 1031})}, o);
        auto bytesOf = [](const std::vector<MetricAgreement>& rows) {
            for (const auto& r : rows)
                if (r.metric == "b.sum")
                    return r;
            return MetricAgreement {};
        };
        QCOMPARE(bytesOf(one).how, MetricAgreement::How::Disagrees); // 3.4 % off, spread 0.1 %
        const MetricAgreement pooled = bytesOf(both);
        QCOMPARE(pooled.ncuLaunches, 4); // warm-up dropped per run: 5 and 9999 are gone
        QCOMPARE(pooled.ncu, (1001.0 + 1030.0) / 2);
        QVERIFY(std::abs(pooled.ncuSpread - 31.0 / 1015.5) < 1e-12);
        QCOMPARE(pooled.how, MetricAgreement::How::WithinSpread); // 1.9 % off, ncu's spread 3.05 %
    }

    void comparisonShortKernelsAndAbsolutePercent()
    {
        SessionData s;
        s.metricDefs.push_back({1, "gpu__time_duration.sum", "nanosecond", "X", ""});
        s.metricDefs.push_back({2, "hit.pct", "%", "X", ""});
        KernelRecord k;
        k.id = 1;
        k.shortName = s.strings.intern("relu_kernel");
        s.kernels.push_back(k);
        s.kernelMetrics = {{1, 1, 15000}, {1, 2, 0.35}};
        NcuResult r;
        r.kernelName = "relu_kernel";
        r.values = {{"gpu__time_duration.sum", 15600}, {"hit.pct", 0.3}};
        ComparisonOptions o;
        o.warmup = 0;
        const auto rows = NcuComparison::compare(s, {r}, o);
        QCOMPARE(rows.size(), size_t(2));
        for (const auto& a : rows) {
            QVERIFY(!a.heldToBar); // 15.6 us < 50 us
            if (a.metric == "hit.pct")
                QCOMPARE(a.how, MetricAgreement::How::AbsolutePercent); // 0.05 points
            else
                QCOMPARE(a.how, MetricAgreement::How::Disagrees); // 3.8 %
        }
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_metrics.moc"
