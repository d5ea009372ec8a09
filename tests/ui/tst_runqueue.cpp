// SPDX-License-Identifier: MIT
// RunQueue: the CLI's progress lines and target-end lines parsed, and real warpscope-cli runs of
// GPU-free stand-in targets one after another: a target exiting with code 2 or killed by SIGKILL
// fails its step with that reason and stops the queue; a missing program's error is a line of
// its own; cancel stops the running step and keeps the finished ones.
#include "core/util/shellwords.h"
#include "ui/run/runqueue.h"
#include "ui/run/sessionrecipe.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

RunStep record(const QString& out, const QStringList& command)
{
    return {QStringLiteral("trace"),
        QStringList {QStringLiteral("record"), QStringLiteral("-o"), out, QStringLiteral("--")} + command};
}

} // namespace

class TestRunQueue : public QObject {
    Q_OBJECT

private slots:
    void progressLines_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<QString>("kind");
        QTest::addColumn<qint64>("done");
        QTest::addColumn<qint64>("total");
        QTest::addColumn<QString>("unit");
        QTest::newRow("unknown total") << "warpscope-cli: progress: profile 3/? launches (40 passes each)" << true
                                       << "profile" << qint64(3) << qint64(-1) << "launches (40 passes each)";
        QTest::newRow("known total") << "warpscope-cli: progress: bench 2/10 rounds" << true << "bench" << qint64(2)
                                     << qint64(10) << "rounds";
        QTest::newRow("no unit") << "warpscope-cli: progress: trace 0/1" << true << "trace" << qint64(0) << qint64(1)
                                 << "";
        QTest::newRow("other cli line") << "warpscope-cli record: wrote x.wscope" << false << "" << qint64(0)
                                        << qint64(0) << "";
        QTest::newRow("not a number") << "warpscope-cli: progress: profile x/2 launches" << false << "" << qint64(0)
                                      << qint64(0) << "";
    }
    void progressLines()
    {
        QFETCH(QString, line);
        QFETCH(bool, ok);
        const auto p = parseProgressLine(line);
        QCOMPARE(p.has_value(), ok);
        if (!ok)
            return;
        QTEST(p->kind, "kind");
        QTEST(p->done, "done");
        QTEST(p->total, "total");
        QTEST(p->unit, "unit");
    }

    void targetEnds_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("failure");
        QTest::newRow("code 2") << "warpscope-cli record: /bin/sh exited with code 2"
                                << "exit code 2";
        QTest::newRow("code 0") << "warpscope-cli record: /bin/sh exited with code 0"
                                << "";
        QTest::newRow("sigkill") << "warpscope-cli record: /bin/sh killed by signal 9 (Killed)"
                                 << "killed by SIGKILL";
        QTest::newRow("sigsegv") << "warpscope-cli profile: ./app killed by signal 11 (Segmentation fault)"
                                 << "killed by SIGSEGV";
        QTest::newRow("program output") << "exited with code 3"
                                        << "";
    }
    void targetEnds()
    {
        QFETCH(QString, line);
        QTEST(targetFailureIn(line), "failure");
    }

    void describeTargetEnd_data()
    {
        QTest::addColumn<QString>("status");
        QTest::addColumn<QString>("shown");
        QTest::newRow("killed") << "killed by signal 9 (Killed)"
                                << "target killed by SIGKILL";
        QTest::newRow("segv") << "killed by signal 11 (Segmentation fault)"
                              << "target killed by SIGSEGV";
        QTest::newRow("exit 2") << "exited with code 2"
                                << "target exited with code 2";
        QTest::newRow("clean") << "exited with code 0"
                               << "";
        QTest::newRow("failed") << "failed: ERR_NVGPUCTRPERM"
                                << "run failed: ERR_NVGPUCTRPERM";
    }
    void describeTargetEnd()
    {
        QFETCH(QString, status);
        QTEST(ws::describeTargetEnd(status), "shown");
    }

    void nextAttempt()
    {
        QTemporaryDir dir;
        const QString a = dir.filePath(QStringLiteral("gemm.wscope"));
        QCOMPARE(nextAttemptPath(a), dir.filePath(QStringLiteral("gemm-2.wscope")));
        QFile(dir.filePath(QStringLiteral("gemm-2.wscope"))).open(QIODevice::WriteOnly);
        QCOMPARE(nextAttemptPath(a), dir.filePath(QStringLiteral("gemm-3.wscope")));
        QCOMPARE(nextAttemptPath(dir.filePath(QStringLiteral("gemm-2.wscope"))),
            dir.filePath(QStringLiteral("gemm-3.wscope")));
    }

    void failingTargetsFailTheirStep_data()
    {
        QTest::addColumn<QStringList>("command");
        QTest::addColumn<QString>("reason");
        QTest::newRow("exit 2") << QStringList {"/bin/sh", "-c", "echo before; exit 2"} << "ended with exit code 2";
        QTest::newRow("sigkill") << QStringList {"/bin/sh", "-c", "kill -9 $$"} << "killed by SIGKILL";
        QTest::newRow("sigsegv") << QStringList {"/bin/sh", "-c", "kill -11 $$"} << "killed by SIGSEGV";
        QTest::newRow("no counter permission")
            << QStringList {"/bin/sh", "-c", "echo 'CUPTI error: ERR_NVGPUCTRPERM'"} << "ERR_NVGPUCTRPERM";
        QTest::newRow("missing program") << QStringList {"/nonexistent/prog"} << "/nonexistent/prog";
    }
    // The target was killed, but by a crash inside the profiler: the reason is the CLI's error
    // line naming the launch it was replaying, not the bare signal.
    void crashInsideTheProfilerIsTheReason()
    {
        RunStepState s;
        s.status = RunStepState::Status::Failed;
        s.exitCode = 3;
        s.targetFailure = QStringLiteral("killed by SIGSEGV");
        s.errorLine = QStringLiteral("warpscope-cli profile: error: the program (process 7) crashed with signal 11 "
                                     "(Segmentation fault) inside the profiler, while it was replaying launch 2 (k)");
        QCOMPARE(s.reason(), s.errorLine);
        s.errorLine = QStringLiteral("warpscope-cli profile: error: something else");
        QCOMPARE(s.reason(), QStringLiteral("the target ended with killed by SIGSEGV"));
    }

    void failingTargetsFailTheirStep()
    {
        QFETCH(QStringList, command);
        QFETCH(QString, reason);
        QTemporaryDir dir;
        RunQueue q;
        q.setCliPath(QStringLiteral(WS_CLI_PATH));
        QSignalSpy finished(&q, &RunQueue::finished);
        const QString out = dir.filePath(QStringLiteral("s.wscope"));
        // The second step must not run after the first failed.
        QVERIFY(q.start({record(out, command), record(dir.filePath(QStringLiteral("never.wscope")), {"/bin/true"})}));
        QVERIFY(finished.wait(60000));
        QCOMPARE(finished.at(0).at(0).toBool(), false);
        QCOMPARE(q.failedStep(), 0);
        QCOMPARE(q.states().at(0).status, RunStepState::Status::Failed);
        QCOMPARE(q.states().at(1).status, RunStepState::Status::Cancelled);
        QVERIFY2(q.states().at(0).reason().contains(reason), qPrintable(q.states().at(0).reason()));
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("never.wscope"))));
        // Every message of the CLI is a line of its own, never glued to the command line.
        const QStringList lines = q.output();
        QVERIFY(lines.front().startsWith(QStringLiteral("$ ")));
        QVERIFY2(lines.front().endsWith(QString::fromStdString(shellQuote(command.last().toStdString()))),
            qPrintable(lines.front()));
        for (const QString& l : lines.mid(1))
            QVERIFY2(!l.startsWith(QStringLiteral("$ ")) || l == lines.front(), qPrintable(l));
        if (command.front() == QLatin1String("/nonexistent/prog")) {
            const auto it = std::find_if(lines.begin(), lines.end(), [](const QString& l) {
                return l.startsWith(QStringLiteral("warpscope-cli record: /nonexistent/prog"));
            });
            QVERIFY2(it != lines.end(), qPrintable(lines.join(QLatin1Char('\n'))));
        }
    }

    void stepsRunInOrder()
    {
        QTemporaryDir dir;
        RunQueue q;
        q.setCliPath(QStringLiteral(WS_CLI_PATH));
        q.setWorkingDirectory(dir.path());
        QSignalSpy started(&q, &RunQueue::stepStarted);
        QSignalSpy finished(&q, &RunQueue::finished);
        QVERIFY(q.start({record(QStringLiteral("a.wscope"), {"/bin/echo", "first"}),
            record(QStringLiteral("b.wscope"), {"/bin/echo", "second"})}));
        QVERIFY(!q.start({record(QStringLiteral("c.wscope"), {"/bin/true"})})); // one queue at a time
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(q.output().join(QLatin1Char('\n'))));
        QCOMPARE(started.count(), 2);
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("a.wscope"))));
        QVERIFY(QFileInfo::exists(dir.filePath(QStringLiteral("b.wscope"))));
        const QStringList out = q.output();
        QVERIFY(out.indexOf(QStringLiteral("first")) < out.indexOf(QStringLiteral("second")));
    }

    void cancelKeepsFinishedSteps()
    {
        QTemporaryDir dir;
        RunQueue q;
        q.setCliPath(QStringLiteral(WS_CLI_PATH));
        QSignalSpy finished(&q, &RunQueue::finished);
        QSignalSpy stepDone(&q, &RunQueue::stepFinished);
        const QString first = dir.filePath(QStringLiteral("first.wscope"));
        QVERIFY(q.start(
            {record(first, {"/bin/true"}), record(dir.filePath(QStringLiteral("slow.wscope")), {"/bin/sleep", "30"})}));
        QTRY_COMPARE_WITH_TIMEOUT(q.currentStep(), 1, 60000);
        // The second recorder is running once it has made its raw directory: cancel it then.
        QTRY_VERIFY_WITH_TIMEOUT(
            !QDir(dir.path()).entryList({QStringLiteral("slow.wscope.raw-*")}, QDir::Dirs).isEmpty(), 30000);
        QElapsedTimer t;
        t.start();
        q.cancel();
        QVERIFY(finished.wait(10000));
        QVERIFY(t.elapsed() < 5000);
        QVERIFY(q.wasCancelled());
        QCOMPARE(q.states().at(0).status, RunStepState::Status::Succeeded);
        QCOMPARE(q.states().at(1).status, RunStepState::Status::Cancelled);
        QVERIFY(QFileInfo::exists(first));
        QVERIFY(!q.isRunning());
    }

    void missingCliIsAFailedStep()
    {
        RunQueue q;
        q.setCliPath(QStringLiteral("/no/such/warpscope-cli"));
        QSignalSpy finished(&q, &RunQueue::finished);
        QVERIFY(q.start({record(QStringLiteral("/tmp/x.wscope"), {"/bin/true"})}));
        QVERIFY(finished.wait(10000));
        QVERIFY(q.states().at(0).failedToStart);
        QVERIFY(q.states().at(0).reason().contains(QStringLiteral("/no/such/warpscope-cli")));
    }
};

QTEST_MAIN(TestRunQueue)
#include "tst_runqueue.moc"
