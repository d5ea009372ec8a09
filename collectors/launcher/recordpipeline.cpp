// SPDX-License-Identifier: MIT
#include "launcher/recordpipeline.h"

#include "launcher/rundescription.h"

#include "core/ingest/rawingest.h"
#include "core/metrics/sessionmeta.h"
#include "core/model/gpumetricsgaps.h"
#include "core/raw/pmsampling.h"
#include "core/raw/rawformat.h"
#include "core/store/runrecipe.h"
#include "core/store/sessionerror.h"
#include "core/util/shellwords.h"
#include "launcher/gpuprobe.h"
#include "launcher/livesessionwriter.h"
#include "launcher/sessionoutput.h"
#include "launcher/targetlauncher.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace ws {

namespace fs = std::filesystem;

namespace {

int64_t clockNs(clockid_t clock)
{
    timespec ts {};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string isoUtc(int64_t realtimeNs)
{
    const time_t secs = static_cast<time_t>(realtimeNs / 1000000000);
    tm utc {};
    gmtime_r(&secs, &utc);
    char buf[64];
    std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buf;
}

std::string joinList(const std::vector<std::string>& v)
{
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ",") + s;
    return out;
}

// Variables the launcher owns: whatever the caller's environment had for them is replaced.
bool launcherOwned(std::string_view name)
{
    return name == "CUDA_INJECTION64_PATH" || name == "NVTX_INJECTION64_PATH" || name.starts_with("WS_RAW_DIR")
        || name.starts_with("WS_TRACE") || name.starts_with("WS_ALL_API") || name.starts_with("WS_CAPTURE_RANGE")
        || name.starts_with("WS_DURATION_S") || name == raw::kEnvGpuMetrics || name == raw::kEnvNvtxTiming;
}

std::string variableName(std::string_view entry)
{
    return std::string(entry.substr(0, entry.find('=')));
}

constexpr const char* kInjectionLibrary = "libwarpscope-inject.so";
// How often the launcher reads the raw files while the program runs (the recorder's writer
// thread appends about every 0.1 s, and CUPTI's buffers reach it at least every 0.5 s).
constexpr int kFollowPeriodMs = 100;
// Rows that started this long ago are written while the program runs. A record reaches the raw
// file within about 0.7 s of its end (CUPTI's buffers are flushed every 0.5 s, the writer thread
// and this loop pass every 0.1 s), so only a call or kernel longer than about 0.3 s can arrive
// behind rows already written; the session is then written after the exit instead, as before.
constexpr int64_t kSettleLagNs = 1'000'000'000;

// The shortest text that reads back as exactly `value`.
std::string exactNumber(double value)
{
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, value);
    return std::string(buf, r.ptr);
}

} // namespace

std::vector<std::string> recordArguments(const RecordOptions& o)
{
    std::vector<std::string> args {"record"};
    if (o.trace != RecordOptions().trace)
        args.insert(args.end(), {"--trace", joinList(o.trace)});
    if (!o.captureRange.empty())
        args.insert(args.end(), {"--capture-range", o.captureRange});
    if (o.durationS != 0)
        args.insert(args.end(), {"--duration", exactNumber(o.durationS)});
    if (o.allApi)
        args.emplace_back("--all-api");
    if (o.keepRaw)
        args.emplace_back("--keep-raw");
    if (o.gpuMetrics)
        args.emplace_back("--gpu-metrics");
    if (o.gpuMetricsPeriodUs != RecordOptions().gpuMetricsPeriodUs)
        args.insert(args.end(), {"--gpu-metrics-period", exactNumber(o.gpuMetricsPeriodUs)});
    for (const std::string& name : o.nvtxTiming)
        args.insert(args.end(), {"--nvtx-timing", name});
    return args;
}

void validateTraceList(const std::vector<std::string>& trace)
{
    if (trace.empty())
        throw std::invalid_argument("--trace needs at least one of: cuda, nvtx");
    for (const auto& t : trace)
        if (t != "cuda" && t != "nvtx")
            throw std::invalid_argument("--trace: unknown kind '" + t + "' (known: cuda, nvtx)");
}

void validateCaptureRange(const std::string& range)
{
    if (range.empty() || range == "none" || range == "cudaProfilerApi")
        return;
    if (range.rfind("nvtx:", 0) == 0 && range.size() > 5)
        return;
    throw std::invalid_argument("--capture-range: '" + range + "' is not cudaProfilerApi or nvtx:NAME");
}

void validateGpuMetricsPeriod(double periodUs)
{
    const double ns = periodUs * 1e3;
    if (!(ns >= static_cast<double>(raw::kPmMinPeriodNs) && ns <= static_cast<double>(raw::kPmMaxPeriodNs))) {
        std::ostringstream v;
        v << periodUs;
        throw std::invalid_argument(
            "--gpu-metrics-period: " + v.str() + " us is outside 1 .. 100000 us (1 us to 100 ms)");
    }
}

