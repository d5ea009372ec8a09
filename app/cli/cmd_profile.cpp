// SPDX-License-Identifier: MIT
// warpscope-cli profile: per-kernel metrics (Nsight Compute sections) through the CUPTI range
// profiler, in a run of its own: the program is started with libwarpscope-profiler.so as its
// CUDA injection library, which replays every selected kernel once per counter pass and writes
// one result file per process; those become kernel, metric_def and kernel_metric rows.
#include "command.h"
#include "cubindisassembler.h"

#include "core/metrics/profileconfig.h"
#include "core/metrics/profileingest.h"
#include "core/metrics/profileresult.h"
#include "core/metrics/sectioncatalog.h"
#include "core/source/pcsamplingresult.h"
#include "core/source/sourceingest.h"
#include "core/store/sessionwriter.h"
#include "core/timeline/lanebuilder.h"
#include "launcher/targetprocess.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct ProfileArgs {
    std::string output;
    std::string kernelName;
    int64_t launchSkip = 0;
    int64_t launchCount = -1;
    std::vector<std::string> sections;
    std::string set;
    std::string metrics;
    std::string sectionsDir;
    std::string fromRaw;
    bool listMetrics = false;
    bool listSections = false;
    bool keepRaw = false;
    bool verbose = false;
    std::string cacheControl = "all";
    bool pcSampling = false;
    int pcSamplingInterval = 0;
    bool pcSamplingNoStartStop = false;
    std::vector<std::string> sourceFolders;
    std::vector<std::string> command;
};

constexpr const char* kSourceCountersSection = "SourceCounters";

std::string executablePath()
{
    std::error_code ec;
    const auto p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : p.string();
}

// $WS_PROFILER_LIB, else ../lib beside the executable (build and install trees), else beside it.
std::string findProfilerLibrary(std::string& searched)
{
    constexpr const char* kName = "libwarpscope-profiler.so";
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("WS_PROFILER_LIB"); env && *env)
        candidates.emplace_back(env);
    const fs::path exe = executablePath();
    if (!exe.empty()) {
        candidates.push_back(exe.parent_path().parent_path() / "lib" / kName);
        candidates.push_back(exe.parent_path() / kName);
    }
    std::error_code ec;
    for (const auto& c : candidates) {
        searched += (searched.empty() ? "" : ", ") + c.string();
        if (fs::is_regular_file(c, ec))
            return fs::absolute(c, ec).lexically_normal().string();
    }
    return {};
}

std::vector<std::string> splitList(const std::string& s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) {
        item.erase(0, item.find_first_not_of(" \t"));
        item.erase(item.find_last_not_of(" \t") + 1);
        if (!item.empty())
            out.push_back(item);
    }
    return out;
}

// ncu's --kernel-name: "regex:<R>" searches R in the function name, anything else must equal
// the function's base name.
std::string kernelRegex(const std::string& spec)
{
    if (spec.empty())
        return {};
    if (spec.rfind("regex:", 0) == 0)
        return spec.substr(6);
    std::string escaped = "^";
    for (char c : spec) {
        if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos)
            escaped += '\\';
        escaped += c;
    }
    return escaped + "$";
}

std::string joinCommand(const std::vector<std::string>& argv)
{
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty())
            out += ' ';
        const bool quote = a.empty() || a.find_first_of(" \t\"'\\$") != std::string::npos;
        out += quote ? "'" + a + "'" : a;
    }
    return out;
}

std::vector<ws::ProfileResult> readResults(const fs::path& dir)
{
    std::vector<ws::ProfileResult> results;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto name = e.path().filename().string();
        if (name.rfind("profile-", 0) == 0 && e.path().extension() == ".txt")
            results.push_back(ws::ProfileResultReader::read(e.path().string()));
    }
    if (ec)
        throw std::runtime_error(dir.string() + ": " + ec.message());
    std::sort(results.begin(), results.end(), [](const auto& x, const auto& y) { return x.pid < y.pid; });
    return results;
}

