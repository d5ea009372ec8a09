// SPDX-License-Identifier: MIT
// File > Run...: the arguments it gives warpscope-cli, validation, remembered settings, and
// a real recording of a non-CUDA program (/bin/echo) through the real CLI, opened afterwards:
// the host side is there and the session says why the GPU part is empty.
#include "ui/run/rundialog.h"
#include "ui/session/sessiondocument.h"

#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

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
        QTest::qWait(300);
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
};

QTEST_MAIN(TestRunDialog)
#include "tst_rundialog.moc"
