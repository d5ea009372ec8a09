// SPDX-License-Identifier: MIT
// The fleet heatmap on the committed step_time result of 8 synthetic ranks (rank 5 planted 25 %
// slower, tests/fixtures/fleet): the planted rank's cells drawn red and framed, the others
// near white, a click on a cell naming that rank's session and step, and the rank table
// sorting the straggler to the top by median step; a second click asking for the compare.
// Other recipes' metrics (tests/fixtures/fleet/ranks3-*: three rank sessions of the DDP
// recording): the metric selector, the rank table sorted by the metric, outliers marked and
// coloured by whether higher or lower is worse.
#include "core/store/fleetresult.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"

#include <QAction>
#include <QComboBox>
#include <QHeaderView>
#include <QMenu>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

using namespace ws;

namespace {

FleetStepGrid synth8()
{
    return readFleetStepGrid(WS_FIXTURES_DIR "/fleet/synth8-step_time.wsfleet");
}

int rowOfRank(const FleetStepGrid& g, int64_t rank)
{
    for (size_t r = 0; r < g.ranks.size(); ++r)
        if (g.ranks[r].rank == rank)
            return static_cast<int>(r);
    return -1;
}

} // namespace

class TestFleetHeatmap : public QObject {
    Q_OBJECT
private slots:
    void stragglerCellsAreRedAndFramedOthersNearWhite()
    {
        FleetHeatmap map;
        map.setGrid(synth8());
        map.resize(map.sizeHint());
        const QImage img = map.grab().toImage();
        const FleetStepGrid& g = map.grid();
        const int straggler = rowOfRank(g, 5);
        QVERIFY(straggler >= 0);
        for (int c = 0; c < static_cast<int>(g.steps.size()); ++c) {
            const QRect cell = map.cellRect(straggler, c);
            const QColor fill = img.pixelColor(cell.center());
            QVERIFY2(fill.red() > fill.green() + 60, qPrintable(fill.name()));               // 25 % slower: red
            QCOMPARE(img.pixelColor(cell.left() + 1, cell.center().y()), QColor(Qt::black)); // framed
            const QColor other = img.pixelColor(map.cellRect(rowOfRank(g, 0), c).center());
            QVERIFY2(other.green() > 200 && other.red() > 200, qPrintable(other.name())); // within ±2 %
        }
    }

    void clickingACellNamesTheRanksSessionAndStep()
    {
        FleetHeatmap map;
        map.setGrid(synth8());
        map.resize(map.sizeHint());
        QSignalSpy spy(&map, &FleetHeatmap::stepActivated);
        const FleetStepGrid& g = map.grid();
        const int row = rowOfRank(g, 5);
        QTest::mouseClick(&map, Qt::LeftButton, {}, map.cellRect(row, 3).center());
        QCOMPARE(spy.count(), 1);
        QCOMPARE(spy[0][0].toString().toStdString(), g.ranks[static_cast<size_t>(row)].session);
        QCOMPARE(spy[0][1].toLongLong(), g.ranks[static_cast<size_t>(row)].pid);
        QCOMPARE(spy[0][2].toLongLong(), g.steps[3]);
        const size_t cell = static_cast<size_t>(row) * g.steps.size() + 3;
        QCOMPARE(spy[0][3].toLongLong(), g.stepStart[cell]);
        QCOMPARE(spy[0][4].toLongLong() - spy[0][3].toLongLong(), static_cast<qint64>(g.values[cell]));
        QTest::mouseClick(&map, Qt::LeftButton, {}, QPoint(2, 2)); // the label corner: no cell
        QCOMPARE(spy.count(), 1);
    }

