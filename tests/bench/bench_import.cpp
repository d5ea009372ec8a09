// SPDX-License-Identifier: MIT
// Import speed and memory on a big Chrome trace: generates a nested 10M-event trace (~1.3 GB of
// JSON, 16 threads) in a temporary directory, imports it into a session with its lane cache
// through importIntoSession, the one call `warpscope-cli import FILE -o OUT` makes, and prints
// seconds and peak RSS for the phases (the parse, with NVTX rows inserted meanwhile on a second
// thread; what is left of the ordering; the other rows, lane cache and commit) and for the
// whole command: what a user waits for. The file is deleted afterwards. Reference point (issue 10):
// Tracy's import-chrome took 112 s and 18.7 GB on such a file; the goal (issue 20) is the
// whole command in <= 11 s and <= 1.5 GiB.
//
// WS_BENCH_IMPORT_EVENTS=<n> changes the event count (default 10000000);
// WS_BENCH_IMPORT_DIR=<dir> puts the file elsewhere than $TMPDIR.
#include "core/import/sessionimport.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;

double peakRssGiB()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / (1024.0 * 1024.0); // ru_maxrss is in KiB
}

// User + system CPU time of this process: on a shared machine wall time also counts waiting.
double cpuSeconds()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds
        = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double currentRssGiB()
{
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        long size = 0;
        if (std::fscanf(f, "%ld %ld", &size, &pages) != 2)
            pages = 0;
        std::fclose(f);
    }
    return static_cast<double>(pages) * static_cast<double>(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0 * 1024.0);
}

// Writes `events` complete ("X") events on 16 threads: trees of nested calls (up to depth 8),
// emitted parent first, threads interleaved tree by tree so the file is roughly in time order,
// the way a tracer flushes per-thread buffers. Returns the file size.
uint64_t generateTrace(const std::string& path, int64_t events)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::perror(path.c_str());
        std::exit(1);
    }
    std::vector<char> buffer(size_t(8) << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", f);
    constexpr int kThreads = 16;
    std::mt19937_64 rng(12345);
    std::vector<int64_t> clock(kThreads, 1000000); // ns per thread
    int64_t written = 0;
    bool first = true;
    struct Node {
        int64_t start;
        int64_t end;
        int depth;
    };
    std::vector<Node> stack;
    char line[256];
    while (written < events) {
        for (int t = 0; t < kThreads && written < events; ++t) {
            // One top-level call of 20..60 us with nested children.
            const int64_t rootDur = 20000 + static_cast<int64_t>(rng() % 40000);
            stack.clear();
            stack.push_back({clock[t], clock[t] + rootDur, 0});
            while (!stack.empty() && written < events) {
                const Node n = stack.back();
                stack.pop_back();
                const int len = std::snprintf(line, sizeof line,
                    "%s{\"name\":\"function_%03u\",\"cat\":\"app\",\"ph\":\"X\",\"ts\":%" PRId64 ".%03" PRId64
                    ",\"dur\":%" PRId64 ".%03" PRId64 ",\"pid\":4242,\"tid\":%d,\"args\":{\"depth\":%d,\"n\":%" PRId64
                    "}}",
                    first ? "" : ",\n", static_cast<unsigned>(rng() % 300), n.start / 1000, n.start % 1000,
                    (n.end - n.start) / 1000, (n.end - n.start) % 1000, 4300 + t, n.depth, written);
                std::fwrite(line, 1, static_cast<size_t>(len), f);
                first = false;
                ++written;
                if (n.depth >= 8 || n.end - n.start < 200)
                    continue;
                // 0..4 children inside the parent, pushed last-first so they come out in time order.
                const int children = static_cast<int>(rng() % 5);
                const int64_t slot = (n.end - n.start) / (children + 1);
                for (int c = children - 1; c >= 0; --c) {
                    const int64_t s = n.start + slot / 2 + c * slot;
                    stack.push_back({s, s + slot * 3 / 4, n.depth + 1});
                }
            }
            clock[t] += rootDur + 500;
        }
    }
    std::fputs("\n]}\n", f);
    const long size = std::ftell(f);
    std::fclose(f);
    return static_cast<uint64_t>(size);
}

} // namespace

