// SPDX-License-Identifier: MIT
// What "Run again" and "profile this kernel" execute, read from a session's run rows: shell
// words round-trip, the recipe of the committed H200 three-run session, runs that cannot be
// repeated are named with the reason; a profile made with --launch-skip links to the traced
// launch it measured (or to none when that is ambiguous); appending a run replaces the file only
// when complete and never touches a missing or damaged one.
#include "craftedsession.h"

#include "core/store/runrecipe.h"
#include "core/store/sessionappend.h"
#include "core/store/sessionerror.h"
#include "core/store/sessionmerge.h"
#include "core/store/sessionreader.h"
#include "core/util/shellwords.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace ws;

Q_DECLARE_METATYPE(std::vector<std::string>)

namespace {

std::string fixture(const char* relative)
{
    return std::string(WS_FIXTURES_DIR) + "/" + relative;
}

std::string fileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The trace of one process: five launches of A between launches of B when `withB`.
test::CraftedRun traceRun()
{
    test::CraftedRun t;
    t.kernels = {"A", "B", "A", "A", "B", "A", "A"}; // A launches: ids 1, 3, 4, 6, 7
    t.collectorArguments = "record";
    return t;
}

test::CraftedRun profileRun(const std::string& collectorArguments, std::vector<std::string> kernels)
{
    test::CraftedRun p;
    p.kind = "profile";
    p.collectorArguments = collectorArguments;
    p.kernels = std::move(kernels);
    p.pid = 200; // another run of the same program: another pid, same process name
    return p;
}

} // namespace