    void rankTableSortsTheStragglerFirstByMedianStep()
    {
        FleetView view;
        view.setGrid(synth8());
        QTableWidget* t = view.rankTable();
        QCOMPARE(t->rowCount(), 8);
        t->sortItems(3, Qt::DescendingOrder);
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("5"));
        QCOMPARE(t->item(0, 4)->text(), QStringLiteral("13"));
        QCOMPARE(t->item(0, 5)->text(), QStringLiteral("yes"));
        QCOMPARE(t->item(1, 5)->text(), QString());
        t->sortItems(0, Qt::AscendingOrder); // numeric: rank 2 before rank 10 would matter at 11+
        for (int r = 0; r < 8; ++r)
            QCOMPARE(t->item(r, 0)->text(), QString::number(r));
        QSignalSpy spy(&view, &FleetView::stepActivated);
        emit view.heatmap()->stepActivated(QStringLiteral("x.wscope"), 1, 2, 10, 20);
        QCOMPARE(spy.count(), 1);
    }

    void aSecondClickOnTheSelectedCellAsksForTheCompare()
    {
        FleetHeatmap map;
        map.setGrid(synth8());
        map.resize(map.sizeHint());
        QSignalSpy open(&map, &FleetHeatmap::stepActivated);
        QSignalSpy compare(&map, &FleetHeatmap::compareRequested);
        const QPoint a = map.cellRect(5, 3).center();
        QTest::mouseClick(&map, Qt::LeftButton, {}, a);
        QCOMPARE(open.count(), 1);
        QCOMPARE(compare.count(), 0);
        QCOMPARE(map.currentCell(), QPoint(5, 3));
        QTest::mouseClick(&map, Qt::LeftButton, {}, a);
        QCOMPARE(open.count(), 1);
        QCOMPARE(compare.count(), 1);
        QCOMPARE(compare[0][0].toInt(), 5);
        QCOMPARE(compare[0][1].toInt(), 3);
        QTest::mouseClick(&map, Qt::LeftButton, {}, map.cellRect(2, 4).center()); // another cell: open it
        QCOMPARE(open.count(), 2);
        QCOMPARE(compare.count(), 1);
        // The synthetic ranks' files are all different: any rank has a median rank to compare with.
        std::unique_ptr<QMenu> menu(map.cellMenu(5, 3, nullptr));
        QVERIFY(menu->findChild<QAction*>(QStringLiteral("compareWithMedian"))->isEnabled());
    }

    void metricSelectorShowsEveryPerRankMetricAndTheTableSortsByIt()
    {
        FleetView view;
        view.setGrids(readFleetGrids(WS_FIXTURES_DIR "/fleet/ranks3-comm_overlap.wsfleet"));
        QComboBox* choice = view.metricChoice();
        QCOMPARE(choice->count(), 3);
        QCOMPARE(choice->itemText(1), QStringLiteral("Communication overlap"));
        choice->setCurrentIndex(1);
        emit choice->activated(1);
        QCOMPARE(view.heatmap()->grid().metric.key, std::string("comm_overlap.overlap_pct"));
        QTableWidget* t = view.rankTable();
        QCOMPARE(t->horizontalHeaderItem(3)->text(), QStringLiteral("Communication overlap (%)"));
        t->sortItems(3, Qt::AscendingOrder); // lowest overlap first: rank 1 (26 %), then 0 and 2 (61, 62 %)
        QCOMPARE(t->item(0, 0)->text(), QStringLiteral("1"));
        QCOMPARE(t->item(0, 3)->text(), QStringLiteral("25.7"));
        QCOMPARE(t->item(0, 4)->text(), QStringLiteral("1"));
        QCOMPARE(t->item(0, 5)->text(), QStringLiteral("yes"));
        QCOMPARE(t->item(0, 0)->foreground().color(), QColor(0xd6, 0x27, 0x28));
        QCOMPARE(t->item(1, 0)->text(), QStringLiteral("0"));
        QCOMPARE(t->item(1, 5)->text(), QString());
        QCOMPARE(t->item(2, 0)->text(), QStringLiteral("2"));

        // Lower overlap is worse: rank 1's cell red, the median rank's white, rank 2 (better) white to blue.
        FleetHeatmap* map = view.heatmap();
        const QImage img = map->grab().toImage();
        const QColor worse = img.pixelColor(map->cellRect(1, 0).center());
        QVERIFY2(worse.red() > worse.green() + 100, qPrintable(worse.name()));
        QCOMPARE(img.pixelColor(map->cellRect(1, 0).left() + 1, map->cellRect(1, 0).center().y()), QColor(Qt::black));
        QCOMPARE(map->cellColor(0, 0), QColor(Qt::white));
        QVERIFY(map->cellColor(2, 0).blue() >= map->cellColor(2, 0).red());
        QVERIFY(map->toolTipAt(1, 0).contains(QStringLiteral("outlier")));

        // A metric without steps opens the rank's whole session.
        QSignalSpy step(map, &FleetHeatmap::stepActivated);
        QSignalSpy rank(map, &FleetHeatmap::rankActivated);
        QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(2, 0).center());
        QCOMPARE(step.count(), 0);
        QCOMPARE(rank.count(), 1);
        QCOMPARE(rank[0][0].toString().toStdString(), map->grid().ranks[2].session);
    }

    void kernelTimeByNameIsARankByKernelHeatmap()
    {
        FleetView view;
        view.setGrids(readFleetGrids(WS_FIXTURES_DIR "/fleet/ranks3-kernel_time.wsfleet"));
        QCOMPARE(view.metricChoice()->count(), 1);
        QVERIFY(!view.metricChoice()->isEnabled()); // nothing to choose
        FleetHeatmap* map = view.heatmap();
        const FleetStepGrid& g = map->grid();
        QCOMPARE(g.metric.columns, FleetColumns::Kernels);
        QVERIFY(g.steps.size() > 10);
        QVERIFY(map->cellRect(0, 1).width() > map->cellRect(0, 1).height()); // room for the names
        QCOMPARE(map->cellAt(map->cellRect(2, 7).center()), QPoint(2, 7));
        QVERIFY(map->toolTipAt(2, 0).contains(QString::fromStdString(g.columnNames[0])));
        QCOMPARE(view.rankTable()->horizontalHeaderItem(3)->text(), QStringLiteral("Total (ms)"));
        QCOMPARE(view.rankTable()->horizontalHeaderItem(4)->text(), QStringLiteral("Outlier kernels"));
        int flagged = 0;
        for (size_t c = 0; c < g.steps.size(); ++c)
            flagged += g.flagged(2, c) ? 1 : 0;
        view.rankTable()->sortItems(0, Qt::AscendingOrder);
        QCOMPARE(view.rankTable()->item(2, 4)->text(), QString::number(flagged));
        QVERIFY(flagged > 0); // rank 2's kernels ran 25 % longer
    }
};

QTEST_MAIN(TestFleetHeatmap)
#include "tst_fleetheatmap.moc"
