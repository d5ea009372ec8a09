// SPDX-License-Identifier: MIT
#include "pmsampler.h"

#include "cudadriver.h"
#include "recorder.h"

#include "core/raw/pmsampling.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <mutex>
#include <pthread.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

// PM sampling arrived in CUPTI 12.6; a program may bring an older libcupti (PyTorch wheels),
// which the injection library then binds to. Weak references keep the library loadable there
// and let --gpu-metrics report "unsupported" instead.
#pragma weak cuptiPmSamplingEnable
#pragma weak cuptiPmSamplingDisable
#pragma weak cuptiPmSamplingSetConfig
#pragma weak cuptiPmSamplingStart
#pragma weak cuptiPmSamplingStop
#pragma weak cuptiPmSamplingDecodeData
#pragma weak cuptiPmSamplingGetCounterAvailability
#pragma weak cuptiPmSamplingGetCounterDataSize
#pragma weak cuptiPmSamplingCounterDataImageInitialize
#pragma weak cuptiPmSamplingGetCounterDataInfo
#pragma weak cuptiPmSamplingCounterDataGetSampleInfo
#pragma weak cuptiProfilerHostInitialize
#pragma weak cuptiProfilerHostDeinitialize
#pragma weak cuptiProfilerHostConfigAddMetrics
#pragma weak cuptiProfilerHostGetConfigImageSize
#pragma weak cuptiProfilerHostGetConfigImage
#pragma weak cuptiProfilerHostEvaluateToGpuValues
#pragma weak cuptiProfilerDeviceSupported
#pragma weak cuptiDeviceGetChipName

