// SPDX-License-Identifier: MIT
// The wait after a program with in-kernel traces (ws::iket) exits. A synthetic raw file shaped
// like the one the recorder wrote for ws-example-iket-streams on the H200
// (docs/evidence/2026-12-03-fresh-programs-S: 9 launches, 6.6M warp events, 9.1 s after exit)
// is followed while it "grows", then turned into a session exactly as `warpscope-cli record`
// does after the exit (RecordPipeline: poll, RawIngest::finish, LiveSessionWriter::complete or,
// if the early rows do not hold, SessionWriter with the lane cache), and each phase prints
// seconds and warp events/s.
//
// Per round three launches of a 33x4 grid of 6-warp blocks (792 warps), each warp 3,015 events
// (+2 anchors) of the example's kernel: a role, per iteration push iter / push load / pop / push
// compute / pop / pop, a mark every 50 iterations, a start/end range re-opened half-way:
//   full    every event stored (one launch is 76 MB of raw events: split into type-51 parts)
//   short   1,024 slots per warp: the rest dropped, ranges left open
//   narrow  a Launch declared for half the grid: 396 warps out of range
// Device buffers are compact (version 2) events, expanded and split by the recorder's own
// functions (expandCompact, splitLaunch); a third of the SMs change clock speed half-way, so
// their warps keep globaltimer.
//
// WS_BENCH_ROUNDS=<n> rounds of three launches (default 3), WS_BENCH_ITERS=<n> iterations per
// warp (default 500), WS_BENCH_REPS=<n> repetitions (default 3), WS_BENCH_KEEP=<path> keeps the
// last session written. The line "result" hashes the warp events and the iket meta, so two
// builds can be checked to produce the same session.
#include "core/iket/compactevents.h"
#include "core/iket/iketsplit.h"
#include "core/ingest/rawingest.h"
#include "core/raw/iketformat.h"
#include "core/raw/rawformat.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "h200device.h"
#include "launcher/livesessionwriter.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Kind = ws::raw::IketKind;

double since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

int envInt(const char* name, int fallback)
{
    const char* v = std::getenv(name);
    return v ? std::max(1, std::atoi(v)) : fallback;
}

constexpr int64_t kPid = 4242;
constexpr int64_t kRealtime = 1'800'000'000'000'000'000; // the process's clock anchor
constexpr int64_t kMonotonic = 1'000'000'000;
constexpr uint32_t kGridX = 33, kGridY = 4, kWarpsPerBlock = 6;
constexpr uint32_t kWarps = kGridX * kGridY * kWarpsPerBlock;
// Name ids of the example's WS_IKET_NAMES list.
enum Name : uint16_t { Loader, Math, FirstHalf, SecondHalf, Iter, Load, Compute, Checkpoint };
constexpr const char* kNames = "loader, math, sweep_first_half, sweep_second_half, iter, load, compute, checkpoint";

// One warp's device events as warpscope/iket.cuh writes them (compact, version 2): clock64 and
// %globaltimer low words, name | kind << 16 | flags, token; anchors first and last.
struct WarpScript {
    std::vector<ws::iket::CompactEvent> events;
    uint64_t clock = 0;
    double gt = 0;     // ns, exact
    double nsPerCycle; // the SM's clock, changed half-way on some SMs
    uint64_t rng;

    void advance()
    {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t cycles = 60 + (rng >> 33) % 160;
        clock += cycles;
        gt += static_cast<double>(cycles) * nsPerCycle;
    }
    uint64_t tick() const { return static_cast<uint64_t>(gt) & ~uint64_t {31}; } // 32 ns steps
    void add(Kind kind, uint16_t name, uint32_t token = 0)
    {
        advance();
        events.push_back({static_cast<uint32_t>(clock), static_cast<uint32_t>(tick()),
            name | static_cast<uint32_t>(kind) << 16 | ws::iket::kGlobaltimerFlag, token});
    }
    void anchor(uint16_t sm)
    {
        advance();
        const uint64_t t = tick();
        events.push_back({static_cast<uint32_t>(clock), static_cast<uint32_t>(t),
            sm | static_cast<uint32_t>(Kind::Anchor) << 16, static_cast<uint32_t>(t >> 32)});
    }
};

