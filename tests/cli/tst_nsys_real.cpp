// SPDX-License-Identifier: MIT
// `warpscope-cli import` of real Nsight Systems exports, then `warpscope-cli stats`, against what
// `nsys stats` printed for the same exports (issue 19 item 6). The exports and nsys's output in
// tests/fixtures/nsys/ were produced by Nsight Systems 2022.4.2.1 (Debian 12 non-free), export
// schema 3.0.0; tests/fixtures/nsys/README.md has the commands.
//
// Every report nsys printed or skipped for a fixture is a row here, compared or not:
// - compared: our CSV equals nsys's CSV byte for byte, and our table (thousands separators
//   removed) has the cells of nsys's column output;
// - both empty: nsys said SKIPPED (no such data) and our report has no rows;
// - not ours: nsys has the report and we do not; the row states why and checks that warpscope-cli
//   really refuses the report, so adding it later fails here until it is compared.

#include "clirun.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace ws::test;

namespace {

QString fixture(const QString& name)
{
    return QStringLiteral(WS_FIXTURES_DIR "/nsys/") + name;
}

QString readText(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QString::fromUtf8(f.readAll());
}

// The body of one report in nsys's default (column) output: the lines after
// "Processing [...] with [.../<report>.py]..." up to the next "Processing".
QString nsysSection(const QString& statsText, const QString& nsysReport)
{
    const QString marker = QStringLiteral("/") + nsysReport + QStringLiteral(".py]");
    const qsizetype at = statsText.indexOf(marker);
    if (at < 0)
        return {};
    const qsizetype begin = statsText.indexOf('\n', at);
    qsizetype end = statsText.indexOf(QStringLiteral("Processing ["), begin);
    if (end < 0)
        end = statsText.size();
    return statsText.mid(begin, end - begin);
}

// Data rows of a fixed-width table (ours or nsys's column format): lines after the dashed rule,
// cells split at runs of two or more spaces, thousands separators dropped from numeric cells.
QList<QStringList> tableCells(const QString& text)
{
    static const QRegularExpression gap(QStringLiteral(" {2,}"));
    static const QRegularExpression number(QStringLiteral("^-?[0-9][0-9,]*(\\.[0-9]+)?$"));
    QList<QStringList> rows;
    bool inRows = false;
    for (const QString& line : text.split('\n')) {
        const QString trimmed = line.trimmed();
        if (trimmed.startsWith(QStringLiteral("--------"))) {
            inRows = true;
            continue;
        }
        if (!inRows)
            continue;
        if (trimmed.isEmpty() || trimmed.startsWith('('))
            break;
        QStringList cells = trimmed.split(gap);
        for (QString& c : cells)
            if (number.match(c).hasMatch())
                c.remove(',');
        rows.push_back(cells);
    }
    return rows;
}

} // namespace

