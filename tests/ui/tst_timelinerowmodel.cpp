// SPDX-License-Identifier: MIT
// The timeline's row tree: structure built from the lanes, and every user choice (collapse,
// hide, pin, reorder) reflected in the rows the timeline paints, under QAbstractItemModelTester.
#include "ui/timeline/timelinerowmodel.h"
#include "uifixtures.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

using namespace ws;
using Kind = TimelineRowModel::Kind;

namespace {

QStringList labels(const std::vector<TimelineRowModel::Row>& rows)
{
    QStringList out;
    for (const auto& r : rows)
        out << QString(r.depth * 2, QLatin1Char(' ')) + r.label;
    return out;
}

QModelIndex find(const TimelineRowModel& m, const QString& label, const QModelIndex& parent = {})
{
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        if (i.data(TimelineRowModel::PathRole).toString().endsWith(label))
            return i;
        const QModelIndex sub = find(m, label, i);
        if (sub.isValid())
            return sub;
    }
    return {};
}

} // namespace

class TestTimelineRowModel : public QObject {
    Q_OBJECT

private slots:
    void structure()
    {
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(test::smallSession());
        const QStringList expected {
            QStringLiteral("Process 100 (python3)"),
            QStringLiteral("  thread 100 (main)"),
            QStringLiteral("    CUDA API"),
            QStringLiteral("    NVTX"),
            QStringLiteral("    NVTX (depth 1)"),
            QStringLiteral("GPU 0  NVIDIA H200"),
            QStringLiteral("  stream 7"),
            QStringLiteral("  stream 13"),
            QStringLiteral("  sm_active [%]"),
        };
        QCOMPARE(labels(m.rows()), expected);
        const auto rows = m.rows();
        QCOMPARE(rows[6].kind, Kind::Lane);
        QVERIFY(rows[6].gpu);
        QCOMPARE(rows[6].lane, 3);
        QCOMPARE(rows[8].kind, Kind::Counter);
        QCOMPARE(rows[8].counter, 0);
        QVERIFY(!rows[2].gpu);
        // Event counts roll up into groups.
        QCOMPARE(m.index(1, TimelineRowModel::EventsColumn).data().toString(), QStringLiteral("7"));
    }

    void collapseHidePinMove()
    {
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setSnapshot(test::smallSession());
        QSignalSpy layout(&m, &TimelineRowModel::rowsLayoutChanged);

        const QModelIndex thread = find(m, QStringLiteral("thread 100 (main)"));
        QVERIFY(thread.isValid());
        m.setExpanded(thread, false);
        m.setExpanded(thread, false); // no change: no signal
        QCOMPARE(layout.count(), 1);
        QCOMPARE(m.rows().size(), size_t(6)); // the thread's three lanes are gone

        const QModelIndex s13 = find(m, QStringLiteral("stream 13"));
        m.setVisible(s13, false);
        QCOMPARE(s13.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
        QVERIFY(!labels(m.rows()).join(QLatin1Char('|')).contains(QStringLiteral("stream 13")));

        const QModelIndex s7 = find(m, QStringLiteral("stream 7"));
        m.setPinned(s7, true);
        QCOMPARE(m.pinnedRows().size(), size_t(1));
        QCOMPARE(m.pinnedRows()[0].label, QStringLiteral("GPU 0  NVIDIA H200 · stream 7"));
        QVERIFY(!labels(m.rows()).join(QLatin1Char('|')).contains(QStringLiteral("stream 7")));
        QVERIFY(!m.setData(find(m, QStringLiteral("GPU 0  NVIDIA H200")), true, TimelineRowModel::PinnedRole));

        m.showAll();
        m.setPinned(s7, false);
        m.setExpanded(thread, true);
        // Reorder: the counter moves above the streams, and only among its siblings.
        const QModelIndex counter = find(m, QStringLiteral("sm_active [%]"));
        QVERIFY(m.moveUp(counter));
        QVERIFY(m.moveUp(m.index(1, 0, counter.parent())));
        QVERIFY(!m.moveUp(m.index(0, 0, counter.parent())));
        QCOMPARE(labels(m.rows()).mid(6),
            (QStringList {
                QStringLiteral("  sm_active [%]"), QStringLiteral("  stream 7"), QStringLiteral("  stream 13")}));
        QVERIFY(!m.moveRows(counter.parent(), 0, 1, QModelIndex(), 0));
        QVERIFY(m.moveDown(m.index(0, 0, counter.parent())));
        QCOMPARE(labels(m.rows())[7], QStringLiteral("  sm_active [%]"));

        m.expandAll(false);
        QCOMPARE(m.rows().size(), size_t(2));
        m.expandAll(true);
        QCOMPARE(m.rows().size(), size_t(9));
    }

    void manyHostRowsStartCollapsedWithSummaries()
    {
        // 5 threads x 4 host lanes = 20 > kMaxExpandedHostLanes, plus one GPU stream.
        auto m = std::make_shared<TimelineModel>();
        for (int t = 0; t < 5; ++t) {
            for (int d = 0; d < 4; ++d)
                m->lanes.push_back(test::makeLane(
                    *m, d < 2 ? LaneKind::CudaApi : LaneKind::Nvtx, 1, 10 + t, 0, 0, d % 2, "host", {{100, 200, "x"}}));
        }
        m->lanes.push_back(test::makeLane(*m, LaneKind::GpuStream, 1, 0, 0, 7, 0, "stream 7", {{100, 200, "k"}}));
        TimelineRowModel rows;
        QAbstractItemModelTester tester(&rows, QAbstractItemModelTester::FailureReportingMode::QtTest);
        rows.setSnapshot(SessionSnapshot::build(m, {}, {}));
        const auto r = rows.rows();
        // Process, 5 collapsed threads, GPU, stream: the GPU stays on the first screen.
        QCOMPARE(r.size(), size_t(8));
        for (int t = 0; t < 5; ++t) {
            QCOMPARE(r[size_t(1 + t)].kind, Kind::Group);
            QVERIFY(!r[size_t(1 + t)].expanded);
            // The summary is the thread's first lane (its CUDA API row).
            QCOMPARE(r[size_t(1 + t)].summaryLane, t * 4);
        }
        QCOMPARE(r[0].summaryLane, -1); // expanded groups have none
        rows.setExpanded(rows.indexForId(r[1].id), true);
        QCOMPARE(rows.rows().size(), size_t(12));
    }

    void emptyAndReplacedSnapshots()
    {
        TimelineRowModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(m.rowCount(), 0);
        m.setSnapshot(test::smallSession(false));
        QCOMPARE(m.rows().size(), size_t(8));
        m.setSnapshot(test::denseSession(1000, 1));
        // A process without host lanes still shows (a host-only or GPU-only recording names it).
        QCOMPARE(labels(m.rows()),
            (QStringList {QStringLiteral("Process 1 (bench)"), QStringLiteral("GPU 0"), QStringLiteral("  stream 7")}));
        m.setSnapshot(nullptr);
        QCOMPARE(m.rowCount(), 0);
    }
};

QTEST_MAIN(TestTimelineRowModel)
#include "tst_timelinerowmodel.moc"
