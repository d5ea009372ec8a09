// SPDX-License-Identifier: MIT
// The in-kernel tracing examples as recorded on an NVIDIA H200 (tests/fixtures/iket: the
// sessions `warpscope-cli record` wrote and the raw files it kept): every warp has its role,
// the ranges each role must have are there in the right numbers, ranges balance, nothing was
// dropped, every event lies inside its kernel, and the order the kernels' barriers impose
// holds across warps (a consumer computes only after the producer's data arrived). Decoding
// the kept raw files again gives the stored events.
#include "core/iket/iketlaunch.h"
#include "core/iket/warprolesummary.h"
#include "core/ingest/rawingest.h"
#include "core/raw/rawreader.h"
#include "core/store/sessionreader.h"
#include "iketrawfit.h"

#include <QtTest>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

using namespace ws;

namespace {

std::string fixture(const char* name)
{
    return std::string(WS_FIXTURES_DIR "/iket/") + name;
}

using Key = std::tuple<int64_t, int32_t, int32_t>; // kernel, block, warp

// Events of one warp by name, in time order.
std::map<Key, std::map<std::string, std::vector<const WarpEvent*>>> byWarp(const SessionData& s)
{
    std::map<Key, std::map<std::string, std::vector<const WarpEvent*>>> out;
    for (const auto& e : s.warpEvents)
        out[{e.kernelId, e.block, e.warp}][s.str(e.name)].push_back(&e);
    for (auto& [k, names] : out)
        for (auto& [n, v] : names)
            std::sort(v.begin(), v.end(), [](const WarpEvent* a, const WarpEvent* b) { return a->begin < b->begin; });
    return out;
}

void checkCommon(const SessionData& s, size_t launches)
{
    QCOMPARE(s.meta.at("iket_launches"), std::to_string(launches));
    QCOMPARE(s.meta.at("iket_unbalanced_warps"), std::string("0"));
    QCOMPARE(s.meta.at("iket_dropped_events"), std::string("0"));
    QCOMPARE(s.meta.at("iket_unmatched_launches"), std::string("0"));
    std::map<int64_t, const KernelRecord*> kernels;
    for (const auto& k : s.kernels)
        kernels[k.id] = &k;
    std::set<int64_t> traced;
    for (const auto& e : s.warpEvents) {
        QVERIFY(kernels.count(e.kernelId));
        const KernelRecord& k = *kernels[e.kernelId];
        QVERIFY(e.begin >= k.start && e.end <= k.end && e.begin <= e.end);
        traced.insert(e.kernelId);
    }
    QCOMPARE(traced.size(), launches);
}

// Re-decoding the raw files the recorder kept gives what the session stores.
void checkReingest(const SessionData& stored, const char* rawDir)
{
    RawIngest ingest;
    QVERIFY(ingest.addDirectory(fixture(rawDir)) > 0);
    const SessionData again = ingest.finish();
    // The stored sessions predate the alignment counts; the re-decoded one has them.
    ws::test::checkRawPositions(again);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(again.warpEvents.size(), stored.warpEvents.size());
    for (size_t i = 0; i < again.warpEvents.size(); ++i) {
        const WarpEvent& a = again.warpEvents[i];
        const WarpEvent& b = stored.warpEvents[i];
        QCOMPARE(std::tie(a.kernelId, a.block, a.warp, a.sm, a.kind, a.begin, a.end, a.depth),
            std::tie(b.kernelId, b.block, b.warp, b.sm, b.kind, b.begin, b.end, b.depth));
        QCOMPARE(again.str(a.name), stored.str(b.name));
        QCOMPARE(again.str(a.role), stored.str(b.role));
    }
}

// Pops in the kept raw files of `rawDir` that carry no %globaltimer reading, and all pops: the
// pair recorder's pops read only the clock, the held-begin recorder's read both timers.
std::pair<size_t, size_t> popsWithoutReading(const char* rawDir)
{
    size_t bare = 0;
    size_t pops = 0;
    for (const auto& entry : std::filesystem::directory_iterator(fixture(rawDir))) {
        const raw::RawFile file = raw::RawFile::load(entry.path().string());
        for (const raw::RawFrame& f : file.frames()) {
            if (f.type != raw::kIketLaunchType)
                continue;
            iket::LaunchBuffer l;
            if (!iket::parseLaunch(f.payload, {}, {}, l).empty())
                continue;
            for (const raw::IketEvent& e : l.events)
                if (e.kind == static_cast<uint8_t>(raw::IketKind::Pop)) {
                    ++pops;
                    bare += e.globaltimer == 0 ? 1 : 0;
                }
        }
    }
    return {bare, pops};
}

} // namespace

