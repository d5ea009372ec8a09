// SPDX-License-Identifier: MIT
// collectors/launcher without a GPU: the one shell quoting of stored command lines (every case
// read back by a real /bin/sh), the TargetLauncher every collector starts its program with
// (environment ownership, exit codes, signals, refused programs), the collector-library
// search shared by record and profile, and what a ProfilePipeline asks of the profiler.
#include "core/metrics/metricnames.h"
#include "core/util/shellwords.h"
#include "launcher/profilepipeline.h"
#include "launcher/targetlauncher.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <fstream>

using namespace ws;

namespace {

// Runs `line` through /bin/sh as the arguments of a command and returns the words the shell
// made of it, NUL-separated as printf wrote them.
QByteArray shellWords(const std::string& line)
{
    // `set -- LINE` parses the line as a command's words; "$@" then keeps exactly those words.
    QProcess run;
    run.start(QStringLiteral("/bin/sh"),
        {QStringLiteral("-c"),
            QStringLiteral("set -- %1; for a in \"$@\"; do printf '%s\\0' \"$a\"; done")
                .arg(QString::fromStdString(line))});
    run.waitForFinished();
    return run.readAllStandardOutput();
}

QByteArray nulJoined(const QStringList& argv)
{
    QByteArray out;
    for (const auto& a : argv)
        out += a.toUtf8() + '\0';
    return out;
}

std::vector<std::string> toStd(const QStringList& l)
{
    std::vector<std::string> out;
    for (const auto& s : l)
        out.push_back(s.toStdString());
    return out;
}

} // namespace

class TestLauncher : public QObject {
    Q_OBJECT

private slots:
    void joinCommand_data()
    {
        QTest::addColumn<QStringList>("argv");
        QTest::addColumn<QString>("expected");
        QTest::newRow("plain words stay bare")
            << QStringList {"./gemm_relu", "--iters", "1"} << "./gemm_relu --iters 1";
        QTest::newRow("safe punctuation stays bare") << QStringList {"python3", "-m", "torch.distributed.run",
            "--nproc=2", "a,b:c@d%e+f_g/h"} << "python3 -m torch.distributed.run --nproc=2 a,b:c@d%e+f_g/h";
        QTest::newRow("empty argument") << QStringList {"prog", ""} << "prog ''";
        QTest::newRow("space") << QStringList {"sh", "-c", "exit 3"} << "sh -c 'exit 3'";
        QTest::newRow("single quote") << QStringList {"echo", "it's"} << "echo 'it'\\''s'";
        QTest::newRow("only a quote") << QStringList {"echo", "'"} << "echo ''\\'''";
        QTest::newRow("dollar and backquote") << QStringList {"echo", "$HOME", "`id`"} << "echo '$HOME' '`id`'";
        QTest::newRow("double quote and backslash") << QStringList {"echo", "a\"b", "c\\d"} << "echo 'a\"b' 'c\\d'";
        // The quoting profile used to lack: these were stored bare and a shell re-reads them
        // as operators, globs or comments.
        QTest::newRow("semicolon") << QStringList {"echo", "a;b"} << "echo 'a;b'";
        QTest::newRow("pipe and ampersand") << QStringList {"echo", "a|b", "c&d"} << "echo 'a|b' 'c&d'";
        QTest::newRow("glob") << QStringList {"ls", "*.cu", "f?", "[ab]"} << "ls '*.cu' 'f?' '[ab]'";
        QTest::newRow("comment and tilde") << QStringList {"echo", "#x", "~"} << "echo '#x' '~'";
        QTest::newRow("redirection and parentheses") << QStringList {"echo", "a>b", "(c)"} << "echo 'a>b' '(c)'";
        QTest::newRow("newline and tab") << QStringList {"echo", "a\nb", "c\td"} << "echo 'a\nb' 'c\td'";
        QTest::newRow("non-ascii") << QStringList {"echo", "größe"} << "echo 'größe'";
    }

    void joinCommand()
    {
        QFETCH(QStringList, argv);
        QFETCH(QString, expected);
        const std::string line = ws::joinCommand(toStd(argv));
        QCOMPARE(QString::fromStdString(line), expected);
        // The stored line can be pasted back: a real shell makes exactly argv of it.
        QCOMPARE(shellWords(line), nulJoined(argv));
    }