int main()
{
    const char* eventsEnv = std::getenv("WS_BENCH_IMPORT_EVENTS");
    const int64_t events = eventsEnv ? std::atoll(eventsEnv) : 10'000'000;
    const char* dirEnv = std::getenv("WS_BENCH_IMPORT_DIR");
    const fs::path dir = fs::path(dirEnv ? dirEnv : fs::temp_directory_path().string())
        / ("warpscope-bench-import-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string trace = (dir / "trace.json").string();
    const std::string session = (dir / "trace.wscope").string();

    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    const uint64_t bytes = generateTrace(trace, events);
    const double genSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("bench_import: generated %" PRId64 " events, %.2f GB of JSON, 16 threads, in %.1f s (not measured)\n",
        events, static_cast<double>(bytes) / 1e9, genSeconds);
    const double rssBefore = currentRssGiB();

    int progressCalls = 0;
    ws::ImportOptions options;
    // Phase marks from the progress phases: the parse ends at "ordering records", the import
    // at "writing session" (importIntoSession).
    Clock::time_point parsed {};
    Clock::time_point imported {};
    double parsedCpu = 0;
    double importedCpu = 0;
    double importedPeak = 0;
    options.progress = [&](double, const char* phase) {
        ++progressCalls;
        const std::string_view p(phase);
        if (parsed == Clock::time_point {} && p == "ordering records") {
            parsed = Clock::now();
            parsedCpu = cpuSeconds();
        } else if (imported == Clock::time_point {} && p == "writing session") {
            imported = Clock::now();
            importedCpu = cpuSeconds();
            importedPeak = peakRssGiB();
        }
    };
    int status = 0;
    try {
        // Exactly what `warpscope-cli import FILE -o OUT` runs (app/cli/cmd_import.cpp): the NVTX
        // rows are inserted on a second thread while the parse runs, the rest after it.
        t0 = Clock::now();
        const double cpu0 = cpuSeconds();
        const ws::SessionImport result = ws::importIntoSession(trace, ws::ImportFormat::Kineto, options, session);
        const auto t2 = Clock::now();
        const double wholeCpu = cpuSeconds() - cpu0;
        const auto seconds
            = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
        std::printf("bench_import: import  %.2f s wall (parse %.2f s, then order %.2f s), %.2f s CPU (parse %.2f s, "
                    "order %.2f s), %.0f MB/s, peak RSS %.2f GiB (%.2f GiB before), %zu ranges (%s), %d progress "
                    "calls\n",
            seconds(t0, imported), seconds(t0, parsed), seconds(parsed, imported), importedCpu - cpu0, parsedCpu - cpu0,
            importedCpu - parsedCpu, static_cast<double>(bytes) / 1e6 / seconds(t0, parsed), importedPeak, rssBefore,
            result.nvtxRanges,
            result.nvtxRangesStreamed == result.nvtxRanges ? "inserted on a second thread during the parse"
                                                           : "inserted after the parse",
            progressCalls);
        std::printf("bench_import: write   %.2f s wall, %.2f s CPU (rows not inserted during the parse, lane cache, "
                    "commit), peak RSS %.2f GiB, session %.2f GB\n",
            seconds(imported, t2), cpuSeconds() - cpu0 - (importedCpu - cpu0), peakRssGiB(),
            static_cast<double>(fs::file_size(session)) / 1e9);
        const double wholeSeconds = seconds(t0, t2);
        std::printf("bench_import: whole command (import + session write + lane cache) %.2f s wall, %.2f s CPU, peak "
                    "RSS %.2f GiB, %.2f M events/s\n",
            wholeSeconds, wholeCpu, peakRssGiB(), static_cast<double>(events) / 1e6 / wholeSeconds);
        std::printf("bench_import: goal    whole command <= 11 s and <= 1.5 GiB (issue 20)\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_import: %s\n", e.what());
        status = 1;
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return status;
}
