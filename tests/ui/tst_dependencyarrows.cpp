// SPDX-License-Identifier: MIT
// Dependency arrows on the timeline (issue 20 item 5): a fork-join over three streams written
// to a session file and opened by SessionDocument (which derives the dependencies), shown in
// a real TimelineView offscreen. Pixel probes at the places computed here from the view's own
// geometry (lane rows, time -> x): the record and wait markers and the wait -> consumer arrow
// are drawn in the dependency colour; hidden, they are not; selecting the join kernel outlines
// the kernels it waited for, and only then.
#include "streamdepsession.h"

#include "core/model/streamdependencies.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "ui/mainwindow.h"
#include "ui/session/selectionmodel.h"
#include "ui/session/sessiondocument.h"
#include "ui/session/sessionsnapshot.h"
#include "ui/timeline/dependencypainter.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ws;
using namespace ws::test;

namespace {

// The fork-join of ws-example-stream-deps, one iteration: produce on 1; consume_b, consume_c
// on 2 and 3 after it; combine on 1 after both. Kernels of 40 µs, calls 2 µs apart.
std::vector<DepCall> forkJoin()
{
    return {launch(1, "produce", 40'000), record(0xa0, 1), wait(2, 0xa0), wait(3, 0xa0), launch(2, "consume_b", 40'000),
        launch(3, "consume_c", 40'000), record(0xb0, 2), record(0xc0, 3), wait(1, 0xb0), wait(1, 0xc0),
        launch(1, "combine", 40'000)};
}

// Whether the dependency colour is within 1 px of `at`.
bool inked(const QImage& image, QPoint at)
{
    const QRgb want = DependencyPainter::color().rgb() & 0xffffff;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            const QPoint q = at + QPoint(dx, dy);
            if (image.rect().contains(q) && (image.pixel(q) & 0xffffff) == want)
                return true;
        }
    return false;
}

} // namespace

class TestDependencyArrows : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;      // the fork-join session
    QString m_plainPath; // a session without event_op rows
    std::shared_ptr<const SessionSnapshot> m_snapshot;

    int streamLane(uint32_t stream) const
    {
        const auto& lanes = m_snapshot->model->lanes;
        for (size_t i = 0; i < lanes.size(); ++i)
            if (lanes[i].kind == LaneKind::GpuStream && lanes[i].streamId == stream)
                return static_cast<int>(i);
        return -1;
    }

    // Where the view must have drawn: its own coordinates and rows.
    static QPoint at(const TimelineView& view, int lane, TimeNs t)
    {
        const QRect row = view.laneRect(lane);
        return {row.left() + static_cast<int>(std::floor(view.coordinates().timeToX(t))), row.top() + 4};
    }

private slots:
    void initTestCase()
    {
        QCoreApplication::setOrganizationName(QStringLiteral("warpscope-test-dependencyarrows"));
        {
            // A session without event_op rows, for the menu item's greyed-out state.
            m_plainPath = m_dir.filePath("plain.wscope");
            SessionWriter w(m_plainPath.toStdString());
            attachLaneCache(w);
            w.write(streamDepSession({launch(1, "a"), launch(2, "b")}));
            w.commit();
        }
        m_path = m_dir.filePath("forkjoin.wscope");
        const std::string path = m_path.toStdString();
        {
            SessionWriter w(path);
            attachLaneCache(w);
            SessionData d = streamDepSession(forkJoin(), {2'000, 5'000, true});
            anchorEventOps(d); // as ingest does
            w.write(d);
            w.commit();
        }
        SessionDocument document;
        QSignalSpy loaded(&document, &SessionDocument::loaded);
        document.open(QString::fromStdString(path));
        QVERIFY(loaded.wait(30000));
        m_snapshot = loaded.at(0).at(0).value<std::shared_ptr<const SessionSnapshot>>();
        QVERIFY(m_snapshot);
        QCOMPARE(m_snapshot->dependencies.size(), size_t(4)); // the loader derived them
    }

    void arrowsDrawnAndHidden()
    {
        SelectionModel selection;
        TimelineRowModel rows;
        TimelineView view(&selection, &rows);
        rows.setSnapshot(m_snapshot);
        view.resize(1400, 500);
        view.setSnapshot(m_snapshot);
        selection.reset({m_snapshot->begin(), m_snapshot->end()});
        selection.setViewRange({m_snapshot->begin() - 2'000, m_snapshot->end() + 2'000});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY_WITH_TIMEOUT(view.isFrameCurrent(), 10000);
        QVERIFY(view.hasDependencies());
        QVERIFY(view.dependenciesVisible()); // on by default
        const QImage shown = view.grab().toImage();
        // With WS_SCREENSHOT_DIR set, the image is kept there (dependency-arrows.png).
        if (const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR"); !dir.isEmpty())
            shown.save(dir + "/dependency-arrows.png");
        view.setDependenciesVisible(false);
        const QImage hidden = view.grab().toImage();

        int probes = 0;
        for (const StreamDependency& d : m_snapshot->dependencies) {
            const int a = streamLane(d.producerStream), b = streamLane(d.consumerStream);
            QVERIFY(a >= 0 && b >= 0);
            QVERIFY(!view.laneRect(a).isEmpty() && !view.laneRect(b).isEmpty());
            const QPoint record = at(view, a, d.recordTime);
            const QPoint wait = at(view, b, d.waitTime);
            const QPoint consumer = at(view, b, d.consumerStart);
            // Halfway along the wait -> consumer arrow (the same row: a horizontal line).
            const QPoint along((wait.x() + consumer.x()) / 2, wait.y());
            QVERIFY2(consumer.x() - wait.x() > 20, "the consumer starts well after the wait in this session");
            for (const auto& [what, p] : {std::pair {"record", record}, {"wait", wait}, {"wait -> consumer", along}}) {
                QVERIFY2(inked(shown, p),
                    qPrintable(QString("%1 of event 0x%2 at (%3, %4) not drawn")
                                   .arg(what)
                                   .arg(d.event, 0, 16)
                                   .arg(p.x())
                                   .arg(p.y())));
                QVERIFY2(!inked(hidden, p), qPrintable(QString("%1 still drawn when hidden").arg(what)));
                ++probes;
            }
        }
        QCOMPARE(probes, 12);
    }

    void viewMenuToggle()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        auto* toggle = w.findChild<QAction*>(QStringLiteral("showDependencies"));
        QVERIFY(toggle);
        QVERIFY(toggle->isCheckable());
        QVERIFY(toggle->isChecked()); // on by default
        QSignalSpy loaded(&w, &MainWindow::sessionLoaded);
        w.openFile(m_plainPath);
        QVERIFY(loaded.wait(30000));
        QVERIFY(!toggle->isEnabled()); // nothing to show
        w.openFile(m_path);
        QVERIFY(loaded.wait(30000));
        QVERIFY(toggle->isEnabled());
        QVERIFY(w.timelineView()->hasDependencies());
        QVERIFY(w.timelineView()->dependenciesVisible());
        toggle->setChecked(false);
        QVERIFY(!w.timelineView()->dependenciesVisible());
        toggle->setChecked(true);
        QVERIFY(w.timelineView()->dependenciesVisible());
    }

    void selectedKernelShowsWhatItWaitedFor()
    {
        SelectionModel selection;
        TimelineRowModel rows;
        TimelineView view(&selection, &rows);
        rows.setSnapshot(m_snapshot);
        view.resize(1400, 500);
        view.setSnapshot(m_snapshot);
        selection.reset({m_snapshot->begin(), m_snapshot->end()});
        selection.setViewRange({m_snapshot->begin() - 2'000, m_snapshot->end() + 2'000});
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY_WITH_TIMEOUT(view.isFrameCurrent(), 10000);
        const QImage before = view.grab().toImage();

        // Select combine (stream 1, its second kernel): it waited for consume_b and consume_c.
        const int lane1 = streamLane(1);
        const TimelineLane& l = m_snapshot->model->lanes[static_cast<size_t>(lane1)];
        QCOMPARE(l.size(), size_t(2));
        EventSelection combine;
        combine.lane = lane1;
        combine.index = 1;
        combine.ref = l.ref[1];
        combine.start = l.start[1];
        combine.end = l.endAt(1);
        combine.name = "combine";
        selection.setSelectedEvent(combine);
        const QImage after = view.grab().toImage();
        if (const QString dir = qEnvironmentVariable("WS_SCREENSHOT_DIR"); !dir.isEmpty())
            after.save(dir + "/dependency-arrows-selected.png");

        int outlined = 0;
        for (const StreamDependency& d : m_snapshot->dependencies) {
            const int lane = streamLane(d.producerStream);
            const QRect row = view.laneRect(lane);
            const double x0 = view.coordinates().timeToX(d.producerStart);
            const double x1 = view.coordinates().timeToX(d.producerEnd);
            // The outline's top edge, in the middle of the producer (clear of the markers).
            const QPoint top(row.left() + static_cast<int>((x0 + x1) / 2), row.top() + 2);
            const bool waitedForByCombine = d.consumer.id == combine.ref.rowid();
            QCOMPARE(inked(after, top), waitedForByCombine);
            QVERIFY(!inked(before, top));
            outlined += waitedForByCombine ? 1 : 0;
        }
        QCOMPARE(outlined, 2);
    }
};

QTEST_MAIN(TestDependencyArrows)
#include "tst_dependencyarrows.moc"
