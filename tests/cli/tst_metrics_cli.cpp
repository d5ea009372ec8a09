// SPDX-License-Identifier: MIT
// `warpscope-cli metrics`: a profile's values read where it was taken (a GPU server without the
// app), on the embedded H200 demo session. The report itself is tests/core/tst_metricsreport.
#include "clirun.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

namespace {

using ws::test::runCli;

const QString kDemo = QStringLiteral(WS_RESOURCES_DIR "/demo/h200-gemm-relu.wscope");
// A bench session: no kernel was profiled in it.
const QString kNoMetrics = QStringLiteral(WS_FIXTURES_DIR "/compare/bench-gemm-a.wscope");

} // namespace

class TestMetricsCli : public QObject {
    Q_OBJECT

private slots:
    void detailsOfOneLaunch()
    {
        const auto r = runCli({"metrics", kDemo, "--kernel-id", "11", "--section", "SpeedOfLight"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(
            r.out.startsWith(QStringLiteral("  nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT\n")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("kernel id 61, run 2, the traced launch 11")), qPrintable(r.out));
        QVERIFY2(r.out.contains(QStringLiteral("Section: SpeedOfLight")), qPrintable(r.out));
        QVERIFY2(!r.out.contains(QStringLiteral("Section: Occupancy")), qPrintable(r.out));
        // The installed (here: source tree's) known differences mark values and explain them.
        QVERIFY2(r.out.contains(QStringLiteral("≈ L2 Cache Throughput: Differs from ncu (--cache-control all)")),
            qPrintable(r.out));
    }

    void csvAndJsonRows()
    {
        const auto csv = runCli({"metrics", kDemo, "-k", "regex:^nvjet", "--section", "Occupancy", "-f", "csv"});
        QVERIFY2(csv.exitCode == 0, qPrintable(csv.err));
        const QStringList lines = csv.out.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.value(0),
            QStringLiteral("Kernel ID,Run,Traced Kernel ID,Kernel,Section,Metric,Name,Unit,Value,Known Difference"));
        QCOMPARE(lines.size(), 1 + 24 * 9); // 24 profiled GEMM launches x the section's 9 metrics
        QVERIFY2(lines.value(1).startsWith(QStringLiteral("53,2,3,nvjet_sm90")), qPrintable(lines.value(1)));

        const auto json = runCli({"metrics", kDemo, "--kernel-id", "61", "--section", "Occupancy", "-f", "json"});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonArray rows = QJsonDocument::fromJson(json.out.toUtf8()).array();
        QCOMPARE(rows.size(), 9);
        QCOMPARE(rows[0].toObject().value(QStringLiteral("Kernel ID")).toInteger(), qint64(61));
        QCOMPARE(rows[0].toObject().value(QStringLiteral("Section")).toString(), QStringLiteral("Occupancy"));
    }

    // Nothing to print, or a selection that cannot be read: a message naming the file or option,
    // and a non-zero exit.
    void refusals_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("session without metrics")
            << QStringList {"metrics", kNoMetrics} << kNoMetrics + ": no profiled launch";
        QTest::newRow("nothing selected")
            << QStringList {"metrics", kDemo, "-k", "no_such_kernel"} << "no profiled launch matched";
        QTest::newRow("bad regex") << QStringList {"metrics", kDemo, "-k", "regex:(unclosed"}
                                   << "--kernel-name regex:(unclosed: not a regular expression";
        QTest::newRow("bad format") << QStringList {"metrics", kDemo, "-f", "xml"} << "unknown format 'xml'";
        QTest::newRow("missing file") << QStringList {"metrics", "/no/such.wscope"} << "/no/such.wscope";
    }
    void refusals()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const auto r = runCli(args);
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestMetricsCli)
#include "tst_metrics_cli.moc"
