// SPDX-License-Identifier: MIT
// core/metrics section definitions: the file format (statements, keys, errors naming the file
// and line), architecture filters, derived-metric expressions, and the shipped sections in
// resources/sections resolved into a metric request.
#include "core/metrics/archfilter.h"
#include "core/metrics/metricexpression.h"
#include "core/metrics/sectioncatalog.h"
#include "core/metrics/sectiondefinition.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <map>

using namespace ws;

namespace {

const std::string kSections = std::string(WS_RESOURCES_DIR) + "/sections";

bool requests(const MetricRequest& r, const std::string& name)
{
    return std::any_of(r.counters.begin(), r.counters.end(), [&](const auto& c) { return c.name == name; });
}

} // namespace

class TestSections : public QObject {
    Q_OBJECT

private slots:
    void archFilter_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("canonical");
        QTest::addColumn<QList<int>>("matching");
        QTest::addColumn<QList<int>>("notMatching");
        QTest::newRow("all") << "*"
                             << "*" << QList<int> {70, 90, 120} << QList<int> {};
        QTest::newRow("single") << "90"
                                << "90" << QList<int> {90} << QList<int> {89, 100};
        QTest::newRow("ranges") << "75-86, 89-100"
                                << "75-86,89-100" << QList<int> {75, 80, 86, 89, 90, 100}
                                << QList<int> {70, 87, 103, 120};
        QTest::newRow("open above") << "90-"
                                    << "90-" << QList<int> {90, 100, 120} << QList<int> {89};
        QTest::newRow("open below") << "-80"
                                    << "-80" << QList<int> {70, 80} << QList<int> {86};
    }
    void archFilter()
    {
        QFETCH(QString, spec);
        QFETCH(QString, canonical);
        QFETCH(QList<int>, matching);
        QFETCH(QList<int>, notMatching);
        const auto f = ArchFilter::parse(spec.toStdString());
        QCOMPARE(QString::fromStdString(f.toString()), canonical);
        QCOMPARE(ArchFilter::parse(f.toString()), f);
        for (int cc : matching)
            QVERIFY2(f.matches(cc / 10, cc % 10), qPrintable(QString::number(cc)));
        for (int cc : notMatching)
            QVERIFY2(!f.matches(cc / 10, cc % 10), qPrintable(QString::number(cc)));
    }

    void archFilterErrors_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("letters") << "sm90";
        QTest::newRow("descending") << "90-80";
        QTest::newRow("bare dash") << "-";
        QTest::newRow("empty item") << "80,,90";
    }
    void archFilterErrors()
    {
        QFETCH(QString, spec);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ArchFilter::parse(spec.toStdString()));
    }

    void expression_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("expected");
        QTest::addColumn<bool>("hasValue");
        QTest::newRow("fma counts twice") << "a.sum + b.sum + 2 * c.sum" << 1.0 + 2.0 + 2 * 3.0 << true;
        QTest::newRow("precedence") << "a.sum + b.sum * c.sum" << 7.0 << true;
        QTest::newRow("parentheses") << "(a.sum + b.sum) * c.sum" << 9.0 << true;
        QTest::newRow("unary minus") << "-a.sum - -b.sum" << 1.0 << true;
        QTest::newRow("division") << "c.sum / b.sum" << 1.5 << true;
        QTest::newRow("division by zero has no value") << "a.sum / zero.sum" << 0.0 << false;
        QTest::newRow("missing input has no value") << "a.sum + missing.sum" << 0.0 << false;
        QTest::newRow("exponent number") << "1e3 * a.sum" << 1000.0 << true;
    }
    void expression()
    {
        QFETCH(QString, text);
        QFETCH(double, expected);
        QFETCH(bool, hasValue);
        const std::map<std::string, double> values {{"a.sum", 1}, {"b.sum", 2}, {"c.sum", 3}, {"zero.sum", 0}};
        const auto e = MetricExpression::parse(text.toStdString());
        const auto v = e.evaluate([&](const std::string& n) -> std::optional<double> {
            auto it = values.find(n);
            return it == values.end() ? std::nullopt : std::optional<double>(it->second);
        });
        QCOMPARE(v.has_value(), hasValue);
        if (hasValue)
            QCOMPARE(*v, expected);
    }

    void expressionInputs()
    {
        const auto e = MetricExpression::parse("x.sum + 2 * y.sum / x.sum");
        QCOMPARE(e.inputs(), (std::vector<std::string> {"x.sum", "y.sum"}));
        const auto copy = e; // copies share the parsed tree and still evaluate
        QCOMPARE(*copy.evaluate([](const std::string&) { return std::optional<double>(2.0); }), 4.0);
    }

    void expressionErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("dangling operator") << "a.sum +";
        QTest::newRow("unbalanced") << "(a.sum + b.sum";
        QTest::newRow("stray character") << "a.sum $ b.sum";
        QTest::newRow("empty") << "";
    }
    void expressionErrors()
    {
        QFETCH(QString, text);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, MetricExpression::parse(text.toStdString()));
    }

    void parseSection()
    {
        const std::string text = "# comment\n"
                                 "section Demo\n"
                                 "title Demo Section\n"
                                 "order 42\n"
                                 "sets basic full\n"
                                 "description What it shows.\n"
                                 "\n"
                                 "group Header\n"
                                 "metric sm__throughput.avg.pct_of_peak_sustained_elapsed | Compute | arch=75-\n"
                                 "metric launch__grid_size | Grid Size | source=launch | unit=block\n"
                                 "group Breakdown\n"
                                 "breakdown gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed | Memory\n"
                                 "derived derived__x | X | a.sum * 2 | unit=flop\n";
        const auto def = SectionParser::parse(text, "demo.section");
        QCOMPARE(QString::fromStdString(def.id), QStringLiteral("Demo"));
        QCOMPARE(QString::fromStdString(def.title), QStringLiteral("Demo Section"));
        QCOMPARE(def.order, 42);
        QVERIFY(def.inSet("basic") && def.inSet("full") && !def.inSet("roofline"));
        QCOMPARE(def.groups.size(), size_t(2));
        const auto& h = def.groups[0].items;
        QCOMPARE(h.size(), size_t(2));
        QCOMPARE(h[0].kind, SectionItem::Kind::Counter);
        QCOMPARE(QString::fromStdString(h[0].label), QStringLiteral("Compute"));
        QVERIFY(h[0].arch.matches(9, 0) && !h[0].arch.matches(7, 0));
        QCOMPARE(h[0].line, 9);
        QCOMPARE(h[1].kind, SectionItem::Kind::Launch);
        QCOMPARE(QString::fromStdString(h[1].unit), QStringLiteral("block"));
        const auto& b = def.groups[1].items;
        QCOMPARE(b[0].kind, SectionItem::Kind::Breakdown);
        QCOMPARE(b[1].kind, SectionItem::Kind::Derived);
        QCOMPARE(b[1].expression.inputs(), std::vector<std::string> {"a.sum"});
    }

    void sectionErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("where");
        QTest::newRow("no section first") << "title X\n"
                                          << "bad.section:1:";
        QTest::newRow("metric before group") << "section A\nmetric a.sum | A\n"
                                             << "bad.section:2:";
        QTest::newRow("missing label") << "section A\ngroup G\nmetric a.sum\n"
                                       << "bad.section:3:";
        QTest::newRow("bad key") << "section A\ngroup G\nmetric a.sum | A | colour=red\n"
                                 << "bad.section:3:";
        QTest::newRow("bad arch") << "section A\ngroup G\n\nmetric a.sum | A | arch=x\n"
                                  << "bad.section:4:";
        QTest::newRow("bad expression") << "section A\ngroup G\nderived d | D | a.sum +\n"
                                        << "bad.section:3:";
        QTest::newRow("bad order") << "section A\norder ten\n"
                                   << "bad.section:2:";
        QTest::newRow("unknown statement") << "section A\ncolour red\n"
                                           << "bad.section:2:";
        QTest::newRow("two sections") << "section A\nsection B\n"
                                      << "bad.section:2:";
        QTest::newRow("bad metric name") << "section A\ngroup G\nmetric 9abc | A\n"
                                         << "bad.section:3:";
        QTest::newRow("empty file") << "\n# only a comment\n"
                                    << "bad.section:";
    }
    void sectionErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, where);
        try {
            SectionParser::parse(text.toStdString(), "bad.section");
            QFAIL("no error");
        } catch (const SectionFileError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(where), e.what());
        }
    }

    // `panel` blocks: rows a details panel shows, read by the panel, never collected.
    void parsePanelBlocks()
    {
        const std::string text = "section Demo\n"
                                 "group Header\n"
                                 "metric a.sum | A\n"
                                 "panel memory | Bytes\n"
                                 "metric a.sum | A bytes | unit=MB | divide=1e6 | digits=3 | else=b.sum + c.sum\n"
                                 "derived derived__rate | A rate | a.sum / gpu__time_duration.sum | unit=GB/s | "
                                 "from=profile,record | tip=a / duration\n"
                                 "metric record__grid | Grid | from=record\n"
                                 "group Second\n"
                                 "metric d.sum | D\n"
                                 "panel throughput | Other\n";
        const auto def = SectionParser::parse(text, "demo.section");
        QCOMPARE(def.groups.size(), size_t(2));
        QCOMPARE(def.groups[0].items.size(), size_t(1)); // panel rows are not group items
        QCOMPARE(def.groups[1].items.size(), size_t(1));
        QCOMPARE(def.panels.size(), size_t(2));
        const PanelBlock& b = def.panels[0];
        QCOMPARE(QString::fromStdString(b.panel), QStringLiteral("memory"));
        QCOMPARE(QString::fromStdString(b.heading), QStringLiteral("Bytes"));
        QCOMPARE(b.rows.size(), size_t(3));
        QCOMPARE(QString::fromStdString(b.rows[0].label), QStringLiteral("A bytes"));
        QCOMPARE(QString::fromStdString(b.rows[0].unit), QStringLiteral("MB"));
        QCOMPARE(b.rows[0].divide, 1e6);
        QCOMPARE(b.rows[0].digits, 3);
        QCOMPARE(b.rows[0].source, PanelRow::Source::Profile);
        QCOMPARE(b.rows[0].fallback.inputs(), (std::vector<std::string> {"b.sum", "c.sum"}));
        QCOMPARE(b.rows[0].line, 5);
        QVERIFY(b.rows[1].derived);
        QCOMPARE(b.rows[1].expression.inputs(), (std::vector<std::string> {"a.sum", "gpu__time_duration.sum"}));
        QCOMPARE(b.rows[1].source, PanelRow::Source::ProfileThenRecord);
        QCOMPARE(QString::fromStdString(b.rows[1].tip), QStringLiteral("a / duration"));
        QCOMPARE(b.rows[1].digits, 4);
        QCOMPARE(b.rows[2].source, PanelRow::Source::Record);
        QVERIFY(def.panels[1].rows.empty());
        // What a profile collects is the groups' lines only.
        const SectionCatalog catalog({def});
        const auto request = catalog.request({catalog.find("Demo")}, {});
        QVERIFY(requests(request, "a.sum") && requests(request, "d.sum"));
        QVERIFY(!requests(request, "b.sum") && !requests(request, "gpu__time_duration.sum"));
        QVERIFY(request.derivedMetrics.empty());
        QCOMPARE(catalog.panelBlocks("memory").size(), size_t(1));
        QCOMPARE(catalog.panelBlocks("throughput").size(), size_t(1));
        QVERIFY(catalog.panelBlocks("launch").empty());
    }

    void panelErrors_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("what");
        const QString head = QStringLiteral("section A\npanel memory | Bytes\n");
        QTest::newRow("unknown panel")
            << "section A\npanel memroy | Bytes\n"
            << "bad.section:2: unknown panel 'memroy' (launch, throughput, scheduler, memory)";
        QTest::newRow("no heading") << "section A\npanel memory\n"
                                    << "bad.section:2: 'panel' needs a panel and a heading";
        QTest::newRow("unknown key") << head + "metric a.sum | A | colour=red\n"
                                     << "bad.section:3: unknown key 'colour' in a panel row";
        QTest::newRow("section key") << head + "metric a.sum | A | arch=90\n"
                                     << "bad.section:3: unknown key 'arch' in a panel row";
        QTest::newRow("bad digits") << head + "metric a.sum | A | digits=2.5\n"
                                    << "bad.section:3: 'digits' needs a whole number from 1 to 15, found '2.5'";
        QTest::newRow("zero divide") << head + "metric a.sum | A | divide=0\n"
                                     << "bad.section:3: 'divide' needs a non-zero number, found '0'";
        QTest::newRow("bad from") << head + "metric a.sum | A | from=trace\n"
                                  << "bad.section:3: unknown 'from' 'trace'";
        QTest::newRow("bad else") << head + "metric a.sum | A | else=b.sum *\n"
                                  << "bad.section:3:";
        QTest::newRow("derived without expression") << head + "derived d | D\n"
                                                    << "bad.section:3: derived row 'd' needs an expression";
        QTest::newRow("breakdown in panel") << head + "breakdown a.avg.pct_of_peak_sustained_elapsed | A\n"
                                            << "bad.section:3: 'breakdown' inside a 'panel' block";
        QTest::newRow("missing label") << head + "metric a.sum\n"
                                       << "bad.section:3: panel row 'a.sum' needs a label";
    }
    void panelErrors()
    {
        QFETCH(QString, text);
        QFETCH(QString, what);
        try {
            SectionParser::parse(text.toStdString(), "bad.section");
            QFAIL("no error");
        } catch (const SectionFileError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).startsWith(what), e.what());
        }
    }

    // The shipped files give each of the four details panels its blocks, in section order.
    void shippedPanels()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        auto headings = [&](const char* panel) {
            QStringList out;
            for (const PanelBlock* b : catalog.panelBlocks(panel)) {
                out << QString::fromStdString(b->heading)
                        + (b->rows.empty() ? QStringLiteral(" (no rows)") : QString());
            }
            return out;
        };
        QCOMPARE(headings("launch"),
            QStringList(
                {"Launch (from the kernel record)", "Occupancy (block limits per SM: the smallest one binds)"}));
        QCOMPARE(headings("throughput"),
            QStringList({"Speed of light (each figure is % of its own unit's peak)", "Compute workload"}));
        QCOMPARE(headings("scheduler"), QStringList({"Warps per scheduler (average per active cycle)", "Warp states"}));
        QCOMPARE(headings("memory"),
            QStringList(
                {"Bytes moved (whole kernel)", "Throughput (bytes / kernel duration)", "Caches and access pattern"}));
    }

    void catalogHasTheIssueSections()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        for (const char* id : {"LaunchStats", "Occupancy", "SpeedOfLight", "ComputeWorkloadAnalysis",
                 "MemoryWorkloadAnalysis", "SchedulerStats", "WarpStateStats", "InstructionStats", "Roofline"})
            QVERIFY2(catalog.find(id), id);
        QVERIFY(catalog.find("speedoflight")); // case-insensitive like ncu's --section
        // Sorted by order.
        const auto& all = catalog.sections();
        QVERIFY(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.order < b.order; }));
        const auto sets = catalog.setNames();
        for (const char* s : {"basic", "detailed", "full", "roofline"})
            QVERIFY2(std::find(sets.begin(), sets.end(), s) != sets.end(), s);
    }

    void shippedSectionsShowWhatTheIssueAsks()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        // SpeedOfLight: compute and memory breakdowns.
        const auto* sol = catalog.find("SpeedOfLight");
        int breakdowns = 0;
        for (const auto& g : sol->groups)
            for (const auto& i : g.items)
                breakdowns += i.kind == SectionItem::Kind::Breakdown;
        QCOMPARE(breakdowns, 2);
        // ComputeWorkloadAnalysis: pipe utilization against both denominators, labelled.
        const auto* cwa = catalog.find("ComputeWorkloadAnalysis");
        QStringList titles;
        for (const auto& g : cwa->groups)
            titles << QString::fromStdString(g.title);
        QVERIFY(titles.filter("elapsed cycles").size() >= 1);
        QVERIFY(titles.filter("active cycles").size() >= 1);
        QVERIFY(titles.filter("instructions executed").size() >= 1);
        // Roofline: FLOPs per precision including tensor, bytes per memory level.
        const auto* roof = catalog.find("Roofline");
        std::vector<std::string> names;
        for (const auto& g : roof->groups)
            for (const auto& i : g.items)
                names.push_back(i.name);
        for (const char* n : {"derived__fp32_flop", "derived__fp64_flop", "derived__fp16_flop", "derived__tensor_flop",
                 "sm__ops_path_tensor_src_bf16_dst_fp32.sum", "l1tex__t_bytes.sum", "lts__t_bytes.sum",
                 "dram__bytes.sum"})
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
    }

    void requestForSetsAndExtras()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        const auto basic = catalog.request(catalog.select({}, {"basic"}), {});
        QCOMPARE(basic.sectionIds, (std::vector<std::string> {"SpeedOfLight", "LaunchStats", "Occupancy"}));
        QVERIFY(requests(basic, "sm__throughput.avg.pct_of_peak_sustained_elapsed"));
        QVERIFY(!requests(basic, "launch__grid_size")); // computed, not collected
        QVERIFY(std::any_of(basic.launchMetrics.begin(), basic.launchMetrics.end(),
            [](const auto& i) { return i.name == "launch__occupancy_limit_registers"; }));
        // Each (name, arch) pair once although Occupancy and SchedulerStats share metrics.
        const auto full = catalog.request(catalog.select({}, {"full"}), {});
        for (size_t i = 0; i < full.counters.size(); ++i)
            for (size_t j = i + 1; j < full.counters.size(); ++j)
                QVERIFY(!(full.counters[i] == full.counters[j]));
        // Derived metrics pull in their inputs, and come after the derived metrics they read.
        QVERIFY(requests(full, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"));
        auto pos = [&](const std::string& n) {
            return std::find_if(full.derivedMetrics.begin(), full.derivedMetrics.end(), [&](const auto& d) {
                return d.name == n;
            }) - full.derivedMetrics.begin();
        };
        QVERIFY(pos("derived__fp32_flop") < pos("derived__fp32_flop_per_dram_byte"));
        // --metrics: plain names are collected, breakdown: is expanded on the target, known
        // launch and derived names are computed.
        const auto extra = catalog.request(catalog.select({}, {}),
            {"dram__bytes_read.sum", "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed", "launch__grid_size",
                "derived__fp64_flop"});
        QVERIFY(requests(extra, "dram__bytes_read.sum"));
        QVERIFY(std::any_of(extra.counters.begin(), extra.counters.end(),
            [](const auto& c) { return c.breakdown && c.name == "sm__throughput.avg.pct_of_peak_sustained_elapsed"; }));
        QCOMPARE(extra.launchMetrics.size(), size_t(1));
        QCOMPARE(extra.derivedMetrics.size(), size_t(1));
        QVERIFY(requests(extra, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"));
    }

    void unknownSectionOrSet()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        try {
            catalog.select({"NoSuchSection"}, {});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("SpeedOfLight"), e.what()); // lists the known ones
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, catalog.select({}, {"everything"}));
    }

    void loadDirectoryErrors()
    {
        QTemporaryDir dir;
        QVERIFY_THROWS_EXCEPTION(SectionFileError, SectionCatalog::loadDirectory(dir.path().toStdString()));
        auto write
            = [&](const char* name, const char* text) { std::ofstream(dir.filePath(name).toStdString()) << text; };
        write("a.section", "section Same\n");
        write("b.section", "section same\n");
        try {
            SectionCatalog::loadDirectory(dir.path().toStdString());
            QFAIL("no error");
        } catch (const SectionFileError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains("b.section"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(
            SectionFileError, SectionCatalog::loadDirectory(dir.filePath("missing").toStdString()));
    }

    void placement()
    {
        const auto catalog = SectionCatalog::loadDirectory(kSections);
        // A metric in several sections is placed in the first by order.
        const auto p = catalog.placement("lts__throughput.avg.pct_of_peak_sustained_elapsed");
        QVERIFY(p);
        QCOMPARE(QString::fromStdString(p->section->id), QStringLiteral("SpeedOfLight"));
        QCOMPARE(QString::fromStdString(p->item->label), QStringLiteral("L2 Cache Throughput"));
        QVERIFY(!catalog.placement("no__such.metric"));
    }
};

QTEST_GUILESS_MAIN(TestSections)
#include "tst_sections.moc"
