// SPDX-License-Identifier: MIT
// orderNvtxRanges (core/import/importfinish.h) against a brute-force ordering on random
// multi-thread range sets, for every number of parts: the threaded merge must give exactly
// the single-threaded result (ids, depths, order).
#include "core/import/importfinish.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

using namespace ws;

namespace {

// Nested trees per thread, threads interleaved in blocks (as tracers flush), some threads out
// of order, equal starts, identical spans and partial overlaps.
std::vector<NvtxRangeRecord> randomRanges(uint64_t seed, size_t n, int threads)
{
    std::mt19937_64 rng(seed);
    std::vector<NvtxRangeRecord> out;
    out.reserve(n);
    std::vector<TimeNs> clock(static_cast<size_t>(threads), 0);
    while (out.size() < n) {
        const int t = static_cast<int>(rng() % static_cast<uint64_t>(threads));
        TimeNs& c = clock[static_cast<size_t>(t)];
        const TimeNs rootStart = c + static_cast<TimeNs>(rng() % 50);
        const TimeNs rootEnd = rootStart + 1 + static_cast<TimeNs>(rng() % 400);
        std::vector<std::pair<TimeNs, TimeNs>> block {{rootStart, rootEnd}};
        for (int k = static_cast<int>(rng() % 6); k > 0; --k) {
            const auto [ps, pe] = block[rng() % block.size()];
            TimeNs s = ps + static_cast<TimeNs>(rng() % static_cast<uint64_t>(pe - ps + 1));
            TimeNs e = s + static_cast<TimeNs>(rng() % static_cast<uint64_t>(pe - s + 1));
            if (rng() % 8 == 0)
                e = pe + static_cast<TimeNs>(rng() % 30); // partly overlapping
            if (rng() % 8 == 0)
                s = ps, e = pe; // identical span
            block.emplace_back(s, e);
        }
        if (rng() % 4 == 0)
            std::shuffle(block.begin(), block.end(), rng); // a thread written out of order
        for (const auto& [s, e] : block) {
            if (out.size() >= n)
                break;
            NvtxRangeRecord r;
            r.pid = 1 + t % 2;
            r.tid = 100 + t;
            r.endTid = r.tid;
            r.start = s;
            r.end = e;
            r.name = static_cast<StringId>(out.size() % 7 + 1);
            r.category = static_cast<int32_t>(out.size()); // remembers the file position
            out.push_back(r);
        }
        c = rootEnd + static_cast<TimeNs>(rng() % 20);
    }
    return out;
}

// The definition, spelled out: per thread sorted by (start, end descending, file index),
// depth from a stack of open ends; then everything by (start, depth, file index).
std::vector<NvtxRangeRecord> bruteForce(std::vector<NvtxRangeRecord> ranges)
{
    std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> byThread;
    for (size_t i = 0; i < ranges.size(); ++i)
        byThread[{ranges[i].pid, ranges[i].tid}].push_back(i);
    for (auto& [key, list] : byThread) {
        std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
            return std::make_tuple(ranges[a].start, -ranges[a].end, a)
                < std::make_tuple(ranges[b].start, -ranges[b].end, b);
        });
        std::vector<TimeNs> open;
        for (size_t i : list) {
            while (!open.empty() && open.back() <= ranges[i].start)
                open.pop_back();
            ranges[i].depth = static_cast<int32_t>(open.size());
            open.push_back(ranges[i].end);
        }
    }
    std::vector<size_t> order(ranges.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return std::make_tuple(ranges[a].start, ranges[a].depth, a)
            < std::make_tuple(ranges[b].start, ranges[b].depth, b);
    });
    std::vector<NvtxRangeRecord> out;
    for (size_t i : order) {
        out.push_back(ranges[i]);
        out.back().id = static_cast<int64_t>(out.size());
    }
    return out;
}

} // namespace

class TestImportOrder : public QObject {
    Q_OBJECT
private slots:
    void matchesBruteForce_data()
    {
        QTest::addColumn<quint64>("seed");
        QTest::addColumn<int>("count");
        QTest::addColumn<int>("threads");
        QTest::newRow("one thread") << quint64(1) << 3000 << 1;
        QTest::newRow("two threads") << quint64(2) << 5000 << 2;
        QTest::newRow("sixteen threads") << quint64(3) << 20000 << 16;
        QTest::newRow("many small threads") << quint64(4) << 4000 << 200;
        QTest::newRow("tiny") << quint64(5) << 3 << 2;
    }
    void matchesBruteForce()
    {
        QFETCH(quint64, seed);
        QFETCH(int, count);
        QFETCH(int, threads);
        const auto input = randomRanges(seed, static_cast<size_t>(count), threads);
        const auto expected = bruteForce(input);
        for (const unsigned parts : {1u, 2u, 3u, 8u}) {
            auto got = input;
            orderNvtxRanges(got, parts);
            QCOMPARE(got.size(), expected.size());
            for (size_t i = 0; i < got.size(); ++i) {
                if (!(got[i] == expected[i]))
                    QFAIL(qPrintable(QStringLiteral("parts %1: row %2 differs (file position %3, expected %4)")
                                         .arg(parts)
                                         .arg(i)
                                         .arg(got[i].category)
                                         .arg(expected[i].category)));
            }
        }
    }
    void emptyAndDefault()
    {
        std::vector<NvtxRangeRecord> none;
        orderNvtxRanges(none, 4);
        QVERIFY(none.empty());
        QCOMPARE(defaultOrderParts(10), 1u);
        QVERIFY(defaultOrderParts(size_t(1) << 24) >= 1u);
    }
};

QTEST_GUILESS_MAIN(TestImportOrder)
#include "tst_import_order.moc"
