// SPDX-License-Identifier: MIT
#include "kernelprofiler.h"

#include "collectors/crash/crashreport.h"
#include "core/metrics/metricnames.h"
#include "core/metrics/replaypasses.h"
#include "core/util/demangle.h"
#include "cuptistatus.h"

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace ws::profiler {

namespace {

// The launch being profiled on this thread, so its EXIT callback can record the replay time.
struct InFlight {
    void* state = nullptr;
    int64_t launchIndex = -1;
    int64_t enterNs = 0;
    CUcontext ctx = nullptr;    // PC sampling: the context to stop and read
    uint32_t correlationId = 0; // PC sampling: the launch's CUPTI correlation id
    bool sampling = false;
};
thread_local InFlight t_inFlight;
// Set while this thread runs our own replay passes and L2 eviction: the launches they make must
// not be taken for the program's.
thread_local bool t_replaying = false;
// Replays running on any thread (WS_PROFILE_TRACE names the memory calls made meanwhile).
std::atomic<int> g_replays {0};

// Counter-data images larger than this are split into several decode rounds.
constexpr size_t kMaxImageBytes = size_t(256) << 20;
constexpr size_t kMaxRangesPerImage = 64;

void CUPTIAPI callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
{
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        KernelProfiler::instance().onDriverCallback(cbid, static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
        const auto* r = static_cast<const CUpti_ResourceData*>(data);
        KernelProfiler::instance().onContextDestroyStarting(r->context);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        KernelProfiler::instance().onResource(cbid, static_cast<const CUpti_ResourceData*>(data));
    }
}

std::string processName()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return "?";
    buf[n] = 0;
    std::string s(buf);
    const size_t slash = s.rfind('/');
    return slash == std::string::npos ? s : s.substr(slash + 1);
}

// `none`'s defaults for the dirty lines its first pass starts with and the restore granule (see
// initialize()); measured on the H200 only.
constexpr size_t kNonePassDirtyBytes = size_t(2219) << 10;
constexpr size_t kNoneRestoreGranule = size_t(4) << 20;

// How the diff replay's passes follow each other for WS_PROFILE_NONE_COMPARE=`value`. The default
// (empty, or "after-first"): the first pass after the compare of the unprofiled runs, later passes
// back to back while the kernel changes nothing. ncu's `none` takes its duration and DRAM counters
// from a pass without dirty lines in L2 and its SM counters from passes that start with them; on
// the H200 this agreed with ncu on 96.3 % of the first suite's values and 90.0 % of the operations
// suite's, against 90.7 % and 79.4 % with a compare after every pass (docs/kernel-metrics.md).
CheckpointReplay::Between noneBetween(const std::string& value)
{
    if (value.empty() || value == "after-first")
        return CheckpointReplay::Between::SkipAfterFirstPass;
    if (value == "skip")
        return CheckpointReplay::Between::SkipWhenUnchanged;
    return CheckpointReplay::Between::Compare; // "every", "ef", "first-as-saved"
}

} // namespace

KernelProfiler& KernelProfiler::instance()
{
    static KernelProfiler* p = new KernelProfiler(); // never destroyed: callbacks may outlive statics
    return *p;
}

int64_t KernelProfiler::monotonicNs()
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

