// SPDX-License-Identifier: MIT
#include "launcher/profilepipeline.h"

#include "launcher/collectorcrash.h"
#include "launcher/rundescription.h"

#include "core/metrics/metricnames.h"
#include "core/metrics/profileconfig.h"
#include "core/metrics/profileingest.h"
#include "core/metrics/profileresult.h"
#include "core/metrics/sessionmeta.h"
#include "core/source/pcsamplingresult.h"
#include "core/source/sourceingest.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/util/shellwords.h"
#include "launcher/cubindisassembler.h"
#include "launcher/sessionoutput.h"
#include "launcher/targetlauncher.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace ws {

namespace {

namespace fs = std::filesystem;

using Note = std::function<void(const std::string&)>;

constexpr const char* kProfilerLibrary = "libwarpscope-profiler.so";
constexpr const char* kSourceCountersSection = "SourceCounters";
// Variables the profile launcher owns: a value inherited from the user's shell is replaced.
constexpr std::string_view kInjectionVariable = "CUDA_INJECTION64_PATH";
constexpr std::string_view kConfigVariable = "WS_PROFILE_CONFIG";

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

std::vector<ProfileResult> readResults(const fs::path& dir)
{
    std::vector<ProfileResult> results;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto name = e.path().filename().string();
        if (name.rfind("profile-", 0) == 0 && e.path().extension() == ".txt")
            results.push_back(ProfileResultReader::read(e.path().string()));
    }
    if (ec)
        throw std::runtime_error(dir.string() + ": " + ec.message());
    std::sort(results.begin(), results.end(), [](const auto& x, const auto& y) { return x.pid < y.pid; });
    return results;
}

