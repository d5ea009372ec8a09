// SPDX-License-Identifier: MIT
// Ingest of raw record files (core/ingest) into a SessionData: the files recorded on the H200
// (tests/fixtures/recorder/raw: GEMM+ReLU, PyTorch with torch.cuda.nvtx, CUDA graphs, two
// child processes, a segfaulting and a SIGKILLed target) and hand-built files for the cases a
// recording rarely shows (out-of-order records, clock and thread-id mapping, unmatched NVTX).
#include "core/ingest/devicepeaks.h"
#include "core/ingest/rawingest.h"
#include "core/model/launchindex.h"
#include "core/model/recordsource.h"

#include <QtTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

using namespace ws;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(WS_FIXTURES_DIR "/recorder/raw/") + name;
}

SessionData ingestFixture(const QString& name, std::vector<std::string>* warnings = nullptr)
{
    RawIngest ingest;
    const size_t n = ingest.addDirectory(fixture(name).toStdString());
    if (n == 0)
        qFatal("no raw files in %s", qPrintable(fixture(name)));
    SessionData s = ingest.finish();
    if (warnings)
        *warnings = ingest.warnings();
    return s;
}

const ApiCallRecord* launchOf(const SessionData& s, const LaunchIndex& index, const KernelRecord& k)
{
    const auto* l = index.find(k.pid, k.correlationId);
    if (!l)
        return nullptr;
    for (const auto& a : s.apiCalls)
        if (a.pid == l->pid && a.correlationId == l->correlationId && a.domain == l->domain)
            return &a;
    return nullptr;
}

size_t countNamed(const SessionData& s, const std::vector<NvtxRangeRecord>& ranges, const std::string& name)
{
    return size_t(std::count_if(ranges.begin(), ranges.end(), [&](const auto& r) { return s.str(r.name) == name; }));
}

template <typename T> void verifySortedAndNumbered(const std::vector<T>& v)
{
    for (size_t i = 0; i < v.size(); ++i) {
        QCOMPARE(v[i].id, int64_t(i) + 1);
        if (i > 0)
            QVERIFY(v[i - 1].start <= v[i].start);
    }
}

// A hand-built raw file, for what recordings rarely contain.
struct RawBuilder {
    std::string bytes;
    uint32_t nextString = 1;

    explicit RawBuilder(int64_t pid)
    {
        raw::FileHeader h {};
        std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
        h.version = raw::kFormatVersion;
        h.headerSize = sizeof(h);
        h.pid = pid;
        h.parentPid = 1;
        h.anchorRealtimeNs = 1'800'000'000'000'000'000;
        h.anchorMonotonicNs = 1'000'000;
        bytes.assign(reinterpret_cast<const char*>(&h), sizeof(h));
    }
    uint32_t string(std::string_view text)
    {
        raw::StringDef d {nextString, 0};
        raw::appendFrame(bytes, raw::RecordType::String, d, text);
        return nextString++;
    }
    template <typename P> void add(raw::RecordType t, const P& p, std::string_view trailing = {})
    {
        raw::appendFrame(bytes, t, p, trailing);
    }
    void kernel(int64_t start, int64_t end, uint32_t corr, uint32_t name)
    {
        raw::KernelRecord k {};
        k.start = start;
        k.end = end;
        k.correlationId = corr;
        k.name = name;
        k.streamId = 7;
        add(raw::RecordType::Kernel, k);
    }
    void api(int64_t start, int64_t end, int64_t tid, uint32_t corr, uint32_t name, raw::ApiDomain d)
    {
        raw::ApiRecord a {};
        a.start = start;
        a.end = end;
        a.tid = tid;
        a.correlationId = corr;
        a.name = name;
        a.domain = uint8_t(d);
        add(raw::RecordType::Api, a);
    }
    void nvtx(raw::NvtxKind kind, int64_t ts, int64_t tid, std::string_view msg = {}, uint64_t rangeId = 0,
        uint64_t domain = 0)
    {
        raw::NvtxEventRecord e {};
        e.ts = ts;
        e.tid = tid;
        e.kind = uint8_t(kind);
        e.rangeId = rangeId;
        e.domain = domain;
        add(raw::RecordType::NvtxEvent, e, msg);
    }
    void end()
    {
        raw::EndRecord e {};
        add(raw::RecordType::End, e);
    }
    raw::RawFile file(const std::string& name = "built.raw") const { return raw::RawFile::fromBytes(bytes, name); }
};

} // namespace

