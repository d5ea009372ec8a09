// SPDX-License-Identifier: MIT
// `warpscope-cli profile --section SourceCounters` / `--pc-sampling`: the options that select PC
// sampling, what they refuse (the range profiler cannot run in the same process), and the one-line
// messages. The real CLI is run; no GPU is needed for any of these.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

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
