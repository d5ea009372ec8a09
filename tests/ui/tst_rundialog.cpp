// SPDX-License-Identifier: MIT
// File > Run...: the arguments it gives warpscope-cli, validation, remembered settings, and
// a real recording of a non-CUDA program (/bin/echo) through the real CLI, opened afterwards:
// the host side is there and the session says why the GPU part is empty.
#include "core/store/sessionreader.h"
#include "ui/run/rundialog.h"
#include "ui/session/sessiondocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QProcess>

#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

bool cliSupports(const QString& subcommand, const QString& option)
{
    QProcess p;
    p.start(QStringLiteral(WS_CLI_PATH), {subcommand, QStringLiteral("--help")});
    p.waitForFinished(20000);
    return QString::fromLocal8Bit(p.readAll()).contains(option);
}

int runCount(const QString& path)
{
    return static_cast<int>(SessionReader(path.toStdString()).readRuns().size());
}

// A dialog set up to trace a GPU-free stand-in target into dir/name.
void standIn(RunDialog& d, const QTemporaryDir& dir, const QString& script, const QString& name)
{
    d.setCliPath(QStringLiteral(WS_CLI_PATH));
    d.setProgram(QStringLiteral("/bin/sh"));
    d.setArguments(QStringLiteral("-c '%1'").arg(script));
    d.setWorkingDirectory(dir.path());
    d.setEnvironmentText(QString());
    d.setCaptureRange(QString());
    d.setTrace(true, true);
    d.setOutputPath(name);
}

} // namespace

