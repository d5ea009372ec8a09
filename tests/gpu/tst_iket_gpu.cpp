// SPDX-License-Identifier: MIT
// In-kernel event tracing on a real GPU (label `gpu`): the warpscope/iket.cuh examples recorded
// under `warpscope-cli record`, their warp events checked against what the kernels do (roles,
// ranges per role, balance, every event inside its kernel at its raw position). Skips, saying
// why, where no NVIDIA GPU is present (decided up front, tests/support/gpuprobe.h), the examples
// were not built, or the recorded device is not a Hopper GPU (the examples are sm_90a code); a
// failed record or an example that ran no kernel on a Hopper GPU is a failure.
#include "core/store/sessionreader.h"
#include "gpuprobe.h"
#include "iketrawfit.h"

#include <QtTest>

#include <map>
#include <set>

using namespace ws;

namespace {

QString example(const char* name)
{
    return QStringLiteral(WS_BUILD_DIR "/bin/") + QLatin1String(name);
}

} // namespace

class TestIketGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Records `command` into `s`; a failed record or a host-only recording fails the test.
    // `stderrText`, when given, receives what record printed (its warnings).
    void record(SessionData& s, const QString& name, const QStringList& command, QString* stderrText = nullptr,
        const QStringList& options = {})
    {
        const QString out = m_dir.filePath(name);
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedOutputChannel);
        p.start(QStringLiteral(WS_CLI_PATH),
            QStringList {QStringLiteral("record"), QStringLiteral("-o"), out} + options
                + QStringList {QStringLiteral("--")} + command);
        const bool finished = p.waitForFinished(300000);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        if (stderrText)
            *stderrText = err;
        QVERIFY2(finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
            qPrintable(QStringLiteral("record failed: ") + err));
        s = SessionReader(out.toStdString()).readAll();
        QVERIFY2(s.meta.at("host_only") == "0",
            qPrintable(QStringLiteral("a GPU is present but the recording is host-only: ")
                + QString::fromStdString(s.meta.at("gpu_status"))));
    }

    // The examples are sm_90a code: on another GPU they cannot run, which is the one reason to
    // skip once a GPU is present. Decided from the device the recorder saw, not from the exit code.
    static QString notHopper(const SessionData& s)
    {
        if (!s.devices.empty() && s.devices[0].ccMajor != 9)
            return QStringLiteral("the device is compute capability %1.%2; the examples need a Hopper GPU (sm_90a)")
                .arg(s.devices[0].ccMajor)
                .arg(s.devices[0].ccMinor);
        return {};
    }

    static void checkInsideKernels(const SessionData& s)
    {
        std::map<int64_t, const KernelRecord*> kernels;
        for (const auto& k : s.kernels)
            kernels[k.id] = &k;
        for (const auto& e : s.warpEvents) {
            QVERIFY2(kernels.count(e.kernelId), "every warp event belongs to a recorded kernel");
            const KernelRecord& k = *kernels[e.kernelId];
            QVERIFY(e.begin >= k.start && e.end <= k.end && e.begin <= e.end);
        }
        // The check above holds after ingest's alignment by construction; the raw positions can fail.
        ws::test::checkRawPositions(s);
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        WS_REQUIRE_CUDA_PROGRAM(example("ws-example-iket-two-warp"));
        WS_REQUIRE_CUDA_PROGRAM(example("ws-example-iket-pipelined"));
        QVERIFY(m_dir.isValid());
    }

    void twoWarp()
    {
        SessionData s;
        record(s, QStringLiteral("two_warp.wscope"), {example("ws-example-iket-two-warp"), QStringLiteral("3")});
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.meta.at("iket_launches"), std::string("3"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
        QCOMPARE(s.meta.at("iket_unmatched_launches"), std::string("0"));
        checkInsideKernels(s);
        if (QTest::currentTestFailed())
            return;
        // (kernel, warp, name) -> count; roles per warp.
        std::map<std::tuple<int64_t, int, std::string>, int> ranges;
        std::map<int, std::set<std::string>> roles;
        std::set<int64_t> kernels;
        for (const auto& e : s.warpEvents) {
            kernels.insert(e.kernelId);
            roles[e.warp].insert(s.str(e.role));
            ranges[{e.kernelId, e.warp, s.str(e.name)}] += 1;
        }
        QCOMPARE(kernels.size(), size_t(3));
        QCOMPARE(roles[0], std::set<std::string> {"producer"});
        QCOMPARE(roles[1], std::set<std::string> {"consumer"});
        for (const int64_t k : kernels) {
            QCOMPARE((ranges[{k, 0, "producer_load"}]), 1);
            QCOMPARE((ranges[{k, 1, "producer_load"}]), 0);
            QCOMPARE((ranges[{k, 1, "consumer_compute"}]), 1);
            QCOMPARE((ranges[{k, 0, "consumer_compute"}]), 0);
            QCOMPARE((ranges[{k, 0, "wait_for_data"}]), 1);
            QCOMPARE((ranges[{k, 1, "wait_for_data"}]), 1);
            QCOMPARE((ranges[{k, 0, "kernel_start"}]), 1);
        }
    }

    void pipelined()
    {
        const int blocks = 4;
        const int tilesPerBlock = 8;
        SessionData s;
        record(s, QStringLiteral("pipelined.wscope"),
            {example("ws-example-iket-pipelined"), QString::number(blocks), QString::number(tilesPerBlock),
                QStringLiteral("16"), QStringLiteral("1")});
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.meta.at("iket_launches"), std::string("1"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
        checkInsideKernels(s);
        if (QTest::currentTestFailed())
            return;
        std::map<std::string, std::set<std::pair<int, int>>> warpsPerRole;
        std::map<std::pair<std::string, std::string>, int> count; // (role, name)
        int maxAsyncDepth = 0;
        for (const auto& e : s.warpEvents) {
            warpsPerRole[s.str(e.role)].insert({e.block, e.warp});
            ++count[{s.str(e.role), s.str(e.name)}];
            if (e.kind == WarpEventKind::AsyncRange)
                maxAsyncDepth = std::max(maxAsyncDepth, e.depth);
        }
        QCOMPARE(warpsPerRole["producer"].size(), size_t(blocks));
        QCOMPARE(warpsPerRole["consumer"].size(), size_t(2 * blocks));
        const int tiles = blocks * tilesPerBlock;
        QCOMPARE((count[{"producer", "issue_load"}]), tiles);
        QCOMPARE((count[{"producer", "stage_busy"}]), tiles);
        QCOMPARE((count[{"consumer", "compute"}]), 2 * tiles);
        QCOMPARE((count[{"consumer", "release"}]), 2 * tiles);
        QVERIFY2(maxAsyncDepth >= 1, "stage_busy spans of different stages overlap");
    }

    // Issue 23: a launch whose events take over 64 MB reaches the session whole: every warp's
    // ranges, as many as the kernel wrote (ranges + 3 * (warp of grid % 11)), in the order it
    // wrote them (a, b, c, a, ...), and nothing reported lost.
    void launchOver64MB()
    {
        if (!QFileInfo::exists(example("ws-example-iket-large")))
            QSKIP("ws-example-iket-large was not built");
        const unsigned blocks = 132;
        const unsigned warps = 8;
        const unsigned base = 2100;
        SessionData s;
        record(s, QStringLiteral("large.wscope"),
            {example("ws-example-iket-large"), QStringLiteral("big"), QString::number(blocks), QString::number(warps),
                QString::number(base)});
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0); // the program checked collect()'s counts itself
        QCOMPARE(s.meta.at("iket_launches"), std::string("1"));
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QVERIFY(!s.meta.count("iket_lost_events") || s.meta.at("iket_lost_events") == "0");
        QVERIFY(!s.meta.count("iket_incomplete_launches") || s.meta.at("iket_incomplete_launches") == "0");
        // 16 bytes per event on the device: over 64 MB.
        uint64_t events = 0;
        for (unsigned g = 0; g < blocks * warps; ++g)
            events += 2ull * (base + 3 * (g % 11)) + 4; // role, ranges, mark, two anchors
        QVERIFY2(events * 16 > 64ull * 1024 * 1024, "the launch's events exceed 64 MB");
        std::map<std::pair<int, int>, std::vector<std::pair<TimeNs, std::string>>> ranges;
        for (const auto& e : s.warpEvents)
            if (e.kind == WarpEventKind::Range)
                ranges[{e.block, e.warp}].push_back({e.begin, s.str(e.name)});
        QCOMPARE(ranges.size(), size_t(blocks * warps));
        int wrongCount = 0;
        int outOfOrder = 0;
        for (auto& [key, list] : ranges) {
            const unsigned g = static_cast<unsigned>(key.first) * warps + static_cast<unsigned>(key.second);
            if (list.size() != base + 3 * (g % 11)) {
                ++wrongCount;
                continue;
            }
            std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            for (size_t i = 0; i < list.size(); ++i)
                if (list[i].second != std::string(1, "abc"[i % 3])) {
                    ++outOfOrder;
                    break;
                }
        }
        QCOMPARE(wrongCount, 0);
        QCOMPARE(outOfOrder, 0);
        checkInsideKernels(s);
    }

    // Two warps run out of slots: the loss is reported with the kernel and the warps, in the
    // session's meta and in record's warnings.
    void lostEventsReported()
    {
        if (!QFileInfo::exists(example("ws-example-iket-large")))
            QSKIP("ws-example-iket-large was not built");
        SessionData s;
        QString err;
        record(s, QStringLiteral("lost.wscope"), {example("ws-example-iket-large"), QStringLiteral("lost")}, &err);
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        // 64 slots per warp; 200 marks + 2 anchors in two warps: 138 lost by each.
        QCOMPARE(s.meta.at("iket_dropped_events"), std::string("276"));
        QVERIFY(s.meta.count("iket_dropped_warps"));
        const QString warpsText = QString::fromStdString(s.meta.at("iket_dropped_warps"));
        QVERIFY2(warpsText.contains(QLatin1String("block 2 warp 1 (138)")), qPrintable(warpsText));
        QVERIFY2(warpsText.contains(QLatin1String("block 3 warp 3 (138)")), qPrintable(warpsText));
        QVERIFY2(warpsText.contains(QLatin1String("kernel #")), qPrintable(warpsText));
        QCOMPARE(warpsText.count(QLatin1Char('\n')), 1);
        QVERIFY2(err.contains(QLatin1String("276 events dropped")) && err.contains(QLatin1String("block 2 warp 1")),
            qPrintable(err));
        // The other warps' events all arrived: 10 marks each.
        std::map<std::pair<int, int>, int> marks;
        for (const auto& e : s.warpEvents)
            if (e.kind == WarpEventKind::Mark)
                ++marks[{e.block, e.warp}];
        QCOMPARE(marks.size(), size_t(16));
        for (const auto& [key, n] : marks) {
            const bool short_ = (key.first == 2 && key.second == 1) || (key.first == 3 && key.second == 3);
            QCOMPARE(n, short_ ? 64 - 1 : 10); // the start anchor and 63 marks fit; the end anchor is lost
        }
    }

    // Two streams at once, and the three other ways a launch loses events: a buffer too small, a
    // Launch sized for half the grid, a launch without arm(). Every loss is reported, with the
    // launch's name, in record's warnings and the session; the full launches arrive whole.
    void lossesReportedEveryWay()
    {
        if (!QFileInfo::exists(example("ws-example-iket-streams")))
            QSKIP("ws-example-iket-streams was not built");
        SessionData s;
        QString err;
        record(s, QStringLiteral("streams.wscope"),
            {example("ws-example-iket-streams"), QStringLiteral("2"), QStringLiteral("200")}, &err);
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        // 792 warps a launch; per warp 1 + 6 x 200 + 4 + 4 = 1209 events and 2 anchors (the short
        // buffer holds 604 a warp).
        constexpr int64_t kWarps = 792;
        constexpr int64_t kPerWarp = 1209;
        std::map<int64_t, int64_t> perKernel;
        for (const auto& e : s.warpEvents)
            ++perKernel[e.kernelId];
        QCOMPARE(s.kernels.size(), size_t(8)); // 2 x (full, short, narrow, unarmed)
        // full: every range and mark (4 marks, 600 ranges and 2 async ones per warp) of both launches.
        const int64_t fullRows = kWarps * (4 + 600 + 2);
        int fullKernels = 0;
        for (const auto& [kernel, n] : perKernel)
            fullKernels += n == fullRows ? 1 : 0;
        QCOMPARE(fullKernels, 2);
        QCOMPARE(s.meta.at("iket_launches"), std::string("6")); // the unarmed ones never arrived
        QCOMPARE(s.meta.at("iket_out_of_range_warps"), std::to_string(2 * 396));
        QVERIFY2(err.contains(QLatin1String("in-kernel trace sweep_narrow (kernel #"))
                && err.contains(QLatin1String("396 warp(s) had no slots")),
            qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("in-kernel trace sweep_short_buffer (kernel #"))
                && err.contains(QLatin1String("events dropped by 792 warp(s)")),
            qPrintable(err));
        const QString unarmed = QStringLiteral("in-kernel trace sweep_unarmed: %1 warp(s) wrote %2 events that were "
                                               "never handed over (launched without arm()")
                                    .arg(kWarps)
                                    .arg(kWarps * (kPerWarp + 2));
        QVERIFY2(err.contains(unarmed), qPrintable(err));
        QVERIFY(QString::fromStdString(s.meta.at("recorder_messages")).contains(unarmed));
    }

    // Launches that end while the recorder is not capturing (outside a cudaProfilerApi range) are
    // refused, and the loss is reported: the first at once, the process's total at its exit.
    void launchesOutsideTheCaptureRangeReported()
    {
        if (!QFileInfo::exists(example("ws-example-iket-streams")))
            QSKIP("ws-example-iket-streams was not built");
        SessionData s;
        QString err;
        record(s, QStringLiteral("capture.wscope"),
            {example("ws-example-iket-streams"), QStringLiteral("3"), QStringLiteral("200"),
                QStringLiteral("profiler-range")},
            &err, {QStringLiteral("--capture-range"), QStringLiteral("cudaProfilerApi")});
        if (QTest::currentTestFailed())
            return;
        if (const QString why = notHopper(s); !why.isEmpty())
            QSKIP(qPrintable(why));
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.meta.at("iket_launches"), std::string("3")); // round 2's full, short and narrow
        // Rounds 1 and 3: per round 792 + 792 + 396 warps of 1,209 events and 2 anchors each.
        const int64_t perWarp = 1209 + 2;
        const int64_t lost = 2 * (792 + 792 + 396) * perWarp;
        QVERIFY2(
            err.contains(QStringLiteral("in-kernel trace sweep_full: a launch of %1 events ended while the recorder "
                                        "was not capturing")
                             .arg(792 * perWarp)),
            qPrintable(err));
        QVERIFY2(
            err.contains(QStringLiteral("in-kernel trace: 6 launch(es) with %1 events ended while the recorder was "
                                        "not capturing")
                             .arg(lost)),
            qPrintable(err));
    }
};

QTEST_GUILESS_MAIN(TestIketGpu)
#include "tst_iket_gpu.moc"
