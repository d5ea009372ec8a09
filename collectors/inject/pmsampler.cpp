// SPDX-License-Identifier: MIT
#include "pmsampler.h"

#include "cudadriver.h"
#include "recorder.h"

#include "core/raw/pmsampling.h"
#include "pmdecode.h"

#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <dlfcn.h>
#include <memory>
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

struct Image {
    std::vector<uint8_t> bytes;
    const std::vector<uint8_t>* pristine = nullptr; // an initialized empty image of the same size
    bool fixture = false;
};

// One decoded image's samples to evaluate: index in the image, interval in CLOCK_MONOTONIC and
// in CUPTI's clock (the fixture keeps those).
struct Slot {
    size_t index = 0;
    int64_t start = 0;
    int64_t end = 0;
    uint64_t rawStart = 0;
    uint64_t rawEnd = 0;
};

struct Job {
    Image* image = nullptr;
    std::vector<Slot> slots;
};

// Plain pointers only (see Recorder): the exit path may run after static destructors. The
// sampler is never destroyed, so its members never are either.
struct Sampler {
    Recorder* recorder = nullptr;
    void* ctx = nullptr;
    uint32_t device = 0;
    uint64_t periodNs = raw::kPmDefaultPeriodNs;
    double durationS = 0;
    raw::PmSizing sizing;
    std::mutex mutex;               // guards everything below up to `thread`
    std::condition_variable wake;   // the decode thread: stop requested, an image freed
    std::condition_variable jobsCv; // the evaluators: a job queued, or no more jobs
    std::condition_variable doneCv; // shutdown: the sampler finished
    bool stop = false;
    int64_t stopNs = INT64_MAX; // the program's end: samples starting later are not evaluated
    int64_t deadlineNs = INT64_MAX;
    bool stopped = false; // cuptiPmSamplingStop was called
    bool noMoreJobs = false;
    bool finished = false;
    // Capture windows [start, end), end = INT64_MAX while open.
    std::vector<std::pair<int64_t, int64_t>> windows;
    bool windowsKnown = false;
    std::vector<Image*> freeImages;
    std::deque<Job> jobs;
    size_t maxQueued = 0;
    std::thread thread;
    std::vector<std::thread> evaluators;

    CUpti_PmSampling_Object* object = nullptr;
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<uint8_t> pristine;
    std::vector<std::unique_ptr<Image>> images;
    // Kept for the life of the sampler: CUPTI keeps pointers to them (the host object to the
    // chip name and availability image, the sampling object to the config image). Locals here
    // made the first decode crash (SIGSEGV) or fail with CUPTI_ERROR_UNKNOWN on the H200.
    std::string chip;
    std::vector<uint8_t> availability;
    std::vector<uint8_t> config;
    std::vector<const char*> names;
    bool started = false;
    bool broken = false;  // decoding failed for good: the rest is torn down at exit
    int64_t brokenNs = 0; // when: from there to the program's end is a gap
    int64_t startNs = 0;
    int64_t programEndNs = 0;
    int64_t stoppedNs = 0;
    int64_t finishedNs = 0;

    // Decode thread only.
    int64_t lastEnd = INT64_MIN; // end of the last decoded sample (monotonic)
    bool overflowSeen = false;
    bool lastDecodeFull = false; // the previous decode filled its image (CUPTI then drops the rest)
    // A small image decoded once and written out as a test fixture (WS_PM_FIXTURE_DIR).
    std::string fixtureDir;
    int64_t fixtureAfterNs = 0;
    Image* fixture = nullptr;
    std::vector<uint8_t> fixturePristine;

    // Statistics (environment gpu_metrics.*): atomics, several threads add to them.
    std::atomic<uint64_t> completed {0}, written {0}, outside {0}, afterStop {0}, timeFailed {0}, evalFailed {0};
    std::atomic<uint64_t> gaps {0}, gapNs {0}, decodes {0}, decodeNs {0}, decodeMaxNs {0}, evalNs {0};
    std::atomic<uint64_t> decodesFull {0}, decodeCpuNs {0}, sampleInfoNs {0}, restoreNs {0}, imageWaits {0},
        imageWaitNs {0}, restarts {0};
};

std::mutex g_startMutex;
Sampler* g_sampler = nullptr; // created by the first contextCreated, never destroyed