std::vector<PcSamplingResult> readSamplingResults(const fs::path& dir)
{
    std::vector<PcSamplingResult> results;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const auto name = e.path().filename().string();
        if (name.rfind("pcsamp-", 0) == 0 && e.path().extension() == ".txt")
            results.push_back(PcSamplingResultReader::read(e.path().string()));
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
void addSourceCounters(SessionData& data, const fs::path& dir, const std::vector<ProfileResult>& results,
    const ProfileOptions& o, const Note& say)
{
    const auto samples = readSamplingResults(dir);
    std::set<uint64_t> sampledCubins;
    for (const auto& r : samples) {
        for (const auto& s : r.samples)
            sampledCubins.insert(s.cubinCrc);
        for (const auto& e : r.errors)
            say("PC sampling (process " + std::to_string(r.pid) + "): " + e);
    }
    // A sampled CRC that no captured cubin has (CUPTI answered 0 for the module): all of them.
    bool all = false;
    for (uint64_t crc : sampledCubins) {
        all = all || std::none_of(samples.begin(), samples.end(), [&](const auto& r) { return r.cubin(crc); });
    }
    std::map<uint64_t, CubinDisassembly> disassemblies;
    std::string warned;
    for (const auto& r : samples) {
        for (const auto& c : r.cubins) {
            if ((!all && !sampledCubins.count(c.crc)) || disassemblies.count(c.crc) || c.file.empty())
                continue;
            const auto d = CubinDisassembler::disassemble((dir / c.file).string());
            if (!d.ok) {
                if (warned != d.error)
                    say("warning: " + d.error);
                warned = d.error;
                continue;
            }
            disassemblies[c.crc] = {d.tool, SassDisassembly::parse(d.text)};
        }
    }
    data.meta[metakey::kProfileReplayMode] = "none: PC sampling, one run per kernel launch (kernel-serialized)";
    data.meta[metakey::kKernelTimeSource] = "PC sampling run without activity tracing: start = host CLOCK_MONOTONIC at "
                                            "the launch call, no duration";
    const auto sum = SourceIngest::add(data, results, samples, disassemblies,
        [&](const std::string& path) { return readSourceFile(path, o.sourceFolders); });
    say("source counters: " + std::to_string(sum.samples) + " samples (" + std::to_string(sum.droppedSamples)
        + " dropped) in " + std::to_string(sum.functions) + " function(s), " + std::to_string(sum.instructions)
        + " SASS instruction(s) from " + std::to_string(disassemblies.size()) + " disassembled cubin(s), "
        + std::to_string(sum.sourceFiles) + " source file(s)"
        + (sum.missingSourceFiles ? " (" + std::to_string(sum.missingSourceFiles) + " not found: use --source-folders)"
                                  : std::string()));
    if (sum.unmatchedSamples)
        say("warning: " + std::to_string(sum.unmatchedSamples) + " PC record(s) belong to no profiled launch");
}

// Builds the session from the result files and writes it atomically (or appends it); returns it
// for the summary.
SessionData writeSession(const SessionOutput& output, AppendResult& written, const SectionCatalog& catalog,
    const MetricRequest& request, const std::vector<ProfileResult>& results, const ProfileIngest::ProcessExit& root,
    const ProfileOptions& a, const fs::path& resultDir, bool sourceCounters, const Note& say,
    const TargetLauncher* target = nullptr, int64_t startRealtimeNs = 0, const ExitStatus& status = {})
{
    ProfileIngest ingest(catalog, request);
    SessionData data = ingest.build(results, root);
    if (sourceCounters)
        addSourceCounters(data, resultDir, results, a, say);
    data.environment[envkey::kCommandLine] = root.commandLine;
    data.environment[envkey::kTool] = std::string("warpscope-cli ") + WS_VERSION + " profile";
    data.environment[envkey::kProfileKernelFilter] = a.kernelName;
    data.environment[envkey::kProfileLaunchSkip] = std::to_string(a.launchSkip);
    data.environment[envkey::kProfileLaunchCount] = std::to_string(a.launchCount);
    if (target) { // else (--from-raw) the writer infers the run from meta
        std::map<std::string, std::string> options = data.meta;
        options[kCollectorArgumentsOption] = joinCommand(profileArguments(a));
        options[kRunStatusOption] = status.describe();
        data.runs = {describeRun(
            sourceCounters ? "pc-sampling" : "profile", *target, startRealtimeNs, realtimeNowNs(), options)};
    } else if (output.appending()) {
        // A new file infers its run at commit; appended, the run row must be there to merge.
        data.runs = {store::inferRun(data.meta, data.environment, true, false)};
    }
    written = output.write(data);
    return data;
}

// What a profiled launch cost the program, from every process's result: the wall time its launch
// callbacks took (checkpoint, passes, restores; issue 18 asks for it per launch beside the passes).
// Nothing when no process reports it (PC sampling, or results older than the entry).
std::string costPerLaunch(const SessionData& data)
{
    double wallMs = 0;
    long long launches = 0;
    for (const auto& [key, value] : data.environment) {
        if (key.ends_with(".profiled_launch_wall_ms"))
            wallMs += std::strtod(value.c_str(), nullptr);
        else if (key.ends_with(".launches_profiled"))
            launches += std::strtoll(value.c_str(), nullptr, 10);
    }
    if (launches <= 0 || wallMs <= 0)
        return {};
    char text[96];
    std::snprintf(text, sizeof text, ", %.2f s per profiled launch", wallMs / 1000.0 / static_cast<double>(launches));
    return text;
}

void summarise(ProfileRunResult& r, const SessionData& data)
{
    r.kernels = data.kernels.size();
    r.metricDefs = data.metricDefs.size();
    r.passes = r.sourceCounters
        ? std::string("PC sampling, no replay")
        : (data.meta.count(metakey::kProfilePasses) ? data.meta.at(metakey::kProfilePasses) : "?")
            + " pass(es) per kernel"
            + (data.meta.count(metakey::kProfileCacheControl)
                    ? ", cache control " + data.meta.at(metakey::kProfileCacheControl)
                    : std::string())
            // The replay that ran, as the profiler reported it: a summary that said only the cache
            // control hid that `all` ran none's replay for a day (2026-12-02).
            + (data.meta.count(metakey::kProfileReplayMode) ? ", " + data.meta.at(metakey::kProfileReplayMode)
                                                            : std::string())
            + costPerLaunch(data);
}

} // namespace