bool KernelProfiler::initialize()
{
    crash::installReport("warpscope-profile");
    const char* cfgPath = std::getenv("WS_PROFILE_CONFIG");
    if (!cfgPath || !*cfgPath) {
        std::fprintf(stderr, "warpscope-profile: WS_PROFILE_CONFIG is not set; the program runs unprofiled\n");
        return false;
    }
    try {
        m_config = ProfileConfig::readFile(cfgPath);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "warpscope-profile: %s; the program runs unprofiled\n", e.what());
        return false;
    }
    m_replay = Replay::Restore;
    // An experiment's setting from the environment, noted for the result's replay_overrides.
    const auto overrideOf = [this](const char* variable, const char* key) -> const char* {
        const char* value = std::getenv(variable);
        if (value)
            m_replayOverrides += (m_replayOverrides.empty() ? "" : ",") + std::string(key) + "=" + value;
        return value;
    };
    if (m_config.cacheControl == ProfileConfig::CacheControl::None) {
        // Diff by default (issue 18 measured it closest to ncu); WS_PROFILE_NONE=cupti|warm selects
        // the others for comparison runs.
        const char* none = std::getenv("WS_PROFILE_NONE");
        const std::string mode = none ? none : "";
        m_replay = mode == "warm" ? Replay::Warm : mode == "cupti" ? Replay::Cupti : Replay::Diff;
        // What lies between the diff replay's passes (issue 18): see noneBetween. The experiments:
        // "every" compares after every pass (the default until 2026-12-04), "ef" does that with
        // evict-first loads, "skip" runs all passes of an unchanging kernel back to back.
        const char* compare = std::getenv("WS_PROFILE_NONE_COMPARE");
        m_noneCompare = compare ? compare : "";
        m_noneBetween = noneBetween(m_noneCompare);
        if (m_replay == Replay::Diff) {
            // The state ncu's `none` passes start with, as warpscope-dirtyprobe measured it on the
            // H200 (2026-12-04, docs/kernel-metrics.md, "The dirty lines a pass starts with"):
            // about 2.5 MB of dirty lines that are not the kernel's (ours left 0.25-0.28 MB: the
            // difference, 2.27 MB, is written by a memset), and the restore of a change covers
            // 2 MiB of a 2 MiB allocation and 4 MiB of a 256 MiB one (4 MiB granules, clipped to
            // the allocation). The memset runs before the first pass only, which holds the
            // duration and DRAM counters: run before every pass, the memset (a kernel on the SMs)
            // moved the later passes' SM counters away from ncu's (the Triton softmax), and a host
            // copy, which runs no kernel, left no dirty lines at all.
            m_passDirtyBytes = kNonePassDirtyBytes;
            m_passDirtyFirstOnly = true;
            m_noneRestoreGranule = kNoneRestoreGranule;
        }
        if (const char* kb = overrideOf("WS_PROFILE_NONE_RESTORE_KB", "none_restore_kb"))
            m_noneRestoreGranule = static_cast<size_t>(std::strtoull(kb, nullptr, 10)) * 1024;
        const char* dirty = std::getenv("WS_PROFILE_NONE_DIRTY_PASSES");
        m_noneDirtyPasses = parseReplayPasses(dirty ? dirty : "");
    }
    // Experiments (issue 18), either cache control: how many dirty lines every pass starts with.
    if (const char* kb = overrideOf("WS_PROFILE_PASS_DIRTY_KB", "pass_dirty_kb"))
        m_passDirtyBytes = static_cast<size_t>(std::strtoull(kb, nullptr, 10)) * 1024;
    // Experiment (issue 18), either cache control: the blocks of the empty kernel that switches back
    // to the program's context after an eviction.
    if (const char* blocks = overrideOf("WS_PROFILE_RETURN_BLOCKS", "return_blocks"))
        m_returnBlocks = static_cast<unsigned>(std::strtoul(blocks, nullptr, 10));
    if (const char* how = overrideOf("WS_PROFILE_PASS_DIRTY_HOW", "pass_dirty_how")) {
        m_passDirtyFirstOnly = std::strstr(how, "first") != nullptr;
        m_passDirtyCopy = std::strstr(how, "ce") != nullptr;
    }
    if (!m_config.kernelRegex.empty()) {
        try {
            m_regex = std::regex(m_config.kernelRegex, std::regex::ECMAScript | std::regex::optimize);
            m_haveRegex = true;
        } catch (const std::regex_error& e) {
            std::fprintf(
                stderr, "warpscope-profile: bad kernel regex '%s': %s\n", m_config.kernelRegex.c_str(), e.what());
            return false;
        }
    }
    m_resultPath = m_config.outputDir + "/profile-" + std::to_string(getpid()) + ".txt";
    if (!m_writer.open(m_resultPath)) {
        std::fprintf(
            stderr, "warpscope-profile: cannot create %s; the program runs unprofiled\n", m_resultPath.c_str());
        return false;
    }
    m_writer.process(getpid(), processName());
    timespec rt {};
    clock_gettime(CLOCK_REALTIME, &rt);
    const int64_t mono = monotonicNs();
    m_writer.info("anchor_realtime_ns", std::to_string(static_cast<int64_t>(rt.tv_sec) * 1000000000LL + rt.tv_nsec));
    m_writer.info("anchor_monotonic_ns", std::to_string(mono));
    uint32_t version = 0;
    if (cuptiGetVersion(&version) == CUPTI_SUCCESS)
        m_writer.info("cupti_version", std::to_string(version));
    m_writer.flush();

    CUpti_SubscriberHandle subscriber = nullptr;
    CUptiResult st = cuptiSubscribe(&subscriber, callback, nullptr);
    if (st != CUPTI_SUCCESS) {
        const std::string msg = "cuptiSubscribe: " + cuptiStatus(st)
            + (st == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? " (another CUPTI client is active in the program)"
                                                                    : "");
        std::fprintf(stderr, "warpscope-profile: %s; the program runs unprofiled\n", msg.c_str());
        m_writer.info("error", msg);
        m_writer.end();
        return false;
    }
    const CUpti_CallbackId launches[] = {CUPTI_DRIVER_TRACE_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
        CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz};
    for (auto id : launches)
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
    if (m_config.captureProfilerApi) {
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
        m_writer.info("capture_range", "cudaProfilerApi");
    }
    // The memory calls (ReplayGate::isMemoryWrite): our replays keep other threads' calls out
    // while they run, and WS_PROFILE_TRACE names those made during a replay. CUPTI's kernel
    // replay and PC sampling replay nothing of ours, so they leave the calls alone.
    if (!m_config.pcSampling && (userReplay() || replayTracing())) {
        m_memoryWrites.assign(CUPTI_DRIVER_TRACE_CBID_SIZE, false);
        for (uint32_t id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; ++id) {
            const char* name = nullptr;
            if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, id, &name) == CUPTI_SUCCESS && name
                && isMemoryWrite(name)) {
                m_memoryWrites[id] = true;
                cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id);
            }
        }
    }
    cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
    if (m_config.pcSampling) {
        std::string error;
        if (!m_sampler.open(m_config, getpid(), error)) {
            std::fprintf(stderr, "warpscope-profile: %s; the program runs unprofiled\n", error.c_str());
            m_writer.info("error", error);
            m_writer.end();
            return false;
        }
        m_pcSampling = true;
        m_writer.info("collection", "pc_sampling");
        m_writer.flush();
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_MODULE_LOADED);
        cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    }
    m_active = true;
    return true;
}

