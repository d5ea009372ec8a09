// SPDX-License-Identifier: MIT
// Opening a fleet result in the app: File > Open of a .wsfleet (MainWindow::openFile) shows the
// rank x step heatmap in its own window (read off the GUI thread), and a click on a cell opens
// that rank's session in the main window with the step's range in view. The result and the
// DDP session it names are copied together into a temporary directory: the result names the
// session by the absolute path it had when written, and the window falls back to the file of
// that name beside the result when that path is gone.
//
// The second half runs the recipe itself (python/tests/fleet/make_rank_fleet.py with Debian's
// python3, or $WARPSCOPE_PYTHON): the DDP recording split into one session per rank (ranks 0
// and 1 as recorded, rank 0's recording again as rank 2 with every step 25 % slower), step_time
// over them, and the recording itself through step_time; then the app's second click on a cell
// opens the compare window with the median rank's session as A and the clicked rank's as B at
// that step.
#include "core/compare/comparison.h"
#include "core/store/fleetresult.h"
#include "ui/compare/comparedocument.h"
#include "ui/compare/comparetimeline.h"
#include "ui/compare/comparewindow.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"
#include "ui/fleet/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QFileInfo>
#include <QMenu>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

int rowOfRank(const FleetStepGrid& g, int64_t rank)
{
    for (size_t r = 0; r < g.ranks.size(); ++r)
        if (g.ranks[r].rank == rank)
            return static_cast<int>(r);
    return -1;
}

int colOfStep(const FleetStepGrid& g, int64_t step)
{
    const auto it = std::find(g.steps.begin(), g.steps.end(), step);
    return it == g.steps.end() ? -1 : static_cast<int>(it - g.steps.begin());
}

} // namespace

class TestFleetWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_ranks; // make_rank_fleet.py's output, written once
    QString m_ranksError;  // why it could not be written (the tests that need it skip)

    // Opens a result written by make_rank_fleet.py in a main window's fleet window.
    bool openResult(MainWindow& w, const QString& name)
    {
        w.openFile(m_ranks.filePath(name));
        if (!w.fleetWindow())
            return false;
        return QTest::qWaitFor([&] { return !w.fleetWindow()->view()->isHidden(); }, 10000);
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_fleetwindow"));
        QSettings().clear();

        const QString python = qEnvironmentVariable("WARPSCOPE_PYTHON", QStringLiteral("/usr/bin/python3"));
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(python,
            {QStringLiteral("-B"), QStringLiteral("-W"), QStringLiteral("ignore::DeprecationWarning"),
                QStringLiteral(WS_FIXTURES_DIR "/../../python/tests/fleet/make_rank_fleet.py"), m_ranks.path()});
        if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit)
            m_ranksError = QStringLiteral("%1 did not run: %2").arg(python, p.errorString());
        else if (p.exitCode() == 77)
            m_ranksError = QStringLiteral("%1 lacks pandas/dask: %2").arg(python, QString::fromUtf8(p.readAll()));
        else if (p.exitCode() != 0) // the recipe itself failed: that is a failure, not a skip
            QFAIL(qPrintable(QStringLiteral("make_rank_fleet.py failed:\n") + QString::fromUtf8(p.readAll())));
    }

    void clickingACellOpensThatRankAtThatStep()
    {
        QTemporaryDir dir;
        const QString result = dir.filePath(QStringLiteral("ddp.wsfleet"));
        QVERIFY(QFile::copy(QStringLiteral(WS_FIXTURES_DIR "/fleet/ddp-step_time.wsfleet"), result));
        QVERIFY(QFile::copy(QStringLiteral(WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope"),
            dir.filePath(QStringLiteral("ddp-2gpu.wscope"))));

        MainWindow w;
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(result);
        QVERIFY(w.fleetWindow());
        QTRY_VERIFY_WITH_TIMEOUT(!w.fleetWindow()->view()->isHidden(), 10000);
        QVERIFY(w.fleetWindow()->errorText().isEmpty());
        FleetHeatmap* map = w.fleetWindow()->view()->heatmap();
        const FleetStepGrid& g = map->grid();
        QCOMPARE(g.ranks.size(), size_t(2));

        const int row = 1;
        const int col = 5;
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, col).center());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(QFileInfo(w.snapshot()->path).fileName(), QStringLiteral("ddp-2gpu.wscope"));
        const size_t cell = static_cast<size_t>(row) * g.steps.size() + col;
        const TimeRange expected {g.stepStart[cell], g.stepStart[cell] + static_cast<TimeNs>(g.values[cell])};
        QCOMPARE(w.selection()->viewRange(), expected);
    }

    void secondClickComparesTheRankWithTheMedianRankAtThatStep_data()
    {
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("medianRank");
        QTest::addColumn<bool>("flagged");
        // Rank 2 is rank 0 slowed down, so the median rank is whichever of ranks 0 and 1 was
        // slower in the recording: rank 1 in step 2 (4.21 ms against 3.83; rank 2's 4.79 ms is
        // then within 5 MAD of it), rank 0 in step 5 (rank 2 flagged).
        QTest::newRow("step 2") << qint64(2) << qint64(1) << false;
        QTest::newRow("step 5") << qint64(5) << qint64(0) << true;
    }

    void secondClickComparesTheRankWithTheMedianRankAtThatStep()
    {
        QFETCH(qint64, step);
        QFETCH(qint64, medianRank);
        QFETCH(bool, flagged);
        const std::string stepName = "step " + std::to_string(step);
        if (!m_ranksError.isEmpty())
            QSKIP(qPrintable(m_ranksError));
        MainWindow w;
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(openResult(w, QStringLiteral("ranks-step_time.wsfleet")));
        FleetWindow* fleet = w.fleetWindow();
        FleetHeatmap* map = fleet->view()->heatmap();
        const FleetStepGrid& g = map->grid();
        QCOMPARE(g.ranks.size(), size_t(3));
        const int row = rowOfRank(g, 2); // the planted straggler
        const int col = colOfStep(g, step);
        QVERIFY(row >= 0 && col >= 0);
        QCOMPARE(g.flagged(static_cast<size_t>(row), static_cast<size_t>(col)), flagged);
        QVERIFY(g.ranks[static_cast<size_t>(row)].straggler);
        const size_t cell = g.cell(static_cast<size_t>(row), static_cast<size_t>(col));
        QCOMPARE(g.rangeName[cell], stepName);

        // The median rank at that step, by sorting the three step times here.
        std::vector<std::pair<double, int>> byTime;
        for (size_t r = 0; r < g.ranks.size(); ++r)
            byTime.emplace_back(g.at(r, static_cast<size_t>(col)), static_cast<int>(r));
        std::sort(byTime.begin(), byTime.end());
        const int median = byTime[1].second;
        QVERIFY(median != row);
        QCOMPARE(g.ranks[static_cast<size_t>(median)].rank, medianRank);
        const size_t medianCell = g.cell(static_cast<size_t>(median), static_cast<size_t>(col));

        // First click: that rank's session at that step, in the main window.
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, col).center());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(QFileInfo(w.snapshot()->path).fileName(), QStringLiteral("rank-00002.wscope"));
        QCOMPARE(w.selection()->viewRange(),
            (TimeRange {g.stepStart[cell], g.stepStart[cell] + static_cast<TimeNs>(g.at(row, col))}));
        QVERIFY(!fleet->compareWindow());

        // Second click on the same cell: the compare window, median rank as A, this rank as B.
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, col).center());
        CompareWindow* cw = fleet->compareWindow();
        QVERIFY(cw);
        QCOMPARE(loaded.count(), 1); // the main window did not reload
        QTRY_VERIFY_WITH_TIMEOUT(cw->document()->hasComparison(), 60000);
        QCOMPARE(QFileInfo(cw->document()->pathA()).fileName(),
            QFileInfo(QString::fromStdString(g.ranks[static_cast<size_t>(median)].session)).fileName());
        QCOMPARE(cw->document()->pathA(), m_ranks.filePath(QFileInfo(cw->document()->pathA()).fileName()));
        QCOMPARE(cw->document()->pathB(), m_ranks.filePath(QStringLiteral("rank-00002.wscope")));
        // At that step: the step's NVTX range is the iteration range and both timelines' origin,
        // and the view spans the longer of the two steps.
        QCOMPARE(cw->document()->options().rangeName, stepName);
        QCOMPARE(cw->rangeChoice()->currentText(), QString::fromStdString(stepName));
        const compare::Comparison& c = cw->document()->comparison();
        QVERIFY(c.iterationsA.rangeFound && c.iterationsB.rangeFound);
        QCOMPARE(c.iterationsB.origin, g.stepStart[cell]);
        QCOMPARE(c.iterationsA.origin, g.stepStart[medianCell]);
        QCOMPARE(cw->timeline()->rangeBegin(), 0.0);
        QCOMPARE(cw->timeline()->rangeEnd(), std::max(g.values[cell], g.values[medianCell]));
        // Rank 2 is rank 0's recording with every step 25 % longer: slower than the median rank.
        QCOMPARE(c.overall, compare::VerdictKind::Slower);
        QVERIFY(cw->windowTitle().contains(QStringLiteral("rank 2")));

        // The cell's menu offers the same, naming the median rank.
        std::unique_ptr<QMenu> menu(map->cellMenu(row, col, nullptr));
        auto* action = menu->findChild<QAction*>(QStringLiteral("compareWithMedian"));
        QVERIFY(action && action->isEnabled());
        QVERIFY(action->text().contains(QStringLiteral("rank %1").arg(g.ranks[static_cast<size_t>(median)].rank)));
        action->trigger();
        QVERIFY(fleet->compareWindow() != cw); // a second compare window
        QCOMPARE(fleet->compareWindow()->document()->pathB(), cw->document()->pathB());
    }

    void theDdpRecordingThroughTheRecipeAndTheHeatmap()
    {
        if (!m_ranksError.isEmpty())
            QSKIP(qPrintable(m_ranksError));
        // step_time run now over the real recording gives the grid of the committed result.
        const FleetStepGrid fresh
            = readFleetStepGrid(m_ranks.filePath(QStringLiteral("ddp-step_time.wsfleet")).toStdString());
        const FleetStepGrid committed = readFleetStepGrid(WS_FIXTURES_DIR "/fleet/ddp-step_time.wsfleet");
        QCOMPARE(fresh.steps, committed.steps);
        QCOMPARE(fresh.values, committed.values);
        QCOMPARE(fresh.stepStart, committed.stepStart);
        QCOMPARE(fresh.rangeName[0], std::string("step -3"));

        MainWindow w;
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(openResult(w, QStringLiteral("ddp-step_time.wsfleet")));
        FleetWindow* fleet = w.fleetWindow();
        FleetHeatmap* map = fleet->view()->heatmap();
        QCOMPARE(map->grid().ranks.size(), size_t(2));
        QCOMPARE(map->grid().steps.size(), size_t(13));
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(0, 4).center());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(w.snapshot()->path, m_ranks.filePath(QStringLiteral("ddp-2gpu.wscope")));
        // Both ranks are in one file: nothing to compare with, and the window says why.
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(0, 4).center());
        QVERIFY(!fleet->compareWindow());
        QVERIFY(fleet->messageText().contains(QStringLiteral("compares two session files")));
        std::unique_ptr<QMenu> menu(map->cellMenu(0, 4, nullptr));
        QVERIFY(!menu->findChild<QAction*>(QStringLiteral("compareWithMedian"))->isEnabled());
    }

    void otherRecipesMetricsOpenTheRanksSession()
    {
        if (!m_ranksError.isEmpty())
            QSKIP(qPrintable(m_ranksError));
        MainWindow w;
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(openResult(w, QStringLiteral("ranks-comm_overlap.wsfleet")));
        FleetView* view = w.fleetWindow()->view();
        QStringList metrics;
        for (int i = 0; i < view->metricChoice()->count(); ++i)
            metrics << view->metricChoice()->itemText(i);
        QCOMPARE(metrics,
            (QStringList {QStringLiteral("Exposed communication"), QStringLiteral("Communication overlap"),
                QStringLiteral("Communication time")}));
        view->showMetric(1);
        FleetHeatmap* map = view->heatmap();
        QCOMPARE(map->grid().metric.key, std::string("comm_overlap.overlap_pct"));
        const int row = rowOfRank(map->grid(), 1);
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, 0).center());
        QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 30000);
        QCOMPARE(QFileInfo(w.snapshot()->path).fileName(), QStringLiteral("rank-00001.wscope"));
        // A metric without steps compares whole sessions: no range.
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(row, 0).center());
        CompareWindow* cw = w.fleetWindow()->compareWindow();
        QVERIFY(cw);
        // Overlap 61 %, 26 %, 62 % (ranks 0, 1, 2): the median rank is rank 0.
        QCOMPARE(cw->document()->pathA(), m_ranks.filePath(QStringLiteral("rank-00000.wscope")));
        QCOMPARE(cw->document()->pathB(), m_ranks.filePath(QStringLiteral("rank-00001.wscope")));
        QCOMPARE(cw->document()->options().rangeName, std::string());
    }

    void aResultThatIsNotOneSaysSo()
    {
        QTemporaryDir dir;
        const QString bogus = dir.filePath(QStringLiteral("bogus.wsfleet"));
        QVERIFY(QFile::copy(QStringLiteral(WS_FIXTURES_DIR "/multigpu/ddp-2gpu.wscope"), bogus));
        MainWindow w;
        w.openFile(bogus);
        QSignalSpy failed(w.fleetWindow(), &FleetWindow::failed);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(w.fleetWindow()->errorText().contains(QStringLiteral("not a Warpscope fleet result")));
    }

    void sessionPathFallsBackToTheFileBesideTheResult()
    {
        QTemporaryDir dir;
        const QString beside = dir.filePath(QStringLiteral("rank-00003.wscope"));
        QFile f(beside);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        const std::string result = dir.filePath(QStringLiteral("r.wsfleet")).toStdString();
        QCOMPARE(resolveFleetSession(result, "/no/such/dir/rank-00003.wscope"), beside.toStdString());
        QCOMPARE(resolveFleetSession(result, "/no/such/dir/rank-00004.wscope"),
            std::string("/no/such/dir/rank-00004.wscope"));
        QCOMPARE(resolveFleetSession(result, beside.toStdString()), beside.toStdString());
    }
};

QTEST_MAIN(TestFleetWindow)
#include "tst_fleetwindow.moc"
