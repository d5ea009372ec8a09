// SPDX-License-Identifier: MIT
// widenToGranules (collectors/profiler/restorespans.h): the spans a `none` replay copies back
// around the blocks a kernel changed, against a byte map of the granules each change touches.
// On the GPU a span too short leaves the program's memory changed for the next pass, one too long
// or into the next region copies from beyond a saved copy; both would show only as wrong metrics
// or a corrupted result, so the arithmetic is checked here.
#include "collectors/profiler/restorespans.h"

#include <QTest>

#include <random>
#include <vector>

using ws::profiler::RestoreSpan;
using ws::profiler::widenToGranules;

namespace {

// Changed blocks as ChangedMemory::findChanged notes them: per region, each changed `block`
// (the last one may be short), adjacent ones of one region joined.
std::vector<RestoreSpan> changedBlocks(
    std::mt19937_64& rng, const std::vector<size_t>& regionBytes, size_t block, double changedShare)
{
    std::bernoulli_distribution changed(changedShare);
    std::vector<RestoreSpan> spans;
    for (size_t ri = 0; ri < regionBytes.size(); ++ri) {
        for (size_t at = 0; at < regionBytes[ri]; at += block) {
            if (!changed(rng))
                continue;
            const size_t len = std::min(block, regionBytes[ri] - at);
            if (!spans.empty() && spans.back().region == ri && spans.back().offset + spans.back().bytes == at)
                spans.back().bytes += len;
            else
                spans.push_back({ri, at, len});
        }
    }
    return spans;
}

// The brute force: per region a map of the bytes in a granule (counted from the region's start,
// clipped to it) that holds a changed byte; the expected copies are the map's maximal runs.
std::vector<RestoreSpan> byteMapSpans(
    const std::vector<RestoreSpan>& changed, const std::vector<size_t>& regionBytes, size_t granule)
{
    std::vector<RestoreSpan> out;
    for (size_t ri = 0; ri < regionBytes.size(); ++ri) {
        std::vector<bool> copy(regionBytes[ri], false);
        for (const RestoreSpan& c : changed) {
            if (c.region != ri)
                continue;
            for (size_t b = c.offset; b < c.offset + c.bytes; ++b) {
                const size_t g = b / granule;
                for (size_t x = g * granule; x < (g + 1) * granule && x < copy.size(); ++x)
                    copy[x] = true;
            }
        }
        for (size_t b = 0; b < copy.size();) {
            if (!copy[b]) {
                ++b;
                continue;
            }
            size_t e = b;
            while (e < copy.size() && copy[e])
                ++e;
            out.push_back({ri, b, e - b});
            b = e;
        }
    }
    return out;
}

QString describe(const std::vector<RestoreSpan>& spans)
{
    QStringList parts;
    for (const RestoreSpan& s : spans)
        parts << QStringLiteral("r%1:%2+%3").arg(s.region).arg(s.offset).arg(s.bytes);
    return parts.join(QLatin1Char(' '));
}

} // namespace

class TestRestoreSpans : public QObject {
    Q_OBJECT

private slots:
    void matchesByteMap_data();
    void matchesByteMap();
    void regionsNeverMerge();
};

void TestRestoreSpans::matchesByteMap_data()
{
    QTest::addColumn<quint64>("seed");
    QTest::addColumn<qulonglong>("block");
    QTest::addColumn<qulonglong>("granule");
    QTest::addColumn<qulonglong>("maxRegion");
    QTest::addColumn<double>("changedShare");

    // The profiler's own sizes scaled down (64 KiB blocks, 4 MiB granules: 64 blocks a granule).
    QTest::newRow("64 blocks a granule") << quint64(1) << 16ull << 1024ull << 5000ull << 0.05;
    QTest::newRow("4 blocks a granule, dense") << quint64(2) << 16ull << 64ull << 700ull << 0.5;
    QTest::newRow("granule not a multiple of the block") << quint64(3) << 16ull << 40ull << 600ull << 0.2;
    QTest::newRow("granule larger than every region") << quint64(4) << 16ull << 4096ull << 900ull << 0.1;
    QTest::newRow("every block changed") << quint64(5) << 16ull << 64ull << 500ull << 1.0;
    QTest::newRow("nothing changed") << quint64(6) << 16ull << 64ull << 500ull << 0.0;
    QTest::newRow("granule equal to the block: unchanged") << quint64(7) << 16ull << 16ull << 500ull << 0.3;
    QTest::newRow("granule below the block: unchanged") << quint64(8) << 64ull << 16ull << 500ull << 0.3;
    QTest::newRow("regions of a few bytes") << quint64(9) << 4ull << 12ull << 30ull << 0.4;
}

void TestRestoreSpans::matchesByteMap()
{
    QFETCH(quint64, seed);
    QFETCH(qulonglong, block);
    QFETCH(qulonglong, granule);
    QFETCH(qulonglong, maxRegion);
    QFETCH(double, changedShare);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<size_t> regionCount(1, 6);
    std::uniform_int_distribution<size_t> regionSize(1, maxRegion);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<size_t> regionBytes(regionCount(rng));
        for (size_t& b : regionBytes)
            b = regionSize(rng);
        const std::vector<RestoreSpan> changed = changedBlocks(rng, regionBytes, block, changedShare);
        const std::vector<RestoreSpan> got = widenToGranules(changed, regionBytes, granule, block);
        const std::vector<RestoreSpan> want = granule <= block ? changed : byteMapSpans(changed, regionBytes, granule);
        if (got != want)
            QFAIL(qPrintable(QStringLiteral("trial %1: changed %2\n  got  %3\n  want %4")
                                 .arg(trial)
                                 .arg(describe(changed), describe(got), describe(want))));
        for (const RestoreSpan& s : got)
            QVERIFY(s.bytes > 0 && s.offset + s.bytes <= regionBytes[s.region]);
    }
}

// Two allocations may lie back to back in the address space; their copies do not. A change at the
// end of one and the start of the next must stay two copies, each from its own region's copy.
void TestRestoreSpans::regionsNeverMerge()
{
    const std::vector<size_t> regionBytes {100, 100};
    const std::vector<RestoreSpan> changed {{0, 96, 4}, {1, 0, 4}};
    const std::vector<RestoreSpan> want {{0, 64, 36}, {1, 0, 64}};
    QCOMPARE(describe(widenToGranules(changed, regionBytes, 64, 4)), describe(want));
    QCOMPARE(describe(widenToGranules(changed, regionBytes, 4, 4)), describe(changed));
}

QTEST_GUILESS_MAIN(TestRestoreSpans)
#include "tst_restorespans.moc"
