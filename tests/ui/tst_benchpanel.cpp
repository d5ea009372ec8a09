// SPDX-License-Identifier: MIT
// BenchPanel on the H200 fixture session and on results built here: the trend plot holds one
// point per round (and per warm-up chunk before round 0), the box plots the statistics core
// computes, the summary names the timer, the boundary and throughput with its formula, and a
// session without benchmark runs shows a note.
#include "ui/benchpanel.h"

#include "core/bench/benchreport.h"
#include "core/store/sessionreader.h"

#include <QComboBox>
#include <QLabel>
#include <QTextBrowser>
#include <QtTest>

#include <qcustomplot.h>

using namespace ws;
using namespace ws::bench;

namespace {

SessionData fixture()
{
    const SessionReader reader(WS_FIXTURES_DIR "/bench/h200-pdl-1M.wscope");
    return reader.readAll();
}

BenchRunResult batchRun(const std::string& impl, std::vector<double> rounds)
{
    BenchRunResult r;
    r.workload = "gemm";
    r.implementation = impl;
    r.size = 4096;
    r.dtype = "bf16";
    r.options.timer = TimerKind::CudaEventsPerBatch;
    r.options.cache = CachePolicy::Warm;
    r.options.rounds = static_cast<int>(rounds.size());
    r.boundary = "One call: one cublasGemmEx call.";
    r.workFlops = 137438953472.0;
    r.workText = "2 x 4096^3 FLOP";
    r.rounds = std::move(rounds);
    r.roundPositions.assign(r.rounds.size(), 0);
    return r;
}

const QCPStatisticalBox* boxAt(QCustomPlot* plot, int i)
{
    return qobject_cast<QCPStatisticalBox*>(plot->plottable(i));
}

} // namespace

