// SPDX-License-Identifier: MIT
// The read the kernel panels wait for on a big session: the kernel launch table, built in one
// pass over the kernel rows (KernelLaunchTable::build) and read in id slices on several
// connections (readKernelLaunchTable), alternating in one run. Prints each round and the
// medians.
//   bench_launch_table [SESSION] [ROUNDS]    (default: a 2M-event synthetic session, 5 rounds)
// The 10M-event figure of docs: bench_launch_table synth-10M.wscope, the session from
// `warpscope-cli synth --events 10000000 --seed 42 -o synth-10M.wscope`.
#include "core/analysis/sessionfilesource.h"
#include "core/ranking/launchtableread.h"
#include "core/store/sessionreader.h"
#include "core/store/sessionwriter.h"
#include "core/synth/synthgenerator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

using namespace ws;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::string path = argc > 1 ? argv[1] : "";
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    const std::filesystem::path scratch = std::filesystem::temp_directory_path() / "bench_launch_table.wscope";
    if (path.empty()) {
        std::filesystem::remove(scratch);
        path = scratch.string();
        SynthOptions options;
        options.events = 2'000'000;
        options.seed = 42;
        SessionWriter writer(path);
        writeSyntheticSession(options, writer);
        writer.commit();
    }
    const SessionReader reader(path);
    const SessionFileSource all(reader);
    const SessionFileSource timing(all, SessionFileSource::Runs::Timing);
    const auto ids = reader.idRange<KernelRecord>();
    const int64_t rows = ids ? ids->second - ids->first + 1 : 0;
    const unsigned parts = launchTableParts(rows);
    std::printf("bench_launch_table: %s, %lld kernel rows, %u hardware threads, %u slices\n", path.c_str(),
        static_cast<long long>(rows), std::thread::hardware_concurrency(), parts);
    std::vector<double> one, sliced;
    size_t launches = 0;
    for (int r = 0; r < rounds; ++r) {
        // Alternating order, so that neither always runs on a warm page cache first.
        for (const bool slicedFirst : {r % 2 == 1, r % 2 == 0}) {
            const auto t0 = std::chrono::steady_clock::now();
            const KernelLaunchTable table
                = slicedFirst ? readKernelLaunchTable(timing, {}, parts) : KernelLaunchTable::build(timing);
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
            (slicedFirst ? sliced : one).push_back(ms);
            launches = table.size();
            std::printf("round %d  %-28s %9.1f ms  (%zu launches)\n", r,
                slicedFirst ? "sliced read" : "one pass (build)", ms, table.size());
        }
    }
    std::printf("median of %d: one pass %.1f ms, sliced read (%u slices) %.1f ms, ratio %.2f; %zu launches\n", rounds,
        median(one), parts, median(sliced), median(sliced) / median(one), launches);
    if (argc <= 1)
        std::filesystem::remove(scratch);
    return 0;
}
