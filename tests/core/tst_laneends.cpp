// SPDX-License-Identifier: MIT
// A lane's ends kept as 32-bit durations with an exact side table for the rest
// (core/timeline/laneends.h): every end reads back exactly, at any length, in any order it was
// set, through the lane cache and the row scan alike; and the short ones cost 4 bytes an event.
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/laneblob.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/laneends.h"
#include "core/timeline/timelinemodel.h"

#include <QTemporaryDir>
#include <QtTest>

#include <limits>
#include <random>

using namespace ws;

namespace {

constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();
constexpr TimeNs kLong = static_cast<TimeNs>(LaneDurations::kLong);

// (start, end) pairs around every edge of the 32-bit durations.
std::vector<std::pair<TimeNs, TimeNs>> edgeEvents()
{
    return {
        {0, 0},
        {1000, 1001},
        {5, 5 + kLong - 1},           // the longest short one
        {7, 7 + kLong},               // the value that marks a listed one, as a real duration
        {9, 9 + kLong + 1},           // just past 32 bits
        {11, 11 + (TimeNs(1) << 40)}, // hours
        {100, 99},                    // end before start (a damaged file)
        {kMin, kMax},                 // wraps around: still exact
        {kMax, kMin},
        {TimeNs(1) << 62, (TimeNs(1) << 62) + 3},
    };
}

TimelineLane laneOf(const std::vector<std::pair<TimeNs, TimeNs>>& events)
{
    TimelineLane lane;
    lane.kind = LaneKind::Nvtx;
    lane.pid = 1;
    lane.tid = 2;
    for (const auto& [s, e] : events) {
        lane.start.push_back(s);
        lane.appendEnd(e);
        lane.name.push_back(0);
        lane.ref.push_back(EventRef::make(EventTable::NvtxRange, static_cast<int64_t>(lane.ref.size() + 1)));
    }
    return lane;
}

} // namespace

class TestLaneEnds : public QObject {
    Q_OBJECT

private slots:
    void everyEndReadsBackExactly()
    {
        const auto events = edgeEvents();
        const TimelineLane lane = laneOf(events);
        QCOMPARE(lane.durations.size(), events.size());
        for (size_t i = 0; i < events.size(); ++i) {
            QCOMPARE(lane.endAt(i), events[i].second);
            QCOMPARE(lane.ends()[i], events[i].second);
        }
        // Exactly the ones that do not fit below kLong are listed.
        QCOMPARE(lane.durations.longCount(), size_t(5));
        QCOMPARE(lane.durations[2], kLong - 1);
        QCOMPARE(lane.durations[3], kLong);
        QCOMPARE(lane.durations[4], kLong + 1);
        QCOMPARE(lane.durations[6], TimeNs(-1));
    }

    void setInAnyOrderAndOverwrite()
    {
        const auto events = edgeEvents();
        TimelineLane lane;
        lane.start.resize(events.size());
        lane.durations.resize(events.size());
        // Backwards, as chunks may arrive, then every event overwritten by another's length.
        for (size_t i = events.size(); i-- > 0;) {
            lane.start[i] = events[i].first;
            lane.setEnd(i, events[i].second);
        }
        for (size_t i = 0; i < events.size(); ++i)
            QCOMPARE(lane.endAt(i), events[i].second);
        std::vector<TimeNs> expected;
        for (const auto& [st, e] : events)
            expected.push_back(LaneDurations::durationOf(st, e));
        std::mt19937_64 rng(3);
        for (int round = 0; round < 200; ++round) {
            const size_t i = rng() % events.size();
            const auto& other = events[rng() % events.size()];
            expected[i] = LaneDurations::durationOf(other.first, other.second);
            lane.durations.set(i, expected[i]);
            for (size_t k = 0; k < events.size(); ++k)
                QCOMPARE(lane.durations[k], expected[k]);
        }
        // A short duration over a listed one unlists it; a long one over a short one lists it.
        lane.durations.set(4, 10);
        QCOMPARE(lane.durations[4], TimeNs(10));
        lane.durations.set(0, kLong + 5);
        QCOMPARE(lane.durations[0], kLong + 5);
        size_t listed = 0;
        for (size_t k = 0; k < events.size(); ++k)
            listed += lane.durations.shortData()[k] == LaneDurations::kLong;
        QCOMPARE(lane.durations.longCount(), listed);
    }

