// SPDX-License-Identifier: MIT
// The real warpscope-cli (WS_CLI_PATH) run with QProcess: help of every command, the
// synth -> info -> stats -> export chain on a synthetic session, and every bad-input case
// exiting non-zero with one line "warpscope-cli <cmd>: <file>: <reason>".
#include "clirun.h"
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

using Run = ws::test::CliRun;

Run cli(const QStringList& args)
{
    return ws::test::runCli(args);
}

QStringList lines(const QString& text)
{
    return text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

// Sum of one integer column of a CSV report (no quoted commas in the columns summed).
qint64 columnSum(const QString& csv, const QString& header)
{
    const QStringList rows = lines(csv);
    const int col = int(rows.value(0).split(QLatin1Char(',')).indexOf(header));
    if (col < 0)
        return -1;
    qint64 sum = 0;
    for (int i = 1; i < rows.size(); ++i)
        sum += rows[i].split(QLatin1Char(',')).value(col).toLongLong();
    return sum;
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_session;
    QString m_textFile;
    QString m_regularFile;

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_session = path(QStringLiteral("synth.wscope"));
        const Run r = cli({"synth", "--events", "3000", "--seed", "7", "-o", m_session});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY(QFileInfo(m_session).size() > 0);
        m_textFile = path(QStringLiteral("notes.txt"));
        QFile text(m_textFile);
        QVERIFY(text.open(QIODevice::WriteOnly));
        text.write("this is a text file, not a session\n");
        text.close();
        m_regularFile = m_textFile; // a file where a directory is needed
    }

    void helpOfEveryCommand_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("top") << QStringList {"--help"};
        for (const char* cmd : {"info", "stats", "export", "synth"})
            QTest::newRow(cmd) << QStringList {QString::fromLatin1(cmd), "--help"};
    }
    void helpOfEveryCommand()
    {
        QFETCH(QStringList, args);
        const Run r = cli(args);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains(QLatin1String("Usage")));
    }

    void helpDocumentsFormats()
    {
        const Run stats = cli({"stats", "--help"});
        for (const char* report : {"cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "cuda_kern_exec_trace"})
            QVERIFY(stats.out.contains(QLatin1String(report)));
        const Run exp = cli({"export", "--help"});
        QVERIFY(exp.out.contains(QLatin1String("chrome-json")));
        QVERIFY(exp.out.contains(QLatin1String("One CSV per table")));
    }

    void info()
    {
        const Run r = cli({"info", m_session});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* part :
            {"Time span", "Environment", "Devices", "Processes", "exit code", "Tables", "kernel", "synthetic"})
            QVERIFY2(r.out.contains(QLatin1String(part)), part);
    }

    void statsEveryReportAndFormat_data()
    {
        QTest::addColumn<QString>("report");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("firstCsvColumn");
        const std::pair<const char*, const char*> reports[] = {{"cuda_gpu_kern_sum", "Time (%)"},
            {"cuda_api_sum", "Time (%)"}, {"nvtx_sum", "Time (%)"}, {"cuda_kern_exec_trace", "API Start (ns)"},
            {"nvtx_gpu_proj_sum", "Range"}, {"gpu_idle_gaps", "Start (ns)"}};
        for (const auto& [report, column] : reports)
            for (const char* format : {"table", "csv", "json"})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(report, format)))
                    << QString::fromLatin1(report) << QString::fromLatin1(format) << QString::fromLatin1(column);
    }
    void statsEveryReportAndFormat()
    {
        QFETCH(QString, report);
        QFETCH(QString, format);
        QFETCH(QString, firstCsvColumn);
        const Run r = cli({"stats", m_session, "--report", report, "--format", format});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        if (format == QLatin1String("json")) {
            QJsonParseError error;
            const QJsonDocument doc = QJsonDocument::fromJson(r.out.toUtf8(), &error);
            QCOMPARE(error.error, QJsonParseError::NoError);
            QVERIFY(doc.isArray());
            QVERIFY(!doc.array().isEmpty());
            QVERIFY(doc.array().first().isObject());
        } else if (format == QLatin1String("csv")) {
            const QString header = lines(r.out).value(0);
            QVERIFY2(header.startsWith(firstCsvColumn), qPrintable(header));
            QVERIFY(lines(r.out).size() > 1);
        } else {
            QVERIFY(r.out.startsWith(QLatin1String("** ")));
            QVERIFY(r.out.contains(QStringLiteral("(%1)").arg(report)));
        }
    }

    void statsAgreeWithExportedTables()
    {
        // Instances of cuda_gpu_kern_sum add up to the kernel rows; the exec trace lists each
        // kernel with a launch record once, so it cannot exceed them.
        const Run kern = cli({"stats", m_session, "--report", "cuda_gpu_kern_sum", "--format", "csv"});
        const Run table = cli({"export", m_session, "--format", "csv", "--table", "kernel", "-o", "-"});
        const Run trace = cli({"stats", m_session, "--report", "cuda_kern_exec_trace", "--format", "csv"});
        QCOMPARE(kern.exitCode, 0);
        QCOMPARE(table.exitCode, 0);
        QCOMPARE(trace.exitCode, 0);
        const qint64 kernels = lines(table.out).size() - 1;
        QVERIFY(kernels > 0);
        QCOMPARE(columnSum(kern.out, QStringLiteral("Instances")), kernels);
        QVERIFY(lines(trace.out).size() - 1 <= kernels);
        QVERIFY(lines(trace.out).size() - 1 > 0);
    }

    void statsSeveralReports()
    {
        const Run json = cli({"stats", m_session, "--report", "cuda_api_sum,nvtx_sum", "--format", "json"});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject doc = QJsonDocument::fromJson(json.out.toUtf8()).object();
        QVERIFY(doc.value(QLatin1String("cuda_api_sum")).isArray());
        QVERIFY(doc.value(QLatin1String("nvtx_sum")).isArray());

        const Run table = cli({"stats", m_session, "-r", "cuda_api_sum", "-r", "cuda_gpu_kern_sum:base"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.contains(QLatin1String("(cuda_api_sum)")));
        QVERIFY(table.out.contains(QLatin1String("(cuda_gpu_kern_sum:base)")));

        const QString prefix = path(QStringLiteral("report"));
        const Run files = cli({"stats", m_session, "-r", "cuda_api_sum", "-r", "nvtx_sum", "-f", "csv", "-o", prefix});
        QCOMPARE(files.exitCode, 0);
        QVERIFY(QFileInfo::exists(prefix + QLatin1String("_cuda_api_sum.csv")));
        QVERIFY(QFileInfo::exists(prefix + QLatin1String("_nvtx_sum.csv")));
    }

    void synthIsDeterministic()
    {
        const QString again = path(QStringLiteral("again.wscope"));
        QCOMPARE(cli({"synth", "--events", "3000", "--seed", "7", "-o", again}).exitCode, 0);
        for (const char* report : {"cuda_gpu_kern_sum", "cuda_api_sum", "nvtx_sum", "cuda_kern_exec_trace"}) {
            const Run a = cli({"stats", m_session, "-r", report, "-f", "csv"});
            const Run b = cli({"stats", again, "-r", report, "-f", "csv"});
            QCOMPARE(a.out, b.out);
        }
    }

    void exportChromeJson()
    {
        const QString out = path(QStringLiteral("trace.json"));
        const Run r = cli({"export", m_session, "--format", "chrome-json", "-o", out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray events = doc.object().value(QLatin1String("traceEvents")).toArray();
        QVERIFY(events.size() > 100);
        int flows = 0, kernels = 0;
        for (const auto& e : events) {
            const QJsonObject o = e.toObject();
            flows += o.value(QLatin1String("ph")).toString() == QLatin1String("s") ? 1 : 0;
            kernels += o.value(QLatin1String("cat")).toString() == QLatin1String("kernel") ? 1 : 0;
        }
        QVERIFY(kernels > 0);
        QVERIFY(flows >= kernels); // every synthetic kernel has its launch call (copies add more)
        QVERIFY(r.err.contains(QLatin1String("launch flows")));
    }

    void exportCsvDirectory()
    {
        const QString dir = path(QStringLiteral("csv"));
        const Run r = cli({"export", m_session, "--format", "csv", "-o", dir});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        for (const char* table : {"meta", "environment", "process", "thread", "device", "stream", "kernel", "memcpy",
                 "memset", "api_call", "nvtx_range", "nvtx_mark", "sync"})
            QVERIFY2(QFileInfo::exists(dir + QLatin1Char('/') + QLatin1String(table) + QLatin1String(".csv")), table);
        // No temporary files left behind.
        QCOMPARE(QDir(dir).entryList(QDir::Files).size(), 13);
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("named");  // the file the message must name
        QTest::addColumn<QString>("reason"); // part of the reason

        const QString missing = path(QStringLiteral("missing.wscope"));
        const QString underFile = m_regularFile + QLatin1String("/out.json");
        QTest::newRow("info missing file") << QStringList {"info", missing} << "info" << missing << "";
        QTest::newRow("info text file") << QStringList {"info", m_textFile} << "info" << m_textFile << "";
        QTest::newRow("stats missing file") << QStringList {"stats", missing} << "stats" << missing << "";
        QTest::newRow("stats text file") << QStringList {"stats", m_textFile, "-r", "cuda_api_sum"} << "stats"
                                         << m_textFile << "";
        QTest::newRow("stats wrong report")
            << QStringList {"stats", m_session, "--report", "cuda_gpu_sum"} << "stats" << m_session << "unknown report";
        QTest::newRow("stats wrong report option")
            << QStringList {"stats", m_session, "--report", "nvtx_sum:base"} << "stats" << m_session << "no options";
        QTest::newRow("stats wrong format")
            << QStringList {"stats", m_session, "--format", "xml"} << "stats" << m_session << "unknown format";
        QTest::newRow("stats unwritable output")
            << QStringList {"stats", m_session, "-r", "nvtx_sum", "-o", m_regularFile + QLatin1String("/r")} << "stats"
            << m_regularFile + QLatin1String("/r_nvtx_sum.txt") << "cannot create";
        QTest::newRow("export missing file")
            << QStringList {"export", missing, "-f", "chrome-json", "-o", path(QStringLiteral("x.json"))} << "export"
            << missing << "";
        QTest::newRow("export text file")
            << QStringList {"export", m_textFile, "-f", "csv", "-o", path(QStringLiteral("xcsv"))} << "export"
            << m_textFile << "";
        QTest::newRow("export wrong format")
            << QStringList {"export", m_session, "-f", "xml", "-o", path(QStringLiteral("x.xml"))} << "export"
            << m_session << "unknown export format";
        QTest::newRow("export wrong table")
            << QStringList {"export", m_session, "-f", "csv", "--table", "kernels", "-o", path(QStringLiteral("k.csv"))}
            << "export" << m_session << "unknown table";
        QTest::newRow("export unwritable chrome output") << QStringList {"export", m_session, "-f", "chrome-json", "-o",
            underFile} << "export" << underFile << "cannot create";
        QTest::newRow("export unwritable csv directory") << QStringList {"export", m_session, "-f", "csv", "-o",
            m_regularFile} << "export" << m_regularFile << "not a directory";
        QTest::newRow("export over the session") << QStringList {"export", m_session, "-f", "chrome-json", "-o",
            m_session} << "export" << m_session << "session being read";
        QTest::newRow("synth unwritable output")
            << QStringList {"synth", "--events", "10", "-o", m_regularFile + QLatin1String("/s.wscope")} << "synth"
            << m_regularFile + QLatin1String("/s.wscope") << "";
        QTest::newRow("synth no events") << QStringList {"synth", "--events", "0", "-o", path(QStringLiteral("z"))}
                                         << "synth" << path(QStringLiteral("z")) << "positive";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, command);
        QFETCH(QString, named);
        QFETCH(QString, reason);
        const QByteArray sessionBefore = [&] {
            QFile f(m_session);
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        }();
        const Run r = cli(args);
        QVERIFY2(r.exitCode > 0, qPrintable(QStringLiteral("exit %1").arg(r.exitCode)));
        const QStringList errLines = lines(r.err);
        QVERIFY2(errLines.size() == 1, qPrintable(r.err));
        const QString line = errLines.first();
        const QString prefix = QStringLiteral("warpscope-cli %1: %2: ").arg(command, named);
        QVERIFY2(line.startsWith(prefix), qPrintable(line));
        QVERIFY2(line.size() > prefix.size(), "no reason given");
        QVERIFY2(line.contains(reason), qPrintable(line));
        // Whatever went wrong, the session read was not touched.
        QFile f(m_session);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll() == sessionBefore);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
