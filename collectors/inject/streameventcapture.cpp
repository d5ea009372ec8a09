// SPDX-License-Identifier: MIT
#include "streameventcapture.h"

#include "core/raw/streamevent.h"

#include "recorder.h"

// cupti.h brings the params structs of every entry point (generated_cuda_meta.h,
// generated_cuda_runtime_api_meta.h); they have no include guards, so not included again here.
#include <cuda.h>

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace ws::inject::streamevents {

namespace {

using raw::StreamEventOp;

// What one recorded call is: its operation, and where its handles sit in the params struct.
struct Call {
    StreamEventOp op;
    bool perThread = false; // a _ptsz entry point
};

template <typename T> uint64_t handle(T h)
{
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(h));
}

// The handles of one call, from the params struct of its entry point (the _ptsz variants
// share the layout of the plain ones; the static_asserts keep that honest).
struct Handles {
    uint64_t event = 0;
    uint64_t stream = 0;
    uint32_t flags = 0;
};

static_assert(sizeof(cudaEventRecord_ptsz_v7000_params) == sizeof(cudaEventRecord_v3020_params));
static_assert(sizeof(cudaStreamWaitEvent_ptsz_v7000_params) == sizeof(cudaStreamWaitEvent_v3020_params));
static_assert(sizeof(cudaEventRecordWithFlags_ptsz_v11010_params) == sizeof(cudaEventRecordWithFlags_v11010_params));

bool runtimeCall(CUpti_CallbackId cbid, Call& call)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
        call = {StreamEventOp::Record, false};
        return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010:
        call = {StreamEventOp::Record, true};
        return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
        call = {StreamEventOp::Wait, false};
        return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000:
        call = {StreamEventOp::Wait, true};
        return true;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        call = {StreamEventOp::Synchronize, false};
        return true;
    default:
        return false;
    }
}

bool driverCall(CUpti_CallbackId cbid, Call& call)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
        call = {StreamEventOp::Record, false};
        return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz:
        call = {StreamEventOp::Record, true};
        return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
        call = {StreamEventOp::Wait, false};
        return true;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz:
        call = {StreamEventOp::Wait, true};
        return true;
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize:
        call = {StreamEventOp::Synchronize, false};
        return true;
    default:
        return false;
    }
}

Handles runtimeHandles(CUpti_CallbackId cbid, const void* params)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: {
        const auto* p = static_cast<const cudaEventRecord_v3020_params*>(params);
        return {handle(p->event), handle(p->stream), 0};
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
        const auto* p = static_cast<const cudaEventRecordWithFlags_v11010_params*>(params);
        return {handle(p->event), handle(p->stream), p->flags};
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
        const auto* p = static_cast<const cudaStreamWaitEvent_v3020_params*>(params);
        return {handle(p->event), handle(p->stream), p->flags};
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020: {
        const auto* p = static_cast<const cudaEventSynchronize_v3020_params*>(params);
        return {handle(p->event), 0, 0};
    }
    default:
        return {};
    }
}

Handles driverHandles(CUpti_CallbackId cbid, const void* params)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz: {
        const auto* p = static_cast<const cuEventRecord_params*>(params);
        return {handle(p->hEvent), handle(p->hStream), 0};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags:
    case CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz: {
        const auto* p = static_cast<const cuEventRecordWithFlags_params*>(params);
        return {handle(p->hEvent), handle(p->hStream), p->flags};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz: {
        const auto* p = static_cast<const cuStreamWaitEvent_params*>(params);
        return {handle(p->hEvent), handle(p->hStream), p->Flags};
    }
    case CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize: {
        const auto* p = static_cast<const cuEventSynchronize_params*>(params);
        return {handle(p->hEvent), 0, 0};
    }
    default:
        return {};
    }
}

// Runtime calls of these kinds make the driver call of the same kind; only the outer one (the
// call the program made) is recorded. Per thread: >0 while inside a recorded runtime call.
thread_local int t_runtimeDepth = 0;

// > 0 while the recorder itself makes event calls on this thread (OwnCalls).
thread_local int t_ownCalls = 0;

// The program's own id of a stream (cuStreamGetId, CUDA 12+): the id the session's kernel, copy
// and memset rows carry once ingest maps CUPTI's ids to the program's (StreamMap, issue 20 item
// 6). CUPTI's own id (cuptiGetStreamIdEx) is the one before that mapping: on the H200 (call A,
// 2026-12-02) it was one less than the session's ids for every stream of ws-example-stream-deps.
// Looked up in the already loaded libcuda (not linked, see cuptisession.cpp).
using StreamGetIdFn = CUresult (*)(CUstream, unsigned long long*);
StreamGetIdFn streamGetId()
{
    static const StreamGetIdFn fn = [] {
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        return lib ? reinterpret_cast<StreamGetIdFn>(dlsym(lib, "cuStreamGetId")) : nullptr;
    }();
    return fn;
}