    void resizeDropsListedPastTheEnd()
    {
        LaneDurations d;
        d.push_back(1);
        d.push_back(kLong * 3);
        d.push_back(2);
        d.push_back(-7);
        QCOMPARE(d.longCount(), size_t(2));
        d.resize(2);
        QCOMPARE(d.longCount(), size_t(1));
        d.resize(4);
        QCOMPARE(d[1], kLong * 3);
        QCOMPARE(d[2], TimeNs(0));
        QCOMPARE(d[3], TimeNs(0));
        d.set(3, -7);
        QCOMPARE(d[3], TimeNs(-7));
    }

    void assignEndsReplacesARange()
    {
        const auto events = edgeEvents();
        TimelineLane lane = laneOf(events);
        std::vector<TimeNs> ends;
        for (const auto& e : events)
            ends.push_back(e.second);
        // Events 2..7 rewritten as 10 ns each: the listed ones among them are unlisted.
        std::vector<TimeNs> shortEnds(ends.begin() + 2, ends.begin() + 8);
        for (size_t k = 0; k < shortEnds.size(); ++k)
            shortEnds[k] = lane.start[2 + k] + 10;
        lane.durations.assignEnds(2, lane.start.data() + 2, reinterpret_cast<const std::byte*>(shortEnds.data()), 6);
        for (size_t i = 0; i < events.size(); ++i)
            QCOMPARE(lane.endAt(i), i >= 2 && i < 8 ? lane.start[i] + 10 : events[i].second);
        QCOMPARE(lane.durations.longCount(), size_t(0));
        // And back: every end exact again, the same side table as built event by event.
        lane.durations.assignEnds(0, lane.start.data(), reinterpret_cast<const std::byte*>(ends.data()), ends.size());
        for (size_t i = 0; i < events.size(); ++i)
            QCOMPARE(lane.endAt(i), events[i].second);
        QVERIFY(lane.durations == laneOf(events).durations);
    }

    void shortDurationsCostFourBytes()
    {
        LaneDurations d;
        const size_t n = 100000;
        d.reserve(n);
        for (size_t i = 0; i < n; ++i)
            d.push_back(static_cast<TimeNs>(i * 40000)); // up to 4.0 s: all short
        QCOMPARE(d.longCount(), size_t(0));
        QCOMPARE(d.residentBytes(), n * sizeof(uint32_t));
    }

    void upperBoundAndMaxMatchScans()
    {
        std::mt19937_64 rng(9);
        TimelineLane lane;
        TimeNs t = -1000000;
        for (int i = 0; i < 3000; ++i) {
            t += static_cast<TimeNs>(rng() % 50);
            const TimeNs d
                = (i % 97 == 0) ? kLong + static_cast<TimeNs>(rng() % 1000) : static_cast<TimeNs>(rng() % 30);
            lane.start.push_back(t);
            lane.appendEnd(t + d);
            t += d;
        }
        const LaneEnds ends = lane.ends();
        TimeNs max = kMin;
        for (size_t k = 0; k < lane.size(); ++k)
            max = std::max(max, lane.endAt(k));
        QCOMPARE(ends.max(), max);
        QCOMPARE(ends.back(), lane.endAt(lane.size() - 1));
        for (int q = 0; q < 2000; ++q) {
            const TimeNs probe = lane.start.front() - 10
                + static_cast<TimeNs>(rng() % static_cast<uint64_t>(t - lane.start.front() + 20));
            size_t expected = 0;
            while (expected < lane.size() && lane.endAt(expected) <= probe)
                ++expected;
            QCOMPARE(ends.upperBound(probe), expected);
        }
        QCOMPARE(LaneEnds().max(), TimeNs(0));
    }

