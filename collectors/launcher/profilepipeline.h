// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileconfig.h"
#include "core/metrics/sectioncatalog.h"
#include "launcher/targetprocess.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ws {

struct ProfileOptions {
    std::string output;      // session file to write
    std::string append;      // or: session to append the run to (exclusive with output)
    std::string sectionsDir; // *.section files; empty: the installed ones
    std::string kernelName;  // ncu's --kernel-name: NAME or regex:R
    int64_t launchSkip = 0;
    int64_t launchCount = -1;
    std::string captureRange; // "cudaProfilerApi": only launches between cudaProfilerStart and Stop
    std::vector<std::string> sections;
    std::string set;
    std::string metrics; // extra metric names, comma-separated
    std::string fromRaw; // result directory kept with --keep-raw: ingest it instead of running
    bool keepRaw = false;
    bool verbose = false;
    std::string cacheControl = "all"; // all | none
    bool pcSampling = false;
    int pcSamplingInterval = 0;
    bool pcSamplingNoStartStop = false;
    std::vector<std::string> sourceFolders;
    std::vector<std::string> command; // program and its arguments
};

struct ProfileRunResult {
    std::string sessionPath;
    uint32_t runId = 1;       // the run's id in the session (> 1 after --append)
    size_t sessionRuns = 1;   // runs in the session now
    size_t links = 0;         // profiled launches linked to traced ones (after --append)
    ExitStatus target;        // not set for --from-raw
    double targetSeconds = 0; // wall time of the profiled program
    size_t kernels = 0;
    size_t metricDefs = 0;
    bool sourceCounters = false;
    std::string passes; // "3 pass(es) per kernel, cache control all, user replay (...)" or "PC sampling, no replay"
    std::vector<std::string> warnings; // errors the profiler reported beside the kernels it profiled
    // Set when the program crashed inside the profiler (its crash report named what it was
    // doing): the session holds only the launches before; warpscope-cli exits non-zero.
    std::string profilerCrash;
};

// One `warpscope-cli profile`: resolves what the options select from the section catalog,
// starts the program with libwarpscope-profiler.so through a TargetLauncher (or reads result
// files kept earlier), ingests the per-process results and writes the session. Throws
// std::runtime_error with a one-line reason when profiling is impossible or collected nothing;
// `note` receives progress and warning lines for stderr.
class ProfilePipeline {
public:
    // Throws std::runtime_error (conflicting options) or std::invalid_argument (unknown section
    // or set) when the options select nothing sensible.
    ProfilePipeline(ProfileOptions options, SectionCatalog catalog);

    // What the run collects (for --list-metrics). With SourceCounters the counter list is empty:
    // PC sampling runs without the range profiler.
    const MetricRequest& request() const { return m_request; }
    bool sourceCounters() const { return m_sourceCounters; }

    // With options.append set and the collection failing, a run row "failed: <reason>" is
    // appended to that session before the error is thrown.
    ProfileRunResult run(const std::function<void(const std::string&)>& note = {});

private:
    ProfileRunResult collect(const std::function<void(const std::string&)>& note);

    ProfileOptions m_options;
    SectionCatalog m_catalog;
    MetricRequest m_request;
    bool m_sourceCounters = false;
};

// The `warpscope-cli profile` arguments that give `options` back when parsed (the subcommand and
// every option that differs from its default; not -o/--append/--from-raw, not the program):
// what the run row stores as collector_arguments, so a recipe repeats the run exactly.
std::vector<std::string> profileArguments(const ProfileOptions& options);

} // namespace ws
