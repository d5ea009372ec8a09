// SPDX-License-Identifier: MIT
// The compact (version 2) in-kernel event buffer: 16-byte events with the low words of clock64
// and %globaltimer, anchors carrying the high word. Events are generated from a known device
// timeline (SM clock rate, globaltimer truncated to 32 ns ticks, both low words wrapping), in
// the layout warpscope/iket.cuh writes, expanded as libwarpscope-inject does and decoded: the
// recorded durations and positions must match the timeline to within the timer's resolution.
#include "core/iket/compactevents.h"
#include "core/iket/iketlaunch.h"
#include "core/iket/warpdecoder.h"
#include "core/ingest/rawingest.h"
#include "core/raw/rawreader.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace ws;
using namespace ws::iket;

namespace {

using Kind = raw::IketKind;

constexpr uint64_t kTick = 32;

// One warp's device: true time in ns since `gt0`, its SM clock at `ghz` from `clock0`.
struct Device {
    uint64_t gt0 = 0;
    uint64_t clock0 = 0;
    double ghz = 1.98;
    double slowAfterNs = -1; // from then on the clock runs at half speed (a clock change)
    bool globaltimerPerEvent = true;
    bool pairs = false; // as Store::Pair writes: a push and its pop in one slot, the next unwritten
    uint32_t sm = 7;

