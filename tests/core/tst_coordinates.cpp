// SPDX-License-Identifier: MIT
// The timeline's time <-> pixel maths (core/timeline/timelinecoordinates.h), data-driven.
#include "core/timeline/timelinecoordinates.h"

#include <QtTest>

#include <random>

using ws::PixelSpan;
using ws::TimelineCoordinates;
using ws::TimeNs;

class TestCoordinates : public QObject {
    Q_OBJECT

private slots:
    void timeToX_data()
    {
        QTest::addColumn<qint64>("viewStart");
        QTest::addColumn<double>("nsPerPx");
        QTest::addColumn<qint64>("t");
        QTest::addColumn<double>("x");
        QTest::newRow("origin") << qint64(1000) << 10.0 << qint64(1000) << 0.0;
        QTest::newRow("one pixel") << qint64(1000) << 10.0 << qint64(1010) << 1.0;
        QTest::newRow("half pixel") << qint64(1000) << 10.0 << qint64(1005) << 0.5;
        QTest::newRow("left of view") << qint64(1000) << 10.0 << qint64(900) << -10.0;
        QTest::newRow("sub-ns pixels") << qint64(0) << 0.25 << qint64(3) << 12.0;
        // Boot-relative monotonic clocks reach 2^60 ns; the difference must stay exact.
        QTest::newRow("huge timestamps") << (qint64(1) << 60) << 1.0 << ((qint64(1) << 60) + 7) << 7.0;
        QTest::newRow("2^47 ns span") << qint64(0) << double(qint64(1) << 40) << (qint64(1) << 47) << 128.0;
    }
    void timeToX()
    {
        QFETCH(qint64, viewStart);
        QFETCH(double, nsPerPx);
        QFETCH(qint64, t);
        QFETCH(double, x);
        const TimelineCoordinates c(viewStart, nsPerPx, 1000);
        QCOMPARE(c.timeToX(t), x);
        QCOMPARE(c.xToTime(x), t);
    }

