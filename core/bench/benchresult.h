// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchoptions.h"
#include "core/model/sessiondata.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::bench {

// Outcome of the correctness check that runs before any timing.
struct CheckReport {
    bool performed = false;
    bool passed = false;
    int64_t checked = 0; // elements compared
    int64_t total = 0;   // elements in the output
    double maxAbsError = 0;
    double maxRelError = 0;
    double rtol = 0;
    double atol = 0;
    std::string reference; // what the output was compared with, in words
    bool operator==(const CheckReport&) const = default;
};

// One implementation of one workload measured under one set of options: one bench_run row.
// Every sample is kept: `rounds` holds one value per round (call = -1 in bench_sample) and,
// for the per-call timers, `calls[round]` holds every call's value. Values are in `unit`.
struct BenchRunResult {
    std::string workload;
    std::string implementation;
    int64_t size = 0;
    std::string dtype;
    BenchOptions options;
    int64_t flushBytes = 0; // resolved size of the flush buffer (0 for a warm cache)
    std::string unit = "us";
    std::string boundary;
    double workFlops = 0;
    double workBytes = 0;
    ThroughputKind throughputKind = ThroughputKind::Kernel;
    std::string workText;
    int64_t warmupCalls = 0;
    double warmupElapsedMs = 0;
    std::vector<double> warmupChunks; // mean time per call of each warm-up chunk, in `unit`
    std::vector<double> rounds;
    std::vector<std::vector<double>> calls;
    std::vector<int> roundPositions; // this implementation's place in each round's order (0 = first)
    CheckReport check;
    std::vector<std::string> warnings;
    bool operator==(const BenchRunResult&) const = default;
};

struct BenchResult {
    std::map<std::string, std::string> environment;
    std::vector<DeviceInfo> devices;
    std::vector<BenchRunResult> runs;
    bool operator==(const BenchResult&) const = default;
};

// A result or session that does not hold what a benchmark needs. The message names the source.
class BenchFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Maps a result onto the session tables: one bench_run per run, bench_sample rows for every
// round (call = -1) and every call, the environment and devices. Fields without a column of
// their own (size, dtype, options, warm-up, check, round order, warnings) go to options_json.
SessionData toSessionData(const BenchResult& result);

// The inverse, for viewers and reports. `source` names the file in error messages.
BenchResult benchResultFromSession(const SessionData& data, const std::string& source);

} // namespace ws::bench
