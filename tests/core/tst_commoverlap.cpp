// SPDX-License-Identifier: MIT
// Multi-GPU analysis: the communication-kernel classifier (names as every tool writes them),
// process ranks from meta, and comm_overlap checked against a per-nanosecond oracle on random
// multi-process, multi-device sessions, in memory and read back from a real session file.
#include "commsession.h"
#include "core/analysis/commkernels.h"
#include "core/analysis/commoverlap.h"
#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/model/commranks.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>

using namespace ws;

Q_DECLARE_METATYPE(ws::CommKind)

namespace {

// What the report must say, computed the slow way: one flag per nanosecond.
struct Oracle {
    std::vector<char> comm;
    std::vector<char> compute;
    int64_t commOps = 0;
    int64_t computeKernels = 0;
};

std::map<std::pair<uint32_t, int64_t>, Oracle> oracle(const SessionData& s, TimeNs horizon)
{
    std::map<std::pair<uint32_t, int64_t>, Oracle> out;
    const auto slot = [&](uint32_t device, int64_t pid) -> Oracle& {
        Oracle& o = out[{device, pid}];
        if (o.comm.empty()) {
            o.comm.assign(static_cast<size_t>(horizon), 0);
            o.compute.assign(static_cast<size_t>(horizon), 0);
        }
        return o;
    };
    for (const auto& k : s.kernels) {
        // Independent of the classifier's parsing: the generator's names, by index.
        const std::string& name = s.str(k.shortName ? k.shortName : k.demangledName ? k.demangledName : k.mangledName);
        const auto& names = test::commSessionKernelNames();
        const auto idx = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
        const bool comm = idx >= test::kComputeNames;
        for (const int64_t pid : {k.pid, int64_t(-1)}) {
            Oracle& o = slot(k.deviceId, pid);
            (comm ? o.commOps : o.computeKernels) += 1;
            for (TimeNs t = k.start; t < k.end; ++t)
                (comm ? o.comm : o.compute)[static_cast<size_t>(t)] = 1;
        }
    }
    for (const auto& m : s.memcpys) {
        if (m.copyKind != CopyKind::PtoP)
            continue;
        for (const int64_t pid : {m.pid, int64_t(-1)}) {
            Oracle& o = slot(m.deviceId, pid);
            ++o.commOps;
            for (TimeNs t = m.start; t < m.end; ++t)
                o.comm[static_cast<size_t>(t)] = 1;
        }
    }
    return out;
}

void checkAgainstOracle(const SessionData& s, const std::vector<CommOverlapRow>& rows, TimeNs horizon)
{
    const auto expected = oracle(s, horizon);
    std::map<uint32_t, int> processesPerDevice;
    for (const auto& [key, o] : expected) {
        if (key.second >= 0)
            ++processesPerDevice[key.first];
    }
    size_t expectedRows = 0;
    for (const auto& [device, n] : processesPerDevice)
        expectedRows += static_cast<size_t>(n) + (n > 1 ? 1 : 0);
    QCOMPARE(rows.size(), expectedRows);
    const auto ranks = processRanks(s.meta);
    for (const CommOverlapRow& r : rows) {
        const auto it = expected.find({r.deviceId, r.pid});
        QVERIFY2(it != expected.end(), qPrintable(QStringLiteral("device %1 pid %2").arg(r.deviceId).arg(r.pid)));
        const Oracle& o = it->second;
        TimeNs comm = 0, compute = 0, both = 0;
        for (size_t t = 0; t < o.comm.size(); ++t) {
            comm += o.comm[t];
            compute += o.compute[t];
            both += o.comm[t] && o.compute[t];
        }
        QCOMPARE(r.commOps, o.commOps);
        QCOMPARE(r.computeKernels, o.computeKernels);
        QCOMPARE(r.commNs, comm);
        QCOMPARE(r.computeNs, compute);
        QCOMPARE(r.overlapNs, both);
        QCOMPARE(r.exposedCommNs(), comm - both);
        if (r.pid >= 0 && ranks.count(r.pid))
            QCOMPARE(r.rank, ranks.at(r.pid).rank);
        else
            QCOMPARE(r.rank, int64_t(-1));
    }
    // Device, then the all-processes row, then pids.
    for (size_t i = 1; i < rows.size(); ++i)
        QVERIFY(std::pair(rows[i - 1].deviceId, rows[i - 1].pid) < std::pair(rows[i].deviceId, rows[i].pid));
}

} // namespace

