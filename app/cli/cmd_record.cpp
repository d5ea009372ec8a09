// SPDX-License-Identifier: MIT
// warpscope-cli record -o FILE [options] -- program [args...]: runs a CUDA program under the
// injection library and writes its session. The program's stdout/stderr pass through; our own
// lines go to stderr prefixed "warpscope-cli record:". Exit status: 0 when the session was
// written (whatever the program's own exit status, which is printed and stored), non-zero
// when recording failed.
#include "command.h"

#include "launcher/recordpipeline.h"

#include <cstdio>
#include <memory>
#include <string>

namespace {

struct RecordArgs {
    ws::RecordOptions options;
    std::vector<std::string> trace;
    std::vector<std::string> command;
};

void note(const std::string& line)
{
    std::fprintf(stderr, "warpscope-cli record: %s\n", line.c_str());
}

int runRecord(RecordArgs& args, const std::vector<std::string>& remaining)
{
    auto& o = args.options;
    if (!args.trace.empty())
        o.trace = args.trace;
    o.command = remaining;
    ws::RecordPipeline recording(o);
    const ws::RecordResult r = recording.run(&note);
    for (const auto& w : r.warnings)
        note("warning: " + w);
    note(o.command.front() + " " + r.target.describe());
    const std::string wrote = o.append.empty() ? "wrote " + r.sessionPath
                                               : "appended run " + std::to_string(r.runId) + " to " + r.sessionPath
            + " (" + std::to_string(r.sessionRuns) + " runs)";
    char summary[512];
    std::snprintf(summary, sizeof summary,
        "%s: %zu kernels, %zu API calls, %zu NVTX ranges, %zu process(es), %llu dropped records%s", wrote.c_str(),
        r.kernels, r.apiCalls, r.nvtxRanges, r.processes, static_cast<unsigned long long>(r.droppedRecords),
        r.hostOnly ? " (host side only)" : "");
    note(summary);
    if (o.gpuMetrics) {
        char period[32];
        std::snprintf(period, sizeof period, "%g", o.gpuMetricsPeriodUs);
        note("GPU metrics: " + std::to_string(r.counterSamples) + " counter samples (3 tracks, every " + period
            + " us)");
        for (const auto& line : r.gpuMetricsSummary)
            note(std::string(r.gpuMetricsGaps ? "warning: " : "") + "GPU metrics: " + line);
    }
    if (!o.nvtxTiming.empty())
        note("NVTX timing: " + std::to_string(r.nvtxTimedInstances) + " timed instance(s) in "
            + std::to_string(r.nvtxTimingRuns) + " range(s); see warpscope-cli stats " + r.sessionPath
            + " --report nvtx_timing_sum");
    return 0;
}

ws::cli::CommandRegistrar registrar(
    {"10-record", [](CLI::App& app, int& exitCode) {
         auto* cmd = app.add_subcommand("record",
             "Run a CUDA program and record its GPU activity, API calls and NVTX ranges into a session "
             "(child processes too): warpscope-cli record -o run.wscope -- ./prog args");
         auto args = std::make_shared<RecordArgs>();
         cmd->add_option("-o,--output", args->options.output, "Session file to write (.wscope)");
         cmd->add_option("--append", args->options.append,
             "Append the run to this existing session instead of writing a new one (replaced only once the run "
             "is complete; a failed run is recorded as failed and the earlier runs kept)");
         cmd->add_option("--capture-range", args->options.captureRange,
             "Record only inside a range: cudaProfilerApi (cudaProfilerStart..Stop) or nvtx:NAME "
             "(the first NVTX range of that name)");
         cmd->add_option(
                "--duration", args->options.durationS, "Stop collecting after S seconds; the program keeps running")
             ->check(CLI::NonNegativeNumber);
         cmd->add_option("--trace", args->trace, "What to record, comma-separated: cuda,nvtx (default both)")
             ->delimiter(',');
         cmd->add_flag("--all-api", args->options.allApi,
             "Record every CUDA runtime and driver API call (default: only launches, copies, memsets, "
             "allocations, synchronisation and graph launches)");
         cmd->add_flag("--keep-raw", args->options.keepRaw, "Keep the raw record files next to the session");
         cmd->add_flag("--gpu-metrics", args->options.gpuMetrics,
             "Sample GPU metrics (tensor pipe, DRAM throughput, warps active) with CUPTI PM sampling as counter "
             "tracks under the GPU; needs permission to read GPU performance counters");
         cmd->add_option("--gpu-metrics-period", args->options.gpuMetricsPeriodUs,
                "PM sampling period in microseconds (default 200, 1 .. 100000; shorter periods can lose samples: "
                "`record` and `info` report the gaps)")
             ->check([](const std::string& v) {
                 try {
                     ws::validateGpuMetricsPeriod(std::stod(v));
                 } catch (const std::invalid_argument& e) {
                     // CLI11 names the option itself: keep only the reason.
                     const std::string why = e.what();
                     const auto colon = why.find(": ");
                     return why.rfind("--gpu-metrics-period", 0) == 0 && colon != std::string::npos
                         ? why.substr(colon + 2)
                         : "not a number: " + v;
                 } catch (const std::out_of_range&) {
                     return "not a number: " + v;
                 }
                 return std::string();
             });
         cmd->add_option("--nvtx-timing", args->options.nvtxTiming,
                "Measure the GPU-stream time of every instance of the NVTX range NAME (repeatable) with CUDA events "
                "the recorder places on the legacy default stream at push and pop")
             ->expected(1)
             ->take_all();
         // Everything from the program name on belongs to the program, its options included,
         // with or without "--" before it (positionals_at_end + prefix_command; CLI11 then
         // leaves the "--" itself in remaining()).
         cmd->add_option("program", args->command, "The program to record and its arguments")->expected(-1);
         cmd->positionals_at_end();
         cmd->prefix_command();
         cmd->callback([cmd, args, &exitCode] {
             std::vector<std::string> all = args->command;
             for (const auto& r : cmd->remaining())
                 if (r != "--")
                     all.push_back(r);
             exitCode = runRecord(*args, all);
         });
     }});

} // namespace
