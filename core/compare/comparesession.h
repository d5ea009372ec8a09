// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchresult.h"
#include "core/metrics/kernelmetrics.h"
#include "core/model/sessiondata.h"

#include <optional>
#include <string>
#include <vector>

namespace ws::compare {

// One kernel name at one NVTX path: the unit kernels are matched in. `path` is the stack of
// NVTX ranges open on the launching thread when the kernel was launched, outermost first,
// joined by " / " (empty when the launch is not inside a range or the session has no API
// calls to tie the kernel to its thread).
struct KernelKey {
    std::string path;
    std::string name; // demangled
    bool operator==(const KernelKey&) const = default;
    bool operator<(const KernelKey& o) const { return std::tie(path, name) < std::tie(o.path, o.name); }
    std::string display() const { return path.empty() ? name : path + " / " + name; }
};

// One launch as the comparison needs it.
struct CompareLaunch {
    int64_t id = 0; // kernel.id
    TimeNs start = 0;
    TimeNs end = 0;
    TimeNs launchTime = 0; // start of the launching API call (= start when unknown)
    uint32_t key = 0;      // index into CompareSession::keys
    uint32_t streamId = 0;
    uint32_t deviceId = 0;
    int64_t pid = 0;
    uint32_t firstRange = 0; // [firstRange, firstRange + rangeCount) of rangePath
    uint32_t rangeCount = 0;
    TimeNs duration() const { return end - start; }
};

// A session loaded for comparison: launches keyed by (path, name) in start order, the NVTX
// ranges, the per-launch metrics, the benchmark runs and the stored hypotheses.
struct CompareSession {
    std::string path;
    std::string label; // file name without directory
    SessionData data;  // everything read from the file (launches refer to its ranges and strings)
    std::vector<KernelKey> keys;
    std::vector<CompareLaunch> launches;           // sorted by start
    std::vector<uint32_t> rangePath;               // indices into data.nvtxRanges, outermost first per launch
    std::vector<std::vector<double>> keyDurations; // per key, the launches' durations in launch order
    SessionMetrics metrics;
    std::optional<bench::BenchResult> bench; // when the session holds bench_run rows

    // Durations (ns) of every launch of one key, in launch order.
    const std::vector<double>& durations(uint32_t key) const { return keyDurations.at(key); }
    // Rebuilds keyDurations after the keys changed.
    void indexDurations();
    // Launch indices of one key, in order.
    std::vector<size_t> launchesOf(uint32_t key) const;
    // Index of a key; -1 when absent.
    int keyIndex(const KernelKey& key) const;
    // Name of an NVTX range as the path shows it.
    std::string rangeName(const NvtxRangeRecord& r) const;
};

// Re-keys a session by kernel name alone (paths dropped), for comparisons with a session that
// has no NVTX paths at all (profile sessions, imports without API calls).
void dropPaths(CompareSession& s);
bool hasPaths(const CompareSession& s);
// Makes two sessions comparable: when exactly one of them has NVTX paths, both are keyed by name
// alone. Returns a note saying so, or an empty string when nothing changed.
std::string alignKeys(CompareSession& a, CompareSession& b);

// A multi-run session compares by its trace (and import) runs: a profile run's replayed
// launches have no real timing (one launch at a time, caches reset), so their rows are dropped,
// as the panels and reports drop them (SessionFileSource::Runs::Timing). Their metrics stay: a
// profiled launch's metrics show on the traced launch it links to. A session whose runs are all
// timing runs (or none) is returned as it is.
SessionData timingRuns(SessionData data);

// Reads a session file (strictly read-only), keeps its timing runs and indexes it. Throws SessionError naming the
// file, or bench::BenchFormatError for malformed bench rows.
CompareSession loadCompareSession(const std::string& path);
// The same from tables already in memory (tests, importers); `path` names it in messages.
CompareSession indexCompareSession(SessionData data, const std::string& path);

} // namespace ws::compare