void KernelProfiler::onResource(CUpti_CallbackId cbid, const CUpti_ResourceData* data)
{
    if (!m_active || !m_pcSampling || !data)
        return;
    std::lock_guard lock(m_mutex);
    if (m_finished)
        return;
    if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED && data->resourceDescriptor) {
        m_sampler.onModuleLoaded(*static_cast<const CUpti_ModuleResourceData*>(data->resourceDescriptor));
    } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && data->context) {
        // Enabled at context creation as in CUPTI's own PC sampling tools; a failure is kept
        // per context and reported with every launch that would have been sampled.
        std::string error;
        if (m_sampler.prepare(data->context, error))
            defineSamplingMetrics();
        else
            m_writer.info("error", error);
        m_writer.flush();
    }
}

void KernelProfiler::defineSamplingMetrics()
{
    if (!m_samplingMetric.empty() || m_sampler.stallReasons().empty())
        return;
    auto define = [&](const std::string& name, const std::string& unit, const std::string& description) {
        ProfiledMetric m;
        m.name = name;
        m.unit = unit;
        m.description = description;
        m_writer.metric(m_metricCount, m);
        m_samplingMetric[name] = m_metricCount++;
    };
    define(metric::kPcSampleCount, "samples", "PC samples in the launch (CUPTI totalSamples)");
    define(metric::kPcDroppedSamples, "samples", "PC samples dropped by the hardware");
    define(metric::kPcIntervalCycles, "cycles", "PC sampling interval");
    // The not-issued variants are a subset of their reason's samples; per kernel only the
    // all-samples view becomes a metric (the per-PC rows keep both).
    for (const auto& [index, name] : m_sampler.stallReasons()) {
        if (name.size() < 11 || name.compare(name.size() - 11, 11, "_not_issued") != 0)
            define(name, "samples", "PC samples with this warp state");
    }
}

void KernelProfiler::samplingLaunch(CapturedLaunch& captured, const CUpti_CallbackData* cb)
{
    std::string error;
    if (!m_sampler.prepare(cb->context, error)) {
        warnOnce("pcsampling:" + error, error + "; kernels on this context run unsampled");
        return;
    }
    defineSamplingMetrics();
    uint32_t contextId = 0, deviceId = 0;
    cuptiGetContextId(cb->context, &contextId);
    cuptiGetDeviceId(cb->context, &deviceId);
    if (m_devicesSeen.insert(deviceId).second) {
        CUdevice dev = 0;
        if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
            cuDeviceGet(&dev, static_cast<int>(deviceId));
        m_writer.device(queryDevice(dev, deviceId));
    }
    completeLaunch(captured);
    ProfiledLaunch l = std::move(captured.launch);
    l.index = m_profiled++;
    l.deviceId = deviceId;
    l.contextId = contextId;
    l.hostStartNs = monotonicNs();
    if (!m_sampler.start(cb->context, error)) {
        warnOnce("pcsampling-start", error);
        return;
    }
    t_inFlight = {&m_sampler, l.index, l.hostStartNs, cb->context, cb->correlationId, true};
    if (m_config.verbose)
        std::fprintf(stderr, "warpscope-profile: sampling launch %lld: %s\n", static_cast<long long>(l.index),
            l.mangledName.c_str());
    m_samplingPending.emplace(l.index, std::move(l));
    progress("pc-sampling", "no replay");
}

void KernelProfiler::samplingLaunchDone(CUcontext ctx, int64_t launchIndex, uint32_t correlationId)
{
    auto it = m_samplingPending.find(launchIndex);
    if (it == m_samplingPending.end())
        return;
    std::map<std::string, uint64_t> totals;
    const PcSamplingRange range = m_sampler.collect(ctx, launchIndex, correlationId, totals);
    m_writer.launch(it->second);
    std::map<uint32_t, double> values;
    auto put = [&](const std::string& name, double v) {
        if (auto m = m_samplingMetric.find(name); m != m_samplingMetric.end())
            values[m->second] = v;
    };
    put(metric::kPcSampleCount, static_cast<double>(range.totalSamples));
    put(metric::kPcDroppedSamples, static_cast<double>(range.droppedSamples));
    put(metric::kPcIntervalCycles, static_cast<double>(uint64_t(1) << std::min<uint32_t>(range.period, 62)));
    for (const auto& [name, n] : totals)
        put(name, static_cast<double>(n));
    m_writer.values(launchIndex, values);
    if (!range.error.empty())
        m_writer.note("launch " + std::to_string(launchIndex) + ": " + range.error);
    m_writer.flush();
    m_samplingPending.erase(it);
}

void KernelProfiler::warnOnce(const std::string& key, const std::string& text)
{
    if (m_warned[key])
        return;
    m_warned[key] = true;
    std::fprintf(stderr, "warpscope-profile: warning: %s\n", text.c_str());
    m_writer.note(text);
    m_writer.flush();
}

