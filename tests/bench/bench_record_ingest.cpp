// SPDX-License-Identifier: MIT
// The wait after a recorded program exits (issue 20 item 4b): a synthetic raw file shaped like
// the recorder's for N empty-kernel launches (default 355,000: 710k events; API records and
// kernel records in CUPTI-buffer-sized runs, as the writer thread appends them) is turned into a
// session the way `warpscope-cli record` does after the program's exit, and each phase prints
// seconds and events/s: read (raw file into frames), ingest (RawIngest::finish), rows (SQLite
// inserts), lane cache + commit, and the whole post-run wait. Goal: <= 1 s after exit.
//
// WS_BENCH_LAUNCHES=<n> changes the launch count; WS_BENCH_REPS=<n> the repetitions (default 3).
#include "core/ingest/rawingest.h"
#include "core/raw/rawformat.h"
#include "core/raw/rawreader.h"
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
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

template <typename P> void frame(std::string& out, ws::raw::RecordType type, const P& p, std::string_view tail = {})
{
    ws::raw::appendFrame(out, type, p, tail);
}

// The raw file of one process that launched `launches` empty kernels on the legacy stream.
std::string synthesize(int64_t launches)
{
    using namespace ws::raw;
    std::string out;
    out.reserve(static_cast<size_t>(launches) * 200 + 4096);
    FileHeader h {};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.version = kFormatVersion;
    h.headerSize = sizeof(FileHeader);
    h.pid = 4242;
    h.parentPid = 1;
    h.anchorRealtimeNs = 1'800'000'000'000'000'000;
    h.anchorMonotonicNs = 1'000'000'000;
    out.append(reinterpret_cast<const char*>(&h), sizeof h);
    const auto str = [&](uint32_t id, std::string_view s) { frame(out, RecordType::String, StringDef {id, 0}, s); };
    str(1, "/bin/ws-example-launch-bound --launches 354000");
    str(2, "/bin/ws-example-launch-bound");
    frame(out, RecordType::Process, ProcessRecord {4242, 1, 1, 2});
    str(3, "NVIDIA H200");
    frame(out, RecordType::Device, ws::bench::h200Device(3));
    str(4, "_Z12empty_kernelv");
    str(5, "cudaLaunchKernel_v7000");
    constexpr int64_t kChunk = 4096; // records per converted CUPTI buffer, roughly
    const int64_t t0 = 1'500'000'000;
    for (int64_t first = 0; first < launches; first += kChunk) {
        const int64_t last = std::min(launches, first + kChunk);
        for (int64_t i = first; i < last; ++i) {
            ApiRecord a {};
            a.start = t0 + i * 4200;
            a.end = a.start + 3900;
            a.tid = 4242;
            a.correlationId = static_cast<uint32_t>(i + 1);
            a.cbid = 211;
            a.name = 5;
            frame(out, RecordType::Api, a);
        }
        for (int64_t i = first; i < last; ++i) {
            KernelRecord k {};
            k.start = t0 + i * 4200 + 6000;
            k.end = k.start + 1500;
            k.queued = t0 + i * 4200 + 1000;
            k.submitted = k.queued + 500;
            k.streamId = 7;
            k.contextId = 1;
            k.correlationId = static_cast<uint32_t>(i + 1);
            k.name = 4;
            k.grid[0] = k.grid[1] = k.grid[2] = 1;
            k.block[0] = 32;
            k.block[1] = k.block[2] = 1;
            k.registersPerThread = 8;
            frame(out, RecordType::Kernel, k);
        }
    }
    EndRecord e {};
    e.ts = t0 + launches * 4200 + 10000;
    frame(out, RecordType::End, e);
    return out;
}

} // namespace