namespace ws::inject::pm {

namespace {

template <typename T> T params(size_t structSize)
{
    T p {};
    p.structSize = structSize;
    return p;
}

int64_t clockNs(clockid_t clock)
{
    timespec ts {};
    clock_gettime(clock, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::string status(CUptiResult r)
{
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "CUPTI_ERROR";
    return std::string(s) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

// The remedy for the errors users can act on (the same words as `warpscope-cli profile`).
std::string remedy(CUptiResult r)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return "no permission to read the GPU performance counters. Run as root, or allow all users: add "
               "'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/, then "
               "reload the nvidia kernel module (or reboot). See https://developer.nvidia.com/ERR_NVGPUCTRPERM";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return "PM sampling is not supported on this GPU or configuration (virtualized or MIG GPU, CMP board, WSL, "
               "confidential computing, or a GPU older than Ampere)";
    default:
        return {};
    }
}

// WS_PM_TRACE=1: each set-up, decode and exit step on stderr, unbuffered (write(2)), so the
// last one before a crash inside CUPTI is visible.
void trace(const char* step)
{
    static const bool on = std::getenv("WS_PM_TRACE") != nullptr;
    if (!on)
        return;
    char line[160];
    const int n = std::snprintf(line, sizeof line, "ws-pm %lld.%06lld [%ld] %s\n",
        static_cast<long long>(clockNs(CLOCK_MONOTONIC) / 1000000000),
        static_cast<long long>(clockNs(CLOCK_MONOTONIC) / 1000 % 1000000), static_cast<long>(gettid()), step);
    if (n > 0)
        (void)!::write(2, line, static_cast<size_t>(std::min<int>(n, sizeof line - 1)));
}

// Plain pointers only (see Recorder): the exit path may run after static destructors.
struct Sampler {
    Recorder* recorder = nullptr;
    void* ctx = nullptr;
    uint32_t device = 0;
    uint64_t periodNs = raw::kPmDefaultPeriodNs;
    double durationS = 0;
    std::mutex mutex; // guards stop, windows, capturing
    std::condition_variable wake;
    bool stop = false;
    bool finished = false;
    // Capture windows [start, end), end = INT64_MAX while open.
    std::vector<std::pair<int64_t, int64_t>> windows;
    bool windowsKnown = false;
    std::thread thread;

    CUpti_PmSampling_Object* object = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<uint8_t> image;
    // Kept for the life of the sampler: CUPTI keeps pointers to them (the host object to the
    // chip name and availability image, the sampling object to the config image). Locals here
    // made the first decode crash (SIGSEGV) or fail with CUPTI_ERROR_UNKNOWN on the H200.
    std::string chip;
    std::vector<uint8_t> availability;
    std::vector<uint8_t> config;
    std::vector<const char*> names;
    uint64_t written = 0;
    uint64_t completed = 0;
    bool firstWritten = false;
    bool overflow = false;
    bool started = false;
    bool broken = false; // a decode failed: no more decodes, the rest is torn down at exit
};

std::mutex g_startMutex;
Sampler* g_sampler = nullptr; // created by the first contextCreated, never destroyed

void initWindowsLocked(Sampler& s, bool capturingBefore)
{
    if (s.windowsKnown)
        return;
    s.windowsKnown = true;
    if (capturingBefore)
        s.windows.emplace_back(INT64_MIN, INT64_MAX);
}

bool inCapture(Sampler& s, int64_t start, int64_t end)
{
    std::lock_guard lock(s.mutex);
    for (const auto& [from, to] : s.windows)
        if (start < to && end >= from)
            return true;
    return false;
}

void message(Sampler& s, raw::MessageLevel level, const std::string& text)
{
    s.recorder->message(level, "GPU metrics: " + text);
}

void environment(Sampler& s, const std::string& key, const std::string& value)
{
    auto& w = s.recorder->writer();
    raw::EnvironmentRecord e {w.intern(key), w.intern(value)};
    w.add(raw::RecordType::Environment, e);
}

// An error with its remedy, and the note that the trace goes on without metrics.
bool fail(Sampler& s, const char* what, CUptiResult r)
{
    const std::string why = remedy(r);
    message(s, raw::MessageLevel::Error,
        std::string(what) + " failed: " + status(r) + (why.empty() ? "" : ": " + why)
            + "; recording the trace without GPU metrics");
    return false;
}

bool setUp(Sampler& s)
{
    trace("setUp: begin");
    if (!&cuptiPmSamplingEnable || !&cuptiProfilerHostInitialize || !&cuptiProfilerDeviceSupported) {
        message(s, raw::MessageLevel::Warning,
            "this CUPTI has no PM sampling API (CUPTI 12.6 or newer needed); recording the trace without GPU "
            "metrics");
        return false;
    }
    const CudaDriver* cu = cudaDriver();
    if (!cu || !cu->deviceGet) {
        message(s, raw::MessageLevel::Error, "the CUDA driver's entry points were not found");
        return false;
    }
    // The profiler APIs want a current context on the calling thread.
    cu->ctxSetCurrent(static_cast<CUcontext>(s.ctx));

    trace("setUp: cuptiProfilerInitialize");
    auto init = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS)
        return fail(s, "cuptiProfilerInitialize", r);

    CUdevice dev = 0;
    cu->deviceGet(&dev, static_cast<int>(s.device));
    auto sup = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
    sup.cuDevice = dev;
    sup.api = CUPTI_PROFILER_PM_SAMPLING;
    if (CUptiResult r = cuptiProfilerDeviceSupported(&sup); r != CUPTI_SUCCESS)
        return fail(s, "cuptiProfilerDeviceSupported", r);
    if (sup.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        std::string why;
        const auto flag = [&why](CUpti_Profiler_Support_Level level, const char* name) {
            if (level != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
                why += std::string(why.empty() ? "" : ", ") + name
                    + (level == CUPTI_PROFILER_CONFIGURATION_DISABLED ? " (disabled)" : "");
        };
        flag(sup.architecture, "architecture");
        flag(sup.sli, "SLI");
        flag(sup.vGpu, "vGPU");
        flag(sup.confidentialCompute, "confidential computing");
        flag(sup.cmp, "CMP board");
        flag(sup.wsl, "WSL");
        message(s, raw::MessageLevel::Warning,
            "PM sampling is not supported on device " + std::to_string(s.device) + " (" + why
                + "); recording the trace without GPU metrics");
        return false;
    }

    auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = s.device;
    if (CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS)
        return fail(s, "cuptiDeviceGetChipName", r);
    s.chip = chip.pChipName ? chip.pChipName : "";
    const std::string& chipName = s.chip;

    auto en = params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    en.deviceIndex = s.device;
    trace("setUp: cuptiPmSamplingEnable");
    if (CUptiResult r = cuptiPmSamplingEnable(&en); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingEnable", r);
    s.object = en.pPmSamplingObject;

    auto av = params<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    av.deviceIndex = s.device;
    if (CUptiResult r = cuptiPmSamplingGetCounterAvailability(&av); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingGetCounterAvailability", r);
    std::vector<uint8_t>& availability = s.availability;
    availability.assign(av.counterAvailabilityImageSize, 0);
    av.pCounterAvailabilityImage = availability.data();
    if (CUptiResult r = cuptiPmSamplingGetCounterAvailability(&av); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingGetCounterAvailability", r);

    auto hi = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chipName.c_str();
    hi.pCounterAvailabilityImage = availability.data();
    trace("setUp: cuptiProfilerHostInitialize");
    if (CUptiResult r = cuptiProfilerHostInitialize(&hi); r != CUPTI_SUCCESS)
        return fail(s, "cuptiProfilerHostInitialize", r);
    s.host = hi.pHostObject;
    for (const auto& m : raw::kPmMetrics)
        s.names.push_back(m.name.data());
    auto add
        = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = s.host;
    add.ppMetricNames = s.names.data();
    add.numMetrics = s.names.size();
    if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
        return fail(s, ("adding the metrics for " + chipName).c_str(), r);
    auto csz = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    csz.pHostObject = s.host;
    if (CUptiResult r = cuptiProfilerHostGetConfigImageSize(&csz); r != CUPTI_SUCCESS)
        return fail(s, "cuptiProfilerHostGetConfigImageSize", r);
    std::vector<uint8_t>& config = s.config;
    config.assign(csz.configImageSize, 0);
    auto cim = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    cim.pHostObject = s.host;
    cim.configImageSize = config.size();
    cim.pConfigImage = config.data();
    if (CUptiResult r = cuptiProfilerHostGetConfigImage(&cim); r != CUPTI_SUCCESS)
        return fail(s, "cuptiProfilerHostGetConfigImage", r);

    const uint32_t maxSamples = raw::pmImageSamples(s.periodNs, s.durationS);
    auto dsz
        = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    dsz.pPmSamplingObject = s.object;
    dsz.pMetricNames = s.names.data();
    dsz.numMetrics = s.names.size();
    dsz.maxSamples = maxSamples;
    if (CUptiResult r = cuptiPmSamplingGetCounterDataSize(&dsz); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingGetCounterDataSize", r);
    s.image.assign(dsz.counterDataSize, 0);
    auto ini = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    ini.pPmSamplingObject = s.object;
    ini.counterDataSize = s.image.size();
    ini.pCounterData = s.image.data();
    if (CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&ini); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingCounterDataImageInitialize", r);

    const uint64_t hwBytes = raw::pmHardwareBufferBytes(s.periodNs);
    auto sc = params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    sc.pPmSamplingObject = s.object;
    sc.configSize = config.size();
    sc.pConfig = config.data();
    sc.hardwareBufferSize = hwBytes;
    sc.samplingInterval = s.periodNs;
    sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
    sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    trace("setUp: cuptiPmSamplingSetConfig");
    if (CUptiResult r = cuptiPmSamplingSetConfig(&sc); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingSetConfig", r);

    auto& w = s.recorder->writer();
    for (uint32_t i = 0; i < std::size(raw::kPmMetrics); ++i) {
        raw::PmMetricRecord m {s.device, i, s.periodNs};
        w.add(raw::RecordType::PmMetric, m, raw::kPmMetrics[i].name);
    }
    environment(s, "gpu_metrics.chip", chipName);
    environment(s, "gpu_metrics.period_ns", std::to_string(s.periodNs));
    environment(s, "gpu_metrics.image_samples", std::to_string(maxSamples));
    environment(s, "gpu_metrics.image_bytes", std::to_string(s.image.size()));
    environment(s, "gpu_metrics.hw_buffer_bytes", std::to_string(hwBytes));

    auto st = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    st.pPmSamplingObject = s.object;
    if (CUptiResult r = cuptiPmSamplingStart(&st); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingStart", r);
    s.started = true;
    // Again now: exit handlers CUPTI itself may have registered during set-up must not run
    // before the final decode either (pm::shutdown is idempotent).
    std::atexit([] { shutdown(); });
    trace("setUp: started");
    return true;
}

// Drains the hardware buffer: decode into the image, write its completed samples, reset it,
// again while the image was the limit.
void decode(Sampler& s)
{
    if (s.broken)
        return;
    trace("decode");
    std::vector<double> values(s.names.size());
    // Bounded: the hardware buffer holds at most a few hundred image-fulls.
    for (int round = 0; round < 4096; ++round) {
        auto dd = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
        dd.pPmSamplingObject = s.object;
        dd.pCounterDataImage = s.image.data();
        dd.counterDataImageSize = s.image.size();
        if (CUptiResult r = cuptiPmSamplingDecodeData(&dd); r != CUPTI_SUCCESS) {
            s.broken = true;
            fail(s, "cuptiPmSamplingDecodeData", r);
            return;
        }
        if (dd.overflow && !s.overflow) {
            s.overflow = true;
            message(s, raw::MessageLevel::Warning,
                "the hardware buffer overflowed: samples are missing (the period is too short for the decode rate)");
        }
        auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(
            CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
        info.pCounterDataImage = s.image.data();
        info.counterDataImageSize = s.image.size();
        if (cuptiPmSamplingGetCounterDataInfo(&info) != CUPTI_SUCCESS)
            return;
        // One clock reading per batch decides the domain of all its (recent) samples.
        const int64_t nowRt = clockNs(CLOCK_REALTIME), nowMono = clockNs(CLOCK_MONOTONIC);
        std::string frames;
        uint64_t count = 0;
        for (size_t i = 0; i < info.numCompletedSamples; ++i) {
            auto si = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
                CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
            si.pPmSamplingObject = s.object;
            si.pCounterDataImage = s.image.data();
            si.counterDataImageSize = s.image.size();
            si.sampleIndex = i;
            if (cuptiPmSamplingCounterDataGetSampleInfo(&si) != CUPTI_SUCCESS)
                continue;
            ++s.completed;
            raw::PmSampleRecord rec {};
            rec.start = raw::pmToMonotonic(static_cast<int64_t>(si.startTimestamp), nowRt, nowMono);
            rec.end = raw::pmToMonotonic(static_cast<int64_t>(si.endTimestamp), nowRt, nowMono);
            rec.deviceId = s.device;
            rec.count = static_cast<uint32_t>(values.size());
            // The first sample is kept whatever the capture windows say: ingest drops it.
            if (s.firstWritten && !inCapture(s, rec.start, rec.end))
                continue;
            auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
                CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
            ev.pHostObject = s.host;
            ev.pCounterDataImage = s.image.data();
            ev.counterDataImageSize = s.image.size();
            ev.rangeIndex = i;
            ev.ppMetricNames = s.names.data();
            ev.numMetrics = s.names.size();
            ev.pMetricValues = values.data();
            if (cuptiProfilerHostEvaluateToGpuValues(&ev) != CUPTI_SUCCESS)
                continue;
            s.firstWritten = true;
            raw::appendFrame(frames, raw::RecordType::PmSample, rec,
                std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)));
            ++count;
        }
        s.written += count;
        if (count > 0)
            s.recorder->writer().addPrepared(frames, count);
        auto ini = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
            CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
        ini.pPmSamplingObject = s.object;
        ini.counterDataSize = s.image.size();
        ini.pCounterData = s.image.data();
        cuptiPmSamplingCounterDataImageInitialize(&ini);
        if (dd.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL)
            return;
    }
}

void tearDown(Sampler& s)
{
    if (s.started) {
        auto sp = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
        sp.pPmSamplingObject = s.object;
        trace("tearDown: stop");
        cuptiPmSamplingStop(&sp);
        decode(s);
        environment(s, "gpu_metrics.samples_completed", std::to_string(s.completed));
        environment(s, "gpu_metrics.samples_written", std::to_string(s.written));
        environment(s, "gpu_metrics.overflow", s.overflow ? "1" : "0");
    }
    if (s.object) {
        auto dp = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        dp.pPmSamplingObject = s.object;
        trace("tearDown: disable");
        cuptiPmSamplingDisable(&dp);
        s.object = nullptr;
    }
    if (s.host) {
        auto hd = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
        hd.pHostObject = s.host;
        trace("tearDown: host deinitialize");
        cuptiProfilerHostDeinitialize(&hd);
        s.host = nullptr;
    }
}

// CUPTI loads libnvperf_host (the metric evaluator) from its own directory during set-up, and
// the static destructors of a library loaded then run at exit *before* every exit handler
// registered earlier, the recorder's included. On the H200 both --gpu-metrics runs crashed
// (SIGSEGV) at exit that way: set-up (about 1 s) was still running, or the final decode ran,
// after nvperf's destructors. So the library is loaded here, first, and the sampler's own exit
// handler is registered right after it: it then runs before nvperf's destructors and waits for
// set-up to finish.
void loadProfilerHost()
{
    Dl_info info {};
    if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname) {
        std::string dir(info.dli_fname);
        dir = dir.substr(0, dir.rfind('/') + 1);
        if (dlopen((dir + "libnvperf_host.so").c_str(), RTLD_NOW | RTLD_GLOBAL))
            return;
    }
    dlopen("libnvperf_host.so", RTLD_NOW | RTLD_GLOBAL);
}

bool timedSetUp(Sampler& s)
{
    const int64_t t0 = clockNs(CLOCK_MONOTONIC);
    const bool ok = setUp(s);
    environment(s, "gpu_metrics.setup_ms", std::to_string((clockNs(CLOCK_MONOTONIC) - t0) / 1000000));
    return ok;
}

// `ready`: set-up already done (WS_PM_SETUP=sync), with this result.
void run(Sampler& s, int ready)
{
    pthread_setname_np(pthread_self(), "ws-pmsampler");
    // Decoding, like set-up, with the sampled context current on this thread.
    if (const CudaDriver* cu = cudaDriver())
        cu->ctxSetCurrent(static_cast<CUcontext>(s.ctx));
    const bool ok = ready >= 0 ? ready == 1 : timedSetUp(s);
    std::unique_lock lock(s.mutex);
    while (ok && !s.stop && !s.broken) {
        s.wake.wait_for(lock, std::chrono::nanoseconds(raw::kPmDecodeIntervalNs), [&s] { return s.stop; });
        if (s.stop)
            break;
        lock.unlock();
        decode(s);
        lock.lock();
    }
    // The exit path stops, decodes the rest and disables, on its own thread; a failed set-up
    // still releases what it got.
    if (!ok) {
        lock.unlock();
        tearDown(s);
        lock.lock();
    }
    s.finished = true;
    s.wake.notify_all();
}

} // namespace

void contextCreated(Recorder& recorder, void* ctx, uint32_t deviceOrdinal)
{
    const char* period = std::getenv(raw::kEnvGpuMetrics);
    if (!period)
        return;
    std::lock_guard start(g_startMutex);
    if (g_sampler)
        return;            // one device per process: the first the program uses
    auto* s = new Sampler; // never deleted, see Recorder
    s->recorder = &recorder;
    s->ctx = ctx;
    s->device = deviceOrdinal;
    const long long p = std::atoll(period);
    s->periodNs = p > 0 ? static_cast<uint64_t>(p) : raw::kPmDefaultPeriodNs;
    s->durationS = recorder.config().durationS;
    {
        std::lock_guard lock(s->mutex);
        initWindowsLocked(*s, recorder.capturing());
    }
    g_sampler = s;
    loadProfilerHost();
    std::atexit([] { shutdown(); }); // see loadProfilerHost
    // Set-up (320-370 ms on the H200) runs here, on the thread creating the context, restoring
    // its current context afterwards: then a program cannot exit while set-up is half done,
    // which crashed a short program on the H200 when set-up ran on the sampler thread
    // (WS_PM_SETUP=async still does that, for comparison).
    int ready = -1;
    if (const char* mode = std::getenv("WS_PM_SETUP"); !mode || std::string(mode) != "async") {
        const CudaDriver* cu = cudaDriver();
        CUcontext before = nullptr;
        if (cu)
            cu->ctxGetCurrent(&before);
        ready = timedSetUp(*s) ? 1 : 0;
        if (cu && before != static_cast<CUcontext>(ctx))
            cu->ctxSetCurrent(before);
    }
    s->thread = std::thread([s, ready] { run(*s, ready); });
}

void captureChanged(Recorder& recorder, bool capturing, int64_t nowNs)
{
    std::lock_guard start(g_startMutex);
    if (!g_sampler)
        return;
    Sampler& s = *g_sampler;
    std::lock_guard lock(s.mutex);
    (void)recorder;
    if (capturing) {
        s.windows.emplace_back(nowNs, INT64_MAX);
    } else if (!s.windows.empty() && s.windows.back().second == INT64_MAX) {
        s.windows.back().second = nowNs;
    }
}

void shutdown()
{
    trace("shutdown: begin");
    Sampler* s = nullptr;
    {
        std::lock_guard start(g_startMutex);
        s = g_sampler;
    }
    if (!s)
        return;
    {
        std::unique_lock lock(s->mutex);
        if (s->stop)
            return;
        s->stop = true;
        s->wake.notify_all();
        // The sampler finishes its set-up or current decode; never hang the program's exit on it.
        if (!s->wake.wait_for(lock, std::chrono::seconds(20), [s] { return s->finished; })) {
            s->recorder->message(raw::MessageLevel::Warning, "GPU metrics: the sampler did not stop within 20 s");
            return;
        }
    }
    if (s->thread.joinable())
        s->thread.join();
    tearDown(*s);
    trace("shutdown: done");
}

} // namespace ws::inject::pm
