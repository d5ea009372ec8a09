// SPDX-License-Identifier: MIT
// Linked selection between the panels and the rest of the window, through the shared
// SelectionModel: a kernel picked in the ranking, on the timeline (an event), by name, or by
// clicking its point in the roofline is the kernel every panel shows and highlights, with the
// selection's signals observed by QSignalSpy. Also the docking of AnalysisPanels.
#include "panelfixtures.h"

#include "ui/panels/analysispanels.h"
#include "ui/panels/kernelrankingpanel.h"
#include "ui/panels/launchpanel.h"
#include "ui/panels/panelexport.h"
#include "ui/panels/rooflinepanel.h"
#include "ui/session/sessiondocument.h"

#include <QDockWidget>
#include <QFile>
#include <QItemSelectionModel>
#include <QMainWindow>
#include <QMenu>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <qcustomplot.h>

using namespace ws;
using namespace ws::test;

class TestPanelsSelection : public QObject {
    Q_OBJECT

    QString m_path = fixturePath("metrics/gemm_relu.wscope");

private slots:
    void initTestCase()
    {
        qRegisterMetaType<ws::EventSelection>();
        qRegisterMetaType<ws::TimeRange>();
    }

    void rankingRowSelectsEverywhere()
    {
        SelectionModel selection;
        AnalysisPanels panels(&selection, nullptr);
        panels.setData(panelDataOf(m_path), snapshotOf(m_path));
        const auto data = panels.focus()->data();
        QSignalSpy names(&selection, &SelectionModel::selectedNameChanged);
        QSignalSpy events(&selection, &SelectionModel::selectedEventChanged);
        QSignalSpy focusChanged(panels.focus(), &KernelFocus::changed);

        // Pick the relu row in the ranking.
        KernelRankingPanel* ranking = panels.ranking();
        const int relu = data->launches.groupIndex("(anonymous namespace)::relu_kernel(__nv_bfloat16*, unsigned long)");
        QVERIFY2(relu >= 0, "relu kernel name in the fixture");
        const int sourceRow = ranking->model()->rowOfGroup(relu);
        const QModelIndex index = ranking->proxy()->mapFromSource(ranking->model()->index(sourceRow, 0));
        ranking->view()->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);

