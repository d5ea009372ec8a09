// SPDX-License-Identifier: MIT
// Level of detail of the timeline (core/timeline/lod*): the fold's draw lists are checked
// against a brute-force per-pixel rendering of every event on random lanes, with and without
// the precomputed index, and the index's queries against linear scans.
#include "core/timeline/lodcounter.h"
#include "core/timeline/lodfold.h"
#include "core/timeline/lodindex.h"
#include "core/timeline/partitionpoint.h"

#include <QtTest>

#include <limits>
#include <random>

using namespace ws;

namespace {

struct Lane {
    std::vector<TimeNs> start;
    std::vector<TimeNs> end; // the brute force's exact 64-bit ends
    // What the fold and the index read: the ends as the timeline keeps them (32-bit durations,
    // longer ones in the side table, laneends.h), packed from `end` once the lane is complete.
    mutable LaneDurations packed;
    LaneEnds ends() const
    {
        if (packed.size() != start.size()) {
            packed.clear();
            for (size_t k = 0; k < start.size(); ++k)
                packed.push_back(LaneDurations::durationOf(start[k], end[k]));
        }
        return {start.data(), packed};
    }
};

// Bursts of tiny events, long events, zero-length events, equal starts and idle gaps: the
// shapes GPU streams and API threads really have.
Lane randomLane(std::mt19937_64& rng, size_t n, TimeNs origin)
{
    Lane lane;
    lane.start.reserve(n);
    lane.end.reserve(n);
    std::uniform_real_distribution<double> logDur(0.0, 7.0);
    std::uniform_int_distribution<int> shape(0, 99);
    TimeNs t = origin;
    for (size_t i = 0; i < n; ++i) {
        const int s = shape(rng);
        TimeNs gap = 0;
        if (s < 50)
            gap = TimeNs(std::pow(10.0, logDur(rng) * 0.5)); // dense
        else if (s < 60)
            gap = TimeNs(std::pow(10.0, logDur(rng))); // idle
        TimeNs dur = 0;
        if (s % 7 != 0)
            dur = TimeNs(std::pow(10.0, logDur(rng)));
        if (s == 3)
            dur = 50'000'000; // a long one
        if (s == 5 && i % 3 == 0)
            dur = 6'000'000'000 + TimeNs(i); // longer than 32 bits of ns: the durations' side table
        t += gap;
        lane.start.push_back(t);
        lane.end.push_back(t + dur);
        t += dur;
    }
    return lane;
}

std::span<const TimeNs> sp(const std::vector<TimeNs>& v)
{
    return {v.data(), v.size()};
}

// Brute force: every event's pixel span, painted one by one.
struct Reference {
    std::vector<int> coverage; // events touching each column
    size_t visibleEvents = 0;
};

Reference bruteForce(const Lane& lane, const TimelineCoordinates& c)
{
    Reference ref;
    ref.coverage.assign(size_t(c.width()), 0);
    for (size_t k = 0; k < lane.start.size(); ++k) {
        const PixelSpan s = c.span(lane.start[k], lane.end[k]);
        if (!c.visible(s))
            continue;
        ++ref.visibleEvents;
        for (int64_t x = std::max<int64_t>(s.x0, 0); x < std::min<int64_t>(s.x1, c.width()); ++x)
            ++ref.coverage[size_t(x)];
    }
    return ref;
}

bool isWide(const Lane& lane, size_t k, const TimelineCoordinates& c)
{
    return double(lane.end[k] - lane.start[k]) / kFoldPx >= c.nsPerPx();
}

// Checks one draw list against the brute-force rendering; returns an empty string when fine.
QString checkFold(const Lane& lane, const TimelineCoordinates& c, const std::vector<LodRect>& rects)
{
    const Reference ref = bruteForce(lane, c);
    std::vector<char> painted(size_t(c.width()), 0);
    size_t counted = 0;
    size_t expectNext = rects.empty() ? 0 : rects.front().first;
    for (size_t r = 0; r < rects.size(); ++r) {
        const LodRect& rect = rects[r];
        if (rect.first != expectNext)
            return QStringLiteral("rect %1 does not continue the previous one").arg(r);
        if (rect.count == 0)
            return QStringLiteral("rect %1 is empty").arg(r);
        expectNext = rect.first + rect.count;
        counted += rect.count;
        // The rect covers exactly the union of its members' spans, without holes.
        std::vector<char> members(size_t(c.width()) + 4, 0);
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        size_t widest = rect.first;
        for (size_t k = rect.first; k < rect.first + rect.count; ++k) {
            const PixelSpan s = c.span(lane.start[k], lane.end[k]);
            lo = std::min(lo, s.x0);
            hi = std::max(hi, s.x1);
            for (int64_t x = s.x0; x < s.x1; ++x)
                members[size_t(x + 1)] = 1;
            const TimeNs d = lane.end[k] - lane.start[k];
            if (d > lane.end[widest] - lane.start[widest])
                widest = k;
        }
        if (rect.x0 != lo || rect.x1 != hi)
            return QStringLiteral("rect %1 spans [%2,%3), members [%4,%5)")
                .arg(r)
                .arg(rect.x0)
                .arg(rect.x1)
                .arg(lo)
                .arg(hi);
        for (int64_t x = lo; x < hi; ++x) {
            if (!members[size_t(x + 1)])
                return QStringLiteral("rect %1 paints column %2 that none of its events covers").arg(r).arg(x);
        }
        if (rect.widest != widest)
            return QStringLiteral("rect %1: widest %2, expected %3").arg(r).arg(rect.widest).arg(widest);
        if (rect.count > 1) {
            for (size_t k = rect.first; k < rect.first + rect.count; ++k) {
                if (isWide(lane, k, c))
                    return QStringLiteral("rect %1 folds the wide event %2").arg(r).arg(k);
            }
        }
        for (int64_t x = std::max<int64_t>(lo, 0); x < std::min<int64_t>(hi, c.width()); ++x)
            painted[size_t(x)] = 1;
        // Folding is maximal: a narrow event touching the run before it belongs to that run.
        if (r > 0) {
            const LodRect& prev = rects[r - 1];
            const bool prevFoldable = !isWide(lane, prev.first, c);
            if (prevFoldable && !isWide(lane, rect.first, c) && rect.x0 <= prev.x1)
                return QStringLiteral("rects %1 and %2 touch but were not folded").arg(r - 1).arg(r);
        }
    }
    if (counted != ref.visibleEvents)
        return QStringLiteral("rects count %1 events, %2 are visible").arg(counted).arg(ref.visibleEvents);
    for (int x = 0; x < c.width(); ++x) {
        if (bool(painted[size_t(x)]) != (ref.coverage[size_t(x)] > 0))
            return QStringLiteral("column %1: painted %2, events %3")
                .arg(x)
                .arg(int(painted[size_t(x)]))
                .arg(ref.coverage[size_t(x)]);
    }
    return {};
}

} // namespace

