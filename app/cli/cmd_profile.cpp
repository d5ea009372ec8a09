// SPDX-License-Identifier: MIT
// warpscope-cli profile: per-kernel metrics (Nsight Compute sections) through the CUPTI range
// profiler, in a run of its own: the program is started with libwarpscope-profiler.so as its
// CUDA injection library, which replays every selected kernel once per counter pass and writes
// one result file per process; those become kernel, metric_def and kernel_metric rows. This file
// parses the options; collectors/launcher/profilepipeline does the run. Exit status: 0 when the
// session was written (whatever the program's own exit status, which is printed and stored), 3
// when it was written but the program crashed inside the profiler (the profiler's crash report
// says while doing what; the session holds the launches profiled before), non-zero otherwise.
#include "command.h"

#include "core/metrics/knowndifferences.h"
#include "core/metrics/metricsreport.h"
#include "core/metrics/sectioncatalog.h"
#include "core/store/sessionreader.h"
#include "launcher/profilepipeline.h"
#include "launcher/targetlauncher.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

struct ProfileArgs {
    ws::ProfileOptions options;
    bool listMetrics = false;
    bool listSections = false;
    std::string clockControl = "none";   // ncu's option; only none is accepted
    std::string profileFromStart = "on"; // ncu's option; off = --capture-range cudaProfilerApi
    bool print = false;                  // --print: the values on standard output after the run
};

void note(const std::string& line)
{
    std::fprintf(stderr, "warpscope-cli profile: %s\n", line.c_str());
}

// --print: this run's values section by section on standard output, as `warpscope-cli metrics`
// prints them (and ncu prints its details page after profiling).
void printValues(const ws::ProfileRunResult& r)
{
    std::string why;
    const std::optional<ws::KnownDifferences> differences
        = ws::KnownDifferences::readBeside(ws::SectionCatalog::defaultDirectory(ws::executablePath()), why);
    if (!differences)
        note(why + "; values are printed without known differences");
    ws::MetricsReport::Selection selection;
    selection.runId = r.runId;
    const ws::MetricsReport report
        = ws::MetricsReport::read(ws::SessionReader(r.sessionPath), selection, differences ? &*differences : nullptr);
    std::fflush(stderr);
    std::ostringstream out;
    report.writeDetails(out);
    std::fputs(out.str().c_str(), stdout);
    std::fflush(stdout);
}

int runProfile(const ProfileArgs& a)
{
    const std::string sectionsDir = a.options.sectionsDir.empty()
        ? ws::SectionCatalog::defaultDirectory(ws::executablePath())
        : a.options.sectionsDir;
    auto catalog = ws::SectionCatalog::loadDirectory(sectionsDir);

    if (a.listSections) {
        for (const auto& s : catalog.sections()) {
            std::string sets;
            for (const auto& x : s.sets)
                sets += (sets.empty() ? "" : ",") + x;
            std::printf("%-26s %-40s sets: %s\n", s.id.c_str(), s.title.c_str(), sets.c_str());
        }
        return 0;
    }

    ws::ProfileOptions options = a.options;
    if (a.profileFromStart == "off")
        options.captureRange = "cudaProfilerApi";
    ws::ProfilePipeline pipeline(options, std::move(catalog));
    const ws::MetricRequest& request = pipeline.request();
    if (a.listMetrics) {
        if (pipeline.sourceCounters())
            std::printf("PC sampling: stall-reason samples per SASS instruction (SourceCounters)\n");
        for (const auto& c : request.counters)
            std::printf("%s%s\t%s\n", c.breakdown ? "breakdown:" : "", c.name.c_str(), c.arch.toString().c_str());
        for (const auto& l : request.launchMetrics)
            std::printf("%s\tcomputed from the launch configuration\n", l.name.c_str());
        for (const auto& d : request.derivedMetrics)
            std::printf("%s\t= %s\n", d.name.c_str(), d.expression.text().c_str());
        return 0;
    }

    const ws::ProfileRunResult r = pipeline.run(&note);
    const std::string wrote = a.options.append.empty()
        ? "wrote " + r.sessionPath
        : "appended run " + std::to_string(r.runId) + " to " + r.sessionPath + " (" + std::to_string(r.sessionRuns)
            + " runs, " + std::to_string(r.links) + " profiled launch(es) linked to traced ones)";
    if (!a.options.fromRaw.empty()) {
        std::fprintf(stderr, "warpscope-cli profile: %zu kernel launch(es), %zu metric(s), %s, from %s; %s\n",
            r.kernels, r.metricDefs, r.passes.c_str(), a.options.fromRaw.c_str(), wrote.c_str());
        if (a.print)
            printValues(r);
        return 0;
    }
    std::fprintf(stderr, "warpscope-cli profile: %zu kernel launch(es), %zu metric(s), %s, %.2f s; %s\n", r.kernels,
        r.metricDefs, r.passes.c_str(), r.targetSeconds, wrote.c_str());

    if (r.sourceCounters)
        note("start times are host launch times; a PC sampling run measures no kernel duration");
    else
        note("kernel durations are gpu__time_duration.sum under replay; start times are host launch times (no "
             "activity trace in a profile run)");
    for (const auto& w : r.warnings)
        note("warning: " + w);
    if (a.print)
        printValues(r);
    // The session was written, but the profile is incomplete by our fault: say so in the status.
    return r.profilerCrash.empty() ? 0 : 3;
}

