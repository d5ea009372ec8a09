// SPDX-License-Identifier: MIT
#include "cuptisession.h"

#include "collectors/device/deviceattributes.h"

#include "activitycapture.h"
#include "pmsampler.h"
#include "recorder.h"
#include "streameventcapture.h"

#include <cuda.h>
#include <cupti.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

// Functions newer than the oldest CUPTI we may meet. Inside PyTorch processes the program's
// own libcupti (torch's wheel) is already loaded when this library is, and the dynamic loader
// binds us to it by soname instead of to the toolkit's copy; weak references let us load
// against an older copy and skip what it lacks instead of failing to load at all.
#pragma weak cuptiActivityRegisterTimestampCallback
#pragma weak cuptiActivityEnableDriverApi
#pragma weak cuptiActivityEnableRuntimeApi
#pragma weak cuptiActivityEnableAllSyncRecords
#pragma weak cuptiSetThreadIdType

namespace ws::inject::cupti {

namespace {

// Plain pointers and PODs only (see Recorder): CUPTI may call in after static destructors ran.
Recorder* g_recorder = nullptr;
CUpti_SubscriberHandle g_subscriber = nullptr;
std::vector<uint8_t>* g_keepRuntime = nullptr; // per cbid: 1 = record
std::vector<uint8_t>* g_keepDriver = nullptr;
std::mutex* g_deviceMutex = nullptr;
std::vector<std::pair<uint32_t, std::string>>* g_deviceUuids = nullptr; // devices seen, for NVML
uint64_t g_devicesRecorded = 0;       // bit per device ordinal < 64, under g_deviceMutex
ActivityCapture* g_capture = nullptr; // WS_CUPTI_CAPTURE, see activitycapture.h

void check(CUptiResult r, const char* what)
{
    if (r == CUPTI_SUCCESS || !g_recorder)
        return;
    const char* text = nullptr;
    cuptiGetResultString(r, &text);
    g_recorder->message(raw::MessageLevel::Error,
        std::string(what) + " failed: " + (text ? text : "unknown CUPTI error") + " ("
            + std::to_string(static_cast<int>(r)) + ")");
}

uint64_t CUPTIAPI monotonicTimestamp()
{
    return static_cast<uint64_t>(monotonicNs());
}

int64_t realtimeMinusMonotonicNs()
{
    int64_t best = INT64_MAX, offset = 0;
    for (int i = 0; i < 5; ++i) {
        timespec a {}, r {}, b {};
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_REALTIME, &r);
        clock_gettime(CLOCK_MONOTONIC, &b);
        const int64_t m0 = a.tv_sec * 1000000000LL + a.tv_nsec, m1 = b.tv_sec * 1000000000LL + b.tv_nsec;
        if (m1 - m0 < best) {
            best = m1 - m0;
            offset = r.tv_sec * 1000000000LL + r.tv_nsec - (m0 + (m1 - m0) / 2);
        }
    }
    return offset;
}

// The API calls recorded without --all-api: the smallest set that still correlates every GPU
// record with the call that issued it (launches, copies, memsets, graph launches), the calls
// whose waits CUPTI's synchronisation records correlate with, and the event record/wait calls
// that make dependencies between streams visible. Everything else (allocations, attribute
// queries, cuGetProcAddress, capture and instantiation...) is dropped inside CUPTI, before a
// record is written. PyTorch makes about 8 API calls per kernel; recording them all cost more
// than the whole of torch.profiler.
bool keepRuntime(std::string_view name)
{
    static constexpr std::string_view keep[] = {
        "cudaLaunch",
        "__cudaLaunch",
        "cudaMemcpy",
        "cudaMemset",
        "cudaGraphLaunch",
        "cudaGraphUpload",
        "cudaDeviceSynchronize",
        "cudaThreadSynchronize",
        "cudaStreamSynchronize",
        "cudaEventSynchronize",
        "cudaStreamWaitEvent",
        "cudaEventRecord",
    };
    for (const auto k : keep)
        if (name.starts_with(k))
            return true;
    return false;
}

bool keepDriver(std::string_view name)
{
    static constexpr std::string_view keep[] = {
        "cuLaunch",
        "cuMemcpy",
        "cuMemset",
        "cuGraphLaunch",
        "cuGraphUpload",
        "cuCtxSynchronize",
        "cuStreamSynchronize",
        "cuEventSynchronize",
        "cuStreamWaitEvent",
        "cuEventRecord",
    };
    for (const auto k : keep)
        if (name.starts_with(k))
            return true;
    return false;
}

std::vector<uint8_t>* buildKeepList(CUpti_CallbackDomain domain, uint32_t size, bool (*keep)(std::string_view))
{
    auto* list = new std::vector<uint8_t>(size, 0);
    for (uint32_t cbid = 1; cbid < size; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name)
            (*list)[cbid] = keep(name) ? 1 : 0;
    }
    return list;
}

