// SPDX-License-Identifier: MIT
// warpscope-cli merge: the H200 trace of gemm_relu and its profile become one two-run session
// whose traced kernels carry the profiled metrics; bad input exits non-zero naming the problem.
#include "clirun.h"
#include "core/metrics/kernelmetrics.h"
#include "core/store/sessionreader.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

QString fixture(const char* relative)
{
    return QStringLiteral(WS_FIXTURES_DIR "/") + QLatin1String(relative);
}

} // namespace

class TestMergeCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void mergesATraceAndItsProfile()
    {
        const QString out = m_dir.filePath(QStringLiteral("both.wscope"));
        const auto r = ws::test::runCli({QStringLiteral("merge"), fixture("recorder/sessions/gemm_relu.wscope"),
            fixture("metrics/gemm_relu.wscope"), QStringLiteral("-o"), out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(r.err.contains(QLatin1String("2 runs")));
        const SessionReader reader(out.toStdString());
        const auto runs = reader.readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[0].kind, std::string("trace"));
        QCOMPARE(runs[1].kind, std::string("profile"));
        QCOMPARE(reader.readKernelLinks().size(), size_t(14));
        // Kernel 1 of the trace is its first launch; the profile measured its counterpart.
        const SessionMetrics metrics = SessionMetrics::read(reader);
        const auto* first = metrics.find(reader.readKernelLinks().front().traceKernelId);
        QVERIFY(first != nullptr);
        QCOMPARE(first->metricsRunId, 2u);
        QVERIFY(first->metrics.get("gpu__time_duration.sum").has_value());

        // Reports count the trace run only: the profile's replayed kernels have no real timing.
        // The merged session's reports are the trace's own, as 81feda8 printed them (v1 golden).
        const QStringList reports {QStringLiteral("stats"), QStringLiteral("-r"),
            QStringLiteral("cuda_api_sum,cuda_gpu_kern_sum,nvtx_sum,nvtx_gpu_proj_sum,gpu_idle_gaps,comm_overlap,"
                           "nvtx_timing_sum"),
            QStringLiteral("-f"), QStringLiteral("csv")};
        const auto merged = ws::test::runCli(reports + QStringList {out});
        QVERIFY2(merged.exitCode == 0, qPrintable(merged.err));
        QFile golden(
            QStringLiteral(WS_FIXTURES_DIR "/v1golden/tests_fixtures_recorder_sessions_gemm_relu.wscope.stats.csv"));
        QVERIFY(golden.open(QIODevice::ReadOnly));
        QCOMPARE(merged.out, QString::fromUtf8(golden.readAll()));
        // The profile alone still reports its own launches (a profile-only session has no trace).
        const auto profileOnly = ws::test::runCli(reports + QStringList {fixture("metrics/gemm_relu.wscope")});
        QVERIFY(profileOnly.out.contains(QLatin1String("nvjet")));
    }

    void h200MergedReportsEqualTheTrace()
    {
        // The H200 three-run session (trace + profile + PC sampling, docs/evidence/2026-12-02-multirun)
        // reports what its trace alone reports, table for table.
        const QStringList reports {QStringLiteral("stats"), QStringLiteral("-r"),
            QStringLiteral("cuda_api_sum,cuda_gpu_kern_sum,nvtx_sum,nvtx_gpu_proj_sum,gpu_idle_gaps"),
            QStringLiteral("-f"), QStringLiteral("csv")};
        const auto merged = ws::test::runCli(reports + QStringList {fixture("multirun/h200-gemm-relu-3runs.wscope")});
        const auto trace = ws::test::runCli(reports + QStringList {fixture("multirun/h200-gemm-relu-trace.wscope")});
        QVERIFY2(merged.exitCode == 0 && trace.exitCode == 0, qPrintable(merged.err + trace.err));
        QVERIFY(merged.out.contains(QLatin1String("nvjet")));
        QCOMPARE(merged.out, trace.out);

        // info lists the runs: kind, user@host, how long, the command line.
        const auto info = ws::test::runCli({QStringLiteral("info"), fixture("multirun/h200-gemm-relu-3runs.wscope")});
        QVERIFY2(info.exitCode == 0, qPrintable(info.err));
        const QRegularExpression run(QStringLiteral(
            R"(run (\d) +(trace|profile|pc-sampling) +root@vm +[0-9.]+ (s|ms) +\S*ws-example-gemm-relu --warmup 3 --iters 20)"));
        auto it = run.globalMatch(info.out);
        QStringList kinds;
        while (it.hasNext())
            kinds << it.next().captured(2);
        QCOMPARE(kinds, (QStringList {"trace", "profile", "pc-sampling"}));
    }

    void badInputIsRefused()
    {
        const QString trace = fixture("recorder/sessions/gemm_relu.wscope");
        auto r = ws::test::runCli(
            {QStringLiteral("merge"), trace, QStringLiteral("-o"), m_dir.filePath(QStringLiteral("one.wscope"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("at least two sessions")), qPrintable(r.err));
        const QString missing = m_dir.filePath(QStringLiteral("missing.wscope"));
        r = ws::test::runCli({QStringLiteral("merge"), trace, missing, QStringLiteral("-o"),
            m_dir.filePath(QStringLiteral("x.wscope"))});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(missing), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("x.wscope"))));
    }
};

QTEST_GUILESS_MAIN(TestMergeCli)
#include "tst_merge_cli.moc"
