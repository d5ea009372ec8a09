// SPDX-License-Identifier: MIT
// In-kernel event tracing (core/iket): the raw launch record parsed and rejected when
// malformed, ranges paired per warp (push/pop, start/end tokens) with every imbalance
// reported, device times mapped onto the session clock (anchor, kernel alignment, clock64
// interpolation of a coarse globaltimer), launches matched to their kernel by the launching
// thread's next launch call, and the per-role summary against hand-computed figures. Buffers
// are built in the exact layout warpscope/iket.cuh writes and the injection library stores.
#include "core/export/chrometrace.h"
#include "core/iket/iketingest.h"
#include "core/iket/iketlaunch.h"
#include "core/iket/warpdecoder.h"
#include "core/iket/warplanes.h"
#include "core/iket/warprolesummary.h"
#include "core/ingest/rawingest.h"
#include "core/raw/iketformat.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

using namespace ws;
using namespace ws::iket;

namespace {

using Kind = raw::IketKind;

raw::IketEvent devEvent(Kind kind, uint16_t name, uint32_t token, uint64_t gt, uint32_t block = 0, uint16_t warp = 0,
    uint64_t clock = 0, uint16_t sm = 0)
{
    raw::IketEvent e {};
    e.globaltimer = gt;
    e.clock = clock;
    e.block = block;
    e.sm = sm;
    e.warp = warp;
    e.name = name;
    e.kind = static_cast<uint8_t>(kind);
    e.token = token;
    return e;
}

// A launch of `blocks` x `warpsPerBlock` warps; warp slot w holds perWarp[w] (the rest empty).
LaunchBuffer makeLaunch(uint32_t blocks, uint32_t warpsPerBlock, uint32_t eventsPerWarp,
    const std::vector<std::vector<raw::IketEvent>>& perWarp, std::vector<std::string> names)
{
    LaunchBuffer l;
    l.grid[0] = blocks;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = warpsPerBlock * 32;
    l.block[1] = l.block[2] = 1;
    l.warpsPerBlock = warpsPerBlock;
    l.eventsPerWarp = eventsPerWarp;
    l.names = std::move(names);
    l.counts.assign(size_t {blocks} * warpsPerBlock, 0);
    l.firstEvent.assign(l.counts.size(), 0);
    for (size_t w = 0; w < l.counts.size(); ++w) {
        l.firstEvent[w] = l.events.size();
        if (w < perWarp.size()) {
            l.counts[w] = static_cast<uint32_t>(perWarp[w].size());
            for (size_t i = 0; i < perWarp[w].size() && i < eventsPerWarp; ++i)
                l.events.push_back(perWarp[w][i]);
        }
    }
    return l;
}

// "push:1 pop start:2 end:1 mark:3 role:0": one warp's calls, the i-th at globaltimer 1000 + 100 i.
std::vector<raw::IketEvent> script(const QString& text)
{
    std::vector<raw::IketEvent> out;
    const QStringList items = text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (int i = 0; i < items.size(); ++i) {
        const QStringList p = items[i].split(QLatin1Char(':'));
        const auto arg = static_cast<uint32_t>(p.value(1).toUInt());
        const uint64_t gt = 1000 + 100 * static_cast<uint64_t>(i);
        const auto self = static_cast<uint32_t>(i);
        const QString k = p[0];
        if (k == QLatin1String("push"))
            out.push_back(devEvent(Kind::Push, static_cast<uint16_t>(arg), self, gt));
        else if (k == QLatin1String("pop"))
            out.push_back(devEvent(Kind::Pop, 0, self, gt));
        else if (k == QLatin1String("start"))
            out.push_back(devEvent(Kind::Start, static_cast<uint16_t>(arg), self, gt));
        else if (k == QLatin1String("end"))
            out.push_back(devEvent(Kind::End, 0, arg, gt));
        else if (k == QLatin1String("mark"))
            out.push_back(devEvent(Kind::Mark, static_cast<uint16_t>(arg), self, gt));
        else if (k == QLatin1String("role"))
            out.push_back(devEvent(Kind::Role, static_cast<uint16_t>(arg), self, gt));
        else
            qFatal("bad script item %s", qPrintable(items[i]));
    }
    return out;
}

// "R:load@0:1000-1200": kind (R range, A async, M mark), name, depth, begin-end.
QStringList describe(const DecodedLaunch& d, const StringTable& strings)
{
    QStringList out;
    for (const auto& e : d.events) {
        const char* k = e.kind == WarpEventKind::Range ? "R" : e.kind == WarpEventKind::AsyncRange ? "A" : "M";
        out << QStringLiteral("%1:%2@%3:%4-%5")
                   .arg(QLatin1String(k), QString::fromStdString(strings.at(e.name)))
                   .arg(e.depth)
                   .arg(e.begin)
                   .arg(e.end);
    }
    return out;
}

const std::vector<std::string> kNames {"role_a", "load", "wait", "compute"};

// A raw file, built frame by frame as the injection library writes it.
struct RawBuilder {
    std::string bytes;
    uint32_t nextString = 1;
    explicit RawBuilder(int64_t pid, int64_t realtime, int64_t monotonic)
    {
        raw::FileHeader h {};
        std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
        h.version = raw::kFormatVersion;
        h.headerSize = sizeof(h);
        h.pid = pid;
        h.parentPid = 1;
        h.anchorRealtimeNs = realtime;
        h.anchorMonotonicNs = monotonic;
        bytes.assign(reinterpret_cast<const char*>(&h), sizeof(h));
    }
    uint32_t string(std::string_view text)
    {
        raw::StringDef d {nextString, 0};
        raw::appendFrame(bytes, raw::RecordType::String, d, text);
        return nextString++;
    }
    void kernel(int64_t start, int64_t end, uint32_t corr, uint32_t name)
    {
        raw::KernelRecord k {};
        k.start = start;
        k.end = end;
        k.correlationId = corr;
        k.name = name;
        k.grid[0] = k.grid[1] = k.grid[2] = 1;
        k.block[0] = 64;
        k.block[1] = k.block[2] = 1;
        raw::appendFrame(bytes, raw::RecordType::Kernel, k);
    }
    void api(int64_t start, int64_t end, int64_t tid, uint32_t corr, uint32_t name)
    {
        raw::ApiRecord a {};
        a.start = start;
        a.end = end;
        a.tid = tid;
        a.correlationId = corr;
        a.name = name;
        raw::appendFrame(bytes, raw::RecordType::Api, a);
    }
    void launch(const LaunchBuffer& l)
    {
        const uint32_t label = string(l.label);
        std::string list;
        for (const auto& n : l.names)
            list += (list.empty() ? "" : ", ") + n;
        const uint32_t names = string(list);
        const std::string payload = encodeLaunchPayload(l, label, names);
        raw::FrameHeader h {};
        h.size = static_cast<uint32_t>(payload.size());
        h.type = static_cast<uint16_t>(raw::kIketLaunchType);
        bytes.append(reinterpret_cast<const char*>(&h), sizeof(h));
        bytes.append(payload);
    }
};

} // namespace