bool g_kernelsEnabled = false; // WS_CUPTI_KERNELS=late: enabled at the first context creation

// Per-API activity settings. "select" enables only the kept cbids and never the whole
// RUNTIME/DRIVER kinds, so CUPTI need not record (and, where it skips interception, not even
// time) the calls a timeline does not show; "filter" enables the kinds, then disables the rest.
bool g_selectApis = false;
// Selecting APIs worked when done inside InitializeInjection, but on the H200 (CUPTI 13.0)
// per-API enabling later in the run (a capture range opening at cudaProfilerStart) produced no
// API records at all, while enable-then-filter did. So selection is used only during init.
bool g_initializing = false;

void setKeptApis(uint8_t enable)
{
    for (uint32_t cbid = 1; cbid < g_keepRuntime->size(); ++cbid)
        if ((*g_keepRuntime)[cbid])
            cuptiActivityEnableRuntimeApi(cbid, enable);
    for (uint32_t cbid = 1; cbid < g_keepDriver->size(); ++cbid)
        if ((*g_keepDriver)[cbid])
            cuptiActivityEnableDriverApi(cbid, enable);
}

void enableApis()
{
    const bool perApi = &cuptiActivityEnableRuntimeApi && &cuptiActivityEnableDriverApi;
    if (g_recorder->config().allApi || !perApi) {
        if (!g_recorder->config().allApi)
            g_recorder->message(raw::MessageLevel::Warning,
                "this CUPTI has no per-API activity settings: every runtime and driver call is recorded");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable(RUNTIME)");
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "cuptiActivityEnable(DRIVER)");
        return;
    }
    if (g_recorder->config().selectApis && g_initializing) {
        const CUptiResult r = cuptiActivityEnableRuntimeApi(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 1);
        if (r == CUPTI_SUCCESS) {
            g_selectApis = true;
            setKeptApis(1);
            return;
        }
        check(r, "cuptiActivityEnableRuntimeApi (selecting APIs; falling back to filtering)");
    }
    g_selectApis = false;
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME), "cuptiActivityEnable(RUNTIME)");
    check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER), "cuptiActivityEnable(DRIVER)");
    // Enabling RUNTIME/DRIVER resets per-API settings, so the filter goes on afterwards.
    for (uint32_t cbid = 1; cbid < g_keepRuntime->size(); ++cbid)
        if (!(*g_keepRuntime)[cbid])
            cuptiActivityEnableRuntimeApi(cbid, 0);
    for (uint32_t cbid = 1; cbid < g_keepDriver->size(); ++cbid)
        if (!(*g_keepDriver)[cbid])
            cuptiActivityEnableDriverApi(cbid, 0);
}

void recordEnvironment(const std::string& key, const std::string& value)
{
    auto& w = g_recorder->writer();
    raw::EnvironmentRecord e {w.intern(key), w.intern(value)};
    w.add(raw::RecordType::Environment, e);
}

