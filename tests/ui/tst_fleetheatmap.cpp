// SPDX-License-Identifier: MIT
// The fleet heatmap on the committed step_time result of 8 synthetic ranks (rank 5 planted 25 %
// slower, tests/fixtures/fleet): the planted rank's cells drawn red and framed, the others
// near white, a click on a cell naming that rank's session and step, and the rank table
// sorting the straggler to the top by median step.
#include "core/store/fleetresult.h"
#include "ui/fleet/fleetheatmap.h"
#include "ui/fleet/fleetview.h"

#include <QHeaderView>
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
};

QTEST_MAIN(TestFleetHeatmap)
#include "tst_fleetheatmap.moc"
