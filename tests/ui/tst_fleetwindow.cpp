// SPDX-License-Identifier: MIT
// Opening a fleet result in the app: File > Open of a .wsfleet (MainWindow::openFile) shows the
// rank x step heatmap in its own window (read off the GUI thread), and a click on a cell opens
// that rank's session in the main window with the step's range in view. The result and the
// DDP session it names are copied together into a temporary directory: the result names the
// session by the absolute path it had when written, and the window falls back to the file of
// that name beside the result when that path is gone.
#include "core/store/fleetresult.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"
#include "ui/fleet/fleetwindow.h"
#include "ui/mainwindow.h"

#include <QFile>
#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

class TestFleetWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_fleetwindow"));
        QSettings().clear();
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
        const TimeRange expected {g.stepStart[cell], g.stepStart[cell] + static_cast<TimeNs>(g.stepNs[cell])};
        QCOMPARE(w.selection()->viewRange(), expected);
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