// The few driver entry points the recorder calls, looked up in the already loaded libcuda.
struct DriverApi {
    CUresult (*deviceGet)(CUdevice*, int) = nullptr;
    CUresult (*getAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
    CUresult (*getName)(char*, int, CUdevice) = nullptr;
    CUresult (*getUuid)(CUuuid*, CUdevice) = nullptr;
    CUresult (*totalMem)(size_t*, CUdevice) = nullptr;
    CUresult (*driverVersion)(int*) = nullptr;
    CUresult (*streamGetId)(CUstream, unsigned long long*) = nullptr;
    CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;
    CUresult (*ctxPush)(CUcontext) = nullptr;
    CUresult (*ctxPop)(CUcontext*) = nullptr;
};

template <typename Fn> void resolve(void* lib, const char* name, Fn& fn)
{
    fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

const DriverApi& driverApi()
{
    static const DriverApi* const api = [] {
        auto* a = new DriverApi; // leaked, see Recorder
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        if (!lib)
            return a;
        resolve(lib, "cuDeviceGet", a->deviceGet);
        resolve(lib, "cuDeviceGetAttribute", a->getAttribute);
        resolve(lib, "cuDeviceGetName", a->getName);
        resolve(lib, "cuDeviceGetUuid_v2", a->getUuid);
        resolve(lib, "cuDeviceTotalMem_v2", a->totalMem);
        resolve(lib, "cuDriverGetVersion", a->driverVersion);
        resolve(lib, "cuStreamGetId", a->streamGetId);
        resolve(lib, "cuCtxGetCurrent", a->ctxGetCurrent);
        resolve(lib, "cuCtxPushCurrent_v2", a->ctxPush);
        resolve(lib, "cuCtxPopCurrent_v2", a->ctxPop);
        return a;
    }();
    return *api;
}

// Device properties, once per device, at its first context creation (cuInit is complete then,
// so driver queries are safe; inside InitializeInjection they are not).
void recordDevice(CUcontext ctx)
{
    uint32_t ordinal = 0;
    if (cuptiGetDeviceId(ctx, &ordinal) != CUPTI_SUCCESS)
        return;
    {
        std::lock_guard lock(*g_deviceMutex);
        if (ordinal < 64) {
            if (g_devicesRecorded & (uint64_t {1} << ordinal))
                return;
            g_devicesRecorded |= uint64_t {1} << ordinal;
        }
    }
    // The driver is not linked (so that this library also loads, for NVTX, where no driver is
    // installed); it is always loaded by the time a context exists.
    const DriverApi& cu = driverApi();
    if (!cu.deviceGet || !cu.getAttribute)
        return;
    CUdevice dev = 0;
    if (cu.deviceGet(&dev, static_cast<int>(ordinal)) != CUDA_SUCCESS)
        return;
    DeviceQueryCalls calls;
    calls.getAttribute = cu.getAttribute;
    calls.getName = cu.getName;
    calls.getUuid = cu.getUuid;
    calls.totalMem = cu.totalMem;
    const DeviceAttributes a = queryDeviceAttributes(calls, dev);
    const std::string& uuidText = a.uuid;

    auto& w = g_recorder->writer();
    raw::DeviceRecord d {};
    d.id = ordinal;
    d.name = w.intern(a.name);
    d.uuid = w.intern(uuidText);
    d.ccMajor = a.ccMajor;
    d.ccMinor = a.ccMinor;
    d.smCount = a.smCount;
    d.clockKhz = a.clockKhz;
    d.memClockKhz = a.memClockKhz;
    d.memBusWidthBits = a.memBusWidthBits;
    d.l2Bytes = a.l2Bytes;
    d.globalMemBytes = a.globalMemBytes;
    d.regsPerSm = a.regsPerSm;
    d.regsPerBlock = a.regsPerBlock;
    d.smemPerSm = a.smemPerSm;
    d.smemPerBlock = a.smemPerBlock;
    d.smemPerBlockOptin = a.smemPerBlockOptin;
    d.smemReservedPerBlock = a.smemReservedPerBlock;
    d.maxThreadsPerSm = a.maxThreadsPerSm;
    d.maxBlocksPerSm = a.maxBlocksPerSm;
    d.maxThreadsPerBlock = a.maxThreadsPerBlock;
    d.warpSize = a.warpSize;
    w.add(raw::RecordType::Device, d);

    int driverVersion = 0;
    if (cu.driverVersion && cu.driverVersion(&driverVersion) == CUDA_SUCCESS)
        recordEnvironment("cuda_driver_api_version", std::to_string(driverVersion));
    {
        std::lock_guard lock(*g_deviceMutex);
        g_deviceUuids->emplace_back(ordinal, uuidText);
    }
    g_recorder->requestDeferredQueries();
}

// The program's id of `stream` (cuStreamGetId) beside CUPTI's, so that the session shows the
// ids the program prints. `stream` null: the legacy default stream, which needs `ctx` current.
void mapStream(CUcontext ctx, CUstream stream)
{
    const DriverApi& cu = driverApi();
    uint32_t cuptiId = 0, contextId = 0;
    if (!cu.streamGetId || cuptiGetStreamIdEx(ctx, stream, 0, &cuptiId) != CUPTI_SUCCESS
        || cuptiGetContextId(ctx, &contextId) != CUPTI_SUCCESS)
        return;
    unsigned long long programId = 0;
    CUresult r = CUDA_ERROR_INVALID_CONTEXT;
    if (stream) {
        r = cu.streamGetId(stream, &programId);
    } else if (cu.ctxGetCurrent && cu.ctxPush && cu.ctxPop) {
        CUcontext current = nullptr;
        cu.ctxGetCurrent(&current);
        const bool push = current != ctx && cu.ctxPush(ctx) == CUDA_SUCCESS;
        r = cu.streamGetId(CU_STREAM_LEGACY, &programId);
        if (push) {
            CUcontext popped = nullptr;
            cu.ctxPop(&popped);
        }
    }
    if (r != CUDA_SUCCESS)
        return;
    const raw::StreamMapRecord m {contextId, cuptiId, static_cast<uint64_t>(programId)};
    g_recorder->writer().add(raw::RecordType::StreamMap, m);
}

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
{
    if (!g_recorder || g_recorder->closed())
        return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
        g_recorder->mapCurrentThread();
        const CUcontext ctx = static_cast<const CUpti_ResourceData*>(data)->context;
        recordDevice(ctx);
        mapStream(ctx, nullptr);
        // WS_CUPTI_KERNELS=late: kernel records from the first context on (measuring whether
        // CUPTI's own stream then still shifts the program's stream ids).
        if (g_recorder->config().lateKernels && !g_kernelsEnabled && g_recorder->capturing()) {
            g_kernelsEnabled = true;
            check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)");
        }
        uint32_t ordinal = 0;
        if (cuptiGetDeviceId(ctx, &ordinal) == CUPTI_SUCCESS)
            pm::contextCreated(*g_recorder, ctx, ordinal);
    } else if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED) {
        const auto* r = static_cast<const CUpti_ResourceData*>(data);
        mapStream(r->context, r->resourceHandle.stream);
    } else if (streamevents::handles(domain, cbid)) {
        streamevents::onCallback(*g_recorder, domain, cbid, *static_cast<const CUpti_CallbackData*>(data));
    } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        const auto* cb = static_cast<const CUpti_CallbackData*>(data);
        if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart && cb->callbackSite == CUPTI_API_EXIT)
            g_recorder->startCapture();
        else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop && cb->callbackSite == CUPTI_API_ENTER)
            g_recorder->stopCapture();
    }
}