std::vector<ws::PcSamplingResult> readSamplingResults(const fs::path& dir)
{
    std::vector<ws::PcSamplingResult> results;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto name = e.path().filename().string();
        if (name.rfind("pcsamp-", 0) == 0 && e.path().extension() == ".txt")
            results.push_back(ws::PcSamplingResultReader::read(e.path().string()));
    }
    if (ec)
        throw std::runtime_error(dir.string() + ": " + ec.message());
    std::sort(results.begin(), results.end(), [](const auto& x, const auto& y) { return x.pid < y.pid; });
    return results;
}

// A source file named by the line table: the path itself (the usual case on the machine that
// built the program), else its trailing components under each --source-folders directory.
std::optional<std::string> readSourceFile(const std::string& path, const std::vector<std::string>& folders)
{
    auto load = [](const fs::path& p) -> std::optional<std::string> {
        std::error_code ec;
        if (!fs::is_regular_file(p, ec))
            return std::nullopt;
        std::ifstream in(p, std::ios::binary);
        if (!in)
            return std::nullopt;
        std::stringstream buf;
        buf << in.rdbuf();
        return buf.str();
    };
    if (auto text = load(path))
        return text;
    std::vector<fs::path> parts;
    for (const auto& part : fs::path(path).relative_path())
        parts.push_back(part);
    for (const auto& folder : folders) {
        for (size_t first = 0; first < parts.size(); ++first) {
            fs::path candidate = folder;
            for (size_t i = first; i < parts.size(); ++i)
                candidate /= parts[i];
            if (auto text = load(candidate))
                return text;
        }
    }
    return std::nullopt;
}

// Adds SASS, line table, samples and source text from the PC sampling results in `dir`: the
// cubins are disassembled here, on the recording machine, so the viewer needs no toolkit.
void addSourceCounters(
    ws::SessionData& data, const fs::path& dir, const std::vector<ws::ProfileResult>& results, const ProfileArgs& a)
{
    const auto samples = readSamplingResults(dir);
    std::set<uint64_t> sampledCubins;
    for (const auto& r : samples) {
        for (const auto& s : r.samples)
            sampledCubins.insert(s.cubinCrc);
        for (const auto& e : r.errors)
            std::fprintf(stderr, "warpscope-cli profile: PC sampling (process %lld): %s\n",
                static_cast<long long>(r.pid), e.c_str());
    }
    // A sampled CRC that no captured cubin has (CUPTI answered 0 for the module): all of them.
    bool all = false;
    for (uint64_t crc : sampledCubins) {
        all = all || std::none_of(samples.begin(), samples.end(), [&](const auto& r) { return r.cubin(crc); });
    }
    std::map<uint64_t, ws::CubinDisassembly> disassemblies;
    std::string warned;
    for (const auto& r : samples) {
        for (const auto& c : r.cubins) {
            if ((!all && !sampledCubins.count(c.crc)) || disassemblies.count(c.crc) || c.file.empty())
                continue;
            const auto d = ws::cli::CubinDisassembler::disassemble((dir / c.file).string());
            if (!d.ok) {
                if (warned != d.error)
                    std::fprintf(stderr, "warpscope-cli profile: warning: %s\n", d.error.c_str());
                warned = d.error;
                continue;
            }
            disassemblies[c.crc] = {d.tool, ws::SassDisassembly::parse(d.text)};
        }
    }
    data.meta["profile_replay_mode"] = "none: PC sampling, one run per kernel launch (kernel-serialized)";
    data.meta["kernel_time_source"] = "PC sampling run without activity tracing: start = host CLOCK_MONOTONIC at "
                                      "the launch call, no duration";
    const auto sum = ws::SourceIngest::add(data, results, samples, disassemblies,
        [&](const std::string& path) { return readSourceFile(path, a.sourceFolders); });
    std::fprintf(stderr,
        "warpscope-cli profile: source counters: %llu samples (%llu dropped) in %zu function(s), %zu SASS "
        "instruction(s) from %zu disassembled cubin(s), %zu source file(s)%s\n",
        static_cast<unsigned long long>(sum.samples), static_cast<unsigned long long>(sum.droppedSamples),
        sum.functions, sum.instructions, disassemblies.size(), sum.sourceFiles,
        sum.missingSourceFiles
            ? (" (" + std::to_string(sum.missingSourceFiles) + " not found: use --source-folders)").c_str()
            : "");
    if (sum.unmatchedSamples)
        std::fprintf(stderr, "warpscope-cli profile: warning: %zu PC record(s) belong to no profiled launch\n",
            sum.unmatchedSamples);
}

