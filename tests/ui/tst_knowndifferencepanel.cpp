// SPDX-License-Identifier: MIT
// Known differences from ncu in the details panels: a value whose metric differed from ncu on
// the fidelity suite, in the cache control of the run that measured it, is marked next to the
// value and its tooltip says by how much and why; the legend line says what the mark means; CSV
// (kRawRole) keeps the bare number; another cache control's entry marks nothing.
#include "panelfixtures.h"

#include "core/metrics/knowndifferences.h"
#include "ui/panels/memorypanel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/panelformat.h"
#include "ui/panels/schedulerpanel.h"
#include "ui/panels/sectionrows.h"
#include "ui/panels/throughputpanel.h"

#include <QLabel>
#include <QtTest>

using namespace ws;
using namespace ws::test;

namespace {

struct DefaultDifferencesAtExit {
    ~DefaultDifferencesAtExit() { PanelSections::setKnownDifferences(nullptr); }
};

int rowWithLabel(const MetricTableModel& t, const QString& label)
{
    for (int r = 0; r < t.rowCount(); ++r)
        if (!t.rows()[static_cast<size_t>(r)].heading && t.rows()[static_cast<size_t>(r)].label == label)
            return r;
    return -1;
}

} // namespace

class TestKnownDifferencePanel : public QObject {
    Q_OBJECT
private slots:
    void marksValuesOfTheRunsCacheControl_data()
    {
        QTest::addColumn<QString>("cache"); // the table's entry
        QTest::addColumn<bool>("marked");   // the fixture was profiled with cache control all
        QTest::newRow("same cache control") << "all" << true;
        QTest::newRow("other cache control") << "none" << false;
    }
    void marksValuesOfTheRunsCacheControl()
    {
        QFETCH(QString, cache);
        QFETCH(bool, marked);
        DefaultDifferencesAtExit restore;
        const std::string table = cache.toStdString() + "\tdram__bytes_write.sum\t5\t13\t3.56\t42.4\tnot established\n";
        PanelSections::setKnownDifferences(
            std::make_shared<const KnownDifferences>(KnownDifferences::parse(table, "test.tsv")));

        const QString path = fixturePath("metrics/gemm_relu.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        MemoryPanel memory(&focus);
        const auto data = panelDataOf(path);
        QCOMPARE(data->measurementMeta(data->metrics.kernels().front().launch.id).at("profile_cache_control"),
            std::string("all"));
        focus.setData(data, snapshotOf(path));
        focus.selectKernel(data->metrics.kernels().front().launch.id);

        const MetricTableModel& t = *memory.table();
        const int written = rowWithLabel(t, QStringLiteral("DRAM bytes written"));
        const int read = rowWithLabel(t, QStringLiteral("DRAM bytes read"));
        QVERIFY(written >= 0 && read >= 0);
        const QModelIndex value = t.index(written, 2);
        const QString shown = t.data(value).toString();
        QCOMPARE(shown.startsWith(MetricTableModel::differenceMark() + QLatin1Char(' ')), marked);
        // The number itself is unchanged, in the display and in CSV.
        const double raw = t.data(value, panelexport::kRawRole).toDouble();
        QVERIFY(raw > 0);
        QVERIFY(shown.endsWith(panelformat::number(raw, t.rows()[static_cast<size_t>(written)].digits)));
        const QString tip = t.data(value, Qt::ToolTipRole).toString();
        QCOMPARE(tip.startsWith(QStringLiteral("Differs from ncu (--cache-control all): on 5 of 13 fidelity-suite "
                                               "kernels (H200), by 3.6 % (median), up to 42 %.")),
            marked);
        // A metric the table does not list is never marked.
        QVERIFY(!t.data(t.index(read, 2)).toString().startsWith(MetricTableModel::differenceMark()));
        QCOMPARE(t.hasNotes(), marked);
        QCOMPARE(
            memory.provenance()->text().contains(MetricTableModel::differenceMark() + QStringLiteral(" marks a value")),
            marked);
    }

    // The shipped table (resources/sections/known-differences.tsv) marks the misc stall of a
    // cache-control-all profile in the Scheduler panel's rows, where the stall reasons are.
    void shippedTableMarksTheMiscStall()
    {
        DefaultDifferencesAtExit restore;
        PanelSections::setKnownDifferences(nullptr);
        QVERIFY2(PanelSections::knownDifferences(), qPrintable(PanelSections::knownDifferencesError()));
        const QString path = fixturePath("metrics/copy.wscope");
        SelectionModel selection;
        KernelFocus focus(&selection);
        SchedulerPanel scheduler(&focus);
        const auto data = panelDataOf(path);
        focus.setData(data, snapshotOf(path));
        focus.selectKernel(data->metrics.kernels().back().launch.id);
        const MetricTableModel& t = *scheduler.table();
        bool found = false;
        for (int r = 0; r < t.rowCount(); ++r) {
            if (t.rows()[static_cast<size_t>(r)].heading)
                continue;
            const QString tip = t.data(t.index(r, 2), Qt::ToolTipRole).toString();
            if (tip.contains(QStringLiteral("smsp__average_warps_issue_stalled_misc_per_issue_active"))) {
                found = true;
                QVERIFY2(tip.startsWith(QStringLiteral("Differs from ncu (--cache-control all)")), qPrintable(tip));
                QVERIFY(t.data(t.index(r, 2)).toString().startsWith(MetricTableModel::differenceMark()));
            }
        }
        QVERIFY2(found, "no Scheduler row reads the misc stall ratio");
    }
};

QTEST_MAIN(TestKnownDifferencePanel)
#include "tst_knowndifferencepanel.moc"