class TestIket : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void names_data()
    {
        QTest::addColumn<QString>("list");
        QTest::addColumn<QStringList>("names");
        QTest::newRow("macro output") << "producer, consumer,load" << QStringList {"producer", "consumer", "load"};
        QTest::newRow("one") << "x" << QStringList {"x"};
        QTest::newRow("empty") << "" << QStringList {};
        QTest::newRow("newlines") << "a,\n  b" << QStringList {"a", "b"};
    }
    void names()
    {
        QFETCH(QString, list);
        QFETCH(QStringList, names);
        QStringList got;
        for (const auto& n : splitNames(list.toStdString()))
            got << QString::fromStdString(n);
        QCOMPARE(got, names);
    }

    void parse()
    {
        const LaunchBuffer in = makeLaunch(2, 2, 4,
            {{devEvent(Kind::Push, 1, 0, 10), devEvent(Kind::Pop, 0, 1, 20)}, {},
                script("mark:2 mark:2 mark:2 mark:2 mark:2")},
            kNames);
        QCOMPARE(in.dropped(), uint64_t(1));
        const std::string payload = encodeLaunchPayload(in, 0, 0);
        LaunchBuffer out;
        QCOMPARE(QString::fromStdString(parseLaunch(payload, "k", "a, b", out)), QString());
        QCOMPARE(out.totalWarps(), 4u);
        QCOMPARE(out.events.size(), size_t(6));
        QCOMPARE(out.stored(2), 4u);
        QCOMPARE(out.firstEvent[2], uint64_t(2));
        QCOMPARE(out.dropped(), uint64_t(1));
        QCOMPARE(out.label, std::string("k"));
        QCOMPARE(out.names, (std::vector<std::string> {"a", "b"}));
        QCOMPARE(out.events[1].kind, uint8_t(Kind::Pop));
    }

    void parseRejects_data()
    {
        QTest::addColumn<int>("cut");       // bytes removed from the end
        QTest::addColumn<int>("warpDelta"); // added to totalWarps
        QTest::addColumn<QString>("error");
        QTest::newRow("short header") << 1000 << 0 << "too short";
        QTest::newRow("events cut") << 8 << 0 << "events but";
        QTest::newRow("warps vs grid") << 0 << 1 << "do not match a grid";
        QTest::newRow("counts beyond the record") << 0 << 100 << "holds";
    }
    void parseRejects()
    {
        QFETCH(int, cut);
        QFETCH(int, warpDelta);
        QFETCH(QString, error);
        const LaunchBuffer in = makeLaunch(1, 2, 4, {script("push:1 pop"), script("mark:2")}, kNames);
        std::string payload = encodeLaunchPayload(in, 0, 0);
        payload.resize(payload.size() - std::min<size_t>(payload.size(), size_t(cut)));
        if (warpDelta && payload.size() >= sizeof(raw::IketLaunchRecord)) {
            auto rec = raw::readPayload<raw::IketLaunchRecord>(payload);
            rec.totalWarps += static_cast<uint32_t>(warpDelta);
            std::memcpy(payload.data(), &rec, sizeof(rec));
        }
        LaunchBuffer out;
        const QString got = QString::fromStdString(parseLaunch(payload, {}, {}, out));
        QVERIFY2(got.contains(error), qPrintable(got));
    }

    void balance_data()
    {
        QTest::addColumn<QString>("calls");
        QTest::addColumn<QStringList>("events");
        QTest::addColumn<QList<int>>("unbalanced"); // pops, pushes, ends, starts
        QTest::newRow("nested") << "push:1 push:2 pop pop" << QStringList {"R:load@0:1000-1300", "R:wait@1:1100-1200"}
                                << QList<int> {};
        QTest::newRow("pop without push")
            << "pop push:1 pop" << QStringList {"R:load@0:1100-1200"} << QList<int> {1, 0, 0, 0};
        QTest::newRow("push never popped: ends at the warp's last event")
            << "push:1 mark:3" << QStringList {"R:load@0:1000-1100", "M:compute@0:1100-1100"}
            << QList<int> {0, 1, 0, 0};
        QTest::newRow("overlapping async ranges take separate rows")
            << "start:1 start:2 end:0 end:1" << QStringList {"A:load@0:1000-1200", "A:wait@1:1100-1300"}
            << QList<int> {};
        QTest::newRow("async row reused once free")
            << "start:1 end:0 start:2 end:2" << QStringList {"A:load@0:1000-1100", "A:wait@0:1200-1300"}
            << QList<int> {};
        QTest::newRow("end without start") << "end:5" << QStringList {} << QList<int> {0, 0, 1, 0};
        QTest::newRow("start never ended")
            << "start:1 push:2 pop" << QStringList {"A:load@0:1000-1200", "R:wait@0:1100-1200"}
            << QList<int> {0, 0, 0, 1};
        QTest::newRow("async inside push/pop")
            << "push:3 start:1 pop end:1" << QStringList {"R:compute@0:1000-1200", "A:load@0:1100-1300"}
            << QList<int> {};
    }
    void balance()
    {
        QFETCH(QString, calls);
        QFETCH(QStringList, events);
        QFETCH(QList<int>, unbalanced);
        StringTable strings;
        const LaunchBuffer l = makeLaunch(1, 1, 64, {script(calls)}, kNames);
        const DecodedLaunch d = decodeLaunch(l, nullptr, strings);
        QCOMPARE(describe(d, strings), events);
        if (unbalanced.isEmpty()) {
            QVERIFY(d.unbalanced.empty());
            return;
        }
        QCOMPARE(d.unbalanced.size(), size_t(1));
        const UnbalancedWarp& u = d.unbalanced.front();
        QCOMPARE(QList<int>({u.unmatchedPops, u.unclosedPushes, u.unmatchedEnds, u.unclosedStarts}), unbalanced);
        QVERIFY(!u.truncated);
        QVERIFY(QString::fromStdString(u.text()).startsWith(QStringLiteral("block 0 warp 0 (warp 0):")));
    }

    void rolesAndDrops()
    {
        // Block 1 warp 0 sets its role late and runs out of slots (capacity 4, 6 calls).
        StringTable strings;
        const LaunchBuffer l = makeLaunch(2, 2, 4,
            {script("role:0 push:1 pop"), script("push:2 pop"), script("push:1 role:3 pop push:2 pop pop"), {}},
            {"producer", "load", "wait", "consumer"});
        const DecodedLaunch d = decodeLaunch(l, nullptr, strings);
        QCOMPARE(d.dropped, uint64_t(2));
        QCOMPARE(d.warpsWithEvents, 3u);
        std::map<std::pair<int, int>, std::set<std::string>> roles;
        for (const auto& e : d.events)
            roles[{e.block, e.warp}].insert(strings.at(e.role));
        QCOMPARE(roles[std::make_pair(0, 0)], (std::set<std::string> {"producer"}));
        QCOMPARE(roles[std::make_pair(0, 1)], (std::set<std::string> {"warp 1"}));
        // Before its first role() call a warp already counts as that role.
        QCOMPARE(roles[std::make_pair(1, 0)], (std::set<std::string> {"consumer"}));
        QCOMPARE(d.unbalanced.size(), size_t(1));
        QCOMPARE(d.unbalanced[0].block, 1u);
        QVERIFY(d.unbalanced[0].truncated);
        QCOMPARE(d.unbalanced[0].unclosedPushes, 1);
        QVERIFY(QString::fromStdString(d.unbalanced[0].text()).contains(QStringLiteral("ran out of event slots")));
    }

    void timeMapping_data()
    {
        QTest::addColumn<qint64>("kernelStart"); // 0: no kernel
        QTest::addColumn<qint64>("kernelEnd");
        QTest::addColumn<qint64>("shift");
        QTest::newRow("no kernel: anchor only") << qint64(0) << qint64(0) << qint64(0);
        QTest::newRow("inside the kernel") << qint64(4000) << qint64(9000) << qint64(0);
        QTest::newRow("anchor early: moved to the kernel start") << qint64(5500) << qint64(9000) << qint64(500);
        QTest::newRow("anchor late: moved to the kernel end") << qint64(3000) << qint64(7500) << qint64(-500);
        QTest::newRow("longer than the kernel: starts with it") << qint64(5200) << qint64(6000) << qint64(200);
    }
    void timeMapping()
    {
        QFETCH(qint64, kernelStart);
        QFETCH(qint64, kernelEnd);
        QFETCH(qint64, shift);
        // Device times 5000..8000 ns of the session clock once the anchor is applied.
        const int64_t realtimeMinusMonotonic = 1'700'000'000'000'000'000;
        LaunchBuffer l = makeLaunch(1, 1, 8,
            {{devEvent(Kind::Push, 1, 0, realtimeMinusMonotonic + 5000),
                devEvent(Kind::Pop, 0, 1, realtimeMinusMonotonic + 8000)}},
            kNames);
        l.realtimeMinusMonotonicNs = realtimeMinusMonotonic;
        KernelRecord k;
        k.id = 3;
        k.start = kernelStart;
        k.end = kernelEnd;
        StringTable strings;
        const DecodedLaunch d = decodeLaunch(l, kernelStart ? &k : nullptr, strings);
        QCOMPARE(d.clock.anchorShiftNs, -realtimeMinusMonotonic);
        QCOMPARE(d.clock.kernelAligned, kernelStart != 0);
        QCOMPARE(d.clock.kernelShiftNs, shift);
        QCOMPARE(d.events.size(), size_t(1));
        QCOMPARE(d.events[0].begin, 5000 + shift);
        QCOMPARE(d.events[0].end, 8000 + shift);
        QCOMPARE(d.events[0].kernelId, kernelStart ? int64_t(3) : int64_t(0));
    }

    // What the alignment to the kernel moved, counted on the raw positions (the anchor alone):
    // three events at 5000-6000 (range), 6500 (mark) and 7000-8000 (range), raw span 3000 ns.
    // Expected counts worked out by hand per kernel interval.
    void kernelFitCounts_data()
    {
        QTest::addColumn<qint64>("kernelStart"); // 0: no kernel
        QTest::addColumn<qint64>("kernelEnd");
        QTest::addColumn<qint64>("shift");
        QTest::addColumn<int>("moved");
        QTest::addColumn<int>("outside");
        QTest::newRow("no kernel") << qint64(0) << qint64(0) << qint64(0) << 0 << 0;
        QTest::newRow("all inside already") << qint64(4000) << qint64(9000) << qint64(0) << 0 << 0;
        QTest::newRow("first range starts early") << qint64(5500) << qint64(9000) << qint64(500) << 1 << 0;
        QTest::newRow("last range ends late") << qint64(3000) << qint64(7500) << qint64(-500) << 1 << 0;
        QTest::newRow("anchor 95 us early: all moved") << qint64(100000) << qint64(104000) << qint64(95000) << 3 << 0;
        QTest::newRow("kernel shorter than the trace") << qint64(5200) << qint64(6000) << qint64(200) << 0 << 3;
    }
    void kernelFitCounts()
    {
        QFETCH(qint64, kernelStart);
        QFETCH(qint64, kernelEnd);
        QFETCH(qint64, shift);
        QFETCH(int, moved);
        QFETCH(int, outside);
        const int64_t d = 1'700'000'000'000'000'000;
        LaunchBuffer l = makeLaunch(1, 1, 8,
            {{devEvent(Kind::Push, 1, 0, d + 5000), devEvent(Kind::Pop, 0, 1, d + 6000),
                devEvent(Kind::Mark, 2, 2, d + 6500), devEvent(Kind::Push, 3, 3, d + 7000),
                devEvent(Kind::Pop, 0, 4, d + 8000)}},
            kNames);
        l.realtimeMinusMonotonicNs = d;
        KernelRecord k;
        k.id = 5;
        k.start = kernelStart;
        k.end = kernelEnd;
        StringTable strings;
        const DecodedLaunch r = decodeLaunch(l, kernelStart ? &k : nullptr, strings);
        QCOMPARE(r.clock.kernelShiftNs, shift);
        QCOMPARE(r.clock.eventsMovedIntoKernel, uint64_t(moved));
        QCOMPARE(r.clock.eventsOutsideKernel, uint64_t(outside));
        QCOMPARE(r.clock.rawSpanNs, int64_t(3000));
        // Stored minus shift gives back the raw positions.
        QStringList raw;
        for (const auto& e : r.events)
            raw << QStringLiteral("%1-%2").arg(e.begin - r.clock.kernelShiftNs).arg(e.end - r.clock.kernelShiftNs);
        QCOMPARE(raw, (QStringList {"5000-6000", "6500-6500", "7000-8000"}));
    }

    void ingestReportsWhatAlignmentMoved()
    {
        // One launch traced in kernel [2000, 2500] while its events span 1000 ns: the alignment
        // moves both and still leaves one outside; ingest says so in meta and as a warning.
        const int64_t realtime = 1'750'000'000'000'000'000;
        const int64_t monotonic = 1'000'000;
        const int64_t d = realtime - monotonic;
        RawBuilder b(78, realtime, monotonic);
        const uint32_t launchName = b.string("cudaLaunchKernel_v7000");
        const uint32_t kernelName = b.string("_Z6kernelv");
        b.api(1000, 1100, 42, 9, launchName);
        b.kernel(2000, 2500, 9, kernelName);
        LaunchBuffer l = makeLaunch(1, 1, 16,
            {{devEvent(Kind::Push, 1, 0, d + 9000), devEvent(Kind::Pop, 0, 1, d + 9200),
                devEvent(Kind::Push, 2, 2, d + 9800), devEvent(Kind::Pop, 0, 3, d + 10000)}},
            kNames);
        l.label = "long";
        l.tid = 42;
        l.armedNs = 500;
        b.launch(l);
        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(b.bytes, "long.raw"));
        const SessionData s = ingest.finish();
        QCOMPARE(s.warpEvents.size(), size_t(2));
        const int64_t kernelId = s.warpEvents[0].kernelId;
        // Starts aligned: shift 2000 - 9000; [2000, 2200] fits, [2800, 3000] does not.
        QCOMPARE(s.meta.at("iket_kernel_shifts_ns"), std::to_string(kernelId) + ":-7000");
        QCOMPARE(s.meta.at("iket_events_moved_into_kernel"), std::string("1"));
        QCOMPARE(s.meta.at("iket_events_outside_kernel"), std::string("1"));
        const auto& w = ingest.warnings();
        QVERIFY(std::any_of(w.begin(), w.end(), [](const std::string& x) {
            return x.find("in-kernel trace long") != std::string::npos
                && x.find("1 of 2 events lie outside the kernel even after alignment (they span 1000 ns, the kernel "
                          "500 ns")
                != std::string::npos;
        }));
    }

    void clockInterpolation_data()
    {
        QTest::addColumn<int>("stepNs");
        QTest::addColumn<bool>("interpolated");
        QTest::newRow("fine globaltimer (32 ns): used as is") << 32 << false;
        QTest::newRow("coarse globaltimer (1 us): clock64 fitted per SM") << 1000 << true;
    }
    void clockInterpolation()
    {
        QFETCH(int, stepNs);
        QFETCH(bool, interpolated);
        // Two SMs with unrelated clock64 origins, 1.755 GHz; 200 marks over ~100 us each.
        const double ghz = 1.755;
        std::vector<std::vector<raw::IketEvent>> warps(2);
        std::vector<std::vector<double>> truth(2);
        for (int w = 0; w < 2; ++w) {
            const uint64_t clockOrigin = w == 0 ? 123456789ull : 987654321000ull;
            double t = 1'000'000.0 + 37.0 * w;
            for (int i = 0; i < 200; ++i) {
                t += 300.0 + static_cast<double>((i * 7919) % 400); // 300..700 ns apart
                const auto gt = static_cast<uint64_t>(std::floor(t / stepNs) * stepNs);
                const auto clk = clockOrigin + static_cast<uint64_t>(std::llround(t * ghz));
                warps[w].push_back(devEvent(Kind::Mark, 3, static_cast<uint32_t>(i), gt, 0, static_cast<uint16_t>(w),
                    clk, static_cast<uint16_t>(10 + w)));
                truth[w].push_back(t);
            }
        }
        StringTable strings;
        const DecodedLaunch d = decodeLaunch(makeLaunch(1, 2, 256, warps, kNames), nullptr, strings);
        QCOMPARE(d.clock.globaltimerStepNs, uint64_t(stepNs));
        QCOMPARE(d.clock.clockInterpolated, interpolated);
        QCOMPARE(d.events.size(), size_t(400));
        double worstAbsolute = 0;
        double worstInterval = 0;
        for (const auto& e : d.events) {
            const size_t i = &e - d.events.data();
            const int w = e.warp;
            const size_t idx = i % 200;
            worstAbsolute = std::max(worstAbsolute, std::abs(static_cast<double>(e.begin) - truth[w][idx]));
            if (idx > 0) {
                const double got = static_cast<double>(e.begin - d.events[i - 1].begin);
                worstInterval = std::max(worstInterval, std::abs(got - (truth[w][idx] - truth[w][idx - 1])));
            }
        }
        // Interpolated: intervals exact to a few ns (clock64), absolute within half a step.
        // Raw globaltimer: both within one step.
        QVERIFY2(worstAbsolute <= stepNs, qPrintable(QString::number(worstAbsolute)));
        QVERIFY2(worstInterval <= (interpolated ? 5.0 : stepNs), qPrintable(QString::number(worstInterval)));
    }

    void clock64Anchors()
    {
        // WARPSCOPE_IKET_CLOCK64_ONLY: events carry clock64 only; each warp's first and last
        // events are anchors with both timers. Warp 1 ran out of slots before its end anchor:
        // it borrows warp 0's rate. 1.98 GHz, unrelated clock64 origins per SM.
        const double ghz = 1.98;
        const auto at
            = [&](uint64_t origin, double ns) { return origin + static_cast<uint64_t>(std::llround(ns * ghz)); };
        const uint64_t gt0 = 1'000'000'000;
        std::vector<std::vector<raw::IketEvent>> warps(2);
        const uint64_t origin0 = 5'000'000;
        const uint64_t origin1 = 9'000'000'000;
        warps[0] = {devEvent(Kind::Anchor, 0, 0, gt0, 0, 0, at(origin0, 0), 1),
            devEvent(Kind::Push, 1, 1, 0, 0, 0, at(origin0, 1000), 1),
            devEvent(Kind::Pop, 0, 2, 0, 0, 0, at(origin0, 1337), 1),
            devEvent(Kind::Mark, 3, 3, 0, 0, 0, at(origin0, 2001), 1),
            devEvent(Kind::Anchor, 0, 4, gt0 + 100'000, 0, 0, at(origin0, 100'000), 1)};
        warps[1] = {devEvent(Kind::Anchor, 0, 0, gt0 + 50, 0, 1, at(origin1, 50), 2),
            devEvent(Kind::Push, 2, 1, 0, 0, 1, at(origin1, 5050), 2),
            devEvent(Kind::Pop, 0, 2, 0, 0, 1, at(origin1, 7050), 2),
            devEvent(Kind::Push, 2, 3, 0, 0, 1, at(origin1, 9000), 2),
            devEvent(Kind::Push, 2, 4, 0, 0, 1, at(origin1, 9500), 2)}; // then full: no end anchor
        LaunchBuffer l = makeLaunch(1, 2, 5, warps, kNames);
        l.counts[1] = 7; // two more calls (a pop and the end anchor) found no slot
        StringTable strings;
        const DecodedLaunch d = decodeLaunch(l, nullptr, strings);
        QVERIFY(d.clock.clockInterpolated);
        QCOMPARE(describe(d, strings),
            (QStringList {"R:load@0:1000001000-1000001337", "M:compute@0:1000002001-1000002001",
                "R:wait@0:1000005050-1000007050", "R:wait@0:1000009000-1000009500", "R:wait@1:1000009500-1000009500"}));
        QCOMPARE(d.dropped, uint64_t(2));
        QCOMPARE(d.unbalanced.size(), size_t(1)); // warp 1's last push, truncated
        QVERIFY(d.unbalanced[0].truncated);
    }

    void ingestMatchesKernel()
    {
        // pid 77: a launch at 3000 (corr 8), the buffer armed at 4000, the traced launch at 5000
        // (corr 9) on thread 42, another thread's launch at 4500 (corr 10).
        const int64_t realtime = 1'750'000'000'000'000'000;
        const int64_t monotonic = 1'000'000;
        const int64_t d = realtime - monotonic;
        RawBuilder b(77, realtime, monotonic);
        const uint32_t launchName = b.string("cudaLaunchKernel_v7000");
        const uint32_t memcpyName = b.string("cudaMemcpyAsync_v3020");
        const uint32_t kernelName = b.string("_Z6kernelv");
        b.api(3000, 3100, 42, 8, launchName);
        b.api(4100, 4200, 42, 11, memcpyName);
        b.api(4500, 4600, 43, 10, launchName);
        b.api(5000, 5100, 42, 9, launchName);
        b.kernel(3500, 3900, 8, kernelName);
        b.kernel(4700, 5800, 10, kernelName);
        b.kernel(6000, 20000, 9, kernelName);
        LaunchBuffer l = makeLaunch(1, 2, 16,
            {{devEvent(Kind::Role, 0, 0, d + 7000), devEvent(Kind::Push, 1, 1, d + 7000),
                 devEvent(Kind::Pop, 0, 2, d + 9000)},
                {devEvent(Kind::Role, 3, 0, d + 7100), devEvent(Kind::Push, 2, 1, d + 7100),
                    devEvent(Kind::Pop, 0, 2, d + 15000)}},
            {"producer", "load", "wait", "consumer"});
        l.label = "traced";
        l.tid = 42;
        l.armedNs = 4000;
        b.launch(l);
        // A malformed record: skipped with a warning that names the file.
        std::string broken = encodeLaunchPayload(l, 0, 0);
        broken.resize(broken.size() - 5);
        raw::FrameHeader h {};
        h.size = static_cast<uint32_t>(broken.size());
        h.type = static_cast<uint16_t>(raw::kIketLaunchType);
        b.bytes.append(reinterpret_cast<const char*>(&h), sizeof(h));
        b.bytes.append(broken);

        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(b.bytes, "traced.raw"));
        const SessionData s = ingest.finish();
        const auto traced = std::find_if(
            s.kernels.begin(), s.kernels.end(), [](const KernelRecord& k) { return k.correlationId == 9; });
        QVERIFY(traced != s.kernels.end());
        QCOMPARE(s.warpEvents.size(), size_t(2));
        for (const auto& e : s.warpEvents) {
            QCOMPARE(e.kernelId, traced->id);
            QVERIFY(e.begin >= traced->start && e.end <= traced->end);
            QVERIFY(e.id > 0);
        }
        QCOMPARE(s.str(s.warpEvents[0].role), std::string("producer"));
        QCOMPARE(s.str(s.warpEvents[0].name), std::string("load"));
        QCOMPARE(s.warpEvents[0].begin, int64_t(7000));
        QCOMPARE(s.str(s.warpEvents[1].role), std::string("consumer"));
        QCOMPARE(s.warpEvents[1].end, int64_t(15000));
        QCOMPARE(s.meta.at("iket_launches"), std::string("1"));
        QCOMPARE(s.meta.at("iket_events"), std::string("2"));
        QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
        QCOMPARE(s.meta.at("iket_unmatched_launches"), std::string("0"));
        QCOMPARE(s.meta.at("unknown_raw_records"), std::string("0"));
        QCOMPARE(s.meta.at("iket_kernel_shifts_ns"), std::to_string(traced->id) + ":0");
        QCOMPARE(s.meta.at("iket_events_moved_into_kernel"), std::string("0"));
        QCOMPARE(s.meta.at("iket_events_outside_kernel"), std::string("0"));
        const auto& w = ingest.warnings();
        QVERIFY(std::any_of(w.begin(), w.end(), [](const std::string& x) {
            return x.starts_with("traced.raw: in-kernel trace record") && x.ends_with("(skipped)");
        }));
    }

    // A kernel that ran more warps than its Launch was sized for: the extra warps record nothing,
    // and ingest says how many, for which launch and kernel, and what the Launch was sized for.
    void ingestReportsWarpsOutsideTheLaunch()
    {
        const int64_t realtime = 1'750'000'000'000'000'000;
        const int64_t monotonic = 1'000'000;
        const int64_t d = realtime - monotonic;
        RawBuilder b(77, realtime, monotonic);
        const uint32_t launchName = b.string("cudaLaunchKernel_v7000");
        const uint32_t kernelName = b.string("_Z6kernelv");
        b.api(5000, 5100, 42, 9, launchName);
        b.kernel(6000, 20000, 9, kernelName);
        LaunchBuffer l = makeLaunch(1, 2, 16,
            {{devEvent(Kind::Push, 1, 0, d + 7000), devEvent(Kind::Pop, 0, 1, d + 9000)},
                {devEvent(Kind::Push, 2, 0, d + 7100), devEvent(Kind::Pop, 0, 1, d + 15000)}},
            {"producer", "load", "wait", "consumer"});
        l.label = "narrow";
        l.tid = 42;
        l.armedNs = 4000;
        l.outOfRangeWarps = 6;
        b.launch(l);
        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(b.bytes, "narrow.raw"));
        const SessionData s = ingest.finish();
        QCOMPARE(s.warpEvents.size(), size_t(2));
        QCOMPARE(s.kernels.size(), size_t(1));
        const std::string who = "narrow (kernel #" + std::to_string(s.kernels[0].id) + ")";
        QCOMPARE(s.meta.at("iket_out_of_range_warps"), std::string("6"));
        QCOMPARE(s.meta.at("iket_out_of_range"), who + ": 6 warps");
        QCOMPARE(iket::unrecordedWarpsByKernel(s.meta).at(s.kernels[0].id), int64_t(6));
        const auto& w = ingest.warnings();
        const auto warning = std::find_if(w.begin(), w.end(), [&](const std::string& x) {
            return x.find("in-kernel trace " + who + ": 6 warp(s) had no slots") != std::string::npos;
        });
        QVERIFY2(warning != w.end(), w.empty() ? "no warnings" : w.front().c_str());
        QVERIFY2(
            warning->find("sized for 1 blocks of 2 warps; the kernel ran 1 blocks of 2 warps") != std::string::npos,
            warning->c_str());
        // A launch that stayed inside its grid reports nothing of the kind.
        RawBuilder c(78, realtime, monotonic);
        const uint32_t launchName2 = c.string("cudaLaunchKernel_v7000");
        const uint32_t kernelName2 = c.string("_Z6kernelv");
        c.api(5000, 5100, 42, 9, launchName2);
        c.kernel(6000, 20000, 9, kernelName2);
        l.outOfRangeWarps = 0;
        c.launch(l);
        RawIngest inside;
        inside.addFile(raw::RawFile::fromBytes(c.bytes, "inside.raw"));
        const SessionData t = inside.finish();
        QCOMPARE(t.meta.at("iket_out_of_range_warps"), std::string("0"));
        QVERIFY(!t.meta.count("iket_out_of_range"));
        for (const auto& x : inside.warnings())
            QVERIFY2(x.find("had no slots") == std::string::npos, x.c_str());
    }

    void perfettoJson()
    {
        // One kernel (pid 4242) with two warps of block 3: nested ranges, a mark, and two
        // overlapping asynchronous spans.
        SessionData s;
        s.processes.push_back({4242, "prog", "prog", 0, 0, 0, 0, 1});
        KernelRecord k;
        k.id = 1;
        k.pid = 4242;
        k.streamId = 7;
        k.start = 1000;
        k.end = 9000;
        k.shortName = s.strings.intern("pipelined");
        s.kernels.push_back(k);
        const StringId producer = s.strings.intern("producer");
        const StringId consumer = s.strings.intern("consumer");
        const auto add = [&](int32_t warp, StringId role, const char* name, WarpEventKind kind, TimeNs b, TimeNs e,
                             int32_t depth) {
            WarpEvent w;
            w.id = static_cast<int64_t>(s.warpEvents.size()) + 1;
            w.kernelId = 1;
            w.block = 3;
            w.warp = warp;
            w.sm = 17;
            w.role = role;
            w.name = s.strings.intern(name);
            w.kind = kind;
            w.begin = b;
            w.end = e;
            w.depth = depth;
            s.warpEvents.push_back(w);
        };
        add(0, producer, "issue", WarpEventKind::Range, 1000, 3000, 0);
        add(0, producer, "wait_empty", WarpEventKind::Range, 1500, 2500, 1);
        add(0, producer, "stage_busy", WarpEventKind::AsyncRange, 3000, 7000, 0);
        add(0, producer, "stage_busy", WarpEventKind::AsyncRange, 3500, 8000, 1);
        add(1, consumer, "release", WarpEventKind::Mark, 4000, 4000, 0);
        const MemoryRecordSource source(s);
        std::ostringstream out;
        const ChromeTraceSummary summary = writeChromeTrace(source, out);
        QJsonParseError error {};
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonArray events = doc.object().value(QStringLiteral("traceEvents")).toArray();
        QCOMPARE(summary.events, static_cast<int64_t>(events.size()));

        std::map<qint64, QString> trackNames; // tid -> thread_name
        std::map<qint64, qint64> sortIndex;
        QStringList warpEvents;
        std::map<qint64, QString> asyncBegin;
        for (const auto& v : events) {
            const QJsonObject e = v.toObject();
            const QString ph = e.value(QStringLiteral("ph")).toString();
            const qint64 tid = e.value(QStringLiteral("tid")).toInteger();
            if (ph == QLatin1String("M") && e.value(QStringLiteral("name")).toString() == QLatin1String("thread_name"))
                trackNames[tid] = e.value(QStringLiteral("args")).toObject().value(QStringLiteral("name")).toString();
            if (ph == QLatin1String("M")
                && e.value(QStringLiteral("name")).toString() == QLatin1String("thread_sort_index"))
                sortIndex[tid]
                    = e.value(QStringLiteral("args")).toObject().value(QStringLiteral("sort_index")).toInteger();
            const QString cat = e.value(QStringLiteral("cat")).toString();
            if (!cat.startsWith(QLatin1String("iket")))
                continue;
            QCOMPARE(e.value(QStringLiteral("pid")).toInteger(), 4242);
            QVERIFY2(trackNames.count(tid), "a warp track is named before its first event");
            const QString where = trackNames[tid];
            const QString name = e.value(QStringLiteral("name")).toString();
            QString line
                = QStringLiteral("%1 %2 %3 @%4").arg(where, ph, name).arg(e.value(QStringLiteral("ts")).toDouble());
            if (ph == QLatin1String("X"))
                line += QStringLiteral(" +%1").arg(e.value(QStringLiteral("dur")).toDouble());
            if (ph == QLatin1String("b") || ph == QLatin1String("X") || ph == QLatin1String("i")) {
                const QJsonObject args = e.value(QStringLiteral("args")).toObject();
                QCOMPARE(args.value(QStringLiteral("sm")).toInteger(), 17);
                QCOMPARE(args.value(QStringLiteral("block")).toInteger(), 3);
            }
            if (ph == QLatin1String("b"))
                asyncBegin[e.value(QStringLiteral("id")).toInteger()] = name;
            if (ph == QLatin1String("e")) {
                const qint64 id = e.value(QStringLiteral("id")).toInteger();
                QCOMPARE(asyncBegin[id], name);
                QVERIFY(id > (qint64(1) << 40));
            }
            warpEvents << line;
        }
        const QStringList expected {
            "kernel #1 block 3 · producer · warp 0 X issue @0 +2",
            "kernel #1 block 3 · producer · warp 0 X wait_empty @0.5 +1",
            "kernel #1 block 3 · producer · warp 0 b stage_busy @2",
            "kernel #1 block 3 · producer · warp 0 e stage_busy @6",
            "kernel #1 block 3 · producer · warp 0 b stage_busy @2.5",
            "kernel #1 block 3 · producer · warp 0 e stage_busy @7",
            "kernel #1 block 3 · consumer · warp 1 i release @3",
        };
        QCOMPARE(warpEvents, expected);
        QCOMPARE(asyncBegin.size(), size_t(2));
        // Warp tracks sort after the GPU stream.
        qint64 gpuSort = -1;
        for (const auto& [tid, name] : trackNames)
            if (name.startsWith(QLatin1String("GPU")))
                gpuSort = sortIndex[tid];
        QVERIFY(gpuSort >= 0);
        for (const auto& [tid, name] : trackNames)
            if (name.startsWith(QLatin1String("kernel #")))
                QVERIFY(sortIndex[tid] > gpuSort);
    }

    void summary()
    {
        // Kernel 1: two producer warps and one consumer warp; hand-computed figures below.
        StringTable strings;
        const StringId producer = strings.intern("producer");
        const StringId consumer = strings.intern("consumer");
        const StringId load = strings.intern("load");
        const StringId wait = strings.intern("wait_empty");
        const StringId compute = strings.intern("compute");
        const StringId done = strings.intern("done");
        const auto ev = [](int32_t warp, StringId role, StringId name, WarpEventKind kind, TimeNs b, TimeNs e,
                            int32_t depth = 0, int64_t kernel = 1) {
            WarpEvent x;
            x.kernelId = kernel;
            x.warp = warp;
            x.role = role;
            x.name = name;
            x.kind = kind;
            x.begin = b;
            x.end = e;
            x.depth = depth;
            return x;
        };
        const std::vector<WarpEvent> events {
            ev(0, producer, wait, WarpEventKind::Range, 0, 50), ev(0, producer, load, WarpEventKind::Range, 50, 150),
            ev(0, producer, load, WarpEventKind::Range, 150, 350),
            ev(1, producer, wait, WarpEventKind::Range, 100, 250),
            ev(1, producer, load, WarpEventKind::Range, 250, 550),
            ev(1, producer, load, WarpEventKind::Range, 600, 1000),
            ev(1, producer, wait, WarpEventKind::Range, 610, 700, 1), // nested: not counted as waiting
            ev(2, consumer, compute, WarpEventKind::Range, 0, 1000),
            ev(2, consumer, done, WarpEventKind::Mark, 1000, 1000),
            ev(0, producer, load, WarpEventKind::Range, 0, 10, 0, 2), // another kernel
        };
        const auto all = summarizeRoles(events, strings, 1);
        QCOMPARE(all.size(), size_t(2));
        // Roles by name: consumer, producer.
        const RoleSummary& c = all[0];
        const RoleSummary& p = all[1];
        QCOMPARE(c.role, consumer);
        QCOMPARE(c.warps, int64_t(1));
        QCOMPARE(c.marks, int64_t(1));
        QCOMPARE(c.waitShare(), 0.0);
        QCOMPARE(p.role, producer);
        QCOMPARE(p.warps, int64_t(2));
        QCOMPARE(p.activeNs, 350.0 + 900.0); // warp 0: 0..350, warp 1: 100..1000
        QCOMPARE(p.waitingNs, 50.0 + 150.0);
        QCOMPARE(p.waitShare(), 200.0 / 1250.0);
        QCOMPARE(p.phases.size(), size_t(2));
        const PhaseStats& loads = p.phases[0]; // longest total first
        QCOMPARE(loads.name, load);
        QCOMPARE(loads.count, int64_t(4));
        QCOMPARE(loads.totalNs, 100.0 + 200.0 + 300.0 + 400.0);
        QCOMPARE(loads.meanNs, 250.0);
        QCOMPARE(loads.p95Ns, 400.0); // ceil(0.95 * 4) = 4th smallest
        const PhaseStats& waits = p.phases[1];
        QCOMPARE(waits.count, int64_t(3));
        QCOMPARE(waits.p95Ns, 150.0);
        QCOMPARE(waits.meanNs, (50.0 + 150.0 + 90.0) / 3);
        QCOMPARE(summarizeRoles(events, strings).size(), size_t(3)); // every kernel
        QVERIFY(isWaitName("wait_for_data") && isWaitName("BarrierWait") && !isWaitName("compute"));
    }
};

QTEST_GUILESS_MAIN(TestIket)
#include "tst_iket.moc"