std::vector<ws::iket::CompactEvent> warpEvents(uint32_t w, int iters, int64_t startGt, uint64_t seed)
{
    const auto sm = static_cast<uint16_t>(w / kWarpsPerBlock);
    const bool strays = sm % 3 == 0;
    WarpScript s {{}, 1'000'000'000ull * (sm + 1), static_cast<double>(startGt), 0.5057, seed * 7919 + w};
    s.events.reserve(static_cast<size_t>(6 * iters + iters / 50 + 8));
    s.anchor(sm);
    s.add(Kind::Role, w % kWarpsPerBlock == 0 ? Loader : Math);
    s.add(Kind::Start, FirstHalf, 1);
    for (int it = 0; it < iters; ++it) {
        s.add(Kind::Push, Iter);
        s.add(Kind::Push, Load);
        s.add(Kind::Pop, 0);
        s.add(Kind::Push, Compute);
        s.add(Kind::Pop, 0);
        s.add(Kind::Pop, 0);
        if (it % 50 == 49)
            s.add(Kind::Mark, Checkpoint);
        if (it == iters / 2) {
            s.add(Kind::End, 0, 1);
            s.add(Kind::Start, SecondHalf, 2);
            if (strays)
                s.nsPerCycle = 0.55; // the SM's clock slowed: globaltimer strays from clock64
        }
    }
    s.add(Kind::End, 0, 2);
    s.anchor(sm);
    return s.events;
}

struct LaunchShape {
    const char* label;
    uint32_t gridY;         // the Launch's declared grid (narrow: half the kernel's)
    uint32_t eventsPerWarp; // slots that keep events (short: fewer than the warp writes)
};

// The raw file of one process running `rounds` x (full, short, narrow), framed as the
// recorder's writer appends it: each launch's trace at collect(), the CUPTI records after.
std::string synthesize(int rounds, int iters, uint64_t& deviceEvents)
{
    using namespace ws::raw;
    std::string out;
    FileHeader h {};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kFormatVersion;
    h.headerSize = sizeof(FileHeader);
    h.pid = kPid;
    h.parentPid = 1;
    h.anchorRealtimeNs = kRealtime;
    h.anchorMonotonicNs = kMonotonic;
    out.append(reinterpret_cast<const char*>(&h), sizeof h);
    uint32_t nextString = 1;
    const auto str = [&](std::string_view s) {
        appendFrame(out, RecordType::String, StringDef {nextString, 0}, s);
        return nextString++;
    };
    const uint32_t cmd = str("/bin/ws-example-iket-streams 3 500");
    const uint32_t exe = str("/bin/ws-example-iket-streams");
    appendFrame(out, RecordType::Process, ProcessRecord {kPid, 1, cmd, exe});
    appendFrame(out, RecordType::Device, ws::bench::h200Device(str("NVIDIA H200")));
    const uint32_t kernelName = str("_Z5sweepPKfPfiN2ws4iket12DeviceBufferE");
    const uint32_t launchName = str("cudaLaunchKernel_v7000");
    const uint32_t names = str(kNames);
    const int perWarp = 6 * iters + iters / 50 + 5; // + 2 anchors
    const auto slots = static_cast<uint32_t>((perWarp + 2 + 16 + 31) / 32 * 32);
    const LaunchShape shapes[]
        = {{"sweep_full", kGridY, slots}, {"sweep_short_buffer", kGridY, 1024}, {"sweep_narrow", kGridY / 2, slots}};
    uint32_t labels[3];
    for (int i = 0; i < 3; ++i)
        labels[i] = str(shapes[i].label);
    deviceEvents = 0;
    int64_t now = 2'000'000'000; // monotonic ns
    uint32_t correlation = 0;
    uint64_t serial = 0;
    for (int round = 0; round < rounds; ++round) {
        std::vector<ApiRecord> apis;
        std::vector<KernelRecord> kernels;
        for (int which = 0; which < 3; ++which) {
            const LaunchShape& shape = shapes[which];
            const int64_t armed = now;
            ApiRecord a {};
            a.start = armed + 2000;
            a.end = a.start + 4000;
            a.tid = kPid;
            a.correlationId = ++correlation;
            a.cbid = 211;
            a.name = launchName;
            apis.push_back(a);
            const int64_t kernelStart = a.end + 3000;
            // globaltimer runs 3 us ahead of the host's anchor: ingest shifts every launch.
            const int64_t gtStart = kernelStart + (kRealtime - kMonotonic) + 3000;
            const uint32_t declaredWarps = kGridX * shape.gridY * kWarpsPerBlock;
            std::vector<uint32_t> attempted(declaredWarps);
            std::vector<ws::iket::CompactEvent> device(uint64_t {declaredWarps} * shape.eventsPerWarp);
            std::vector<uint32_t> stored(declaredWarps);
            int64_t lastGt = gtStart;
            for (uint32_t w = 0; w < declaredWarps; ++w) {
                const auto events
                    = warpEvents(w, iters, gtStart + (w % 97) * 20, static_cast<uint64_t>(round * 3 + which));
                attempted[w] = static_cast<uint32_t>(events.size());
                stored[w] = std::min(attempted[w], shape.eventsPerWarp);
                std::copy_n(events.begin(), stored[w], device.begin() + int64_t {w} * shape.eventsPerWarp);
                const auto& lastEvent = events.back();
                lastGt = std::max(
                    lastGt, static_cast<int64_t>((uint64_t {lastEvent.token} << 32) | lastEvent.globaltimerLo));
                deviceEvents += stored[w];
            }
            KernelRecord k {};
            k.start = kernelStart;
            k.end = lastGt - (kRealtime - kMonotonic) + 1000;
            k.queued = a.start + 1000;
            k.submitted = k.queued + 500;
            k.streamId = 13 + static_cast<uint32_t>(which % 2);
            k.contextId = 1;
            k.correlationId = a.correlationId;
            k.name = kernelName;
            k.grid[0] = kGridX;
            k.grid[1] = kGridY;
            k.grid[2] = 1;
            k.block[0] = 96;
            k.block[1] = 2;
            k.block[2] = 1;
            k.registersPerThread = 32;
            kernels.push_back(k);
            now = k.end + 50'000;
            // What warpscope_iket_submit does with the copied-back buffer.
            IketLaunchRecord rec {};
            rec.armedNs = armed;
            rec.collectedNs = now;
            rec.tid = kPid;
            rec.label = labels[which];
            rec.names = names;
            rec.grid[0] = kGridX;
            rec.grid[1] = shape.gridY;
            rec.grid[2] = 1;
            rec.block[0] = 96;
            rec.block[1] = 2;
            rec.block[2] = 1;
            rec.warpsPerBlock = kWarpsPerBlock;
            rec.eventsPerWarp = shape.eventsPerWarp;
            rec.totalWarps = declaredWarps;
            rec.outOfRangeWarps = kWarps - declaredWarps;
            std::vector<IketEvent> expanded(uint64_t {declaredWarps} * shape.eventsPerWarp);
            ws::iket::expandCompact(device.data(), shape.eventsPerWarp, stored.data(), declaredWarps, kWarpsPerBlock,
                expanded.data(), shape.eventsPerWarp);
            const char* bytes = reinterpret_cast<const char*>(expanded.data());
            if (ws::iket::singleFrameBytes(rec, attempted.data()) > kMaxFramePayload) {
                std::string error;
                for (const auto& part :
                    ws::iket::splitLaunch(rec, attempted.data(), bytes, serial++, kMaxFramePayload, error))
                    appendFrame(out, ws::raw::kIketLaunchPartType, part.record, part.trailing);
            } else {
                std::string trailing(
                    reinterpret_cast<const char*>(attempted.data()), attempted.size() * sizeof(uint32_t));
                for (uint32_t w = 0; w < declaredWarps; ++w)
                    trailing.append(
                        bytes + uint64_t {w} * shape.eventsPerWarp * sizeof(IketEvent), stored[w] * sizeof(IketEvent));
                appendFrame(out, ws::raw::kIketLaunchType, rec, trailing);
            }
        }
        for (const auto& a : apis)
            appendFrame(out, RecordType::Api, a);
        for (const auto& k : kernels)
            appendFrame(out, RecordType::Kernel, k);
    }
    EndRecord e {};
    e.ts = now;
    appendFrame(out, RecordType::End, e);
    return out;
}

// FNV-1a over the warp events (names resolved) and the iket meta: equal for equal sessions.
uint64_t resultHash(const ws::SessionData& data)
{
    uint64_t h = 1469598103934665603ull;
    const auto mix = [&h](const void* p, size_t n) {
        for (size_t i = 0; i < n; ++i)
            h = (h ^ static_cast<const unsigned char*>(p)[i]) * 1099511628211ull;
    };
    for (const auto& e : data.warpEvents) {
        const int64_t fields[]
            = {e.id, e.kernelId, e.block, e.warp, e.sm, static_cast<int64_t>(e.kind), e.begin, e.end, e.depth};
        mix(fields, sizeof fields);
        mix(data.str(e.role).data(), data.str(e.role).size());
        mix(data.str(e.name).data(), data.str(e.name).size());
    }
    for (const auto& [key, value] : data.meta)
        if (key.starts_with("iket_")) {
            mix(key.data(), key.size());
            mix(value.data(), value.size());
        }
    return h;
}

void writeFile(const std::string& path, std::string_view data, const char* mode)
{
    FILE* f = std::fopen(path.c_str(), mode);
    if (!f || std::fwrite(data.data(), 1, data.size(), f) != data.size()) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::fclose(f);
}

} // namespace

