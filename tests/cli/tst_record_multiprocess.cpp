// SPDX-License-Identifier: MIT
// Multi-process sessions end to end without a GPU: `warpscope-cli record` following a
// torchrun-style launch (a shell starting two workers with RANK / LOCAL_RANK / WORLD_SIZE)
// into one session (each worker's own raw file, its threads, its clock anchor, its rank), and
// `warpscope-cli stats -r comm_overlap` on a multi-GPU session file. The recording cases skip
// where the injection library and the host-only NVTX example were not built (no CUDA toolkit).
#include "../core/commsession.h"
#include "clirun.h"
#include "core/analysis/commoverlap.h"
#include "core/analysis/sessionfilesource.h"
#include "core/model/commranks.h"
#include "core/model/recordsource.h"
#include "core/ranking/windowedsource.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

using ws::test::nvtxExample;
using ws::test::nvtxRecordable;

} // namespace

class TestRecordMultiProcess : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void torchrunStyleLaunchIsOneSession()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        // Like torchrun: one launcher process, workers started in the background with their
        // rank in the environment, the launcher waiting for both. --sleep-ms tells them apart.
        const QString exe = nvtxExample();
        const QString script = QStringLiteral("RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 %1 --sleep-ms 11 & "
                                              "RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 %1 --sleep-ms 12 & wait")
                                   .arg(exe);
        const QString out = m_dir.filePath(QStringLiteral("ddp.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--"),
            QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();

        QCOMPARE(s.meta.at("raw_files"), std::string("2"));
        QCOMPARE(s.meta.at("processes_without_end_record"), std::string());
        QCOMPARE(s.processes.size(), size_t(3));
        const ProcessInfo& shell = s.processes[0];
        QCOMPARE(shell.name, std::string("sh"));
        QCOMPARE(shell.exitCode, 0);

        const auto ranks = processRanks(s.meta);
        std::set<int64_t> seenRanks;
        for (size_t i = 1; i < s.processes.size(); ++i) {
            const ProcessInfo& p = s.processes[i];
            QCOMPARE(p.name, std::string("ws-example-nvtx-threads"));
            QCOMPARE(p.parentPid, shell.pid);
            // Each worker's own rank, read by its injection library from its environment.
            const int64_t expectedRank = p.commandLine.find("--sleep-ms 11") != std::string::npos ? 0 : 1;
            QVERIFY2(ranks.count(p.pid), qPrintable(QString::number(p.pid)));
            QCOMPARE(ranks.at(p.pid), (ProcessRank {expectedRank, expectedRank, 2}));
            seenRanks.insert(expectedRank);

            // Its threads: main plus the two named workers.
            std::set<std::string> threadNames;
            int threads = 0;
            for (const auto& t : s.threads) {
                if (t.pid == p.pid) {
                    ++threads;
                    threadNames.insert(t.name);
                }
            }
            QCOMPARE(threads, 3);
            QVERIFY(threadNames.count("worker 0") && threadNames.count("worker 1"));

            // Its NVTX ranges (1 main, 6 outer, 6 inner, 1 cross-thread, 1 registered), all
            // after its own clock anchor, which it read when its recorder started.
            QVERIFY(p.anchorMonotonicNs > 0);
            QVERIFY(p.anchorRealtimeNs > p.anchorMonotonicNs);
            int ranges = 0;
            for (const auto& rr : s.nvtxRanges) {
                if (rr.pid != p.pid)
                    continue;
                ++ranges;
                QVERIFY(rr.start >= p.anchorMonotonicNs);
                QVERIFY(rr.end >= rr.start);
            }
            QCOMPARE(ranges, 15);
        }
        QCOMPARE(seenRanks, (std::set<int64_t> {0, 1}));
        // One host, one CLOCK_MONOTONIC: the per-process anchors agree on the realtime offset
        // (both pairs were read back to back; allow for a scheduler hiccup between the reads).
        const auto offset = [](const ProcessInfo& p) { return p.anchorRealtimeNs - p.anchorMonotonicNs; };
        QVERIFY(std::llabs(offset(s.processes[1]) - offset(s.processes[2])) < 50'000'000);
        // The rank keys went to meta, not into the host environment.
        QVERIFY(!s.environment.count("rank"));
        QVERIFY(!s.environment.count("rank [pid " + std::to_string(s.processes[2].pid) + "]"));

        // comm_overlap on a session without GPU work: no rows, no error.
        const Run stats = cli({QStringLiteral("stats"), out, QStringLiteral("-r"), QStringLiteral("comm_overlap"),
            QStringLiteral("-f"), QStringLiteral("csv")});
        QVERIFY2(stats.exitCode == 0, qPrintable(stats.err));
        QCOMPARE(stats.out.trimmed().split(QLatin1Char('\n')).size(), 1); // the header only
    }

    void commOverlapThroughTheCli()
    {
        test::CommSessionOptions o;
        o.seed = 21;
        o.processes = 3;
        o.devices = 2; // processes 0 and 2 share device 0
        const SessionData s = test::makeCommSession(o);
        const QString path = m_dir.filePath(QStringLiteral("synthetic-ddp.wscope"));
        {
            SessionWriter w(path.toStdString());
            attachLaneCache(w);
            w.write(s);
            w.commit();
        }
        const Run r = cli({QStringLiteral("stats"), path, QStringLiteral("-r"), QStringLiteral("comm_overlap"),
            QStringLiteral("-f"), QStringLiteral("csv")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines[0],
            QStringLiteral("DevId,PID,Rank,Comm Ops,Comm Time (ns),Compute Kernels,Compute Time (ns),"
                           "Overlap Time (ns),Overlap (%),Exposed Comm (ns)"));
        const auto rows = analyzeCommOverlap(MemoryRecordSource(s));
        QCOMPARE(lines.size(), static_cast<qsizetype>(rows.size() + 1));
        QCOMPARE(rows.size(), size_t(3 + 1)); // 3 processes, device 0 shared: one all-processes row
        for (size_t i = 0; i < rows.size(); ++i) {
            const QStringList cells = lines[static_cast<qsizetype>(i + 1)].split(QLatin1Char(','));
            QCOMPARE(cells.size(), 10);
            const auto& row = rows[i];
            QCOMPARE(cells[0].toLongLong(), static_cast<qint64>(row.deviceId));
            QCOMPARE(cells[1], row.pid < 0 ? QString() : QString::number(row.pid));
            QCOMPARE(cells[2], row.rank < 0 ? QString() : QString::number(row.rank));
            QCOMPARE(cells[4].toLongLong(), row.commNs);
            QCOMPARE(cells[6].toLongLong(), row.computeNs);
            QCOMPARE(cells[7].toLongLong(), row.overlapNs);
            QCOMPARE(cells[9].toLongLong(), row.exposedCommNs());
        }
        // Ranks came from the file's meta: rank = process index.
        QCOMPARE(lines[2].section(QLatin1Char(','), 1, 2), QStringLiteral("%1,0").arg(test::kFirstPid));

        // Unknown options of the report: exit non-zero with one line naming the problem.
        const Run bad = cli({QStringLiteral("stats"), path, QStringLiteral("-r"), QStringLiteral("comm_overlap:x")});
        QVERIFY(bad.exitCode != 0);
        QCOMPARE(bad.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(bad.err.contains(QLatin1String("comm_overlap")), qPrintable(bad.err));
    }

    void commOverlapOverARange()
    {
        // The real 2-GPU DDP recording (H200): the report over the middle half of the GPU work
        // equals the in-process computation over the same window, and differs from the whole.
        const QString path = QStringLiteral(WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope");
        const SessionReader reader(path.toStdString());
        const SessionFileSource file(reader);
        const TimeSpan span = file.timeSpan();
        TimeNs first = span.end, last = span.begin;
        file.forEachKernel([&](const KernelRecord& k) {
            first = std::min(first, k.start);
            last = std::max(last, k.end);
        });
        QVERIFY(first < last);
        const TimeNs from = first - span.begin + (last - first) / 4;
        const TimeNs to = first - span.begin + 3 * (last - first) / 4;
        const QString range = QStringLiteral("%1ns:%2ns").arg(from).arg(to);
        const Run r = cli({QStringLiteral("stats"), path, QStringLiteral("-r"), QStringLiteral("comm_overlap"),
            QStringLiteral("-f"), QStringLiteral("csv"), QStringLiteral("--range"), range});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("events overlapping ") + range), qPrintable(r.err));
        const WindowedSource window(file, TimeWindow {span.begin + from, span.begin + to});
        const auto rows = analyzeCommOverlap(window);
        const auto whole = analyzeCommOverlap(file);
        QVERIFY(!rows.empty());
        QVERIFY(rows.front().commNs < whole.front().commNs);
        const QStringList lines = r.out.trimmed().split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), static_cast<qsizetype>(rows.size() + 1));
        for (size_t i = 0; i < rows.size(); ++i) {
            const QStringList cells = lines[static_cast<qsizetype>(i + 1)].split(QLatin1Char(','));
            QCOMPARE(cells[4].toLongLong(), rows[i].commNs);
            QCOMPARE(cells[7].toLongLong(), rows[i].overlapNs);
        }

        for (const char* bad : {"5ms", "3ms:2ms", "1ms:soon"}) {
            const Run e = cli({QStringLiteral("stats"), path, QStringLiteral("--range"), QString::fromLatin1(bad)});
            QVERIFY(e.exitCode != 0);
            QVERIFY2(e.err.contains(QStringLiteral("--range")) && e.err.contains(path), qPrintable(e.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestRecordMultiProcess)
#include "tst_record_multiprocess.moc"
