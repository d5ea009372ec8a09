// SPDX-License-Identifier: MIT
// The real two-GPU recording (tests/fixtures/multigpu/ddp-2gpu.wscope: torchrun, 2 DDP ranks
// on 2 H200, NCCL 2.28, recorded by scripts/h200/ddp-2gpu.sh): one session with torchrun's
// agent and both ranks, each rank's kernels on its own GPU, the NCCL kernels classified, the
// two processes' clocks agreeing (the same all-reduce ends on both GPUs within microseconds),
// and comm_overlap checked against an independent computation and against what the CLI
// printed on the GPU machine.
#include "core/analysis/commkernels.h"
#include "core/analysis/commoverlap.h"
#include "core/analysis/nsysreports.h"
#include "core/analysis/sessionfilesource.h"
#include "core/model/commranks.h"
#include "core/report/reportformat.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

using namespace ws;

namespace {

QString fixture(const char* name)
{
    return QStringLiteral(WS_FIXTURES_DIR "/multigpu/") + QLatin1String(name);
}

std::string kernelText(const SessionData& s, const KernelRecord& k)
{
    return s.str(k.demangledName ? k.demangledName : k.shortName ? k.shortName : k.mangledName);
}

// Elementary segments between all boundaries, each tested against every interval: slow,
// and nothing like the sort-and-sweep it checks.
struct Segments {
    TimeNs comm = 0;
    TimeNs compute = 0;
    TimeNs both = 0;
};

Segments bySegments(const std::vector<TimeInterval>& comm, const std::vector<TimeInterval>& compute)
{
    std::vector<TimeNs> cuts;
    for (const auto* v : {&comm, &compute}) {
        for (const auto& i : *v) {
            cuts.push_back(i.first);
            cuts.push_back(i.second);
        }
    }
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    const auto covered = [](const std::vector<TimeInterval>& v, TimeNs a, TimeNs b) {
        return std::any_of(v.begin(), v.end(), [&](const TimeInterval& i) { return i.first <= a && b <= i.second; });
    };
    Segments out;
    for (size_t i = 0; i + 1 < cuts.size(); ++i) {
        const TimeNs a = cuts[i];
        const TimeNs b = cuts[i + 1];
        const bool c = covered(comm, a, b);
        const bool k = covered(compute, a, b);
        out.comm += c ? b - a : 0;
        out.compute += k ? b - a : 0;
        out.both += c && k ? b - a : 0;
    }
    return out;
}

} // namespace

class TestCommDdpFixture : public QObject {
    Q_OBJECT

    std::unique_ptr<SessionReader> m_reader;
    SessionData m_s;
    std::map<int64_t, int64_t> m_rankPid; // rank -> pid

private slots:
    void initTestCase()
    {
        m_reader = std::make_unique<SessionReader>(fixture("ddp-2gpu.wscope").toStdString());
        m_s = m_reader->readAll();
        for (const auto& [pid, r] : processRanks(m_s.meta))
            m_rankPid[r.rank] = pid;
    }

    void oneSessionWithTheAgentAndBothRanks()
    {
        QCOMPARE(m_s.processes.size(), size_t(3));
        QCOMPARE(m_s.meta.at("raw_files"), std::string("3"));
        QCOMPARE(m_s.meta.at("dropped_records"), std::string("0"));
        const auto ranks = processRanks(m_s.meta);
        QCOMPARE(ranks.size(), size_t(2));
        int64_t agent = 0;
        for (const auto& p : m_s.processes) {
            if (!ranks.count(p.pid)) {
                agent = p.pid; // torchrun's agent: no RANK of its own
                QVERIFY(p.commandLine.find("torchrun") != std::string::npos);
            }
        }
        QVERIFY(agent != 0);
        for (const auto& [pid, r] : ranks) {
            QCOMPARE(r.worldSize, int64_t(2));
            QCOMPARE(r.localRank, r.rank);
            QCOMPARE(m_rankPid.at(r.rank), pid);
            const auto p = std::find_if(
                m_s.processes.begin(), m_s.processes.end(), [pid = pid](const ProcessInfo& q) { return q.pid == pid; });
            QCOMPARE(p->parentPid, agent);
            QVERIFY(p->commandLine.find("ddp_step.py") != std::string::npos);
        }
        QCOMPARE(m_rankPid.size(), size_t(2));
    }

