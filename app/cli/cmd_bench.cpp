// SPDX-License-Identifier: MIT
// warpscope-cli bench: honest timing of the built-in workloads (or import of a result saved by
// the warpscope/bench.h library) into a session. warpscope-cli links no CUDA, so the
// measurement runs in warpscope-bench-workloads, found next to this executable; the request
// and the result travel as JSON files in a private temporary directory.
#include "command.h"

#include "core/bench/benchjson.h"
#include "core/bench/benchreport.h"
#include "core/bench/benchworkload.h"
#include "core/store/runinference.h"
#include "core/store/runrecipe.h"
#include "core/util/shellwords.h"
#include "launcher/rundescription.h"
#include "launcher/sessionoutput.h"
#include "launcher/targetlauncher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct BenchArgs {
    std::string workload;
    std::string size;
    std::string dtype;
    std::vector<std::string> implementations;
    double warmupMs = 0;
    int64_t warmupCalls = 0;
    int64_t repeat = 100;
    int rounds = 5;
    double cooldownMs = 0;
    std::string cache = "flush";
    std::string timer = "cuda-events-per-call";
    std::string flushBytes;
    bool noAlternate = false;
    double rtol = 0;
    double atol = 0;
    double driftTolerance = 0.02;
    int device = 0;
    std::string output;
    std::string append;
    std::string fromJson;
    std::string workloadsExe;
    bool list = false;
};

// Options that shape a measurement; with --from-json there is none to take.
struct Given {
    CLI::Option* size = nullptr;
    CLI::Option* dtype = nullptr;
    CLI::Option* warmupMs = nullptr;
    CLI::Option* warmupCalls = nullptr;
    CLI::Option* rtol = nullptr;
    CLI::Option* atol = nullptr;
    CLI::Option* noAlternate = nullptr; // the one flag among them
    std::vector<CLI::Option*> measurement;
};

// The bench arguments of this invocation that shape the measurement, as given (CLI11 keeps each
// option's values): the run row's collector_arguments, so a recipe measures the same again.
std::vector<std::string> benchArguments(const Given& g)
{
    std::vector<std::string> args {"bench"};
    for (const CLI::Option* o : g.measurement) {
        if (o->count() == 0)
            continue;
        const std::string name = o->get_name();
        if (o == g.noAlternate) {
            args.push_back(name);
            continue;
        }
        for (const std::string& value : o->results())
            args.insert(args.end(), {name, value});
    }
    return args;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error(path + ": cannot read: " + std::strerror(errno));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
}

