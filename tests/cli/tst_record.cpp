// SPDX-License-Identifier: MIT
// `warpscope-cli record` end to end without a GPU: the real CLI (WS_CLI_PATH) runs real
// programs; the sessions it writes are read back with SessionReader. Covered: the target's
// output passing through, exit codes and signals stored, every refused input exiting non-zero
// with one line, and, where the injection library and the host-only NVTX example were built
// (CUDA toolkit present), NVTX recorded through the injection library: threads, domains,
// categories, child processes, a crash and a SIGKILL, capture ranges.
#include "clirun.h"
#include "core/store/sessionreader.h"

#include <QtTest>

#include <map>
#include <set>

using namespace ws;

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

using ws::test::nvtxExample;
using ws::test::nvtxRecordable;

std::map<std::string, int> rangeCounts(const SessionData& s)
{
    std::map<std::string, int> n;
    for (const auto& r : s.nvtxRanges)
        ++n[s.str(r.name)];
    return n;
}

} // namespace

class TestRecord : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString out(const QString& name) const { return m_dir.filePath(name); }

    SessionData record(const QString& name, const QStringList& options, const QStringList& command, Run* run = nullptr)
    {
        const Run r = cli(QStringList {QStringLiteral("record"), QStringLiteral("-o"), out(name)} + options
            + QStringList {QStringLiteral("--")} + command);
        if (run)
            *run = r;
        if (r.exitCode != 0)
            qWarning("record failed: %s", qPrintable(r.err));
        return SessionReader(out(name).toStdString()).readAll();
    }