        // One name change: the timeline's name for the kernel (SelectionModel names a selected
        // kernel event by its lane name, the short name).
        QCOMPARE(names.count(), 1);
        QCOMPARE(names.takeFirst().at(0).toString(), QStringLiteral("relu_kernel"));
        QCOMPARE(events.count(), 1);
        const auto e = events.takeFirst().at(0).value<EventSelection>();
        QVERIFY(e.isValid());
        QCOMPARE(e.ref.table(), EventTable::Kernel);
        const qint64 representative = data->representative(static_cast<uint32_t>(relu))->id;
        QCOMPARE(e.ref.rowid(), representative);
        QCOMPARE(panels.focus()->current(), representative);
        QVERIFY(focusChanged.count() >= 1);
        // The roofline highlights that kernel's points; the details show it.
        QVERIFY(std::count(panels.roofline()->highlighted().begin(), panels.roofline()->highlighted().end(),
                    representative)
            == 0); // relu does no floating-point work: no point, nothing to highlight
        QVERIFY(panels.launch()
                    ->table()
                    ->headerData(2, Qt::Horizontal)
                    .toString()
                    .startsWith(QStringLiteral("#%1 ").arg(representative)));
    }

    void timelineEventMovesTheFocus()
    {
        SelectionModel selection;
        AnalysisPanels panels(&selection, nullptr);
        panels.setData(panelDataOf(m_path), snapshotOf(m_path));
        KernelFocus* focus = panels.focus();
        // What the timeline sets when the user clicks launch #5 (an nvjet GEMM).
        const EventSelection e = focus->eventFor(5);
        QVERIFY(e.isValid());
        QSignalSpy names(&selection, &SelectionModel::selectedNameChanged);
        selection.setSelectedEvent(e);
        QCOMPARE(focus->current(), qint64(5));
        QCOMPARE(names.count(), 1);
        QVERIFY(names.first().at(0).toString().startsWith("nvjet_sm90"));
        // Ranking row of that kernel is current.
        const QModelIndex current = panels.ranking()->view()->selectionModel()->currentIndex();
        QVERIFY(current.isValid());
        QCOMPARE(panels.ranking()->proxy()->data(current.siblingAtColumn(0), panelexport::kRawRole).toString(),
            panels.focus()->data()->kernelName(5));
        // Roofline highlights #5's points.
        QVERIFY(std::count(panels.roofline()->highlighted().begin(), panels.roofline()->highlighted().end(), 5) == 1);
        // An API call on the timeline leaves the focus alone.
        EventSelection api;
        api.lane = 0;
        api.ref = EventRef::make(EventTable::ApiCall, 1);
        selection.setSelectedEvent(api);
        QCOMPARE(focus->current(), qint64(5));
        // A name from elsewhere moves it to that kernel's representative launch.
        const auto data = focus->data();
        const int fill = data->launches.groupIndex(
            "(anonymous namespace)::fill_kernel(__nv_bfloat16*, unsigned long, unsigned int)");
        QVERIFY(fill >= 0);
        selection.setSelectedName(QStringLiteral("fill_kernel"));
        QCOMPARE(focus->current(), data->representative(static_cast<uint32_t>(fill))->id);
        // The full demangled name works too, and a name no kernel has changes nothing.
        const int gemm = data->launches.groupIndex("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        QVERIFY(gemm >= 0);
        selection.setSelectedName(QString::fromStdString(data->launches.groups()[gemm].name));
        QCOMPARE(focus->currentGroup(), gemm);
        const qint64 before = focus->current();
        selection.setSelectedName(QStringLiteral("no_such_kernel"));
        QCOMPARE(focus->current(), before);
    }

    void rooflineClickSelectsAndReveals()
    {
        SelectionModel selection;
        QWidget host;
        AnalysisPanels panels(&selection, &host);
        panels.setData(panelDataOf(m_path), snapshotOf(m_path));
        RooflinePanel* roofline = panels.roofline();
        roofline->setWindowFlag(Qt::Window, true); // a hidden child of `host` until docked
        roofline->resize(900, 600);
        roofline->show();
        QVERIFY(QTest::qWaitForWindowExposed(roofline));
        roofline->plot()->replot();
        QVERIFY(!roofline->points().empty());
        // The nvjet GEMM launch #7's DRAM point.
        const RooflinePoint* target = nullptr;
        for (const RooflinePoint& p : roofline->points()) {
            if (p.kernelId == 7 && p.level == MemoryLevel::Dram)
                target = &p;
        }
        QVERIFY(target);
        const QPointF pixel(roofline->plot()->xAxis->coordToPixel(target->intensity),
            roofline->plot()->yAxis->coordToPixel(target->flopsPerS));
        QSignalSpy events(&selection, &SelectionModel::selectedEventChanged);
        QSignalSpy reveal(&panels, &AnalysisPanels::revealRequested);
        // Launches of one kernel overlap: the point nearest the clicked pixel wins.
        const int hit = roofline->pointAt(QPointF(pixel.toPoint()));
        QVERIFY(hit >= 0);
        const qint64 picked = roofline->points()[static_cast<size_t>(hit)].kernelId;
        QTest::mouseClick(roofline->plot(), Qt::LeftButton, {}, pixel.toPoint());
        QCOMPARE(panels.focus()->current(), picked);
        QCOMPARE(events.count(), 1);
        QCOMPARE(events.first().at(0).value<EventSelection>().ref.rowid(), picked);
        QCOMPARE(reveal.count(), 1);
        QCOMPARE(reveal.first().at(0).value<EventSelection>().ref.rowid(), picked);
        // Its points are drawn highlighted now.
        QVERIFY(std::count(roofline->highlighted().begin(), roofline->highlighted().end(), picked) == 1);
        // A click on empty space selects nothing.
        QVERIFY(!roofline->clickAt(QPointF(3, 3)));
        QCOMPARE(events.count(), 1);
    }

    void docksAndAsyncLoad()
    {
        QMainWindow window;
        QMenu view;
        SelectionModel selection;
        AnalysisPanels panels(&selection, &window);
        panels.addDocks(&window, &view);
        QCOMPARE(panels.docks().size(), 9);
        QStringList names;
        for (QDockWidget* d : panels.docks()) {
            QVERIFY(!d->objectName().isEmpty()); // saveState needs names
            names << d->windowTitle();
        }
        QVERIFY(names.contains("Roofline") && names.contains("Diagnosis") && names.contains("Kernels"));
        QVERIFY(names.contains("Source"));
        QCOMPARE(view.actions().size(), 10); // a section + one toggle per dock
        // The panels show what the window's document reads after each session it opens.
        SessionDocument document;
        panels.setDocument(&document);
        QSignalSpy ready(&panels, &AnalysisPanels::dataReady);
        document.open(m_path);
        QVERIFY(ready.wait(30000));
        QVERIFY(panels.focus()->data());
        QCOMPARE(panels.focus()->data()->launches.size(), size_t {14});
        // A broken file says why: here the file goes away between the timeline's read and the
        // panels' (their worker opens its own connection to it).
        QSignalSpy failed(&panels, &AnalysisPanels::loadFailed);
        QTemporaryDir dir;
        const QString broken = dir.filePath(QStringLiteral("x.wscope"));
        QVERIFY(QFile::copy(m_path, broken));
        connect(&document, &SessionDocument::loaded, &document, [&] { QFile::remove(broken); });
        document.open(broken);
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(1).toString().contains("x.wscope"));
        QVERIFY(!panels.focus()->data());
    }
};

QTEST_MAIN(TestPanelsSelection)
#include "tst_panels_selection.moc"