class TestIngest : public QObject {
    Q_OBJECT

private slots:
    void graphKernelsCarryGraphIdsAndJoinToGraphLaunch()
    {
        const SessionData s = ingestFixture(QStringLiteral("graphs"));
        QCOMPARE(s.kernels.size(), size_t(20)); // 10 replays x (axpy, relu)
        verifySortedAndNumbered(s.kernels);
        const MemoryRecordSource src(s);
        const LaunchIndex index(src);
        std::set<uint64_t> nodes;
        for (const auto& k : s.kernels) {
            QVERIFY(k.graphId != 0);
            QVERIFY(k.graphNodeId != 0);
            nodes.insert(k.graphNodeId);
            const ApiCallRecord* launch = launchOf(s, index, k);
            QVERIFY(launch);
            QCOMPARE(s.str(launch->name), std::string("cudaGraphLaunch_v10000"));
            QVERIFY(launch->start <= k.start);
        }
        QCOMPARE(nodes.size(), size_t(2)); // the two kernel nodes, replayed
        // The graph's copy and memset nodes too, plus the program's own two copies.
        QCOMPARE(s.memcpys.size(), size_t(12));
        QCOMPARE(s.memsets.size(), size_t(10));
        QCOMPARE(countNamed(s, s.nvtxRanges, "graph launch"), size_t(10));
        QCOMPARE(s.meta.at("kernels_joined_to_api"), std::string("20"));
    }

    void gemmKernelsJoinToRuntimeAndDriverLaunches()
    {
        const SessionData s = ingestFixture(QStringLiteral("gemm_relu"));
        QCOMPARE(s.kernels.size(), size_t(50));
        verifySortedAndNumbered(s.kernels);
        verifySortedAndNumbered(s.apiCalls);
        const MemoryRecordSource src(s);
        const LaunchIndex index(src);
        int gemms = 0, relus = 0;
        for (const auto& k : s.kernels) {
            const ApiCallRecord* launch = launchOf(s, index, k);
            QVERIFY2(launch, s.str(k.demangledName).c_str());
            const std::string shortName = s.str(k.shortName);
            if (shortName.rfind("nvjet_", 0) == 0) {
                // cuBLAS 13 launches through the driver only.
                QCOMPARE(launch->domain, ApiDomain::Driver);
                QCOMPARE(s.str(launch->name), std::string("cuLaunchKernelEx"));
                QVERIFY(k.clusterX >= 1);
                ++gemms;
            } else if (shortName == "relu_kernel") {
                QCOMPARE(launch->domain, ApiDomain::Runtime);
                QCOMPARE(s.str(launch->name), std::string("cudaLaunchKernel_v7000"));
                QCOMPARE(s.str(k.demangledName),
                    std::string("(anonymous namespace)::relu_kernel(__nv_bfloat16*, unsigned long)"));
                ++relus;
            }
        }
        QCOMPARE(gemms, 24); // check + 3 warm-up + 20 timed
        QCOMPARE(relus, 24);
        // Every "gemm" NVTX range holds exactly the launch call of one GEMM, on its thread.
        int gemmRanges = 0;
        for (const auto& r : s.nvtxRanges) {
            if (s.str(r.name) != "gemm")
                continue;
            ++gemmRanges;
            const auto inside = std::count_if(s.apiCalls.begin(), s.apiCalls.end(), [&](const ApiCallRecord& a) {
                return a.tid == r.tid && a.start >= r.start && a.end <= r.end && s.str(a.name) == "cuLaunchKernelEx";
            });
            QCOMPARE(inside, 1);
        }
        QCOMPARE(gemmRanges, 24);
        // Nesting: gemm inside "warmup"/"check" is one level down; the timed loop is a
        // start/end range in the program's own domain, with its named category.
        const auto timed = std::find_if(
            s.nvtxRanges.begin(), s.nvtxRanges.end(), [&](const auto& r) { return s.str(r.name) == "timed loop"; });
        QVERIFY(timed != s.nvtxRanges.end());
        QCOMPARE(timed->style, NvtxStyle::StartEnd);
        QCOMPARE(s.str(timed->domain), std::string("ws.example"));
        QCOMPARE(timed->category, 1);
        QCOMPARE(s.environment.at("nvtx.category.ws.example.1"), std::string("timed"));
        for (const auto& r : s.nvtxRanges)
            if (s.str(r.name) == "gemm")
                QCOMPARE(r.depth, (r.start > timed->start && r.end < timed->end) ? 0 : 1);
        QCOMPARE(s.nvtxMarks.size(), size_t(1));
        QCOMPARE(s.str(s.nvtxMarks[0].name), std::string("check passed"));
        const auto gemmRange = std::find_if(
            s.nvtxRanges.begin(), s.nvtxRanges.end(), [&](const auto& r) { return s.str(r.name) == "gemm"; });
        QCOMPARE(gemmRange->color, 0xff2e7d32u);

        // Device and its derived peaks: 2 x 3201 MHz x 6016 bit / 8, 132 SMs x 1.98 GHz x rate.
        QCOMPARE(s.devices.size(), size_t(1));
        const DeviceInfo& d = s.devices[0];
        QCOMPARE(d.name, std::string("NVIDIA H200"));
        QCOMPARE(d.smCount, 132);
        QCOMPARE(d.ccMajor, 9);
        QCOMPARE(d.maxWarpsPerSm, 64);
        QVERIFY(qAbs(d.dramBandwidthBytesPerS - 2.0 * 3201e6 * 6016 / 8) < 1e6);
        QVERIFY(qAbs(d.peakBf16TensorFlopsPerS - 132 * 1.98e9 * 4096) < 1e9);
        QCOMPARE(s.environment.at("cuda_version"), std::string("13.0"));
        QCOMPARE(s.meta.at("dropped_records"), std::string("0"));
    }