class TestIketFixture : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void twoWarp()
    {
        const SessionData s = SessionReader(fixture("two_warp.wscope")).readAll();
        checkCommon(s, 3);
        for (const auto& [key, names] : byWarp(s)) {
            const auto [kernel, block, warp] = key;
            QCOMPARE(block, 0);
            const std::string role = s.str(names.begin()->second.front()->role);
            QCOMPARE(role, std::string(warp == 0 ? "producer" : "consumer"));
            QCOMPARE(names.at("kernel_start").size(), size_t(1));
            QCOMPARE(names.at("wait_for_data").size(), size_t(1));
            QCOMPARE(names.count("producer_load"), size_t(warp == 0 ? 1 : 0));
            QCOMPARE(names.count("consumer_compute"), size_t(warp == 1 ? 1 : 0));
        }
        // The barrier: warp 1 computes only after warp 0 finished loading, and warp 0 leaves its
        // wait no earlier than the consumer entered its own.
        const auto warps = byWarp(s);
        for (const auto& [key, names] : warps) {
            const auto [kernel, block, warp] = key;
            if (warp != 1)
                continue;
            const auto& producer = warps.at({kernel, 0, 0});
            QVERIFY(names.at("consumer_compute").front()->begin >= producer.at("producer_load").front()->end);
            QVERIFY(producer.at("wait_for_data").front()->end >= names.at("wait_for_data").front()->begin);
        }
        checkReingest(s, "raw/two_warp");
    }

    // Two recordings of the pipelined example on the H200: 2026-12-02 with the held-begin
    // recorder, 2026-12-03 with push/pop pairs (Store::Pair, version 3 buffers: a pop right
    // after its push stored with it, pops without a %globaltimer reading).
    void pipelined_data()
    {
        QTest::addColumn<QString>("session");
        QTest::addColumn<QString>("raw");
        QTest::addColumn<bool>("pairs");
        QTest::newRow("held begin") << QStringLiteral("pipelined.wscope") << QStringLiteral("raw/pipelined") << false;
        QTest::newRow("push/pop pairs") << QStringLiteral("pipelined_pairs.wscope")
                                        << QStringLiteral("raw/pipelined_pairs") << true;
    }
    void pipelined()
    {
        QFETCH(QString, session);
        QFETCH(QString, raw);
        QFETCH(bool, pairs);
        const auto [bare, pops] = popsWithoutReading(raw.toUtf8().constData());
        QVERIFY(pops > 1000);
        QCOMPARE(bare, pairs ? pops : size_t(0));
        const SessionData s = SessionReader(fixture(session.toUtf8().constData())).readAll();
        checkCommon(s, 2);
        const auto warps = byWarp(s);
        std::map<std::string, size_t> warpsPerRole;
        int maxAsync = 0;
        for (const auto& e : s.warpEvents)
            if (e.kind == WarpEventKind::AsyncRange)
                maxAsync = std::max(maxAsync, e.depth);
        QVERIFY2(maxAsync >= 1, "stage_busy spans of different stages overlap");
        for (const auto& [key, names] : warps) {
            const auto [kernel, block, warp] = key;
            const std::string role = s.str(names.begin()->second.front()->role);
            ++warpsPerRole[role];
            QCOMPARE(role, std::string(warp == 0 ? "producer" : "consumer"));
            if (warp == 0) {
                const size_t tiles = names.at("issue_load").size();
                QCOMPARE(names.at("stage_busy").size(), tiles);
                QCOMPARE(names.at("wait_empty").size(), tiles - 4); // the first round finds every stage free
                QCOMPARE(names.at("drain").size(), size_t(1));
                continue;
            }
            // A consumer computes tile i only after the producer issued its load.
            const auto& issue = warps.at({kernel, block, 0}).at("issue_load");
            const auto& compute = names.at("compute");
            QCOMPARE(compute.size(), issue.size());
            QCOMPARE(names.at("release").size(), issue.size());
            for (size_t i = 0; i < compute.size(); ++i)
                QVERIFY(compute[i]->begin >= issue[i]->begin);
        }
        QCOMPARE(warpsPerRole["consumer"], 2 * warpsPerRole["producer"]);
        // Per-role summary from the real events: consumers spend part of their time waiting.
        const auto roles = iket::summarizeRoles(s.warpEvents, s.strings);
        QCOMPARE(roles.size(), size_t(4)); // 2 launches x (consumer, producer)
        for (const auto& r : roles) {
            QVERIFY(r.waitShare() > 0 && r.waitShare() < 1);
            for (const auto& p : r.phases)
                QVERIFY(p.meanNs > 0 && p.p95Ns > 0);
        }
        checkReingest(s, raw.toUtf8().constData());
    }
    void pipelinedClock64()
    {
        // The same kernel built with WARPSCOPE_IKET_CLOCK64_ONLY (second H200 call, raw file
        // only): events timed by clock64 between each warp's globaltimer anchors must tell the
        // same story as the globaltimer recording.
        RawIngest ingest;
        QVERIFY(ingest.addDirectory(fixture("raw/pipelined_clock64")) > 0);
        const SessionData s = ingest.finish();
        checkCommon(s, 1);
        ws::test::checkRawPositions(s);
        QVERIFY(s.meta.at("iket_clock").find("clock64 interpolation in 1 launches") != std::string::npos);
        const SessionData reference = SessionReader(fixture("pipelined.wscope")).readAll();
        const auto mean = [](const SessionData& d, const char* role, const char* phase) {
            for (const auto& r : iket::summarizeRoles(d.warpEvents, d.strings, 1))
                if (d.str(r.role) == role)
                    for (const auto& p : r.phases)
                        if (d.str(p.name) == phase)
                            return p.meanNs;
            return 0.0;
        };
        for (const auto& [role, phase] : {std::pair {"consumer", "compute"}, std::pair {"producer", "wait_empty"},
                 std::pair {"producer", "stage_busy"}}) {
            const double a = mean(s, role, phase);
            const double b = mean(reference, role, phase);
            QVERIFY2(a > 0 && std::abs(a - b) < 0.01 * b,
                qPrintable(
                    QStringLiteral("%1/%2: %3 vs %4 ns").arg(QLatin1String(role), QLatin1String(phase)).arg(a).arg(b)));
        }
        // Every warp's events are in program order after anchoring.
        for (size_t i = 1; i < s.warpEvents.size(); ++i) {
            const WarpEvent& a = s.warpEvents[i - 1];
            const WarpEvent& b = s.warpEvents[i];
            if (a.block == b.block && a.warp == b.warp)
                QVERIFY(a.begin <= b.begin);
        }
    }
};

QTEST_GUILESS_MAIN(TestIketFixture)
#include "tst_iket_fixture.moc"
