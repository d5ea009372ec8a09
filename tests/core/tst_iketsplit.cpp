// SPDX-License-Identifier: MIT
// In-kernel trace launches too large for one raw frame (issue 23: half the events of a 528-warp
// launch were cut to fit 16 MiB): core/iket/iketsplit splits a device buffer over as many frames
// as it needs, LaunchAssembler and ingest join them, and every stored event arrives in per-warp
// order. A launch missing a part is reported with the events it lost, never shown as whole.
#include "core/iket/iketlaunch.h"
#include "core/iket/iketsplit.h"
#include "core/iket/launchassembler.h"
#include "core/ingest/rawingest.h"
#include "core/raw/rawreader.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace ws;
using namespace ws::iket;

namespace {

// A device buffer as warpscope/iket.cuh leaves it: per warp `eventsPerWarp` slots, of which the
// first min(count, eventsPerWarp) hold events; every event's token is (warp << 32 | index).
struct DeviceBuffer {
    raw::IketLaunchRecord record {};
    std::vector<uint32_t> counts;
    std::vector<raw::IketEvent> eventSlots;

    DeviceBuffer(uint32_t blocks, uint32_t warpsPerBlock, uint32_t eventsPerWarp, uint32_t seed)
    {
        record.grid[0] = blocks;
        record.grid[1] = record.grid[2] = 1;
        record.block[0] = warpsPerBlock * 32;
        record.block[1] = record.block[2] = 1;
        record.warpsPerBlock = warpsPerBlock;
        record.eventsPerWarp = eventsPerWarp;
        record.totalWarps = blocks * warpsPerBlock;
        std::mt19937 rng(seed);
        counts.resize(record.totalWarps);
        eventSlots.resize(uint64_t {record.totalWarps} * eventsPerWarp);
        for (uint32_t w = 0; w < record.totalWarps; ++w) {
            // Mostly full warps, some empty, some that overflowed their slots.
            const uint32_t r = rng() % 10;
            counts[w] = r == 0 ? 0 : r == 1 ? eventsPerWarp + 7 : eventsPerWarp - rng() % (eventsPerWarp / 2 + 1);
            for (uint32_t i = 0; i < std::min(counts[w], eventsPerWarp); ++i) {
                raw::IketEvent& e = eventSlots[uint64_t {w} * eventsPerWarp + i];
                e.globaltimer = 1000 + i;
                e.block = w / warpsPerBlock;
                e.warp = static_cast<uint16_t>(w % warpsPerBlock);
                e.kind = static_cast<uint8_t>(raw::IketKind::Mark);
                e.token = w * 100000u + i;
            }
        }
    }
    const char* events() const { return reinterpret_cast<const char*>(eventSlots.data()); }
    uint64_t stored() const
    {
        uint64_t n = 0;
        for (const uint32_t c : counts)
            n += std::min(c, record.eventsPerWarp);
        return n;
    }
    // Every stored event of every warp, in order, and nothing else.
    void check(const LaunchBuffer& got) const
    {
        QCOMPARE(got.totalWarps(), record.totalWarps);
        QCOMPARE(got.counts, counts);
        QCOMPARE(uint64_t(got.events.size()), stored());
        QCOMPARE(got.truncatedEvents, uint64_t(0));
        for (uint32_t w = 0; w < record.totalWarps; ++w) {
            for (uint32_t i = 0; i < got.stored(w); ++i) {
                const raw::IketEvent& e = got.events[got.firstEvent[w] + i];
                if (e.token != w * 100000u + i)
                    QFAIL(qPrintable(QStringLiteral("warp %1 event %2 holds token %3").arg(w).arg(i).arg(e.token)));
            }
        }
    }
};

std::vector<std::string> payloads(const std::vector<LaunchPart>& parts)
{
    std::vector<std::string> out;
    for (const auto& p : parts)
        out.push_back(std::string(reinterpret_cast<const char*>(&p.record), sizeof(p.record)) + p.trailing);
    return out;
}

} // namespace