class TestCommOverlap : public QObject {
    Q_OBJECT

private slots:
    void classifier_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<CommKind>("kind");
        const auto row = [](const char* tag, const char* name, CommKind kind) {
            QTest::newRow(tag) << QString::fromUtf8(name) << kind;
        };
        // NCCL 2.19+ as nsys / CUPTI demangle it, mangled, and the short name ingest derives.
        row("devkernel demangled", "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
            CommKind::Nccl);
        row("devkernel mangled", "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
            CommKind::Nccl);
        row("devkernel short", "ncclDevKernel_AllGather_RING_LL", CommKind::Nccl);
        row("devkernel sendrecv", "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", CommKind::Nccl);
        // NCCL <= 2.18 (void return type in the demangled name) and <= 2.7.
        row("kernel demangled", "void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", CommKind::Nccl);
        row("kernel mangled", "_Z38ncclKernel_AllReduce_RING_LL_Sum_float12ncclWorkElem", CommKind::Nccl);
        row("old style", "ncclAllReduceRingLLKernel_sum_f32(ncclColl)", CommKind::Nccl);
        row("old style mangled", "_Z33ncclAllReduceRingLLKernel_sum_f328ncclColl", CommKind::Nccl);
        row("namespaced", "void nccl::ncclDevKernel_Broadcast_RING_LL(int)", CommKind::Nccl);
        row("nested mangled", "_ZN4nccl28ncclDevKernel_Broadcast_RINGEi", CommKind::Nccl);
        row("torch op", "nccl:all_reduce", CommKind::Nccl);
        row("torch op base", "nccl:_all_gather_base", CommKind::Nccl);
        row("peer copy", "[CUDA memcpy Peer-to-Peer]", CommKind::PeerCopy);
        // Compute and everything else.
        row("gemm", "gemm_kernel", CommKind::None);
        row("elementwise",
            "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
            "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)",
            CommKind::None);
        row("template arg mentions nccl", "void copy_kernel<ncclKernel_tag>(float*)", CommKind::None);
        row("nccl in the middle", "my_ncclKernel_wrapper", CommKind::None);
        row("nccl api nvtx range", "ncclAllReduce", CommKind::Nccl);
        row("nccl init nvtx range", "ncclCommInitRankConfig", CommKind::Nccl);
        row("nccl lowercase", "nccl_helper(int)", CommKind::None);
        row("just nccl", "nccl", CommKind::None);
        row("torch op without prefix", "all_reduce", CommKind::None);
        row("device-to-device copy", "[CUDA memcpy Device-to-Device]", CommKind::None);
        row("anonymous namespace", "(anonymous namespace)::ncclDevKernel_Reduce(int)", CommKind::Nccl);
        row("empty", "", CommKind::None);
        row("truncated mangled", "_Z99ncclDev", CommKind::None);
        row("bare _Z", "_Z", CommKind::None);
    }

    void classifier()
    {
        QFETCH(QString, name);
        QFETCH(CommKind, kind);
        const std::string n = name.toStdString();
        QCOMPARE(classifyCommName(n), kind);
        QCOMPARE(isCommunicationName(n), kind != CommKind::None);
    }

    void baseIdentifier_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("base");
        QTest::newRow("plain") << "gemm_kernel"
                               << "gemm_kernel";
        QTest::newRow("void + args") << "void foo(int, float*)"
                                     << "foo";
        QTest::newRow("template") << "void ns::bar<4, float>(int)"
                                  << "bar";
        QTest::newRow("mangled") << "_Z12relu_forwardPfi"
                                 << "relu_forward";
        QTest::newRow("mangled nested") << "_ZN2at6native3addEv"
                                        << "add";
        QTest::newRow("internal linkage") << "_ZL6kernelv"
                                          << "kernel";
        QTest::newRow("leading space") << "  ncclDevKernel_X"
                                       << "ncclDevKernel_X";
    }

    void baseIdentifier()
    {
        QFETCH(QString, name);
        QFETCH(QString, base);
        const std::string n = name.toStdString();
        QCOMPARE(QString::fromStdString(std::string(commBaseIdentifier(n))), base);
    }

    void kernelRecordAnyNameColumn()
    {
        StringTable strings;
        KernelRecord k;
        k.mangledName
            = strings.intern("_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE");
        QCOMPARE(classifyKernel(k, strings), CommKind::Nccl);
        k.mangledName = 0;
        k.shortName = strings.intern("gemm_kernel");
        QCOMPARE(classifyKernel(k, strings), CommKind::None);
        k.demangledName = strings.intern("void ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)");
        QCOMPARE(classifyKernel(k, strings), CommKind::Nccl);
        k.shortName = 12345; // beyond the table: ignored, never thrown
        k.demangledName = 0;
        QCOMPARE(classifyKernel(k, strings), CommKind::None);
        QCOMPARE(classifyCopy(CopyKind::PtoP), CommKind::PeerCopy);
        QCOMPARE(classifyCopy(CopyKind::DtoD), CommKind::None);
    }

    void ranksFromMeta()
    {
        const std::map<std::string, std::string> meta {
            {"rank.4242", "0"},
            {"local_rank.4242", "0"},
            {"world_size.4242", "2"},
            {"rank.4243", "1"},
            {"world_size.4243", "2"},
            {"local_rank.4244", "3"}, // only LOCAL_RANK set
            {"world_size.4245", "2"}, // world size alone names no rank
            {"rank.4246", "x"},       // not a number
            {"rank.abc", "1"},        // not a pid
            {"rank.4247", "-1"},      // negative
            {"ranks.4248", "1"},      // another key
            {"raw_files", "2"},
        };
        const auto ranks = processRanks(meta);
        QCOMPARE(ranks.size(), size_t(3));
        QCOMPARE(ranks.at(4242), (ProcessRank {0, 0, 2}));
        QCOMPARE(ranks.at(4243), (ProcessRank {1, -1, 2}));
        QCOMPARE(ranks.at(4244), (ProcessRank {-1, 3, -1}));
        QCOMPARE(processRankLabel(4243, ranks), std::string("rank 1 \u00b7 pid 4243"));
        QCOMPARE(processRankLabel(4244, ranks), std::string("local rank 3 \u00b7 pid 4244"));
        QCOMPARE(processRankLabel(4245, ranks), std::string("pid 4245"));
        QVERIFY(isRankEnvironmentKey("rank"));
        QVERIFY(isRankEnvironmentKey("local_rank"));
        QVERIFY(isRankEnvironmentKey("world_size"));
        QVERIFY(!isRankEnvironmentKey("RANK"));
        QCOMPARE(rankMetaKey("rank", 17), std::string("rank.17"));
    }

    void intervalArithmeticAgainstBruteForce()
    {
        std::mt19937_64 rng(7);
        for (int round = 0; round < 200; ++round) {
            constexpr TimeNs horizon = 300;
            std::vector<TimeInterval> a, b;
            std::vector<char> fa(horizon, 0), fb(horizon, 0);
            for (auto* v : {&a, &b}) {
                const int n = static_cast<int>(rng() % 12);
                for (int i = 0; i < n; ++i) {
                    const auto s = static_cast<TimeNs>(rng() % horizon);
                    const auto e = static_cast<TimeNs>(rng() % horizon); // may be empty or reversed
                    v->emplace_back(s, e);
                    for (TimeNs t = s; t < e; ++t)
                        (v == &a ? fa : fb)[static_cast<size_t>(t)] = 1;
                }
            }
            const auto ua = intervalUnion(a);
            const auto ub = intervalUnion(b);
            TimeNs la = 0, lb = 0, both = 0;
            for (size_t t = 0; t < static_cast<size_t>(horizon); ++t) {
                la += fa[t];
                lb += fb[t];
                both += fa[t] && fb[t];
            }
            QCOMPARE(intervalLength(ua), la);
            QCOMPARE(intervalLength(ub), lb);
            QCOMPARE(intersectionLength(ua, ub), both);
            QCOMPARE(intersectionLength(ub, ua), both);
            for (size_t i = 1; i < ua.size(); ++i)
                QVERIFY(ua[i - 1].second < ua[i].first); // disjoint and not touching
        }
    }

    void overlapAgainstOracle_data()
    {
        QTest::addColumn<int>("processes");
        QTest::addColumn<int>("devices");
        QTest::addColumn<int>("devicesPerProcess");
        QTest::addColumn<int>("streams");
        QTest::addRow("ddp 2 ranks") << 2 << 2 << 1 << 3;
        QTest::addRow("ddp 4 ranks") << 4 << 4 << 1 << 2;
        QTest::addRow("2 processes share 1 device") << 2 << 1 << 1 << 3;
        QTest::addRow("3 processes, 2 devices each of 3") << 3 << 3 << 2 << 2;
        QTest::addRow("1 process, 4 devices") << 1 << 4 << 4 << 1;
    }

    void overlapAgainstOracle()
    {
        QFETCH(int, processes);
        QFETCH(int, devices);
        QFETCH(int, devicesPerProcess);
        QFETCH(int, streams);
        for (uint64_t seed = 1; seed <= 25; ++seed) {
            test::CommSessionOptions o;
            o.seed = seed;
            o.processes = processes;
            o.devices = devices;
            o.devicesPerProcess = devicesPerProcess;
            o.streamsPerDevice = streams;
            o.ranks = seed % 2 == 1; // half the sessions without ranks
            const SessionData s = test::makeCommSession(o);
            const MemoryRecordSource source(s);
            checkAgainstOracle(s, analyzeCommOverlap(source), o.horizon);
            if (QTest::currentTestFailed())
                qWarning("seed %llu", static_cast<unsigned long long>(seed));
            QVERIFY(!QTest::currentTestFailed());
        }
    }

    void reportThroughTheRegistryAndAFile()
    {
        test::CommSessionOptions o;
        o.seed = 11;
        o.processes = 2;
        o.devices = 1; // both on device 0: an all-processes row, then each rank
        const SessionData s = test::makeCommSession(o);
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("ddp.wscope")).toStdString();
        {
            SessionWriter w(path);
            attachLaneCache(w);
            w.write(s);
            w.commit();
        }
        SessionReader reader(path);
        const SessionFileSource file(reader);
        const ReportTable t = computeReport("comm_overlap", file);
        const ReportTable m = commOverlap(MemoryRecordSource(s));
        QCOMPARE(t.id, std::string("comm_overlap"));
        QCOMPARE(t.rows, m.rows); // the file gives what memory gives, ranks included (meta)
        QCOMPARE(t.rows.size(), size_t(3));
        QVERIFY(std::holds_alternative<std::monostate>(t.rows[0][t.columnIndex("PID")]));
        QVERIFY(std::holds_alternative<std::monostate>(t.rows[0][t.columnIndex("Rank")]));
        QCOMPARE(std::get<int64_t>(t.rows[1][t.columnIndex("Rank")]), int64_t(0));
        QCOMPARE(std::get<int64_t>(t.rows[2][t.columnIndex("Rank")]), int64_t(1));
        QCOMPARE(std::get<int64_t>(t.rows[2][t.columnIndex("PID")]), test::kFirstPid + 1);
        const auto rows = analyzeCommOverlap(file);
        for (size_t i = 0; i < rows.size(); ++i) {
            const auto& pct = t.rows[i][t.columnIndex("Overlap")];
            if (rows[i].commNs == 0)
                QVERIFY(std::holds_alternative<std::monostate>(pct));
            else
                QCOMPARE(std::get<double>(pct), rows[i].overlapPct());
        }
        bool listed = false;
        for (const auto& r : availableReports())
            listed = listed || r.id == "comm_overlap";
        QVERIFY(listed);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, computeReport("comm_overlap:x", file));
    }

    void handMadeOverlap()
    {
        // Rank 0 on GPU 0: compute [0, 100) on stream 7; all-reduce [60, 160) on stream 8; a peer
        // copy [150, 170); compute again [165, 200). comm = [60, 170) = 110 ns; compute =
        // [0, 100) + [165, 200) = 135 ns; overlap = [60, 100) + [165, 170) = 45 ns; exposed 65.
        SessionData s;
        const StringId gemm = s.strings.intern("gemm_kernel");
        const StringId ar = s.strings.intern("ncclDevKernel_AllReduce_Sum_bf16_RING_LL");
        s.processes.push_back({10, "python3", "", 0, 0, 0, 0, 1});
        s.meta["rank.10"] = "0";
        const auto kernel = [&](uint32_t stream, TimeNs a, TimeNs b, StringId name) {
            KernelRecord k;
            k.id = static_cast<int64_t>(s.kernels.size() + 1);
            k.pid = 10;
            k.streamId = stream;
            k.start = a;
            k.end = b;
            k.shortName = name;
            s.kernels.push_back(k);
        };
        kernel(7, 0, 100, gemm);
        kernel(8, 60, 160, ar);
        kernel(7, 165, 200, gemm);
        MemcpyRecord p2p;
        p2p.pid = 10;
        p2p.streamId = 9;
        p2p.start = 150;
        p2p.end = 170;
        p2p.copyKind = CopyKind::PtoP;
        s.memcpys.push_back(p2p);
        const auto rows = analyzeCommOverlap(MemoryRecordSource(s));
        QCOMPARE(rows.size(), size_t(1));
        QCOMPARE(rows[0].rank, int64_t(0));
        QCOMPARE(rows[0].commOps, int64_t(2));
        QCOMPARE(rows[0].computeKernels, int64_t(2));
        QCOMPARE(rows[0].commNs, TimeNs(110));
        QCOMPARE(rows[0].computeNs, TimeNs(135));
        QCOMPARE(rows[0].overlapNs, TimeNs(45));
        QCOMPARE(rows[0].exposedCommNs(), TimeNs(65));
        QCOMPARE(rows[0].overlapPct(), 100.0 * 45 / 110);
        // No communication at all: no percentage.
        s.kernels.erase(s.kernels.begin() + 1);
        s.memcpys.clear();
        const auto quiet = analyzeCommOverlap(MemoryRecordSource(s));
        QCOMPARE(quiet[0].commNs, TimeNs(0));
        QCOMPARE(quiet[0].overlapPct(), -1.0);
    }
};

QTEST_GUILESS_MAIN(TestCommOverlap)
#include "tst_commoverlap.moc"