    void eachRankOnItsOwnGpu()
    {
        QCOMPARE(m_s.devices.size(), size_t(2));
        for (const auto& d : m_s.devices)
            QCOMPARE(d.pid, m_rankPid.at(d.id)); // rank n drives GPU n
        std::map<int64_t, std::set<uint32_t>> devicesOf;
        for (const auto& k : m_s.kernels)
            devicesOf[k.pid].insert(k.deviceId);
        QCOMPARE(devicesOf.size(), size_t(2)); // the agent launched nothing
        QCOMPARE(devicesOf.at(m_rankPid.at(0)), std::set<uint32_t> {0});
        QCOMPARE(devicesOf.at(m_rankPid.at(1)), std::set<uint32_t> {1});
    }

    void ncclKernelsClassified()
    {
        std::map<int64_t, int> comm;
        std::set<std::string> collectives;
        for (const auto& k : m_s.kernels) {
            const std::string name = kernelText(m_s, k);
            // Independent of the classifier: NCCL 2.28 names every device kernel ncclDevKernel_*.
            const bool nccl = name.rfind("ncclDevKernel_", 0) == 0;
            QCOMPARE(classifyKernel(k, m_s.strings) == CommKind::Nccl, nccl);
            if (nccl) {
                ++comm[k.pid];
                collectives.insert(std::string(commBaseIdentifier(name)));
            }
        }
        QCOMPARE(comm.at(m_rankPid.at(0)), 105);
        QCOMPARE(comm.at(m_rankPid.at(1)), 105);
        QVERIFY(collectives.count("ncclDevKernel_AllReduce_Sum_bf16_RING_LL")); // DDP's gradient buckets
        QVERIFY(collectives.count("ncclDevKernel_Broadcast_RING_LL"));          // DDP's initial weights
        QVERIFY(collectives.count("ncclDevKernel_AllGather_RING_LL"));          // the script's check
        // NCCL's own NVTX ranges (host side) are communication too.
        bool ncclRange = false;
        for (const auto& r : m_s.nvtxRanges)
            ncclRange = ncclRange || (m_s.str(r.name) == "ncclAllReduce" && isCommunicationName(m_s.str(r.name)));
        QVERIFY(ncclRange);
    }