void validateNvtxTimingNames(const std::vector<std::string>& names)
{
    for (size_t i = 0; i < names.size(); ++i) {
        if (names[i].empty())
            throw std::invalid_argument("--nvtx-timing: the range name is empty");
        if (names[i].find('\n') != std::string::npos)
            throw std::invalid_argument("--nvtx-timing: a range name cannot contain a newline");
        for (size_t j = 0; j < i; ++j)
            if (names[j] == names[i])
                throw std::invalid_argument("--nvtx-timing: '" + names[i] + "' is given twice");
    }
}

RecordPipeline::RecordPipeline(RecordOptions options)
    : m_options(std::move(options))
{
}

RecordResult RecordPipeline::run(const std::function<void(const std::string&)>& note)
{
    const RecordOptions& o = m_options;
    const SessionOutput out {o.output, o.append};
    out.check("-o FILE (a new session) or --append FILE (one more run of an existing one)");
    const int64_t started = realtimeNowNs();
    try {
        return collect(note);
    } catch (const std::exception& e) {
        if (!out.appending())
            throw;
        const std::string notStored = out.appendFailed(describeFailedRun(
            "trace", o.command, started, {{kCollectorArgumentsOption, joinCommand(recordArguments(o))}}, e.what()));
        throw std::runtime_error(std::string(e.what())
            + (notStored.empty() ? "; the failed run is recorded in " + out.path() : "; " + notStored));
    }
}