bool KernelProfiler::wants(const std::string& mangledName)
{
    if (!m_haveRegex)
        return true;
    auto it = m_nameMatches.find(mangledName);
    if (it != m_nameMatches.end())
        return it->second;
    const std::string demangled = demangle(mangledName);
    const std::string base = shortName(mangledName);
    const bool match = std::regex_search(base, m_regex) || std::regex_search(demangled, m_regex)
        || std::regex_search(mangledName, m_regex);
    m_nameMatches.emplace(mangledName, match);
    return match;
}

void KernelProfiler::fail(ContextState& state, const std::string& what, const std::string& remedy)
{
    state.failed = true;
    const std::string msg = remedy.empty() ? what : what + ": " + remedy;
    std::fprintf(stderr, "warpscope-profile: error: %s; kernels on this context run unprofiled\n", msg.c_str());
    m_writer.info("error", msg);
    m_writer.flush();
}

KernelProfiler::DeviceConfig* KernelProfiler::deviceConfig(CUcontext ctx, uint32_t deviceId, std::string& error)
{
    auto& slot = m_devices[deviceId];
    if (slot)
        return slot->failed ? nullptr : slot.get();
    slot = std::make_unique<DeviceConfig>();
    auto& dc = *slot;
    dc.failed = true;

    CUdevice dev = 0;
    if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
        cuDeviceGet(&dev, static_cast<int>(deviceId));
    const DeviceInfo info = queryDevice(dev, deviceId);
    m_writer.device(info);

    auto sup = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    sup.cuDevice = dev;
    sup.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUptiResult st = cuptiProfilerDeviceSupported(&sup);
    if (st != CUPTI_SUCCESS || sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        std::string why;
        auto check = [&](CUpti_Profiler_Support_Level level, const char* what) {
            if (level == CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED)
                why += std::string(why.empty() ? "" : ", ") + what + " unsupported";
            else if (level == CUPTI_PROFILER_CONFIGURATION_DISABLED)
                why += std::string(why.empty() ? "" : ", ") + what + " disabled by the system";
        };
        check(sup.architecture, "architecture (needs compute capability 7.0 or newer)");
        check(sup.sli, "SLI");
        check(sup.vGpu, "vGPU");
        check(sup.confidentialCompute, "confidential computing");
        check(sup.cmp, "CMP board");
        check(sup.wsl, "WSL");
        error = "profiling is not supported on " + info.name + " (" + (why.empty() ? cuptiStatus(st) : why)
            + "); use 'warpscope-cli record' for a trace without metrics";
        m_writer.info("unsupported", "1");
        return nullptr;
    }

    auto cp = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    cp.deviceIndex = deviceId;
    if ((st = cuptiDeviceGetChipName(&cp)) != CUPTI_SUCCESS || !cp.pChipName) {
        error = "cuptiDeviceGetChipName: " + cuptiStatus(st);
        return nullptr;
    }
    const std::string chip = cp.pChipName;

    auto ap = params<CUpti_Profiler_GetCounterAvailability_Params>(
        CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
    ap.ctx = ctx;
    if ((st = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
        const std::string remedy = cuptiRemedy(st);
        error = "cuptiProfilerGetCounterAvailability: " + cuptiStatus(st) + (remedy.empty() ? "" : ": " + remedy);
        return nullptr;
    }
    std::vector<uint8_t> availability(ap.counterAvailabilityImageSize);
    ap.pCounterAvailabilityImage = availability.data();
    if ((st = cuptiProfilerGetCounterAvailability(&ap)) != CUPTI_SUCCESS) {
        const std::string remedy = cuptiRemedy(st);
        error = "cuptiProfilerGetCounterAvailability: " + cuptiStatus(st) + (remedy.empty() ? "" : ": " + remedy);
        return nullptr;
    }

    dc.config = std::make_unique<MetricConfiguration>();
    std::string why;
    if (!dc.config->build(chip, availability, m_config.counters, info.ccMajor, info.ccMinor, why)) {
        error = why;
        return nullptr;
    }
    for (const auto& m : dc.config->metrics()) {
        m_writer.metric(m_metricCount, m);
        dc.globalIndex.push_back(m_metricCount++);
    }
    for (const auto& r : dc.config->rejected()) {
        std::string text = "metric not available on ";
        text.append(chip).append(", left out: ").append(r);
        warnOnce("rejected:" + r, text);
    }

    const size_t passes = dc.config->passes();
    m_writer.info("chip", chip);
    m_writer.info("passes", std::to_string(passes));
    m_writer.info("metrics", std::to_string(dc.config->metrics().size()));
    m_writer.info("validation_ms", std::to_string(dc.config->validationMs()));

    // Cost of a replay per kernel, fitted to H200 measurements (CUDA 13, 64-256 MB allocated),
    // plus the kernel itself once per pass. CUPTI's kernel replay (--cache-control none): about
    // 150 ms to set a kernel up plus 8 ms per pass. Our replay (all): ~15 ms per pass, two thirds
    // of it the range profiler's start (docs/kernel-metrics.md).
    const bool ours = userReplay();
    const double fixedMs = ours ? 20.0 : 150.0;
    const double perPassMs = ours ? 15.0 : 8.0;
    const double perKernelMs = fixedMs + perPassMs * static_cast<double>(passes);
    const std::string scope
        = m_config.launchCount >= 0 ? std::to_string(m_config.launchCount) + " kernel(s)" : "every kernel";
    const std::string filter = m_haveRegex ? " matching /" + m_config.kernelRegex + "/" : std::string();
    std::string total;
    if (m_config.launchCount >= 0)
        total = "; about "
            + std::to_string(std::llround(perKernelMs * static_cast<double>(m_config.launchCount) / 1000.0)) + " s for "
            + scope;
    std::fprintf(stderr,
        "warpscope-profile: %s (%s): %zu metrics (%zu left out) need %zu pass%s per kernel; profiling %s%s.\n"
        "warpscope-profile: estimated cost: about %.0f ms per kernel (%zu x its duration + %.0f ms of replay "
        "overhead)%s\n",
        info.name.c_str(), chip.c_str(), dc.config->metrics().size(), dc.config->rejected().size(), passes,
        passes == 1 ? "" : "es", scope.c_str(), filter.c_str(), perKernelMs, passes, perKernelMs, total.c_str());
    m_writer.info("estimated_ms_per_kernel", std::to_string(perKernelMs));
    m_writer.flush();
    dc.failed = false;
    return &dc;
}

bool KernelProfiler::setUp(ContextState& state)
{
    std::string error;
    if (!m_profilerInitialized) {
        auto ip = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
        const CUptiResult st = cuptiProfilerInitialize(&ip);
        if (st != CUPTI_SUCCESS) {
            fail(state, "cuptiProfilerInitialize: " + cuptiStatus(st), cuptiRemedy(st));
            return false;
        }
        m_profilerInitialized = true;
    }
    state.device = deviceConfig(state.ctx, state.deviceId, error);
    if (!state.device) {
        fail(state, error.empty() ? "the metric configuration failed on an earlier context of this device" : error, {});
        return false;
    }
    size_t ranges = kMaxRangesPerImage;
    if (m_config.launchCount >= 0)
        ranges = std::max<size_t>(1, std::min<size_t>(ranges, static_cast<size_t>(m_config.launchCount)));
    // Our own replay decodes each launch after its passes: one range per image.
    if (userReplay())
        ranges = 1;
    const auto replay = userReplay() ? RangeProfilerSession::Replay::User : RangeProfilerSession::Replay::Kernel;
    if (!state.session.open(state.ctx, *state.device->config, ranges, kMaxImageBytes, replay, error)) {
        fail(state, error, cuptiRemedy(state.session.lastError()));
        return false;
    }
    if (userReplay()) {
        CUdevice dev = 0;
        if (cuCtxGetDevice(&dev) != CUDA_SUCCESS)
            cuDeviceGet(&dev, static_cast<int>(state.deviceId));
        // An experiment, not an option: WS_PROFILE_EVICTION=program|off. The default is what the H200
        // comparison chose (scripts/device/metrics-compare.sh, docs/kernel-metrics.md): eviction from a
        // context of its own agreed with ncu on 23 metrics more of the four kernels than from the
        // program's.
        const char* mode = std::getenv("WS_PROFILE_EVICTION");
        const std::string evictionMode = mode && *mode ? mode : "own";
        bool ok = true;
        if (evictionMode != "off") {
            state.eviction = std::make_unique<L2Eviction>();
            state.eviction->setReturnContext(state.ctx);
            state.eviction->setReturnBlocks(m_returnBlocks);
            t_replaying = true; // the eviction's set-up launches nothing of the program's
            ok = state.eviction->prepare(dev, evictionMode == "program" ? state.ctx : nullptr, error);
            t_replaying = false;
        }
        m_writer.info("eviction_mode", evictionMode);
        if (!ok) {
            const bool all = m_config.cacheControl == ProfileConfig::CacheControl::All;
            fail(state, std::string("L2 eviction for --cache-control ") + (all ? "all: " : "none: ") + error,
                all ? "profile with --cache-control none instead"
                    : "set WS_PROFILE_NONE=cupti to profile with CUPTI's kernel replay instead");
            return false;
        }
        const bool none = m_config.cacheControl == ProfileConfig::CacheControl::None;
        m_writer.info("cache_control", none ? "none" : "all");
        const bool afterFirst = m_noneBetween == CheckpointReplay::Between::SkipAfterFirstPass;
        m_writer.info("replay",
            m_replay == Replay::Warm ? "ours, L2 evicted then the launch's buffers read back"
                : m_replay == Replay::Diff && afterFirst
                ? "ours, only the blocks the kernel changes restored; passes after the first back to back while it "
                  "changes nothing"
                : m_replay == Replay::Diff ? "ours, only the blocks the kernel changes restored"
                                           : "ours, L2 evicted");
        if (state.eviction)
            m_writer.info("l2_eviction_bytes", std::to_string(state.eviction->bufferBytes()));
        if (m_replay == Replay::Diff && !m_noneCompare.empty() && m_noneCompare != "after-first")
            m_writer.info("none_compare", m_noneCompare);
        if (m_replay == Replay::Diff && !m_noneDirtyPasses.empty())
            m_writer.info("none_dirty_passes", std::getenv("WS_PROFILE_NONE_DIRTY_PASSES"));
        if (m_passDirtyBytes)
            m_writer.info("pass_start_dirty",
                std::to_string(m_passDirtyBytes / 1024) + " KiB of dirty lines written by "
                    + (m_passDirtyCopy ? "a host copy" : "a memset") + " before "
                    + (m_passDirtyFirstOnly ? "the first pass" : "every pass"));
        if (m_replay == Replay::Diff && m_noneRestoreGranule)
            m_writer.info("restore_granule_kb", std::to_string(m_noneRestoreGranule / 1024));
        if (!m_replayOverrides.empty())
            m_writer.info("replay_overrides", m_replayOverrides);
    } else {
        m_writer.info("cache_control", "none");
        m_writer.info("replay", "CUPTI kernel replay");
    }
    m_writer.info("ranges_per_image", std::to_string(state.session.capacity()));
    m_writer.info("counter_image_bytes", std::to_string(state.session.imageBytes()));
    m_writer.flush();
    return true;
}

KernelProfiler::ContextState* KernelProfiler::contextFor(CUcontext ctx)
{
    auto& slot = m_contexts[ctx];
    if (slot)
        return slot->failed ? nullptr : slot.get();
    slot = std::make_unique<ContextState>();
    auto& st = *slot;
    st.ctx = ctx;
    cuptiGetContextId(ctx, &st.contextId);
    cuptiGetDeviceId(ctx, &st.deviceId);
    if (!setUp(st))
        return nullptr;
    return &st;
}

void KernelProfiler::flush(ContextState& state)
{
    if (!state.session.isOpen() || (state.pending.empty() && !state.session.isStarted()))
        return;
    size_t ranges = 0, dropped = 0;
    std::string error;
    if (!state.session.stopAndDecode(ranges, dropped, error)) {
        warnOnce("decode:" + error, error + "; " + std::to_string(state.pending.size()) + " launch(es) lost");
        state.pending.clear();
        state.session.reset(error);
        return;
    }
    if (ranges != state.pending.size() || dropped > 0) {
        warnOnce("ranges",
            "the range profiler returned " + std::to_string(ranges) + " range(s) (" + std::to_string(dropped)
                + " dropped) for " + std::to_string(state.pending.size())
                + " profiled launch(es); ranges are matched to launches in order");
    }
    const auto& cfg = *state.device->config;
    std::vector<double> values;
    const size_t n = std::min(ranges, state.pending.size());
    for (size_t i = 0; i < n; ++i) {
        auto& l = state.pending[i];
        m_writer.launch(l);
        if (cfg.evaluate(state.session.counterData(), i, values)) {
            std::map<uint32_t, double> byIndex;
            for (size_t m = 0; m < values.size(); ++m)
                byIndex[state.device->globalIndex[m]] = values[m];
            m_writer.values(l.index, byIndex);
        } else {
            warnOnce("evaluate", "could not evaluate the metrics of range " + std::to_string(i));
        }
    }
    m_writer.flush();
    state.pending.clear();
    if (!state.session.reset(error))
        warnOnce("reset", error);
}

void KernelProfiler::onDriverCallback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    // A memory call (initialize() enables those of isMemoryWrite): another thread's waits for a
    // replay in progress and holds the next one back until it returns (ReplayGate); the replay's
    // own calls pass. An allocation freed between a checkpoint's save and its restore faults inside the
    // restore: the trace names every memory call made while a replay runs, ours and other threads'.
    if (cb && cbid < m_memoryWrites.size() && m_memoryWrites[cbid]) {
        const bool enter = cb->callbackSite == CUPTI_API_ENTER;
        if (!t_replaying && userReplay())
            enter ? m_gate.memoryCallEnter() : m_gate.memoryCallExit();
        if (replayTracing() && !enter && g_replays.load(std::memory_order_relaxed) > 0)
            std::fprintf(stderr, "warpscope-profile: trace: %s during a replay, %s\n", cb->functionName,
                t_replaying ? "by the replay" : "by another thread");
        return;
    }
    if (!m_active || !cb || t_replaying)
        return;
    if (cb->callbackSite == CUPTI_API_EXIT) {
        if (t_inFlight.sampling && isKernelLaunch(cbid)) {
            const InFlight done = t_inFlight;
            t_inFlight = {};
            std::lock_guard lock(m_mutex);
            const double ms = static_cast<double>(monotonicNs() - done.enterNs) / 1e6;
            m_replayMs += ms;
            if (!m_finished)
                samplingLaunchDone(done.ctx, done.launchIndex, done.correlationId);
            return;
        }
        if (t_inFlight.state && isKernelLaunch(cbid)) {
            std::lock_guard lock(m_mutex);
            const double ms = static_cast<double>(monotonicNs() - t_inFlight.enterNs) / 1e6;
            m_replayMs += ms;
            if (!m_announced) {
                m_announced = true;
                std::fprintf(stderr, "warpscope-profile: first kernel profiled in %.1f ms\n", ms);
            }
            t_inFlight = {};
        }
        return;
    }
    std::lock_guard lock(m_mutex);
    if (m_finished)
        return;

    // The capture range opens at the program's cudaProfilerStart and closes at its
    // cudaProfilerStop (the driver calls under the runtime's; API enter, as launches are decided).
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart || cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop) {
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart)
            ++m_profilerStarts;
        m_capturing = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
        return;
    }
    if (isGraphLaunch(cbid)) {
        // Kernel replay crashed a target on graph launches (H200, CUDA 13): never let a graph's
        // kernels run while the profiler is started.
        ++m_skippedGraphs;
        warnOnce("graph",
            "CUDA graph launches are not profiled (kernel replay of graph launches crashed a "
            "target in a test); their kernels run unprofiled");
        if (auto it = m_contexts.find(cb->context); it != m_contexts.end() && it->second && !it->second->failed)
            flush(*it->second);
        return;
    }
    if (!isKernelLaunch(cbid))
        return;

    const crash::ActivityScope activity;
    crash::noteActivity("reading a kernel launch's configuration in its launch callback");
    CapturedLaunch captured = captureLaunch(cbid, cb);
    // First, before any other driver call: a launch recorded into a graph runs nothing now, and
    // a driver call that loads a function would invalidate the capture.
    if (isCapturing(captured.stream)) {
        ++m_skippedCaptured;
        return;
    }
    captured.launch.mangledName = functionName(captured, cb);
    crash::noteActivity(("in the launch callback of kernel " + captured.launch.mangledName).c_str());
    // Outside the capture range a launch neither matches nor counts for --launch-skip/-count.
    bool profile = (!m_config.captureProfilerApi || m_capturing) && wants(captured.launch.mangledName);
    if (profile) {
        ++m_matched;
        // Skipped by --launch-skip, or past --launch-count.
        if (m_matched <= m_config.launchSkip || (m_config.launchCount >= 0 && m_profiled >= m_config.launchCount))
            profile = false;
    }
    if (m_pcSampling) {
        if (profile)
            samplingLaunch(captured, cb);
        return;
    }
    auto existing = m_contexts.find(cb->context);
    if (!profile) {
        if (existing != m_contexts.end() && existing->second && !existing->second->failed)
            flush(*existing->second);
        return;
    }
    ContextState* state = contextFor(cb->context);
    if (!state)
        return;
    if (userReplay()) {
        if (!canRelaunch(cbid)) {
            warnOnce("relaunch",
                "launches through cuLaunch/cuLaunchGrid cannot be replayed with --cache-control all; they run "
                "unprofiled");
            return;
        }
        addPending(*state, captured);
        replayLaunch(*state, cbid, cb);
        return;
    }
    if (state->pending.size() >= state->session.capacity())
        flush(*state);
    std::string error;
    if (!state->session.isStarted() && !state->session.start(error)) {
        warnOnce("start", error);
        return;
    }
    addPending(*state, captured);
}

