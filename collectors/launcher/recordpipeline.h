// SPDX-License-Identifier: MIT
#pragma once

#include "launcher/targetprocess.h"

#include <functional>
#include <string>
#include <vector>

namespace ws {

struct RecordOptions {
    std::string output;               // session file to write
    std::string append;               // or: session to append the run to (exclusive with output)
    std::vector<std::string> command; // program and its arguments
    std::vector<std::string> trace {"cuda", "nvtx"};
    std::string captureRange; // "", "cudaProfilerApi" or "nvtx:NAME"
    double durationS = 0;     // stop collecting after this many seconds (0: until exit)
    bool allApi = false;      // keep every runtime/driver API call, not only the timeline's
    bool keepRaw = false;     // keep the raw record directory after ingest
    bool gpuMetrics = false;  // PM sampling counter tracks (tensor pipe, DRAM, warps active)
    // PM sampling period. 200 us: on the H200 shorter periods lose samples, CUPTI decoding cannot
    // keep up (docs/recorder.md, GPU metrics); they stay available, their gaps reported.
    double gpuMetricsPeriodUs = 200;
    std::vector<std::string> nvtxTiming; // NVTX ranges whose GPU-stream time is measured per instance
};

struct RecordResult {
    ExitStatus target;
    std::string sessionPath;
    uint32_t runId = 1;     // the run's id in the session (> 1 after --append)
    size_t sessionRuns = 1; // runs in the session now
    bool hostOnly = false;  // no usable CUDA driver/GPU: only the host side was recorded
    std::vector<std::string> warnings;
    size_t kernels = 0;
    size_t apiCalls = 0;
    size_t nvtxRanges = 0;
    size_t counterSamples = 0; // --gpu-metrics samples (all tracks)
    // --gpu-metrics: coverage of the kernel span, gaps, stop latency (describeGpuMetrics).
    std::vector<std::string> gpuMetricsSummary;
    bool gpuMetricsGaps = false;
    size_t nvtxTimingRuns = 0; // --nvtx-timing: timed range names with at least one instance
    size_t nvtxTimedInstances = 0;
    size_t processes = 0;
    uint64_t droppedRecords = 0;
    double postRunSeconds = 0;   // from the program's exit to the session written
    size_t rowsWrittenEarly = 0; // event rows stored while the program ran (LiveSessionWriter)
};

// One `warpscope-cli record`: validates the options, starts the program with the injection
// library through a TargetLauncher, waits for it (and so for every child that inherited the
// environment to write its raw file), ingests the raw files and writes the session. Throws std::runtime_error with a
// one-line reason when recording is impossible or failed (the program's own failure is not a
// recording failure: it is reported in the result and stored in the session). `note` receives
// progress lines for stderr.
class RecordPipeline {
public:
    explicit RecordPipeline(RecordOptions options);
    // With options.append set and the collection failing, a run row "failed: <reason>" is
    // appended to that session before the error is thrown.
    RecordResult run(const std::function<void(const std::string&)>& note = {});

private:
    RecordResult collect(const std::function<void(const std::string&)>& note);

    RecordOptions m_options;
};

// The `warpscope-cli record` arguments that give `options` back when parsed (the subcommand and
// every option that differs from its default; not -o/--append, not the program): what the run
// row stores as collector_arguments, so a recipe repeats the run exactly.
std::vector<std::string> recordArguments(const RecordOptions& options);

// Validates a --trace list and a --capture-range value; throws std::invalid_argument.
void validateTraceList(const std::vector<std::string>& trace);
void validateCaptureRange(const std::string& range);
// Validates --gpu-metrics-period (1 us .. 100 ms) and the --nvtx-timing names (non-empty, no
// newline, no duplicates); throws std::invalid_argument with a one-line reason.
void validateGpuMetricsPeriod(double periodUs);
void validateNvtxTimingNames(const std::vector<std::string>& names);

} // namespace ws