// A private directory for the request and result, removed with everything in it.
class ScratchDir {
public:
    ScratchDir()
    {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/warpscope-bench-XXXXXX";
        if (!mkdtemp(pattern.data()))
            throw std::runtime_error(pattern + ": cannot create a temporary directory: " + std::strerror(errno));
        m_path = pattern;
    }
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    std::string file(const char* name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

std::string findWorkloadsExe(const std::string& given)
{
    if (!given.empty()) {
        if (access(given.c_str(), X_OK) != 0)
            throw std::runtime_error(given + ": not an executable (--workloads-exe)");
        return given;
    }
    if (const char* env = std::getenv("WS_BENCH_WORKLOADS"); env && *env) {
        if (access(env, X_OK) != 0)
            throw std::runtime_error(std::string(env) + ": not an executable (WS_BENCH_WORKLOADS)");
        return env;
    }
    std::error_code ec;
    const auto self = fs::read_symlink("/proc/self/exe", ec);
    const auto dir = ec ? fs::path(".") : self.parent_path();
    auto candidate = (dir / "warpscope-bench-workloads").string();
    if (access(candidate.c_str(), X_OK) != 0)
        throw std::runtime_error("warpscope-bench-workloads was not found next to warpscope-cli (in " + dir.string()
            + "); it is built only with the CUDA toolkit (nvcc): build it, or pass "
              "--workloads-exe PATH");
    return candidate;
}

// Runs the workloads program like every collector runs its target (TargetLauncher: our
// environment, shared stdio, signals forwarded) and returns its exit status (or 128 + signal).
int runWorkloads(const std::string& exe, const std::string& request, const std::string& result)
{
    // A bare name given with --workloads-exe is a file in the current directory, not a PATH search.
    const std::string path = exe.find('/') == std::string::npos ? "./" + exe : exe;
    std::optional<ws::TargetLauncher> workloads;
    try {
        workloads.emplace(std::vector<std::string> {path, "--request", request, "--output", result});
        workloads->start();
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(exe + ": cannot start: " + e.what());
    }
    const ws::ExitStatus status = workloads->wait();
    if (status.exitSignal != 0)
        return 128 + status.exitSignal;
    return status.exitCode;
}

ws::bench::BenchOptions optionsFrom(const BenchArgs& a, const Given& g, const ws::bench::WorkloadConfig& config)
{
    using namespace ws::bench;
    BenchOptions o;
    if (g.warmupMs->count())
        o.warmupMs = a.warmupMs;
    if (g.warmupCalls->count())
        o.warmupCalls = a.warmupCalls;
    o.repeat = a.repeat;
    o.rounds = a.rounds;
    o.cooldownMs = a.cooldownMs;
    const auto cache = cachePolicyFromKey(a.cache);
    if (!cache)
        throw BenchOptionError("--cache must be flush or warm, not '" + a.cache + "'");
    o.cache = *cache;
    const auto timer = timerFromKey(a.timer);
    if (!timer)
        throw BenchOptionError("--timer must be cuda-events-per-call, cuda-events-per-batch or "
                               "wallclock-sync-per-call, not '"
            + a.timer + "'");
    o.timer = *timer;
    if (!a.flushBytes.empty()) {
        const auto bytes = parseByteSize(a.flushBytes);
        if (!bytes || *bytes == 0)
            throw BenchOptionError("--flush-bytes '" + a.flushBytes + "' is not a size (examples: 256M, 1GiB)");
        o.flushBytes = *bytes;
    }
    o.alternate = !a.noAlternate;
    const auto tol = defaultTolerance(config);
    o.rtol = g.rtol->count() ? a.rtol : tol.rtol;
    o.atol = g.atol->count() ? a.atol : tol.atol;
    o.driftTolerance = a.driftTolerance;
    validate(o);
    return o;
}

ws::bench::BenchResult measure(const BenchArgs& a, const Given& g, int& exitCode)
{
    using namespace ws::bench;
    if (a.workload.empty())
        throw BenchOptionError("--workload is required (one of: " + workloadNames() + ")");
    std::optional<std::string_view> size;
    std::optional<std::string_view> dtype;
    if (g.size->count())
        size = a.size;
    if (g.dtype->count())
        dtype = a.dtype;
    BenchRequest request;
    request.workload = resolveWorkload(a.workload, size, dtype, a.implementations);
    request.options = optionsFrom(a, g, request.workload);
    if (a.device < 0)
        throw BenchOptionError("--device must be >= 0");
    request.device = a.device;

    const auto exe = findWorkloadsExe(a.workloadsExe);
    const ScratchDir scratch;
    const auto requestPath = scratch.file("request.json");
    const auto resultPath = scratch.file("result.json");
    writeFile(requestPath, requestToJson(request));
    const int status = runWorkloads(exe, requestPath, resultPath);

    std::string text;
    if (fs::exists(resultPath))
        text = readFile(resultPath);
    if (auto failure = failureFromJson(text)) {
        if (failure->kind == "correctness")
            exitCode = 3;
        else if (failure->kind == "no-device")
            exitCode = 4;
        throw std::runtime_error(failure->message);
    }
    if (status != 0)
        throw std::runtime_error(exe + " failed with exit status " + std::to_string(status)
            + (status > 128 ? " (killed by signal " + std::to_string(status - 128) + ")" : ""));
    auto result = benchResultFromJson(text, resultPath);
    result.environment["bench.request"] = requestToJson(request);
    result.environment["bench.workloads_exe"] = exe;
    return result;
}

void runBench(const BenchArgs& a, const Given& g, int& exitCode)
{
    using namespace ws::bench;
    if (a.list) {
        for (const auto& w : workloadCatalogue()) {
            std::printf("%-12s %s\n", std::string(w.name).c_str(), std::string(w.description).c_str());
            std::string dtypes;
            for (auto d : w.dtypes)
                dtypes += (dtypes.empty() ? "" : ", ") + std::string(d);
            std::string impls;
            for (auto i : w.implementations)
                impls += (impls.empty() ? "" : ", ") + std::string(i);
            std::printf("%-12s default size %lld; dtypes %s; implementations %s\n", "",
                static_cast<long long>(w.defaultSize), dtypes.c_str(), impls.c_str());
        }
        return;
    }
    if (a.output.empty() && a.append.empty())
        throw BenchOptionError("-o/--output FILE is required (or --append SESSION to add the run to a session)");
    const ws::SessionOutput out {a.output, a.append};
    out.check("-o FILE or --append FILE");

    // Checked before measuring, so a run is not lost to a typo in the output path.
    const auto parent = fs::absolute(out.path()).parent_path();
    if (!fs::is_directory(parent))
        throw std::runtime_error(out.path() + ": the directory " + parent.string() + " does not exist");

    const int64_t started = ws::realtimeNowNs();
    const std::map<std::string, std::string> runOptions {
        {ws::kCollectorArgumentsOption, ws::joinCommand(benchArguments(g))}};
    BenchResult result;
    if (!a.fromJson.empty()) {
        for (auto* o : g.measurement) {
            if (o->count())
                throw BenchOptionError(
                    "--from-json imports a result as it was measured; " + o->get_name() + " does not apply");
        }
        result = benchResultFromJson(readFile(a.fromJson), a.fromJson);
        if (result.runs.empty())
            throw BenchFormatError(a.fromJson + ": the result holds no runs");
        result.environment["bench.imported_from"] = fs::absolute(a.fromJson).string();
    } else {
        try {
            result = measure(a, g, exitCode);
        } catch (const std::exception& e) {
            if (!out.appending())
                throw;
            const std::string notStored
                = out.appendFailed(ws::describeFailedRun("bench", {}, started, runOptions, e.what()));
            throw std::runtime_error(std::string(e.what())
                + (notStored.empty() ? "; the failed run is recorded in " + out.path() : "; " + notStored));
        }
    }

    ws::SessionData data = toSessionData(result);
    if (a.fromJson.empty()) {
        std::map<std::string, std::string> options = data.meta;
        options.insert(runOptions.begin(), runOptions.end());
        data.runs = {ws::describeRun("bench", std::string(), started, ws::realtimeNowNs(), options)};
    } else if (out.appending()) {
        // A new file infers its run at commit; appended, the run row must be there to merge.
        data.runs = {ws::store::inferRun(data.meta, data.environment, false, true)};
    }
    const ws::AppendResult written = out.write(data);
    for (const std::string& w : written.warnings)
        std::fprintf(stderr, "warpscope-cli bench: warning: %s\n", w.c_str());
    std::fputs(formatReport(result).c_str(), stdout);
    if (out.appending())
        std::printf("session: %s (appended run %u, %zu runs in the session; %zu benchmark runs)\n", out.path().c_str(),
            written.runId, written.runs, result.runs.size());
    else
        std::printf("session: %s (%zu runs)\n", a.output.c_str(), result.runs.size());
}

const ws::cli::CommandRegistrar registrar({"30-bench",
    [](CLI::App& app, int& exitCode) {
        auto args = std::make_shared<BenchArgs>();
        auto given = std::make_shared<Given>();
        auto* cmd = app.add_subcommand("bench",
            "Time a built-in workload honestly (CUDA events or synchronized wall "
            "clock, warm-up, L2 flush, alternating order, correctness check first) "
            "and save every sample into a session");
        cmd->add_option("-o,--output", args->output, "Session file to write (.wscope)");
        cmd->add_option("--append", args->append,
            "Append the measurement as one more run of this existing session instead of writing a new one");
        auto* workload = cmd->add_option(
            "-w,--workload", args->workload, "gemm, gemm-relu, copy, multistream or pdl (see --list)");
        given->size = cmd->add_option(
            "--size", args->size, "gemm: N of N x N x N; copy: bytes (32M, 1GiB); multistream, pdl: element count");
        given->dtype
            = cmd->add_option("--dtype", args->dtype, "Element type: bf16, fp16 or fp32 (gemm); fp32 otherwise");
        auto* impl = cmd->add_option(
            "--impl", args->implementations, "Measure only these implementations of the workload (default: all)");
        given->warmupMs = cmd->add_option("--warmup-ms", args->warmupMs,
            "Warm-up time budget per implementation "
            "(default 100 ms)");
        given->warmupCalls = cmd->add_option("--warmup-calls", args->warmupCalls,
            "Warm-up call count instead of a "
            "time budget");
        auto* repeat = cmd->add_option("--repeat", args->repeat, "Calls per round (default 100)");
        auto* rounds = cmd->add_option("--rounds", args->rounds, "Rounds (default 5)");
        auto* cooldown = cmd->add_option("--cooldown-ms", args->cooldownMs, "Host sleep before each round (default 0)");
        auto* cache = cmd->add_option("--cache", args->cache,
            "flush: write a buffer >= 2 x L2 before each measured call, outside the interval "
            "(default); warm: reuse the cache");
        auto* timer = cmd->add_option(
            "--timer", args->timer, "cuda-events-per-call (default), cuda-events-per-batch or wallclock-sync-per-call");
        auto* flush = cmd->add_option(
            "--flush-bytes", args->flushBytes, "Size of the flush buffer (default max(2 x L2, 256 MiB))");
        auto* noAlt = cmd->add_flag(
            "--no-alternate", args->noAlternate, "Keep the implementations in the same order every round");
        given->rtol = cmd->add_option("--rtol", args->rtol, "Relative tolerance of the correctness check");
        given->atol = cmd->add_option("--atol", args->atol, "Absolute tolerance of the correctness check");
        auto* drift = cmd->add_option("--drift-tolerance", args->driftTolerance,
            "Relative change of early vs later rounds reported as drift (default 0.02)");
        auto* device = cmd->add_option("--device", args->device, "CUDA device ordinal (default 0)");
        cmd->add_option("--from-json", args->fromJson,
            "Write a session from a result saved by the warpscope/bench.h library instead of measuring");
        auto* exe = cmd->add_option(
            "--workloads-exe", args->workloadsExe, "warpscope-bench-workloads to run (default: next to warpscope-cli)");
        cmd->add_flag("--list", args->list, "List the workloads and exit");
        given->noAlternate = noAlt;
        given->measurement = {workload, given->size, given->dtype, impl, given->warmupMs, given->warmupCalls, repeat,
            rounds, cooldown, cache, timer, flush, noAlt, given->rtol, given->atol, drift, device, exe};
        cmd->callback([args, given, &exitCode]() { runBench(*args, *given, exitCode); });
    }});

} // namespace
