// SPDX-License-Identifier: MIT
// The metric names code refers to (core/metrics/metricnames.h) against the section files the
// profiler collects from (resources/sections): every named metric is shown by some section, so
// a section edit that drops one fails here instead of leaving a panel row empty.
#include "core/metrics/metricnames.h"
#include "core/metrics/sectioncatalog.h"

#include <QtTest>

#include <set>
#include <string>

using namespace ws;

namespace {
const std::string kSections = std::string(WS_RESOURCES_DIR) + "/sections";
}

class TestMetricNames : public QObject {
    Q_OBJECT

private slots:
    void everyNamedMetricIsInASection_data()
    {
        QTest::addColumn<QString>("name");
        for (const char* name : metric::kNamed)
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    void everyNamedMetricIsInASection()
    {
        QFETCH(QString, name);
        static const SectionCatalog catalog = SectionCatalog::loadDirectory(kSections);
        const auto placement = catalog.placement(name.toStdString());
        QVERIFY2(placement && placement->section && placement->item,
            qPrintable(name + " is named in code but shown by no section in " + QString::fromStdString(kSections)));
        QCOMPARE(QString::fromStdString(placement->item->name), name);
    }

    void namesAreDistinct()
    {
        std::set<std::string> seen;
        for (const char* name : metric::kNamed)
            QVERIFY2(seen.insert(name).second, name);
    }

    // Every panel row reads what some section collects (or, from=record, what the kernel record
    // gives), so a section edit cannot leave a panel row silently empty; a derived row may read
    // the rows above it.
    void panelRowsReadCollectedMetrics()
    {
        const SectionCatalog catalog = SectionCatalog::loadDirectory(kSections);
        const std::set<std::string> recordOnly(std::begin(metric::kRecordOnly), std::end(metric::kRecordOnly));
        std::set<std::string> recordRows;
        for (const char* panel : {"launch", "throughput", "scheduler", "memory"}) {
            std::set<std::string> above;
            for (const PanelBlock* b : catalog.panelBlocks(panel)) {
                for (const PanelRow& row : b->rows) {
                    const std::vector<std::string> reads
                        = row.derived ? row.expression.inputs() : std::vector<std::string> {row.name};
                    for (const std::string& name : reads) {
                        const bool known = catalog.placement(name) || above.count(name)
                            || (row.source != PanelRow::Source::Profile && recordOnly.count(name));
                        QVERIFY2(known,
                            qPrintable(
                                QStringLiteral("%1 panel, row '%2' reads %3, which no section collects")
                                    .arg(panel, QString::fromStdString(row.label), QString::fromStdString(name))));
                    }
                    if (recordOnly.count(row.name))
                        recordRows.insert(row.name);
                    above.insert(row.name);
                }
            }
        }
        // And every record value Warpscope computes is shown somewhere.
        QCOMPARE(recordRows, recordOnly);
    }

    // What the breakdown and pipe families match is how the section files spell them.
    void familyPatternsMatchTheSections()
    {
        const SectionCatalog catalog = SectionCatalog::loadDirectory(kSections);
        const SectionDefinition* cwa = catalog.find("ComputeWorkloadAnalysis");
        QVERIFY(cwa);
        int pipeCycles = 0;
        int pipeInstructions = 0;
        for (const auto& g : cwa->groups) {
            for (const auto& item : g.items) {
                const bool elapsed = item.name.ends_with(metric::kElapsedPctSuffix);
                pipeCycles += elapsed && item.name.starts_with(metric::kPipeCyclesPrefix)
                    && item.name.find(metric::kPipeCyclesInfix) != std::string::npos;
                pipeInstructions += elapsed && item.name.starts_with(metric::kPipeInstructionsPrefix);
            }
        }
        QVERIFY(pipeCycles >= 5);
        QVERIFY(pipeInstructions >= 5);
    }
};

QTEST_GUILESS_MAIN(TestMetricNames)
#include "tst_metricnames.moc"
