// SPDX-License-Identifier: MIT
// The shared selection/zoom object: every signal fires once per real change, never for a
// no-op, and the zoom history walks back and forward.
#include "ui/session/selectionmodel.h"

#include <QSignalSpy>
#include <QtTest>

using namespace ws;

class TestSelectionModel : public QObject {
    Q_OBJECT

private slots:
    void viewRangeSignalsOncePerChange()
    {
        SelectionModel m;
        QSignalSpy spy(&m, &SelectionModel::viewRangeChanged);
        m.setViewRange({0, 100});
        m.setViewRange({0, 100}); // same: no signal
        m.setViewRange({10, 10}); // empty: ignored
        m.setViewRange({5, 50});
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(1).at(0).value<TimeRange>(), (TimeRange {5, 50}));
        QCOMPARE(m.viewRange(), (TimeRange {5, 50}));
    }

    void timeRangeIsTheFilter()
    {
        SelectionModel m;
        QSignalSpy spy(&m, &SelectionModel::timeRangeChanged);
        QVERIFY(!m.hasTimeFilter());
        m.setTimeRange({100, 200});
        QVERIFY(m.hasTimeFilter());
        m.setTimeRange({100, 200});
        m.setTimeRange({300, 300}); // empty clears
        QVERIFY(!m.hasTimeFilter());
        m.clearTimeRange(); // already clear
        QCOMPARE(spy.count(), 2);
        QCOMPARE(spy.at(0).at(0).value<TimeRange>().duration(), TimeNs(100));
        QVERIFY(spy.at(1).at(0).value<TimeRange>().isEmpty());
    }

    void selectingAKernelSelectsItsName()
    {
        SelectionModel m;
        QSignalSpy events(&m, &SelectionModel::selectedEventChanged);
        QSignalSpy names(&m, &SelectionModel::selectedNameChanged);
        EventSelection k;
        k.lane = 3;
        k.index = 7;
        k.ref = EventRef::make(EventTable::Kernel, 8);
        k.start = 10;
        k.end = 20;
        k.name = QStringLiteral("gemm");
        m.setSelectedEvent(k);
        m.setSelectedEvent(k);
        QCOMPARE(events.count(), 1);
        QCOMPARE(names.count(), 1);
        QCOMPARE(m.selectedName(), QStringLiteral("gemm"));
        // An API call is selected without changing the kernel name other panels show.
        EventSelection api = k;
        api.ref = EventRef::make(EventTable::ApiCall, 8);
        api.name = QStringLiteral("cudaLaunchKernel");
        m.setSelectedEvent(api);
        QCOMPARE(events.count(), 2);
        QCOMPARE(names.count(), 1);
        m.clearSelectedEvent();
        QCOMPARE(events.count(), 3);
        QVERIFY(!m.selectedEvent().isValid());
        // An invalid selection equals "none": no extra signal.
        m.setSelectedEvent(EventSelection {});
        QCOMPARE(events.count(), 3);
    }

    void historyBackAndForward()
    {
        SelectionModel m;
        QSignalSpy history(&m, &SelectionModel::historyChanged);
        m.setViewRange({0, 1000});
        QVERIFY(!m.canGoBack());
        m.jumpToViewRange({100, 200});
        m.jumpToViewRange({150, 160});
        m.setViewRange({151, 161}); // continuous zoom/pan: not remembered
        QVERIFY(m.canGoBack());
        m.goBack();
        QCOMPARE(m.viewRange(), (TimeRange {100, 200}));
        m.goBack();
        QCOMPARE(m.viewRange(), (TimeRange {0, 1000}));
        QVERIFY(!m.canGoBack());
        m.goForward();
        QCOMPARE(m.viewRange(), (TimeRange {100, 200}));
        QVERIFY(m.canGoForward());
        m.jumpToViewRange({0, 10}); // a new jump drops the forward history
        QVERIFY(!m.canGoForward());
        QCOMPARE(history.count(), 6); // three jumps, two backs, one forward
    }

    void resetForgetsEverything()
    {
        SelectionModel m;
        m.setViewRange({0, 10});
        m.jumpToViewRange({0, 5});
        m.setTimeRange({1, 2});
        EventSelection e;
        e.lane = 0;
        m.setSelectedEvent(e);
        QSignalSpy range(&m, &SelectionModel::timeRangeChanged);
        QSignalSpy event(&m, &SelectionModel::selectedEventChanged);
        QSignalSpy view(&m, &SelectionModel::viewRangeChanged);
        m.reset({100, 900});
        QCOMPARE(range.count(), 1);
        QCOMPARE(event.count(), 1);
        QCOMPARE(view.count(), 1);
        QVERIFY(!m.canGoBack());
        QCOMPARE(m.viewRange(), (TimeRange {100, 900}));
    }
};

QTEST_GUILESS_MAIN(TestSelectionModel)
#include "tst_selectionmodel.moc"
