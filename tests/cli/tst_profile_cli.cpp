// SPDX-License-Identifier: MIT
// `warpscope-cli profile` without a GPU (label `cli`, so CI runs it): the CLI against a stand-in
// target that writes a result file the way libwarpscope-profiler.so does — configuration
// handed over, session written, errors from the target surfaced, bad options refused, metric
// lists printed without a program. The real injection library on a GPU: tests/gpu/tst_profile_gpu.
#include "core/store/sessionreader.h"

#include "clirun.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace ws;

namespace {

using test::runCli;

// A target that does what the injection library does: reads the output directory from the
// configuration and writes profile-<pid>.txt there.
QString writeFakeTarget(const QTemporaryDir& dir, const QString& body)
{
    const QString path = dir.filePath("fake-target.sh");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(("#!/bin/sh\n"
             "grep -q '^metric \\* gpu__time_duration.sum$' \"$WS_PROFILE_CONFIG\" || exit 9\n"
             "out=$(sed -n 's/^output //p' \"$WS_PROFILE_CONFIG\")/profile-$$.txt\n"
             "cat > \"$out\" <<EOF\n"
                + body.toUtf8() + "EOF\n")
        + "exit 0\n");
    f.close();
    f.setPermissions(f.permissions() | QFile::ExeOwner);
    return path;
}

const char* kTwoLaunches = "warpscope-profile 1\n"
                           "process $$ fake\n"
                           "device 0 cc=9.0 sms=132 regs_per_sm=65536 regs_per_block=65536 smem_per_sm=233472 "
                           "smem_per_block=49152 smem_optin=232448 smem_reserved=1024 max_warps_per_sm=64 "
                           "max_blocks_per_sm=32 max_threads_per_block=1024 warp_size=32 uuid=GPU-1 name=NVIDIA H200\n"
                           "metric 0 gpu__time_duration.sum nanosecond - time\n"
                           "metric 1 sm__throughput.avg.pct_of_peak_sustained_elapsed percent - SM\n"
                           "info passes 9\n"
                           "launch 0 dev=0 ctx=1 stream=7 t=1000 grid=2112,1,1 block=256,1,1 cluster=0,0,0 regs=14 "
                           "ssmem=0 dsmem=0 lmem=0 maxdsmem=49152 carveout=-1 name=_Z11copy_kernelPK6float4PS_m\n"
                           "values 0 0=65488 1=5.9\n"
                           "launch 1 dev=0 ctx=1 stream=7 t=90000 grid=2112,1,1 block=256,1,1 cluster=0,0,0 regs=14 "
                           "ssmem=0 dsmem=0 lmem=0 maxdsmem=49152 carveout=-1 name=_Z11copy_kernelPK6float4PS_m\n"
                           "values 1 0=65504 1=5.8\n"
                           "end\n";

QProcessEnvironment envWithLibrary()
{
    auto env = QProcessEnvironment::systemEnvironment();
    // The stand-in target never loads it, but the CLI insists that it exists.
    const QString built = QStringLiteral(WS_BUILD_DIR "/lib/libwarpscope-profiler.so");
    env.insert("WS_PROFILER_LIB", QFile::exists(built) ? built : QStringLiteral(WS_CLI_PATH));
    return env;
}

} // namespace