    void laneCacheChunksKeepLongEnds()
    {
        const auto events = edgeEvents();
        const TimelineLane lane = laneOf(events);
        // Two chunks, decoded in reverse order into a lane sized up front (as the loader does).
        const auto first = encodeLaneChunk(lane, 0, 6, 4);
        const auto second = encodeLaneChunk(lane, 6, events.size() - 6, 4);
        TimelineLane copy;
        copy.start.resize(lane.size());
        copy.durations.resize(lane.size());
        copy.name.resize(lane.size());
        copy.ref.resize(lane.size());
        for (const auto* blob : {&second, &first}) {
            LaneBlobHeader header;
            QVERIFY(decodeLaneChunkHeader(*blob, header));
            copyLaneChunk(*blob, header, copy);
        }
        for (size_t i = 0; i < events.size(); ++i)
            QCOMPARE(copy.endAt(i), events[i].second);
        QVERIFY(copy.durations == lane.durations);
        // The file keeps the 64-bit ends (formats 1 and 2 are unchanged).
        TimeNs stored = 0;
        std::memcpy(
            &stored, first.data() + sizeof(LaneBlobHeader) + 6 * sizeof(TimeNs) + 5 * sizeof(TimeNs), sizeof(TimeNs));
        QCOMPARE(stored, events[5].second);
    }

    void sessionWithLongEventsOpensExactly()
    {
        // NVTX ranges of hours, kernels of 5 s beside short ones: lane cache, row scan and the
        // data in memory give the same ends.
        SessionData s;
        s.processes.push_back({100, "prog", "prog", 0, 0, 0, 0, 1});
        const StringId range = s.strings.intern("epoch");
        const StringId kernel = s.strings.intern("k");
        TimeNs t = 1'000'000'000;
        for (int i = 0; i < 40; ++i) {
            NvtxRangeRecord n;
            n.id = i + 1;
            n.pid = 100;
            n.tid = 100;
            n.start = t;
            n.end = t + (i % 3 == 0 ? (TimeNs(3) << 40) : 1000);
            n.name = range;
            s.nvtxRanges.push_back(n);
            KernelRecord k;
            k.id = i + 1;
            k.pid = 100;
            k.streamId = 7;
            k.start = t;
            k.end = t + (i % 2 == 0 ? 5'000'000'000 : 20);
            k.shortName = kernel;
            s.kernels.push_back(k);
            t += (TimeNs(3) << 40) + 1;
        }
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath("long.wscope").toStdString();
        {
            SessionWriter writer(path);
            attachLaneCache(writer);
            writer.write(s);
            writer.commit();
        }
        SessionReader reader(path);
        const auto cached = TimelineModel::load(reader);
        const auto scanned = TimelineModel::load(reader, {}, {}, /*useLaneCache=*/false);
        const auto memory = TimelineModel::fromSessionData(s);
        QVERIFY(cached->fromLaneCache);
        size_t seen = 0;
        for (const auto* model : {cached.get(), scanned.get(), memory.get()}) {
            QCOMPARE(model->lanes.size(), size_t(2));
            QCOMPARE(model->end, s.nvtxRanges.back().end);
            for (const TimelineLane& lane : model->lanes) {
                QVERIFY(lane.durations.longCount() > 0);
                for (size_t i = 0; i < lane.size(); ++i) {
                    const int64_t id = lane.ref[i].rowid();
                    const TimeNs expected = lane.kind == LaneKind::GpuStream
                        ? s.kernels[static_cast<size_t>(id - 1)].end
                        : s.nvtxRanges[static_cast<size_t>(id - 1)].end;
                    QCOMPARE(lane.endAt(i), expected);
                    ++seen;
                }
            }
        }
        QCOMPARE(seen, size_t(3 * 80));
    }
};

QTEST_GUILESS_MAIN(TestLaneEnds)
#include "tst_laneends.moc"
