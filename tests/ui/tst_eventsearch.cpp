// SPDX-License-Identifier: MIT
// Search: name matching and next/previous occurrence across lanes, against a brute-force
// ordering of every event by (start, lane, index), with wrap-around.
#include "settle.h"
#include "ui/timeline/eventsearch.h"
#include "uifixtures.h"

#include <QSignalSpy>
#include <QtTest>

using namespace ws;
using Position = EventSearch::Position;

class TestEventSearch : public QObject {
    Q_OBJECT

private slots:
    void matchesCaseInsensitiveSubstrings()
    {
        const auto s = test::smallSession();
        const auto m = EventSearch::matchNames(*s, QStringLiteral("KERNEL"));
        int names = 0;
        for (size_t i = 0; i < m.size(); ++i)
            names += m[i];
        QCOMPARE(names, 3); // cudaLaunchKernel, gemm_kernel, relu_kernel
        QCOMPARE(EventSearch::countMatches(*s, m), qint64(4));
        QVERIFY(EventSearch::matchNames(*s, QStringLiteral("  ")).empty());
    }

    void stepsMatchBruteForce()
    {
        const auto s = test::smallSession();
        const auto match = EventSearch::matchNames(*s, QStringLiteral("kernel"));
        // Every matching event, ordered.
        std::vector<Position> all;
        for (size_t li = 0; li < s->model->lanes.size(); ++li) {
            const auto& l = s->model->lanes[li];
            for (size_t k = 0; k < l.size(); ++k) {
                if (match[l.name[k]])
                    all.push_back({l.start[k], int(li), quint32(k)});
            }
        }
        std::sort(all.begin(), all.end(), [](const Position& a, const Position& b) {
            return std::tie(a.start, a.lane, a.index) < std::tie(b.start, b.lane, b.index);
        });
        QCOMPARE(all.size(), size_t(4));
        Position p {std::numeric_limits<TimeNs>::min(), -1, 0};
        for (const Position& want : all) {
            Position got;
            QVERIFY(EventSearch::step(*s, match, p, true, &got));
            QCOMPARE(got.lane, want.lane);
            QCOMPARE(got.index, want.index);
            p = got;
        }
        Position none;
        QVERIFY(!EventSearch::step(*s, match, p, true, &none));
        // "k of N": each occurrence's ordinal is its place in the brute-force order.
        for (size_t i = 0; i < all.size(); ++i)
            QCOMPARE(EventSearch::ordinalOf(*s, match, all[i]), qint64(i + 1));
        for (auto it = all.rbegin() + 1; it != all.rend(); ++it) {
            Position got;
            QVERIFY(EventSearch::step(*s, match, p, false, &got));
            QCOMPARE(got.lane, it->lane);
            QCOMPARE(got.index, it->index);
            p = got;
        }
    }

    void equalStartsAreVisitedOnce()
    {
        auto m = std::make_shared<TimelineModel>();
        for (int lane = 0; lane < 3; ++lane)
            m->lanes.push_back(test::makeLane(
                *m, LaneKind::GpuStream, 1, 0, 0, uint32_t(lane), 0, "s", {{100, 200, "k"}, {300, 400, "k"}}));
        const auto s = SessionSnapshot::build(m, {}, {});
        const auto match = EventSearch::matchNames(*s, QStringLiteral("k"));
        Position p {std::numeric_limits<TimeNs>::min(), -1, 0};
        int visited = 0;
        Position got;
        while (EventSearch::step(*s, match, p, true, &got)) {
            QVERIFY(std::tie(p.start, p.lane, p.index) < std::tie(got.start, got.lane, got.index));
            p = got;
            ++visited;
        }
        QCOMPARE(visited, 6);
    }

    void asyncNextWrapsAround()
    {
        EventSearch search;
        const auto s = test::smallSession();
        search.setSnapshot(s);
        QSignalSpy counted(&search, &EventSearch::queryCounted);
        QSignalSpy found(&search, &EventSearch::found);
        search.setQuery(QStringLiteral("relu"));
        QVERIFY(counted.wait(5000));
        QCOMPARE(counted.at(0).at(0).toInt(), 1);
        QCOMPARE(counted.at(0).at(1).toLongLong(), qint64(1));
        // From after the only occurrence: wraps to it.
        search.next({2'000'000, 0, 0});
        QVERIFY(found.wait(5000));
        const auto e = found.at(0).at(0).value<EventSelection>();
        QCOMPARE(e.name, QStringLiteral("relu_kernel"));
        QCOMPARE(e.start, TimeNs(1'050'000));
        QSignalSpy missing(&search, &EventSearch::notFound);
        search.setQuery(QStringLiteral("no such kernel"));
        search.next({0, 0, 0});
        QVERIFY(missing.wait(5000));
    }

    // A step still running when the query changes belongs to the old query: it is dropped.
    void newQueryDropsTheStepInFlight()
    {
        EventSearch search;
        search.setSnapshot(test::smallSession());
        QSignalSpy counted(&search, &EventSearch::queryCounted);
        QSignalSpy found(&search, &EventSearch::found);
        QSignalSpy missing(&search, &EventSearch::notFound);
        search.setQuery(QStringLiteral("relu"));
        search.next({0, 0, 0});
        search.setQuery(QStringLiteral("gemm"));
        QTRY_COMPARE_WITH_TIMEOUT(counted.count(), 1, 5000);
        QVERIFY(ws::test::settle({{"event search", 2}}));
        QCOMPARE(counted.count(), 1); // the count for "relu" was dropped too
        QCOMPARE(found.count(), 0);
        QCOMPARE(missing.count(), 0);
        search.next({0, 0, 0});
        QVERIFY(found.wait(5000));
        QVERIFY(found.at(0).at(0).value<EventSelection>().name.contains(QStringLiteral("gemm")));
    }
};

QTEST_MAIN(TestEventSearch)
#include "tst_eventsearch.moc"
