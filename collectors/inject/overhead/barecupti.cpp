// SPDX-License-Identifier: MIT
// libws-bare-cupti.so: the smallest CUPTI activity subscriber that gives what a timeline of
// launches needs (kernel records and the runtime launch calls they correlate with), loaded
// through CUDA_INJECTION64_PATH like the recorder. bench_launch_overhead runs an empty-kernel
// program under it, beside a plain run and `warpscope-cli record`, so that what CUPTI itself
// costs per launch and what the recorder adds on top are measured in one alternating run.
//
// WS_BARE (comma list) adds one recorder setting at a time, to find which of them costs:
//   monotonic  CLOCK_MONOTONIC timestamp callback     systemtid  gettid() thread ids
//   subscribe  a callback subscriber (CONTEXT_CREATED) kinds      memcpy, memset, sync, overhead
//   apis       the recorder's kept runtime/driver APIs flush      cuptiActivityFlushAll(0) every 0.5 s
//   streams    STREAM_CREATED callback (needs subscribe)
// and, to find what shifts the program's stream ids, changes to the bare set itself:
//   nokernel   no kernel records      noapi   no launch API records
//   serialkernel  CUPTI_ACTIVITY_KIND_KERNEL instead of CONCURRENT_KERNEL
//   late       kernel records enabled in the first CONTEXT_CREATED callback, not at init
// At exit it prints "bare-cupti: kernels=K api=A other=O dropped=D" on stderr.
#include <cupti.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <string_view>
#include <thread>

namespace {

std::atomic<uint64_t> g_kernels {0}, g_api {0}, g_other {0}, g_dropped {0};
std::atomic<bool> g_stop {false};
constexpr size_t kBufferBytes = 4u << 20;

bool has(std::string_view list, std::string_view item)
{
    size_t pos = 0;
    while (pos <= list.size()) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        if (list.substr(pos, comma - pos) == item)
            return true;
        pos = comma + 1;
    }
    return false;
}

void CUPTIAPI requested(uint8_t** buffer, size_t* size, size_t* maxRecords)
{
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *maxRecords = 0;
}

void CUPTIAPI completed(CUcontext ctx, uint32_t streamId, uint8_t* buffer, size_t, size_t valid)
{
    CUpti_Activity* rec = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || rec->kind == CUPTI_ACTIVITY_KIND_KERNEL)
            ++g_kernels;
        else if (rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME || rec->kind == CUPTI_ACTIVITY_KIND_DRIVER)
            ++g_api;
        else
            ++g_other;
    }
    size_t dropped = 0;
    cuptiActivityGetNumDroppedRecords(ctx, streamId, &dropped);
    g_dropped += dropped;
    std::free(buffer);
}

uint64_t CUPTIAPI monotonic()
{
    timespec ts {};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

bool g_lateKernels = false;
CUpti_ActivityKind g_kernelKind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;

void CUPTIAPI onCallback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data)
{
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && g_lateKernels) {
        g_lateKernels = false;
        cuptiActivityEnable(g_kernelKind);
    }
    if (domain == CUPTI_CB_DOMAIN_RESOURCE && cbid == CUPTI_CBID_RESOURCE_STREAM_CREATED) {
        const auto* r = static_cast<const CUpti_ResourceData*>(data);
        uint32_t id = 0;
        cuptiGetStreamIdEx(r->context, r->resourceHandle.stream, 0, &id);
        std::fprintf(stderr, "bare-cupti: stream created, CUPTI id %u\n", id);
    }
}

bool keptApi(std::string_view name, bool driver)
{
    static constexpr std::string_view runtime[] = {"cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaMalloc", "cudaFree",
        "cudaHostAlloc", "cudaHostRegister", "cudaHostUnregister", "cudaMemPrefetch", "cudaDeviceSynchronize",
        "cudaThreadSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
        "cudaGraphLaunch", "cudaGraphUpload", "cudaGraphInstantiate", "cudaStreamBeginCapture", "cudaStreamEndCapture",
        "cudaProfilerStart", "cudaProfilerStop"};
    static constexpr std::string_view drv[] = {"cuLaunch", "cuMemcpy", "cuMemset", "cuMemAlloc", "cuMemFree",
        "cuMemHostAlloc", "cuMemHostRegister", "cuMemHostUnregister", "cuMemCreate", "cuMemMap", "cuMemUnmap",
        "cuMemRelease", "cuMemPrefetch", "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
        "cuStreamWaitEvent", "cuGraphLaunch", "cuGraphUpload", "cuGraphInstantiate", "cuStreamBeginCapture",
        "cuStreamEndCapture", "cuProfilerStart", "cuProfilerStop"};
    if (driver) {
        for (auto k : drv)
            if (name.starts_with(k))
                return true;
        return false;
    }
    for (auto k : runtime)
        if (name.starts_with(k))
            return true;
    return false;
}

void enableApis(bool recorderSet)
{
    for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) != CUPTI_SUCCESS || !name)
            continue;
        const std::string_view n(name);
        if (recorderSet ? keptApi(n, false) : (n.starts_with("cudaLaunch") || n.starts_with("__cudaLaunch")))
            cuptiActivityEnableRuntimeApi(cbid, 1);
    }
    if (!recorderSet)
        return;
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; ++cbid) {
        const char* name = nullptr;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) == CUPTI_SUCCESS && name
            && keptApi(name, true))
            cuptiActivityEnableDriverApi(cbid, 1);
    }
}

} // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    const char* env = std::getenv("WS_BARE");
    const std::string_view opts = env ? env : "";
    if (has(opts, "systemtid"))
        cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    g_kernelKind = has(opts, "serialkernel") ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    const bool kernels = !has(opts, "nokernel");
    g_lateKernels = kernels && has(opts, "late");
    if (has(opts, "subscribe") || g_lateKernels) {
        static CUpti_SubscriberHandle subscriber = nullptr;
        if (cuptiSubscribe(&subscriber, &onCallback, nullptr) == CUPTI_SUCCESS) {
            cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
            if (has(opts, "streams"))
                cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED);
        }
    }
    if (has(opts, "monotonic"))
        cuptiActivityRegisterTimestampCallback(&monotonic);
    if (cuptiActivityRegisterCallbacks(&requested, &completed) != CUPTI_SUCCESS)
        return 0;
    if (kernels && !g_lateKernels)
        cuptiActivityEnable(g_kernelKind);
    if (has(opts, "kinds")) {
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD);
    }
    if (!has(opts, "noapi"))
        enableApis(has(opts, "apis"));
    if (has(opts, "flush"))
        std::thread([] {
            while (!g_stop.load()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(500));
                cuptiActivityFlushAll(0);
            }
        }).detach();
    std::atexit([] {
        g_stop.store(true);
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        std::fprintf(stderr, "bare-cupti: kernels=%llu api=%llu other=%llu dropped=%llu\n",
            static_cast<unsigned long long>(g_kernels.load()), static_cast<unsigned long long>(g_api.load()),
            static_cast<unsigned long long>(g_other.load()), static_cast<unsigned long long>(g_dropped.load()));
    });
    return 1;
}
