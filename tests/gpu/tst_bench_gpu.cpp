// SPDX-License-Identifier: MIT
// `warpscope-cli bench` on a real GPU: each workload passes its correctness check and keeps
// every sample; timers and cache policies land in the session as asked; implementations
// alternate. Skips (with the reason) without a GPU (tests/support/gpuprobe.h) or where
// warpscope-bench-workloads is not built; on a GPU machine a failed device probe fails.
#include "clirun.h"
#include "core/bench/benchreport.h"
#include "core/bench/benchresult.h"
#include "core/store/sessionreader.h"
#include "gpuprobe.h"

#include <QtTest>

using namespace ws;
using namespace ws::bench;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args, 300000);
}

} // namespace

class TestBenchGpu : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Runs the command; the session path on success, empty (and the error logged) otherwise.
    QString bench(const QString& name, const QStringList& args)
    {
        const auto path = m_dir.filePath(name + QStringLiteral(".wscope"));
        const auto r = cli(QStringList {QStringLiteral("bench"), QStringLiteral("-o"), path} + args);
        if (r.exitCode != 0) {
            qWarning("exit %d: %s", r.exitCode, qPrintable(r.err));
            return {};
        }
        return path;
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (const QString why = ws::test::whyNoGpu(); !why.isEmpty())
            QSKIP(qPrintable(why));
        const QString exe = QStringLiteral(WS_BUILD_DIR "/bin/warpscope-bench-workloads");
        WS_REQUIRE_CUDA_PROGRAM(exe);
        // A GPU is present: a workload program that cannot find it is a failure, not a skip.
        QProcess probe;
        probe.start(exe, {QStringLiteral("--probe")});
        QVERIFY(probe.waitForFinished(60000));
        QVERIFY2(probe.exitStatus() == QProcess::NormalExit && probe.exitCode() == 0,
            qPrintable(QStringLiteral("warpscope-bench-workloads --probe found no CUDA device: ")
                + QString::fromUtf8(probe.readAllStandardError())));
        QVERIFY(m_dir.isValid());
    }

    void workloads_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<int>("implementations");
        QTest::addColumn<int>("timer");
        QTest::addColumn<int>("cache");
        QTest::newRow("gemm bf16 per-call flush")
            << QStringList {"-w", "gemm", "--size", "1024", "--rounds", "3", "--repeat", "20", "--warmup-ms", "20"} << 1
            << int(TimerKind::CudaEventsPerCall) << int(CachePolicy::Flush);
        QTest::newRow("gemm fp16 batch warm")
            << QStringList {"-w", "gemm", "--size", "512", "--dtype", "fp16", "--timer", "cuda-events-per-batch",
                   "--cache", "warm", "--rounds", "4", "--repeat", "10", "--warmup-calls", "20"}
            << 1 << int(TimerKind::CudaEventsPerBatch) << int(CachePolicy::Warm);
        QTest::newRow("gemm-relu fp32 wallclock")
            << QStringList {"-w", "gemm-relu", "--size", "256", "--dtype", "fp32", "--timer", "wallclock-sync-per-call",
                   "--rounds", "2", "--repeat", "5", "--warmup-calls", "5"}
            << 1 << int(TimerKind::WallclockSyncPerCall) << int(CachePolicy::Flush);
        QTest::newRow("copy") << QStringList {"-w", "copy", "--size", "8M", "--rounds", "4", "--repeat", "10"} << 2
                              << int(TimerKind::CudaEventsPerCall) << int(CachePolicy::Flush);
        QTest::newRow("multistream") << QStringList {"-w", "multistream", "--size", "1M", "--rounds", "4", "--repeat",
            "10", "--cache", "warm"} << 2
                                     << int(TimerKind::CudaEventsPerCall) << int(CachePolicy::Warm);
        QTest::newRow("pdl") << QStringList {"-w", "pdl", "--size", "256k", "--rounds", "4", "--repeat", "10"} << 2
                             << int(TimerKind::CudaEventsPerCall) << int(CachePolicy::Flush);
    }

    void workloads()
    {
        QFETCH(QStringList, args);
        QFETCH(int, implementations);
        QFETCH(int, timer);
        QFETCH(int, cache);
        const auto path = bench(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), '-'), args);
        QVERIFY(!path.isEmpty());
        const SessionReader reader(path.toStdString());
        const auto result = benchResultFromSession(reader.readAll(), path.toStdString());
        QCOMPARE(static_cast<int>(result.runs.size()), implementations);
        QVERIFY(!result.devices.empty());
        QVERIFY(result.environment.count("gpu.name"));
        for (const auto& run : result.runs) {
            QCOMPARE(static_cast<int>(run.options.timer), timer);
            QCOMPARE(static_cast<int>(run.options.cache), cache);
            QVERIFY(run.check.performed && run.check.passed);
            QCOMPARE(static_cast<int>(run.rounds.size()), run.options.rounds);
            if (run.options.timer == TimerKind::CudaEventsPerBatch) {
                QVERIFY(run.calls.empty());
            } else {
                for (const auto& c : run.calls)
                    QCOMPARE(static_cast<int64_t>(c.size()), run.options.repeat);
            }
            if (run.options.cache == CachePolicy::Flush)
                QVERIFY(run.flushBytes >= 2 * result.devices.front().l2Bytes);
            else
                QCOMPARE(run.flushBytes, int64_t(0));
            const auto s = summarize(run);
            QVERIFY(s.stats.median > 0);
            QVERIFY(!s.throughput.empty());
        }
        if (implementations == 2) {
            // Alternating order: the first implementation leads in even rounds only.
            for (size_t r = 0; r < result.runs[0].roundPositions.size(); ++r)
                QCOMPARE(result.runs[0].roundPositions[r], int(r % 2));
        }
    }

    void flushBelowTwiceL2IsRefused()
    {
        const auto path = m_dir.filePath(QStringLiteral("small-flush.wscope"));
        const auto r
            = cli({QStringLiteral("bench"), QStringLiteral("-o"), path, QStringLiteral("-w"), QStringLiteral("copy"),
                QStringLiteral("--size"), QStringLiteral("1M"), QStringLiteral("--flush-bytes"), QStringLiteral("1M")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("is smaller than 2 x L2")), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(path));
    }

    void missingDevice()
    {
        const auto path = m_dir.filePath(QStringLiteral("nodev.wscope"));
        const auto r = cli({QStringLiteral("bench"), QStringLiteral("-o"), path, QStringLiteral("-w"),
            QStringLiteral("copy"), QStringLiteral("--device"), QStringLiteral("999")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--device 999 does not exist")), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestBenchGpu)
#include "tst_bench_gpu.moc"