class TestRunDialog : public QObject {
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("WarpscopeTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_rundialog"));
        QSettings().clear();
    }

    void arguments_data()
    {
        QTest::addColumn<bool>("cuda");
        QTest::addColumn<bool>("nvtx");
        QTest::addColumn<QString>("range");
        QTest::addColumn<QString>("args");
        QTest::addColumn<QStringList>("expected"); // after "record -o OUT"
        QTest::newRow("defaults") << true << true << QString() << QStringLiteral("-n 3 \"two words\"")
                                  << QStringList {"--trace", "cuda,nvtx", "--", "/opt/train", "-n", "3", "two words"};
        QTest::newRow("nvtx range") << true << false << QStringLiteral("nvtx:step 3") << QString()
                                    << QStringList {
                                           "--trace", "cuda", "--capture-range", "nvtx:step 3", "--", "/opt/train"};
        QTest::newRow("profiler api") << false << true << QStringLiteral("cudaProfilerApi") << QStringLiteral("x")
                                      << QStringList {"--trace", "nvtx", "--capture-range", "cudaProfilerApi", "--",
                                             "/opt/train", "x"};
    }
    void arguments()
    {
        QFETCH(bool, cuda);
        QFETCH(bool, nvtx);
        QFETCH(QString, range);
        QFETCH(QString, args);
        QFETCH(QStringList, expected);
        RunDialog d;
        d.setProgram(QStringLiteral("/opt/train"));
        d.setArguments(args);
        d.setTrace(cuda, nvtx);
        d.setCaptureRange(range);
        d.setWorkingDirectory(QStringLiteral("/tmp"));
        d.setOutputPath(QStringLiteral("run1"));
        const QStringList got = d.commandArguments();
        QCOMPARE(got.mid(0, 3), (QStringList {"record", "-o", "/tmp/run1.wscope"}));
        QCOMPARE(got.mid(3), expected);
    }

    void validationStopsBadInput()
    {
        RunDialog d;
        d.setCliPath(QStringLiteral(WS_CLI_PATH));
        QSignalSpy finished(&d, &RunDialog::runFinished);
        d.setProgram(QString());
        d.startRun();
        QCOMPARE(finished.count(), 1);
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY(!d.isRunning());
        d.setProgram(QStringLiteral("/bin/true"));
        d.setWorkingDirectory(QStringLiteral("/no/such/dir"));
        d.startRun();
        QVERIFY(finished.at(1).at(1).toString().contains(QStringLiteral("/no/such/dir")));
        d.setWorkingDirectory(QString());
        d.setCliPath(QStringLiteral("/no/such/warpscope-cli"));
        d.startRun();
        QVERIFY(finished.at(2).at(1).toString().contains(QStringLiteral("warpscope-cli")));
        QVERIFY(!d.isRunning());
    }

    void settingsAreRemembered()
    {
        QTemporaryDir dir;
        {
            RunDialog d;
            d.setProgram(QStringLiteral("/bin/true"));
            d.setArguments(QStringLiteral("--fast"));
            d.setWorkingDirectory(dir.path());
            d.setEnvironmentText(QStringLiteral("CUDA_VISIBLE_DEVICES=1"));
            d.setCaptureRange(QStringLiteral("nvtx:warmup"));
            d.setCliPath(QStringLiteral(WS_CLI_PATH));
            d.setOutputPath(dir.filePath(QStringLiteral("t.wscope")));
            QSignalSpy finished(&d, &RunDialog::runFinished);
            d.startRun();
            QVERIFY(finished.wait(60000));
        }
        RunDialog again;
        const QStringList args = again.commandArguments();
        QVERIFY(args.contains(QStringLiteral("nvtx:warmup")));
        QVERIFY(args.contains(QStringLiteral("--fast")));
        QCOMPARE(args.value(2), dir.filePath(QStringLiteral("t.wscope")));
    }

    void recordsANonCudaProgram()
    {
        if (!QFileInfo(QStringLiteral(WS_CLI_PATH)).isExecutable())
            QSKIP("warpscope-cli is not built");
        QTemporaryDir dir;
        RunDialog d;
        d.setCliPath(QStringLiteral(WS_CLI_PATH));
        d.setProgram(QStringLiteral("/bin/echo"));
        d.setArguments(QStringLiteral("hello from echo"));
        d.setWorkingDirectory(dir.path());
        d.setEnvironmentText(QStringLiteral("WS_TEST_MARK=1"));
        d.setTrace(true, true);
        d.setCaptureRange(QString());
        d.setOutputPath(QStringLiteral("echo.wscope"));
        QSignalSpy recorded(&d, &RunDialog::sessionWritten);
        QSignalSpy finished(&d, &RunDialog::runFinished);
        d.show();
        d.startRun();
        QVERIFY(d.isRunning());
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(d.log()));
        QCOMPARE(recorded.count(), 1);
        const QString out = recorded.at(0).at(0).toString();
        QCOMPARE(out, dir.filePath(QStringLiteral("echo.wscope")));
        QVERIFY(QFileInfo::exists(out));
        // Live output reached the dialog: the program's own and the recorder's.
        QVERIFY(d.log().contains(QStringLiteral("hello from echo")));
        QVERIFY(d.log().contains(QStringLiteral("warpscope-cli record")));

        SessionDocument loader;
        QSignalSpy loaded(&loader, &SessionDocument::loaded);
        loader.open(out);
        QVERIFY(loaded.wait(30000));
        const auto s = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        QCOMPARE(s->model->processes.size(), size_t(1));
        QVERIFY(!s->hasGpuActivity());
        const QString why = s->gpuEmptyReason();
        QVERIFY(!why.isEmpty());
        qInfo("GPU part empty because: %s", qPrintable(why));
    }

    void cancelStopsTheRecording()
    {
        if (!QFileInfo(QStringLiteral(WS_CLI_PATH)).isExecutable())
            QSKIP("warpscope-cli is not built");
        QTemporaryDir dir;
        RunDialog d;
        d.setCliPath(QStringLiteral(WS_CLI_PATH));
        d.setProgram(QStringLiteral("/bin/sleep"));
        d.setArguments(QStringLiteral("30"));
        d.setWorkingDirectory(dir.path());
        d.setOutputPath(QStringLiteral("sleep.wscope"));
        QSignalSpy finished(&d, &RunDialog::runFinished);
        QSignalSpy recorded(&d, &RunDialog::sessionWritten);
        d.startRun();
        // The recorder is running once it has made its raw directory: cancel it then.
        QTRY_VERIFY_WITH_TIMEOUT(
            !QDir(dir.path()).entryList({QStringLiteral("sleep.wscope.raw-*")}, QDir::Dirs).isEmpty(), 30000);
        QVERIFY(d.isRunning());
        QElapsedTimer t;
        t.start();
        d.cancelRun();
        QVERIFY(finished.wait(10000));
        QVERIFY(t.elapsed() < 5000);
        QVERIFY(!finished.at(0).at(0).toBool());
        QCOMPARE(recorded.count(), 0);
        QVERIFY(!d.isRunning());
    }

    void stepsOfTheTickedCollectors()
    {
        RunDialog d;
        d.setProgram(QStringLiteral("/opt/train"));
        d.setArguments(QStringLiteral("-n 3"));
        d.setWorkingDirectory(QStringLiteral("/tmp"));
        d.setOutputPath(QStringLiteral("all"));
        d.setTrace(true, false);
        d.setCaptureRange(QString());
        d.setCollector(RunDialog::Collector::Trace, true);
        d.setCollector(RunDialog::Collector::GpuMetrics, true);
        d.setCollector(RunDialog::Collector::Metrics, true);
        d.setCollector(RunDialog::Collector::PcSampling, true);
        d.setCollector(RunDialog::Collector::Bench, true);
        d.setMetricsSet(QStringLiteral("full"));
        d.setKernelFilter(QStringLiteral("regex:^gemm"));
        d.setBenchWorkload(QStringLiteral("gemm"));
        const QList<RunStep> steps = d.steps(false);
        QCOMPARE(steps.size(), 4);
        // Trace first into a new file, every other run appended to it.
        QCOMPARE(steps[0].kind, QStringLiteral("trace"));
        QCOMPARE(steps[0].arguments,
            (QStringList {"record", "-o", "/tmp/all.wscope", "--trace", "cuda", "--gpu-metrics", "--gpu-metrics-period",
                "200", "--", "/opt/train", "-n", "3"}));
        QCOMPARE(steps[1].arguments,
            (QStringList {"profile", "--append", "/tmp/all.wscope", "--set", "full", "--kernel-name", "regex:^gemm",
                "--", "/opt/train", "-n", "3"}));
        QCOMPARE(steps[2].arguments,
            (QStringList {"profile", "--append", "/tmp/all.wscope", "--pc-sampling", "--", "/opt/train", "-n", "3"}));
        QCOMPARE(steps[3].arguments, (QStringList {"bench", "--append", "/tmp/all.wscope", "-w", "gemm"}));
        // ncu's --profile-from-start off, ticked in the dialog, reaches the profile run only.
        auto* range = d.findChild<QCheckBox*>(QStringLiteral("profileCaptureRange"));
        QVERIFY(range);
        range->click();
        const QList<RunStep> ranged = d.steps(false);
        QCOMPARE(ranged[1].arguments,
            (QStringList {"profile", "--append", "/tmp/all.wscope", "--set", "full", "--kernel-name", "regex:^gemm",
                "--capture-range", "cudaProfilerApi", "--", "/opt/train", "-n", "3"}));
        QVERIFY(!ranged[2].arguments.contains(QStringLiteral("--capture-range")));
        QVERIFY(!ranged[0].arguments.contains(QStringLiteral("cudaProfilerApi")));
        range->click();
        // Added to an existing session, the first run appends too.
        QCOMPARE(d.steps(true).front().arguments.mid(0, 3), (QStringList {"record", "--append", "/tmp/all.wscope"}));
        // GPU metrics are sampled during the trace: without it the dialog says so.
        d.setCollector(RunDialog::Collector::Trace, false);
        d.setCliPath(QStringLiteral(WS_CLI_PATH));
        QSignalSpy finished(&d, &RunDialog::runFinished);
        d.startRun();
        QCOMPARE(finished.count(), 1);
        QVERIFY(finished.at(0).at(1).toString().contains(QStringLiteral("Trace")));
    }

    void benchWorkloadsComeFromTheCli()
    {
        RunDialog d;
        d.setCliPath(QStringLiteral(WS_CLI_PATH));
        QTRY_VERIFY_WITH_TIMEOUT(d.benchWorkloads().contains(QStringLiteral("gemm-relu")), 20000);
    }

    void targetExitingWithCode2IsAFailure()
    {
        QTemporaryDir dir;
        RunDialog d;
        standIn(d, dir, QStringLiteral("echo output-before-failing; exit 2"), QStringLiteral("fail.wscope"));
        QSignalSpy finished(&d, &RunDialog::runFinished);
        QSignalSpy written(&d, &RunDialog::sessionWritten);
        d.show();
        d.startRun();
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.at(0).at(0).toBool());
        QVERIFY2(finished.at(0).at(1).toString().contains(QStringLiteral("exit")),
            qPrintable(finished.at(0).at(1).toString()));
        QVERIFY(d.failureDialog());
        const QString text = d.failureDialog()->text();
        QVERIFY2(text.contains(QStringLiteral("Run 1 of 1 (trace)")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("exit code 2")), qPrintable(text));
        // The dialog stays open with the program's output; the host side that was written is
        // handed to the window. Nothing is left to run or deliver that could close it.
        QVERIFY(!d.isRunning());
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QVERIFY(d.isVisible());
        QVERIFY(d.log().contains(QStringLiteral("output-before-failing")));
        QCOMPARE(written.count(), 1);
    }

    void missingProgramMessageHasItsOwnLine()
    {
        QTemporaryDir dir;
        RunDialog d;
        standIn(d, dir, QString(), QStringLiteral("missing.wscope"));
        d.setProgram(QStringLiteral("/nonexistent/prog"));
        d.setArguments(QString());
        QSignalSpy finished(&d, &RunDialog::runFinished);
        d.startRun();
        QVERIFY(finished.wait(60000));
        QVERIFY(!finished.at(0).at(0).toBool());
        const QStringList lines = d.log().split(QLatin1Char('\n'));
        const auto command = std::find_if(
            lines.begin(), lines.end(), [](const QString& l) { return l.startsWith(QStringLiteral("$ ")); });
        QVERIFY(command != lines.end());
        QVERIFY2(command->endsWith(QStringLiteral("-- /nonexistent/prog")), qPrintable(*command));
        QVERIFY2(lines.contains(QStringLiteral("warpscope-cli record: /nonexistent/prog: no such file")),
            qPrintable(d.log()));
        QVERIFY(d.failureDialog());
        QVERIFY2(d.failureDialog()->text().contains(QStringLiteral("/nonexistent/prog")),
            qPrintable(d.failureDialog()->text()));
    }

    void existingFileIsNeverReplacedSilently()
    {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("exists.wscope"));
        {
            RunDialog first;
            standIn(first, dir, QStringLiteral("echo one"), QStringLiteral("exists.wscope"));
            QSignalSpy finished(&first, &RunDialog::runFinished);
            first.startRun();
            QVERIFY(finished.wait(60000));
            QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(first.log()));
        }
        const QDateTime before = QFileInfo(out).lastModified();
        RunDialog d;
        standIn(d, dir, QStringLiteral("echo two"), QStringLiteral("exists.wscope"));
        QStringList asked;
        RunDialog::ExistingFile answer = RunDialog::ExistingFile::Cancel;
        d.setExistingFileHandler([&](const QString& path) {
            asked << path;
            return answer;
        });
        QSignalSpy finished(&d, &RunDialog::runFinished);
        d.startRun();
        QCOMPARE(asked, QStringList {out});
        QCOMPARE(finished.count(), 1); // cancelled: nothing ran
        QVERIFY(!d.isRunning());
        QCOMPARE(QFileInfo(out).lastModified(), before);

        answer = RunDialog::ExistingFile::Append;
        d.startRun();
        QCOMPARE(asked.size(), 2);
        QVERIFY(d.queue()->steps().front().arguments.mid(0, 3) == (QStringList {"record", "--append", out}));
        QVERIFY(finished.wait(60000));

        answer = RunDialog::ExistingFile::Replace;
        d.startRun();
        QCOMPARE(asked.size(), 3);
        QVERIFY(d.queue()->steps().front().arguments.mid(0, 3) == (QStringList {"record", "-o", out}));
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.last().at(0).toBool(), qPrintable(d.log()));
        // Both runs' output is still in the log.
        QVERIFY(d.log().count(QStringLiteral("echo two")) >= 2);
    }

    void addsToTheOpenSession()
    {
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("open.wscope"));
        {
            RunDialog first;
            standIn(first, dir, QStringLiteral("echo one"), QStringLiteral("open.wscope"));
            QSignalSpy finished(&first, &RunDialog::runFinished);
            first.startRun();
            QVERIFY(finished.wait(60000));
            QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(first.log()));
        }
        const int before = runCount(session);
        RunDialog d;
        standIn(d, dir, QStringLiteral("echo two"), QStringLiteral("other.wscope"));
        d.setOpenSession(session, QStringLiteral("/bin/sh"));
        QVERIFY(d.appendsToOpenSession()); // same program: adding is the default
        QCOMPARE(d.outputPath(), session);
        QCOMPARE(d.commandArguments().mid(0, 3), (QStringList {"record", "-o", session}));
        QCOMPARE(d.steps(true).front().arguments.mid(0, 3), (QStringList {"record", "--append", session}));
        d.setOpenSession(session, QStringLiteral("/opt/other"));
        QVERIFY(!d.appendsToOpenSession()); // another program: a new file by default
        d.setAppendToOpenSession(true);
        QVERIFY(d.appendsToOpenSession());
        if (!cliSupports(QStringLiteral("record"), QStringLiteral("--append")))
            QSKIP("this warpscope-cli has no record --append yet (issue 17's CLI slice adds it)");
        QSignalSpy finished(&d, &RunDialog::runFinished);
        QSignalSpy written(&d, &RunDialog::sessionWritten);
        d.startRun();
        QVERIFY(finished.wait(60000));
        QVERIFY2(finished.at(0).at(0).toBool(), qPrintable(d.log()));
        QCOMPARE(written.at(0).at(0).toString(), session);
        QCOMPARE(runCount(session), before + 1);
        QVERIFY(!QFileInfo::exists(dir.filePath(QStringLiteral("other.wscope"))));
    }

    void recentRecipesAreOffered()
    {
        QSettings().remove(QStringLiteral("run/recent"));
        QTemporaryDir dir;
        for (const char* word : {"alpha", "beta"}) {
            RunDialog d;
            standIn(d, dir, QStringLiteral("echo %1").arg(QLatin1String(word)),
                QStringLiteral("%1.wscope").arg(QLatin1String(word)));
            d.setCollector(RunDialog::Collector::Metrics, false);
            QSignalSpy finished(&d, &RunDialog::runFinished);
            d.startRun();
            QVERIFY(finished.wait(60000));
        }
        RunDialog d;
        auto* recent = d.findChild<QComboBox*>(QStringLiteral("recentRecipes"));
        QVERIFY(recent);
        QCOMPARE(recent->count(), 3); // the prompt and two recipes, newest first
        QVERIFY(d.commandArguments().contains(QStringLiteral("-c")));
        QVERIFY(d.commandArguments().last().contains(QStringLiteral("beta")));
        recent->setCurrentIndex(2);
        emit recent->activated(2);
        QVERIFY(d.commandArguments().last().contains(QStringLiteral("alpha")));
        QCOMPARE(d.outputPath(), dir.filePath(QStringLiteral("alpha.wscope")));
    }

    // docs/screenshots/run-dialog.png: only when WS_SCREENSHOT_DIR is set (under Xvfb), a run
    // of a stand-in target caught mid-way, with its progress line parsed.
    void screenshot()
    {
        const QString shots = qEnvironmentVariable("WS_SCREENSHOT_DIR");
        if (shots.isEmpty())
            QSKIP("set WS_SCREENSHOT_DIR to write docs/screenshots/run-dialog.png");
        QTemporaryDir dir;
        RunDialog d;
        standIn(d, dir,
            QStringLiteral("echo gemm_relu: N=4096, 20 iterations; for i in 1 2 3; do echo warpscope-cli: progress: "
                           "trace $i/20 launches >&2; "
                           "echo iteration $i: 0.171 ms; done; sleep 3"),
            QStringLiteral("gemm_relu.wscope"));
        d.setEnvironmentText(QStringLiteral("CUDA_VISIBLE_DEVICES=0"));
        const QString earlier = dir.filePath(QStringLiteral("earlier.wscope"));
        QFile(earlier).open(QIODevice::WriteOnly);
        d.setOpenSession(earlier, QStringLiteral("./train")); // offered, not ticked: another program
        d.setCollector(RunDialog::Collector::Trace, true);
        d.setCollector(RunDialog::Collector::Metrics, true);
        d.setCollector(RunDialog::Collector::PcSampling, true);
        d.setMetricsSet(QStringLiteral("full"));
        d.setKernelFilter(QStringLiteral("regex:^gemm"));
        d.resize(980, 900);
        d.move(0, 0);
        d.show();
        QTRY_VERIFY_WITH_TIMEOUT(!d.benchWorkloads().isEmpty(), 20000);
        d.startRun();
        QTRY_VERIFY_WITH_TIMEOUT(d.log().contains(QStringLiteral("iteration 3")), 30000);
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        QVERIFY(d.grab().save(QDir(shots).filePath(QStringLiteral("run-dialog.png"))));
        d.cancelRun();
        QTRY_VERIFY_WITH_TIMEOUT(!d.isRunning(), 10000);
    }
};

QTEST_MAIN(TestRunDialog)
#include "tst_rundialog.moc"