std::vector<std::string> profileArguments(const ProfileOptions& o)
{
    const ProfileOptions defaults;
    std::vector<std::string> args {"profile"};
    if (!o.kernelName.empty())
        args.insert(args.end(), {"--kernel-name", o.kernelName});
    if (o.launchSkip != defaults.launchSkip)
        args.insert(args.end(), {"--launch-skip", std::to_string(o.launchSkip)});
    if (o.launchCount != defaults.launchCount)
        args.insert(args.end(), {"--launch-count", std::to_string(o.launchCount)});
    for (const std::string& section : o.sections)
        args.insert(args.end(), {"--section", section});
    if (!o.set.empty())
        args.insert(args.end(), {"--set", o.set});
    if (!o.metrics.empty())
        args.insert(args.end(), {"--metrics", o.metrics});
    if (!o.sectionsDir.empty())
        args.insert(args.end(), {"--sections-dir", o.sectionsDir});
    if (o.keepRaw)
        args.emplace_back("--keep-raw");
    if (o.verbose)
        args.emplace_back("--verbose");
    if (o.cacheControl != defaults.cacheControl)
        args.insert(args.end(), {"--cache-control", o.cacheControl});
    if (!o.captureRange.empty())
        args.insert(args.end(), {"--capture-range", o.captureRange});
    if (o.pcSampling)
        args.emplace_back("--pc-sampling");
    if (o.pcSamplingInterval != defaults.pcSamplingInterval)
        args.insert(args.end(), {"--pc-sampling-interval", std::to_string(o.pcSamplingInterval)});
    if (o.pcSamplingNoStartStop)
        args.emplace_back("--pc-sampling-no-start-stop");
    for (const std::string& folder : o.sourceFolders)
        args.insert(args.end(), {"--source-folders", folder});
    return args;
}

ProfilePipeline::ProfilePipeline(ProfileOptions options, SectionCatalog catalog)
    : m_options(std::move(options))
    , m_catalog(std::move(catalog))
{
    const ProfileOptions& a = m_options;
    std::vector<std::string> sets;
    if (!a.set.empty())
        sets.push_back(a.set);
    const auto extra = splitList(a.metrics);
    std::vector<std::string> sections = a.sections;
    // --pc-sampling alone means the SourceCounters section alone.
    if (a.pcSampling && sections.empty() && sets.empty() && extra.empty())
        sections.emplace_back(kSourceCountersSection);
    m_sourceCounters
        = a.pcSampling || std::find(sections.begin(), sections.end(), kSourceCountersSection) != sections.end();
    if (!m_sourceCounters && (a.pcSamplingInterval != 0 || a.pcSamplingNoStartStop || !a.sourceFolders.empty()))
        throw std::runtime_error("--pc-sampling-interval, --pc-sampling-no-start-stop and --source-folders apply "
                                 "only to --section SourceCounters (or --pc-sampling)");
    // ncu's default: the basic set, unless sections or metrics were named.
    if (sets.empty() && sections.empty() && extra.empty())
        sets.emplace_back("basic");
    const auto selected = m_catalog.select(sections, sets);
    m_request = m_catalog.request(selected, extra);
    if (m_sourceCounters) {
        // PC sampling collects the SourceCounters metrics; the range profiler cannot run beside
        // it (both program the same hardware), so nothing else may be asked of this run.
        std::vector<std::string> others;
        for (const auto& c : m_request.counters) {
            const auto p = m_catalog.placement(c.name);
            if (c.breakdown || !p || p->section->id != kSourceCountersSection)
                others.push_back(c.name);
        }
        if (!others.empty())
            throw std::runtime_error("SourceCounters (PC sampling) runs without the range profiler: profile the "
                                     "other metrics in a separate run ("
                + std::to_string(others.size()) + " requested, e.g. " + others.front() + ")");
        m_request.counters.clear();
    } else if (std::none_of(m_request.counters.begin(), m_request.counters.end(),
                   [](const auto& c) { return !c.breakdown && c.name == metric::kDuration; })) {
        // Kernel rows take their duration from it: there is no activity trace in a profile run.
        m_request.counters.push_back({metric::kDuration, {}, false});
    }
}