    void launcherEnvironmentIsOwned()
    {
        qputenv("WS_TEST_OWNED", "from-the-shell");
        qputenv("WS_TEST_KEPT", "kept");
        TargetLauncher t({"/bin/sh", "-c", "test \"$WS_TEST_OWNED\" = set-by-us && test \"$WS_TEST_KEPT\" = kept"});
        t.removeVariables([](std::string_view n) { return n == "WS_TEST_OWNED"; });
        auto count = [&t](std::string_view prefix) {
            return std::count_if(t.environment().begin(), t.environment().end(),
                [&](const std::string& e) { return e.starts_with(prefix); });
        };
        QCOMPARE(count("WS_TEST_OWNED="), 0);
        t.setVariable("WS_TEST_OWNED", "first");
        t.setVariable("WS_TEST_OWNED", "set-by-us");
        QCOMPARE(count("WS_TEST_OWNED="), 1);
        QCOMPARE(count("WS_TEST_KEPT="), 1);
        t.start();
        QVERIFY(t.pid() > 0);
        const ExitStatus s = t.wait();
        QCOMPARE(s.exitCode, 0);
        qunsetenv("WS_TEST_OWNED");
        qunsetenv("WS_TEST_KEPT");
    }

    void exitStatus()
    {
        TargetLauncher code({"sh", "-c", "exit 3"});
        QVERIFY(code.program().find('/') != std::string::npos); // resolved through PATH
        QCOMPARE(code.commandLine(), std::string("sh -c 'exit 3'"));
        code.start();
        const ExitStatus c = code.wait();
        QCOMPARE(c.exitCode, 3);
        QCOMPARE(c.exitSignal, 0);
        QCOMPARE(QString::fromStdString(c.describe()), QStringLiteral("exited with code 3"));

        TargetLauncher killed({"/bin/sh", "-c", "kill -SEGV $$"});
        killed.start();
        const ExitStatus k = killed.wait();
        QCOMPARE(k.exitCode, -1);
        QCOMPARE(k.exitSignal, 11);
        QVERIFY(QString::fromStdString(k.describe()).startsWith(QStringLiteral("killed by signal 11")));
    }

    void refusedPrograms_data()
    {
        QTest::addColumn<QString>("program");
        QTest::addColumn<QString>("reason");
        QTest::newRow("empty") << QString() << "no program given";
        QTest::newRow("not in PATH") << "warpscope-no-such-program-xyz"
                                     << "program not found in PATH";
        QTest::newRow("no such file") << "/nonexistent/prog"
                                      << "/nonexistent/prog: no such file";
        QTest::newRow("directory") << "/tmp"
                                   << "/tmp: is a directory";
    }

    void refusedPrograms()
    {
        QFETCH(QString, program);
        QFETCH(QString, reason);
        std::vector<std::string> argv;
        if (!program.isEmpty())
            argv.push_back(program.toStdString());
        try {
            TargetLauncher t(argv);
            QFAIL("accepted");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
        }
    }

    void collectorLibrarySearch()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string lib = dir.filePath(QStringLiteral("libwarpscope-test.so")).toStdString();
        std::ofstream(lib) << "not really a library";
        qputenv("WS_TEST_LIB", QByteArray::fromStdString(lib));
        std::string searched;
        QCOMPARE(findCollectorLibrary("libwarpscope-test.so", "WS_TEST_LIB", &searched), lib);

        // Missing everywhere: empty, and the message lists the override and the places beside
        // the executable.
        const std::string missing = dir.filePath(QStringLiteral("gone.so")).toStdString();
        qputenv("WS_TEST_LIB", QByteArray::fromStdString(missing));
        QCOMPARE(findCollectorLibrary("libwarpscope-none.so", "WS_TEST_LIB", &searched), std::string());
        QVERIFY2(searched.find(missing) == 0, searched.c_str());
        const std::string exeDir = QCoreApplication::applicationDirPath().toStdString();
        QVERIFY2(searched.find(exeDir + "/libwarpscope-none.so") != std::string::npos, searched.c_str());
        qunsetenv("WS_TEST_LIB");