void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxNumRecords)
{
    const size_t bytes = g_recorder ? g_recorder->config().cuptiBufferBytes : (4u << 20);
    uint8_t* b = g_recorder ? g_recorder->takeFreeBuffer() : nullptr;
    if (!b)
        b = static_cast<uint8_t*>(std::aligned_alloc(8, bytes));
    *buffer = b;
    *size = b ? bytes : 0;
    *maxNumRecords = 0;
}

void CUPTIAPI bufferCompleted(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t, size_t validSize)
{
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped);
    if (!g_recorder || g_recorder->closed()) {
        std::free(buffer);
        return;
    }
    if (dropped > 0) {
        g_recorder->addDropped(dropped);
        raw::DroppedRecord d {dropped, 0, streamId};
        g_recorder->writer().add(raw::RecordType::Dropped, d);
    }
    if (validSize > 0)
        g_recorder->queueBuffer(buffer, validSize);
    else
        std::free(buffer);
}

} // namespace

bool initialize(Recorder& recorder)
{
    g_recorder = &recorder;
    g_deviceMutex = new std::mutex;
    g_deviceUuids = new std::vector<std::pair<uint32_t, std::string>>;

    uint32_t version = 0;
    cuptiGetVersion(&version);
    recordEnvironment("cupti_version", std::to_string(version));
    g_capture = ActivityCapture::fromEnvironment(recorder.config().rawDir, version);
    Dl_info info {};
    if (dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) && info.dli_fname)
        recordEnvironment("cupti_library", info.dli_fname);

    // Thread ids as the kernel knows them (gettid), the same ids the NVTX records carry; or
    // CUPTI's default (pthread_self), which ingest maps back through ThreadMap records.
    if (recorder.config().systemThreadIds && &cuptiSetThreadIdType)
        check(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM), "cuptiSetThreadIdType");
    recorder.mapCurrentThread();

    CUptiResult r = recorder.config().subscribe ? cuptiSubscribe(&g_subscriber, &onCallback, nullptr)
                                                : CUPTI_ERROR_NOT_INITIALIZED;
    if (r == CUPTI_SUCCESS) {
        check(cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
            "cuptiEnableCallback(CONTEXT_CREATED)");
        check(cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED),
            "cuptiEnableCallback(STREAM_CREATED)");
        if (recorder.config().capture == CaptureMode::CudaProfilerApi) {
            check(cuptiEnableCallback(
                      1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart),
                "cuptiEnableCallback(cuProfilerStart)");
            check(cuptiEnableCallback(
                      1, g_subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop),
                "cuptiEnableCallback(cuProfilerStop)");
        }
    } else if (recorder.config().subscribe) {
        // Another CUPTI client (a profiler inside the program) holds the only subscriber slot:
        // activity tracing still works, device properties and profiler-API ranges do not.
        check(r, "cuptiSubscribe");
        g_subscriber = nullptr;
    }

    if (!recorder.config().traceCuda)
        return true;
    // Event records and stream waits with their handles: the timeline's dependency arrows.
    if (g_subscriber)
        streamevents::enable(g_subscriber, recorder);

    // CLOCK_MONOTONIC for every record, so NTP steps cannot bend the timeline. Must precede
    // enabling any activity kind.
    bool monotonic = false;
    if (recorder.config().monotonicTimestamps && &cuptiActivityRegisterTimestampCallback) {
        monotonic = cuptiActivityRegisterTimestampCallback(&monotonicTimestamp) == CUPTI_SUCCESS;
        if (!monotonic)
            recorder.message(raw::MessageLevel::Warning,
                "cuptiActivityRegisterTimestampCallback failed; using CUPTI's CLOCK_REALTIME");
    }
    if (!monotonic) {
        // CUPTI's own clock is CLOCK_REALTIME: record its offset so ingest can shift every CUPTI
        // time into CLOCK_MONOTONIC, where the NVTX times are.
        raw::ClockDomainRecord c {};
        c.realtime = 1;
        c.realtimeMinusMonotonicNs = realtimeMinusMonotonicNs();
        recorder.writer().add(raw::RecordType::ClockDomain, c);
    }

    r = cuptiActivityRegisterCallbacks(&bufferRequested, &bufferCompleted);
    if (r != CUPTI_SUCCESS) {
        check(r, "cuptiActivityRegisterCallbacks");
        return false;
    }
    g_keepRuntime = buildKeepList(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE, &keepRuntime);
    g_keepDriver = buildKeepList(
        CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE,
        recorder.config().driverApis ? &keepDriver : +[](std::string_view) { return false; });
    if (!recorder.config().allApi && &cuptiActivityEnableAllSyncRecords)
        cuptiActivityEnableAllSyncRecords(0);
    recorder.setCuptiReady();
    if (recorder.capturing()) {
        g_initializing = true;
        enableActivity();
        g_initializing = false;
    }
    return true;
}