RecordResult RecordPipeline::collect(const std::function<void(const std::string&)>& note)
{
    const auto say = [&](const std::string& line) {
        if (note)
            note(line);
    };
    const RecordOptions& o = m_options;
    const SessionOutput out {o.output, o.append};
    if (o.command.empty())
        throw std::runtime_error("no program given: warpscope-cli record -o FILE -- program [args...]");
    validateTraceList(o.trace);
    validateCaptureRange(o.captureRange);
    if (o.durationS < 0)
        throw std::runtime_error("--duration must not be negative");
    if (o.gpuMetrics)
        validateGpuMetricsPeriod(o.gpuMetricsPeriodUs);
    validateNvtxTimingNames(o.nvtxTiming);

    // Output: its directory must exist and be writable, and it must not be a directory.
    std::error_code ec;
    const fs::path output = fs::absolute(out.path(), ec).lexically_normal();
    const fs::path outDir = output.parent_path();
    if (fs::is_directory(output, ec))
        throw std::runtime_error(output.string() + ": is a directory, not a session file");
    if (!fs::is_directory(outDir, ec))
        throw std::runtime_error(output.string() + ": cannot write: directory " + outDir.string() + " does not exist");
    if (::access(outDir.c_str(), W_OK | X_OK) != 0)
        throw std::runtime_error(
            output.string() + ": cannot write to " + outDir.string() + ": " + std::strerror(errno));

    TargetLauncher target(o.command);

    RecordResult result;
    std::string searched;
    const std::string injection = findCollectorLibrary(kInjectionLibrary, "WS_INJECT_LIB", &searched);
    const GpuProbe probe = GpuProbe::run(injection);
    // Without a usable driver the program still runs and its host side is recorded: process,
    // exit status, environment, and NVTX ranges when the injection library loads (it needs
    // libcupti, not the driver).
    const bool inject = probe.injectionLoadable;
    if (!probe.driverUsable) {
        result.hostOnly = true;
        say("no CUDA driver/GPU (" + probe.driverStatus + "): recording the host side only"
            + (inject ? std::string(" (NVTX included)") : std::string()));
    } else if (injection.empty()) {
        throw std::runtime_error(
            "cannot record CUDA: the injection library libwarpscope-inject.so was not found (looked at " + searched
            + "; set WS_INJECT_LIB to its path)");
    } else if (!inject) {
        throw std::runtime_error("cannot record CUDA: CUPTI unavailable: " + probe.injectionStatus);
    }

    // Raw record files go into a private directory beside the session.
    const fs::path rawDir = output.string() + ".raw-" + std::to_string(::getpid());
    fs::remove_all(rawDir, ec);
    if (::mkdir(rawDir.c_str(), 0700) != 0)
        throw std::runtime_error(
            output.string() + ": cannot write next to it (" + rawDir.string() + "): " + std::strerror(errno));

    target.removeVariables(launcherOwned);
    const bool nvtx = std::find(o.trace.begin(), o.trace.end(), "nvtx") != o.trace.end()
        || o.captureRange.rfind("nvtx:", 0) == 0 || !o.nvtxTiming.empty();
    if (inject) {
        target.setVariable("CUDA_INJECTION64_PATH", injection);
        // NVTX goes to our library too, not to libcupti (see collectors/inject/nvtxinjection.cpp).
        if (nvtx)
            target.setVariable("NVTX_INJECTION64_PATH", injection);
        target.setVariable(raw::kEnvRawDir, rawDir.string());
        target.setVariable(raw::kEnvTrace, joinList(o.trace));
        if (o.allApi)
            target.setVariable(raw::kEnvAllApi, "1");
        if (!o.captureRange.empty() && o.captureRange != "none")
            target.setVariable(raw::kEnvCaptureRange, o.captureRange);
        if (o.durationS > 0) {
            std::ostringstream d;
            d << o.durationS;
            target.setVariable(raw::kEnvDuration, d.str());
        }
        if (o.gpuMetrics)
            target.setVariable(
                raw::kEnvGpuMetrics, std::to_string(static_cast<long long>(std::llround(o.gpuMetricsPeriodUs * 1e3))));
        if (!o.nvtxTiming.empty()) {
            std::string names;
            for (const auto& n : o.nvtxTiming)
                names += (names.empty() ? "" : "\n") + n;
            target.setVariable(raw::kEnvNvtxTiming, names);
        }
    }
    if (result.hostOnly && (o.gpuMetrics || !o.nvtxTiming.empty()))
        say(std::string(o.gpuMetrics ? "--gpu-metrics" : "--nvtx-timing")
            + " needs a CUDA driver and GPU: not collected in this host-side-only recording");

    RawIngest::LaunchedProcess root;
    root.parentPid = ::getpid();
    root.name = fs::path(target.program()).filename().string();
    root.commandLine = target.commandLine();
    root.anchorMonotonicNs = clockNs(CLOCK_MONOTONIC);
    root.anchorRealtimeNs = clockNs(CLOCK_REALTIME);

    try {
        target.start();
    } catch (...) {
        fs::remove_all(rawDir, ec);
        throw;
    }
    root.pid = target.pid();
    // The raw files are append-only: read and convert them while the program runs, so that
    // after its exit only the last records and the session write remain (issue 20 item 4b).
    RawIngest ingest;
    ingest.follow(rawDir.string());
    // A new session takes the big tables' settled rows while the program runs (--append merges
    // into an existing session after the exit, as before).
    std::unique_ptr<LiveSessionWriter> live;
    int64_t exitedNs = 0;
    if (!out.appending())
        live = std::make_unique<LiveSessionWriter>(out.path());
    {
        std::mutex m;
        std::condition_variable cv;
        bool exited = false;
        std::thread follower([&] {
            // The program comes first where cores are scarce: what this thread does not get
            // done while it runs is done after the exit.
            setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
            std::unique_lock lock(m);
            while (!cv.wait_for(lock, std::chrono::milliseconds(kFollowPeriodMs), [&] { return exited; })) {
                lock.unlock();
                ingest.poll(); // neither throws: both fall back to the path after the exit
                if (live)
                    live->take(ingest, clockNs(CLOCK_MONOTONIC) - kSettleLagNs);
                lock.lock();
            }
        });
        result.target = target.wait();
        exitedNs = clockNs(CLOCK_MONOTONIC); // the user's wait starts here
        {
            std::lock_guard lock(m);
            exited = true;
        }
        cv.notify_one();
        follower.join();
    }
    root.exitCode = result.target.exitCode;
    root.exitSignal = result.target.exitSignal;

    ingest.addLaunchedProcess(root);
    ingest.poll();
    const int64_t readNs = clockNs(CLOCK_MONOTONIC);
    SessionData data = ingest.finish();
    const size_t files = std::stoull(data.meta["raw_files"]);
    const int64_t ingestedNs = clockNs(CLOCK_MONOTONIC);
    result.warnings = ingest.warnings();

    utsname un {};
    ::uname(&un);
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    data.environment[envkey::kHost] = host;
    data.environment[envkey::kOs] = std::string(un.sysname) + " " + un.release + " " + un.machine;
    data.environment[envkey::kCommandLine] = root.commandLine;
    data.environment[envkey::kStartTime] = isoUtc(root.anchorRealtimeNs);
    data.environment[envkey::kStartTimeUnixNs] = std::to_string(root.anchorRealtimeNs);
    for (const auto& e : target.environment()) {
        const std::string name = variableName(e);
        if (relevantVariable(name))
            data.environment[envkey::kVariablePrefix + name] = e.substr(name.size() + 1);
    }
    data.meta[metakey::kRecorder] = "warpscope-cli record";
    data.meta[metakey::kRecordTrace] = joinList(o.trace);
    data.meta[metakey::kRecordCaptureRange] = o.captureRange.empty() ? "none" : o.captureRange;
    data.meta[metakey::kRecordDurationS] = std::to_string(o.durationS);
    data.meta[metakey::kRecordAllApi] = o.allApi ? "1" : "0";
    std::ostringstream period;
    period << o.gpuMetricsPeriodUs << " us";
    data.meta[metakey::kRecordGpuMetrics] = o.gpuMetrics ? period.str() : std::string("off");
    if (!o.nvtxTiming.empty()) {
        std::string names;
        for (const auto& n : o.nvtxTiming)
            names += (names.empty() ? "" : ", ") + n;
        data.meta[metakey::kRecordNvtxTiming] = names;
    }
    if (o.gpuMetrics && data.counterSamples.empty() && !result.hostOnly)
        result.warnings.emplace_back("--gpu-metrics: no GPU metric samples were recorded (see the messages above)");
    data.meta[metakey::kRecordInjectionLibrary]
        = inject ? injection : std::string("not used: ") + probe.injectionStatus;
    data.meta[metakey::kGpuStatus] = probe.driverStatus;
    data.meta[metakey::kHostOnly] = result.hostOnly ? "1" : "0";
    data.meta[metakey::kTargetExit] = result.target.describe();
    if (inject && files == 0) {
        const std::string why = "the program never initialised CUDA or NVTX: no process wrote a raw record file";
        data.meta[metakey::kCudaStatus] = why;
        result.warnings.push_back(why);
    }

    std::map<std::string, std::string> runOptions = data.meta;
    runOptions[kCollectorArgumentsOption] = joinCommand(recordArguments(o));
    runOptions[kRunStatusOption] = result.target.describe();
    data.runs = {describeRun("trace", target, root.anchorRealtimeNs, realtimeNowNs(), runOptions)};

    try {
        if (live && live->complete(ingest, data)) {
            result.runId = data.runs.empty() ? 1 : data.runs.front().id;
            result.sessionRuns = std::max<size_t>(1, data.runs.size());
            result.rowsWrittenEarly = live->rowsWrittenEarly();
        } else {
            live.reset();
            const AppendResult written = out.write(data);
            result.runId = written.runId;
            result.sessionRuns = written.runs;
            result.warnings.insert(result.warnings.end(), written.warnings.begin(), written.warnings.end());
        }
    } catch (const SessionError& e) {
        throw std::runtime_error(std::string(e.what()) + " (raw records kept in " + rawDir.string() + ")");
    }
    const int64_t writtenNs = clockNs(CLOCK_MONOTONIC);
    if (!o.keepRaw)
        fs::remove_all(rawDir, ec);
    {
        // What the user waits for after the program exits, per phase (issue 20 item 4b). In-kernel
        // trace events are events too: a traced program's session is mostly warp events.
        const double events
            = static_cast<double>(data.kernels.size() + data.memcpys.size() + data.memsets.size() + data.apiCalls.size()
                + data.syncs.size() + data.nvtxRanges.size() + data.nvtxMarks.size() + data.warpEvents.size());
        const auto phase = [events](const char* name, int64_t ns) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "%s %.3f s (%.2fM events/s)", name, static_cast<double>(ns) / 1e9,
                ns > 0 ? events / (static_cast<double>(ns) / 1e9) / 1e6 : 0.0);
            return std::string(buf);
        };
        result.postRunSeconds = static_cast<double>(writtenNs - exitedNs) / 1e9;
        say("after exit: read " + std::to_string((readNs - exitedNs) / 1000000) + " ms, "
            + phase("ingest", ingestedNs - readNs) + ", " + phase("write", writtenNs - ingestedNs) + "; "
            + phase("total", writtenNs - exitedNs) + ", " + std::to_string(static_cast<int64_t>(events)) + " events"
            + (data.warpEvents.empty() ? std::string()
                                       : " (" + std::to_string(data.warpEvents.size()) + " of them warp events)")
            + ", " + std::to_string(result.rowsWrittenEarly) + " rows written while the program ran ("
            + ingest.followStatus() + ")");
    }

    result.sessionPath = output.string();
    result.kernels = data.kernels.size();
    result.apiCalls = data.apiCalls.size();
    result.nvtxRanges = data.nvtxRanges.size();
    result.counterSamples = data.counterSamples.size();
    result.gpuMetricsSummary = describeGpuMetrics(data.meta, data.environment);
    if (const auto g = data.meta.find(gpumetricskey::kGaps); g != data.meta.end())
        result.gpuMetricsGaps = std::atoll(g->second.c_str()) > 0;
    for (const auto& r : data.benchRuns)
        if (r.implementation.rfind("nvtx-timing", 0) == 0)
            ++result.nvtxTimingRuns;
    for (const auto& smp : data.benchSamples)
        if (smp.call == -1)
            ++result.nvtxTimedInstances;
    result.processes = data.processes.size();
    result.droppedRecords = std::stoull(data.meta[metakey::kDroppedRecords]);
    return result;
}

} // namespace ws