class TestNsysReal : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // Imports fixtures/nsys/<name>.sqlite once per test function into the scratch folder.
    QString imported(const QString& name, QString* importLog = nullptr)
    {
        const QString session = m_dir.filePath(name + QStringLiteral(".wscope"));
        if (!QFile::exists(session) || importLog) {
            QFile::remove(session);
            const CliRun r = runCli(
                {QStringLiteral("import"), fixture(name + QStringLiteral(".sqlite")), QStringLiteral("-o"), session});
            if (r.exitCode != 0)
                qWarning("import failed: %s", qPrintable(r.err));
            if (importLog)
                *importLog = r.err;
        }
        return session;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        if (!QFileInfo::exists(QStringLiteral(WS_CLI_PATH)))
            QSKIP("warpscope-cli is not built in this build directory");
    }

    // What the importer read, counted in the export's NVTX_EVENTS by event type (README):
    // 15 NvtxPushPopRange + 1 NvtxStartEndRange rows are 16 ranges; marks are not ranges.
    void importReadsTheRealExport_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("summary");
        QTest::newRow("nvtx_threads") << "nvtx_threads"
                                      << "0 kernels, 0 copies/memsets, 0 API calls, 16 ranges";
        QTest::newRow("nvtx_only") << "nvtx_only"
                                   << "0 kernels, 0 copies/memsets, 0 API calls, 16 ranges";
    }

    void importReadsTheRealExport()
    {
        QFETCH(QString, name);
        QFETCH(QString, summary);
        QString log;
        imported(name, &log);
        QVERIFY2(log.contains(summary), qPrintable(log));
    }

    void reportsMatchNsysStats_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("nsysReport"); // nsys 2022.4 names (renamed *_sum in 2023)
        QTest::addColumn<QString>("ourReport");
        QTest::addColumn<QString>("expectation"); // compared, both-empty, not-ours
        QTest::addColumn<QString>("why");
        const QString noCuda = QStringLiteral("the recording machine has no GPU: nsys traced no CUDA");
        for (const char* name : {"nvtx_threads", "nvtx_only"}) {
            const QString n = QString::fromLatin1(name);
            QTest::newRow(qPrintable(n + ":nvtxsum")) << n << "nvtxsum"
                                                      << "nvtx_sum"
                                                      << "compared" << QString();
            QTest::newRow(qPrintable(n + ":cudaapisum")) << n << "cudaapisum"
                                                         << "cuda_api_sum"
                                                         << "both-empty" << noCuda;
            QTest::newRow(qPrintable(n + ":gpukernsum")) << n << "gpukernsum"
                                                         << "cuda_gpu_kern_sum"
                                                         << "both-empty" << noCuda;
        }
        QTest::newRow("nvtx_threads:osrtsum")
            << "nvtx_threads"
            << "osrtsum"
            << "osrt_sum"
            << "not-ours"
            << "nsys's OS runtime summary (nanosleep, pthread_join, pthread_create rows in "
               "nvtx_threads_osrtsum.csv) is not compared: the importer does not read OSRT_API, a warpscope "
               "session has no OS runtime calls, and warpscope-cli has no osrt_sum report";
    }

    void reportsMatchNsysStats()
    {
        QFETCH(QString, name);
        QFETCH(QString, nsysReport);
        QFETCH(QString, ourReport);
        QFETCH(QString, expectation);
        QFETCH(QString, why);

        const QString nsysText = readText(fixture(name + QStringLiteral("_stats.txt")));
        QVERIFY2(!nsysText.isEmpty(), qPrintable(name));
        const QString section = nsysSection(nsysText, nsysReport);
        QVERIFY2(!section.isEmpty(), qPrintable(nsysReport + " is not in " + name + "_stats.txt"));
        const QString session = imported(name);

        if (expectation == QLatin1String("not-ours")) {
            qInfo("%s: %s", qPrintable(nsysReport), qPrintable(why));
            QVERIFY2(!section.contains(QStringLiteral("SKIPPED")), "nsys printed rows the test says we cannot match");
            const CliRun r = runCli({QStringLiteral("stats"), QStringLiteral("-r"), ourReport, session});
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains(QStringLiteral("unknown report '") + ourReport + '\''), qPrintable(r.err));
            return;
        }

        const CliRun csv = runCli({QStringLiteral("stats"), QStringLiteral("-r"), ourReport, QStringLiteral("-f"),
            QStringLiteral("csv"), session});
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));

        if (expectation == QLatin1String("both-empty")) {
            qInfo("%s: %s", qPrintable(nsysReport), qPrintable(why));
            QVERIFY2(section.contains(QStringLiteral("SKIPPED: ") + name + QStringLiteral(".sqlite does not contain")),
                qPrintable(section));
            // Header only: one line and its newline.
            QCOMPARE(csv.out.count('\n'), 1);
            return;
        }

        // CSV: byte for byte what `nsys stats --format csv` wrote.
        const QString golden = readText(fixture(name + QStringLiteral("_") + nsysReport + QStringLiteral(".csv")));
        QVERIFY2(!golden.isEmpty(), qPrintable(name + "_" + nsysReport + ".csv"));
        const QStringList expected = golden.split('\n');
        const QStringList actual = csv.out.split('\n');
        for (int i = 0; i < std::min(expected.size(), actual.size()); ++i)
            QCOMPARE(actual[i], expected[i]);
        QCOMPARE(actual.size(), expected.size());

        // Table: the same cells as nsys's default column output; only the thousands separators
        // we print differ.
        const CliRun table = runCli({QStringLiteral("stats"), QStringLiteral("-r"), ourReport, session});
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        const QList<QStringList> ours = tableCells(table.out);
        const QList<QStringList> theirs = tableCells(section);
        QVERIFY(!theirs.isEmpty());
        QCOMPARE(ours.size(), theirs.size());
        for (int i = 0; i < ours.size(); ++i)
            QCOMPARE(ours[i], theirs[i]);
    }
};

QTEST_GUILESS_MAIN(TestNsysReal)
#include "tst_nsys_real.moc"