void enableActivity()
{
    const auto& cfg = g_recorder->config();
    if (!cfg.lateKernels || g_kernelsEnabled)
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)");
    if (cfg.memcpyRecords)
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityEnable(MEMCPY)");
    if (cfg.memsetRecords)
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET), "cuptiActivityEnable(MEMSET)");
    if (cfg.syncRecords)
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), "cuptiActivityEnable(SYNCHRONIZATION)");
    if (cfg.overheadRecords)
        check(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD), "cuptiActivityEnable(OVERHEAD)");
    enableApis();
}

void disableActivity()
{
    static constexpr CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY,
        CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        CUPTI_ACTIVITY_KIND_OVERHEAD,
        CUPTI_ACTIVITY_KIND_RUNTIME,
        CUPTI_ACTIVITY_KIND_DRIVER,
    };
    for (const auto k : kinds)
        cuptiActivityDisable(k);
    if (g_selectApis)
        setKeptApis(0);
}

void flush(bool forced)
{
    cuptiActivityFlushAll(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void convertBuffer(uint8_t* buffer, size_t validBytes, RawWriter& w, ConverterCache& cache)
{
    static auto* const live = new LiveActivityNames; // leaked, see Recorder
    ActivityConverter converter(w, cache, g_capture ? static_cast<ActivityNames&>(*g_capture) : *live);
    converter.reserve(validBytes);
    std::vector<std::pair<uint32_t, uint32_t>> records; // (offset, kind), for the capture only
    CUpti_Activity* rec = nullptr;
    while (cuptiActivityGetNextRecord(buffer, validBytes, &rec) == CUPTI_SUCCESS) {
        converter.add(rec);
        if (g_capture)
            records.emplace_back(
                static_cast<uint32_t>(reinterpret_cast<uint8_t*>(rec) - buffer), static_cast<uint32_t>(rec->kind));
    }
    converter.finish();
    if (g_capture)
        g_capture->addBuffer(buffer, validBytes, records);
}

void runDeferredQueries(Recorder& recorder)
{
    // CUDA runtime version: exported by a shared libcudart; a static one is invisible to dlsym,
    // so fall back to the library file name in the process's mappings.
    using RuntimeVersionFn = int (*)(int*);
    std::string runtime;
    if (auto* fn = reinterpret_cast<RuntimeVersionFn>(dlsym(RTLD_DEFAULT, "cudaRuntimeGetVersion"))) {
        int v = 0;
        if (fn(&v) == 0)
            runtime = std::to_string(v);
    }
    if (runtime.empty()) {
        std::ifstream maps("/proc/self/maps");
        std::string line;
        while (std::getline(maps, line)) {
            const auto pos = line.find("libcudart.so.");
            if (pos != std::string::npos) {
                runtime = line.substr(pos + 13);
                break;
            }
        }
    }
    recordEnvironment("cuda_runtime_version", runtime.empty() ? "statically linked (version not visible)" : runtime);

    // Clocks through NVML, best effort: current and maximum SM clock, current memory clock.
    void* nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml)
        return;
    using InitFn = int (*)();
    using HandleFn = int (*)(const char*, void**);
    using ClockFn = int (*)(void*, int, unsigned*);
    using DriverFn = int (*)(char*, unsigned);
    auto init = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlInit_v2"));
    auto shutdownFn = reinterpret_cast<InitFn>(dlsym(nvml, "nvmlShutdown"));
    auto byUuid = reinterpret_cast<HandleFn>(dlsym(nvml, "nvmlDeviceGetHandleByUUID"));
    auto clock = reinterpret_cast<ClockFn>(dlsym(nvml, "nvmlDeviceGetClockInfo"));
    auto maxClock = reinterpret_cast<ClockFn>(dlsym(nvml, "nvmlDeviceGetMaxClockInfo"));
    auto driver = reinterpret_cast<DriverFn>(dlsym(nvml, "nvmlSystemGetDriverVersion"));
    if (!init || !byUuid || !clock || !maxClock || init() != 0)
        return; // the library stays loaded: unloading NVML under a running program is not worth the risk
    if (driver) {
        char v[96] = {};
        if (driver(v, sizeof(v)) == 0)
            recordEnvironment("driver_version", v);
    }
    std::vector<std::pair<uint32_t, std::string>> devices;
    {
        std::lock_guard lock(*g_deviceMutex);
        devices = *g_deviceUuids;
    }
    constexpr int kSm = 1;  // NVML_CLOCK_SM
    constexpr int kMem = 2; // NVML_CLOCK_MEM
    for (const auto& [ordinal, uuid] : devices) {
        void* h = nullptr;
        if (uuid.empty() || byUuid(uuid.c_str(), &h) != 0)
            continue;
        unsigned sm = 0, smMax = 0, mem = 0;
        clock(h, kSm, &sm);
        maxClock(h, kSm, &smMax);
        clock(h, kMem, &mem);
        raw::DeviceClocksRecord c {ordinal, static_cast<int32_t>(sm * 1000), static_cast<int32_t>(smMax * 1000),
            static_cast<int32_t>(mem * 1000)};
        recorder.writer().add(raw::RecordType::DeviceClocks, c);
    }
    if (shutdownFn)
        shutdownFn();
}

} // namespace ws::inject::cupti
