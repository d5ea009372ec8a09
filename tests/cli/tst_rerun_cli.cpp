// SPDX-License-Identifier: MIT
// The investigation loop on the command line, through the real warpscope-cli: every collector
// stores arguments that give its options back when parsed again (round trip), `--append` adds a
// run and keeps the earlier ones whatever happens (a failed collection is a "failed: reason"
// row), and `collect` / `rerun` print what a session would run and run nothing from a session
// recorded by someone else, elsewhere, without --yes. Runs without a GPU: record writes
// host-only sessions, and profile and bench fail there, which is what the failure rows need.
#include "../core/craftedsession.h"
#include "clirun.h"

#include "core/metrics/sessionmeta.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionreader.h"
#include "core/util/shellwords.h"
#include "launcher/profilepipeline.h"
#include "launcher/recordpipeline.h"

#include <pwd.h>
#include <unistd.h>

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace ws;

Q_DECLARE_METATYPE(ws::RecordOptions)
Q_DECLARE_METATYPE(ws::ProfileOptions)

namespace {

using ws::test::runCli;

QStringList toQt(const std::vector<std::string>& v)
{
    QStringList out;
    for (const auto& s : v)
        out << QString::fromStdString(s);
    return out;
}

std::map<std::string, std::string> optionsOf(const RunInfo& run)
{
    return store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson)
        .value_or(std::map<std::string, std::string> {});
}

std::string option(const RunInfo& run, const char* key)
{
    const auto o = optionsOf(run);
    const auto it = o.find(key);
    return it == o.end() ? std::string() : it->second;
}

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string thisUser()
{
    const passwd* pw = ::getpwuid(::geteuid());
    return pw ? pw->pw_name : std::to_string(::geteuid());
}

std::string thisHost()
{
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    return host;
}

} // namespace

class TestRerunCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    QString path(const QString& name) const { return m_dir.filePath(name); }

    // A session of one host-only trace run recorded here by the real CLI.
    QString recorded(const QString& name, const QStringList& program)
    {
        const QString out = path(name);
        const auto r = runCli(QStringList {"record", "-o", out, "--"} + program);
        [&] { QVERIFY2(r.exitCode == 0, qPrintable(r.err)); }();
        return out;
    }

    // A crafted session whose stored command would create `pwned`, by mallory on elsewhere.
    QString foreignSession(const QString& name, const QString& pwned)
    {
        test::CraftedRun t;
        t.commandLine = joinCommand({"/bin/sh", "-c", "touch " + pwned.toStdString()});
        t.cwd = m_dir.path().toStdString();
        t.collectorArguments = "record";
        t.kernels = {"A", "A"};
        t.environment = {{"CUDA_VISIBLE_DEVICES", "0"}};
        const QString out = path(name);
        test::writeSession(out.toStdString(), test::craftedSession(t));
        return out;
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (!QFileInfo::exists(QStringLiteral(WS_CLI_PATH)))
            QSKIP("warpscope-cli is not built in this build directory");
    }

    // recordArguments(o), parsed by the real CLI, is stored as the run's collector_arguments:
    // the same list again, so the CLI read back exactly o.
    void recordArgumentsRoundTrip_data()
    {
        QTest::addColumn<RecordOptions>("options");
        RecordOptions o;
        QTest::newRow("defaults") << o;
        o.trace = {"cuda"};
        o.captureRange = "nvtx:step 1";
        o.durationS = 2.5;
        QTest::newRow("trace, capture range with a space, duration") << o;
        o = {};
        o.allApi = true;
        o.keepRaw = true;
        o.gpuMetrics = true;
        o.gpuMetricsPeriodUs = 12.75;
        QTest::newRow("flags and GPU metrics period") << o;
        o = {};
        o.nvtxTiming = {"forward pass", "it's $HOME"};
        o.trace = {"nvtx", "cuda"};
        o.durationS = 0.1;
        QTest::newRow("NVTX timing names to quote, trace order") << o;
    }

    void recordArgumentsRoundTrip()
    {
        QFETCH(RecordOptions, options);
        const std::vector<std::string> args = recordArguments(options);
        QCOMPARE(args.front(), std::string("record"));
        const QString out
            = path(QStringLiteral("rt-record-%1.wscope").arg(qHash(QString::fromUtf8(QTest::currentDataTag()))));
        const auto r = runCli(QStringList {"record", "-o", out} + toQt({args.begin() + 1, args.end()})
            + QStringList {"--", "/bin/sh", "-c", "exit 0"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const auto runs = SessionReader(out.toStdString()).readRuns();
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(splitCommand(option(runs[0], kCollectorArgumentsOption)), std::optional(args));
        QCOMPARE(option(runs[0], kRunStatusOption), std::string("exited with code 0"));
    }

    // The same for profile, through a failed --append run (no GPU, or nothing profiled in
    // /bin/true): the failure row stores the arguments too.
    void profileArgumentsRoundTrip_data()
    {
        QTest::addColumn<ProfileOptions>("options");
        QTest::addColumn<QString>("kind");
        ProfileOptions o;
        QTest::newRow("defaults") << o << "profile";
        o.set = "full";
        o.kernelName = "regex:^_Z4gemmPf$";
        o.launchSkip = 3;
        o.launchCount = 2;
        o.cacheControl = "none";
        QTest::newRow("what collect runs, cache control") << o << "profile";
        o = {};
        o.sections = {"LaunchStats", "Occupancy"};
        o.metrics = "sm__cycles_elapsed.avg,breakdown:gpu__time_duration.sum";
        o.sectionsDir = WS_RESOURCES_DIR "/sections";
        o.keepRaw = true;
        o.verbose = true;
        QTest::newRow("sections, metrics, sections dir, flags") << o << "profile";
        o = {};
        o.pcSampling = true;
        o.pcSamplingInterval = 9;
        o.pcSamplingNoStartStop = true;
        o.sourceFolders = {"/src/a b", "/src/c"};
        o.kernelName = "gemm";
        QTest::newRow("PC sampling") << o << "pc-sampling";
    }

    void profileArgumentsRoundTrip()
    {
        QFETCH(ProfileOptions, options);
        QFETCH(QString, kind);
        const QString session
            = recorded(QStringLiteral("rt-profile-%1.wscope").arg(qHash(QString::fromUtf8(QTest::currentDataTag()))),
                {"/bin/true"});
        const std::vector<std::string> args = profileArguments(options);
        const auto r = runCli(QStringList {"profile", "--append", session} + toQt({args.begin() + 1, args.end()})
            + QStringList {"--", "/bin/true"});
        QVERIFY2(r.exitCode != 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("the failed run is recorded in")), qPrintable(r.err));
        const auto runs = SessionReader(session.toStdString()).readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].kind, kind.toStdString());
        QCOMPARE(splitCommand(option(runs[1], kCollectorArgumentsOption)), std::optional(args));
        QVERIFY2(option(runs[1], kRunStatusOption).starts_with("failed: "), option(runs[1], kRunStatusOption).c_str());
        QCOMPARE(runs[1].commandLine, std::string("/bin/true"));
        QCOMPARE(runs[1].host, thisHost());
        QCOMPARE(runs[1].user, thisUser());
    }

    // bench stores the measurement options as given; without its workloads program the run
    // fails and is recorded as failed.
    void benchArgumentsAreStored()
    {
        const QString session = recorded(QStringLiteral("bench.wscope"), {"/bin/true"});
        const QStringList given {"--workload", "gemm", "--rounds", "3", "--cache", "warm", "--no-alternate",
            "--workloads-exe", "/nonexistent/ws-bench"};
        const auto r = runCli(QStringList {"bench", "--append", session} + given);
        QVERIFY2(r.exitCode != 0, qPrintable(r.err));
        const auto runs = SessionReader(session.toStdString()).readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].kind, std::string("bench"));
        QCOMPARE(option(runs[1], kCollectorArgumentsOption), ("bench " + given.join(' ')).toStdString());
        QVERIFY(option(runs[1], kRunStatusOption).find("/nonexistent/ws-bench") != std::string::npos);
    }

    // How the target ended is the run's status; a collection that fails is appended as failed
    // and the earlier runs stay.
    void appendKeepsEveryRun()
    {
        const QString session = recorded(QStringLiteral("append.wscope"), {"/bin/sh", "-c", "exit 3"});
        auto r = runCli({"record", "--append", session, "--", "/bin/sh", "-c", "kill -9 $$"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("appended run 2")), qPrintable(r.err));
        r = runCli({"record", "--append", session, "--", "/nonexistent/prog"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QStringLiteral("/nonexistent/prog")), qPrintable(r.err));
        QVERIFY2(!r.err.contains(QStringLiteral("/nonexistent/progwarpscope-cli")), qPrintable(r.err));
        const auto runs = SessionReader(session.toStdString()).readRuns();
        QCOMPARE(runs.size(), size_t(3));
        QCOMPARE(option(runs[0], kRunStatusOption), std::string("exited with code 3"));
        QVERIFY2(option(runs[1], kRunStatusOption).starts_with("killed by signal 9"),
            option(runs[1], kRunStatusOption).c_str());
        QVERIFY2(option(runs[2], kRunStatusOption).starts_with("failed: "), option(runs[2], kRunStatusOption).c_str());
        QVERIFY(option(runs[2], kRunStatusOption).find("/nonexistent/prog") != std::string::npos);
        QCOMPARE(runs[2].commandLine, std::string("/nonexistent/prog"));

        // info lists the statuses.
        r = runCli({"info", session});
        QVERIFY2(r.out.contains(QStringLiteral("status: exited with code 3")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("status: failed: ")), qPrintable(r.out));
    }

    void appendRefusesBadSessions_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("untouched"); // a file that must keep its bytes, or not appear
        const QString missing = path(QStringLiteral("missing.wscope"));
        const QString damaged = path(QStringLiteral("damaged.wscope"));
        const QString other = path(QStringLiteral("other.wscope"));
        QTest::newRow("record, missing") << QStringList {"record", "--append", missing, "--", "/bin/true"} << missing
                                         << missing;
        QTest::newRow("profile, missing")
            << QStringList {"profile", "--append", missing, "--", "/bin/true"} << missing << missing;
        QTest::newRow("bench, missing") << QStringList {"bench", "--append", missing, "-w", "gemm"} << missing
                                        << missing;
        QTest::newRow("record, damaged") << QStringList {"record", "--append", damaged, "--", "/bin/true"} << damaged
                                         << damaged;
        QTest::newRow("profile, damaged")
            << QStringList {"profile", "--pc-sampling", "--append", damaged, "--", "/bin/true"} << damaged << damaged;
        QTest::newRow("-o and --append") << QStringList {"record", "-o", other, "--append", damaged, "--", "/bin/true"}
                                         << "are exclusive" << other;
        QTest::newRow("profile -o and --append")
            << QStringList {"profile", "-o", other, "--append", damaged, "--", "/bin/true"} << "are exclusive" << other;
        QTest::newRow("bench -o and --append")
            << QStringList {"bench", "-o", other, "--append", damaged, "-w", "gemm"} << "are exclusive" << other;
    }

    void appendRefusesBadSessions()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, error);
        QFETCH(QString, untouched);
        const std::string damaged = path(QStringLiteral("damaged.wscope")).toStdString();
        {
            std::ofstream out(damaged, std::ios::binary | std::ios::trunc);
            out << "SQLite format 3\nbut not really\n";
        }
        const bool existed = QFileInfo::exists(untouched);
        const std::string before = existed ? fileBytes(untouched.toStdString()) : std::string();
        const auto r = runCli(args);
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(error), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1); // one line, before anything ran
        QCOMPARE(QFileInfo::exists(untouched), existed);
        if (existed)
            QCOMPARE(fileBytes(untouched.toStdString()), before);
    }

    // A session file is data: collect and rerun show what it would run and run nothing of a
    // session recorded by another user on another host without --yes.
    void foreignSessionsRunNothing_data()
    {
        QTest::addColumn<QStringList>("args"); // SESSION and NEW are filled in
        QTest::addColumn<int>("exitCode");
        QTest::newRow("collect") << QStringList {"collect", "SESSION", "--kernel-id", "2"} << 2;
        QTest::newRow("collect --stalls --count 2")
            << QStringList {"collect", "SESSION", "--kernel-id", "1", "--stalls", "--count", "2"} << 2;
        QTest::newRow("collect --dry-run") << QStringList {"collect", "SESSION", "--kernel-id", "2", "--dry-run"} << 0;
        QTest::newRow("rerun") << QStringList {"rerun", "SESSION", "-o", "NEW"} << 2;
        QTest::newRow("rerun --dry-run") << QStringList {"rerun", "SESSION", "-o", "NEW", "--dry-run"} << 0;
    }

    void foreignSessionsRunNothing()
    {
        QFETCH(QStringList, args);
        QFETCH(int, exitCode);
        const QString tag = QString::number(qHash(QString::fromUtf8(QTest::currentDataTag())));
        const QString pwned = path("pwned-" + tag);
        const QString session = foreignSession("foreign-" + tag + ".wscope", pwned);
        const QString fresh = path("new-" + tag + ".wscope");
        args.replaceInStrings(QStringLiteral("SESSION"), session);
        args.replaceInStrings(QStringLiteral("NEW"), fresh);
        const std::string before = fileBytes(session.toStdString());
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
        // The exact program, arguments, directory and environment, first.
        const QString program = QString::fromStdString(joinCommand({"/bin/sh", "-c", "touch " + pwned.toStdString()}));
        QVERIFY2(r.out.startsWith("will run: " + program + "\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains("\nin: " + m_dir.path() + "\n"), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("\nenvironment changes: CUDA_VISIBLE_DEVICES=0\n")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("recorded by: mallory@elsewhere (not this user")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("step 1/")), qPrintable(r.out));
        if (args.front() == QLatin1String("collect")) {
            QVERIFY2(r.out.contains(QStringLiteral("profile --append ") + session), qPrintable(r.out));
            const QString skip = args.contains(QStringLiteral("2")) && !args.contains(QStringLiteral("--count"))
                ? QStringLiteral("1")
                : QStringLiteral("0");
            QVERIFY2(
                r.out.contains(QStringLiteral("--kernel-name 'regex:^A$' --launch-skip ") + skip), qPrintable(r.out));
            QCOMPARE(r.out.contains(QStringLiteral("--pc-sampling")), args.contains(QStringLiteral("--stalls")));
        }
        if (exitCode == 2) {
            QVERIFY2(r.err.contains(QStringLiteral("mallory")) && r.err.contains(QStringLiteral("elsewhere"))
                    && r.err.contains(QStringLiteral("--yes")),
                qPrintable(r.err));
        }
        QVERIFY(!QFileInfo::exists(pwned));
        QVERIFY(!QFileInfo::exists(fresh));
        QCOMPARE(fileBytes(session.toStdString()), before);
    }

    // What cannot be collected says why, with its own exit status.
    void collectRefusals_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("program");
        QTest::addColumn<qint64>("kernelId");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("captureRange"); // the trace's record.capture_range
        QTest::newRow("unknown kernel") << "trace"
                                        << "/bin/true" << qint64(99) << 3 << "no kernel launch with id 99"
                                        << "";
        QTest::newRow("kernel of a profile run") << "profile"
                                                 << "/bin/true" << qint64(1) << 3 << "not to a trace run"
                                                 << "";
        QTest::newRow("imported session") << "import"
                                          << "/bin/true" << qint64(1) << 3 << "imported"
                                          << "";
        QTest::newRow("program not here")
            << "trace"
            << "/nonexistent/bin/prog" << qint64(1) << 4 << "program not found: /nonexistent/bin/prog"
            << "";
        // Its launches were counted inside an NVTX range, which a profile run cannot select by.
        QTest::newRow("trace inside an NVTX range")
            << "trace"
            << "/bin/true" << qint64(1) << 3 << "traced only inside the NVTX range 'step'"
            << "nvtx:step";
    }

    void collectRefusals()
    {
        QFETCH(QString, kind);
        QFETCH(QString, program);
        QFETCH(qint64, kernelId);
        QFETCH(int, exitCode);
        QFETCH(QString, error);
        QFETCH(QString, captureRange);
        test::CraftedRun t;
        t.kind = kind.toStdString();
        if (!captureRange.isEmpty())
            t.options["record.capture_range"] = captureRange.toStdString();
        t.commandLine = program.toStdString();
        t.host = thisHost();
        t.user = thisUser();
        t.collectorArguments = kind == QLatin1String("profile") ? "profile --set full" : "record";
        if (kind == QLatin1String("import"))
            t.collectorArguments.clear();
        t.kernels = {"A"};
        const QString session
            = path("refused-" + QString::number(qHash(QString::fromUtf8(QTest::currentDataTag()))) + ".wscope");
        test::writeSession(session.toStdString(), test::craftedSession(t));
        const auto r = runCli({"collect", session, "--kernel-id", QString::number(kernelId), "--yes"});
        QVERIFY2(r.exitCode == exitCode, qPrintable(r.out + r.err));
        QVERIFY2(r.err.contains(error), qPrintable(r.err));
        QCOMPARE(SessionReader(session.toStdString()).readRuns().size(), size_t(1));
    }

    // A session of this user on this machine runs without --yes: collect starts this same
    // warpscope-cli as `profile --append`, whose failure here (no GPU) lands in the session.
    void collectRunsTheProfileStep()
    {
        test::CraftedRun t;
        t.commandLine = "/bin/true";
        t.cwd = m_dir.path().toStdString();
        t.host = thisHost();
        t.user = thisUser();
        t.collectorArguments = "record";
        t.kernels = {"A", "B", "A", "A"};
        const QString session = path(QStringLiteral("collect-here.wscope"));
        test::writeSession(session.toStdString(), test::craftedSession(t));
        const auto r = runCli({"collect", session, "--kernel-id", "4", "--count", "1"});
        QVERIFY2(r.err.contains(QStringLiteral("warpscope-cli collect: step 1/1: profile: profile --append ")),
            qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("warpscope-cli: progress: collect 1/1 steps")), qPrintable(r.err));
        const auto runs = SessionReader(session.toStdString()).readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].kind, std::string("profile"));
        QCOMPARE(runs[1].cwd, m_dir.path().toStdString());
        const auto args = splitCommand(option(runs[1], kCollectorArgumentsOption));
        QVERIFY(args.has_value());
        QCOMPARE(*args,
            (std::vector<std::string> {"profile", "--kernel-name", "regex:^A$", "--launch-skip", "2", "--launch-count",
                "1", "--set", "full"}));
        // Here the profile fails (no GPU, /bin/true launches nothing) and says so; on a GPU
        // machine it fails too: /bin/true makes no CUDA call.
        QCOMPARE(r.exitCode, 5);
        QVERIFY2(r.err.contains(QStringLiteral("the profile step exited with code")), qPrintable(r.err));
        QVERIFY2(option(runs[1], kRunStatusOption).starts_with("failed: "), option(runs[1], kRunStatusOption).c_str());
    }

    // Run again: NEW gets the recipe's runs and SESSION as its predecessor.
    void rerunWritesANewSessionWithItsPredecessor()
    {
        const QString session = recorded(QStringLiteral("first.wscope"), {"/bin/sh", "-c", "echo hi"});
        const QString fresh = path(QStringLiteral("second.wscope"));
        auto r = runCli({"rerun", session, "-o", fresh, "--yes"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.out + r.err));
        QVERIFY2(r.out.contains(QStringLiteral("recorded by: ") + QString::fromStdString(thisUser()) + "@"
                     + QString::fromStdString(thisHost()) + " (this user on this machine)"),
            qPrintable(r.out));
        QVERIFY2(r.err.contains(QStringLiteral("warpscope-cli rerun: step 1/1: trace: record -o ") + fresh),
            qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("warpscope-cli: progress: rerun 1/1 steps")), qPrintable(r.err));
        QVERIFY2(r.out.contains(QStringLiteral("hi\n")) || r.err.contains(QStringLiteral("hi\n")),
            qPrintable(r.out + r.err)); // the program's own output passes through (QProcess: stdout)
        const SessionReader reader(fresh.toStdString());
        QCOMPARE(reader.readRuns().size(), size_t(1));
        QCOMPARE(reader.readRuns()[0].commandLine, std::string("/bin/sh -c 'echo hi'"));
        QCOMPARE(reader.meta().at(metakey::kPredecessor), QFileInfo(session).absoluteFilePath().toStdString());
        r = runCli({"info", fresh});
        QVERIFY2(
            r.out.contains(QStringLiteral("Predecessor  ") + QFileInfo(session).absoluteFilePath()), qPrintable(r.out));

        // NEW must not be SESSION, and an existing NEW needs --force.
        const std::string before = fileBytes(fresh.toStdString());
        r = runCli({"rerun", session, "-o", session});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("must not be the one re-run")), qPrintable(r.err));
        r = runCli({"rerun", session, "-o", fresh});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QStringLiteral("--force")), qPrintable(r.err));
        QCOMPARE(fileBytes(fresh.toStdString()), before);
        r = runCli({"rerun", session, "-o", fresh, "--force"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(SessionReader(fresh.toStdString()).readRuns().size(), size_t(1));
    }
};

QTEST_GUILESS_MAIN(TestRerunCli)
#include "tst_rerun_cli.moc"