// Builds the session from the result files and writes it atomically; returns it for the summary.
ws::SessionData writeSession(const fs::path& output, const ws::SectionCatalog& catalog,
    const ws::MetricRequest& request, const std::vector<ws::ProfileResult>& results,
    const ws::ProfileIngest::ProcessExit& root, const ProfileArgs& a, const fs::path& resultDir, bool sourceCounters)
{
    ws::ProfileIngest ingest(catalog, request);
    ws::SessionData data = ingest.build(results, root);
    if (sourceCounters)
        addSourceCounters(data, resultDir, results, a);
    data.environment["command_line"] = root.commandLine;
    data.environment["tool"] = std::string("warpscope-cli ") + WS_VERSION + " profile";
    data.environment["profile.kernel_filter"] = a.kernelName;
    data.environment["profile.launch_skip"] = std::to_string(a.launchSkip);
    data.environment["profile.launch_count"] = std::to_string(a.launchCount);
    ws::SessionWriter writer(output.string());
    ws::attachLaneCache(writer);
    writer.write(data);
    writer.commit();
    return data;
}

int runProfile(const ProfileArgs& a)
{
    const std::string sectionsDir
        = a.sectionsDir.empty() ? ws::SectionCatalog::defaultDirectory(executablePath()) : a.sectionsDir;
    const auto catalog = ws::SectionCatalog::loadDirectory(sectionsDir);

    if (a.listSections) {
        for (const auto& s : catalog.sections()) {
            std::string sets;
            for (const auto& x : s.sets)
                sets += (sets.empty() ? "" : ",") + x;
            std::printf("%-26s %-40s sets: %s\n", s.id.c_str(), s.title.c_str(), sets.c_str());
        }
        return 0;
    }

    std::vector<std::string> sets;
    if (!a.set.empty())
        sets.push_back(a.set);
    const auto extra = splitList(a.metrics);
    std::vector<std::string> sections = a.sections;
    // --pc-sampling alone means the SourceCounters section alone.
    if (a.pcSampling && sections.empty() && sets.empty() && extra.empty())
        sections.emplace_back(kSourceCountersSection);
    const bool sourceCounters
        = a.pcSampling || std::find(sections.begin(), sections.end(), kSourceCountersSection) != sections.end();
    if (!sourceCounters && (a.pcSamplingInterval != 0 || a.pcSamplingNoStartStop || !a.sourceFolders.empty()))
        throw std::runtime_error("--pc-sampling-interval, --pc-sampling-no-start-stop and --source-folders apply "
                                 "only to --section SourceCounters (or --pc-sampling)");
    // ncu's default: the basic set, unless sections or metrics were named.
    if (sets.empty() && sections.empty() && extra.empty())
        sets.emplace_back("basic");
    const auto selected = catalog.select(sections, sets);
    auto request = catalog.request(selected, extra);
    if (sourceCounters) {
        // PC sampling collects the SourceCounters metrics; the range profiler cannot run beside
        // it (both program the same hardware), so nothing else may be asked of this run.
        std::vector<std::string> others;
        for (const auto& c : request.counters) {
            const auto p = catalog.placement(c.name);
            if (c.breakdown || !p || p->section->id != kSourceCountersSection)
                others.push_back(c.name);
        }
        if (!others.empty())
            throw std::runtime_error("SourceCounters (PC sampling) runs without the range profiler: profile the "
                                     "other metrics in a separate run ("
                + std::to_string(others.size()) + " requested, e.g. " + others.front() + ")");
        request.counters.clear();
    } else if (std::none_of(request.counters.begin(), request.counters.end(),
                   [](const auto& c) { return !c.breakdown && c.name == "gpu__time_duration.sum"; })) {
        // Kernel rows take their duration from it: there is no activity trace in a profile run.
        request.counters.push_back({"gpu__time_duration.sum", {}, false});
    }

    if (a.listMetrics) {
        if (sourceCounters)
            std::printf("PC sampling: stall-reason samples per SASS instruction (SourceCounters)\n");
        for (const auto& c : request.counters)
            std::printf("%s%s\t%s\n", c.breakdown ? "breakdown:" : "", c.name.c_str(), c.arch.toString().c_str());
        for (const auto& l : request.launchMetrics)
            std::printf("%s\tcomputed from the launch configuration\n", l.name.c_str());
        for (const auto& d : request.derivedMetrics)
            std::printf("%s\t= %s\n", d.name.c_str(), d.expression.text().c_str());
        return 0;
    }

    if (a.output.empty())
        throw std::runtime_error("no output file: use -o FILE");
    if (!a.fromRaw.empty()) {
        // Result files kept with --keep-raw, ingested again (after a change to the section
        // files or the occupancy calculator) without running the program.
        const auto results = readResults(a.fromRaw);
        if (results.empty())
            throw std::runtime_error(a.fromRaw + ": no profile-<pid>.txt result files");
        ws::ProfileIngest::ProcessExit root;
        root.pid = results.front().pid;
        const auto data = writeSession(fs::absolute(a.output), catalog, request, results, root, a, a.fromRaw,
            sourceCounters || !readSamplingResults(a.fromRaw).empty());
        std::fprintf(stderr, "warpscope-cli profile: %zu kernel launch(es), %zu metric(s) from %s; wrote %s\n",
            data.kernels.size(), data.metricDefs.size(), a.fromRaw.c_str(), a.output.c_str());
        return 0;
    }
    if (a.command.empty())
        throw std::runtime_error("no program to profile: warpscope-cli profile -o FILE [options] -- program args...");
    std::error_code ec;
    const fs::path output = fs::absolute(a.output, ec);
    if (fs::is_directory(output, ec))
        throw std::runtime_error(output.string() + ": is a directory, not a session file");
    if (!fs::is_directory(output.parent_path(), ec))
        throw std::runtime_error(output.string() + ": directory " + output.parent_path().string() + " does not exist");

    std::string searched;
    const std::string library = findProfilerLibrary(searched);
    if (library.empty())
        throw std::runtime_error("the profiler library libwarpscope-profiler.so was not found (looked at " + searched
            + "; set WS_PROFILER_LIB to its path)");
    const std::string program = ws::TargetProcess::resolve(a.command.front());

    const fs::path work = output.string() + ".profile-" + std::to_string(::getpid());
    fs::remove_all(work, ec);
    if (!fs::create_directory(work, ec))
        throw std::runtime_error(
            output.string() + ": cannot create the work directory " + work.string() + ": " + ec.message());

    ws::ProfileConfig cfg;
    cfg.outputDir = work.string();
    cfg.kernelRegex = kernelRegex(a.kernelName);
    cfg.launchSkip = a.launchSkip;
    cfg.launchCount = a.launchCount;
    cfg.counters = request.counters;
    cfg.verbose = a.verbose;
    cfg.cacheControl
        = a.cacheControl == "none" ? ws::ProfileConfig::CacheControl::None : ws::ProfileConfig::CacheControl::All;
    cfg.pcSampling = sourceCounters;
    cfg.pcSamplingPeriod = a.pcSamplingInterval;
    cfg.pcSamplingStartStop = !a.pcSamplingNoStartStop;
    const std::string cfgPath = (work / "config.txt").string();
    cfg.writeFile(cfgPath);

    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view v(*e);
        if (v.rfind("CUDA_INJECTION64_PATH=", 0) == 0 || v.rfind("WS_PROFILE_CONFIG=", 0) == 0)
            continue;
        env.emplace_back(v);
    }
    env.push_back("CUDA_INJECTION64_PATH=" + library);
    env.push_back("WS_PROFILE_CONFIG=" + cfgPath);

    std::fprintf(
        stderr, "warpscope-cli profile: sections %s; %zu counter request(s), %zu launch metric(s), %zu derived\n",
        [&] {
            std::string s;
            for (const auto& id : request.sectionIds)
                s += (s.empty() ? "" : ",") + id;
            return s.empty() ? std::string("(none)") : s;
        }()
            .c_str(),
        request.counters.size(), request.launchMetrics.size(), request.derivedMetrics.size());

    const auto t0 = std::chrono::steady_clock::now();
    ws::TargetProcess target;
    target.start(program, a.command, env);
    const ws::ExitStatus status = target.wait();
    const double targetS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    const std::vector<ws::ProfileResult> results = readResults(work);

    size_t launches = 0;
    std::string errors;
    for (const auto& r : results) {
        launches += r.launches.size();
        if (auto it = r.info.find("error"); it != r.info.end())
            errors += (errors.empty() ? "" : "; ") + it->second;
        if (!r.complete)
            std::fprintf(stderr,
                "warpscope-cli profile: warning: process %lld ended before the profiler's exit "
                "handler ran (crash or _exit): only kernels decoded before that are kept\n",
                static_cast<long long>(r.pid));
    }
    if (status.exitCode != 0)
        std::fprintf(stderr, "warpscope-cli profile: warning: the program %s\n", status.describe().c_str());

    if (launches == 0) {
        if (!a.keepRaw)
            fs::remove_all(work, ec);
        if (!errors.empty())
            throw std::runtime_error(errors);
        if (results.empty())
            throw std::runtime_error("the program made no CUDA call that loaded the profiler (it " + status.describe()
                + "); is it a CUDA program, and is a GPU usable here?");
        throw std::runtime_error("no kernel was profiled (the program " + status.describe() + "; "
            + (a.kernelName.empty() ? std::string("it launched no kernel")
                                    : "no launch matched --kernel-name " + a.kernelName)
            + ")");
    }

    ws::ProfileIngest::ProcessExit root;
    root.pid = target.pid();
    root.commandLine = joinCommand(a.command);
    root.exitCode = status.exitCode;
    root.exitSignal = status.exitSignal;
    const ws::SessionData data = writeSession(output, catalog, request, results, root, a, work, sourceCounters);
    if (!a.keepRaw)
        fs::remove_all(work, ec);
    else
        std::fprintf(stderr, "warpscope-cli profile: raw results kept in %s\n", work.string().c_str());

    const std::string passes = sourceCounters
        ? std::string("PC sampling, no replay")
        : (data.meta.count("profile_passes") ? data.meta.at("profile_passes") : "?") + " pass(es) per kernel"
            + (data.meta.count("profile_cache_control") ? ", cache control " + data.meta.at("profile_cache_control")
                                                        : std::string());
    std::fprintf(stderr, "warpscope-cli profile: %zu kernel launch(es), %zu metric(s), %s, %.2f s; wrote %s\n",
        data.kernels.size(), data.metricDefs.size(), passes.c_str(), targetS, output.string().c_str());
    if (sourceCounters)
        std::fprintf(stderr,
            "warpscope-cli profile: start times are host launch times; a PC sampling run measures no "
            "kernel duration\n");
    else
        std::fprintf(stderr,
            "warpscope-cli profile: kernel durations are gpu__time_duration.sum under replay; start "
            "times are host launch times (no activity trace in a profile run)\n");
    if (!errors.empty())
        std::fprintf(stderr, "warpscope-cli profile: warning: %s\n", errors.c_str());
    return 0;
}