class TestProfileCli : public QObject {
    Q_OBJECT

private slots:
    void sessionFromTargetResults()
    {
        QTemporaryDir dir;
        const QString target = writeFakeTarget(dir, kTwoLaunches);
        const QString out = dir.filePath("p.wscope");
        const auto r = runCli({"profile", "-o", out, "--set", "basic", "--", target}, envWithLibrary());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("2 kernel launch(es)"), qPrintable(r.err));
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(2));
        QCOMPARE(QString::fromStdString(s.str(s.kernels[0].shortName)), QStringLiteral("copy_kernel"));
        QCOMPARE(s.kernels[1].end - s.kernels[1].start, int64_t(65504));
        QCOMPARE(QString::fromStdString(s.meta.at("session_kind")), QStringLiteral("profile"));
        bool sawOccupancy = false;
        for (const auto& d : s.metricDefs)
            sawOccupancy = sawOccupancy || d.name == "sm__maximum_warps_per_active_cycle_pct";
        QVERIFY(sawOccupancy);
        // The work directory with the configuration and result files is gone.
        QCOMPARE(QDir(dir.path()).entryList({"p.wscope.profile-*"}, QDir::Dirs).size(), 0);
    }

    // What the options hand the injection library, ncu's short forms (-k, -s, -c) included, so an
    // ncu command line works as it stands.
    void optionsReachTheTarget_data()
    {
        QTest::addColumn<QStringList>("option");
        QTest::addColumn<QString>("line");
        QTest::newRow("default cache control") << QStringList {} << "cache-control all";
        QTest::newRow("all") << QStringList {"--cache-control", "all"} << "cache-control all";
        QTest::newRow("none") << QStringList {"--cache-control", "none"} << "cache-control none";
        QTest::newRow("clock control none, as ncu's") << QStringList {"--clock-control", "none"} << "cache-control all";
        QTest::newRow("--kernel-name") << QStringList {"--kernel-name", "regex:copy"} << "kernel-regex copy";
        QTest::newRow("-k, as ncu") << QStringList {"-k", "regex:copy|relu"} << "kernel-regex copy|relu";
        QTest::newRow("--launch-skip") << QStringList {"--launch-skip", "3"} << "launch-skip 3";
        QTest::newRow("-s, as ncu") << QStringList {"-s", "5"} << "launch-skip 5";
        QTest::newRow("--launch-count") << QStringList {"--launch-count", "2"} << "launch-count 2";
        QTest::newRow("-c, as ncu") << QStringList {"-c", "1"} << "launch-count 1";
        QTest::newRow("--capture-range cudaProfilerApi")
            << QStringList {"--capture-range", "cudaProfilerApi"} << "capture-range cudaProfilerApi";
        QTest::newRow("--profile-from-start off, as ncu")
            << QStringList {"--profile-from-start", "off"} << "capture-range cudaProfilerApi";
    }
    void optionsReachTheTarget()
    {
        QFETCH(QStringList, option);
        QFETCH(QString, line);
        QTemporaryDir dir;
        // The stand-in target answers with a result only when the configuration says `line`.
        const QString target = writeFakeTarget(dir, kTwoLaunches);
        QFile f(target);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray script = f.readAll();
        f.close();
        script.replace("exit 9\n", "exit 9\ngrep -qx '" + line.toUtf8() + "' \"$WS_PROFILE_CONFIG\" || exit 8\n");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(script);
        f.close();
        const auto r
            = runCli(QStringList {"profile", "-o", dir.filePath("p.wscope")} + option + QStringList {"--", target},
                envWithLibrary());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void targetErrorsReachTheUser()
    {
        QTemporaryDir dir;
        const QString target = writeFakeTarget(dir,
            "warpscope-profile 1\nprocess $$ fake\ninfo error cuptiProfilerGetCounterAvailability: "
            "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES (35): no permission to read the GPU performance counters. Run as "
            "root, or allow all users: NVreg_RestrictProfilingToAdminUsers=0\nend\n");
        const auto r = runCli({"profile", "-o", dir.filePath("p.wscope"), "--", target}, envWithLibrary());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains("NVreg_RestrictProfilingToAdminUsers=0"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("p.wscope")));
    }

    // The program crashed while the profiler replayed a launch (its crash report, written where
    // WS_CRASH_DIR says): the launches before it are kept, and the CLI says what happened and
    // exits 3; a crash in the program's own code keeps today's status (a warning, exit 0).
    void crashInsideTheProfiler_data()
    {
        QTest::addColumn<QString>("activity");
        QTest::addColumn<int>("exitCode");
        QTest::newRow("inside the profiler")
            << "replaying launch 2 (sm90_xmma_fprop) (checkpoint, passes, restores)" << 3;
        QTest::newRow("in the program's own code") << "not in one of its callbacks (the program's own code)" << 0;
    }
    void crashInsideTheProfiler()
    {
        QFETCH(QString, activity);
        QFETCH(int, exitCode);
        QTemporaryDir dir;
        QByteArray body(kTwoLaunches);
        body.replace("end\n", ""); // the exit handler never ran
        QString target = writeFakeTarget(dir, QString::fromUtf8(body));
        QFile f(target);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QByteArray script = f.readAll();
        f.close();
        script.replace("exit 0\n",
            "cat > \"$WS_CRASH_DIR/crash-$$.txt\" <<'CRASH'\n"
            "warpscope-profile: the program received signal 11 (Segmentation fault) at address 0x9d6\n"
            "warpscope-profile: while the collector was "
                + activity.toUtf8() + "\nCRASH\nkill -SEGV $$\n");
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(script);
        f.close();
        const QString out = dir.filePath("p.wscope");
        const auto r = runCli({"profile", "-o", out, "--", target}, envWithLibrary());
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.err));
        QVERIFY2(r.err.contains("killed by signal 11"), qPrintable(r.err));
        if (exitCode != 0) {
            QVERIFY2(r.err.contains("crashed with signal 11 (Segmentation fault) inside the profiler, while it was "
                                    "replaying launch 2 (sm90_xmma_fprop)"),
                qPrintable(r.err));
            QVERIFY2(r.err.contains("--launch-count 2"), qPrintable(r.err));
        } else {
            QVERIFY2(!r.err.contains("inside the profiler"), qPrintable(r.err));
        }
        // What was profiled before the crash is kept either way.
        const SessionData s = SessionReader(out.toStdString()).readAll();
        QCOMPARE(s.kernels.size(), size_t(2));
    }

    // A program whose launches the options excluded: the message says what was looked for.
    void noKernelMatched_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<QString>("message");
        QTest::newRow("kernel name") << QStringList {"--kernel-name", "regex:gemm"}
                                     << "no launch matched --kernel-name regex:gemm";
        QTest::newRow("inside cudaProfilerStart..Stop") << QStringList {"--profile-from-start", "off"}
                                                        << "it launched no kernel between cudaProfilerStart and Stop";
    }
    void noKernelMatched()
    {
        QFETCH(QStringList, options);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString target = writeFakeTarget(dir, "warpscope-profile 1\nprocess $$ fake\nend\n");
        const auto r
            = runCli(QStringList {"profile", "-o", dir.filePath("p.wscope")} + options + QStringList {"--", target},
                envWithLibrary());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    // --print: the run's values on standard output after it, as `warpscope-cli metrics` prints
    // them (here from the H200 result files of the fidelity suite's stream copy).
    void printShowsTheValues_data()
    {
        QTest::addColumn<bool>("print");
        QTest::newRow("--print") << true;
        QTest::newRow("without") << false;
    }
    void printShowsTheValues()
    {
        QFETCH(bool, print);
        QTemporaryDir dir;
        QStringList args {"profile", "--from-raw", QStringLiteral(WS_FIXTURES_DIR "/fidelity/all/stream"), "--set",
            "full", "-o", dir.filePath("p.wscope")};
        if (print)
            args << "--print";
        const auto r = runCli(args, envWithLibrary());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        if (!print) {
            QVERIFY2(r.out.isEmpty(), qPrintable(r.out));
            return;
        }
        QVERIFY2(r.out.startsWith(QStringLiteral("  stream_copy(float4 const*, float4*, unsigned long)\n")),
            qPrintable(r.out));
        QCOMPARE(r.out.count(QStringLiteral("Section: SpeedOfLight")), 4); // one per profiled launch
        QVERIFY2(r.out.contains(QStringLiteral("26 replay passes each; cache control all")), qPrintable(r.out));
    }

    void badOptions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("unknown section") << QStringList {"profile", "-o", "x.wscope", "--section", "Nope", "--", "true"}
                                         << "unknown section 'Nope'";
        QTest::newRow("unknown set") << QStringList {"profile", "-o", "x.wscope", "--set", "most", "--", "true"}
                                     << "unknown set 'most'";
        QTest::newRow("no program") << QStringList {"profile", "-o", "x.wscope"} << "no program to profile";
        QTest::newRow("no output") << QStringList {"profile", "--", "true"} << "no session given";
        QTest::newRow("missing program") << QStringList {"profile", "-o", "x.wscope", "--", "/no/such/program"}
                                         << "/no/such/program";
        QTest::newRow("bad cache control")
            << QStringList {"profile", "-o", "x.wscope", "--cache-control", "some", "--", "true"} << "--cache-control";
        QTest::newRow("capture range of record's that profile has not") << QStringList {"profile", "-o", "x.wscope",
            "--capture-range", "nvtx:step", "--", "true"} << "--capture-range";
        QTest::newRow("bad --profile-from-start") << QStringList {"profile", "-o", "x.wscope", "--profile-from-start",
            "later", "--", "true"} << "--profile-from-start";
        QTest::newRow("ncu's default clock control (locked to base)") << QStringList {"profile", "-o", "x.wscope",
            "--clock-control", "base", "--", "true"} << "warpscope never locks the GPU clocks";
    }
    void badOptions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runCli(args, envWithLibrary());
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }

    void listMetricsNeedsNoProgram()
    {
        QProcess p;
        p.start(QStringLiteral(WS_CLI_PATH), {"profile", "--set", "full", "--list-metrics"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY(out.contains("breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed"));
        QVERIFY(out.contains("launch__occupancy_limit_registers"));
        QVERIFY(out.contains("derived__tensor_flop"));
    }
};

QTEST_GUILESS_MAIN(TestProfileCli)
#include "tst_profile_cli.moc"
