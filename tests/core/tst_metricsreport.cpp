// SPDX-License-Identifier: MIT
// MetricsReport (core/metrics/metricsreport.h), what `warpscope-cli metrics` prints, on the embedded
// H200 demo session (a trace, a --set full profile of every launch linked to it, PC sampling): the
// launches and values it lists against the session's own kernel_metric rows, the selections, the
// known-difference marks, and the details text a person reads on a GPU server.
#include "core/metrics/knowndifferences.h"
#include "core/metrics/metricsreport.h"
#include "core/store/sessionreader.h"
#include "core/util/numbertext.h"

#include <QTest>

#include <map>
#include <sstream>

using namespace ws;

namespace {

const std::string kDemo = WS_RESOURCES_DIR "/demo/h200-gemm-relu.wscope";

// The session's own values, by (kernel id, metric name): what every printed value must equal.
std::map<std::pair<int64_t, std::string>, double> storedValues(const SessionReader& reader)
{
    std::map<uint32_t, std::string> names;
    for (const MetricDef& d : reader.readMetricDefs())
        names[d.id] = d.name;
    std::map<std::pair<int64_t, std::string>, double> out;
    for (const KernelMetric& m : reader.readKernelMetrics())
        out[{m.kernelId, names[m.metricId]}] = m.value;
    return out;
}

} // namespace

class TestMetricsReport : public QObject {
    Q_OBJECT

private slots:
    // Every profiled launch, every value as stored, nothing twice.
    void everyMeasuredValueOnce()
    {
        const SessionReader reader(kDemo);
        const auto stored = storedValues(reader);
        const MetricsReport report = MetricsReport::read(reader, {});
        std::set<int64_t> launches;
        size_t values = 0;
        for (const auto& l : report.launches) {
            QVERIFY2(launches.insert(l.kernelId).second, "a launch listed twice");
            QVERIFY(!l.measurement.empty());
            for (const auto& s : l.sections) {
                for (const auto& r : s.rows) {
                    const auto it = stored.find({l.kernelId, r.name});
                    QVERIFY2(it != stored.end(), r.name.c_str());
                    QCOMPARE(r.value, it->second);
                    ++values;
                }
            }
        }
        QCOMPARE(values, stored.size());
        // The profile run's 50 launches and the PC-sampling run's one (its sample totals), which is
        // linked to the same traced launch as profiled launch 53: both are listed.
        QCOMPARE(launches.size(), size_t(51));
    }

    // What a selection keeps: a launch by its own id or by the traced launch it is linked to, a
    // kernel by name or regex, sections by id.
    void selections_data()
    {
        QTest::addColumn<QString>("kernelName");
        QTest::addColumn<QList<qint64>>("ids");
        QTest::addColumn<QStringList>("sections");
        QTest::addColumn<int>("launches");
        QTest::addColumn<QStringList>("sectionsShown");
        QTest::newRow("the profiled launch's id") << "" << QList<qint64> {61} << QStringList {} << 1 << QStringList {};
        QTest::newRow("the traced launch's id") << "" << QList<qint64> {11} << QStringList {} << 1 << QStringList {};
        QTest::newRow("two ids") << "" << QList<qint64> {11, 54} << QStringList {} << 2 << QStringList {};
        QTest::newRow("short name") << "fill_kernel" << QList<qint64> {} << QStringList {} << 2 << QStringList {};
        QTest::newRow("regex") << "regex:^nvjet" << QList<qint64> {} << QStringList {} << 25 << QStringList {};
        QTest::newRow("a traced launch measured twice (profile, PC sampling)")
            << "" << QList<qint64> {3} << QStringList {} << 2 << QStringList {};
        QTest::newRow("no such kernel") << "gemm" << QList<qint64> {} << QStringList {} << 0 << QStringList {};
        QTest::newRow("one section") << "" << QList<qint64> {61} << QStringList {"Occupancy"} << 1
                                     << QStringList {"Occupancy"};
        QTest::newRow("two sections, file order")
            << "" << QList<qint64> {61} << QStringList {"Occupancy", "SpeedOfLight"} << 1
            << QStringList {"SpeedOfLight", "Occupancy"};
        QTest::newRow("no such section") << "" << QList<qint64> {} << QStringList {"Nope"} << 0 << QStringList {};
    }
    void selections()
    {
        QFETCH(QString, kernelName);
        QFETCH(QList<qint64>, ids);
        QFETCH(QStringList, sections);
        QFETCH(int, launches);
        QFETCH(QStringList, sectionsShown);
        MetricsReport::Selection selection;
        selection.kernelName = kernelName.toStdString();
        for (qint64 id : ids)
            selection.kernelIds.push_back(id);
        for (const QString& s : sections)
            selection.sections.push_back(s.toStdString());
        const MetricsReport report = MetricsReport::read(SessionReader(kDemo), selection);
        QCOMPARE(int(report.launches.size()), launches);
        if (!sectionsShown.isEmpty()) {
            QStringList shown;
            for (const auto& s : report.launches.front().sections)
                shown << QString::fromStdString(s.id);
            QCOMPARE(shown, sectionsShown);
        }
    }