const ws::cli::CommandRegistrar registrar(
    {"15-profile", [](CLI::App& app, int& exitCode) {
         auto args = std::make_shared<ProfileArgs>();
         auto* cmd = app.add_subcommand("profile",
             "Collect per-kernel metrics (Nsight Compute sections) with the CUPTI range profiler and kernel "
             "replay, in a run separate from tracing");
         cmd->add_option("-o,--output", args->options.output, "Session file to write (.wscope)");
         cmd->add_option("--append", args->options.append,
             "Append the run to this existing session instead of writing a new one (replaced only once the run "
             "is complete; a failed run is recorded as failed and the earlier runs kept)");
         // -k, -s and -c as in ncu, so an ncu command line works here as it stands.
         cmd->add_option("-k,--kernel-name", args->options.kernelName,
             "Profile only kernels whose function name is NAME, or matches regex:R (searched in the base, demangled "
             "and mangled names)");
         cmd->add_option(
                "-s,--launch-skip", args->options.launchSkip, "Matching launches to skip before profiling (default 0)")
             ->check(CLI::NonNegativeNumber);
         cmd->add_option("-c,--launch-count", args->options.launchCount, "Matching launches to profile (default: all)")
             ->check(CLI::PositiveNumber);
         cmd->add_option("--section", args->options.sections, "Section to collect (repeatable; see --list-sections)");
         cmd->add_option("--set", args->options.set, "Section set: basic (default), detailed, full or roofline");
         cmd->add_option("--metrics", args->options.metrics,
             "Extra metrics, comma-separated (ncu names; breakdown:<name> allowed)");
         cmd->add_option(
             "--sections-dir", args->options.sectionsDir, "Directory of *.section files (default: the installed ones)");
         cmd->add_flag("--list-sections", args->listSections, "List the sections and sets, then exit");
         cmd->add_flag("--list-metrics", args->listMetrics, "List the metrics the options select, then exit");
         cmd->add_flag("--keep-raw", args->options.keepRaw, "Keep the per-process result files next to the session");
         cmd->add_option("--from-raw", args->options.fromRaw,
             "Write the session from result files kept with --keep-raw instead of running a program (same "
             "--set/--section/--metrics as the run)");
         cmd->add_flag("-v,--verbose", args->options.verbose, "Print every profiled launch");
         cmd->add_flag("--print", args->print,
             "After the run, print its values section by section on standard output, as warpscope-cli metrics "
             "does (and ncu after profiling)");
         cmd->add_option("--cache-control", args->options.cacheControl,
                "Cache state at the start of every replay pass, as in ncu: all (default; memory restored "
                "from a checkpoint and L2 evicted before each pass) or none (after every run only the memory "
                "it changed in the launch's buffers is restored; each pass starts with L2 as the previous run "
                "left it, as ncu --cache-control none)")
             ->check(CLI::IsMember({"all", "none"}));
         cmd->add_option("--capture-range", args->options.captureRange,
                "Profile only launches between the program's cudaProfilerStart and cudaProfilerStop "
                "(cudaProfilerApi, as record's option); --launch-skip and --launch-count count those only")
             ->check(CLI::IsMember({"cudaProfilerApi"}));
         cmd->add_option("--profile-from-start", args->profileFromStart,
                "ncu's form of the same: off profiles only between cudaProfilerStart and cudaProfilerStop, on "
                "(default) from the start")
             ->check(CLI::IsMember({"on", "off"}));
         // ncu locks the clocks to base by default; we never lock them, so only ncu's `none` is
         // ours, and a command line asking for another says so instead of being ignored.
         cmd->add_option("--clock-control", args->clockControl,
                "GPU clocks during profiling, as in ncu: none, the only one (clocks are never locked; compare "
                "with ncu --clock-control none)")
             ->check(CLI::Validator(
                 [](const std::string& value) {
                     return value == "none" ? std::string()
                                            : "--clock-control " + value
                             + ": warpscope never locks the GPU clocks; only none (ncu --clock-control none) is "
                               "available";
                 },
                 "none"));
         cmd->add_flag("--pc-sampling", args->options.pcSampling,
             "Sample warp stall reasons per SASS instruction with CUPTI PC sampling (the SourceCounters section); "
             "the cubins are disassembled here so the session shows SASS and CUDA source lines");
         cmd->add_option("--pc-sampling-interval", args->options.pcSamplingInterval,
                "PC sampling interval: 2^N cycles between samples per SM, N in 5..31 (default 7)")
             ->check(CLI::Range(5, 31));
         cmd->add_flag("--pc-sampling-no-start-stop", args->options.pcSamplingNoStartStop,
             "Sample without start/stop control and tell launches apart by correlation id (fallback for drivers "
             "that refuse start/stop)");
         cmd->add_option("--source-folders", args->options.sourceFolders,
             "Directory to search for CUDA source files the line table names but that are not at their "
             "recorded path (repeatable)");
         // As in `record`: everything from the program name on belongs to the program, its own
         // options included ("-- prog --iters 2" must not be parsed as ours).
         cmd->add_option("command", args->options.command, "Program and its arguments (after --)")->expected(-1);
         cmd->positionals_at_end();
         cmd->prefix_command();
         cmd->callback([cmd, args, &exitCode] {
             for (const auto& r : cmd->remaining())
                 if (r != "--")
                     args->options.command.push_back(r);
             exitCode = runProfile(*args);
         });
     }});

} // namespace