int main()
{
    const char* launchesEnv = std::getenv("WS_BENCH_LAUNCHES");
    const int64_t launches = launchesEnv ? std::atoll(launchesEnv) : 355'000;
    const char* repsEnv = std::getenv("WS_BENCH_REPS");
    const int reps = repsEnv ? std::max(1, std::atoi(repsEnv)) : 3;
    const fs::path dir = fs::temp_directory_path() / ("warpscope-bench-record-ingest-" + std::to_string(::getpid()));
    const fs::path wholeDir = dir / "whole", followDir = dir / "follow";
    fs::create_directories(wholeDir);
    fs::create_directories(followDir);
    const std::string bytes = synthesize(launches);
    const auto writeFile = [](const std::string& path, std::string_view data, const char* mode) {
        FILE* f = std::fopen(path.c_str(), mode);
        if (!f || std::fwrite(data.data(), 1, data.size(), f) != data.size()) {
            std::perror(path.c_str());
            std::exit(1);
        }
        std::fclose(f);
    };
    writeFile((wholeDir / "ws-4242.raw").string(), bytes, "wb");
    const double events = static_cast<double>(launches) * 2;
    std::printf("bench_record_ingest: %" PRId64 " launches (%.0f events), raw file %.1f MB, %d repetitions\n", launches,
        events, static_cast<double>(bytes.size()) / 1e6, reps);
    const auto rate = [events](double s) { return s > 0 ? events / s / 1e6 : 0.0; };
    // Writes the session as `warpscope-cli record` does after ingest; returns (rows, total) seconds.
    const auto writeSession = [](const ws::SessionData& data, const std::string& path) {
        const auto t = Clock::now();
        ws::SessionWriter writer(path);
        ws::attachLaneCache(writer);
        writer.write(data);
        const double rows = since(t);
        writer.commit();
        return std::make_pair(rows, since(t));
    };
    std::vector<double> wholeTotals, followTotals, liveTotals;
    for (int rep = 0; rep < reps; ++rep) {
        const std::string session = (dir / "s.wscope").string();
        {
            // Whole files after the exit: what record did before following.
            const auto start = Clock::now();
            ws::RawIngest ingest;
            ingest.addDirectory(wholeDir.string());
            const double readS = since(start);
            auto t = Clock::now();
            ws::SessionData data = ingest.finish();
            const double ingestS = since(t);
            const auto [rowsS, writeS] = writeSession(data, session);
            const double total = since(start);
            wholeTotals.push_back(total);
            std::printf(
                "bench_record_ingest: rep %d whole files   read %.3f s (%.2fM ev/s)  ingest %.3f s (%.2fM ev/s)  "
                "rows %.3f s (%.2fM ev/s)  lane cache + commit %.3f s  post-run %.3f s (%.2fM ev/s)\n",
                rep, readS, rate(readS), ingestS, rate(ingestS), rowsS, rate(rowsS), writeS - rowsS, total,
                rate(total));
            fs::remove(session);
        }
        {
            // Following: the file grows in 64 appends while ingest polls, as during a run; the
            // last append is what the program wrote at exit.
            const std::string path = (followDir / "ws-4242.raw").string();
            fs::remove(path);
            ws::RawIngest ingest;
            ingest.follow(followDir.string());
            const size_t step = bytes.size() / 64 + 1;
            double pollS = 0;
            size_t pos = 0;
            for (; pos + step < bytes.size(); pos += step) {
                writeFile(path, std::string_view(bytes).substr(pos, step), "ab");
                const auto t = Clock::now();
                ingest.poll();
                pollS += since(t);
            }
            writeFile(path, std::string_view(bytes).substr(pos), "ab");
            const auto start = Clock::now();
            ws::SessionData data = ingest.finish();
            const double ingestS = since(start);
            const auto [rowsS, writeS] = writeSession(data, session);
            const double total = since(start);
            followTotals.push_back(total);
            std::printf(
                "bench_record_ingest: rep %d following     during run %.3f s (%.2fM ev/s)  after exit: ingest %.3f "
                "s  rows %.3f s (%.2fM ev/s)  lane cache + commit %.3f s  post-run %.3f s (%.2fM ev/s)\n",
                rep, pollS, rate(pollS), ingestS, rowsS, rate(rowsS), writeS - rowsS, total, rate(total));
            fs::remove(session);
        }
        {
            // Following with the session written as rows settle (LiveSessionWriter): the horizon
            // trails the appends by two of the 64 steps, as record's trails the clock by 2 s.
            const std::string path = (followDir / "ws-4242.raw").string();
            fs::remove(path);
            ws::RawIngest ingest;
            ingest.follow(followDir.string());
            ws::LiveSessionWriter live(session);
            const size_t step = bytes.size() / 64 + 1;
            const int64_t span = launches * 4200;
            double duringS = 0;
            size_t pos = 0;
            for (int i = 0; pos + step < bytes.size(); pos += step, ++i) {
                writeFile(path, std::string_view(bytes).substr(pos, step), "ab");
                const auto t = Clock::now();
                ingest.poll();
                live.take(ingest, 1'500'000'000 + span * (i - 2) / 64);
                duringS += since(t);
            }
            writeFile(path, std::string_view(bytes).substr(pos), "ab");
            const auto start = Clock::now();
            ws::SessionData data = ingest.finish();
            const double ingestS = since(start);
            const auto t = Clock::now();
            const bool early = live.complete(ingest, data);
            if (!early)
                writeSession(data, session);
            const double writeS = since(t);
            const double total = since(start);
            liveTotals.push_back(total);
            std::printf(
                "bench_record_ingest: rep %d live writer   during run %.3f s (%.2fM ev/s, %zu rows written)  "
                "after exit: ingest %.3f s  rest + lane cache + commit %.3f s%s  post-run %.3f s (%.2fM ev/s)\n",
                rep, duringS, rate(duringS), live.rowsWrittenEarly(), ingestS, writeS,
                early ? "" : " (early rows refused)", total, rate(total));
            fs::remove(session);
        }
    }
    std::sort(wholeTotals.begin(), wholeTotals.end());
    std::sort(liveTotals.begin(), liveTotals.end());
    std::sort(followTotals.begin(), followTotals.end());
    std::printf("bench_record_ingest: median post-run wait, whole files %.3f s, following %.3f s, live writer %.3f s, "
                "for %.0f events (goal <= 1 s)\n",
        wholeTotals[wholeTotals.size() / 2], followTotals[followTotals.size() / 2], liveTotals[liveTotals.size() / 2],
        events);
    fs::remove_all(dir);
    return 0;
}