    // Each launch says what measured it: the PC-sampling launch is not described as a replay.
    void eachLaunchSaysWhatMeasuredIt()
    {
        const MetricsReport report = MetricsReport::read(SessionReader(kDemo), {"", {3}, {}});
        QCOMPARE(report.launches.size(), size_t(2));
        QCOMPARE(report.launches[0].kernelId, int64_t(53));
        QCOMPARE(report.launches[0].runId, uint32_t(2));
        QVERIFY2(report.launches[0].measurement.find("26 replay passes") != std::string::npos,
            report.launches[0].measurement.c_str());
        QCOMPARE(report.launches[1].kernelId, int64_t(101));
        QCOMPARE(report.launches[1].runId, uint32_t(3));
        QCOMPARE(report.launches[1].tracedKernelId, int64_t(3));
        QVERIFY2(report.launches[1].measurement.find("PC sampling") != std::string::npos,
            report.launches[1].measurement.c_str());
    }

    // The known difference of the run's cache control marks the value; another cache control's
    // does not.
    void knownDifferencesOfTheRunsCacheControl()
    {
        const KnownDifferences differences
            = KnownDifferences::parse("# cache\tmetric\tkernels\tof\tmedian %\tmax %\tcause\n"
                                      "all\tgpc__cycles_elapsed.max\t3\t24\t1.5\t2.5\tplanted for the test\n"
                                      "none\tgpu__time_duration.sum\t5\t24\t2\t4\tonly under none\n",
                "test.tsv");
        const MetricsReport report
            = MetricsReport::read(SessionReader(kDemo), {"", {61}, {"SpeedOfLight"}}, &differences);
        QCOMPARE(report.launches.size(), size_t(1));
        int marked = 0;
        for (const auto& r : report.launches.front().sections.front().rows) {
            if (r.name == "gpc__cycles_elapsed.max")
                QVERIFY2(
                    r.knownDifference.find("planted for the test") != std::string::npos, r.knownDifference.c_str());
            else
                QVERIFY2(r.knownDifference.empty(), r.name.c_str());
            marked += r.knownDifference.empty() ? 0 : 1;
        }
        QCOMPARE(marked, 1);
        std::ostringstream text;
        report.writeDetails(text);
        const QString details = QString::fromStdString(text.str());
        QVERIFY2(details.contains(QStringLiteral("≈ 285,753")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("≈ Elapsed Cycles: Differs from ncu (--cache-control all)")),
            qPrintable(details));
    }

    // What a person reads: the launch, where it was traced, how it was measured; values rounded
    // for reading, while the table keeps every digit.
    void detailsAndTable()
    {
        const MetricsReport report = MetricsReport::read(SessionReader(kDemo), {"", {61}, {"SpeedOfLight"}});
        std::ostringstream text;
        report.writeDetails(text);
        const QString details = QString::fromStdString(text.str());
        QVERIFY2(details.startsWith(QStringLiteral("  nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT\n")),
            qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("kernel id 61, run 2, the traced launch 11, grid (2, 66, 1), block "
                                                 "(384, 1, 1), cluster (2, 1, 1), 168 registers/thread")),
            qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("26 replay passes each; cache control all")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Section: SpeedOfLight")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral("Elapsed Cycles")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral(" 285,753\n")), qPrintable(details));
        QVERIFY2(details.contains(QStringLiteral(" 90.26\n")), qPrintable(details)); // Compute (SM) Throughput
        QVERIFY2(!details.contains(QStringLiteral("≈")), qPrintable(details));       // no differences given

        const ReportTable t = report.table();
        QCOMPARE(t.columns.size(), size_t(10));
        QVERIFY(!t.rows.empty());
        const int value = t.columnIndex("Value");
        const int name = t.columnIndex("Name");
        const int traced = t.columnIndex("Traced Kernel ID");
        for (const auto& row : t.rows) {
            QCOMPARE(std::get<int64_t>(row[size_t(traced)]), int64_t(11));
            if (std::get<std::string>(row[size_t(name)]) == "sm__throughput.avg.pct_of_peak_sustained_elapsed")
                QCOMPARE(QString::fromStdString(std::get<std::string>(row[size_t(value)])),
                    QString::fromStdString(shortestText(report.launches[0].sections[0].rows[0].value)));
        }
    }
};

QTEST_APPLESS_MAIN(TestMetricsReport)
#include "tst_metricsreport.moc"
