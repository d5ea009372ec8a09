// SPDX-License-Identifier: MIT
// The main window's run actions on real sessions recorded here from GPU-free stand-in targets:
// opening a session never runs its stored command (a crafted one would create a file); Run
// again and "collect for this kernel" show the exact program, arguments, working directory and
// environment first (with a warning for sessions recorded by someone else, somewhere else) and
// run nothing when declined; a killed target is named in the title and status bar; the Run
// dialog's runs land in the open session, and its log is there when it is reopened.
#include "core/store/sessionreader.h"
#include "settle.h"
#include "ui/mainwindow.h"
#include "ui/run/runconfirmation.h"
#include "ui/run/rundialog.h"
#include "ui/run/runqueue.h"
#include "ui/session/sessiondocument.h"
#include "ui/timeline/timelineview.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

// warpscope-cli record -o dir/name -- /bin/sh -c script, run in dir.
QString record(const QTemporaryDir& dir, const QString& name, const QString& script)
{
    QProcess p;
    p.setWorkingDirectory(dir.path());
    p.setProcessChannelMode(QProcess::MergedChannels);
    const QString out = dir.filePath(name);
    p.start(QStringLiteral(WS_CLI_PATH),
        {QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--"), QStringLiteral("/bin/sh"),
            QStringLiteral("-c"), script});
    p.waitForFinished(60000);
    return QFileInfo::exists(out) ? out : QString();
}

bool cliSupports(const QString& subcommand, const QString& option)
{
    QProcess p;
    p.start(QStringLiteral(WS_CLI_PATH), {subcommand, QStringLiteral("--help")});
    p.waitForFinished(20000);
    return p.exitCode() == 0 && QString::fromLocal8Bit(p.readAll()).contains(option);
}

// Opens `path` and waits until its runs were read.
bool openAndRead(MainWindow& w, const QString& path)
{
    QSignalSpy read(&w, &MainWindow::recipeRead);
    w.openFile(path);
    return read.wait(30000);
}

} // namespace