class TestLod : public QObject {
    Q_OBJECT

private slots:
    void foldMatchesBruteForce_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("width");
        for (quint64 seed = 1; seed <= 12; ++seed)
            QTest::addRow("seed %llu", seed) << seed << int(200 + seed * 1500) << int(64 + seed * 137);
        QTest::newRow("one event") << quint64(99) << 1 << 300;
        QTest::newRow("big lane") << quint64(7) << 200000 << 1920;
    }
    void foldMatchesBruteForce()
    {
        QFETCH(quint64, seed);
        QFETCH(int, events);
        QFETCH(int, width);
        std::mt19937_64 rng(seed);
        const TimeNs origin = (TimeNs(1) << 50) + TimeNs(seed);
        const Lane lane = randomLane(rng, size_t(events), origin);
        const LodIndex index = LodIndex::build(sp(lane.start), lane.ends());
        QVERIFY(!index.empty());
        const TimeNs begin = lane.start.front();
        const TimeNs total = lane.end.back() - begin + 1;
        std::uniform_real_distribution<double> u(0.0, 1.0);
        for (int view = 0; view < 40; ++view) {
            // Full view, then random windows from a few pixels' worth of events to beyond the lane.
            TimeNs vs = begin;
            double span = double(total);
            if (view > 0) {
                span = double(total) * std::pow(10.0, -6.0 * u(rng)) * 1.3;
                vs = begin - TimeNs(span * 0.1) + TimeNs(u(rng) * double(total));
            }
            const TimelineCoordinates c(vs, std::max(span / width, 0.05), width);
            std::vector<LodRect> linear, indexed;
            foldLane(sp(lane.start), lane.ends(), nullptr, c, linear);
            foldLane(sp(lane.start), lane.ends(), &index, c, indexed);
            const QString problem = checkFold(lane, c, linear);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("view %1: ").arg(view) + problem));
            QVERIFY2(linear == indexed, qPrintable(QStringLiteral("view %1: indexed fold differs").arg(view)));
            // Per-frame output is bounded by pixels, not events.
            QVERIFY(indexed.size() <= size_t(2 * width + 4));
        }
    }

    // A pan by whole pixels on one grid (TimelineCoordinates::shiftedByPixels) moves every
    // column by exactly the pan, so a fold can take over the previous view's rectangles: through
    // chains of random pans (by one pixel to beyond the width, both ways) and zooms (a new grid),
    // the reused draw list equals a fresh fold of the same view rectangle for rectangle, and the
    // fresh fold the brute force. Each step reuses the previous step's reused list, so an error
    // would carry on.
    void foldReusedAcrossPansEqualsFreshFold_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("width");
        QTest::addColumn<bool>("indexed");
        for (quint64 seed = 1; seed <= 10; ++seed)
            QTest::addRow("seed %llu", seed)
                << seed << int(3000 + seed * 2500) << int(97 + seed * 151) << (seed % 3 != 0);
        QTest::newRow("narrow view") << quint64(41) << 20000 << 7 << true;
        QTest::newRow("big lane") << quint64(42) << 150000 << 1920 << true;
    }
    void foldReusedAcrossPansEqualsFreshFold()
    {
        QFETCH(quint64, seed);
        QFETCH(int, events);
        QFETCH(int, width);
        QFETCH(bool, indexed);
        std::mt19937_64 rng(seed * 7919);
        const Lane lane = randomLane(rng, size_t(events), (TimeNs(1) << 50) + TimeNs(seed));
        const LodIndex built = LodIndex::build(sp(lane.start), lane.ends());
        const LodIndex* index = indexed ? &built : nullptr;
        const TimeNs begin = lane.start.front();
        const double total = double(lane.end.back() - begin + 1);
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const auto newView = [&] {
            const double span = total * std::pow(10.0, -5.0 * u(rng));
            return TimelineCoordinates(begin + TimeNs(u(rng) * total), std::max(span / width, 0.02), width);
        };
        TimelineCoordinates c = newView();
        std::vector<LodRect> previous;
        foldLane(sp(lane.start), lane.ends(), index, c, previous);
        size_t taken = 0;
        int reusedSteps = 0;
        for (int step = 0; step < 150; ++step) {
            const int kind = int(u(rng) * 20);
            if (kind == 0) { // a zoom: a new grid, nothing to reuse
                c = newView().zoomedAround(u(rng) * width, 0.5 + u(rng));
                previous.clear();
                foldLane(sp(lane.start), lane.ends(), index, c, previous);
                continue;
            }
            // Mostly small pans as a drag makes them, sometimes by the width or more.
            const int64_t k = kind == 1
                ? int64_t((u(rng) - 0.5) * 4 * width)
                : std::max<int64_t>(1, int64_t(u(rng) * u(rng) * width)) * (u(rng) < 0.5 ? -1 : 1);
            const TimelineCoordinates next = c.shiftedByPixels(k);
            QCOMPARE(next.pixelShiftFrom(c), std::optional<int64_t>(k));
            std::vector<LodRect> fresh, reused;
            foldLane(sp(lane.start), lane.ends(), index, next, fresh);
            const size_t n = foldLaneReusing(sp(lane.start), lane.ends(), index, next, previous, k, reused);
            const QString problem = checkFold(lane, next, fresh);
            QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("step %1: ").arg(step) + problem));
            QVERIFY2(reused == fresh,
                qPrintable(QStringLiteral("step %1 (pan %2 px): the reused fold differs").arg(step).arg(k)));
            taken += n;
            reusedSteps += n > 0 ? 1 : 0;
            previous = std::move(reused);
            c = next;
        }
        // The chains did reuse: most pans of a populated view take rectangles over (a view a few
        // pixels wide has hardly a rectangle inside both views).
        if (width >= 64)
            QVERIFY2(reusedSteps > 20 && taken > 100,
                qPrintable(QStringLiteral("%1 steps, %2 rects").arg(reusedSteps).arg(taken)));
    }

    // partitionPointNear against a linear scan (and partitionPoint) over sorted values with
    // runs of duplicates: every key around the values, every lower bound, hints everywhere in
    // the range, at its ends and past them.
    void partitionPointNearMatchesScan_data()
    {
        QTest::addColumn<QList<qint64>>("values");
        QTest::newRow("empty") << QList<qint64> {};
        QTest::newRow("one") << QList<qint64> {5};
        QTest::newRow("two equal") << QList<qint64> {5, 5};
        QTest::newRow("all equal") << QList<qint64>(40, 7);
        QTest::newRow("duplicates") << QList<qint64> {1, 1, 1, 2, 3, 3, 8, 8, 8, 8, 9, 20, 20};
        std::mt19937_64 rng(17);
        for (int n : {31, 64, 65, 300}) {
            QList<qint64> v;
            qint64 x = 0;
            for (int i = 0; i < n; ++i) {
                x += qint64(rng() % 4 == 0 ? rng() % 5 : 0); // long runs of equal values
                v.push_back(x);
            }
            QTest::addRow("random %d", n) << v;
        }
    }
    void partitionPointNearMatchesScan()
    {
        QFETCH(QList<qint64>, values);
        const size_t n = size_t(values.size());
        const qint64 low = values.isEmpty() ? 0 : values.front() - 1;
        const qint64 high = values.isEmpty() ? 1 : values.back() + 1;
        for (qint64 key = low; key <= high; ++key) {
            const auto below = [&](size_t k) { return values[qsizetype(k)] < key; };
            for (size_t lo = 0; lo <= n; lo += std::max<size_t>(1, n / 7)) {
                size_t scan = lo;
                while (scan < n && below(scan))
                    ++scan;
                QCOMPARE(partitionPoint(lo, n, below), scan);
                for (size_t hint = 0; hint <= n + 2; ++hint)
                    QVERIFY2(partitionPointNear(lo, n, hint, below) == scan,
                        qPrintable(QStringLiteral("key %1, lo %2, hint %3").arg(key).arg(lo).arg(hint)));
                QCOMPARE(partitionPointNear(lo, n, std::numeric_limits<size_t>::max(), below), scan);
            }
        }
    }

    // The visible range searched from a hint equals the cold search for any hint: random ones,
    // inverted ones, ones past the lane, and the hint a previous view's draw list gives
    // (visibleRangeHint, for zooms and jumps to anywhere); and the fold from it equals the fold
    // without one.
    void hintedVisibleRangeEqualsCold_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("events");
        QTest::addColumn<int>("width");
        for (quint64 seed = 1; seed <= 8; ++seed)
            QTest::addRow("seed %llu", seed) << seed << int(50 + seed * seed * 700) << int(40 + seed * 211);
        QTest::newRow("empty lane") << quint64(30) << 0 << 500;
        QTest::newRow("one event") << quint64(31) << 1 << 500;
        QTest::newRow("big lane") << quint64(32) << 200000 << 1920;
    }
    void hintedVisibleRangeEqualsCold()
    {
        QFETCH(quint64, seed);
        QFETCH(int, events);
        QFETCH(int, width);
        std::mt19937_64 rng(seed * 6151);
        Lane lane = randomLane(rng, size_t(events), (TimeNs(1) << 50) + TimeNs(seed));
        const LodIndex index = LodIndex::build(sp(lane.start), lane.ends());
        const TimeNs begin = lane.start.empty() ? (TimeNs(1) << 50) : lane.start.front();
        const double total = lane.start.empty() ? 1e6 : double(lane.end.back() - begin + 1);
        const size_t n = lane.start.size();
        std::uniform_real_distribution<double> u(0.0, 1.0);
        const auto anyView = [&] {
            const double span = total * std::pow(10.0, -6.0 * u(rng)) * 1.3;
            return TimelineCoordinates(
                begin - TimeNs(span * 0.2) + TimeNs(u(rng) * total), std::max(span / width, 0.05), width);
        };
        TimelineCoordinates was = anyView();
        std::vector<LodRect> before;
        foldLane(sp(lane.start), lane.ends(), &index, was, before);
        int hintedViews = 0;
        for (int view = 0; view < 60; ++view) {
            // Zooms around the previous view mostly, sometimes a jump anywhere.
            const TimelineCoordinates c
                = view % 5 == 4 ? anyView() : was.zoomedAround(u(rng) * width, 0.3 + 1.5 * u(rng));
            const VisibleRange cold = visibleRange(sp(lane.start), lane.ends(), c);
            const std::optional<VisibleRange> fromBefore = visibleRangeHint(before, was, c);
            QCOMPARE(fromBefore.has_value(), !before.empty());
            hintedViews += fromBefore ? 1 : 0;
            std::vector<VisibleRange> hints {{0, 0}, {n, n}, {n + 5, 0}, {0, n + 5}, {cold.last, cold.first}};
            for (int k = 0; k < 20; ++k)
                hints.push_back({size_t(rng() % (n + 3)), size_t(rng() % (n + 3))});
            if (fromBefore)
                hints.push_back(*fromBefore);
            for (const VisibleRange& h : hints) {
                const VisibleRange hinted = visibleRange(sp(lane.start), lane.ends(), c, h);
                QVERIFY2(hinted.first == cold.first && hinted.last == cold.last,
                    qPrintable(QStringLiteral("view %1, hint %2..%3: %4..%5, cold %6..%7")
                                   .arg(view)
                                   .arg(h.first)
                                   .arg(h.last)
                                   .arg(hinted.first)
                                   .arg(hinted.last)
                                   .arg(cold.first)
                                   .arg(cold.last)));
            }
            std::vector<LodRect> plain, hinted;
            foldLane(sp(lane.start), lane.ends(), &index, c, plain);
            foldLane(sp(lane.start), lane.ends(), &index, c, hinted, fromBefore);
            QVERIFY2(plain == hinted, qPrintable(QStringLiteral("view %1: the hinted fold differs").arg(view)));
            QCOMPARE(checkFold(lane, c, hinted), QString());
            was = c;
            before = std::move(hinted);
        }
        if (events >= 1000) // the views did search from the previous view's draw list
            QVERIFY2(hintedViews >= 30, qPrintable(QString::number(hintedViews)));
    }

    void edgeCases_data()
    {
        QTest::addColumn<QList<qint64>>("starts");
        QTest::addColumn<QList<qint64>>("ends");
        QTest::addColumn<int>("rects");
        QTest::addColumn<int>("firstCount");
        // View: 0..1000 ns over 100 px (10 ns per px, events < 30 ns fold).
        QTest::newRow("empty lane") << QList<qint64> {} << QList<qint64> {} << 0 << 0;
        QTest::newRow("single narrow") << QList<qint64> {500} << QList<qint64> {501} << 1 << 1;
        QTest::newRow("equal starts, zero length")
            << QList<qint64> {100, 100, 100} << QList<qint64> {100, 100, 100} << 1 << 3;
        QTest::newRow("touching narrow run")
            << QList<qint64> {0, 10, 20, 30} << QList<qint64> {5, 15, 25, 35} << 1 << 4;
        QTest::newRow("one-pixel gap stays") << QList<qint64> {0, 25} << QList<qint64> {5, 28} << 2 << 1;
        QTest::newRow("wide breaks a fold") << QList<qint64> {0, 10, 12} << QList<qint64> {5, 12, 200} << 2 << 2;
        QTest::newRow("all left of view") << QList<qint64> {-500, -300} << QList<qint64> {-400, -10} << 0 << 0;
        QTest::newRow("all right of view") << QList<qint64> {1000, 2000} << QList<qint64> {1500, 2500} << 0 << 0;
        QTest::newRow("covers the view") << QList<qint64> {-1000} << QList<qint64> {5000} << 1 << 1;
    }
    void edgeCases()
    {
        QFETCH(QList<qint64>, starts);
        QFETCH(QList<qint64>, ends);
        QFETCH(int, rects);
        QFETCH(int, firstCount);
        Lane lane;
        lane.start.assign(starts.begin(), starts.end());
        lane.end.assign(ends.begin(), ends.end());
        const TimelineCoordinates c(0, 10.0, 100);
        std::vector<LodRect> out;
        foldLane(sp(lane.start), lane.ends(), nullptr, c, out);
        QCOMPARE(int(out.size()), rects);
        if (rects > 0)
            QCOMPARE(int(out.front().count), firstCount);
        QCOMPARE(checkFold(lane, c, out), QString());
    }

    void thousandsOfSubPixelEventsFoldIntoOne()
    {
        Lane lane;
        for (int i = 0; i < 5000; ++i) {
            lane.start.push_back(i * 4);
            lane.end.push_back(i * 4 + 2);
        }
        lane.start.push_back(20000); // the longest one, in the middle of the run's colour vote
        lane.end.push_back(20009);
        for (int i = 0; i < 100; ++i) {
            lane.start.push_back(20010 + i * 10);
            lane.end.push_back(20010 + i * 10 + 4);
        }
        const auto c = TimelineCoordinates::fit(0, 21100, 20); // 1055 ns per px
        const LodIndex index = LodIndex::build(sp(lane.start), lane.ends());
        std::vector<LodRect> out;
        foldLane(sp(lane.start), lane.ends(), &index, c, out);
        QCOMPARE(out.size(), size_t(1));
        QCOMPARE(out[0].count, 5101u);
        QCOMPARE(out[0].widest, 5000u);
        QCOMPARE(out[0].x0, 0);
        QCOMPARE(out[0].x1, 20);
    }

    void indexQueriesMatchScans()
    {
        std::mt19937_64 rng(42);
        const Lane lane = randomLane(rng, 100000, 0);
        const LodIndex index = LodIndex::build(sp(lane.start), lane.ends());
        QVERIFY(index.levelCount() >= 3);
        QVERIFY(index.residentBytes() < lane.start.size()); // under one byte per event
        std::uniform_int_distribution<size_t> pos(0, lane.start.size() - 1);
        std::uniform_real_distribution<double> logT(0.0, 8.0);
        for (int q = 0; q < 3000; ++q) {
            size_t a = pos(rng), b = pos(rng);
            if (a > b)
                std::swap(a, b);
            ++b;
            const double t = std::pow(10.0, logT(rng));
            QCOMPARE(index.nextCandidate(sp(lane.start), lane.ends(), a, b, t),
                nextCandidateLinear(sp(lane.start), lane.ends(), a, b, t));
            QCOMPARE(index.widest(sp(lane.start), lane.ends(), a, b), widestLinear(sp(lane.start), lane.ends(), a, b));
        }
    }

    // The fold's integer tests (CandidateThreshold, leastDurationReaching) against foldKey's and
    // the wide test's doubles, and the index's queries through them against the linear oracles:
    // random lanes with long durations (side table), negative ones (damaged files), equal ones and
    // overlaps; thresholds at random, on and one ulp beside integers and thirds (where the double
    // division rounds), near 2^53 (gaps no longer exact as doubles), the 2^60 limit and beyond it,
    // and non-positive or non-finite ones (the foldKey fallback).
    void integerThresholdsMatchDoubles_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("events");
        QTest::addColumn<double>("scale"); // durations and gaps multiplied by it
        for (quint64 seed = 1; seed <= 6; ++seed)
            QTest::addRow("seed %llu", seed) << seed << 3000 << 1.0;
        QTest::newRow("huge gaps and durations") << quint64(11) << 3000 << 1e12;
        QTest::newRow("one event") << quint64(12) << 1 << 1.0;
        QTest::newRow("index-sized lane") << quint64(13) << 100000 << 1.0;
    }
    void integerThresholdsMatchDoubles()
    {
        QFETCH(quint64, seed);
        QFETCH(int, events);
        QFETCH(double, scale);
        std::mt19937_64 rng(seed);
        const Lane shapes = randomLane(rng, size_t(events), 0);
        Lane lane;
        std::uniform_int_distribution<int> shape(0, 99);
        TimeNs t0 = TimeNs(1) << 40;
        for (size_t k = 0; k < shapes.start.size(); ++k) {
            // Gaps and durations of randomLane, scaled; each takes at most a quarter of the room left
            // below INT64_MAX / 2, so that no start or end overflows, the small durations set below
            // included (UBSan checks it in CI).
            const auto room = [&] { return double(std::numeric_limits<TimeNs>::max() / 2 - t0) / 4; };
            const TimeNs gap = k == 0 ? 0 : shapes.start[k] - shapes.end[k - 1];
            t0 += TimeNs(std::min({double(gap) * scale, 1e15, room()}));
            TimeNs d = TimeNs(std::min({double(shapes.end[k] - shapes.start[k]) * scale, 4e18, room()}));
            const int s = shape(rng);
            if (s < 3)
                d = -TimeNs(1 + k); // negative: kept in the side table
            else if (s < 8)
                d = 3 * TimeNs(k % 50); // multiples of 3: d / kFoldPx exact at the boundary
            if (s == 9 && k > 0)
                t0 = lane.start.back(); // an equal start, the previous event overlapping this one
            lane.start.push_back(t0);
            lane.end.push_back(t0 + d);
            t0 = std::max(t0, t0 + d);
        }
        const LaneEnds ends = lane.ends();
        const auto start = sp(lane.start);
        const LodIndex index = LodIndex::build(start, ends);

        std::vector<double> thresholds {1.0 / 64, 0.5, 1.0, 2.0, 3.0, 1e-300, 0x1p53, 0x1p53 + 2, 0x1p60, 0x1p60 * 1.5,
            0.0, -0.0, -3.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
            std::numeric_limits<double>::quiet_NaN()};
        std::uniform_real_distribution<double> logT(-2.0, 18.5);
        std::uniform_int_distribution<int> which(0, 99);
        for (int i = 0; i < 150; ++i) {
            const double t = std::pow(10.0, logT(rng));
            thresholds.push_back(t);
            // On an integer or a third of one (a gap or a duration / kFoldPx equal to it), and one ulp beside.
            const double onInt = std::ceil(t);
            const double onThird = std::ceil(t * kFoldPx) / kFoldPx;
            for (const double v : {onInt, onThird}) {
                thresholds.push_back(v);
                thresholds.push_back(std::nextafter(v, 0.0));
                thresholds.push_back(std::nextafter(v, 1e300));
            }
        }
        // The keys the lane has, exactly and one ulp above: the candidates change right there.
        for (int i = 0; i < 100 && !lane.start.empty(); ++i) {
            const double key = foldKey(start, ends, size_t(which(rng)) % lane.start.size());
            thresholds.push_back(key);
            thresholds.push_back(std::nextafter(key, 1e300));
        }

        std::uniform_int_distribution<size_t> pos(0, lane.start.size() - 1);
        const size_t checked = std::min<size_t>(lane.start.size(), 5000); // events tested one by one
        for (const double t : thresholds) {
            const CandidateThreshold test(t);
            const auto where
                = [&](size_t k) { return QStringLiteral("threshold %1, event %2").arg(t, 0, 'g', 17).arg(k); };
            for (size_t k = 0; k < checked; ++k) {
                if (test(start, ends, k) != (foldKey(start, ends, k) >= t))
                    QFAIL(qPrintable(where(k)));
            }
            const std::optional<TimeNs> wide = leastDurationReaching(t);
            QCOMPARE(wide.has_value(), t > 0.0 && t <= 0x1p60);
            if (wide) {
                // The least one: it reaches, the one below does not, and so for the lane's durations.
                QVERIFY(double(*wide) / kFoldPx >= t);
                QVERIFY(!(double(*wide - 1) / kFoldPx >= t));
                for (size_t k = 0; k < checked; ++k) {
                    const TimeNs d = ends.duration(k);
                    if ((d >= *wide) != (double(d) / kFoldPx >= t))
                        QFAIL(qPrintable(where(k)));
                }
            }
            for (int q = 0; q < (events > 10000 ? 3 : 20); ++q) {
                size_t a = pos(rng), b = pos(rng);
                if (a > b)
                    std::swap(a, b);
                ++b;
                const size_t expected = nextCandidateLinear(start, ends, a, b, t);
                QCOMPARE(nextCandidateLinear(start, ends, a, b, test), expected);
                QCOMPARE(index.nextCandidate(start, ends, a, b, test), expected);
            }
        }
        // The longest event from the durations the index keeps (read from the lane when too long
        // or negative): ties, long and negative ones against the linear scan.
        for (int q = 0; q < 600; ++q) {
            size_t a = pos(rng), b = pos(rng);
            if (a > b)
                std::swap(a, b);
            b = std::min(b + 1, a + size_t(1) + (q % 3 == 0 ? lane.start.size() : size_t(200)));
            QCOMPARE(index.widest(start, ends, a, b), widestLinear(start, ends, a, b));
        }
    }

    void cancelledBuildIsEmpty()
    {
        std::mt19937_64 rng(5);
        const Lane lane = randomLane(rng, 1000, 0);
        CancellationToken token;
        token.cancel();
        QVERIFY(LodIndex::build(sp(lane.start), lane.ends(), token).empty());
        // An empty index is never used for another lane's arrays.
        std::vector<LodRect> out;
        const LodIndex none;
        foldLane(sp(lane.start), lane.ends(), &none, TimelineCoordinates::fit(0, lane.end.back(), 500), out);
        QCOMPARE(checkFold(lane, TimelineCoordinates::fit(0, lane.end.back(), 500), out), QString());
    }

    void counterColumnsMatchBruteForce_data()
    {
        QTest::addColumn<int>("samples");
        QTest::addColumn<int>("width");
        QTest::newRow("sparse") << 50 << 400;
        QTest::newRow("dense") << 100000 << 700;
        QTest::newRow("one sample") << 1 << 100;
    }
    void counterColumnsMatchBruteForce()
    {
        QFETCH(int, samples);
        QFETCH(int, width);
        std::mt19937_64 rng {static_cast<uint64_t>(samples)};
        std::vector<TimeNs> ts;
        std::vector<double> vs;
        TimeNs t = 1000;
        std::uniform_int_distribution<int> step(0, 2000);
        std::normal_distribution<double> val(50.0, 20.0);
        for (int i = 0; i < samples; ++i) {
            t += step(rng);
            ts.push_back(t);
            vs.push_back(val(rng));
        }
        const CounterSeries series(ts, vs);
        for (int view = 0; view < 10; ++view) {
            const TimeNs span = std::max<TimeNs>((t - 1000) >> view, 100);
            const auto c = TimelineCoordinates::fit(
                1000 + (t - 1000) / 7 * (view % 3), 1000 + (t - 1000) / 7 * (view % 3) + span, width);
            std::vector<CounterColumn> cols;
            series.columns(c, t + 500, cols);
            // Brute force per column: the value carried in plus the samples inside.
            size_t next = 0;
            for (const CounterColumn& col : cols) {
                double mn = 1e300, mx = -1e300, last = 0;
                bool any = false;
                for (size_t k = 0; k < ts.size(); ++k) {
                    const int64_t x = c.column(ts[k]);
                    const bool carried = x < col.x && (k + 1 == ts.size() || c.column(ts[k + 1]) >= col.x);
                    if (x == col.x || carried) {
                        mn = std::min(mn, vs[k]);
                        mx = std::max(mx, vs[k]);
                        last = vs[k];
                        any = true;
                    }
                }
                QVERIFY(any);
                QCOMPARE(col.min, mn);
                QCOMPARE(col.max, mx);
                QCOMPARE(col.last, last);
                QVERIFY(next == 0 || col.x > cols[next - 1].x);
                ++next;
            }
            const int64_t firstCol = std::max<int64_t>(0, c.column(ts.front()));
            const int64_t endCol = std::min<int64_t>(width, c.column(t + 500) + 1);
            QCOMPARE(int64_t(cols.size()), std::max<int64_t>(0, endCol - firstCol));
        }
    }
};

QTEST_GUILESS_MAIN(TestLod)
#include "tst_lod.moc"
