// SPDX-License-Identifier: MIT
// The main window: opening (and failing to open) real session files without blocking, the
// error dialog, status bar, recent files, reload, drag and drop, docks in the View menu, the
// embedded demo, and search with next / previous through the shared selection.
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "loadgate.h"
#include "ui/benchpanel.h"
#include "ui/mainwindow.h"
#include "ui/panels/analysispanels.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/eventsearch.h"
#include "ui/timeline/legendmodel.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

class TestMainWindow : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_session;

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
        QSettings().clear();
        m_session = m_dir.filePath(QStringLiteral("synth.wscope"));
        SynthOptions o;
        o.events = 30000;
        o.seed = 11;
        SessionWriter w(m_session.toStdString());
        attachLaneCache(w);
        writeSyntheticSession(o, w);
        w.commit();
    }

    void opensASession()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(m_session);
        QVERIFY(w.document()->isLoading());
        QVERIFY(loaded.wait(30000));
        QVERIFY(w.snapshot());
        QVERIFY(w.statusText().contains(m_session));
        QVERIFY(w.statusText().contains(QStringLiteral("events")));
        QVERIFY(w.statusText().contains(QStringLiteral("GPU 0")));
        // Frame timings are a debug option: off by default, shown when asked for, remembered.
        auto* timings = w.findChild<QAction*>(QStringLiteral("showFrameTimings"));
        QVERIFY(timings);
        timings->setChecked(false);
        QVERIFY(!w.statusText().contains(QStringLiteral("frame ")));
        timings->setChecked(true);
        QVERIFY(w.statusText().contains(QStringLiteral("frame ")));
        QVERIFY(QSettings().value(QStringLiteral("debug/frameTimings")).toBool());
        timings->setChecked(false);
        QVERIFY(!w.statusText().contains(QStringLiteral("frame ")));
        QTRY_VERIFY_WITH_TIMEOUT(w.timelineView()->isFrameCurrent(), 30000);
        QVERIFY(w.windowTitle().contains(QStringLiteral("synth.wscope")));
        // The view starts fitted to the session.
        QVERIFY(w.selection()->viewRange().begin <= w.snapshot()->begin());
        QVERIFY(w.selection()->viewRange().end >= w.snapshot()->end());
        // Recent files remember it.
        QCOMPARE(QSettings().value(QStringLiteral("files/recent")).toStringList().value(0), m_session);
        // The legend follows.
        QTRY_VERIFY_WITH_TIMEOUT(w.legendModel()->rowCount() > 0, 30000);
        // Every dock can be toggled from the View menu.
        const auto docks = w.findChildren<QDockWidget*>();
        QVERIFY(docks.size() >= 4);
        QStringList viewActions;
        for (QAction* a : w.menuBar()->actions()) {
            if (a->text().contains(QStringLiteral("View"))) {
                for (QAction* v : a->menu()->actions())
                    viewActions << v->text();
            }
        }
        for (QDockWidget* d : docks)
            QVERIFY2(viewActions.contains(d->windowTitle()), qPrintable(d->windowTitle()));
    }

    void errorDialogNamesTheFile()
    {
        const QString bad = m_dir.filePath(QStringLiteral("not-a-session.wscope"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray("hello, I am a text file\n").repeated(100));
        }
        MainWindow w;
        w.show();
        QSignalSpy failed(&w, &MainWindow::sessionFailed);
        w.openFile(bad);
        QVERIFY(failed.wait(30000));
        QVERIFY(w.errorDialog());
        QVERIFY(w.errorDialog()->isVisible());
        QVERIFY(w.errorDialog()->text().contains(bad));
        QVERIFY(w.errorDialog()->text().length() > bad.length() + 30); // and says what is wrong
        QVERIFY(!w.snapshot());
    }

    void reloadAndDrop()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(m_session)});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &drop);
        QVERIFY(loaded.wait(30000));
        const auto first = w.snapshot();
        QAction* reload = nullptr;
        for (QAction* a : w.findChildren<QAction*>()) {
            if (a->text().remove(QLatin1Char('&')) == QStringLiteral("Reload"))
                reload = a;
        }
        QVERIFY(reload);
        reload->trigger();
        QVERIFY(loaded.wait(30000));
        QVERIFY(w.snapshot() != first);
        QCOMPARE(w.snapshot()->eventCount(), first->eventCount());
    }

    void cancelFromTheStatusBar()
    {
        const QString big = m_dir.filePath(QStringLiteral("big.wscope"));
        SynthOptions o;
        o.events = 800000;
        o.seed = 2;
        {
            SessionWriter wr(big.toStdString());
            attachLaneCache(wr);
            writeSyntheticSession(o, wr);
            wr.commit();
        }
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        // The load waits at the gate until Cancel arrives: the click always meets a running load.
        const ws::test::LoadGate gate;
        w.openFile(big);
        auto* cancel = w.findChild<QPushButton*>(QStringLiteral("cancelLoading"));
        QVERIFY(cancel);
        QVERIFY(cancel->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(gate.reached(), 30000);
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!w.document()->isLoading(), 30000);
        QCOMPARE(loaded.count(), 0);
        QVERIFY(!w.snapshot());
        QVERIFY(!w.errorDialog()); // a cancel is not an error
        QVERIFY(!cancel->isVisible());
    }

    void searchStepsThroughOccurrences()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(m_session);
        QVERIFY(loaded.wait(30000));
        QSignalSpy found(w.search(), &EventSearch::found);
        QSignalSpy selected(w.selection(), &SelectionModel::selectedEventChanged);
        w.searchBox()->setText(QStringLiteral("gemm"));
        w.findNext();
        QVERIFY(found.wait(10000));
        const EventSelection first = w.selection()->selectedEvent();
        QVERIFY(first.isValid());
        QVERIFY(first.name.contains(QStringLiteral("gemm"), Qt::CaseInsensitive));
        // N on the timeline: the next occurrence starts later (or on a later lane).
        QTest::keyClick(w.timelineView(), Qt::Key_N);
        QVERIFY(found.wait(10000));
        const EventSelection second = w.selection()->selectedEvent();
        QVERIFY(std::tie(second.start, second.lane, second.index) > std::tie(first.start, first.lane, first.index));
        // The view shows the occurrence.
        QVERIFY(w.selection()->viewRange().begin <= second.start && second.end <= w.selection()->viewRange().end);
        QTest::keyClick(w.timelineView(), Qt::Key_N, Qt::ShiftModifier);
        QVERIFY(found.wait(10000));
        QCOMPARE(w.selection()->selectedEvent(), first);
        QVERIFY(selected.count() >= 3);
        // The view frames the hit with a tenth of margin each side, not a window 50x its size.
        const TimeRange v = w.selection()->viewRange();
        const double extent = static_cast<double>(first.end - first.start);
        QVERIFY(extent > 0);
        QVERIFY2(static_cast<double>(v.duration()) <= extent * 1.3,
            qPrintable(QStringLiteral("view %1 ns for a %2 ns hit").arg(v.duration()).arg(extent)));
        // Where it is among all occurrences: the first of them.
        auto* info = w.findChild<QLabel*>(QStringLiteral("searchInfo"));
        QVERIFY(info);
        QTRY_VERIFY(info->text().startsWith(QStringLiteral("1 of ")));
    }

    // Esc leaves the search box; the next key goes to the timeline, not into the text.
    void escapeLeavesTheSearchBox()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(m_session);
        QVERIFY(loaded.wait(30000));
        w.searchBox()->setFocus();
        QTRY_VERIFY(w.searchBox()->hasFocus());
        QTest::keyClicks(w.searchBox(), QStringLiteral("gemm"));
        QTest::keyClick(w.searchBox(), Qt::Key_Escape);
        QTRY_VERIFY(w.timelineView()->hasFocus());
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_F);
        QCOMPARE(w.searchBox()->text(), QStringLiteral("gemm"));
    }

    void demoSession()
    {
        MainWindow w;
        w.show();
        if (!QFile::exists(MainWindow::demoResourcePath())) {
            // Not compiled in: says so in the window instead of faking one.
            QVERIFY(!w.openDemo());
            QVERIFY(!w.document()->isLoading());
            QSKIP("resources/demo/h200-gemm-relu.wscope is not in this build yet");
        }
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        QVERIFY(w.openDemo());
        QVERIFY(loaded.wait(30000));
        QVERIFY(w.snapshot()->hasGpuActivity());
        QVERIFY(w.snapshot()->deviceSummary().contains(QStringLiteral("H200")));
    }

    // The kernel analysis panels and the benchmark panel are docked in the window, toggled from
    // the View menu, and follow what the window opens: the ranking fills from the session the
    // timeline shows, and a bench session fills the benchmark panel.
    void analysisDocksFollowTheOpenSession()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.analysisPanels());
        for (const char* name : {"kernelRankingDock", "statsDock", "launchDock", "throughputDock", "schedulerDock",
                 "memoryDock", "rooflineDock", "diagnosisDock", "benchDock"}) {
            auto* dock = w.findChild<QDockWidget*>(QLatin1String(name));
            QVERIFY2(dock, name);
            QVERIFY2(!dock->toggleViewAction()->associatedObjects().isEmpty(), name); // in the View menu
        }
        QSignalSpy ready(w.analysisPanels(), &AnalysisPanels::dataReady);
        QSignalSpy benchLoaded(w.benchPanel(), &BenchPanel::loaded);
        w.openFile(m_session);
        QVERIFY(ready.wait(30000));
        QVERIFY(w.analysisPanels()->ranking()->model()->rowCount() > 0);
        QVERIFY(benchLoaded.count() || benchLoaded.wait(30000));
        QCOMPARE(benchLoaded.last().at(0).toInt(), 0); // a trace session has no bench runs
        QVERIFY(w.benchPanel()->noteLabel()->isVisibleTo(w.benchPanel()));

        const QString bench = QStringLiteral(WS_FIXTURES_DIR "/bench/h200-pdl-1M.wscope");
        benchLoaded.clear();
        w.openFile(bench);
        QVERIFY(benchLoaded.wait(30000));
        QVERIFY(benchLoaded.last().at(0).toInt() > 0);
        QVERIFY(w.benchPanel()->groupCount() > 0);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