class TestIketSplit : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data()
    {
        QTest::addColumn<uint32_t>("blocks");
        QTest::addColumn<uint32_t>("eventsPerWarp");
        QTest::addColumn<uint64_t>("maxPayload");
        QTest::addColumn<bool>("shuffle");
        // Small frames: many parts, warps continued from one part into the next.
        QTest::newRow("small frames") << 33u << 200u << uint64_t(20000) << false;
        QTest::newRow("small frames, parts out of order") << 33u << 200u << uint64_t(20000) << true;
        // One warp's events span several frames.
        QTest::newRow("warp larger than a frame") << 2u << 3000u << uint64_t(8192 + 4 * 4 * 2) << true;
        // The launch (132 blocks x 4 warps x 2026 events) at the real frame size.
        QTest::newRow("issue 23 launch") << 132u << 2026u << uint64_t(raw::kMaxFramePayload) << false;
    }
    void roundTrip()
    {
        QFETCH(uint32_t, blocks);
        QFETCH(uint32_t, eventsPerWarp);
        QFETCH(uint64_t, maxPayload);
        QFETCH(bool, shuffle);
        const DeviceBuffer buffer(blocks, 4, eventsPerWarp, blocks);
        std::string error;
        const auto parts = splitLaunch(buffer.record, buffer.counts.data(), buffer.events(), 7, maxPayload, error);
        QVERIFY2(!parts.empty(), error.c_str());
        QVERIFY(parts.size() > 1);
        auto frames = payloads(parts);
        for (const auto& f : frames)
            QVERIFY(f.size() <= maxPayload);
        if (shuffle)
            std::shuffle(frames.begin(), frames.end(), std::mt19937(3));
        LaunchAssembler assembler;
        for (const auto& f : frames)
            QCOMPARE(QString::fromStdString(assembler.add(42, f, "big", "a, b")), QString());
        std::vector<std::string> errors;
        const auto launches = assembler.takeComplete(errors);
        QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
        QCOMPARE(launches.size(), size_t(1));
        QCOMPARE(QString::fromStdString(launches.front().label), QStringLiteral("big"));
        QCOMPARE(launches.front().names.size(), size_t(2));
        buffer.check(launches.front());
        uint64_t lost = 0;
        QVERIFY(assembler.incomplete(lost).empty());
        QCOMPARE(lost, uint64_t(0));
    }

    // Over 64 MB of events in one launch, at the real frame size: every event arrives.
    void launchOver64MB()
    {
        const DeviceBuffer buffer(132, 4, 6500, 1); // 528 warps x 6500 slots x 32 B = 110 MB of slots
        QVERIFY(buffer.stored() * sizeof(raw::IketEvent) > (64ull << 20));
        QVERIFY(singleFrameBytes(buffer.record, buffer.counts.data()) > raw::kMaxFramePayload);
        std::string error;
        const auto parts
            = splitLaunch(buffer.record, buffer.counts.data(), buffer.events(), 1, raw::kMaxFramePayload, error);
        QVERIFY(parts.size() >= 4);
        LaunchAssembler assembler;
        for (const auto& f : payloads(parts))
            QVERIFY(assembler.add(1, f, {}, {}).empty());
        std::vector<std::string> errors;
        const auto launches = assembler.takeComplete(errors);
        QCOMPARE(launches.size(), size_t(1));
        buffer.check(launches.front());
    }

    // A part that never arrived: the launch is left out and what it lost is counted exactly.
    void missingPart()
    {
        const DeviceBuffer buffer(33, 4, 200, 5);
        std::string error;
        const auto parts = splitLaunch(buffer.record, buffer.counts.data(), buffer.events(), 9, 20000, error);
        const auto frames = payloads(parts);
        LaunchAssembler assembler;
        uint64_t inMissing = 0;
        for (size_t i = 0; i < frames.size(); ++i) {
            if (i == 2) {
                for (uint32_t k = 0; k < parts[i].record.warpCount; ++k) {
                    uint32_t n = 0;
                    std::memcpy(&n, parts[i].trailing.data() + k * sizeof(uint32_t), sizeof(n));
                    inMissing += n;
                }
                continue;
            }
            QVERIFY(assembler.add(5, frames[i], {}, {}).empty());
        }
        std::vector<std::string> errors;
        QVERIFY(assembler.takeComplete(errors).empty());
        uint64_t lost = 0;
        const auto lines = assembler.incomplete(lost);
        QCOMPARE(lines.size(), size_t(1));
        QCOMPARE(lost, inMissing);
        QVERIFY2(QString::fromStdString(lines.front())
                     .contains(QStringLiteral("%1 of %2 parts arrived").arg(frames.size() - 1).arg(frames.size())),
            lines.front().c_str());
    }

    void malformedParts_data()
    {
        QTest::addColumn<int>("damage");
        QTest::addColumn<QString>("error");
        QTest::newRow("short") << 0 << "in-kernel trace part record too short";
        QTest::newRow("part out of range") << 1 << "is out of range";
        QTest::newRow("twice") << 2 << "appears twice";
    }
    void malformedParts()
    {
        QFETCH(int, damage);
        QFETCH(QString, error);
        const DeviceBuffer buffer(3, 4, 50, 2);
        std::string e;
        const auto parts = splitLaunch(buffer.record, buffer.counts.data(), buffer.events(), 1, 4000, e);
        auto frames = payloads(parts);
        LaunchAssembler assembler;
        std::string got;
        if (damage == 0) {
            got = assembler.add(1, frames[0].substr(0, 10), {}, {});
        } else if (damage == 1) {
            raw::IketLaunchPartRecord r = raw::readPayload<raw::IketLaunchPartRecord>(frames[0]);
            r.part = r.parts;
            std::memcpy(frames[0].data(), &r, sizeof(r));
            got = assembler.add(1, frames[0], {}, {});
        } else {
            QVERIFY(assembler.add(1, frames[1], {}, {}).empty());
            got = assembler.add(1, frames[1], {}, {});
        }
        QVERIFY2(QString::fromStdString(got).contains(error), got.c_str());
    }

    // A part whose per-warp counts were moved from one warp to the next (the total unchanged):
    // the joined launch would put events in the wrong warp, so it is refused, naming the warp.
    void eventsInTheWrongWarp()
    {
        const DeviceBuffer buffer(3, 4, 50, 2);
        std::string e;
        const auto parts = splitLaunch(buffer.record, buffer.counts.data(), buffer.events(), 1, 4000, e);
        auto frames = payloads(parts);
        bool moved = false;
        for (size_t f = 0; f < frames.size() && !moved; ++f) {
            const auto r = raw::readPayload<raw::IketLaunchPartRecord>(frames[f]);
            const size_t storedAt = sizeof(raw::IketLaunchPartRecord)
                + (r.part == 0 ? size_t {r.launch.totalWarps} * sizeof(uint32_t) : 0);
            for (uint32_t i = 0; i + 1 < r.warpCount && !moved; ++i) {
                uint32_t a = 0;
                uint32_t b = 0;
                std::memcpy(&a, frames[f].data() + storedAt + i * sizeof(uint32_t), sizeof a);
                std::memcpy(&b, frames[f].data() + storedAt + (i + 1) * sizeof(uint32_t), sizeof b);
                if (b == 0)
                    continue;
                ++a;
                --b;
                std::memcpy(frames[f].data() + storedAt + i * sizeof(uint32_t), &a, sizeof a);
                std::memcpy(frames[f].data() + storedAt + (i + 1) * sizeof(uint32_t), &b, sizeof b);
                moved = true;
            }
        }
        QVERIFY(moved);
        LaunchAssembler assembler;
        for (const auto& f : frames)
            QVERIFY(assembler.add(1, f, {}, {}).empty());
        std::vector<std::string> errors;
        QVERIFY(assembler.takeComplete(errors).empty());
        QCOMPARE(errors.size(), size_t(1));
        QVERIFY2(errors[0].find("events where its count says") != std::string::npos, errors[0].c_str());
    }

    // Through ingest, as a raw file written by the injection library holds it: the joined launch
    // is decoded into warp events, and a second launch with a lost part is reported in meta.
    void ingestJoinsParts()
    {
        raw::FileHeader h {};
        std::copy(std::begin(raw::kMagic), std::end(raw::kMagic), h.magic);
        h.version = raw::kFormatVersion;
        h.headerSize = sizeof(h);
        h.pid = 77;
        std::string file(reinterpret_cast<const char*>(&h), sizeof(h));
        raw::StringDef names {1, 0};
        raw::appendFrame(file, raw::RecordType::String, names, std::string_view("m"));
        const DeviceBuffer whole(5, 4, 64, 8);
        const DeviceBuffer broken(5, 4, 64, 9);
        std::string error;
        auto add = [&](const DeviceBuffer& b, uint64_t serial, int skip) {
            raw::IketLaunchRecord r = b.record;
            r.names = 1;
            const auto parts = splitLaunch(r, b.counts.data(), b.events(), serial, 6000, error);
            for (size_t i = 0; i < parts.size(); ++i)
                if (static_cast<int>(i) != skip)
                    raw::appendFrame(file, raw::kIketLaunchPartType, parts[i].record, parts[i].trailing);
        };
        add(whole, 0, -1);
        add(broken, 1, 1);
        RawIngest ingest;
        ingest.addFile(raw::RawFile::fromBytes(file, "split.raw"));
        const SessionData s = ingest.finish();
        QCOMPARE(s.meta.at("iket_launches"), std::string("1"));
        QCOMPARE(s.meta.at("iket_events"), std::to_string(whole.stored()));
        QCOMPARE(s.meta.at("iket_incomplete_launches"), std::string("1"));
        QVERIFY(std::stoull(s.meta.at("iket_lost_events")) > 0);
        QCOMPARE(s.meta.at("unknown_raw_records"), std::string("0"));
        const auto& w = ingest.warnings();
        QVERIFY(std::any_of(w.begin(), w.end(), [](const std::string& x) {
            return x.find("parts arrived") != std::string::npos
                && x.find("the launch is left out") != std::string::npos;
        }));
    }
};

QTEST_APPLESS_MAIN(TestIketSplit)
#include "tst_iketsplit.moc"