int main()
{
    const int rounds = envInt("WS_BENCH_ROUNDS", 3);
    const int iters = envInt("WS_BENCH_ITERS", 500);
    const int reps = envInt("WS_BENCH_REPS", 3);
    const char* keep = std::getenv("WS_BENCH_KEEP");
    const fs::path dir = fs::temp_directory_path() / ("warpscope-bench-iket-ingest-" + std::to_string(::getpid()));
    fs::create_directories(dir / "raw");
    const auto made = Clock::now();
    uint64_t deviceEvents = 0;
    const std::string bytes = synthesize(rounds, iters, deviceEvents);
    std::printf("bench_iket_ingest: %d launches of %u warps, %" PRIu64 " device events, raw file %.1f MB "
                "(made in %.2f s), %d repetitions\n",
        rounds * 3, kWarps, deviceEvents, static_cast<double>(bytes.size()) / 1e6, since(made), reps);
    std::vector<double> totals;
    for (int rep = 0; rep < reps; ++rep) {
        const std::string rawPath = (dir / "raw" / ("ws-" + std::to_string(kPid) + ".raw")).string();
        const std::string session = (dir / "s.wscope").string();
        fs::remove(rawPath);
        fs::remove(session);
        // While the program runs: the file grows in 64 appends; the launcher follows it and
        // writes settled rows, its horizon two appends behind (record trails the clock by 1 s).
        ws::RawIngest ingest;
        ingest.follow((dir / "raw").string());
        auto live = std::make_unique<ws::LiveSessionWriter>(session);
        const size_t step = bytes.size() / 64 + 1;
        double duringS = 0;
        size_t pos = 0;
        for (int i = 0; pos + step < bytes.size(); pos += step, ++i) {
            writeFile(rawPath, std::string_view(bytes).substr(pos, step), "ab");
            const auto t = Clock::now();
            ingest.poll();
            live->take(ingest, 2'000'000'000 + int64_t {rounds} * 3 * 400'000 * (i - 2) / 64);
            duringS += since(t);
        }
        writeFile(rawPath, std::string_view(bytes).substr(pos), "ab");
        // The program exited: what record does from here on (RecordPipeline::collect).
        const auto exited = Clock::now();
        ws::RawIngest::LaunchedProcess root;
        root.pid = kPid;
        root.parentPid = ::getpid();
        root.name = "ws-example-iket-streams";
        root.commandLine = "/bin/ws-example-iket-streams 3 500";
        root.anchorRealtimeNs = kRealtime;
        root.anchorMonotonicNs = kMonotonic;
        root.exitCode = 0;
        ingest.addLaunchedProcess(root);
        ingest.poll();
        const double readS = since(exited);
        auto t = Clock::now();
        ws::SessionData data = ingest.finish();
        const double ingestS = since(t);
        t = Clock::now();
        const bool early = live->complete(ingest, data);
        if (!early) {
            live.reset();
            ws::SessionWriter writer(session);
            ws::attachLaneCache(writer);
            writer.write(data);
            writer.commit();
        }
        const double writeS = since(t);
        const double total = since(exited);
        totals.push_back(total);
        const auto warp = static_cast<double>(data.warpEvents.size());
        const auto rate = [warp](double s) { return s > 0 ? warp / s / 1e6 : 0.0; };
        std::printf("bench_iket_ingest: rep %d during run %.3f s; after exit: read %.3f s, ingest %.3f s (%.2fM warp "
                    "events/s), write %.3f s (%.2fM warp events/s)%s, total %.3f s (%.2fM warp events/s); %zu warp "
                    "events, %zu kernels, session %.1f MB\n",
            rep, duringS, readS, ingestS, rate(ingestS), writeS, rate(writeS), early ? "" : " (not live)", total,
            rate(total), data.warpEvents.size(), data.kernels.size(),
            static_cast<double>(fs::file_size(session)) / 1e6);
        if (rep == 0)
            std::printf("bench_iket_ingest: result %016" PRIx64 " (%zu warp events, %zu warnings)\n", resultHash(data),
                data.warpEvents.size(), ingest.warnings().size());
        if (keep && rep + 1 == reps)
            fs::copy_file(session, keep, fs::copy_options::overwrite_existing);
    }
    std::sort(totals.begin(), totals.end());
    std::printf("bench_iket_ingest: median post-run wait %.3f s (goal <= 1 s)\n", totals[totals.size() / 2]);
    fs::remove_all(dir);
    return 0;
}