    void span_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("x0");
        QTest::addColumn<qint64>("x1");
        // View: starts at 0, 10 ns per pixel, 100 px wide.
        QTest::newRow("inside one column") << qint64(12) << qint64(18) << qint64(1) << qint64(2);
        QTest::newRow("exactly one column") << qint64(10) << qint64(20) << qint64(1) << qint64(2);
        QTest::newRow("straddles a border") << qint64(15) << qint64(25) << qint64(1) << qint64(3);
        QTest::newRow("zero length on a border") << qint64(20) << qint64(20) << qint64(2) << qint64(3);
        QTest::newRow("zero length inside") << qint64(23) << qint64(23) << qint64(2) << qint64(3);
        QTest::newRow("wide") << qint64(0) << qint64(500) << qint64(0) << qint64(50);
        QTest::newRow("clamped left") << qint64(-100000) << qint64(5) << qint64(-1) << qint64(1);
        QTest::newRow("clamped right") << qint64(995) << qint64(900000) << qint64(99) << qint64(101);
        QTest::newRow("all left") << qint64(-500) << qint64(-400) << qint64(-1) << qint64(0);
        QTest::newRow("all right") << qint64(5000) << qint64(6000) << qint64(101) << qint64(102);
        QTest::newRow("ends exactly at view start") << qint64(-20) << qint64(0) << qint64(-1) << qint64(0);
    }
    void span()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        QFETCH(qint64, x0);
        QFETCH(qint64, x1);
        const TimelineCoordinates c(0, 10.0, 100);
        const PixelSpan s = c.span(start, end);
        QCOMPARE(s.x0, x0);
        QCOMPARE(s.x1, x1);
        QCOMPARE(c.visible(s), x1 > 0 && x0 < 100);
    }

    void zoomKeepsAnchor_data()
    {
        QTest::addColumn<double>("anchorX");
        QTest::addColumn<double>("factor");
        QTest::newRow("zoom in at left") << 0.0 << 0.5;
        QTest::newRow("zoom in at centre") << 960.0 << 0.8;
        QTest::newRow("zoom out at right") << 1919.0 << 1.25;
        QTest::newRow("deep zoom") << 333.0 << 1e-6;
    }
    void zoomKeepsAnchor()
    {
        QFETCH(double, anchorX);
        QFETCH(double, factor);
        const TimelineCoordinates c(1'000'000'000, 1000.0, 1920);
        const TimelineCoordinates z = c.zoomedAround(anchorX, factor);
        QCOMPARE(z.width(), 1920);
        QVERIFY(qAbs(z.nsPerPx() - std::max(1000.0 * factor, TimelineCoordinates::kMinNsPerPx)) < 1e-9);
        // The time under the anchor moves by less than one nanosecond (rounding of viewStart).
        const double before = double(c.viewStart()) + anchorX * c.nsPerPx();
        const double after = double(z.viewStart()) + anchorX * z.nsPerPx();
        QVERIFY2(qAbs(before - after) <= 1.0, qPrintable(QString::number(before - after)));
    }

    void fitAndPan()
    {
        const auto c = TimelineCoordinates::fit(5000, 25000, 200);
        QCOMPARE(c.viewStart(), TimeNs(5000));
        QCOMPARE(c.nsPerPx(), 100.0);
        QCOMPARE(c.viewEnd(), TimeNs(25000));
        QCOMPARE(c.column(24999), qint64(199));
        QCOMPARE(c.pannedBy(10).viewStart(), TimeNs(6000));
        QCOMPARE(c.pannedBy(-2.5).viewStart(), TimeNs(4750));
        // Degenerate input never divides by zero.
        const auto d = TimelineCoordinates::fit(7, 7, 0);
        QCOMPARE(d.width(), 1);
        QVERIFY(d.nsPerPx() > 0);
    }

    // A view on a grid (an anchor and a whole-pixel offset): with no offset it is the plain
    // view; panned by k pixels every unclamped column moves by exactly k, whatever the scale
    // (a plain view started at the rounded nanosecond moves them by k plus a fraction).
    void gridPansMoveColumnsExactly_data()
    {
        QTest::addColumn<qint64>("anchor");
        QTest::addColumn<double>("nsPerPx");
        QTest::addColumn<int>("width");
        QTest::newRow("whole ns per pixel") << qint64(1000) << 10.0 << 800;
        QTest::newRow("fractional scale") << qint64(123'456'789) << 2379735.5327433627 << 1906;
        QTest::newRow("sub-ns pixels") << qint64(77) << 0.3 << 1000;
        QTest::newRow("huge timestamps") << (qint64(1) << 60) << 4647.9209604719765 << 1920;
        QTest::newRow("one pixel wide") << qint64(5) << 33.3 << 1;
    }
    void gridPansMoveColumnsExactly()
    {
        QFETCH(qint64, anchor);
        QFETCH(double, nsPerPx);
        QFETCH(int, width);
        const TimelineCoordinates plain(anchor, nsPerPx, width);
        QCOMPARE(TimelineCoordinates::anchored(anchor, nsPerPx, width, 0), plain);
        QCOMPARE(plain.shiftedByPixels(0), plain);
        std::mt19937_64 rng(uint64_t(anchor) ^ uint64_t(width));
        std::uniform_int_distribution<int64_t> pan(-3 * int64_t(width) - 5, 3 * int64_t(width) + 5);
        std::uniform_int_distribution<int64_t> drag(-int64_t(width) - 1, int64_t(width) + 1);
        std::uniform_real_distribution<double> at(-0.2 * width, 1.2 * width);
        int compared = 0;
        for (int i = 0; i < 2000; ++i) {
            const TimelineCoordinates from = plain.shiftedByPixels(pan(rng));
            const int64_t k = i % 4 == 0 ? pan(rng) : drag(rng);
            const TimelineCoordinates to = from.shiftedByPixels(k);
            QCOMPARE(to.pixelShiftFrom(from), std::optional<int64_t>(k));
            QCOMPARE(to.offsetPx() - from.offsetPx(), k);
            QCOMPARE(to.viewStart(), anchor + TimeNs(std::llround(double(to.offsetPx()) * nsPerPx)));
            QCOMPARE(to.viewEnd() - to.viewStart(), plain.viewEnd() - plain.viewStart());
            const TimeNs t = from.xToTime(at(rng)); // mostly in view
            const TimeNs e = t + TimeNs(std::llround(at(rng) * nsPerPx * 0.01 + 5 * nsPerPx));
            const PixelSpan a = from.span(t, e);
            const PixelSpan b = to.span(t, e);
            const auto inside = [&](int64_t x) { return x > -1 && x < width + 1; };
            if (inside(a.x0) && inside(a.x0 - k) && inside(a.x1) && inside(a.x1 - k)) {
                QCOMPARE(b, (PixelSpan {a.x0 - k, a.x1 - k}));
                QCOMPARE(to.column(t), from.column(t) - k);
                ++compared;
            }
            // Time and pixels agree on the grid as on a plain view.
            QVERIFY(std::abs(to.xToTime(to.timeToX(t)) - t) <= TimeNs(std::ceil(nsPerPx)));
        }
        QVERIFY(width < 4 || compared > 100);
        // Another grid (anchor, scale or width) is not a pan of this one.
        QVERIFY(!TimelineCoordinates(anchor + 1, nsPerPx, width).pixelShiftFrom(plain));
        QVERIFY(!TimelineCoordinates(anchor, nsPerPx * 1.5, width).pixelShiftFrom(plain));
        QVERIFY(!TimelineCoordinates(anchor, nsPerPx, width + 1).pixelShiftFrom(plain));
    }

    void tickStep_data()
    {
        QTest::addColumn<double>("nsPerPx");
        QTest::addColumn<double>("minPx");
        QTest::addColumn<qint64>("step");
        QTest::newRow("1 ns/px, 90 px") << 1.0 << 90.0 << qint64(100);
        QTest::newRow("1 ns/px, 100 px") << 1.0 << 100.0 << qint64(100);
        QTest::newRow("1 ns/px, 101 px") << 1.0 << 101.0 << qint64(200);
        QTest::newRow("3 ns/px, 90 px") << 3.0 << 90.0 << qint64(500);
        QTest::newRow("1 us/px") << 1000.0 << 80.0 << qint64(100'000);
        QTest::newRow("sub-ns") << 0.01 << 80.0 << qint64(1);
        QTest::newRow("seconds") << 1e7 << 120.0 << qint64(2'000'000'000);
    }
    void tickStep()
    {
        QFETCH(double, nsPerPx);
        QFETCH(double, minPx);
        QFETCH(qint64, step);
        QCOMPARE(ws::niceTickStep(nsPerPx, minPx), step);
    }

    void firstTick_data()
    {
        QTest::addColumn<qint64>("t");
        QTest::addColumn<qint64>("origin");
        QTest::addColumn<qint64>("step");
        QTest::addColumn<qint64>("tick");
        QTest::newRow("on a tick") << qint64(300) << qint64(100) << qint64(100) << qint64(300);
        QTest::newRow("between") << qint64(301) << qint64(100) << qint64(100) << qint64(400);
        QTest::newRow("before origin") << qint64(-250) << qint64(0) << qint64(100) << qint64(-200);
        QTest::newRow("offset origin") << qint64(1234) << qint64(1000) << qint64(500) << qint64(1500);
    }
    void firstTick()
    {
        QFETCH(qint64, t);
        QFETCH(qint64, origin);
        QFETCH(qint64, step);
        QFETCH(qint64, tick);
        QCOMPARE(ws::firstTickAtOrAfter(t, origin, step), tick);
    }

    void clampRange_data()
    {
        QTest::addColumn<qint64>("begin");
        QTest::addColumn<qint64>("end");
        QTest::addColumn<qint64>("outBegin");
        QTest::addColumn<qint64>("outEnd");
        // Session [1000, 2000): 10% margin each side, at least 20 ns wide.
        QTest::newRow("inside") << qint64(1200) << qint64(1300) << qint64(1200) << qint64(1300);
        QTest::newRow("too narrow") << qint64(1500) << qint64(1505) << qint64(1500) << qint64(1520);
        QTest::newRow("too wide") << qint64(0) << qint64(10000) << qint64(900) << qint64(2100);
        QTest::newRow("past the end") << qint64(2050) << qint64(2250) << qint64(1900) << qint64(2100);
        QTest::newRow("before the start") << qint64(-500) << qint64(-400) << qint64(900) << qint64(1000);
    }
    void clampRange()
    {
        QFETCH(qint64, begin);
        QFETCH(qint64, end);
        QFETCH(qint64, outBegin);
        QFETCH(qint64, outEnd);
        const auto r = ws::TimeRangeClamp::apply(begin, end, 1000, 2000);
        QCOMPARE(r[0], outBegin);
        QCOMPARE(r[1], outEnd);
    }
};

QTEST_GUILESS_MAIN(TestCoordinates)
#include "tst_coordinates.moc"