class TestRunRecipe : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void splitCommandRoundTrips_data()
    {
        QTest::addColumn<std::vector<std::string>>("argv");
        QTest::newRow("plain") << std::vector<std::string> {"/bin/prog", "--iters", "20"};
        QTest::newRow("empty argument") << std::vector<std::string> {"prog", "", "x"};
        QTest::newRow("spaces") << std::vector<std::string> {"sh", "-c", "echo a  b"};
        QTest::newRow("single quotes") << std::vector<std::string> {"echo", "it's", "'", "''"};
        QTest::newRow("double quotes") << std::vector<std::string> {"echo", "\"a\"", "say \"hi\""};
        QTest::newRow("dollar and backquote") << std::vector<std::string> {"echo", "$HOME", "${X:-y}", "`id`", "$(id)"};
        QTest::newRow("backslashes") << std::vector<std::string> {"echo", "a\\b", "\\", "\\\\", "end\\"};
        QTest::newRow("newline and tab") << std::vector<std::string> {"echo", "a\nb", "c\td"};
        QTest::newRow("shell syntax") << std::vector<std::string> {"echo", "a;b", "c|d", "e&f", ">g", "*", "~", "#h"};
        QTest::newRow("unicode") << std::vector<std::string> {"echo", "größe", "日本語", "emoji 🚀"};
        QTest::newRow("regex filter") << std::vector<std::string> {"profile", "--kernel-name", "regex:^_Z4gemm\\$v$"};
    }

    void splitCommandRoundTrips()
    {
        QFETCH(std::vector<std::string>, argv);
        const auto back = splitCommand(joinCommand(argv));
        QVERIFY(back.has_value());
        QCOMPARE(*back, argv);
    }

    void splitCommandReadsShellSyntax_data()
    {
        QTest::addColumn<QString>("line");
        QTest::addColumn<std::vector<std::string>>("words");
        QTest::newRow("double-quoted escapes")
            << "echo \"a\\\"b\" \"\\$x\" \"c\\\\d\"" << std::vector<std::string> {"echo", "a\"b", "$x", "c\\d"};
        QTest::newRow("backslash outside quotes") << "a\\ b c" << std::vector<std::string> {"a b", "c"};
        QTest::newRow("adjacent quotes join") << "'a'\"b\"c" << std::vector<std::string> {"abc"};
        QTest::newRow("blanks") << "  a \t b  " << std::vector<std::string> {"a", "b"};
    }

    void splitCommandReadsShellSyntax()
    {
        QFETCH(QString, line);
        QFETCH(std::vector<std::string>, words);
        const auto got = splitCommand(line.toStdString());
        QVERIFY(got.has_value());
        QCOMPARE(*got, words);
    }

    void unterminatedIsRefused_data()
    {
        QTest::addColumn<QString>("line");
        QTest::newRow("single quote") << "echo 'abc";
        QTest::newRow("double quote") << "echo \"abc";
        QTest::newRow("trailing backslash") << "echo abc\\";
        QTest::newRow("quote in quotes") << "echo 'it'\\''s";
    }

    void unterminatedIsRefused()
    {
        QFETCH(QString, line);
        QVERIFY(!splitCommand(line.toStdString()).has_value());
    }

    // The committed H200 session: trace, --set full profile and PC sampling of one program.
    void recipeOfTheH200Session()
    {
        const SessionReader reader(fixture("multirun/h200-gemm-relu-3runs.wscope"));
        const RunRecipe recipe = recipeOf(reader.readRuns());
        QVERIFY(recipe.runnable());
        QCOMPARE(joinCommand(recipe.command),
            std::string("/work/main/build/gpu/bin/ws-example-gemm-relu --warmup 3 --iters 20"));
        QCOMPARE(recipe.cwd, std::string("/work/main"));
        QCOMPARE(recipe.steps.size(), size_t(3));
        QCOMPARE(recipe.steps[0].kind, std::string("trace"));
        QCOMPARE(recipe.steps[1].kind, std::string("profile"));
        QCOMPARE(recipe.steps[2].kind, std::string("pc-sampling"));
        QCOMPARE(recipe.steps[0].arguments.front(), std::string("record"));
        QCOMPARE(recipe.steps[1].arguments.front(), std::string("profile"));
        QVERIFY(std::find(recipe.steps[2].arguments.begin(), recipe.steps[2].arguments.end(), "--pc-sampling")
            != recipe.steps[2].arguments.end());
        QVERIFY(recipe.skipped.empty());
        for (const auto& [name, value] : recipe.environment)
            QVERIFY2(!isCollectorVariable(name), name.c_str());
        // The first step writes the new session, the others append to it, then the program.
        const auto args = cliArguments(recipe.steps[1], "/out/new.wscope", true, recipe.command);
        QCOMPARE(args[0], std::string("profile"));
        QCOMPARE(args[1], std::string("--append"));
        QCOMPARE(args[2], std::string("/out/new.wscope"));
        QCOMPARE(*std::next(std::find(args.begin(), args.end(), "--")), recipe.command.front());
    }

    void importRunsAreSkippedWithTheReason()
    {
        test::CraftedRun imported;
        imported.kind = "import";
        imported.commandLine.clear();
        SessionData data = mergeSessions(test::craftedSession(traceRun()), test::craftedSession(imported));
        const RunRecipe recipe = recipeOf(data.runs);
        QCOMPARE(recipe.steps.size(), size_t(1));
        QCOMPARE(recipe.skipped.size(), size_t(1));
        QVERIFY2(QString::fromStdString(recipe.skipped[0]).contains("run 2 (import)"), recipe.skipped[0].c_str());
        QVERIFY2(QString::fromStdString(recipe.skipped[0]).contains("imported"), recipe.skipped[0].c_str());

        // A session that is only an import has nothing to run.
        const RunRecipe onlyImport = recipeOf(test::craftedSession(imported).runs);
        QVERIFY(!onlyImport.runnable());
        QCOMPARE(onlyImport.skipped.size(), size_t(1));
    }

    // What re-running changes: recorded variables that differ from (or are missing in) the
    // environment the steps inherit; collector-owned variables are never part of a recipe.
    void environmentChangesAreWhatDiffers()
    {
        RunInfo run;
        run.kind = "trace";
        run.commandLine = "/bin/true";
        run.environmentJson
            = R"({"CUDA_VISIBLE_DEVICES":"1","CUDA_HOME":"/usr/local/cuda","NCCL_DEBUG":"INFO","WS_TRACE":"cuda"})";
        const RunRecipe recipe = recipeOf({run});
        QCOMPARE(recipe.environment.count("WS_TRACE"), size_t(0));
        const std::map<std::string, std::string> here {{"CUDA_VISIBLE_DEVICES", "0"}, {"CUDA_HOME", "/usr/local/cuda"}};
        const auto changes = environmentChanges(recipe, [&](const std::string& name) -> std::optional<std::string> {
            const auto it = here.find(name);
            return it == here.end() ? std::nullopt : std::optional<std::string>(it->second);
        });
        const std::map<std::string, std::string> expected {{"CUDA_VISIBLE_DEVICES", "1"}, {"NCCL_DEBUG", "INFO"}};
        QCOMPARE(changes, expected);
    }

    // A trace of A,B,A,A,B,A,A (A launches 1, 3, 4, 6, 7) and one profile run of the same
    // program: which traced launches the profiled ones link to.
    void launchSkipLinksTheMeasuredLaunch_data()
    {
        QTest::addColumn<QString>("collectorArguments");
        QTest::addColumn<QString>("oldSkipOption");
        QTest::addColumn<std::vector<std::string>>("profiled");
        QTest::addColumn<QList<qint64>>("tracedLinks"); // traced id per profiled launch, in order
        QTest::addColumn<QString>("warning");           // in the first warning; "" = none
        QTest::addColumn<QString>("traceCaptureRange");
        const auto exact = [](const char* extra) {
            return QStringLiteral("profile --set full --kernel-name 'regex:^A$' ") + QLatin1String(extra);
        };
        QTest::newRow("skip 2 count 1: the third A") << exact("--launch-skip 2 --launch-count 1") << QString()
                                                     << std::vector<std::string> {"A"} << QList<qint64> {4} << ""
                                                     << "";
        QTest::newRow("skip 0: the first A")
            << exact("--launch-count 1") << QString() << std::vector<std::string> {"A"} << QList<qint64> {1} << ""
            << "";
        QTest::newRow("skip 1 count 3") << exact("--launch-skip 1 --launch-count 3") << QString()
                                        << std::vector<std::string> {"A", "A", "A"} << QList<qint64> {3, 4, 6} << ""
                                        << "";
        QTest::newRow("skip=4 spelled with =")
            << exact("--launch-skip=4") << QString() << std::vector<std::string> {"A"} << QList<qint64> {7} << ""
            << "";
        QTest::newRow("skip past the trace")
            << exact("--launch-skip 5") << QString() << std::vector<std::string> {"A"} << QList<qint64> {} << ""
            << "";
        QTest::newRow("older run: profile.launch_skip option")
            << QString() << QStringLiteral("3") << std::vector<std::string> {"A"} << QList<qint64> {6} << ""
            << "";
        QTest::newRow("skip 0, two kernels: per-name ordinals")
            << QStringLiteral("profile --set full") << QString() << std::vector<std::string> {"A", "B", "A"}
            << QList<qint64> {1, 2, 3} << ""
            << "";
        QTest::newRow("skip 2, two kernels: ambiguous, none linked")
            << QStringLiteral("profile --kernel-name 'regex:A|B' --launch-skip 2") << QString()
            << std::vector<std::string> {"A", "B", "A"} << QList<qint64> {}
            << "--launch-skip 2 and profiled several kernels"
            << "";
        // Ordinals compare only when both runs started counting at the same place.
        QTest::newRow("both from cudaProfilerStart")
            << exact("--launch-skip 2 --launch-count 1 --capture-range cudaProfilerApi") << QString()
            << std::vector<std::string> {"A"} << QList<qint64> {4} << ""
            << "cudaProfilerApi";
        QTest::newRow("trace from cudaProfilerStart, profile from the start")
            << exact("--launch-count 1") << QString() << std::vector<std::string> {"A"} << QList<qint64> {}
            << "run 2 (profile) counted launches from the program's start, run 1 (trace) from cudaProfilerStart"
            << "cudaProfilerApi";
        QTest::newRow("trace inside an NVTX range")
            << exact("--launch-count 1 --capture-range cudaProfilerApi") << QString() << std::vector<std::string> {"A"}
            << QList<qint64> {} << "counted launches from cudaProfilerStart, run 1 (trace) from the NVTX range 'step'"
            << "nvtx:step";
    }

    void launchSkipLinksTheMeasuredLaunch()
    {
        QFETCH(QString, collectorArguments);
        QFETCH(QString, oldSkipOption);
        QFETCH(std::vector<std::string>, profiled);
        QFETCH(QList<qint64>, tracedLinks);
        QFETCH(QString, warning);
        QFETCH(QString, traceCaptureRange);
        test::CraftedRun p = profileRun(collectorArguments.toStdString(), profiled);
        if (!oldSkipOption.isEmpty())
            p.options["profile.launch_skip"] = oldSkipOption.toStdString();
        std::vector<std::string> warnings;
        test::CraftedRun t = traceRun();
        if (!traceCaptureRange.isEmpty())
            t.options["record.capture_range"] = traceCaptureRange.toStdString();
        const SessionData merged = mergeSessions(test::craftedSession(t), test::craftedSession(p), &warnings);
        QCOMPARE(warnings.size(), size_t(warning.isEmpty() ? 0 : 1));
        if (!warning.isEmpty())
            QVERIFY2(QString::fromStdString(warnings[0]).contains(warning), warnings[0].c_str());

        // Written and read back, as the panels read them.
        const std::string path
            = m_dir
                  .filePath(QStringLiteral("%1.wscope")
                                .arg(QString::number(qHash(QString::fromUtf8(QTest::currentDataTag())))))
                  .toStdString();
        test::writeSession(path, merged);
        const std::vector<KernelLink> links = SessionReader(path).readKernelLinks();
        QList<qint64> traced;
        const int64_t firstProfiled = 8; // the profile's launches follow the trace's 7
        for (size_t i = 0; i < profiled.size(); ++i) {
            const auto it = std::find_if(links.begin(), links.end(),
                [&](const KernelLink& l) { return l.kernelId == firstProfiled + static_cast<int64_t>(i); });
            if (it != links.end())
                traced << it->traceKernelId;
        }
        QCOMPARE(traced, tracedLinks);
        QCOMPARE(links.size(), static_cast<size_t>(tracedLinks.size()));
    }

    // The launch's ordinal counts the trace's launches only, so the profile step selects it the
    // same way: from cudaProfilerStart when the trace started there, and not at all when the trace
    // started at an NVTX range (profile has no such filter).
    void kernelStepCountsLaunchesAsTheTraceDid_data()
    {
        QTest::addColumn<QString>("captureRange"); // record.capture_range; "-": not stored
        QTest::addColumn<QStringList>("extra");    // after --launch-count; empty with no step
        QTest::addColumn<QString>("whyNot");
        QTest::newRow("older trace without the option") << "-" << QStringList {} << "";
        QTest::newRow("whole run") << "none" << QStringList {} << "";
        QTest::newRow("cudaProfilerApi") << "cudaProfilerApi" << QStringList {"--capture-range", "cudaProfilerApi"}
                                         << "";
        QTest::newRow("NVTX range") << "nvtx:train step" << QStringList {}
                                    << "run 3 traced only inside the NVTX range 'train step'";
    }
    void kernelStepCountsLaunchesAsTheTraceDid()
    {
        QFETCH(QString, captureRange);
        QFETCH(QStringList, extra);
        QFETCH(QString, whyNot);
        RunInfo trace;
        trace.id = 3;
        std::map<std::string, std::string> options {{"record.trace", "cuda,nvtx"}};
        if (captureRange != QLatin1String("-"))
            options["record.capture_range"] = captureRange.toStdString();
        trace.optionsJson = store::toJsonObject(options);
        std::string why;
        const auto step = kernelStep(KernelCollection::Metrics, "_Z4gemmv", 4, 2, trace, &why);
        QCOMPARE(step.has_value(), whyNot.isEmpty());
        if (!step) {
            QVERIFY2(QString::fromStdString(why).startsWith(whyNot), why.c_str());
            return;
        }
        QStringList args;
        for (const std::string& a : step->arguments)
            args << QString::fromStdString(a);
        QCOMPARE(args,
            QStringList({"profile", "--set", "full", "--kernel-name", "regex:^_Z4gemmv$", "--launch-skip", "4",
                "--launch-count", "2"})
                + extra);
    }

    void launchSkipOfReadsTheRun_data()
    {
        QTest::addColumn<QString>("collectorArguments");
        QTest::addColumn<QString>("oldOption");
        QTest::addColumn<qint64>("skip");
        QTest::newRow("none") << QString() << QString() << qint64(0);
        QTest::newRow("arguments") << "profile --launch-skip 7" << QString() << qint64(7);
        QTest::newRow("arguments win over the option") << "profile --launch-skip 2"
                                                       << "9" << qint64(2);
        QTest::newRow("arguments without skip") << "profile --set full"
                                                << "9" << qint64(0);
        QTest::newRow("option") << QString() << "5" << qint64(5);
        QTest::newRow("not a number") << "profile --launch-skip x" << QString() << qint64(0);
    }

    void launchSkipOfReadsTheRun()
    {
        QFETCH(QString, collectorArguments);
        QFETCH(QString, oldOption);
        QFETCH(qint64, skip);
        test::CraftedRun p = profileRun(collectorArguments.toStdString(), {});
        if (!oldOption.isEmpty())
            p.options["profile.launch_skip"] = oldOption.toStdString();
        QCOMPARE(launchSkipOf(test::craftedSession(p).runs.at(0)), skip);
    }

    void appendRunAddsOneRun()
    {
        const std::string path = m_dir.filePath(QStringLiteral("append.wscope")).toStdString();
        test::writeSession(path, test::craftedSession(traceRun()));
        const AppendResult r = appendRun(path,
            test::craftedSession(profileRun("profile --kernel-name 'regex:^A$' --launch-skip 2", {"A"})),
            [](SessionWriter& w) { attachLaneCache(w); });
        QCOMPARE(r.runId, 2u);
        QCOMPARE(r.runs, size_t(2));
        QCOMPARE(r.links, size_t(1));
        const SessionReader reader(path);
        const auto runs = reader.readRuns();
        QCOMPARE(runs.size(), size_t(2));
        QCOMPARE(runs[1].kind, std::string("profile"));
        QCOMPARE(reader.readKernelLinks().at(0), (KernelLink {8, 4}));
        // Nothing left beside it.
        int files = 0;
        for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(m_dir.path().toStdString()))
            ++files;
        QVERIFY(files >= 1);
        QVERIFY(!std::filesystem::exists(path + ".tmp-" + std::to_string(::getpid())));
    }

    // Several appends at once (two kernels collected together) take turns: none is lost.
    void concurrentAppendsKeepEveryRun()
    {
        const std::string path = m_dir.filePath(QStringLiteral("concurrent.wscope")).toStdString();
        test::writeSession(path, test::craftedSession(traceRun()));
        constexpr int kAppends = 6;
        std::vector<std::thread> threads;
        std::atomic<int> failures = 0;
        for (int i = 0; i < kAppends; ++i) {
            threads.emplace_back([&, i] {
                try {
                    appendRun(path,
                        test::craftedSession(profileRun(
                            "profile --kernel-name 'regex:^A$' --launch-skip " + std::to_string(i % 5), {"A"})));
                } catch (...) {
                    ++failures;
                }
            });
        }
        for (auto& t : threads)
            t.join();
        QCOMPARE(failures.load(), 0);
        QCOMPARE(SessionReader(path).readRuns().size(), size_t(1 + kAppends));
        QCOMPARE(SessionReader(path).readKernelLinks().size(), size_t(kAppends));
    }

    void appendRefusesMissingAndDamagedSessions()
    {
        const std::string missing = m_dir.filePath(QStringLiteral("missing.wscope")).toStdString();
        QVERIFY_THROWS_EXCEPTION(SessionError, checkAppendable(missing));
        QVERIFY_THROWS_EXCEPTION(SessionError, appendRun(missing, test::craftedSession(traceRun())));
        QVERIFY(!std::filesystem::exists(missing));

        const std::string damaged = m_dir.filePath(QStringLiteral("damaged.wscope")).toStdString();
        {
            std::ofstream out(damaged, std::ios::binary);
            out << "not a session at all\n";
        }
        const std::string before = fileBytes(damaged);
        try {
            appendRun(damaged, test::craftedSession(traceRun()));
            QFAIL("appended to a damaged file");
        } catch (const SessionError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QString::fromStdString(damaged)), e.what());
        }
        QCOMPARE(fileBytes(damaged), before);
    }
};

QTEST_GUILESS_MAIN(TestRunRecipe)
#include "tst_runrecipe.moc"