ProfileRunResult ProfilePipeline::run(const Note& note)
{
    const ProfileOptions& a = m_options;
    const SessionOutput out {a.output, a.append};
    out.check("-o FILE (a new session) or --append FILE (one more run of an existing one)");
    const int64_t started = realtimeNowNs();
    try {
        return collect(note);
    } catch (const std::exception& e) {
        if (!out.appending() || !a.fromRaw.empty())
            throw;
        const std::string notStored = out.appendFailed(describeFailedRun(m_sourceCounters ? "pc-sampling" : "profile",
            a.command, started, {{kCollectorArgumentsOption, joinCommand(profileArguments(a))}}, e.what()));
        throw std::runtime_error(std::string(e.what())
            + (notStored.empty() ? "; the failed run is recorded in " + out.path() : "; " + notStored));
    }
}

ProfileRunResult ProfilePipeline::collect(const Note& note)
{
    const auto say = [&](const std::string& line) {
        if (note)
            note(line);
    };
    const ProfileOptions& a = m_options;
    const SessionOutput out {a.output, a.append};
    ProfileRunResult result;
    result.sourceCounters = m_sourceCounters;
    AppendResult written;
    std::error_code ec;
    if (!a.fromRaw.empty()) {
        // Result files kept with --keep-raw, ingested again (after a change to the section
        // files or the occupancy calculator) without running the program.
        const auto results = readResults(a.fromRaw);
        if (results.empty())
            throw std::runtime_error(a.fromRaw + ": no profile-<pid>.txt result files");
        ProfileIngest::ProcessExit root;
        root.pid = results.front().pid;
        const auto data = writeSession(out, written, m_catalog, m_request, results, root, a, a.fromRaw,
            m_sourceCounters || !readSamplingResults(a.fromRaw).empty(), say);
        result.sessionPath = out.path();
        result.runId = written.runId;
        result.sessionRuns = written.runs;
        summarise(result, data);
        return result;
    }
    if (a.command.empty())
        throw std::runtime_error("no program to profile: warpscope-cli profile -o FILE [options] -- program args...");
    const fs::path output = fs::absolute(out.path(), ec);
    if (fs::is_directory(output, ec))
        throw std::runtime_error(output.string() + ": is a directory, not a session file");
    if (!fs::is_directory(output.parent_path(), ec))
        throw std::runtime_error(output.string() + ": directory " + output.parent_path().string() + " does not exist");

    std::string searched;
    const std::string library = findCollectorLibrary(kProfilerLibrary, "WS_PROFILER_LIB", &searched);
    if (library.empty())
        throw std::runtime_error("the profiler library libwarpscope-profiler.so was not found (looked at " + searched
            + "; set WS_PROFILER_LIB to its path)");
    TargetLauncher target(a.command);
    const int64_t started = realtimeNowNs();

    const fs::path work = output.string() + ".profile-" + std::to_string(::getpid());
    fs::remove_all(work, ec);
    if (!fs::create_directory(work, ec))
        throw std::runtime_error(
            output.string() + ": cannot create the work directory " + work.string() + ": " + ec.message());

    ProfileConfig cfg;
    cfg.outputDir = work.string();
    cfg.kernelRegex = kernelNameRegex(a.kernelName);
    cfg.launchSkip = a.launchSkip;
    cfg.launchCount = a.launchCount;
    cfg.counters = m_request.counters;
    cfg.verbose = a.verbose;
    cfg.cacheControl = a.cacheControl == "none" ? ProfileConfig::CacheControl::None : ProfileConfig::CacheControl::All;
    cfg.captureProfilerApi = a.captureRange == "cudaProfilerApi";
    cfg.pcSampling = m_sourceCounters;
    cfg.pcSamplingPeriod = a.pcSamplingInterval;
    cfg.pcSamplingStartStop = !a.pcSamplingNoStartStop;
    const std::string cfgPath = (work / "config.txt").string();
    cfg.writeFile(cfgPath);

    target.setVariable(kInjectionVariable, library);
    target.setVariable(kConfigVariable, cfgPath);
    // Where the library's crash report goes (collectors/crash), read back below.
    target.setVariable("WS_CRASH_DIR", work.string());

    std::string sectionList;
    for (const auto& id : m_request.sectionIds)
        sectionList += (sectionList.empty() ? "" : ",") + id;
    say("sections " + (sectionList.empty() ? std::string("(none)") : sectionList) + "; "
        + std::to_string(m_request.counters.size()) + " counter request(s), "
        + std::to_string(m_request.launchMetrics.size()) + " launch metric(s), "
        + std::to_string(m_request.derivedMetrics.size()) + " derived");

    const auto t0 = std::chrono::steady_clock::now();
    target.start();
    result.target = target.wait();
    result.targetSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const ExitStatus& status = result.target;

    const std::vector<ProfileResult> results = readResults(work);

    size_t launches = 0;
    std::string errors;
    for (const auto& r : results) {
        launches += r.launches.size();
        if (auto it = r.info.find("error"); it != r.info.end())
            errors += (errors.empty() ? "" : "; ") + it->second;
        if (!r.complete)
            say("warning: process " + std::to_string(r.pid)
                + " ended before the profiler's exit handler ran (crash or _exit): only kernels decoded before that "
                  "are kept");
    }
    if (status.exitCode != 0)
        say("warning: the program " + status.describe());
    for (const CollectorCrash& c : readCollectorCrashes(work)) {
        if (!c.insideCollector())
            continue; // the program's own crash: its exit status says it
        const std::string what = "the program (process " + std::to_string(c.pid) + ") crashed with signal "
            + std::to_string(c.signal) + " (" + c.signalName + ") inside the profiler, while it was " + c.activity;
        say("error: " + what + "; the session holds only the " + std::to_string(launches)
            + " launch(es) profiled before. Profile the other kernels with --kernel-name, or the launches before "
              "with --launch-count "
            + std::to_string(launches) + "; please report this with the lines above");
        result.profilerCrash = what;
    }

    if (launches == 0) {
        if (!a.keepRaw)
            fs::remove_all(work, ec);
        if (!errors.empty())
            throw std::runtime_error(errors);
        if (!result.profilerCrash.empty())
            throw std::runtime_error(result.profilerCrash + "; no launch was profiled before it");
        if (results.empty())
            throw std::runtime_error("the program made no CUDA call that loaded the profiler (it " + status.describe()
                + "); is it a CUDA program, and is a GPU usable here?");
        const std::string inRange = a.captureRange.empty() ? std::string() : " between cudaProfilerStart and Stop";
        throw std::runtime_error("no kernel was profiled (the program " + status.describe() + "; "
            + (a.kernelName.empty() ? "it launched no kernel" + inRange
                                    : "no launch" + inRange + " matched --kernel-name " + a.kernelName)
            + (inRange.empty() ? std::string() : "; --capture-range cudaProfilerApi profiles only there") + ")");
    }

    ProfileIngest::ProcessExit root;
    root.pid = target.pid();
    root.commandLine = target.commandLine();
    root.exitCode = status.exitCode;
    root.exitSignal = status.exitSignal;
    const SessionData data = writeSession(
        out, written, m_catalog, m_request, results, root, a, work, m_sourceCounters, say, &target, started, status);
    if (!a.keepRaw)
        fs::remove_all(work, ec);
    else
        say("raw results kept in " + work.string());

    result.sessionPath = output.string();
    result.runId = written.runId;
    result.sessionRuns = written.runs;
    result.links = written.links;
    summarise(result, data);
    if (!errors.empty())
        result.warnings.push_back(errors);
    result.warnings.insert(result.warnings.end(), written.warnings.begin(), written.warnings.end());
    return result;
}

} // namespace ws