    void torchNvtxRangesAreRecorded()
    {
        // torch.cuda.nvtx calls reach the recorder through its own NVTX injection; through
        // CUPTI's they were lost (two libcupti copies in the process).
        const SessionData s = ingestFixture(QStringLiteral("torch_nvtx"));
        QCOMPARE(countNamed(s, s.nvtxRanges, "mm"), size_t(23)); // 3 warm-up + 20 steps
        QCOMPARE(countNamed(s, s.nvtxRanges, "relu"), size_t(23));
        QCOMPARE(countNamed(s, s.nvtxRanges, "step 0"), size_t(1));
        QCOMPARE(countNamed(s, s.nvtxRanges, "step 19"), size_t(1));
        QCOMPARE(countNamed(s, s.nvtxRanges, "step -1"), size_t(1));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("0"));
        QCOMPARE(s.meta.at("nvtx_unmatched_ends"), std::string("0"));
        for (const auto& r : s.nvtxRanges) {
            const std::string name = s.str(r.name);
            if (name == "mm" || name == "relu")
                QCOMPARE(r.depth, 1); // inside "step N"
            else if (name.rfind("step", 0) == 0)
                QCOMPARE(r.depth, 0);
            if (name == "mm") {
                // The matmul's cuBLAS launch happens inside the range, on the same thread.
                const bool launched = std::any_of(s.apiCalls.begin(), s.apiCalls.end(), [&](const ApiCallRecord& a) {
                    return a.tid == r.tid && a.start >= r.start && a.end <= r.end
                        && s.str(a.name) == "cuLaunchKernelEx";
                });
                QVERIFY(launched);
            }
        }
        QVERIFY(std::any_of(
            s.nvtxMarks.begin(), s.nvtxMarks.end(), [&](const auto& m) { return s.str(m.name) == "check passed"; }));
        // Inside PyTorch, CUPTI is torch's own copy, and the recorder says so.
        QVERIFY(s.environment.at("cupti_library").find("nvidia/cu13/lib/libcupti.so") != std::string::npos);
        QCOMPARE(s.threads.size(), size_t(1));
        QCOMPARE(s.threads[0].tid, s.processes[0].pid);
    }

    void childProcessFilesAreMerged()
    {
        const SessionData s = ingestFixture(QStringLiteral("children"));
        QCOMPARE(s.processes.size(), size_t(2));
        QVERIFY(s.processes[0].pid != s.processes[1].pid);
        QCOMPARE(s.processes[0].parentPid, s.processes[1].parentPid); // both children of the shell
        verifySortedAndNumbered(s.kernels);
        std::map<int64_t, size_t> perPid;
        for (const auto& k : s.kernels)
            ++perPid[k.pid];
        QCOMPARE(perPid.size(), size_t(2));
        std::set<std::string> names;
        for (const auto& p : s.processes)
            names.insert(p.name);
        QVERIFY(names.count("ws-example-launch-bound"));
        QVERIFY(names.count("ws-example-graphs"));
        // Correlation ids repeat across processes; the join stays within each process.
        const MemoryRecordSource src(s);
        const LaunchIndex index(src);
        for (const auto& k : s.kernels) {
            const ApiCallRecord* a = launchOf(s, index, k);
            QVERIFY(a);
            QCOMPARE(a->pid, k.pid);
        }
        QCOMPARE(s.meta.at("raw_files"), std::string("2"));
        QCOMPARE(s.meta.at("processes_without_end_record"), std::string());
    }

    void truncatedFileKeepsEverythingBeforeTheCut()
    {
        QTemporaryDir dir;
        const auto src = std::filesystem::directory_iterator(fixture(QStringLiteral("torch_nvtx")).toStdString());
        const std::filesystem::path original = src->path();
        const SessionData full = ingestFixture(QStringLiteral("torch_nvtx"));
        // Cut inside the last frame (the End record), as a process killed mid-write leaves it.
        std::ifstream in(original, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        bytes.resize(bytes.size() - 5);
        const std::string cut = dir.filePath(QString::fromStdString(original.filename().string())).toStdString();
        std::ofstream(cut, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));

        RawIngest ingest;
        QCOMPARE(ingest.addDirectory(dir.path().toStdString()), size_t(1));
        const SessionData s = ingest.finish();
        QCOMPARE(s.meta.at("raw_files_truncated"), std::string("1"));
        QCOMPARE(s.kernels.size(), full.kernels.size());
        QCOMPARE(s.nvtxRanges.size(), full.nvtxRanges.size());
        QCOMPARE(s.meta.at("processes_without_end_record"), std::to_string(s.processes[0].pid));
        const auto& w = ingest.warnings();
        QVERIFY(std::any_of(
            w.begin(), w.end(), [](const std::string& m) { return m.find("cut off") != std::string::npos; }));
    }

    void killedTargets_data()
    {
        QTest::addColumn<QString>("dir");
        QTest::newRow("SIGSEGV") << "segv";
        QTest::newRow("SIGKILL") << "sigkill";
    }
    void killedTargets()
    {
        // The target launched 201 kernels inside an NVTX range, slept 1.5 s (a periodic flush
        // wrote everything) and died with the range open: all of it is there, the range ends
        // with the session.
        QFETCH(QString, dir);
        std::vector<std::string> warnings;
        const SessionData s = ingestFixture(dir, &warnings);
        QCOMPARE(s.kernels.size(), size_t(201));
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.meta.at("processes_without_end_record"), std::to_string(s.processes[0].pid));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("1"));
        QCOMPARE(s.nvtxRanges.size(), size_t(1));
        const auto& doomed = s.nvtxRanges[0];
        QCOMPARE(s.str(doomed.name), std::string("doomed"));
        TimeNs last = 0;
        for (const auto& k : s.kernels)
            last = std::max(last, k.end);
        for (const auto& a : s.apiCalls)
            last = std::max(last, a.end);
        for (const auto& y : s.syncs)
            last = std::max(last, y.end);
        for (const auto& m : s.memsets)
            last = std::max(last, m.end);
        for (const auto& m : s.memcpys)
            last = std::max(last, m.end);
        QCOMPARE(doomed.end, last);
        QVERIFY(std::any_of(warnings.begin(), warnings.end(),
            [](const std::string& m) { return m.find("no end record") != std::string::npos; }));
    }

    void captureRangeHoldsOnlyTheTimedLoop()
    {
        // --capture-range=cudaProfilerApi around the example's timed loop (5 iterations).
        const SessionData s = ingestFixture(QStringLiteral("capture_profiler"));
        QCOMPARE(s.kernels.size(), size_t(10));
        QCOMPARE(countNamed(s, s.nvtxRanges, "gemm"), size_t(5));
        QCOMPARE(countNamed(s, s.nvtxRanges, "setup"), size_t(0));
        QCOMPARE(countNamed(s, s.nvtxRanges, "check"), size_t(0));
    }

    void outOfOrderRecordsAreSortedAndPaired()
    {
        RawBuilder b(100);
        const uint32_t kname = b.string("_Z6kernelPfi");
        const uint32_t launch = b.string("cudaLaunchKernel_v7000");
        // CUPTI delivers buffers in completion order: kernels before their API records.
        b.kernel(5000, 6000, 2, kname);
        b.kernel(3000, 4000, 1, kname);
        b.api(2000, 2100, 100, 2, launch, raw::ApiDomain::Runtime);
        b.api(1000, 1100, 100, 1, launch, raw::ApiDomain::Runtime);
        // Nested push/pop on thread 100, a start/end range begun on 100 and ended on 101,
        // an extra pop, and a push left open.
        b.nvtx(raw::NvtxKind::Push, 500, 100, "outer");
        b.nvtx(raw::NvtxKind::Push, 600, 100, "inner");
        b.nvtx(raw::NvtxKind::Start, 650, 100, "async", 9);
        b.nvtx(raw::NvtxKind::Pop, 700, 100);
        b.nvtx(raw::NvtxKind::Pop, 7000, 100);
        b.nvtx(raw::NvtxKind::Pop, 7100, 100);
        b.nvtx(raw::NvtxKind::End, 7200, 101, {}, 9);
        b.nvtx(raw::NvtxKind::Push, 7300, 101, "open");
        b.end();
        RawIngest ingest;
        ingest.addFile(b.file());
        const SessionData s = ingest.finish();

        QCOMPARE(s.kernels.size(), size_t(2));
        QCOMPARE(s.kernels[0].start, TimeNs(3000));
        QCOMPARE(s.kernels[0].correlationId, 1u);
        QCOMPARE(s.str(s.kernels[0].demangledName), std::string("kernel(float*, int)"));
        QCOMPARE(s.str(s.kernels[0].shortName), std::string("kernel"));
        QCOMPARE(s.apiCalls[0].start, TimeNs(1000));
        QCOMPARE(s.meta.at("kernels_joined_to_api"), std::string("2"));

        std::map<std::string, NvtxRangeRecord> byName;
        for (const auto& r : s.nvtxRanges)
            byName[s.str(r.name)] = r;
        QCOMPARE(byName.size(), size_t(4));
        QCOMPARE(byName["outer"].start, TimeNs(500));
        QCOMPARE(byName["outer"].end, TimeNs(7000));
        QCOMPARE(byName["outer"].depth, 0);
        QCOMPARE(byName["inner"].end, TimeNs(700));
        QCOMPARE(byName["inner"].depth, 1);
        QCOMPARE(byName["async"].style, NvtxStyle::StartEnd);
        QCOMPARE(byName["async"].tid, int64_t(100));
        QCOMPARE(byName["async"].endTid, int64_t(101));
        QCOMPARE(byName["async"].end, TimeNs(7200));
        QCOMPARE(byName["open"].end, TimeNs(7300)); // the session's last timestamp
        QCOMPARE(s.meta.at("nvtx_unmatched_ends"), std::string("1"));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("1"));
        verifySortedAndNumbered(s.nvtxRanges);
        std::set<int64_t> tids;
        for (const auto& t : s.threads)
            tids.insert(t.tid);
        QCOMPARE(tids, (std::set<int64_t> {100, 101}));
    }

    void cuptiClockAndThreadIdsAreMapped()
    {
        // CUPTI's CLOCK_REALTIME times and pthread ids, brought to CLOCK_MONOTONIC and OS tids.
        RawBuilder b(200);
        raw::ClockDomainRecord c {};
        c.realtime = 1;
        c.realtimeMinusMonotonicNs = 1'000'000'000;
        b.add(raw::RecordType::ClockDomain, c);
        raw::ThreadMapRecord m {0xdeadbeef, 201};
        b.add(raw::RecordType::ThreadMap, m);
        const uint32_t launch = b.string("cudaLaunchKernel_v7000");
        b.api(1'000'002'000, 1'000'002'500, 0xdeadbeef, 1, launch, raw::ApiDomain::Runtime);
        b.kernel(1'000'003'000, 1'000'004'000, 1, b.string("k"));
        b.nvtx(raw::NvtxKind::Push, 1500, 201, "around");
        b.nvtx(raw::NvtxKind::Pop, 5000, 201);
        RawIngest ingest;
        ingest.addFile(b.file());
        const SessionData s = ingest.finish();
        QCOMPARE(s.apiCalls[0].start, TimeNs(2000));
        QCOMPARE(s.apiCalls[0].tid, int64_t(201));
        QCOMPARE(s.kernels[0].start, TimeNs(3000));
        const auto& r = s.nvtxRanges[0];
        QVERIFY(r.start <= s.apiCalls[0].start && s.apiCalls[0].end <= r.end);
    }

    void launchedProcessWithoutRawFile()
    {
        // The launcher's direct child wrote no raw file (it never used CUDA): it is still a
        // process of the session, with the exit status waitpid() gave.
        RawIngest ingest;
        RawIngest::LaunchedProcess p;
        p.pid = 4242;
        p.name = "sh";
        p.commandLine = "sh -c 'kill -SEGV $$'";
        p.exitSignal = 11;
        ingest.addLaunchedProcess(p);
        const SessionData s = ingest.finish();
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.processes[0].exitSignal, 11);
        QCOMPARE(s.processes[0].exitCode, -1);
        QCOMPARE(s.processes[0].commandLine, p.commandLine);
        QCOMPARE(s.meta.at("raw_files"), std::string("0"));
    }

    void unreadableFileInDirectoryIsSkippedWithWarning()
    {
        QTemporaryDir dir;
        std::ofstream(dir.filePath(QStringLiteral("ws-1.raw")).toStdString()) << "garbage, not a raw file";
        RawIngest ingest;
        QCOMPARE(ingest.addDirectory(dir.path().toStdString()), size_t(0));
        QCOMPARE(ingest.warnings().size(), size_t(1));
        QVERIFY(ingest.warnings()[0].find("ws-1.raw") != std::string::npos);
    }

    void devicePeaks_data()
    {
        QTest::addColumn<int>("ccMajor");
        QTest::addColumn<int>("ccMinor");
        QTest::addColumn<int>("sms");
        QTest::addColumn<double>("clockGhz");
        QTest::addColumn<double>("bf16Tflops");
        QTest::addColumn<double>("fp32Tflops");
        // Published figures: H100/H200 SXM dense BF16 989 TFLOP/s at 1.83 GHz, A100 312 at 1.41.
        QTest::newRow("H200 at 1.83 GHz") << 9 << 0 << 132 << 1.83 << 989.5 << 61.8;
        QTest::newRow("H200 at 1.98 GHz") << 9 << 0 << 132 << 1.98 << 1070.5 << 66.9;
        QTest::newRow("A100") << 8 << 0 << 108 << 1.41 << 311.9 << 19.5;
        QTest::newRow("unknown arch") << 7 << 5 << 40 << 1.5 << 0.0 << 0.0;
    }
    void devicePeaks()
    {
        QFETCH(int, ccMajor);
        QFETCH(int, ccMinor);
        QFETCH(int, sms);
        QFETCH(double, clockGhz);
        QFETCH(double, bf16Tflops);
        QFETCH(double, fp32Tflops);
        DeviceInfo d;
        d.ccMajor = ccMajor;
        d.ccMinor = ccMinor;
        d.smCount = sms;
        d.smClockMaxKhz = int64_t(clockGhz * 1e6);
        d.memClockKhz = 3201000;
        d.memBusWidthBits = 6016;
        fillDevicePeaks(d);
        QVERIFY(qAbs(d.peakBf16TensorFlopsPerS / 1e12 - bf16Tflops) < 0.5);
        QVERIFY(qAbs(d.peakFp32FlopsPerS / 1e12 - fp32Tflops) < 0.1);
        QVERIFY(qAbs(d.dramBandwidthBytesPerS / 1e12 - 4.814) < 0.001);
    }
};

QTEST_GUILESS_MAIN(TestIngest)
#include "tst_ingest.moc"