void atomicMax(std::atomic<uint64_t>& a, uint64_t v)
{
    uint64_t cur = a.load();
    while (v > cur && !a.compare_exchange_weak(cur, v)) { }
}

void initWindowsLocked(Sampler& s, bool capturingBefore)
{
    if (s.windowsKnown)
        return;
    s.windowsKnown = true;
    if (capturingBefore)
        s.windows.emplace_back(INT64_MIN, INT64_MAX);
}

bool inWindows(const std::vector<std::pair<int64_t, int64_t>>& windows, int64_t start, int64_t end)
{
    for (const auto& [from, to] : windows)
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

// A stretch without samples: written at once, counted, never silent.
// Gaps outside the capture windows are none: nothing was to be recorded there.
void gap(Sampler& s, int64_t start, int64_t end, raw::PmGapReason reason)
{
    if (end <= start)
        return;
    {
        std::lock_guard lock(s.mutex);
        if (!inWindows(s.windows, start, end))
            return;
    }
    raw::PmGapRecord g {start, end, s.device, static_cast<uint32_t>(reason)};
    s.recorder->writer().add(raw::RecordType::PmGap, g);
    ++s.gaps;
    s.gapNs += static_cast<uint64_t>(end - start);
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

constexpr uint32_t kFixtureSamples = 16;

// An initialized, empty counter-data image for `samples` samples.
bool initImage(Sampler& s, std::vector<uint8_t>& image, uint32_t samples, const char* what)
{
    auto dsz
        = params<CUpti_PmSampling_GetCounterDataSize_Params>(CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    dsz.pPmSamplingObject = s.object;
    dsz.pMetricNames = s.names.data();
    dsz.numMetrics = s.names.size();
    dsz.maxSamples = samples;
    if (CUptiResult r = cuptiPmSamplingGetCounterDataSize(&dsz); r != CUPTI_SUCCESS)
        return fail(s, (std::string("cuptiPmSamplingGetCounterDataSize for ") + what).c_str(), r);
    image.assign(dsz.counterDataSize, 0);
    auto ini = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
        CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    ini.pPmSamplingObject = s.object;
    ini.counterDataSize = image.size();
    ini.pCounterData = image.data();
    if (CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&ini); r != CUPTI_SUCCESS)
        return fail(s, (std::string("cuptiPmSamplingCounterDataImageInitialize for ") + what).c_str(), r);
    return true;
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

    for (const auto& m : raw::kPmMetrics)
        s.names.push_back(m.name.data());
    trace("setUp: cuptiProfilerHostInitialize");
    {
        std::string step;
        CUptiResult r = CUPTI_ERROR_UNKNOWN;
        s.host = createHost(s.chip, s.availability, s.names, step, &r);
        if (!s.host)
            return fail(s, step.c_str(), r);
    }
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

    const uint32_t maxSamples = s.sizing.imageSamples;
    if (!initImage(s, s.pristine, maxSamples, "the counter-data image"))
        return false;
    for (uint32_t i = 0; i < s.sizing.images; ++i) {
        auto img = std::make_unique<Image>();
        img->bytes = s.pristine;
        img->pristine = &s.pristine;
        s.freeImages.push_back(img.get());
        s.images.push_back(std::move(img));
    }
    if (!s.fixtureDir.empty() && initImage(s, s.fixturePristine, kFixtureSamples, "the fixture image")) {
        auto img = std::make_unique<Image>();
        img->bytes = s.fixturePristine;
        img->pristine = &s.fixturePristine;
        img->fixture = true;
        s.fixture = img.get();
        s.images.push_back(std::move(img));
    }

    const uint64_t hwBytes = s.sizing.hardwareBufferBytes;
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
    environment(s, "gpu_metrics.image_bytes", std::to_string(s.pristine.size()));
    environment(s, "gpu_metrics.images", std::to_string(s.sizing.images));
    environment(s, "gpu_metrics.evaluators", std::to_string(s.sizing.evaluators));
    environment(s, "gpu_metrics.decode_interval_us", std::to_string(s.sizing.decodeIntervalNs / 1000));
    environment(s, "gpu_metrics.hw_buffer_bytes", std::to_string(hwBytes));

    auto st = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    st.pPmSamplingObject = s.object;
    if (CUptiResult r = cuptiPmSamplingStart(&st); r != CUPTI_SUCCESS)
        return fail(s, "cuptiPmSamplingStart", r);
    s.started = true;
    s.startNs = clockNs(CLOCK_MONOTONIC);
    // Again now: exit handlers CUPTI itself may have registered during set-up must not run
    // before the final decode either (pm::shutdown is idempotent).
    std::atexit([] { shutdown(); });
    trace("setUp: started");
    return true;
}

// ---- Evaluation (evaluator threads) ----

void writeFixtureSamples(Sampler& s, const Job& job, const std::vector<std::vector<double>>& values)
{
    FILE* f = std::fopen((s.fixtureDir + "/samples.tsv").c_str(), "w");
    if (!f)
        return;
    std::fprintf(f, "index\tstart\tend");
    for (const auto& m : raw::kPmMetrics)
        std::fprintf(f, "\t%s", m.name.data());
    std::fprintf(f, "\n");
    for (size_t k = 0; k < job.slots.size(); ++k) {
        std::fprintf(f, "%zu\t%llu\t%llu", job.slots[k].index, static_cast<unsigned long long>(job.slots[k].rawStart),
            static_cast<unsigned long long>(job.slots[k].rawEnd));
        for (double v : values[k])
            std::fprintf(f, "\t%.17g", v);
        std::fprintf(f, "\n");
    }
    std::fclose(f);
}

// Evaluates one image's samples into PmSample records, then empties the image (a copy of the
// pristine one: much cheaper than initializing it again) and hands it back to the decoder.
void evaluateJob(Sampler& s, CUpti_Profiler_Host_Object* host, Job& job)
{
    const int64_t t0 = clockNs(CLOCK_MONOTONIC);
    std::vector<double> values(s.names.size());
    std::vector<std::vector<double>> kept; // fixture only
    std::string frames;
    uint64_t count = 0;
    for (const Slot& slot : job.slots) {
        if (evaluate(host, job.image->bytes, slot.index, s.names, values.data()) != CUPTI_SUCCESS) {
            ++s.evalFailed;
            gap(s, slot.start, slot.end, raw::PmGapReason::EvaluateFailed);
            continue;
        }
        raw::PmSampleRecord rec {slot.start, slot.end, s.device, static_cast<uint32_t>(values.size())};
        raw::appendFrame(frames, raw::RecordType::PmSample, rec,
            std::string_view(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double)));
        ++count;
        if (job.image->fixture)
            kept.push_back(values);
    }
    if (count > 0)
        s.recorder->writer().addPrepared(frames, count);
    s.written += count;
    const int64_t t1 = clockNs(CLOCK_MONOTONIC);
    s.evalNs += static_cast<uint64_t>(t1 - t0);
    if (job.image->fixture) {
        if (kept.size() == job.slots.size())
            writeFixtureSamples(s, job, kept);
        return; // used once, never recycled
    }
    std::memcpy(job.image->bytes.data(), job.image->pristine->data(), job.image->bytes.size());
    s.restoreNs += static_cast<uint64_t>(clockNs(CLOCK_MONOTONIC) - t1);
    std::lock_guard lock(s.mutex);
    s.freeImages.push_back(job.image);
    s.wake.notify_all();
}

// Each evaluator has a host object of its own (the first uses set-up's), so evaluations never
// share one.
void evaluatorLoop(Sampler& s, unsigned index)
{
    pthread_setname_np(pthread_self(), "ws-pmeval");
    CUpti_Profiler_Host_Object* host = s.host;
    if (index > 0) {
        std::string step;
        host = createHost(s.chip, s.availability, s.names, step);
        if (!host)
            message(s, raw::MessageLevel::Warning, "evaluator " + std::to_string(index) + ": " + step + " failed");
    }
    std::unique_lock lock(s.mutex);
    while (host) {
        s.jobsCv.wait(lock, [&s] { return !s.jobs.empty() || s.noMoreJobs; });
        if (s.jobs.empty())
            break;
        Job job = std::move(s.jobs.front());
        s.jobs.pop_front();
        lock.unlock();
        evaluateJob(s, host, job);
        lock.lock();
    }
    if (index > 0 && host) {
        lock.unlock();
        destroyHost(host);
    }
}

// ---- Decoding (the decode thread) ----

void dumpFixture(Sampler& s, const Image& img, size_t completed)
{
    const auto write = [&s](const char* name, const void* data, size_t size) {
        if (FILE* f = std::fopen((s.fixtureDir + "/" + name).c_str(), "wb")) {
            std::fwrite(data, 1, size, f);
            std::fclose(f);
        }
    };
    write("counterdata.bin", img.bytes.data(), img.bytes.size());
    write("availability.bin", s.availability.data(), s.availability.size());
    std::string about = "chip\t" + s.chip + "\nperiod_ns\t" + std::to_string(s.periodNs) + "\nsamples\t"
        + std::to_string(completed) + "\nimage_bytes\t" + std::to_string(img.bytes.size()) + "\n";
    for (const auto& m : raw::kPmMetrics)
        about += "metric\t" + std::string(m.name) + "\n";
    write("about.tsv", about.data(), about.size());
}

void stopSampling(Sampler& s)
{
    if (s.stopped)
        return;
    s.stopped = true;
    auto sp = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    sp.pPmSamplingObject = s.object;
    trace("stop");
    cuptiPmSamplingStop(&sp);
    s.stoppedNs = clockNs(CLOCK_MONOTONIC);
}

// A free image, waiting for an evaluator to hand one back. Stops sampling meanwhile once the
// program has ended (so a busy evaluator never delays the stop). nullptr past the drain deadline.
Image* takeImage(Sampler& s, bool useFixture)
{
    if (useFixture) {
        Image* f = s.fixture;
        s.fixture = nullptr;
        return f;
    }
    std::unique_lock lock(s.mutex);
    const int64_t t0 = clockNs(CLOCK_MONOTONIC);
    bool waited = false;
    while (s.freeImages.empty()) {
        if (s.stop && !s.stopped) {
            lock.unlock();
            stopSampling(s);
            lock.lock();
            continue;
        }
        if (clockNs(CLOCK_MONOTONIC) >= s.deadlineNs)
            return nullptr;
        waited = true;
        s.wake.wait_for(lock, std::chrono::milliseconds(5));
    }
    if (waited) {
        ++s.imageWaits;
        s.imageWaitNs += static_cast<uint64_t>(clockNs(CLOCK_MONOTONIC) - t0);
    }
    Image* img = s.freeImages.back();
    s.freeImages.pop_back();
    return img;
}

void giveBack(Sampler& s, Image* img)
{
    if (img->fixture)
        return;
    std::memcpy(img->bytes.data(), img->pristine->data(), img->bytes.size());
    std::lock_guard lock(s.mutex);
    s.freeImages.push_back(img);
}

// cuptiPmSamplingDecodeData returns CUPTI_ERROR_OUT_OF_MEMORY when the hardware buffer
// overflowed: sampling has to start again. The stretch from the last sample to now is a gap.
bool restartAfterOverflow(Sampler& s)
{
    const int64_t now = clockNs(CLOCK_MONOTONIC);
    if (!s.overflowSeen)
        message(s, raw::MessageLevel::Warning,
            "the hardware buffer overflowed: sampling restarted, the samples in between are missing (reported as "
            "gaps)");
    s.overflowSeen = true;
    auto sp = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    sp.pPmSamplingObject = s.object;
    cuptiPmSamplingStop(&sp);
    auto st = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    st.pPmSamplingObject = s.object;
    const CUptiResult r = cuptiPmSamplingStart(&st);
    ++s.restarts;
    gap(s, s.lastEnd == INT64_MIN ? s.startNs : s.lastEnd, now, raw::PmGapReason::Overflow);
    s.lastEnd = INT64_MIN;
    return r == CUPTI_SUCCESS;
}

// One decode into one image, its samples queued for evaluation. Returns whether the hardware
// buffer may hold more (the image filled up).
bool decodeOnce(Sampler& s)
{
    const int64_t now = clockNs(CLOCK_MONOTONIC);
    const bool useFixture = s.fixture && s.startNs > 0 && now - s.startNs >= s.fixtureAfterNs && !s.stop;
    Image* img = takeImage(s, useFixture);
    if (!img)
        return false;
    trace("decode");
    const int64_t t0 = clockNs(CLOCK_MONOTONIC), cpu0 = clockNs(CLOCK_THREAD_CPUTIME_ID);
    auto dd = params<CUpti_PmSampling_DecodeData_Params>(CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
    dd.pPmSamplingObject = s.object;
    dd.pCounterDataImage = img->bytes.data();
    dd.counterDataImageSize = img->bytes.size();
    const CUptiResult r = cuptiPmSamplingDecodeData(&dd);
    const int64_t t1 = clockNs(CLOCK_MONOTONIC);
    s.decodeCpuNs += static_cast<uint64_t>(clockNs(CLOCK_THREAD_CPUTIME_ID) - cpu0);
    ++s.decodes;
    s.decodeNs += static_cast<uint64_t>(t1 - t0);
    atomicMax(s.decodeMaxNs, static_cast<uint64_t>(t1 - t0));
    if (r == CUPTI_ERROR_OUT_OF_MEMORY && !s.stopped) {
        giveBack(s, img);
        if (!restartAfterOverflow(s)) {
            s.broken = true;
            s.brokenNs = t1;
            message(s, raw::MessageLevel::Error, "sampling could not be restarted after the overflow");
        }
        return false;
    }
    if (r != CUPTI_SUCCESS) {
        giveBack(s, img);
        s.broken = true;
        s.brokenNs = s.lastEnd == INT64_MIN ? t1 : s.lastEnd;
        fail(s, "cuptiPmSamplingDecodeData", r);
        return false;
    }
    if (dd.overflow && !s.overflowSeen) {
        s.overflowSeen = true;
        message(s, raw::MessageLevel::Warning,
            "the hardware buffer overflowed: samples are missing (reported as gaps with their time)");
    }
    const size_t completed = completedSamples(img->bytes);
    if (img->fixture)
        dumpFixture(s, *img, completed);
    // One clock reading per batch decides the domain of all its (recent) samples.
    const int64_t nowRt = clockNs(CLOCK_REALTIME), nowMono = clockNs(CLOCK_MONOTONIC);
    std::vector<std::pair<int64_t, int64_t>> windows;
    int64_t stopNs = INT64_MAX;
    {
        std::lock_guard lock(s.mutex);
        windows = s.windows;
        stopNs = s.stopNs;
    }
    Job job;
    job.image = img;
    // A gap right after a decode that filled its image: CUPTI dropped what did not fit (seen on
    // the H200: the missing stretch is the backlog beyond the image).
    const auto gapReason = s.lastDecodeFull ? raw::PmGapReason::ImageFull
        : dd.overflow                       ? raw::PmGapReason::Overflow
                                            : raw::PmGapReason::Missing;
    const int64_t tInfo = clockNs(CLOCK_MONOTONIC);
    for (size_t i = 0; i < completed; ++i) {
        uint64_t rawStart = 0, rawEnd = 0;
        if (sampleTimes(s.object, img->bytes, i, rawStart, rawEnd) != CUPTI_SUCCESS) {
            ++s.timeFailed; // shows as a gap between its neighbours
            continue;
        }
        ++s.completed;
        Slot slot {i, raw::pmToMonotonic(static_cast<int64_t>(rawStart), nowRt, nowMono),
            raw::pmToMonotonic(static_cast<int64_t>(rawEnd), nowRt, nowMono), rawStart, rawEnd};
        // The first sample (after Start or a restart) spans time from before it: no gap before
        // it, and it is kept whatever the capture windows say, for ingest drops it.
        const bool first = s.lastEnd == INT64_MIN;
        if (!first && raw::pmIsGap(s.lastEnd, slot.start, s.periodNs))
            gap(s, s.lastEnd, slot.start, gapReason);
        s.lastEnd = std::max(s.lastEnd, slot.end);
        if (!first && slot.start >= stopNs) {
            ++s.afterStop; // idle time after the program's end
            continue;
        }
        if (!first && !img->fixture && !inWindows(windows, slot.start, slot.end)) {
            ++s.outside;
            continue;
        }
        job.slots.push_back(slot);
    }
    s.sampleInfoNs += static_cast<uint64_t>(clockNs(CLOCK_MONOTONIC) - tInfo);
    const bool more = dd.decodeStopReason == CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
    s.lastDecodeFull = more;
    if (s.lastDecodeFull)
        ++s.decodesFull;
    if (job.slots.empty()) {
        giveBack(s, img);
        return more;
    }
    std::lock_guard lock(s.mutex);
    s.jobs.push_back(std::move(job));
    s.maxQueued = std::max(s.maxQueued, s.jobs.size());
    s.jobsCv.notify_one();
    return more;
}

// Decodes until the hardware buffer is empty (bounded: a full 256 MB buffer is a few hundred
// images).
void drain(Sampler& s)
{
    for (int round = 0; round < 100000 && !s.broken; ++round) {
        bool stopNow = false;
        {
            std::lock_guard lock(s.mutex);
            stopNow = s.stop && !s.stopped;
        }
        if (stopNow)
            stopSampling(s); // the program ended while a backlog was being decoded
        if (!decodeOnce(s))
            return;
        if (clockNs(CLOCK_MONOTONIC) >= s.deadlineNs)
            return;
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

std::string ms(uint64_t ns)
{
    char b[32];
    std::snprintf(b, sizeof b, "%.3f", static_cast<double>(ns) / 1e6);
    return b;
}

// Exit path, after the decode and evaluator threads finished: what happened, then release.
void tearDown(Sampler& s)
{
    if (s.started) {
        stopSampling(s); // when the decode thread never got to it
        const uint64_t evaluated = s.written + s.evalFailed;
        environment(s, "gpu_metrics.samples_completed", std::to_string(s.completed));
        environment(s, "gpu_metrics.samples_written", std::to_string(s.written));
        environment(s, "gpu_metrics.samples_outside_capture", std::to_string(s.outside));
        environment(s, "gpu_metrics.samples_after_exit", std::to_string(s.afterStop));
        environment(s, "gpu_metrics.sample_info_failed", std::to_string(s.timeFailed));
        environment(s, "gpu_metrics.evaluate_failed", std::to_string(s.evalFailed));
        environment(s, "gpu_metrics.overflow", s.overflowSeen ? "1" : "0");
        environment(s, "gpu_metrics.restarts", std::to_string(s.restarts));
        environment(s, "gpu_metrics.gaps", std::to_string(s.gaps));
        environment(s, "gpu_metrics.gap_ms", ms(s.gapNs));
        environment(s, "gpu_metrics.decodes", std::to_string(s.decodes));
        environment(s, "gpu_metrics.decode_ms_total", ms(s.decodeNs));
        environment(s, "gpu_metrics.decode_ms_max", ms(s.decodeMaxNs));
        environment(s, "gpu_metrics.decode_cpu_ms_total", ms(s.decodeCpuNs));
        environment(s, "gpu_metrics.decodes_full", std::to_string(s.decodesFull));
        environment(s, "gpu_metrics.evaluate_us_per_sample", evaluated ? ms(s.evalNs * 1000 / evaluated) : "0");
        environment(
            s, "gpu_metrics.sample_info_us_per_sample", s.completed ? ms(s.sampleInfoNs * 1000 / s.completed) : "0");
        environment(s, "gpu_metrics.restore_ms_total", ms(s.restoreNs));
        environment(s, "gpu_metrics.image_waits", std::to_string(s.imageWaits));
        environment(s, "gpu_metrics.image_wait_ms", ms(s.imageWaitNs));
        environment(s, "gpu_metrics.max_queued_images", std::to_string(s.maxQueued));
        if (s.programEndNs > 0) {
            environment(s, "gpu_metrics.program_end_ns", std::to_string(s.programEndNs));
            environment(s, "gpu_metrics.stopped_ns", std::to_string(s.stoppedNs));
            // Sampling that broke off earlier stopped before the end: latency 0.
            environment(s, "gpu_metrics.stop_latency_ms",
                ms(static_cast<uint64_t>(std::max<int64_t>(0, s.stoppedNs - s.programEndNs))));
            environment(s, "gpu_metrics.drain_ms",
                ms(static_cast<uint64_t>(std::max<int64_t>(0, s.finishedNs - s.programEndNs))));
        }
    }
    if (s.object) {
        auto dp = params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
        dp.pPmSamplingObject = s.object;
        trace("tearDown: disable");
        cuptiPmSamplingDisable(&dp);
        s.object = nullptr;
    }
    if (s.host) {
        trace("tearDown: host deinitialize");
        destroyHost(s.host);
        s.host = nullptr;
    }
}

// How long the exit waits for the samples of the program's last moments (the decoder keeps up,
// so normally a few ms); what is not decoded by then is reported as a gap.
int64_t drainBudgetNs()
{
    const char* v = std::getenv("WS_PM_DRAIN_MS");
    const long long msv = v ? std::atoll(v) : 3000;
    return (msv > 0 ? msv : 3000) * 1'000'000;
}

// `ready`: set-up already done (in the context callback), with this result.
void run(Sampler& s, int ready)
{
    pthread_setname_np(pthread_self(), "ws-pmsampler");
    // Decoding, like set-up, with the sampled context current on this thread.
    if (const CudaDriver* cu = cudaDriver())
        cu->ctxSetCurrent(static_cast<CUcontext>(s.ctx));
    const bool ok = ready >= 0 ? ready == 1 : timedSetUp(s);
    if (ok)
        for (unsigned i = 0; i < s.sizing.evaluators; ++i)
            s.evaluators.emplace_back([&s, i] { evaluatorLoop(s, i); });
    std::unique_lock lock(s.mutex);
    while (ok && !s.stop && !s.broken) {
        s.wake.wait_for(lock, std::chrono::nanoseconds(s.sizing.decodeIntervalNs), [&s] { return s.stop; });
        if (s.stop)
            break;
        lock.unlock();
        drain(s);
        lock.lock();
    }
    lock.unlock();
    if (ok) {
        // The program ended: stop sampling at once, then decode what the hardware buffer still
        // holds up to the program's end (later samples are idle time and are skipped).
        stopSampling(s);
        if (!s.broken)
            drain(s);
        if (!s.broken && clockNs(CLOCK_MONOTONIC) >= s.deadlineNs && s.lastEnd < s.stopNs)
            gap(s, s.lastEnd == INT64_MIN ? s.startNs : s.lastEnd, s.stopNs, raw::PmGapReason::NotDecodedAtExit);
        {
            std::lock_guard jl(s.mutex);
            s.noMoreJobs = true;
        }
        s.jobsCv.notify_all();
        for (auto& t : s.evaluators)
            t.join();
    } else {
        // A failed set-up still releases what it got.
        tearDown(s);
    }
    lock.lock();
    s.finishedNs = clockNs(CLOCK_MONOTONIC);
    s.finished = true;
    s.doneCv.notify_all();
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
    const char* evaluators = std::getenv("WS_PM_EVAL_THREADS");
    s->sizing = raw::pmSizing(s->periodNs, s->durationS, std::thread::hardware_concurrency(),
        evaluators ? static_cast<unsigned>(std::max(0, std::atoi(evaluators))) : 0u);
    // WS_PM_IMAGE_SAMPLES: another counter-data image size, for measurements.
    if (const char* image = std::getenv("WS_PM_IMAGE_SAMPLES"); image && std::atoi(image) > 0)
        s->sizing.imageSamples = static_cast<uint32_t>(std::clamp(std::atoi(image), 16, 8192));
    // WS_PM_FIXTURE_DIR: write one small decoded image (and what it evaluates to) there, for
    // tests/pm, the first decode WS_PM_FIXTURE_AFTER_MS (default 1000) after sampling started.
    if (const char* dir = std::getenv("WS_PM_FIXTURE_DIR"); dir && *dir) {
        s->fixtureDir = dir;
        const char* after = std::getenv("WS_PM_FIXTURE_AFTER_MS");
        s->fixtureAfterNs = static_cast<int64_t>(after ? std::atoll(after) : 1000) * 1'000'000;
    }
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
    const int64_t programEnd = clockNs(CLOCK_MONOTONIC);
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
        s->programEndNs = programEnd;
        s->stopNs = programEnd;
        s->deadlineNs = programEnd + drainBudgetNs();
        s->wake.notify_all();
        // The decoder stops sampling within one decode call and drains until the deadline; the
        // margin covers the evaluators' last images. Never hang the program's exit on it.
        if (!s->doneCv.wait_for(
                lock, std::chrono::nanoseconds(drainBudgetNs() + 2'000'000'000), [s] { return s->finished; })) {
            s->recorder->message(raw::MessageLevel::Warning,
                "GPU metrics: the sampler did not finish within " + ms(static_cast<uint64_t>(drainBudgetNs()))
                    + " ms + 2 s of the program's end; the samples not yet written are missing");
            return;
        }
    }
    if (s->thread.joinable())
        s->thread.join();
    // Decoding broke off (a failed decode, or no restart after an overflow): nothing from there
    // to the program's end was sampled.
    if (s->broken && s->brokenNs > 0)
        gap(*s, s->brokenNs, programEnd, raw::PmGapReason::DecodeFailed);
    tearDown(*s);
    trace("shutdown: done");
}

} // namespace ws::inject::pm
