// SPDX-License-Identifier: MIT
// TimelineView: hit testing, mouse and keyboard navigation through the shared selection
// object (QSignalSpy), frames built off the GUI thread and replayed by paint, pixels where
// events and idle gaps are, and the LOD's bound on rectangles for a million events.
#include "settle.h"
#include "ui/session/selectionmodel.h"
#include "ui/style/colorscheme.h"
#include "ui/timeline/framescheduler.h"
#include "ui/timeline/timelinerowmodel.h"
#include "ui/timeline/timelineview.h"
#include "ui/timeline/timelineviewport.h"
#include "uifixtures.h"

#include <QApplication>
#include <QBackingStore>
#include <QFontDatabase>
#include <QPainter>
#include <QSignalSpy>
#include <QtTest>

#include <random>
#include <thread>

using namespace ws;

namespace {

constexpr TimeNs t0 = 1'000'000;

struct Fixture {
    SelectionModel selection;
    TimelineRowModel rows;
    TimelineView view {&selection, &rows};
    std::shared_ptr<const SessionSnapshot> snapshot;

    explicit Fixture(std::shared_ptr<const SessionSnapshot> s, QSize size = {1040, 400})
        : snapshot(std::move(s))
    {
        rows.setSnapshot(snapshot);
        view.resize(size);
        view.setSnapshot(snapshot);
        selection.reset({snapshot->begin(), snapshot->end()});
        view.show();
    }
    bool waitFrame()
    {
        return QTest::qWaitFor([this] { return view.isFrameCurrent(); }, 10000);
    }
    QPoint at(int lane, TimeNs t) const
    {
        const QRect r = view.laneRect(lane);
        return {view.eventArea().left() + int(std::floor(view.coordinates().timeToX(t))), r.center().y()};
    }
};

// QTest::mouseMove carries no buttons for widgets; drags are sent as plain events.
void send(QWidget* w, QEvent::Type type, QPoint pos, Qt::MouseButton button, Qt::MouseButtons buttons,
    Qt::KeyboardModifiers mods = {})
{
    QMouseEvent e(type, QPointF(pos), w->mapToGlobal(QPointF(pos)), button, buttons, mods);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT

    QRegion* m_paintRegions = nullptr; // the last paint event's region, while a test watches

protected:
    bool eventFilter(QObject* watched, QEvent* e) override
    {
        if (m_paintRegions && e->type() == QEvent::Paint)
            *m_paintRegions = static_cast<QPaintEvent*>(e)->region();
        return QObject::eventFilter(watched, e);
    }

private slots:
    void initTestCase() { QVERIFY(QFontDatabase::families().size() > 0); }

    void hitTesting_data()
    {
        QTest::addColumn<int>("lane");
        QTest::addColumn<qint64>("time");
        QTest::addColumn<int>("index"); // -1: nothing there
        QTest::newRow("gemm") << 3 << qint64(18'000) << 0;
        QTest::newRow("relu, first pixel") << 3 << qint64(50'100) << 1;
        QTest::newRow("idle gap on stream 7") << 3 << qint64(40'000) << -1;
        QTest::newRow("memcpy") << 4 << qint64(20'000) << 0;
        QTest::newRow("api: sync") << 0 << qint64(60'000) << 2;
        QTest::newRow("nvtx depth 1: backward") << 2 << qint64(70'000) << 1;
        QTest::newRow("after the last event") << 4 << qint64(99'000) << -1;
    }
    void hitTesting()
    {
        QFETCH(int, lane);
        QFETCH(qint64, time);
        QFETCH(int, index);
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        const auto hit = f.view.hitTest(f.at(lane, t0 + time));
        if (index < 0) {
            QVERIFY(!hit.isEvent());
        } else {
            QVERIFY(hit.isEvent());
            QCOMPARE(hit.lane, lane);
            QCOMPARE(int(hit.first), index);
            QCOMPARE(hit.count, 1u);
        }
        // Labels and the ruler are never events.
        QVERIFY(!f.view.hitTest(QPoint(10, f.at(lane, t0 + time).y())).isEvent());
        QVERIFY(!f.view.hitTest(QPoint(f.at(lane, t0 + time).x(), 5)).isEvent());
    }

    void counterHit()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        // The counter row is the last one; find it by scanning down the event area.
        const int x = f.at(3, t0 + 60'000).x();
        TimelineView::Hit hit;
        for (int y = f.view.eventArea().top(); y < f.view.height() && !hit.isCounter(); ++y)
            hit = f.view.hitTest({x, y});
        QVERIFY(hit.isCounter());
        QCOMPARE(hit.value, 40.0); // 40 holds from 50 us to 75 us
    }

    void clickSelectsAndDoubleClickFits()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        QSignalSpy selected(&f.selection, &SelectionModel::selectedEventChanged);
        QSignalSpy names(&f.selection, &SelectionModel::selectedNameChanged);
        const QPoint gemm = f.at(3, t0 + 18'000);
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, gemm);
        QCOMPARE(selected.count(), 1);
        QCOMPARE(f.selection.selectedEvent().lane, 3);
        QCOMPARE(f.selection.selectedEvent().index, 0u);
        QCOMPARE(f.selection.selectedEvent().name, QStringLiteral("gemm_kernel"));
        QCOMPARE(names.count(), 1);
        // Click on an idle gap clears it.
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, f.at(3, t0 + 40'000));
        QCOMPARE(selected.count(), 2);
        QVERIFY(!f.selection.selectedEvent().isValid());

        QSignalSpy view(&f.selection, &SelectionModel::viewRangeChanged);
        QTest::mouseDClick(&f.view, Qt::LeftButton, {}, gemm);
        QVERIFY(view.count() >= 1);
        // gemm is 24 us: fitted with 10% margin each side.
        QCOMPARE(f.selection.viewRange(), (TimeRange {t0 + 6'000 - 2'400, t0 + 30'000 + 2'400}));
        QVERIFY(f.selection.canGoBack());
        f.selection.goBack();
        QCOMPARE(f.selection.viewRange().begin, f.snapshot->begin());
    }

    void keyboardZoomAndPan()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        QSignalSpy spy(&f.selection, &SelectionModel::viewRangeChanged);
        f.selection.setViewRange({t0 + 20'000, t0 + 60'000});
        const TimeRange start = f.selection.viewRange();
        QTest::keyClick(&f.view, Qt::Key_W);
        QVERIFY(qAbs(double(f.selection.viewRange().duration()) - 0.8 * double(start.duration())) <= 2.0);
        QTest::keyClick(&f.view, Qt::Key_S);
        QVERIFY(qAbs(double(f.selection.viewRange().duration()) - double(start.duration())) <= 4.0);
        const TimeRange beforePan = f.selection.viewRange();
        QTest::keyClick(&f.view, Qt::Key_D);
        QCOMPARE(f.selection.viewRange().begin - beforePan.begin, beforePan.duration() / 10);
        QTest::keyClick(&f.view, Qt::Key_A);
        QCOMPARE(f.selection.viewRange().begin, beforePan.begin);
        QTest::keyClick(&f.view, Qt::Key_Plus);
        QVERIFY(f.selection.viewRange().duration() < beforePan.duration());
        QTest::keyClick(&f.view, Qt::Key_Home);
        QCOMPARE(f.selection.viewRange().begin, f.snapshot->begin());
        QCOMPARE(f.selection.viewRange().end, f.snapshot->end());
        QCOMPARE(spy.count(), 7);
        // The view never leaves the session by more than its margin.
        for (int i = 0; i < 50; ++i)
            QTest::keyClick(&f.view, Qt::Key_S);
        QVERIFY(f.selection.viewRange().duration() <= (f.snapshot->end() - f.snapshot->begin()) * 12 / 10 + 2);
    }

    void ctrlWheelZoomsAroundTheCursor()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        const QPoint p = f.at(3, t0 + 70'000);
        const TimeNs before = f.view.coordinates().xToTime(p.x() - f.view.eventArea().left());
        QWheelEvent wheel(QPointF(p), f.view.mapToGlobal(QPointF(p)), QPoint(), QPoint(0, 240), Qt::NoButton,
            Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(&f.view, &wheel);
        const TimelineCoordinates c = f.view.coordinates();
        QVERIFY(c.nsPerPx() < 0.7 * (100'000.0 * 1.2) / f.view.eventArea().width());
        QVERIFY(qAbs(c.xToTime(p.x() - f.view.eventArea().left()) - before) <= TimeNs(c.nsPerPx()) + 2);
    }

    void rangeSelectionAndZoomToIt()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        QSignalSpy range(&f.selection, &SelectionModel::timeRangeChanged);
        const QPoint a = f.at(3, t0 + 20'000);
        const QPoint b = f.at(3, t0 + 60'000);
        send(&f.view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton, Qt::ShiftModifier);
        send(&f.view, QEvent::MouseMove, (a + b) / 2, Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        send(&f.view, QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        send(&f.view, QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton, Qt::ShiftModifier);
        QVERIFY(range.count() >= 1);
        const TimeRange r = f.selection.timeRange();
        const double px = f.view.coordinates().nsPerPx();
        QVERIFY(qAbs(double(r.begin - (t0 + 20'000))) <= px + 1);
        QVERIFY(qAbs(double(r.end - (t0 + 60'000))) <= px + 1);
        // A range selection does not select an event and does not pan.
        QVERIFY(!f.selection.selectedEvent().isValid());
        QTest::keyClick(&f.view, Qt::Key_F);
        QCOMPARE(f.selection.viewRange(), r);
        QTest::keyClick(&f.view, Qt::Key_Escape);
        QVERIFY(f.selection.timeRange().isEmpty());

        // Dragging in the ruler selects too, without Shift.
        const QPoint ra(a.x(), 10), rb(b.x(), 10);
        send(&f.view, QEvent::MouseButtonPress, ra, Qt::LeftButton, Qt::LeftButton);
        send(&f.view, QEvent::MouseMove, rb, Qt::NoButton, Qt::LeftButton);
        send(&f.view, QEvent::MouseButtonRelease, rb, Qt::LeftButton, Qt::NoButton);
        QVERIFY(!f.selection.timeRange().isEmpty());
    }

    void dragPans()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        f.selection.setViewRange({t0 + 20'000, t0 + 60'000});
        QVERIFY(f.waitFrame());
        const double px = f.view.coordinates().nsPerPx();
        const QPoint a = f.at(3, t0 + 40'000);
        send(&f.view, QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
        send(&f.view, QEvent::MouseMove, a + QPoint(100, 0), Qt::NoButton, Qt::LeftButton);
        send(&f.view, QEvent::MouseButtonRelease, a + QPoint(100, 0), Qt::LeftButton, Qt::NoButton);
        QVERIFY(qAbs(double(f.selection.viewRange().begin - (t0 + 20'000)) + 100 * px) <= 2);
        QVERIFY(!f.selection.selectedEvent().isValid()); // a drag is not a click
    }

    // Drags pan on the grid of the view they started from (whole pixels), so each frame takes
    // the previous frame's folds over where they lie inside both views. Through random drags
    // (several moves each, both ways, up to beyond the width) and zooms, every frame the view
    // shows was built for the view's coordinates, the drag moved them by exactly its pixels,
    // and every lane's draw list equals a fresh fold of those coordinates (tst_timelineframe
    // shows that equal inputs give equal pixels, reused or not).
    void dragsReuseFoldsExactly_data()
    {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed = 1; seed <= 4; ++seed)
            QTest::addRow("seed %llu", seed) << seed;
    }
    void dragsReuseFoldsExactly()
    {
        QFETCH(quint64, seed);
        Fixture f(test::denseSession(150'000, seed));
        QVERIFY(f.waitFrame());
        std::mt19937_64 rng(seed);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const TimeNs span = f.snapshot->end() - f.snapshot->begin();
        f.selection.setViewRange({f.snapshot->begin() + span / 3, f.snapshot->begin() + span / 3 + span / 2000});
        QVERIFY(f.waitFrame());
        const QRect area = f.view.eventArea();
        qint64 reused = 0;
        for (int step = 0; step < 30; ++step) {
            const QString at = QStringLiteral("step %1").arg(step);
            if (step % 7 == 6) {
                f.view.zoomBy(0.5 + u(rng), u(rng) * area.width()); // a new grid
            } else {
                const TimelineCoordinates before = f.view.coordinates();
                const QPoint press(area.left() + int(u(rng) * area.width()), area.top() + 20);
                send(&f.view, QEvent::MouseButtonPress, press, Qt::LeftButton, Qt::LeftButton);
                int dx = 0;
                for (int move = 0; move < 3; ++move) {
                    dx = int((u(rng) - 0.5) * (move == 2 ? 2.5 : 0.6) * area.width());
                    send(&f.view, QEvent::MouseMove, press + QPoint(dx, 0), Qt::NoButton, Qt::LeftButton);
                    QVERIFY(f.waitFrame());
                    reused += f.view.frame()->rectsReused;
                }
                send(&f.view, QEvent::MouseButtonRelease, press + QPoint(dx, 0), Qt::LeftButton, Qt::NoButton);
                if (qAbs(dx) > 3) // a move of up to 3 px is a click, not a drag
                    QCOMPARE(f.view.coordinates().pixelShiftFrom(before), std::optional<int64_t>(-dx));
            }
            QVERIFY(f.waitFrame());
            const std::shared_ptr<const TimelineFrame> frame = f.view.frame();
            QVERIFY2(frame->coords == f.view.coordinates(), qPrintable(at));
            for (const FrameRowHits& row : frame->rows) {
                if (row.row.lane < 0)
                    continue;
                const auto lane = size_t(row.row.lane);
                const TimelineLane& l = f.snapshot->model->lanes[lane];
                std::vector<LodRect> fresh;
                foldLane(l.start, l.ends(), f.snapshot->indexFor(lane), frame->coords, fresh);
                QVERIFY2(row.rects == fresh, qPrintable(at + QStringLiteral(": lane %1").arg(lane)));
            }
        }
        QVERIFY2(reused > 100, qPrintable(QString::number(reused)));
    }

    void groupRowsCollapseOnClick()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        const size_t before = f.rows.rows().size();
        // The first row below the ruler is "Process 100 (python3)".
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, QPoint(20, TimelineView::kRulerHeight + 5));
        QCOMPARE(f.rows.rows().size(), size_t(5));
        QVERIFY(f.rows.rows().size() < before);
        // The API lane is no longer a row of its own: it is reached through the collapsed
        // process header (first row under the ruler), where arrows to it start.
        QCOMPARE(f.view.laneRect(0).top(), TimelineView::kRulerHeight);
    }

    void viewportZoomsPansAndRemembers()
    {
        SelectionModel selection;
        TimelineViewport viewport(&selection);
        // Without a session nothing moves.
        viewport.setView(0, 100);
        QCOMPARE(selection.viewRange(), TimeRange());
        viewport.setBounds(t0, t0 + 100'000);
        selection.reset({t0, t0 + 100'000});
        viewport.setView(t0 + 20'000, t0 + 60'000);
        QVERIFY(!viewport.canUndo()); // plain view changes are not history
        // Zooming in around pixel 100 of 400 keeps the time under it.
        const TimeNs anchor = viewport.coordinates(400).xToTime(100);
        viewport.zoomBy(0.5, 100, 400);
        QCOMPARE(selection.viewRange().duration(), TimeNs(20'000));
        QVERIFY(qAbs(viewport.coordinates(400).xToTime(100) - anchor) <= 1);
        viewport.panBy(0.5);
        QCOMPARE(selection.viewRange().begin, anchor - 5'000 + 10'000);
        // Fits are remembered; undo and redo walk back and forth.
        const TimeRange beforeFit = selection.viewRange();
        viewport.fitSpan(t0 + 50'000, t0 + 51'000);
        QCOMPARE(selection.viewRange(), (TimeRange {t0 + 49'900, t0 + 51'100}));
        QVERIFY(viewport.canUndo());
        viewport.undo();
        QCOMPARE(selection.viewRange(), beforeFit);
        QVERIFY(viewport.canRedo());
        viewport.redo();
        QCOMPARE(selection.viewRange(), (TimeRange {t0 + 49'900, t0 + 51'100}));
        // Reveal zooms in until the event is ~2% of the view, centred; it never zooms out.
        viewport.fitAll();
        viewport.reveal(t0 + 70'000, t0 + 70'100);
        QCOMPARE(selection.viewRange().duration(), TimeNs(5'000));
        QCOMPARE(selection.viewRange().begin + 2'500, t0 + 70'050);
        const TimeRange wide = selection.viewRange();
        viewport.reveal(t0 + 70'000, t0 + 70'200);
        QCOMPARE(selection.viewRange().duration(), wide.duration());
        // Views stay within the session (plus its margin).
        viewport.setView(t0 - 1'000'000, t0 + 5'000'000);
        QVERIFY(selection.viewRange().duration() <= 100'000 * 12 / 10 + 2);
        viewport.clearBounds();
        const TimeRange last = selection.viewRange();
        viewport.panBy(1.0);
        QCOMPARE(selection.viewRange(), last);
    }

    void frameSchedulerCoalescesRequests()
    {
        const auto snapshot = test::smallSession();
        int made = 0;
        FrameScheduler scheduler(
            [&]() -> std::optional<FrameRequest> {
                ++made;
                FrameRequest req;
                req.snapshot = snapshot;
                req.coords = TimelineCoordinates::fit(snapshot->begin(), snapshot->end(), 200);
                return req;
            },
            [] { return false; });
        std::vector<quint64> generations;
        QSignalSpy built(&scheduler, &FrameScheduler::frameBuilt);
        connect(&scheduler, &FrameScheduler::frameBuilt, this,
            [&](const std::shared_ptr<TimelineFrame>& f) { generations.push_back(f ? f->generation : 0); });
        // Five requests while the first build runs: one build now, one for the newest state.
        for (int i = 0; i < 5; ++i)
            scheduler.request();
        QVERIFY(scheduler.isBuilding());
        QTRY_COMPARE_WITH_TIMEOUT(built.count(), 2, 10000);
        QVERIFY(ws::test::settle({{"timeline frames", 1}}));
        QCOMPARE(built.count(), 2);
        QCOMPARE(made, 2);
        QCOMPARE(generations, (std::vector<quint64> {1, 2}));
        QCOMPARE(scheduler.generation(), quint64(2));
        QVERIFY(!scheduler.isBuilding());
        // Nothing to draw: no build starts.
        FrameScheduler idle([] { return std::optional<FrameRequest>(); }, [] { return false; });
        idle.request();
        QVERIFY(!idle.isBuilding());
        QCOMPARE(idle.generation(), quint64(0));
    }

    // The owner goes away: shutdown() returns only after the build in flight has stopped, and
    // neither that build nor a coalesced follow-up is delivered.
    void frameSchedulerShutdownDropsTheBuildInFlight()
    {
        const auto snapshot = test::smallSession();
        std::atomic<int> made {0};
        FrameScheduler scheduler(
            [&]() -> std::optional<FrameRequest> {
                ++made;
                FrameRequest req;
                req.snapshot = snapshot;
                req.coords = TimelineCoordinates::fit(snapshot->begin(), snapshot->end(), 200);
                return req;
            },
            [] { return true; }); // always stale: only the shutdown stops the builds
        QSignalSpy built(&scheduler, &FrameScheduler::frameBuilt);
        scheduler.request();
        scheduler.request();
        QVERIFY(scheduler.isBuilding());
        scheduler.shutdown();
        QVERIFY(!scheduler.isBuilding());
        QVERIFY(ws::test::settle({{"timeline frames", 1}}));
        QCOMPARE(built.count(), 0);
        QCOMPARE(made.load(), 1);
        // A later request builds again.
        scheduler.request();
        QVERIFY(built.wait(10000));
        QVERIFY(built.at(0).at(0).value<std::shared_ptr<TimelineFrame>>() != nullptr);
        scheduler.shutdown();
    }

    void framesAreBuiltOffThePaintPath()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        QSignalSpy ready(&f.view, &TimelineView::frameReady);
        f.selection.setViewRange({t0 + 1'000, t0 + 2'000});
        // No event loop has run: the new frame cannot exist yet, and painting the stale one
        // (moved into place) must still work.
        QVERIFY(!f.view.isFrameCurrent());
        const QImage stale = f.view.grab().toImage();
        QVERIFY(!stale.isNull());
        QVERIFY(ready.wait(10000));
        QVERIFY(f.waitFrame());
    }

    // While the frame of a drag is built, the last frame is shown moved by exactly the drag's
    // pixels (the drag is on its grid), not stretched by a fraction of one.
    void aStaleFrameMovesByTheDragsPixels()
    {
        Fixture f(test::denseSession(150'000, 5));
        QVERIFY(f.waitFrame());
        // Deep enough that a pixel is a fraction of a nanosecond: the view's start, a whole
        // nanosecond, is then up to several pixels from where the drag put the grid.
        const QRect area = f.view.eventArea();
        const TimeNs at = f.snapshot->begin() + (f.snapshot->end() - f.snapshot->begin()) / 3;
        f.selection.setViewRange({at, at + TimeNs(area.width() * 3 / 10)});
        QVERIFY(f.waitFrame());
        QVERIFY(f.view.coordinates().nsPerPx() < 0.5);
        QImage before = f.view.grab().toImage();
        for (const int dx : {37, -113, 5}) {
            const QPoint press(area.center().x(), area.top() + 20);
            send(&f.view, QEvent::MouseButtonPress, press, Qt::LeftButton, Qt::LeftButton);
            send(&f.view, QEvent::MouseMove, press + QPoint(dx, 0), Qt::NoButton, Qt::LeftButton);
            // No event loop has run: the drag's frame cannot have arrived.
            QVERIFY(!f.view.isFrameCurrent());
            const QImage moved = f.view.grab().toImage();
            send(&f.view, QEvent::MouseButtonRelease, press + QPoint(dx, 0), Qt::LeftButton, Qt::NoButton);
            int compared = 0;
            for (int y = area.top(); y <= area.bottom(); ++y) {
                for (int x = area.left() + std::max(dx, 0); x <= area.right() + std::min(dx, 0); ++x) {
                    if (moved.pixel(x, y) != before.pixel(x - dx, y))
                        QFAIL(qPrintable(QStringLiteral("drag %1: pixel (%2, %3) differs").arg(dx).arg(x).arg(y)));
                    ++compared;
                }
            }
            QVERIFY(compared > 10000);
            QVERIFY(f.waitFrame());
            before = f.view.grab().toImage();
        }
    }

    void pixelsShowEventsAndIdleGaps()
    {
        Fixture f(test::smallSession());
        QVERIFY(f.waitFrame());
        const QImage img = f.view.grab().toImage();
        const QPoint gemm = f.at(3, t0 + 18'000);
        QCOMPARE(img.pixel(gemm) & 0xffffff, ColorScheme::forName("gemm_kernel") & 0xffffff);
        const QPoint memcpy = f.at(4, t0 + 20'000);
        QCOMPARE(img.pixel(memcpy) & 0xffffff, ColorScheme::forName("[CUDA memcpy Host-to-Device]") & 0xffffff);
        // GPU idle time is shaded, distinct from the event colours and from host rows.
        const ColorScheme colors(f.view.palette());
        // (32 us: left of the "idle 20.000 µs" label centred in the gap)
        QCOMPARE(QColor(img.pixel(f.at(3, t0 + 32'000))).rgb() & 0xffffff, colors.gpuIdle.rgb() & 0xffffff);
        QVERIFY((img.pixel(f.at(1, t0 + 97'000)) & 0xffffff) != (colors.gpuIdle.rgb() & 0xffffff));
        // The frame holds one rect per visible event here (nothing is small enough to fold).
        QCOMPARE(f.view.frame()->eventsCovered, qint64(9));
    }

    // A frame's image stops at its last row; the view paints the plain background below it,
    // and a frame built for the view is copied in unchanged (every pixel of the rows).
    void frameImageStopsAtTheLastRow_data()
    {
        QTest::addColumn<int>("height");
        QTest::addColumn<bool>("rowsFillTheView");
        QTest::newRow("rows end above the bottom") << 400 << false;
        QTest::newRow("rows fill the view") << 110 << true;
    }
    void frameImageStopsAtTheLastRow()
    {
        QFETCH(int, height);
        QFETCH(bool, rowsFillTheView);
        Fixture f(test::smallSession(), {1040, height});
        QVERIFY(f.waitFrame());
        const auto frame = f.view.frame();
        const int areaTop = f.view.eventArea().top() + frame->layerHeight[0]; // the pinned rows
        const QRect area(0, areaTop, f.view.eventArea().right() + 1, f.view.height() - areaTop);
        QCOMPARE(frame->layerHeight[1], area.height());
        int bottom = 0;
        for (const FrameRowHits& r : frame->rows) {
            if (r.row.layer == 1)
                bottom = std::max(bottom, r.row.y + r.row.height - frame->layerTop[1]);
        }
        QVERIFY(bottom > 0);
        const QImage& img = frame->image(1);
        QCOMPARE(img.height(), std::min(bottom, area.height()));
        QCOMPARE(img.height() == area.height(), rowsFillTheView);
        QCOMPARE(img.width(), f.view.eventArea().right() + 1);

        const QImage grab = f.view.grab().toImage().convertToFormat(QImage::Format_RGB32);
        QCOMPARE(grab.copy(QRect(0, area.top(), img.width(), img.height())), img);
        int notBackground = 0;
        for (int y = area.top() + img.height(); y <= area.bottom(); ++y) {
            for (int x = 0; x < img.width(); ++x)
                notBackground += grab.pixel(x, y) != frame->background ? 1 : 0;
        }
        QCOMPARE(notBackground, 0);
    }

    // A new frame repaints only the rows while nothing but the background is below them: what
    // the window shows (its backing store) stays what a full repaint draws, through pans,
    // zooms, rows collapsing and expanding, and a range selection set and cleared.
    void partialRepaintsMatchAFullOne()
    {
        Fixture f(test::smallSession(false), {1040, 400});
        QVERIFY(f.waitFrame());
        QVERIFY(QTest::qWaitForWindowExposed(&f.view));
        auto* store = dynamic_cast<QImage*>(f.view.backingStore()->paintDevice());
        QVERIFY(store); // the raster backing store of the offscreen platform
        int partial = 0;
        QRegion lastPaint;
        f.view.installEventFilter(this);
        m_paintRegions = &lastPaint;
        const auto settleAndCompare = [&](const char* step) {
            if (!f.waitFrame())
                return false;
            QTest::qWait(30); // the paint the frame asked for, and the stale-paint timer
            QCoreApplication::processEvents();
            if (lastPaint.boundingRect().height() < f.view.height())
                ++partial;
            const QImage full = f.view.grab().toImage().convertToFormat(QImage::Format_RGB32);
            const QImage shown = store->copy(QRect(QPoint(0, 0), f.view.size())).convertToFormat(QImage::Format_RGB32);
            if (shown != full) {
                qWarning("backing store differs from a full repaint after: %s", step);
                return false;
            }
            return true;
        };
        const TimeNs span = f.snapshot->end() - f.snapshot->begin();
        QVERIFY(settleAndCompare("open"));
        f.selection.setViewRange({t0 + span / 4, t0 + span / 2});
        QVERIFY(settleAndCompare("zoom"));
        f.view.panBy(0.1);
        QVERIFY(settleAndCompare("pan"));
        f.rows.expandAll(false);
        QVERIFY(settleAndCompare("collapse"));
        f.view.panBy(-0.2);
        QVERIFY(settleAndCompare("pan collapsed"));
        f.rows.expandAll(true);
        QVERIFY(settleAndCompare("expand"));
        f.selection.setTimeRange({t0 + span / 3, t0 + span / 3 + span / 20});
        QVERIFY(settleAndCompare("range"));
        f.view.panBy(0.05);
        QVERIFY(settleAndCompare("pan with range"));
        f.selection.clearTimeRange();
        QVERIFY(settleAndCompare("range cleared"));
        f.view.panBy(0.05);
        QVERIFY(settleAndCompare("pan after range"));
        f.view.zoomBy(0.5, 100);
        QVERIFY(settleAndCompare("zoom in"));
        m_paintRegions = nullptr;
        f.view.removeEventFilter(this);
        QVERIFY2(partial >= 4, qPrintable(QString::number(partial))); // the rows end above the bottom
    }

    // The rows are written straight into the window's backing store (RasterBuffer, one store
    // per pixel); grab() paints into a QPixmap, where they are drawn from the frame's image. The
    // two agree after zooms, pans of many sizes (whole pixels and fractions), with rows scrolled,
    // a selected event and a range selection, for full repaints and for paint regions that cut
    // rows, labels and the label column; and a partial paint writes nothing outside its region.
    void rowsWrittenIntoTheWindowEqualTheFramesImage_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("scrolled");
        QTest::addColumn<QPoint>("inWindow"); // where the view sits in a parent window; (0, 0): it is the window
        QTest::newRow("1040x400") << QSize(1040, 400) << false << QPoint();
        QTest::newRow("777x170, rows scrolled") << QSize(777, 170) << true << QPoint();
        QTest::newRow("1501x250, rows scrolled") << QSize(1501, 250) << true << QPoint();
        QTest::newRow("900x300 at (37, 23) in a window") << QSize(900, 300) << false << QPoint(37, 23);
        QTest::newRow("700x200 at (5, 61), rows scrolled") << QSize(700, 200) << true << QPoint(5, 61);
    }
    void rowsWrittenIntoTheWindowEqualTheFramesImage()
    {
        QFETCH(QSize, size);
        QFETCH(bool, scrolled);
        QFETCH(QPoint, inWindow);
        QWidget window; // before the fixture: the view goes first
        Fixture f(test::smallSession(), size);
        if (!inWindow.isNull()) {
            // The window's backing store holds the view at an offset: the rows must land there.
            f.view.setParent(&window);
            f.view.move(inWindow);
            window.resize(
                f.view.size() + QSize(inWindow.x() + 19, inWindow.y() + 11)); // (the view keeps a minimum height)
            window.show();
            f.view.show();
        }
        QVERIFY(f.waitFrame());
        QVERIFY(QTest::qWaitForWindowExposed(f.view.window()));
        auto* store = dynamic_cast<QImage*>(f.view.backingStore()->paintDevice());
        QVERIFY(store);
        if (scrolled) {
            f.view.scrollToLane(int(f.snapshot->model->lanes.size()) - 1);
            QVERIFY(f.view.frame()->layerTop[1] > 0 || f.waitFrame());
        }
        QRegion lastPaint;
        f.view.installEventFilter(this);
        m_paintRegions = &lastPaint;
        std::mt19937 rng(5);
        const auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        const QRect onStore(f.view.mapTo(f.view.window(), QPoint(0, 0)), f.view.size());
        QCOMPARE(onStore.topLeft(), inWindow);
        QVERIFY(store->rect().contains(onStore));
        const auto shown = [&] { return store->copy(onStore).convertToFormat(QImage::Format_RGB32); };
        const int direct0 = f.view.rowLayersWrittenDirectly();
        const auto compare = [&](const QString& step) {
            if (!f.waitFrame())
                return false;
            QTest::qWait(30);
            QCoreApplication::processEvents();
            const QImage full = f.view.grab().toImage().convertToFormat(QImage::Format_RGB32);
            if (shown() != full) {
                qWarning("backing store differs from the frame's image after: %s", qPrintable(step));
                return false;
            }
            // Partial paints: the region's pixels are painted again over a colour nothing draws,
            // and nothing outside the region changes.
            for (int i = 0; i < 4; ++i) {
                QRegion region(
                    uniform(0, size.width() - 40), uniform(0, size.height() - 20), uniform(1, 500), uniform(1, 90));
                region += QRect(uniform(0, size.width() / 2), uniform(0, size.height() - 10), uniform(1, 300), 7);
                region &= f.view.rect();
                QPainter(store).fillRect(onStore, QColor(0, 255, 0));
                f.view.repaint(region);
                const QImage after = shown();
                int wrong = 0;
                for (int y = 0; y < after.height(); ++y) {
                    for (int x = 0; x < after.width(); ++x) {
                        const QRgb want = lastPaint.contains(QPoint(x, y)) ? full.pixel(x, y) : qRgb(0, 255, 0);
                        wrong += after.pixel(x, y) != want ? 1 : 0;
                    }
                }
                if (wrong != 0 || !(region - lastPaint).isEmpty()) {
                    qWarning("a partial paint after %s: %d pixels differ", qPrintable(step), wrong);
                    return false;
                }
            }
            f.view.repaint();
            return shown() == full;
        };
        const TimeNs span = f.snapshot->end() - f.snapshot->begin();
        QVERIFY(compare(QStringLiteral("open")));
        f.selection.setViewRange({t0 + span / 5, t0 + span / 5 + span / 3});
        QVERIFY(compare(QStringLiteral("zoom")));
        const int w = f.view.eventArea().width();
        for (const double px : {1.0, -1.0, 7.0, 64.0, -33.0, 0.5, 12.25, double(w) / 3, -double(w) + 5}) {
            f.view.panBy(px / w);
            QVERIFY(compare(QStringLiteral("pan by %1 px").arg(px)));
        }
        f.view.zoomBy(0.37, 211);
        QVERIFY(compare(QStringLiteral("zoom in")));
        QTest::mouseClick(&f.view, Qt::LeftButton, {}, f.at(3, t0 + 18'000));
        QVERIFY(compare(QStringLiteral("selected event")));
        f.selection.setTimeRange({t0 + span / 3, t0 + span / 3 + span / 20});
        QVERIFY(compare(QStringLiteral("range")));
        f.view.panBy(0.05);
        QVERIFY(compare(QStringLiteral("pan with range")));
        m_paintRegions = nullptr;
        f.view.removeEventFilter(this);
        // The rows went the direct way (the offscreen platform's backing store is an RGB32 image).
        QVERIFY(f.view.rowLayersWrittenDirectly() > direct0);
    }

    // renderLabel measures first and elides only what does not fit: the same image as eliding
    // every text, at widths around the text's own.
    void labelsAreElidedOnlyWhenTheyDoNotFit_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("delta"); // bucket = the text's advance + delta
        QTest::addColumn<bool>("bold");
        for (const QString& text : {QStringLiteral("gemm_kernel"), QStringLiteral("1,234 × flash_attn_fwd_kernel"),
                 QStringLiteral("ab"), QStringLiteral("cudaLaunchKernel_v7000")}) {
            for (const int delta : {-40, -9, -1, 0, 1, 2, 9})
                QTest::addRow("%s %+d", qPrintable(text), delta) << text << delta << (delta == 1);
        }
    }
    void labelsAreElidedOnlyWhenTheyDoNotFit()
    {
        QFETCH(QString, text);
        QFETCH(int, delta);
        QFETCH(bool, bold);
        QFont font = QApplication::font();
        font.setBold(bold);
        const QFontMetrics fm(font);
        const int bucket = std::max(8, fm.horizontalAdvance(text) + delta);
        // The reference: elide, then measure what is left.
        const QString elided = fm.elidedText(text, Qt::ElideRight, bucket);
        QImage expected;
        if (elided.size() > 1 && elided != QStringLiteral("…")) {
            expected = QImage(
                std::max(1, std::min(bucket, fm.horizontalAdvance(elided) + 1)), fm.height(), QImage::Format_RGB32);
            expected.fill(0xff336699u);
            QPainter p(&expected);
            p.setFont(font);
            p.setPen(QColor::fromRgb(0xffffffffu));
            p.drawText(0, fm.ascent(), elided);
        }
        const QImage got
            = renderLabel(text, bucket, 0xff336699u, 0xffffffffu, QApplication::font(), bold, Qt::ElideRight);
        QCOMPARE(got.isNull(), expected.isNull());
        QCOMPARE(got.size(), expected.size());
        QCOMPARE(got, expected);
        // With the advance measured beforehand (the slice label cache keeps it per text).
        const int advance = labelAdvance(text, QApplication::font(), bold);
        QCOMPARE(advance, fm.horizontalAdvance(text));
        QCOMPARE(
            renderLabel(text, bucket, 0xff336699u, 0xffffffffu, QApplication::font(), bold, Qt::ElideRight, advance),
            expected);
        // A text that fits is the same image in every wider bucket (the cache keeps one).
        if (advance < bucket)
            QCOMPARE(renderLabel(text, bucket + 40, 0xff336699u, 0xffffffffu, QApplication::font(), bold,
                         Qt::ElideRight, advance),
                expected);
    }

    // Slice labels are cached per worker thread (one image for a text that fits any wider
    // slice): frames built one after the other while zooming, on a warm cache, equal frames
    // built on fresh threads (fresh caches).
    void cachedLabelsEqualFreshOnes()
    {
        const auto snapshot = test::smallSession(false);
        const auto request = [&](int width) {
            FrameRequest req;
            req.snapshot = snapshot;
            req.coords = TimelineCoordinates::fit(snapshot->begin(), snapshot->end(), width);
            req.style.font = QApplication::font();
            for (int lane = 0; lane < int(snapshot->model->lanes.size()); ++lane) {
                FrameRow row;
                row.lane = lane;
                row.y = lane * 22;
                row.height = 22;
                row.background = 0xffffffffu;
                req.rows.push_back(row);
            }
            req.layerHeight[1] = int(req.rows.size()) * 22;
            return req;
        };
        qint64 labels = 0;
        for (const int width : {1600, 1500, 1100, 900, 700, 520, 400, 300, 1600, 700}) {
            const auto warm = buildTimelineFrame(request(width));
            std::shared_ptr<TimelineFrame> fresh;
            std::thread([&] { fresh = buildTimelineFrame(request(width)); }).join();
            QVERIFY(warm && fresh);
            QCOMPARE(warm->labelCount, fresh->labelCount);
            QVERIFY2(warm->image(1) == fresh->image(1), qPrintable(QString::number(width)));
            labels += warm->labelCount;
        }
        QVERIFY(labels > 20);
    }

    // The ruler copies its tick labels from images drawn once per text: the same pixels as
    // drawing every text, through zooms, pans, deep zooms (relative "+..." ticks and a bold
    // first one), a font change and a theme change.
    void rulerTextCacheDrawsWhatDrawTextDraws()
    {
        Fixture f(test::smallSession(), {1040, 300});
        QVERIFY(f.waitFrame());
        const auto ruler = [&] {
            const QRect r(0, 0, f.view.width(), f.view.eventArea().top());
            return f.view.grab(r).toImage().convertToFormat(QImage::Format_RGB32);
        };
        const auto compare = [&](const char* step) {
            if (!f.waitFrame())
                return false;
            f.view.setRulerCachesText(true);
            const QImage cached = ruler();
            const int labels = f.view.rulerCachedLabels();
            f.view.setRulerCachesText(false);
            const QImage drawn = ruler();
            f.view.setRulerCachesText(true);
            if (labels == 0 || cached != drawn) {
                qWarning("ruler differs (or nothing cached: %d) after: %s", labels, step);
                return false;
            }
            return true;
        };
        const TimeNs span = f.snapshot->end() - f.snapshot->begin();
        QVERIFY(compare("open"));
        f.view.zoomBy(0.8, 300);
        QVERIFY(compare("zoom"));
        f.view.panBy(0.07);
        QVERIFY(compare("pan"));
        f.selection.setViewRange({t0 + span / 2, t0 + span / 2 + 40});
        QVERIFY(compare("deep zoom"));
        f.view.panBy(0.33);
        QVERIFY(compare("deep pan"));
        for (int i = 0; i < 24; ++i) { // new texts on every pan: the cache grows (and rehashes)
            f.view.panBy(0.6);
            QVERIFY(compare("pans"));
        }
        QFont big = f.view.font();
        big.setPointSizeF(big.pointSizeF() * 1.5);
        f.view.setFont(big);
        QVERIFY(compare("font"));
        QPalette dark = f.view.palette();
        dark.setColor(QPalette::Window, QColor(0x30, 0x30, 0x30));
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x20));
        dark.setColor(QPalette::WindowText, QColor(0xe0, 0xe0, 0xe0));
        dark.setColor(QPalette::Text, QColor(0xe0, 0xe0, 0xe0));
        f.view.setPalette(dark);
        QVERIFY(compare("theme"));
        f.view.fitAll();
        QVERIFY(compare("fit"));
    }

    void millionEventsFoldToPixels()
    {
        const auto s = test::denseSession(1'000'000, 3);
        QVERIFY(s->indexFor(0) != nullptr); // a lane this long gets a LOD index
        Fixture f(s, {1240, 300});
        QVERIFY(f.waitFrame());
        const auto frame = f.view.frame();
        const int width = f.view.eventArea().width();
        // Group headers are rows of the frame too; the lane is the one with events.
        const auto laneRow = std::find_if(
            frame->rows.begin(), frame->rows.end(), [](const FrameRowHits& r) { return r.row.lane == 0; });
        QVERIFY(laneRow != frame->rows.end());
        const auto& rects = laneRow->rects;
        QVERIFY2(rects.size() <= size_t(2 * width), qPrintable(QString::number(rects.size())));
        QCOMPARE(frame->eventsCovered, qint64(1'000'000));
        qInfo("1M events, full view: %zu rects, frame built in %.2f ms", rects.size(), frame->buildMs);
        // Bursts of 10,000 events stay apart (their idle gaps are a few pixels wide).
        QVERIFY(rects.size() >= 50);
        // A folded run under the mouse reports how many events it holds.
        const auto& fold = rects[rects.size() / 2];
        QVERIFY(fold.count > 1);
        const auto hit
            = f.view.hitTest({f.view.eventArea().left() + (fold.x0 + fold.x1) / 2, f.view.laneRect(0).center().y()});
        QVERIFY(hit.isEvent());
        QCOMPARE(hit.first, fold.first);
        QCOMPARE(hit.count, fold.count);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