// The recorded call's stream as the GPU records name it; 0 when unknown.
uint32_t streamIdOf(CUcontext ctx, uint64_t handle, bool perThread)
{
    auto stream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(handle));
    if (const StreamGetIdFn fn = streamGetId()) {
        // Stream 0 of a _ptsz entry point is the calling thread's default stream.
        if (handle == 0 && perThread)
            stream = CU_STREAM_PER_THREAD;
        unsigned long long id = 0;
        if (fn(stream, &id) == CUDA_SUCCESS)
            return static_cast<uint32_t>(id);
    }
    uint32_t id = 0;
    return cuptiGetStreamIdEx(ctx, stream, perThread ? 1 : 0, &id) == CUPTI_SUCCESS ? id : 0;
}

int64_t currentTid()
{
    thread_local int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
    return tid;
}

} // namespace

OwnCalls::OwnCalls()
{
    ++t_ownCalls;
}

OwnCalls::~OwnCalls()
{
    --t_ownCalls;
}

void enable(CUpti_SubscriberHandle subscriber, Recorder& recorder)
{
    // WS_CUPTI_KINDS_OFF=events: off, for measuring what the callbacks cost (like sync,overhead).
    if (const char* off = std::getenv(raw::kEnvKindsOff); off && std::strstr(off, "events")) {
        recorder.message(raw::MessageLevel::Info, "stream events off (WS_CUPTI_KINDS_OFF)");
        return;
    }
    static constexpr CUpti_CallbackId runtime[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
        CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
    };
    static constexpr CUpti_CallbackId driver[] = {
        CUPTI_DRIVER_TRACE_CBID_cuEventRecord,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags,
        CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent,
        CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize,
    };
    int failed = 0;
    for (const auto cbid : runtime)
        failed += cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid) != CUPTI_SUCCESS;
    for (const auto cbid : driver)
        failed += cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid) != CUPTI_SUCCESS;
    if (failed > 0)
        recorder.message(raw::MessageLevel::Warning,
            "stream events: " + std::to_string(failed)
                + " event record / stream wait callbacks could not be enabled; dependency arrows may be incomplete");
}

bool handles(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    Call call {};
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return runtimeCall(cbid, call);
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        return driverCall(cbid, call);
    return false;
}

void onCallback(Recorder& recorder, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const CUpti_CallbackData& cb)
{
    if (t_ownCalls > 0)
        return;
    const bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
    Call call {};
    if (!(runtime ? runtimeCall(cbid, call) : driverCall(cbid, call)))
        return;
    if (cb.callbackSite == CUPTI_API_ENTER) {
        if (runtime)
            ++t_runtimeDepth;
        else if (t_runtimeDepth > 0)
            return; // the driver half of a runtime call: recorded by the runtime callback
        // Entry time, kept for the exit callback in CUPTI's per-call storage.
        *cb.correlationData = static_cast<uint64_t>(monotonicNs());
        return;
    }
    if (runtime)
        --t_runtimeDepth;
    else if (t_runtimeDepth > 0)
        return;
    if (!recorder.capturing() || recorder.closed())
        return;
    const Handles h = runtime ? runtimeHandles(cbid, cb.functionParams) : driverHandles(cbid, cb.functionParams);
    raw::StreamEventRecord r {};
    r.start = static_cast<int64_t>(*cb.correlationData);
    r.end = monotonicNs();
    r.tid = currentTid();
    r.event = h.event;
    r.stream = h.stream;
    r.flags = h.flags;
    r.correlationId = cb.correlationId;
    r.cbid = cbid;
    r.op = static_cast<uint8_t>(call.op);
    r.domain = static_cast<uint8_t>(runtime ? raw::ApiDomain::Runtime : raw::ApiDomain::Driver);
    r.perThreadStream = call.perThread ? 1 : 0;
    if (cb.functionReturnValue)
        r.returnValue = runtime ? static_cast<int32_t>(*static_cast<const cudaError_t*>(cb.functionReturnValue))
                                : static_cast<int32_t>(*static_cast<const CUresult*>(cb.functionReturnValue));
    if (cb.context) {
        cuptiGetContextId(cb.context, &r.contextId);
        cuptiGetDeviceId(cb.context, &r.deviceId);
        // The stream's id as GPU records carry it; a wait or record on a stream the driver no
        // longer knows (a failed call) keeps 0, which the dependency pass ignores.
        if (call.op != StreamEventOp::Synchronize) {
            // The recorder's own query is not the program's call (and is not recorded either way).
            const OwnCalls own;
            r.streamId = streamIdOf(cb.context, h.stream, call.perThread);
        }
    }
    recorder.writer().add(raw::RecordType::StreamEvent, r);
}

} // namespace ws::inject::streamevents