class TestRunActions : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_runactions"));
        QSettings().clear();
    }

    void openingASessionRunsNothing()
    {
        QTemporaryDir dir;
        const QString session = record(dir, QStringLiteral("crafted.wscope"), QStringLiteral("touch MARK"));
        QVERIFY(!session.isEmpty());
        const QString mark = dir.filePath(QStringLiteral("MARK"));
        QVERIFY(QFile::remove(mark)); // the recording ran it once
        MainWindow w;
        w.setConfirmationHandler([](RunConfirmation&) { return false; });
        w.show();
        QVERIFY(openAndRead(w, session));
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(session); // and again (Reload)
        QVERIFY(loaded.wait(30000));
        // Every read the open started has returned and been delivered; a run would be under way.
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}, {"session-recipe", 1}}));
        QVERIFY(!QFileInfo::exists(mark));
        QVERIFY(!w.runQueue()->isRunning());
        QVERIFY2(w.sessionRecipe().unavailableReason.isEmpty(), qPrintable(w.sessionRecipe().unavailableReason));
    }

    void runAgainShowsTheRecipeAndRunsNothingWhenDeclined()
    {
        QTemporaryDir dir;
        const QString session = record(dir, QStringLiteral("again.wscope"), QStringLiteral("touch MARK"));
        QVERIFY(!session.isEmpty());
        const QString mark = dir.filePath(QStringLiteral("MARK"));
        QFile::remove(mark);
        MainWindow w;
        QString shown;
        QString warning;
        w.setConfirmationHandler([&](RunConfirmation& c) {
            shown = c.text();
            warning = c.warning();
            return false;
        });
        QVERIFY(openAndRead(w, session));
        w.runAgain();
        QVERIFY2(shown.contains(QStringLiteral("Program:           /bin/sh")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("-c 'touch MARK'")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Working directory: ") + dir.path()), qPrintable(shown));
        // Every step's exact argv, into the next attempt's file.
        QVERIFY2(shown.contains(QStringLiteral("record -o ") + dir.filePath(QStringLiteral("again-2.wscope"))),
            qPrintable(shown));
        QVERIFY(warning.isEmpty()); // recorded by us, here
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}, {"session-recipe", 1}}));
        QVERIFY(!w.runQueue()->isRunning());
        QVERIFY(!QFileInfo::exists(mark));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("again-2.wscope"))));
    }

    void foreignRecipeIsConfirmedWithAWarning()
    {
        RunRecipe r;
        r.command = {"/opt/app/train", "--epochs", "3", "two words"};
        r.cwd = "/home/mallory/work";
        r.environment = {{"CUDA_VISIBLE_DEVICES", "1"}, {"LD_PRELOAD", "/tmp/evil.so"}};
        r.host = "elsewhere";
        r.user = "mallory";
        r.steps = {CollectorStep {1, "trace", {"record", "--trace", "cuda,nvtx"}}};
        const QList<QStringList> commands {
            {"warpscope-cli", "record", "-o", "/tmp/new.wscope", "--", "/opt/app/train", "--epochs", "3", "two words"}};
        RunConfirmation c(QStringLiteral("Run again"), r, commands, isForeign(r, localHost(), localUser()), true);
        const QString text = c.text();
        QVERIFY(text.contains(QStringLiteral("/opt/app/train")));
        QVERIFY(text.contains(QStringLiteral("--epochs 3 'two words'")));
        QVERIFY(text.contains(QStringLiteral("/home/mallory/work")));
        QVERIFY(text.contains(QStringLiteral("CUDA_VISIBLE_DEVICES=1")));
        QVERIFY(text.contains(QStringLiteral("LD_PRELOAD=/tmp/evil.so")));
        QVERIFY(text.contains(QStringLiteral("record -o /tmp/new.wscope -- /opt/app/train --epochs 3 'two words'")));
        QVERIFY(c.warning().contains(QStringLiteral("mallory@elsewhere")));
        // No "don't ask again" for someone else's command.
        QVERIFY(!c.findChild<QCheckBox*>(QStringLiteral("dontAskAgain")));
        RunRecipe own = r;
        own.host = localHost();
        own.user = localUser();
        RunConfirmation mine(
            QStringLiteral("Collect metrics"), own, commands, isForeign(own, localHost(), localUser()), true);
        QVERIFY(mine.warning().isEmpty());
        QVERIFY(mine.findChild<QCheckBox*>(QStringLiteral("dontAskAgain")));
    }

    void killedTargetIsNamedInTitleAndStatus_data()
    {
        QTest::addColumn<QString>("session");
        QTest::addColumn<QString>("script");
        QTest::addColumn<QString>("shown");
        QTest::newRow("SIGKILL") << QString() << QStringLiteral("kill -9 $$")
                                 << QStringLiteral("target killed by SIGKILL");
        QTest::newRow("exit 2") << QString() << QStringLiteral("exit 2") << QStringLiteral("target exited with code 2");
        QTest::newRow("v1 SIGSEGV fixture") << QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/segv.wscope")
                                            << QString() << QStringLiteral("target killed by SIGSEGV");
        QTest::newRow("clean exit") << QString() << QStringLiteral("exit 0") << QString();
    }
    void killedTargetIsNamedInTitleAndStatus()
    {
        QFETCH(QString, session);
        QFETCH(QString, script);
        QFETCH(QString, shown);
        QTemporaryDir dir;
        if (session.isEmpty())
            session = record(dir, QStringLiteral("t.wscope"), script);
        QVERIFY(!session.isEmpty());
        MainWindow w;
        w.show();
        QVERIFY(openAndRead(w, session));
        auto* label = w.findChild<QLabel*>(QStringLiteral("targetProblem"));
        QVERIFY(label);
        if (shown.isEmpty()) {
            QVERIFY2(!w.windowTitle().contains(QStringLiteral("target")), qPrintable(w.windowTitle()));
            QVERIFY(label->text().isEmpty());
        } else {
            QVERIFY2(w.windowTitle().contains(shown), qPrintable(w.windowTitle()));
            QCOMPARE(label->text(), shown);
        }
    }

    void crashedTargetIsMarkedOnTheTimeline_data()
    {
        QTest::addColumn<QString>("script");
        QTest::addColumn<bool>("marked");
        QTest::newRow("SIGSEGV fixture") << QString() << true;
        QTest::newRow("clean exit") << QStringLiteral("exit 0") << false;
    }
    void crashedTargetIsMarkedOnTheTimeline()
    {
        QFETCH(QString, script);
        QFETCH(bool, marked);
        QTemporaryDir dir;
        const QString session = script.isEmpty() ? QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/segv.wscope")
                                                 : record(dir, QStringLiteral("clean.wscope"), script);
        QVERIFY(!session.isEmpty());
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openAndRead(w, session));
        QTRY_VERIFY_WITH_TIMEOUT(w.timelineView()->isFrameCurrent(), 30000);
        // The end marker: a dashed line in its own red (200, 0, 32) and a label.
        const QImage img = w.timelineView()->grab().toImage();
        int red = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                red += img.pixelColor(x, y) == QColor(200, 0, 32) ? 1 : 0;
        QCOMPARE(red > 20, marked);
    }

    void reloadInPlaceKeepsViewAndSelection()
    {
        const QString session = QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/segv.wscope");
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(openAndRead(w, session));
        const auto s = w.snapshot();
        int lane = -1;
        for (size_t i = 0; i < s->model->lanes.size() && lane < 0; ++i)
            if (s->model->lanes[i].size() > 2)
                lane = static_cast<int>(i);
        QVERIFY(lane >= 0);
        const TimelineLane& l = s->model->lanes[static_cast<size_t>(lane)];
        EventSelection e;
        e.lane = lane;
        e.index = 1;
        e.ref = l.ref[1];
        e.start = l.start[1];
        e.end = l.endAt(1);
        e.name = QStringLiteral("picked");
        const TimeRange zoom {l.start[1] - 1000, l.endAt(1) + 1000};
        w.selection()->setViewRange(zoom);
        w.selection()->setSelectedEvent(e);
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.reloadInPlace();
        QVERIFY(loaded.wait(30000));
        QVERIFY(w.snapshot() != s); // read again
        QCOMPARE(w.selection()->viewRange(), zoom);
        QCOMPARE(w.selection()->selectedEvent(), e);
        // A plain open still starts fitted.
        w.openFile(session);
        QVERIFY(loaded.wait(30000));
        QVERIFY(w.selection()->viewRange().begin <= w.snapshot()->begin());
        QVERIFY(!w.selection()->selectedEvent().isValid());
    }

    void kernelActionsSayWhyTheyCannotRun()
    {
        // Recorded on the H200: its program is not on this machine.
        const QString h200 = QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/gemm_relu.wscope");
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("gemm_relu.wscope"));
        QVERIFY(QFile::copy(h200, copy));
        MainWindow w;
        bool asked = false;
        w.setConfirmationHandler([&](RunConfirmation&) { return asked = true; });
        QVERIFY(w.kernelActions()->unavailableReason().contains(QStringLiteral("no session")));
        QVERIFY(openAndRead(w, copy));
        const QString why = w.kernelActions()->unavailableReason();
        QVERIFY2(why.contains(QStringLiteral("not found")), qPrintable(why));
        w.collectKernel(KernelCollectionRequest {1, KernelCollection::Metrics, 1});
        QVERIFY(w.errorDialog());
        QVERIFY(!asked);
        QVERIFY(!w.runQueue()->isRunning());
        w.runAgain();
        QVERIFY(!asked);
        QVERIFY(!w.runQueue()->isRunning());
    }

    void collectShowsTheExactProfileCommandFirst()
    {
        // Recorded elsewhere ("python3 /tmp/die.py SIGSEGV" on host vm): python3 is here, so the
        // recipe can run, but only after the user saw it, with the foreign warning.
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("segv.wscope"));
        QVERIFY(QFile::copy(QStringLiteral(WS_FIXTURES_DIR "/recorder/sessions/segv.wscope"), copy));
        MainWindow w;
        QString shown;
        QString warning;
        int asked = 0;
        w.setConfirmationHandler([&](RunConfirmation& c) {
            ++asked;
            shown = c.text();
            warning = c.warning();
            return false;
        });
        QVERIFY(openAndRead(w, copy));
        if (!w.sessionRecipe().unavailableReason.isEmpty())
            QSKIP(qPrintable(
                QStringLiteral("the fixture's program cannot run here: ") + w.sessionRecipe().unavailableReason));
        std::vector<int64_t> ids;
        SessionReader(copy.toStdString()).forEachRow<KernelRecord>([&ids](const KernelRecord& k) {
            ids.push_back(k.id);
        });
        QVERIFY(ids.size() > 3);
        w.collectKernel(KernelCollectionRequest {ids[3], KernelCollection::Metrics, 1});
        QTRY_COMPARE_WITH_TIMEOUT(asked, 1, 30000);
        qInfo("confirmation:\n%s\n%s", qPrintable(shown), qPrintable(warning));
        QVERIFY2(shown.contains(
                     QStringLiteral("profile --append ") + copy + QStringLiteral(" --set full --kernel-name 'regex:^")),
            qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("--launch-count 1 -- python3 /tmp/die.py SIGSEGV")), qPrintable(shown));
        QVERIFY2(shown.contains(QStringLiteral("Program:           python3")), qPrintable(shown));
        QVERIFY(warning.contains(QStringLiteral("@vm")) || localHost() == "vm");
        QVERIFY(ws::test::settle({{"session load", 2}, {"panel data", 1}, {"session-recipe", 1}}));
        QVERIFY(!w.runQueue()->isRunning()); // declined: nothing ran
    }

    void runDialogRunsLandInTheOpenSession()
    {
        QTemporaryDir dir;
        const QString session = record(dir, QStringLiteral("open.wscope"), QStringLiteral("echo first"));
        QVERIFY(!session.isEmpty());
        MainWindow w;
        w.show();
        QVERIFY(openAndRead(w, session));
        RunDialog* d = w.showRunDialog();
        d->setCliPath(QStringLiteral(WS_CLI_PATH));
        d->setProgram(QStringLiteral("/bin/sh"));
        d->setArguments(QStringLiteral("-c 'echo stand-in-output'"));
        d->setWorkingDirectory(dir.path());
        d->setOutputPath(QStringLiteral("new.wscope"));
        QVERIFY(w.showRunDialog() == d); // one dialog, kept
        // The open session ran the same program: adding to it is the default.
        QVERIFY(d->appendsToOpenSession());
        const int before = static_cast<int>(SessionReader(session.toStdString()).readRuns().size());
        const bool canAppend = cliSupports(QStringLiteral("record"), QStringLiteral("--append"));
        if (!canAppend)
            d->setAppendToOpenSession(false); // until the CLI has --append: a new file
        QSignalSpy finished(d, &RunDialog::runFinished);
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        d->startRun();
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(d->log()));
        QVERIFY(loaded.wait(30000));
        if (canAppend) {
            QCOMPARE(w.snapshot()->path, session);
            QCOMPARE(static_cast<int>(SessionReader(session.toStdString()).readRuns().size()), before + 1);
        } else {
            QCOMPARE(w.snapshot()->path, dir.filePath(QStringLiteral("new.wscope")));
        }
        // Closed after success; reopened, the run's output is still there.
        QVERIFY(!d->isVisible());
        QVERIFY(w.showRunDialog() == d);
        QVERIFY(d->log().contains(QStringLiteral("stand-in-output")));
        if (!canAppend)
            QSKIP("appending checked up to the argv: this warpscope-cli has no record --append yet");
    }

    void runAgainWritesTheNextAttemptAndCompares()
    {
        if (!cliSupports(QStringLiteral("rerun"), QStringLiteral("--yes")))
            QSKIP("this warpscope-cli has no rerun yet (issue 17's CLI slice adds it)");
        QTemporaryDir dir;
        const QString session = record(dir, QStringLiteral("a.wscope"), QStringLiteral("echo attempt"));
        MainWindow w;
        w.setConfirmationHandler([](RunConfirmation&) { return true; });
        QVERIFY(openAndRead(w, session));
        QSignalSpy ended(&w, &MainWindow::runEnded);
        w.runAgain();
        QVERIFY(ended.wait(60000));
        QVERIFY2(ended.at(0).at(0).toBool(), qPrintable(w.runQueue()->output().join(QLatin1Char('\n'))));
        const QString next = dir.filePath(QStringLiteral("a-2.wscope"));
        QVERIFY(QFileInfo::exists(next));
        QTRY_COMPARE_WITH_TIMEOUT(w.snapshot()->path, next, 30000);
        QVERIFY(w.findChild<QWidget*>(QStringLiteral("runAgainCompare")));
    }
};

QTEST_MAIN(TestRunActions)
#include "tst_runactions.moc"
