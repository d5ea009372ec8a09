// SPDX-License-Identifier: MIT
// Session store benchmark (issue 2, item 9): writes and opens synthetic sessions of 1M and
// 10M events and prints write rate, open time (lane cache and row scans), a raw sqlite3_step
// scan of the same rows in the same run, and resident bytes per event.
//
// Usage: bench_store [events...]   (default: 1000000 10000000). Files go to a temporary
// directory under $TMPDIR (or /tmp) and are removed afterwards. Times are with the file in
// the page cache (it was just written), the common case of re-opening a recent session.
#include "core/store/sessionerror.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"
#include "core/timeline/lanebuilder.h"
#include "core/timeline/timelinemodel.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <malloc.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ws;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since)
{
    return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU time of this process: on a machine shared with other jobs, wall time alone overstates.
double cpuSeconds()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Timing {
    double wall = 1e30;
    double cpu = 1e30;
};

// Best of `runs` (wall and CPU separately): the least disturbed run.
template <class F> Timing best(int runs, F&& f)
{
    Timing b;
    for (int i = 0; i < runs; ++i) {
        const auto t = Clock::now();
        const double c = cpuSeconds();
        f();
        b.wall = std::min(b.wall, seconds(t));
        b.cpu = std::min(b.cpu, cpuSeconds() - c);
    }
    return b;
}

int64_t residentSetBytes()
{
    std::ifstream statm("/proc/self/statm");
    int64_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * sysconf(_SC_PAGESIZE);
}

// The same rows and columns the row-scan loader reads, stepped with nothing but the C API.
void rawScan(const std::string& path, int64_t& rows)
{
    const char* queries[] = {
        "SELECT id, pid, device_id, stream_id, start, end, short_name, demangled_name, mangled_name FROM kernel",
        "SELECT id, pid, device_id, stream_id, start, end, copy_kind FROM memcpy",
        "SELECT id, pid, device_id, stream_id, start, end FROM memset",
        "SELECT id, pid, tid, start, end, name FROM api_call",
        "SELECT id, pid, tid, start, end, name FROM nvtx_range",
        "SELECT id, pid, tid, start, end, kind FROM sync",
    };
    sqlite3* db = nullptr;
    const std::string uri = "file:" + path + "?mode=ro&immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr)
        != SQLITE_OK) {
        std::fprintf(stderr, "cannot open %s\n", path.c_str());
        std::exit(1);
    }
    int64_t checksum = 0;
    rows = 0;
    for (const char* sql : queries) {
        sqlite3_stmt* st = nullptr;
        sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
        const int columns = sqlite3_column_count(st);
        while (sqlite3_step(st) == SQLITE_ROW) {
            for (int c = 0; c < columns; ++c)
                checksum += sqlite3_column_int64(st, c);
            ++rows;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (checksum == 42) // keep the loop from being optimised away
        std::puts("");
}

void run(int64_t events, const std::filesystem::path& dir)
{
    const std::string path = (dir / ("bench-" + std::to_string(events) + ".wscope")).string();
    std::printf("== %lld events ==\n", static_cast<long long>(events));

    SynthOptions options;
    options.events = events;
    options.seed = 7;
    const auto t0 = Clock::now();
    const double c0 = cpuSeconds();
    double appendS = 0;
    {
        SessionWriter writer(path);
        attachLaneCache(writer);
        writeSyntheticSession(options, writer);
        appendS = seconds(t0);
        writer.commit();
    }
    const double writeS = seconds(t0);
    const double writeCpu = cpuSeconds() - c0;
    const auto fileBytes = std::filesystem::file_size(path);
    std::printf("write:              %.2f s wall (append %.2f s, commit incl. lane cache %.2f s), %.2f s CPU\n", writeS,
        appendS, writeS - appendS, writeCpu);
    std::printf("                    %.2f M events/s wall, %.2f M events/s CPU\n",
        static_cast<double>(events) / writeS / 1e6, static_cast<double>(events) / writeCpu / 1e6);
    std::printf("file:               %.1f MB, %.1f bytes/event\n", static_cast<double>(fileBytes) / 1e6,
        static_cast<double>(fileBytes) / static_cast<double>(events));

    int64_t scanRows = 0;
    rawScan(path, scanRows); // warm-up: pages into the page cache
    const Timing scan = best(3, [&] { rawScan(path, scanRows); });
    std::printf("raw sqlite3_step:   %.3f s wall, %.3f s CPU for %lld rows (%.1f M rows/s CPU)\n", scan.wall, scan.cpu,
        static_cast<long long>(scanRows), static_cast<double>(scanRows) / scan.cpu / 1e6);

    std::shared_ptr<const TimelineModel> model;
    const auto open = [&](bool cache) {
        model.reset();
        SessionReader reader(path);
        model = TimelineModel::load(reader, {}, {}, cache);
    };
    const Timing rows = best(2, [&] { open(false); });
    if (model->fromLaneCache)
        std::printf("unexpected: row-scan load used the lane cache\n");
    std::printf("open (row scans):   %.3f s wall, %.3f s CPU; ratio to raw scan %.2f wall, %.2f CPU\n", rows.wall,
        rows.cpu, rows.wall / scan.wall, rows.cpu / scan.cpu);

    model.reset();
    malloc_trim(0); // hand freed columns back so the RSS delta below is this model's
    const int64_t rssBefore = residentSetBytes();
    const Timing cache = best(3, [&] { open(true); });
    const int64_t rssAfter = residentSetBytes();
    if (!model->fromLaneCache)
        std::printf("unexpected: lane cache not used\n");
    std::printf("open (lane cache):  %.3f s wall, %.3f s CPU; ratio to raw scan %.2f wall, %.2f CPU (goal <= 1.2)\n",
        cache.wall, cache.cpu, cache.wall / scan.wall, cache.cpu / scan.cpu);
    std::printf("model:              %lld events in %zu lanes, %.1f resident bytes/event (goal <= 40); RSS grew "
                "%.1f bytes/event\n",
        static_cast<long long>(model->eventCount), model->lanes.size(),
        static_cast<double>(model->residentBytes()) / static_cast<double>(model->eventCount),
        static_cast<double>(rssAfter - rssBefore) / static_cast<double>(model->eventCount));

    // Cancellation latency: cancel shortly after the load started and time the unwinding.
    for (const bool useCache : {true, false}) {
        model.reset();
        CancellationToken token;
        Clock::time_point cancelledAt;
        std::thread canceller([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(useCache ? 5 : 200));
            cancelledAt = Clock::now();
            token.cancel();
        });
        bool cancelled = false;
        Clock::time_point thrownAt;
        try {
            SessionReader reader(path);
            model = TimelineModel::load(reader, {}, token, useCache);
        } catch (const SessionError& e) {
            thrownAt = Clock::now();
            cancelled = e.kind() == SessionError::Kind::Cancelled;
        }
        canceller.join(); // cancelledAt is only read after the join
        const char* what = useCache ? "cache" : "rows ";
        if (cancelled)
            std::printf("cancel (%s):    honoured after %.1f ms\n", what,
                std::chrono::duration<double, std::milli>(thrownAt - cancelledAt).count());
        else
            std::printf("cancel (%s):    load finished before the cancel\n", what);
    }
    std::filesystem::remove(path);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<int64_t> sizes;
    for (int i = 1; i < argc; ++i)
        sizes.push_back(std::atoll(argv[i]));
    if (sizes.empty())
        sizes = {1'000'000, 10'000'000};
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/warpscope-bench-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        std::perror("mkdtemp");
        return 1;
    }
    const std::filesystem::path dir(pattern);
    for (const int64_t n : sizes)
        run(n, dir);
    std::filesystem::remove_all(dir);
    return 0;
}