    uint64_t gtAt(double ns) const { return (gt0 + static_cast<uint64_t>(ns)) / kTick * kTick; }
    uint64_t clockAt(double ns) const
    {
        if (slowAfterNs >= 0 && ns > slowAfterNs)
            return clock0 + static_cast<uint64_t>(slowAfterNs * ghz + (ns - slowAfterNs) * ghz / 2);
        return clock0 + static_cast<uint64_t>(ns * ghz);
    }
    CompactEvent event(double ns, Kind kind, uint16_t name, uint32_t token) const
    {
        CompactEvent e {};
        e.clockLo = static_cast<uint32_t>(clockAt(ns));
        e.nameKind = name | (static_cast<uint32_t>(kind) << 16);
        e.token = token;
        if (globaltimerPerEvent) {
            e.globaltimerLo = static_cast<uint32_t>(gtAt(ns));
            e.nameKind |= kGlobaltimerFlag;
        }
        return e;
    }
    CompactEvent anchor(double ns) const
    {
        const uint64_t gt = gtAt(ns);
        return {static_cast<uint32_t>(clockAt(ns)), static_cast<uint32_t>(gt),
            sm | (static_cast<uint32_t>(Kind::Anchor) << 16) | kGlobaltimerFlag, static_cast<uint32_t>(gt >> 32)};
    }
};

struct Truth {
    double begin;
    double end;
};

// anchor, role, then ranges of the given lengths with `gap` ns between them, a mark, anchor.
std::vector<CompactEvent> warpEvents(
    const Device& d, const std::vector<double>& lengths, double gap, std::vector<Truth>& truth)
{
    std::vector<CompactEvent> out;
    double t = 100;
    out.push_back(d.anchor(0));
    out.push_back(d.event(50, Kind::Role, 0, 1));
    for (const double len : lengths) {
        if (d.pairs) {
            CompactEvent pair = d.event(t, Kind::Push, 1, 0);
            pair.nameKind |= kPushPopKind << 16;
            pair.token = static_cast<uint32_t>(d.clockAt(t + len));
            out.push_back(pair);
            out.push_back({0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu}); // the pop's slot: not written
        } else {
            out.push_back(d.event(t, Kind::Push, 1, static_cast<uint32_t>(out.size())));
            out.push_back(d.event(t + len, Kind::Pop, 0, static_cast<uint32_t>(out.size())));
        }
        truth.push_back({t, t + len});
        t += len + gap;
    }
    out.push_back(d.event(t, Kind::Mark, 2, static_cast<uint32_t>(out.size())));
    out.push_back(d.anchor(t + 50));
    return out;
}

// Three warps of the same ranges from globaltimer 2^40; the middle one's SM clock halves its
// speed `slowAfterNs` into the warp.
std::vector<std::vector<CompactEvent>> warpsWithClockChange(double slowAfterNs, const std::vector<double>& lengths,
    double gap, std::vector<std::vector<Truth>>& truth, bool pairs = false)
{
    std::vector<std::vector<CompactEvent>> warps;
    for (int w = 0; w < 3; ++w) {
        Device d;
        d.gt0 = uint64_t {1} << 40;
        d.clock0 = 1000;
        d.pairs = pairs;
        d.slowAfterNs = w == 1 ? slowAfterNs : -1;
        warps.push_back(warpEvents(d, lengths, gap, truth[static_cast<size_t>(w)]));
    }
    return warps;
}

// The launch as ingest sees it: the compact events expanded into raw events, warp by warp.
LaunchBuffer launchOf(const std::vector<std::vector<CompactEvent>>& warps)
{
    LaunchBuffer l;
    l.grid[0] = static_cast<uint32_t>(warps.size());
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = 32;
    l.block[1] = l.block[2] = 1;
    l.warpsPerBlock = 1;
    l.names = {"worker", "phase", "tick"};
    size_t most = 0;
    for (const auto& w : warps)
        most = std::max(most, w.size());
    l.eventsPerWarp = static_cast<uint32_t>(most);
    for (size_t w = 0; w < warps.size(); ++w) {
        l.counts.push_back(static_cast<uint32_t>(warps[w].size()));
        l.firstEvent.push_back(l.events.size());
        std::vector<raw::IketEvent> expanded(warps[w].size());
        expandCompactWarp(
            warps[w].data(), static_cast<uint32_t>(warps[w].size()), static_cast<uint32_t>(w), 0, expanded.data());
        l.events.insert(l.events.end(), expanded.begin(), expanded.end());
    }
    return l;
}

// A raw file with one kernel (and its launch call) and the launch's record, as the injection
// library writes them.
std::string rawFileWith(const LaunchBuffer& l, int64_t kernelStart, int64_t kernelEnd)
{
    std::string bytes;
    raw::FileHeader h {};
    std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
    h.version = raw::kFormatVersion;
    h.headerSize = sizeof(h);
    h.pid = 77;
    h.parentPid = 1;
    bytes.assign(reinterpret_cast<const char*>(&h), sizeof(h));
    uint32_t next = 1;
    const auto string = [&](std::string_view text) {
        raw::StringDef d {next, 0};
        raw::appendFrame(bytes, raw::RecordType::String, d, text);
        return next++;
    };
    raw::ApiRecord a {};
    a.start = l.armedNs + 10;
    a.end = a.start + 100;
    a.tid = l.tid;
    a.correlationId = 5;
    a.name = string("cudaLaunchKernel_v7000");
    raw::appendFrame(bytes, raw::RecordType::Api, a);
    raw::KernelRecord k {};
    k.start = kernelStart;
    k.end = kernelEnd;
    k.correlationId = 5;
    k.name = string("_Z4lostv");
    k.grid[0] = l.grid[0];
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = l.block[0];
    k.block[1] = k.block[2] = 1;
    raw::appendFrame(bytes, raw::RecordType::Kernel, k);
    const uint32_t label = string(l.label);
    std::string list;
    for (const auto& n : l.names)
        list += (list.empty() ? "" : ", ") + n;
    const uint32_t names = string(list);
    const std::string payload = encodeLaunchPayload(l, label, names);
    raw::FrameHeader f {};
    f.size = static_cast<uint32_t>(payload.size());
    f.type = static_cast<uint16_t>(raw::kIketLaunchType);
    bytes.append(reinterpret_cast<const char*>(&f), sizeof(f));
    bytes.append(payload);
    return bytes;
}

} // namespace