class TestBenchPanel : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fixtureSession()
    {
        const auto data = fixture();
        const auto result = benchResultFromSession(data, "fixture");
        BenchPanel panel;
        panel.resize(1000, 700);
        panel.setSession(data, QStringLiteral("h200-pdl-1M.wscope"));
        QVERIFY(!panel.noteLabel()->isVisibleTo(&panel));
        QCOMPARE(panel.groupCount(), 1); // pdl and serialized were measured together
        QCOMPARE(panel.currentGroup(), 0);
        QVERIFY(panel.groupSelector()->itemText(0).contains(QStringLiteral("pdl, serialized")));

        // Per implementation: a warm-up graph and a round graph.
        auto* trend = panel.trendPlot();
        QCOMPARE(trend->graphCount(), 4);
        for (int k = 0; k < 2; ++k) {
            const auto& run = result.runs[static_cast<size_t>(k)];
            auto* warm = trend->graph(2 * k);
            auto* rounds = trend->graph(2 * k + 1);
            QCOMPARE(warm->data()->size(), static_cast<int>(run.warmupChunks.size()));
            QCOMPARE(warm->data()->at(0)->key, -static_cast<double>(run.warmupChunks.size()));
            QCOMPARE(rounds->data()->size(), static_cast<int>(run.rounds.size()));
            QCOMPARE(rounds->data()->at(3)->value, run.rounds[3]);
            QVERIFY(rounds->name().startsWith(QString::fromStdString(run.implementation)));
        }

        auto* dist = panel.distributionPlot();
        QCOMPARE(dist->plottableCount(), 2);
        for (int k = 0; k < 2; ++k) {
            const auto s = summarize(result.runs[static_cast<size_t>(k)]);
            const auto* box = boxAt(dist, k);
            QVERIFY(box);
            const auto point = box->data()->at(0);
            QCOMPARE(point->median, s.stats.median);
            QCOMPARE(point->lowerQuartile, s.stats.p25);
            QCOMPARE(point->upperQuartile, s.stats.p75);
            QCOMPARE(point->minimum, s.stats.p05);
            QCOMPARE(point->maximum, s.stats.p95);
            // Outliers: exactly the per-call samples beyond the whiskers.
            int beyond = 0;
            for (const auto& c : result.runs[static_cast<size_t>(k)].calls)
                for (double v : c)
                    beyond += v < s.stats.p05 || v > s.stats.p95;
            QCOMPARE(point->outliers.size(), beyond);
        }
        QVERIFY(dist->xAxis->label().contains(QStringLiteral("per-call samples")));

        const QString text = panel.summaryView()->toPlainText();
        QVERIFY(text.contains(QStringLiteral("NVIDIA H200")));
        QVERIFY(text.contains(QString::fromStdString(std::string(timerLabel(TimerKind::CudaEventsPerCall)))));
        QVERIFY(text.contains(QString::fromStdString(result.runs[0].boundary)));
        QVERIFY(text.contains(QStringLiteral("GB/s = bytes / t_us / 10^3")));
        QVERIFY(text.contains(QStringLiteral("(effective throughput)")));
        QVERIFY(text.contains(QStringLiteral("Check: passed")));
        const auto median = summarize(result.runs[1]).stats.median;
        QVERIFY(text.contains(QStringLiteral("Median %1 us").arg(median, 0, 'f', 4)));

        const QImage image = panel.grab().toImage(); // paints without a display
        QVERIFY(!image.isNull());
        // For a human look: WS_BENCHPANEL_SHOT=/tmp/panel.png tst_benchpanel
        if (qEnvironmentVariableIsSet("WS_BENCHPANEL_SHOT"))
            image.save(qEnvironmentVariable("WS_BENCHPANEL_SHOT"));
    }

    void groupsAndSwitching()
    {
        BenchResult r;
        r.runs.push_back(batchRun("cublas", {200, 201, 199, 200, 200, 202, 201, 200}));
        auto other = batchRun("cublas", {190, 191, 189});
        other.options.timer = TimerKind::CudaEventsPerCall; // another timer: another group
        other.options.cache = CachePolicy::Flush;
        other.calls = {{189, 191}, {190, 192}, {188, 190}};
        other.options.repeat = 2;
        r.runs.push_back(other);
        BenchPanel panel;
        panel.setResult(r);
        QCOMPARE(panel.groupCount(), 2);
        QCOMPARE(panel.groupSelector()->count(), 2);
        QCOMPARE(panel.trendPlot()->graph(0)->data()->size(), 8); // no warm-up chunks: rounds only
        QVERIFY(panel.distributionPlot()->xAxis->label().contains(QStringLiteral("round values")));
        QVERIFY(panel.summaryView()->toPlainText().contains(QStringLiteral("(kernel throughput)")));
        panel.groupSelector()->setCurrentIndex(1);
        QCOMPARE(panel.currentGroup(), 1);
        QCOMPARE(panel.trendPlot()->graphCount(), 1);
        QCOMPARE(panel.trendPlot()->graph(0)->data()->size(), 3);
        // Median of the six calls 188 189 190 190 191 192 = 190.
        QCOMPARE(boxAt(panel.distributionPlot(), 0)->data()->at(0)->median, 190.0);
        QVERIFY(panel.summaryView()->toPlainText().contains(QStringLiteral("6 per-call samples in 3 rounds")));
    }

    void warningsShown()
    {
        BenchResult r;
        auto run = batchRun("cublas", {12, 11, 10, 10, 10, 10, 10, 10});
        run.warnings = driftWarnings(run);
        QCOMPARE(run.warnings.size(), size_t(1));
        r.runs.push_back(run);
        BenchPanel panel;
        panel.setResult(r);
        QVERIFY(panel.summaryView()->toPlainText().contains(QStringLiteral("Warning: rounds still falling")));
        QVERIFY(panel.summaryView()->toPlainText().contains(QStringLiteral("drift falling")));
    }

    void emptyAndBrokenSessions()
    {
        BenchPanel panel;
        panel.setSession(SessionData {});
        QVERIFY(panel.noteLabel()->isVisibleTo(&panel));
        QVERIFY(panel.noteLabel()->text().contains(QStringLiteral("no benchmark runs")));
        QCOMPARE(panel.groupCount(), 0);

        auto data = fixture();
        data.benchRuns[0].timer = "sundial";
        panel.setSession(data, QStringLiteral("bad.wscope"));
        QVERIFY(panel.noteLabel()->isVisibleTo(&panel));
        QCOMPARE(panel.noteLabel()->text(),
            QStringLiteral("The benchmark tables cannot be shown: bad.wscope: bench_run 1: unknown timer 'sundial'"));
        QCOMPARE(panel.groupCount(), 0);

        panel.setSession(fixture()); // recovers
        QVERIFY(!panel.noteLabel()->isVisibleTo(&panel));
        QCOMPARE(panel.groupCount(), 1);
    }
};

QTEST_MAIN(TestBenchPanel)
#include "tst_benchpanel.moc"