    void processClocksAgree()
    {
        // Both halves of one all-reduce run at once on the two GPUs: NCCL's ring kernels finish
        // only when the peer's data arrived. Paired in launch order, every pair overlaps and
        // ends within microseconds, so the processes' timestamps share one clock.
        std::map<int64_t, std::vector<const KernelRecord*>> allReduce;
        for (const auto& k : m_s.kernels) {
            if (kernelText(m_s, k).rfind("ncclDevKernel_AllReduce_Sum_bf16", 0) == 0)
                allReduce[k.pid].push_back(&k);
        }
        for (auto& [pid, v] : allReduce)
            std::sort(v.begin(), v.end(), [](const auto* a, const auto* b) { return a->start < b->start; });
        const auto& a = allReduce.at(m_rankPid.at(0));
        const auto& b = allReduce.at(m_rankPid.at(1));
        QCOMPARE(a.size(), b.size());
        QVERIFY(a.size() > 50);
        TimeNs worst = 0;
        for (size_t i = 0; i < a.size(); ++i) {
            QVERIFY2(
                std::min(a[i]->end, b[i]->end) > std::max(a[i]->start, b[i]->start), qPrintable(QString::number(i)));
            worst = std::max(worst, std::abs(a[i]->end - b[i]->end));
        }
        QVERIFY2(worst < 100'000, qPrintable(QStringLiteral("%1 ns").arg(worst)));
        qInfo("all-reduce pairs: %zu, largest end difference between the GPUs %.1f us", a.size(),
            static_cast<double>(worst) / 1e3);
    }

    void commOverlapAgainstSegmentsAndTheDeviceRun()
    {
        const SessionFileSource file(*m_reader);
        const auto rows = analyzeCommOverlap(file);
        QCOMPARE(rows.size(), size_t(2)); // one process per GPU: no all-processes rows
        for (const auto& r : rows) {
            std::vector<TimeInterval> comm, compute;
            for (const auto& k : m_s.kernels) {
                if (k.pid == r.pid && k.deviceId == r.deviceId)
                    (kernelText(m_s, k).rfind("ncclDevKernel_", 0) == 0 ? comm : compute).emplace_back(k.start, k.end);
            }
            for (const auto& m : m_s.memcpys) {
                if (m.pid == r.pid && m.deviceId == r.deviceId && m.copyKind == CopyKind::PtoP)
                    comm.emplace_back(m.start, m.end);
            }
            const Segments want = bySegments(comm, compute);
            QCOMPARE(r.commNs, want.comm);
            QCOMPARE(r.computeNs, want.compute);
            QCOMPARE(r.overlapNs, want.both);
            QCOMPARE(r.rank, static_cast<int64_t>(r.deviceId));
            QVERIFY(r.overlapNs > 0); // DDP overlaps communication with compute on both GPUs
        }
        // What warpscope-cli stats -r comm_overlap -f csv printed on the GPU machine.
        QFile device(fixture("comm_overlap.csv"));
        QVERIFY(device.open(QIODevice::ReadOnly));
        std::ostringstream csv;
        writeReportCsv(csv, computeReport("comm_overlap", file));
        QCOMPARE(QString::fromStdString(csv.str()), QString::fromUtf8(device.readAll()));
    }

    void everyTimedStepOverlaps()
    {
        // Kernels belong to the step whose NVTX range holds their launch call (same process,
        // correlation id). In every timed step of both ranks the gradient all-reduces run
        // largely under the backward pass.
        std::map<std::pair<int64_t, uint32_t>, TimeNs> launch;
        for (const auto& a : m_s.apiCalls)
            launch[{a.pid, a.correlationId}] = a.start;
        for (const auto& [rank, pid] : m_rankPid) {
            QStringList shares;
            for (int step = 0; step < 10; ++step) {
                const std::string name = "step " + std::to_string(step);
                const auto range = std::find_if(m_s.nvtxRanges.begin(), m_s.nvtxRanges.end(),
                    [&, pid = pid](const NvtxRangeRecord& r) { return r.pid == pid && m_s.str(r.name) == name; });
                QVERIFY(range != m_s.nvtxRanges.end());
                std::vector<TimeInterval> comm, compute;
                for (const auto& k : m_s.kernels) {
                    const auto l = launch.find({k.pid, k.correlationId});
                    if (k.pid != pid || l == launch.end() || l->second < range->start || l->second > range->end)
                        continue;
                    (classifyKernel(k, m_s.strings) != CommKind::None ? comm : compute).emplace_back(k.start, k.end);
                }
                const auto c = intervalUnion(comm);
                const TimeNs commNs = intervalLength(c);
                const TimeNs overlap = intersectionLength(c, intervalUnion(compute));
                QVERIFY(commNs > 0);
                QVERIFY2(overlap * 2 > commNs, qPrintable(QStringLiteral("rank %1 step %2").arg(rank).arg(step)));
                shares << QString::number(100.0 * static_cast<double>(overlap) / static_cast<double>(commNs), 'f', 1);
            }
            qInfo(
                "rank %lld overlap %% per timed step: %s", static_cast<long long>(rank), qPrintable(shares.join(' ')));
        }
    }
};

QTEST_GUILESS_MAIN(TestCommDdpFixture)
#include "tst_comm_ddpfixture.moc"