void KernelProfiler::progress(const char* kind, const std::string& detail) const
{
    const std::string total = m_config.launchCount >= 0 ? std::to_string(m_config.launchCount) : std::string("?");
    std::fprintf(stderr, "warpscope-cli: progress: %s %lld/%s launches (%s)\n", kind,
        static_cast<long long>(m_profiled), total.c_str(), detail.c_str());
}

void KernelProfiler::addPending(ContextState& state, CapturedLaunch& captured)
{
    completeLaunch(captured);
    ProfiledLaunch l = std::move(captured.launch);
    l.index = m_profiled++;
    l.deviceId = state.deviceId;
    l.contextId = state.contextId;
    l.hostStartNs = monotonicNs();
    state.pending.push_back(std::move(l));
    t_inFlight = {&state, state.pending.back().index, state.pending.back().hostStartNs};
    if (m_config.verbose)
        std::fprintf(stderr, "warpscope-profile: profiling launch %lld: %s\n",
            static_cast<long long>(state.pending.back().index), state.pending.back().mangledName.c_str());
    // One short line per launch for the GUI's progress (warpscope-cli passes our stderr through).
    const size_t passes = state.device && state.device->config ? state.device->config->passes() : 0;
    progress("profile", std::to_string(passes) + " passes each");
}