private slots:
    void hostSideExitCodeAndPassThrough()
    {
        Run r;
        const SessionData s = record(QStringLiteral("exit3.wscope"), {},
            {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                QStringLiteral("echo to-stdout; echo to-stderr >&2; exit 3")},
            &r);
        QCOMPARE(r.exitCode, 0); // recording worked; the program's failure is data
        QVERIFY(r.out.contains(QStringLiteral("to-stdout")));
        QVERIFY(r.err.contains(QStringLiteral("to-stderr")));
        QVERIFY2(r.err.contains(QStringLiteral("exited with code 3")), qPrintable(r.err));
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.processes[0].exitCode, 3);
        QCOMPARE(s.processes[0].exitSignal, 0);
        QCOMPARE(s.processes[0].name, std::string("sh"));
        QCOMPARE(s.meta.at("target_exit"), std::string("exited with code 3"));
        QVERIFY(!s.meta.at("gpu_status").empty());
        QVERIFY(!s.environment.at("host").empty());
        QVERIFY(s.environment.at("command_line").find("exit 3") != std::string::npos);
        // The raw record directory beside the session is gone once ingested.
        QVERIFY(QDir(m_dir.path()).entryList({QStringLiteral("exit3.wscope.raw-*")}, QDir::Dirs).isEmpty());
    }

    void runRowSaysHowTheProgramWasStarted()
    {
        // The run row is what "run again" replays: written by the launcher, not guessed later.
        qputenv("CUDA_VISIBLE_DEVICES", "3");
        const qint64 before = QDateTime::currentMSecsSinceEpoch();
        const SessionData s = record(QStringLiteral("run.wscope"), {},
            {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 0")});
        qunsetenv("CUDA_VISIBLE_DEVICES");
        QCOMPARE(s.runs.size(), size_t(1));
        const RunInfo& run = s.runs[0];
        QCOMPARE(run.kind, std::string("trace"));
        QCOMPARE(run.commandLine, s.processes[0].commandLine);
        QVERIFY2(run.commandLine.find("'exit 0'") != std::string::npos, run.commandLine.c_str());
        QCOMPARE(QString::fromStdString(run.cwd), QDir::currentPath());
        QCOMPARE(run.host, s.environment.at("host"));
        QVERIFY(!run.user.empty());
        QVERIFY2(run.environmentJson.find("\"CUDA_VISIBLE_DEVICES\":\"3\"") != std::string::npos,
            run.environmentJson.c_str());
        QVERIFY(run.startRealtimeNs / 1000000 >= before - 1000);
        QVERIFY(run.endRealtimeNs >= run.startRealtimeNs);
        QVERIFY2(run.optionsJson.find("\"target_exit\":\"exited with code 0\"") != std::string::npos,
            run.optionsJson.c_str());
    }

    void signalIsStored()
    {
        Run r;
        const SessionData s = record(QStringLiteral("segv.wscope"), {},
            {QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("kill -SEGV $$")}, &r);
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains(QStringLiteral("killed by signal 11")), qPrintable(r.err));
        QCOMPARE(s.processes[0].exitSignal, 11);
        QCOMPARE(s.processes[0].exitCode, -1);
    }

    void programOptionsNeedNoDoubleDash()
    {
        // Everything from the program name on is the program's, options included.
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), out(QStringLiteral("nodash.wscope")),
            QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("exit 5")});
        QCOMPARE(r.exitCode, 0);
        const SessionData s = SessionReader(out(QStringLiteral("nodash.wscope")).toStdString()).readAll();
        QCOMPARE(s.processes[0].exitCode, 5);
    }

    void refusedInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("reason");
        const QString dir = m_dir.path();
        QFile notExec(dir + QStringLiteral("/not-executable.sh"));
        notExec.open(QIODevice::WriteOnly);
        notExec.write("#!/bin/sh\n");
        notExec.close();
        notExec.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        const QString o = dir + QStringLiteral("/x.wscope");
        QTest::newRow("missing program") << QStringList {"-o", o, "--", "no-such-program-ws"}
                                         << "no-such-program-ws: program not found in PATH";
        QTest::newRow("missing path") << QStringList {"-o", o, "--", dir + "/nothing/here"} << "no such file";
        QTest::newRow("not executable") << QStringList {"-o", o, "--", notExec.fileName()} << "not executable";
        QTest::newRow("directory as program") << QStringList {"-o", o, "--", dir} << "is a directory, not a program";
        QTest::newRow("output directory missing")
            << QStringList {"-o", dir + "/missing/x.wscope", "--", "/bin/true"} << "does not exist";
        QTest::newRow("output is a directory") << QStringList {"-o", dir, "--", "/bin/true"} << "is a directory";
        QTest::newRow("no program") << QStringList {"-o", o} << "no program given";
        QTest::newRow("unknown trace kind")
            << QStringList {"-o", o, "--trace", "cuda,osrt", "--", "/bin/true"} << "unknown kind 'osrt'";
        QTest::newRow("bad capture range") << QStringList {"-o", o, "--capture-range", "sometimes", "--", "/bin/true"}
                                           << "not cudaProfilerApi or nvtx:NAME";
    }
    void refusedInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, reason);
        const Run r = cli(QStringList {QStringLiteral("record")} + args);
        QVERIFY(r.exitCode != 0);
        const QStringList lines = r.err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines[0].startsWith(QStringLiteral("warpscope-cli record: ")), qPrintable(lines[0]));
        QVERIFY2(lines[0].contains(reason), qPrintable(lines[0]));
        QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("x.wscope"))));
    }

    void nvtxThroughTheInjectionLibrary()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        Run r;
        const SessionData s = record(QStringLiteral("nvtx.wscope"), {}, {nvtxExample()}, &r);
        QCOMPARE(r.exitCode, 0);
        const auto n = rangeCounts(s);
        QCOMPARE(n.at("main"), 1);
        QCOMPARE(n.at("outer"), 6);
        QCOMPARE(n.at("inner"), 6);
        QCOMPARE(n.at("cross-thread"), 1);
        QCOMPARE(n.at("registered name"), 1);
        std::map<std::string, NvtxRangeRecord> byName;
        for (const auto& rr : s.nvtxRanges)
            byName[s.str(rr.name)] = rr;
        QCOMPARE(byName["main"].color, 0xff00ff00u);
        QCOMPARE(byName["main"].category, 7);
        QCOMPARE(byName["inner"].depth, 1);
        QCOMPARE(byName["cross-thread"].style, NvtxStyle::StartEnd);
        QVERIFY(byName["cross-thread"].tid != byName["cross-thread"].endTid);
        QCOMPARE(s.str(byName["registered name"].domain), std::string("ws.test"));
        QCOMPARE(s.environment.at("nvtx.category.default.7"), std::string("io"));
        std::set<std::string> threadNames;
        for (const auto& t : s.threads)
            threadNames.insert(t.name);
        QVERIFY(threadNames.count("worker 0"));
        QVERIFY(threadNames.count("worker 1"));
        QCOMPARE(s.nvtxMarks.size(), size_t(2));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("0"));
        QCOMPARE(s.meta.at("processes_without_end_record"), std::string());
    }

    // The injection library stores the process's command line (from /proc/self/cmdline) quoted
    // exactly as the launcher stores the program's: one line per program in every run of it.
    void processCommandLineIsQuotedAsTheLaunchers()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        const SessionData s = record(QStringLiteral("quoted.wscope"), {},
            {nvtxExample(), QStringLiteral("--label"), QStringLiteral("two words"), QStringLiteral("it's;$x")});
        const std::string expected = nvtxExample().toStdString() + " --label 'two words' 'it'\\''s;$x'";
        QCOMPARE(s.environment.at("command_line"), expected);
        QCOMPARE(s.processes.size(), size_t(1));
        QCOMPARE(s.processes[0].commandLine, expected);
    }

    void childProcessesAreRecorded()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        const SessionData s = record(QStringLiteral("child.wscope"), {}, {nvtxExample(), QStringLiteral("--child")});
        QCOMPARE(s.processes.size(), size_t(2));
        QCOMPARE(s.processes[1].parentPid, s.processes[0].pid);
        QCOMPARE(rangeCounts(s).at("main"), 2);
        QCOMPARE(s.meta.at("raw_files"), std::string("2"));
    }

    void deadTargetsKeepWhatWasFlushed_data()
    {
        QTest::addColumn<QString>("how");
        QTest::addColumn<int>("signal");
        QTest::newRow("SIGSEGV") << "--crash" << 11;
        QTest::newRow("SIGKILL") << "--kill" << 9;
    }
    void deadTargetsKeepWhatWasFlushed()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        QFETCH(QString, how);
        QFETCH(int, signal);
        // 1.2 s after the work: the writer thread's periodic flush has written it.
        Run r;
        const SessionData s = record(QStringLiteral("dead.wscope"), {},
            {nvtxExample(), how, QStringLiteral("--sleep-ms"), QStringLiteral("1200")}, &r);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(s.processes[0].exitSignal, signal);
        QCOMPARE(s.nvtxRanges.size(), size_t(15));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("1")); // "main" was open
        QCOMPARE(s.meta.at("processes_without_end_record"), std::to_string(s.processes[0].pid));
        QVERIFY(r.err.contains(QStringLiteral("no end record")));
    }

    void captureAndTraceOptions_data()
    {
        QTest::addColumn<QStringList>("options");
        QTest::addColumn<int>("ranges");
        QTest::addColumn<int>("marks");
        QTest::newRow("nvtx:main") << QStringList {"--capture-range=nvtx:main"} << 15 << 2;
        // The domain range with a registered-string name, after the workers ended: itself and
        // the mark inside it.
        QTest::newRow("nvtx:registered name") << QStringList {"--capture-range=nvtx:registered name"} << 1 << 1;
        QTest::newRow("--trace cuda") << QStringList {"--trace", "cuda"} << 0 << 0;
    }
    void captureAndTraceOptions()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        QFETCH(QStringList, options);
        QFETCH(int, ranges);
        QFETCH(int, marks);
        const SessionData s = record(QStringLiteral("capture.wscope"), options, {nvtxExample()});
        QCOMPARE(int(s.nvtxRanges.size()), ranges);
        QCOMPARE(int(s.nvtxMarks.size()), marks);
    }

    void durationStopsCollection()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        // Collection stops 0.3 s in; the program keeps running and pops "main" after 1 s, which
        // is no longer recorded.
        Run r;
        const SessionData s
            = record(QStringLiteral("duration.wscope"), {QStringLiteral("--duration"), QStringLiteral("0.3")},
                {nvtxExample(), QStringLiteral("--sleep-ms"), QStringLiteral("1000")}, &r);
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(s.processes[0].exitCode, 0);
        QCOMPARE(s.nvtxRanges.size(), size_t(15));
        QCOMPARE(s.meta.at("nvtx_unclosed_ranges"), std::string("1"));
        QVERIFY(s.meta.at("recorder_messages").find("collection stopped after the requested duration")
            != std::string::npos);
    }

    void keepRaw()
    {
        if (!nvtxRecordable())
            QSKIP("the injection library or ws-example-nvtx-threads was not built (no CUDA toolkit)");
        QTemporaryDir dir;
        const QString session = dir.filePath(QStringLiteral("k.wscope"));
        const Run r = cli({QStringLiteral("record"), QStringLiteral("-o"), session, QStringLiteral("--keep-raw"),
            QStringLiteral("--"), nvtxExample()});
        QCOMPARE(r.exitCode, 0);
        const QStringList rawDirs = QDir(dir.path()).entryList({QStringLiteral("k.wscope.raw-*")}, QDir::Dirs);
        QCOMPARE(rawDirs.size(), 1);
        QCOMPARE(QDir(dir.filePath(rawDirs[0])).entryList({QStringLiteral("ws-*.raw")}, QDir::Files).size(), 1);
    }
};

QTEST_GUILESS_MAIN(TestRecord)
#include "tst_record.moc"
