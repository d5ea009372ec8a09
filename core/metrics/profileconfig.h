// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/sectioncatalog.h"

#include <cstdint>
#include <string>

namespace ws {

// What `warpscope-cli profile` tells the profiler injection library inside the target. The
// CLI writes it to a file named by $WS_PROFILE_CONFIG; every process of the target (children
// inherit the environment) reads it and writes its own result file into `outputDir`.
struct ProfileConfig {
    std::string outputDir;
    std::string kernelRegex;  // ECMAScript regex searched in the function name; empty = all
    int64_t launchSkip = 0;   // matching launches to let pass before the first profiled one
    int64_t launchCount = -1; // matching launches to profile; -1 = no limit
    std::vector<MetricRequest::Counter> counters;
    bool verbose = false;
    // Launches count only between the program's cudaProfilerStart and cudaProfilerStop (ncu
    // --profile-from-start off, nsys --capture-range cudaProfilerApi): the others neither match
    // nor count for launchSkip/launchCount.
    bool captureProfilerApi = false;
    // Cache state at the start of every replay pass, named as ncu names it. All: our own replay
    // (checkpoint restore + L2 eviction before each pass), the state of ncu's default
    // `--cache-control all`. None: our replay that restores only what the kernel changed, each
    // pass starting from the L2 the last run left (compare with ncu `--cache-control none`).
    enum class CacheControl { All, None };
    CacheControl cacheControl = CacheControl::None;
    // SourceCounters: CUPTI PC sampling (kernel-serialized, start/stop around each selected
    // launch) instead of the range profiler; the two never share a process.
    bool pcSampling = false;
    int pcSamplingPeriod = 0;        // log2 of the interval in cycles (5..31); 0 = the library's default
    bool pcSamplingStartStop = true; // false: no start/stop control, ranges told apart by correlation id

    // Text form, one statement per line (see profileconfig.cpp). Throws std::runtime_error
    // naming `source` and the line on malformed input.
    std::string serialize() const;
    static ProfileConfig parse(const std::string& text, const std::string& source);
    static ProfileConfig readFile(const std::string& path);
    void writeFile(const std::string& path) const;
};

// ncu's --kernel-name as the regular expression ProfileConfig::kernelRegex holds: "regex:<R>" is
// R, anything else must equal a whole name (base, demangled or mangled; the profiler searches all
// three, as `warpscope-cli metrics` does). Empty for an empty spec.
std::string kernelNameRegex(const std::string& spec);

} // namespace ws