const ws::cli::CommandRegistrar registrar(
    {"15-profile", [](CLI::App& app, int& exitCode) {
         auto args = std::make_shared<ProfileArgs>();
         auto* cmd = app.add_subcommand("profile",
             "Collect per-kernel metrics (Nsight Compute sections) with the CUPTI range profiler and kernel "
             "replay, in a run separate from tracing");
         cmd->add_option("-o,--output", args->output, "Session file to write (.wscope)");
         cmd->add_option("--kernel-name", args->kernelName,
             "Profile only kernels whose function name is NAME, or matches regex:R (searched in the base, demangled "
             "and mangled names)");
         cmd->add_option("--launch-skip", args->launchSkip, "Matching launches to skip before profiling (default 0)")
             ->check(CLI::NonNegativeNumber);
         cmd->add_option("--launch-count", args->launchCount, "Matching launches to profile (default: all)")
             ->check(CLI::PositiveNumber);
         cmd->add_option("--section", args->sections, "Section to collect (repeatable; see --list-sections)");
         cmd->add_option("--set", args->set, "Section set: basic (default), detailed, full or roofline");
         cmd->add_option(
             "--metrics", args->metrics, "Extra metrics, comma-separated (ncu names; breakdown:<name> allowed)");
         cmd->add_option(
             "--sections-dir", args->sectionsDir, "Directory of *.section files (default: the installed ones)");
         cmd->add_flag("--list-sections", args->listSections, "List the sections and sets, then exit");
         cmd->add_flag("--list-metrics", args->listMetrics, "List the metrics the options select, then exit");
         cmd->add_flag("--keep-raw", args->keepRaw, "Keep the per-process result files next to the session");
         cmd->add_option("--from-raw", args->fromRaw,
             "Write the session from result files kept with --keep-raw instead of running a program (same "
             "--set/--section/--metrics as the run)");
         cmd->add_flag("-v,--verbose", args->verbose, "Print every profiled launch");
         cmd->add_option("--cache-control", args->cacheControl,
                "Cache state at the start of every replay pass, as in ncu: all (default; memory restored "
                "from a checkpoint and L2 evicted before each pass, our own replay) or none (CUPTI's kernel "
                "replay; L2 as its memory restore left it, faster)")
             ->check(CLI::IsMember({"all", "none"}));
         cmd->add_flag("--pc-sampling", args->pcSampling,
             "Sample warp stall reasons per SASS instruction with CUPTI PC sampling (the SourceCounters section); "
             "the cubins are disassembled here so the session shows SASS and CUDA source lines");
         cmd->add_option("--pc-sampling-interval", args->pcSamplingInterval,
                "PC sampling interval: 2^N cycles between samples per SM, N in 5..31 (default 7)")
             ->check(CLI::Range(5, 31));
         cmd->add_flag("--pc-sampling-no-start-stop", args->pcSamplingNoStartStop,
             "Sample without start/stop control and tell launches apart by correlation id (fallback for drivers "
             "that refuse start/stop)");
         cmd->add_option("--source-folders", args->sourceFolders,
             "Directory to search for CUDA source files the line table names but that are not at their "
             "recorded path (repeatable)");
         // As in `record`: everything from the program name on belongs to the program, its own
         // options included ("-- prog --iters 2" must not be parsed as ours).
         cmd->add_option("command", args->command, "Program and its arguments (after --)")->expected(-1);
         cmd->positionals_at_end();
         cmd->prefix_command();
         cmd->callback([cmd, args, &exitCode] {
             for (const auto& r : cmd->remaining())
                 if (r != "--")
                     args->command.push_back(r);
             exitCode = runProfile(*args);
         });
     }});

} // namespace