class TestIketCompact : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Both low words wrap inside the warp; the expansion restores full values in order.
    void expansionUnwraps()
    {
        Device d;
        d.gt0 = (uint64_t {0x1234} << 32) + 0xffffff00u; // globaltimer's low word wraps 256 ns in
        d.clock0 = 0xfffff000u;                          // clock64's low word wraps 4096 cycles in
        std::vector<Truth> truth;
        const std::vector<CompactEvent> events = warpEvents(d, {1000, 5000}, 200, truth);
        std::vector<raw::IketEvent> out(events.size());
        expandCompactWarp(events.data(), static_cast<uint32_t>(events.size()), 3, 1, out.data());
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].block, 3u);
            QCOMPARE(out[i].warp, uint16_t(1));
            QCOMPARE(out[i].sm, uint16_t(7));
            QCOMPARE(out[i].reserved, kFromCompact);
            QVERIFY(out[i].globaltimer >> 32 >= 0x1234);
            if (i > 0) {
                QVERIFY2(out[i].clock > out[i - 1].clock, "clock continues across the low word's wrap");
                QVERIFY2(out[i].globaltimer >= out[i - 1].globaltimer, "globaltimer continues across its wrap");
            }
        }
        QVERIFY(out.back().clock > 0xffffffffull);
        QCOMPARE(out.front().kind, static_cast<uint8_t>(Kind::Anchor));
        QCOMPARE(out[1].kind, static_cast<uint8_t>(Kind::Role));
        QCOMPARE(out[2].kind, static_cast<uint8_t>(Kind::Push));
        QCOMPARE(out[2].name, uint16_t(1));
        QCOMPARE(out[2].token, 2u);
        QCOMPARE(out.back().globaltimer, d.gtAt(100 + 1000 + 200 + 5000 + 200 + 50));
        // Clock64-only events carry no globaltimer; the anchors still do.
        d.globaltimerPerEvent = false;
        truth.clear();
        const std::vector<CompactEvent> bare = warpEvents(d, {1000}, 200, truth);
        std::vector<raw::IketEvent> out2(bare.size());
        expandCompactWarp(bare.data(), static_cast<uint32_t>(bare.size()), 0, 0, out2.data());
        QVERIFY(out2.front().globaltimer != 0);
        QCOMPARE(out2[2].globaltimer, uint64_t {0});
        QVERIFY(out2.back().globaltimer != 0);
    }

    // Durations from clock64 (not 32 ns globaltimer ticks), positions from globaltimer.
    // The recorder stores a token only for range_start/range_end; push, pop, mark and role store
    // 0 (a live counter there made the warp wait on its store) and decode to their own index,
    // as older buffers stored it. A start/end pair keeps its token even out of order.
    void tokensAreOwnIndexExceptStartEnd_data()
    {
        QTest::addColumn<bool>("storedOwnIndex");
        QTest::newRow("new buffer: 0") << false;
        QTest::newRow("old buffer: own index") << true;
    }
    void tokensAreOwnIndexExceptStartEnd()
    {
        QFETCH(bool, storedOwnIndex);
        const Device d;
        std::vector<CompactEvent> events {d.anchor(0)};
        const Kind kinds[]
            = {Kind::Role, Kind::Start, Kind::Push, Kind::Mark, Kind::Start, Kind::Pop, Kind::End, Kind::End};
        double t = 100;
        for (const Kind k : kinds) {
            const auto own = static_cast<uint32_t>(events.size());
            uint32_t token = storedOwnIndex ? own : 0u;
            if (k == Kind::Start)
                token = own;
            if (k == Kind::End) // ends close the second start first, then the first
                token = events.size() == 7 ? 5u : 2u;
            events.push_back(d.event(t, k, 1, token));
            t += 100;
        }
        events.push_back(d.anchor(t));
        std::vector<raw::IketEvent> out(events.size());
        expandCompactWarp(events.data(), static_cast<uint32_t>(events.size()), 0, 0, out.data());
        const uint32_t expected[] = {1, 2, 3, 4, 5, 6, 5, 2};
        for (uint32_t i = 1; i <= 8; ++i)
            QCOMPARE(out[i].token, expected[i - 1]);
    }

    // Store::Pair writes a push and the pop right after it into the push's slot (the pop's
    // clock in the token) and leaves the pop's slot unwritten: the expansion puts the pop in that
    // slot's place, with no globaltimer and its own index, and never reads the slot. A pair in
    // the warp's last stored slot lost its pop to the warp's capacity: only the push is left.
    void pairsExpandIntoPushAndPop()
    {
        const Device d;
        CompactEvent pair = d.event(100, Kind::Push, 1, 0);
        pair.nameKind |= kPushPopKind << 16;
        pair.token = static_cast<uint32_t>(d.clockAt(600));
        const CompactEvent unwritten {0xdeadbeefu, 0xdeadbeefu, 0x00060000u, 0xdeadbeefu}; // looks like an anchor
        CompactEvent pop = d.event(900, Kind::Pop, 0, 0);
        pop.nameKind &= ~kGlobaltimerFlag; // an unpaired pop reads no globaltimer either
        pop.globaltimerLo = 0;
        CompactEvent pair2 = d.event(910, Kind::Push, 1, 0);
        pair2.nameKind |= kPushPopKind << 16;
        pair2.token = static_cast<uint32_t>(d.clockAt(950));
        const std::vector<CompactEvent> events {
            d.anchor(0), d.event(50, Kind::Push, 2, 0), pair, unwritten, pop, pair2, unwritten, d.anchor(1000)};
        std::vector<raw::IketEvent> out(events.size());
        expandCompactWarp(events.data(), static_cast<uint32_t>(events.size()), 0, 0, out.data());
        const Kind kinds[]
            = {Kind::Anchor, Kind::Push, Kind::Push, Kind::Pop, Kind::Pop, Kind::Push, Kind::Pop, Kind::Anchor};
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].kind, static_cast<uint8_t>(kinds[i]));
            QCOMPARE(out[i].token, static_cast<uint32_t>(i));
            QCOMPARE(out[i].sm, uint16_t(7));
        }
        QCOMPARE(out[2].name, uint16_t(1));
        QCOMPARE(out[2].clock, d.clockAt(100));
        QCOMPARE(out[2].globaltimer, d.gtAt(100));
        QCOMPARE(out[3].clock, d.clockAt(600));
        QCOMPARE(out[3].globaltimer, uint64_t {0});
        QCOMPARE(out[3].name, uint16_t(0));
        QCOMPARE(out[4].clock, d.clockAt(900));
        QCOMPARE(out[4].globaltimer, uint64_t {0});
        QCOMPARE(out.back().globaltimer, d.gtAt(1000));
        // Six stored: the second pair is the last, its pop past the warp's slots.
        std::vector<raw::IketEvent> cut(6);
        expandCompactWarp(events.data(), 6, 0, 0, cut.data());
        QCOMPARE(cut[5].kind, static_cast<uint8_t>(Kind::Push));
        QCOMPARE(cut[5].clock, d.clockAt(910));
        QCOMPARE(out[6].clock, d.clockAt(950));
    }

    void decodedTimes_data()
    {
        QTest::addColumn<bool>("globaltimerPerEvent");
        QTest::addColumn<double>("ghz");
        QTest::addColumn<bool>("pairs");
        QTest::newRow("globaltimer and clock64") << true << 1.98 << false;
        QTest::newRow("clock64 only, anchors") << false << 1.98 << false;
        QTest::newRow("globaltimer and clock64, slower clock") << true << 1.41 << false;
        QTest::newRow("clock64 only, slower clock") << false << 1.41 << false;
        QTest::newRow("push/pop pairs") << true << 1.98 << true;
        QTest::newRow("push/pop pairs, slower clock") << true << 1.41 << true;
        QTest::newRow("push/pop pairs, clock64 only") << false << 1.98 << true;
    }
    void decodedTimes()
    {
        QFETCH(bool, globaltimerPerEvent);
        QFETCH(double, ghz);
        QFETCH(bool, pairs);
        const std::vector<double> lengths {37, 100, 250, 1000, 4321, 20000, 100000};
        std::vector<std::vector<CompactEvent>> warps;
        std::vector<std::vector<Truth>> truth(3);
        for (int w = 0; w < 3; ++w) {
            Device d;
            d.gt0 = (uint64_t {0x1800000} << 32) + 0xfffff000u + 1000u * static_cast<uint64_t>(w);
            d.clock0 = 0xffff0000u + 977u * static_cast<uint64_t>(w); // each SM's own clock
            d.ghz = ghz;
            d.sm = static_cast<uint32_t>(w);
            d.globaltimerPerEvent = globaltimerPerEvent;
            d.pairs = pairs;
            warps.push_back(warpEvents(d, lengths, 300 + 10 * w, truth[w]));
        }
        StringTable strings;
        const DecodedLaunch out = decodeLaunch(launchOf(warps), nullptr, strings);
        QCOMPARE(out.clock.warpsOnGlobaltimer, 0u);
        QVERIFY(std::fabs(out.clock.nsPerCycle - 1.0 / ghz) < 1e-3 / ghz);
        std::vector<int> seen(3, 0);
        for (const WarpEvent& e : out.events) {
            if (e.kind != WarpEventKind::Range)
                continue;
            const Truth& t
                = truth[static_cast<size_t>(e.block)][static_cast<size_t>(seen[static_cast<size_t>(e.block)]++)];
            const uint64_t gt0 = (uint64_t {0x1800000} << 32) + 0xfffff000u + 1000u * static_cast<uint64_t>(e.block);
            const double len = t.end - t.begin;
            const double got = static_cast<double>(e.end - e.begin);
            // Within 2 % or 2 ns of the truth, whichever is larger (the clock's own resolution).
            QVERIFY2(std::fabs(got - len) <= std::max(0.02 * len, 2.0),
                qPrintable(QStringLiteral("range of %1 ns recorded as %2 ns").arg(len).arg(got)));
            const double begin = static_cast<double>(e.begin) - static_cast<double>(gt0);
            QVERIFY2(std::fabs(begin - t.begin) <= kTick,
                qPrintable(QStringLiteral("range at %1 ns placed at %2 ns").arg(t.begin).arg(begin)));
        }
        QCOMPARE(seen, std::vector<int>(3, static_cast<int>(lengths.size())));
    }

    // The SM clock halves its speed mid-warp on one of three warps: that warp's globaltimer
    // readings leave its clock line, so it keeps globaltimer (positions within a tick) and is
    // counted; the others keep the clock's rate.
    // Pops paired with their push carry no globaltimer reading: in the kept warp they follow
    // their push by the clock cycles in between, so every duration stays a clock duration.
    void clockChangeKeepsGlobaltimer_data()
    {
        QTest::addColumn<bool>("pairs");
        QTest::newRow("an event per call") << false;
        QTest::newRow("push/pop pairs") << true;
    }
    void clockChangeKeepsGlobaltimer()
    {
        QFETCH(bool, pairs);
        std::vector<std::vector<Truth>> truth(3);
        const auto warps = warpsWithClockChange(20000, {1000, 10000, 10000, 10000, 10000}, 500, truth, pairs);
        StringTable strings;
        const DecodedLaunch out = decodeLaunch(launchOf(warps), nullptr, strings);
        QCOMPARE(out.clock.warpsOnGlobaltimer, 1u);
        int n = 0;
        for (const WarpEvent& e : out.events) {
            if (e.kind != WarpEventKind::Range || e.block != 1)
                continue;
            const Truth& t = truth[1][static_cast<size_t>(n++)];
            const double begin = static_cast<double>(e.begin - static_cast<TimeNs>(uint64_t {1} << 40));
            QVERIFY2(std::fabs(begin - t.begin) <= kTick, qPrintable(QString::number(begin - t.begin)));
            if (pairs) {
                // After the change the clock runs at half speed: a pop placed by the launch's
                // rate would make the range half as long.
                const double len = t.end - t.begin;
                const double got = static_cast<double>(e.end - e.begin);
                QVERIFY2(std::fabs(got - len) <= std::max(0.02 * len, 2.0) + kTick,
                    qPrintable(QStringLiteral("range of %1 ns recorded as %2 ns").arg(len).arg(got)));
            }
        }
        QCOMPARE(n, 5);
    }

    // A warp kept on globaltimer (its clock halves speed mid-warp) writing ranges shorter than a
    // tick back to back, as ws-example-iket-large does: every range begins within a tick of the
    // truth, and each strictly after the one written before it, so sorting by begin gives the
    // written order (on the H200 48 to 163 such warps came out of order when every event of a
    // tick sat at its middle).
    void keptWarpKeepsOrderWithinATick_data()
    {
        QTest::addColumn<double>("length");
        QTest::addColumn<double>("gap");
        QTest::addColumn<bool>("pairs");
        QTest::newRow("30 ns ranges, 5 ns apart") << 30.0 << 5.0 << false;
        QTest::newRow("12 ns ranges, 3 ns apart") << 12.0 << 3.0 << false;
        QTest::newRow("ranges of a tick, none apart") << 32.0 << 0.0 << false;
        QTest::newRow("50 ns ranges, 20 ns apart") << 50.0 << 20.0 << false;
        QTest::newRow("pairs: 30 ns ranges, 5 ns apart") << 30.0 << 5.0 << true;
        QTest::newRow("pairs: 12 ns ranges, 3 ns apart") << 12.0 << 3.0 << true;
        QTest::newRow("pairs: ranges of a tick, none apart") << 32.0 << 0.0 << true;
    }
    void keptWarpKeepsOrderWithinATick()
    {
        QFETCH(double, length);
        QFETCH(double, gap);
        QFETCH(bool, pairs);
        std::vector<double> lengths(300, length);
        lengths.front() = 4000; // the clock change falls inside the first range
        std::vector<std::vector<Truth>> truth(3);
        const auto warps = warpsWithClockChange(2000, lengths, gap, truth, pairs);
        StringTable strings;
        const DecodedLaunch out = decodeLaunch(launchOf(warps), nullptr, strings);
        QCOMPARE(out.clock.warpsOnGlobaltimer, 1u);
        std::vector<std::pair<TimeNs, size_t>> begins; // (begin, written index) of warp 1's ranges
        for (const WarpEvent& e : out.events) {
            if (e.kind != WarpEventKind::Range || e.block != 1)
                continue;
            const size_t n = begins.size();
            const Truth& t = truth[1][n];
            const auto at = [](TimeNs x) { return static_cast<double>(x - static_cast<TimeNs>(uint64_t {1} << 40)); };
            // Within the timer's resolution of the truth, as every kept warp's event.
            QVERIFY2(std::fabs(at(e.begin) - t.begin) <= kTick,
                qPrintable(QStringLiteral("range %1 at %2 ns placed at %3 ns").arg(n).arg(t.begin).arg(at(e.begin))));
            QVERIFY(e.end >= e.begin);
            begins.emplace_back(e.begin, n);
        }
        QCOMPARE(begins.size(), truth[1].size());
        // Strictly later than the range written before it: no tie for a sort to break either way.
        for (size_t i = 1; i < begins.size(); ++i)
            QVERIFY2(begins[i].first > begins[i - 1].first,
                qPrintable(QStringLiteral("range %1 begins at or before range %2").arg(i).arg(i - 1)));
    }

    // One SM's clock64 runs at its own constant speed (as a group of SMs did on the H200): its
    // warp spans long enough to be timed by its own rate, keeps clock64 durations and is not
    // counted as strayed.
    void ownClockRate()
    {
        std::vector<std::vector<CompactEvent>> warps;
        std::vector<std::vector<Truth>> truth(3);
        const std::vector<double> lengths {60, 300, 2000, 10000, 10000};
        for (int w = 0; w < 3; ++w) {
            Device d;
            d.gt0 = uint64_t {1} << 40;
            d.clock0 = 1000;
            d.ghz = w == 2 ? 1.41 : 1.98;
            warps.push_back(warpEvents(d, lengths, 500, truth[w]));
        }
        StringTable strings;
        const DecodedLaunch out = decodeLaunch(launchOf(warps), nullptr, strings);
        QCOMPARE(out.clock.warpsOnGlobaltimer, 0u);
        QCOMPARE(out.clock.warpsWithOwnRate, 3u);
        std::vector<int> seen(3, 0);
        for (const WarpEvent& e : out.events) {
            if (e.kind != WarpEventKind::Range)
                continue;
            const auto w = static_cast<size_t>(e.block);
            const Truth& t = truth[w][static_cast<size_t>(seen[w]++)];
            const double len = t.end - t.begin;
            const double got = static_cast<double>(e.end - e.begin);
            QVERIFY2(std::fabs(got - len) <= std::max(0.02 * len, 2.0),
                qPrintable(QStringLiteral("warp %1: range of %2 ns recorded as %3 ns").arg(w).arg(len).arg(got)));
        }
        QCOMPARE(seen, std::vector<int>(3, static_cast<int>(lengths.size())));
    }

    // Warps that ran out of slots are named with their kernel and how many events each lost,
    // in meta iket_dropped_warps and in ingest's warning; the others' events all arrive.
    void droppedWarpsNamed()
    {
        constexpr uint32_t kSlots = 8;
        std::vector<std::vector<CompactEvent>> warps;
        std::vector<uint32_t> attempted;
        for (int w = 0; w < 4; ++w) {
            Device d;
            d.gt0 = uint64_t {1} << 40;
            d.clock0 = 5000;
            std::vector<Truth> truth;
            // Warps 1 and 3: 12 ranges (anchor, role, 24 calls, mark, anchor: 28 events) in 8 slots.
            std::vector<CompactEvent> all = warpEvents(d, std::vector<double>(w % 2 ? 12 : 2, 100.0), 50, truth);
            attempted.push_back(static_cast<uint32_t>(all.size()));
            all.resize(std::min<size_t>(all.size(), kSlots));
            warps.push_back(all);
        }
        LaunchBuffer l = launchOf(warps);
        l.eventsPerWarp = kSlots;
        l.counts = attempted;
        l.label = "lost";
        l.tid = 9;
        l.armedNs = 1000;
        const int64_t start = static_cast<int64_t>(uint64_t {1} << 40);
        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(rawFileWith(l, start, start + 100000), "lost.raw"));
        const SessionData s = ingest.finish();
        QCOMPARE(s.meta.at("iket_dropped_events"), std::to_string(2 * (28 - kSlots)));
        const std::string kernel = "lost (kernel #" + std::to_string(s.kernels.at(0).id) + ")";
        QCOMPARE(s.meta.at("iket_dropped_warps"),
            kernel + ": block 1 warp 0 (" + std::to_string(28 - kSlots) + ")\n" + kernel + ": block 3 warp 0 ("
                + std::to_string(28 - kSlots) + ")");
        const auto& w = ingest.warnings();
        QVERIFY(std::any_of(w.begin(), w.end(), [&](const std::string& x) {
            return x.find("in-kernel trace " + kernel
                       + ": 40 events dropped by 2 warp(s) that ran out of slots: "
                         "block 1 warp 0 (20), block 3 warp 0 (20)")
                != std::string::npos;
        }));
        // Warps 0 and 2 kept both their ranges and their mark.
        std::map<int, int> perBlock;
        for (const WarpEvent& e : s.warpEvents)
            ++perBlock[e.block];
        QCOMPARE(perBlock[0], 3);
        QCOMPARE(perBlock[2], 3);
    }
};

QTEST_GUILESS_MAIN(TestIketCompact)
#include "tst_iket_compact.moc"