        QCOMPARE(QString::fromStdString(executablePath()), QCoreApplication::applicationFilePath());
    }

    void kernelNameRegex_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("regex");
        QTest::newRow("none") << QString() << QString();
        QTest::newRow("base name") << "gemm"
                                   << "^gemm$";
        QTest::newRow("regex") << "regex:gemm|relu"
                               << "gemm|relu";
        QTest::newRow("escaped") << "a.b(c)*"
                                 << "^a\\.b\\(c\\)\\*$";
    }

    void kernelNameRegex()
    {
        QFETCH(QString, spec);
        QFETCH(QString, regex);
        QCOMPARE(QString::fromStdString(ws::kernelNameRegex(spec.toStdString())), regex);
    }

    void profileRequest()
    {
        const auto catalog = SectionCatalog::loadDirectory(std::string(WS_RESOURCES_DIR) + "/sections");
        auto has = [](const MetricRequest& r, const char* name) {
            return std::any_of(
                r.counters.begin(), r.counters.end(), [&](const auto& c) { return !c.breakdown && c.name == name; });
        };
        // ncu's default, the basic set; kernel durations come from gpu__time_duration.sum.
        ProfileOptions basic;
        const ProfilePipeline byDefault(basic, catalog);
        QVERIFY(!byDefault.sourceCounters());
        QVERIFY(has(byDefault.request(), metric::kDuration));
        QVERIFY(std::find(byDefault.request().sectionIds.begin(), byDefault.request().sectionIds.end(), "SpeedOfLight")
            != byDefault.request().sectionIds.end());
        // A section without it still gets it.
        ProfileOptions scheduler;
        scheduler.sections = {"SchedulerStats"};
        const ProfilePipeline one(scheduler, catalog);
        QVERIFY(has(one.request(), metric::kSchedulerEligibleWarps));
        QVERIFY(has(one.request(), metric::kDuration));
        // --pc-sampling alone: SourceCounters, and no range-profiler counter at all.
        ProfileOptions sampling;
        sampling.pcSampling = true;
        const ProfilePipeline pc(sampling, catalog);
        QVERIFY(pc.sourceCounters());
        QVERIFY(pc.request().counters.empty());
    }

    void profileOptionsRefused_data()
    {
        QTest::addColumn<QStringList>("sections");
        QTest::addColumn<bool>("pcSampling");
        QTest::addColumn<int>("interval");
        QTest::addColumn<QString>("reason");
        QTest::newRow("sampling with other metrics")
            << QStringList {"SpeedOfLight"} << true << 0 << "runs without the range profiler";
        QTest::newRow("interval without sampling") << QStringList {} << false << 9 << "apply only to";
        QTest::newRow("unknown section") << QStringList {"NoSuchSection"} << false << 0 << "NoSuchSection";
    }

    void profileOptionsRefused()
    {
        QFETCH(QStringList, sections);
        QFETCH(bool, pcSampling);
        QFETCH(int, interval);
        QFETCH(QString, reason);
        const auto catalog = SectionCatalog::loadDirectory(std::string(WS_RESOURCES_DIR) + "/sections");
        ProfileOptions o;
        for (const auto& s : sections)
            o.sections.push_back(s.toStdString());
        o.pcSampling = pcSampling;
        o.pcSamplingInterval = interval;
        try {
            ProfilePipeline p(o, catalog);
            QFAIL("accepted");
        } catch (const std::exception& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
        }
    }

    // Nothing to profile is refused before anything is started.
    void profileRunRefusedWithoutOutputOrProgram()
    {
        const auto catalog = SectionCatalog::loadDirectory(std::string(WS_RESOURCES_DIR) + "/sections");
        ProfileOptions o;
        ProfilePipeline noOutput(o, catalog);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, noOutput.run());
        o.output = QDir::temp().filePath(QStringLiteral("ws-never-written.wscope")).toStdString();
        ProfilePipeline noProgram(o, catalog);
        try {
            noProgram.run();
            QFAIL("ran");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("no program to profile"), e.what());
        }
        QVERIFY(!QFileInfo::exists(QString::fromStdString(o.output)));
    }
};

QTEST_GUILESS_MAIN(TestLauncher)
#include "tst_launcher.moc"