void KernelProfiler::replayLaunch(ContextState& state, CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    std::string error;
    size_t passes = 0;
    // Before anything of the replay: the other threads' memory calls in flight end first.
    const ReplayGate::Replay gate = m_gate.replay();
    if (gate.gaveUp())
        warnOnce("gate",
            "another thread's memory call did not end within 10 s of a launch to replay; that replay ran "
            "while other threads could copy or free memory, which its final restore may undo");
    t_replaying = true;
    g_replays.fetch_add(1, std::memory_order_relaxed);
    const std::string launch
        = "launch " + std::to_string(state.pending.back().index) + " (" + state.pending.back().mangledName + ")";
    crash::noteActivity(("finding the device buffers in the arguments of " + launch).c_str());
    if (replayTracing())
        std::fprintf(stderr, "warpscope-profile: trace: %s: %s\n", launch.c_str(), describeLaunch(cbid, cb).c_str());
    if (m_replay == Replay::Warm || m_replay == Replay::Diff) {
        std::vector<std::pair<CUdeviceptr, size_t>> regions;
        for (const auto& b : launchBuffers(cbid, cb))
            regions.emplace_back(b.base, b.bytes);
        if (replayTracing())
            std::fprintf(stderr, "warpscope-profile: trace: %zu argument buffer(s)\n", regions.size());
        if (m_replay == Replay::Warm && state.eviction)
            state.eviction->setWarmRegions(std::move(regions));
        else if (m_replay == Replay::Diff) {
            state.replay.setCompare(
                m_noneCompare == "ef" ? ChangedMemory::Compare::EvictFirst : ChangedMemory::Compare::Cached);
            state.replay.setBetweenPasses(m_noneBetween);
            state.replay.setFirstPass(m_noneCompare == "first-as-saved" ? CheckpointReplay::First::AsSaved
                                                                        : CheckpointReplay::First::Settled);
            state.replay.setDirtyPasses(m_noneDirtyPasses);
            state.replay.setRestoreGranule(m_noneRestoreGranule);
            state.replay.restoreOnlyChanged(std::move(regions));
        }
    }
    state.replay.setPassStartDirtyBytes(m_passDirtyBytes, m_passDirtyFirstOnly, m_passDirtyCopy);
    crash::noteActivity(("replaying " + launch + " (checkpoint, passes, restores)").c_str());
    const bool ok = state.replay.replay(
        state.ctx, state.session, state.eviction.get(), [&] { return relaunch(cbid, cb); },
        state.device->config->passes() + 2, passes, error);
    t_replaying = false;
    g_replays.fetch_sub(1, std::memory_order_relaxed);
    if (!ok) {
        warnOnce("replay:" + error,
            error + "; launch " + std::to_string(state.pending.back().index) + " has no metric values");
        state.pending.clear();
        std::string resetError;
        if (!state.session.reset(resetError))
            fail(state, resetError, {});
        return;
    }
    if (m_replay == Replay::Diff)
        m_writer.note("launch " + std::to_string(state.pending.back().index) + ": replay watched "
            + std::to_string(state.replay.lastWatchedBytes()) + " bytes of argument memory, restored "
            + std::to_string(state.replay.lastChangedBytes()) + " at most after a run");
    flush(state); // decodes the one range and configures the session for the next launch
}

