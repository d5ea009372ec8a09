// SPDX-License-Identifier: MIT
// `warpscope-cli profile --section SourceCounters` / `--pc-sampling`: the options that select PC
// sampling, what they refuse (the range profiler cannot run in the same process), the one-line
// messages, and --from-raw on the raw results kept on the H200 (tests/fixtures/source/raw), which
// must give the fixture session's source tables again. The real CLI is run; no GPU is needed.
#include "core/source/sourcetables.h"
#include "core/store/sessionreader.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <tuple>

namespace {

struct CliRun {
    int exitCode = -1;
    QString out;
    QString err;
};

CliRun runCli(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(WS_CLI_PATH), args);
    if (!p.waitForFinished(120000))
        p.kill();
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
        QString::fromUtf8(p.readAllStandardError())};
}

} // namespace

class TestProfileSourceCounters : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private slots:
    void refused_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString out = m_dir.filePath("x.wscope");
        QTest::newRow("with another section")
            << QStringList {"profile", "--section", "SourceCounters", "--section", "WarpStateStats", "-o", out, "--",
                   "true"}
            << "SourceCounters (PC sampling) runs without the range profiler: profile the other metrics in a separate "
               "run";
        QTest::newRow("with a set") << QStringList {"profile", "--pc-sampling", "--set", "full", "-o", out, "--",
            "true"} << "runs without the range profiler";
        QTest::newRow("with extra metrics") << QStringList {"profile", "--pc-sampling", "--metrics",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed", "-o", out, "--", "true"}
                                            << "e.g. sm__throughput.avg.pct_of_peak_sustained_elapsed";
        QTest::newRow("interval below 5") << QStringList {"profile", "--pc-sampling", "--pc-sampling-interval", "4",
            "-o", out, "--", "true"} << "--pc-sampling-interval: Value 4 not in range 5 to 31";
        QTest::newRow("interval above 31") << QStringList {"profile", "--pc-sampling", "--pc-sampling-interval", "32",
            "-o", out, "--", "true"} << "--pc-sampling-interval: Value 32 not in range 5 to 31";
        QTest::newRow("interval without sampling") << QStringList {"profile", "--pc-sampling-interval", "9", "-o", out,
            "--", "true"} << "apply only to --section SourceCounters (or --pc-sampling)";
        QTest::newRow("source folders without sampling") << QStringList {"profile", "--source-folders", m_dir.path(),
            "-o", out, "--", "true"} << "apply only to --section SourceCounters (or --pc-sampling)";
        QTest::newRow("no start/stop without sampling") << QStringList {"profile", "--pc-sampling-no-start-stop", "-o",
            out, "--", "true"} << "apply only to --section SourceCounters (or --pc-sampling)";
        QTest::newRow("no program") << QStringList {"profile", "--pc-sampling", "-o", out} << "no program to profile";
        QTest::newRow("raw directory without results") << QStringList {"profile", "--pc-sampling", "--from-raw",
            m_dir.path(), "-o", out} << "no profile-<pid>.txt result files";
    }

    void refused()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const CliRun r = runCli(args);
        QVERIFY2(r.exitCode != 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(m_dir.filePath("x.wscope")));
    }

    void listMetricsNamesTheCollection()
    {
        for (const QStringList& args : {QStringList {"profile", "--pc-sampling", "--list-metrics"},
                 QStringList {"profile", "--section", "SourceCounters", "--list-metrics"}}) {
            const CliRun r = runCli(args);
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.out.startsWith("PC sampling: stall-reason samples per SASS instruction"), qPrintable(r.out));
            // No range-profiler counter is requested in a PC sampling run.
            QVERIFY2(!r.out.contains("gpu__time_duration.sum"), qPrintable(r.out));
        }
    }

    // The raw results of the H200 run (samples, CUPTI lines, the captured cubin and the nvdisasm
    // listing made there) rebuild the same session here, where no CUDA toolkit is needed.
    void fromRawRebuildsTheFixture()
    {
        const QString fixtures = QStringLiteral(WS_FIXTURES_DIR "/source");
        QTemporaryDir raw;
        for (const QString& f : QDir(fixtures + "/raw").entryList(QDir::Files))
            QVERIFY(QFile::copy(fixtures + "/raw/" + f, raw.filePath(f)));
        const QString out = m_dir.filePath("rebuilt.wscope");
        const CliRun r = runCli({"profile", "--from-raw", raw.path(), "--section", "SourceCounters", "--source-folders",
            QStringLiteral(WS_FIXTURES_DIR "/../../collectors/profiler/workloads"), "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("source counters:"), qPrintable(r.err));

        const ws::SessionReader a((fixtures + "/stalls-source.wscope").toStdString());
        const ws::SessionReader b(out.toStdString());
        const auto sa = a.readAll();
        const auto sb = b.readAll();
        const auto ta = ws::SourceTables::read(a);
        const auto tb = ws::SourceTables::read(b);
        QCOMPARE(tb.functions.size(), ta.functions.size());
        QCOMPARE(tb.instructions.size(), ta.instructions.size());
        QCOMPARE(tb.counters.size(), ta.counters.size());
        QCOMPARE(tb.files.size(), ta.files.size());
        for (size_t i = 0; i < ta.functions.size(); ++i) {
            QCOMPARE(sb.str(tb.functions[i].name), sa.str(ta.functions[i].name));
            QCOMPARE(tb.functions[i].cubinCrc, ta.functions[i].cubinCrc);
            QCOMPARE(tb.functions[i].disassembler, ta.functions[i].disassembler);
        }
        for (size_t i = 0; i < ta.instructions.size(); ++i) {
            const auto& x = ta.instructions[i];
            const auto& y = tb.instructions[i];
            QCOMPARE(
                std::tie(y.functionId, y.pcOffset, y.text, y.line), std::tie(x.functionId, x.pcOffset, x.text, x.line));
            QCOMPARE(QString::fromStdString(sb.str(y.file)).section('/', -1),
                QString::fromStdString(sa.str(x.file)).section('/', -1));
        }
        for (size_t i = 0; i < ta.counters.size(); ++i) {
            const auto& x = ta.counters[i];
            const auto& y = tb.counters[i];
            QCOMPARE(std::tie(y.kernelId, y.functionId, y.pcOffset, y.value),
                std::tie(x.kernelId, x.functionId, x.pcOffset, x.value));
            QCOMPARE(sb.str(y.counter), sa.str(x.counter));
        }
        // The source text read here from the repository is the text recorded on the H200.
        QCOMPARE(tb.files.front().text, ta.files.front().text);
    }

    void sectionIsListed()
    {
        const CliRun r = runCli({"profile", "--list-sections"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(
            QRegularExpression("^SourceCounters\\s+Source Counters", QRegularExpression::MultilineOption)));
    }
};

QTEST_GUILESS_MAIN(TestProfileSourceCounters)
#include "tst_profile_sourcecounters.moc"