void KernelProfiler::addReplayTimes(const ContextState& state)
{
    const auto& t = state.replay.times();
    m_replayTimes.saveMs += t.saveMs;
    m_replayTimes.restoreMs += t.restoreMs;
    m_replayTimes.evictMs += t.evictMs;
    m_replayTimes.startMs += t.startMs;
    m_replayTimes.launchMs += t.launchMs;
    m_replayTimes.stopMs += t.stopMs;
    m_replayTimes.passes += t.passes;
}

void KernelProfiler::onContextDestroyStarting(CUcontext ctx)
{
    std::lock_guard lock(m_mutex);
    auto it = m_contexts.find(ctx);
    if (it == m_contexts.end() || !it->second)
        return;
    if (!it->second->failed)
        flush(*it->second);
    addReplayTimes(*it->second);
    it->second->replay.release();
    it->second->session.close();
    it->second->failed = true; // a new context at the same address starts over
    m_contexts.erase(it);
}

void KernelProfiler::finish()
{
    std::lock_guard lock(m_mutex);
    if (!m_active || m_finished)
        return;
    m_finished = true;
    if (m_pcSampling)
        m_sampler.finish();
    for (auto& [ctx, state] : m_contexts) {
        if (!state || state->failed)
            continue;
        flush(*state);
        addReplayTimes(*state);
        state->session.close();
    }
    if (userReplay()) {
        const auto& replayTimes = m_replayTimes;
        m_writer.info("replay_passes", std::to_string(replayTimes.passes));
        m_writer.info("replay_save_ms", std::to_string(replayTimes.saveMs));
        m_writer.info("replay_restore_ms", std::to_string(replayTimes.restoreMs));
        m_writer.info("replay_evict_ms", std::to_string(replayTimes.evictMs));
        m_writer.info("replay_start_ms", std::to_string(replayTimes.startMs));
        m_writer.info("replay_launch_ms", std::to_string(replayTimes.launchMs));
        m_writer.info("replay_stop_ms", std::to_string(replayTimes.stopMs));
    }
    m_writer.info("launches_matched", std::to_string(m_matched));
    m_writer.info("launches_profiled", std::to_string(m_profiled));
    m_writer.info("graph_launches_skipped", std::to_string(m_skippedGraphs));
    m_writer.info("captured_launches_skipped", std::to_string(m_skippedCaptured));
    if (m_config.captureProfilerApi)
        m_writer.info("profiler_starts", std::to_string(m_profilerStarts));
    m_writer.info("profiled_launch_wall_ms", std::to_string(m_replayMs));
    const int lateCalls = m_gate.lateCalls();
    if (lateCalls > 0) {
        const std::string text = std::to_string(lateCalls)
            + " memory call(s) of other threads waited 60 s for a replay and then ran during it; the replay's "
              "final restore may have undone them";
        m_writer.info("memory_calls_during_replay", std::to_string(lateCalls));
        std::fprintf(stderr, "warpscope-profile: %s\n", text.c_str());
    }
    m_writer.end();
    if (m_profilerInitialized) {
        auto dp = params<CUpti_Profiler_DeInitialize_Params>(CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE);
        cuptiProfilerDeInitialize(&dp);
    }
    if (m_skippedGraphs > 0)
        std::fprintf(stderr, "warpscope-profile: %lld CUDA graph launch(es) ran unprofiled\n",
            static_cast<long long>(m_skippedGraphs));
}

} // namespace ws::profiler
