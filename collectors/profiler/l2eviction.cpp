// SPDX-License-Identifier: MIT
#include "l2eviction.h"

#include "cuptistatus.h"
#include "l2evictionptx.h" // generated from l2eviction.ptx: kL2EvictionPtx

#include <algorithm>

namespace ws::profiler {

namespace {

// Restores the context that was current before, whatever happens in between.
class ContextScope {
public:
    explicit ContextScope(CUcontext ctx) { m_pushed = cuCtxPushCurrent(ctx) == CUDA_SUCCESS; }
    ~ContextScope()
    {
        if (m_pushed) {
            CUcontext popped = nullptr;
            cuCtxPopCurrent(&popped);
        }
    }
    ContextScope(const ContextScope&) = delete;
    ContextScope& operator=(const ContextScope&) = delete;
    bool ok() const { return m_pushed; }

private:
    bool m_pushed = false;
};

} // namespace

L2Eviction::~L2Eviction()
{
    release();
}

void L2Eviction::release()
{
    // At process exit the driver may already be shutting down; the context goes with it anyway.
    if (m_ctx && m_ownContext) {
        cuCtxDestroy(m_ctx);
    } else if (m_ctx) {
        ContextScope scope(m_ctx);
        if (m_buffer)
            cuMemFree(m_buffer);
        if (m_sink)
            cuMemFree(m_sink);
        if (m_module)
            cuModuleUnload(m_module);
    }
    m_ctx = nullptr;
    m_module = nullptr;
    m_kernel = nullptr;
    m_buffer = m_sink = 0;
}

bool L2Eviction::prepare(CUdevice device, CUcontext shared, std::string& error)
{
    if (m_ctx)
        return true;
    int l2 = 0, sms = 0;
    cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    if (l2 <= 0) {
        error = "the device reports no L2 cache size";
        return false;
    }
    m_l2Bytes = static_cast<size_t>(l2);
    m_bytes = std::max<size_t>(4 * m_l2Bytes, size_t(64) << 20);
    m_blocks = static_cast<unsigned>(std::max(sms, 1) * 4);

    CUresult r = CUDA_SUCCESS;
    m_ownContext = shared == nullptr;
    if (m_ownContext) {
        r = cuCtxCreate(&m_ctx, nullptr, 0, device); // makes it current: pop it below
        if (r != CUDA_SUCCESS) {
            m_ctx = nullptr;
            error = driverStatus("cuCtxCreate", r);
            return false;
        }
        CUcontext popped = nullptr;
        cuCtxPopCurrent(&popped);
    } else {
        m_ctx = shared;
    }
    ContextScope scope(m_ctx);
    if (!scope.ok()) {
        error = "cannot make the eviction context current";
        release();
        return false;
    }
    if ((r = cuModuleLoadData(&m_module, kL2EvictionPtx)) != CUDA_SUCCESS) {
        error = driverStatus("cuModuleLoadData (L2 eviction kernel)", r);
    } else if ((r = cuModuleGetFunction(&m_kernel, m_module, "ws_l2_evict")) != CUDA_SUCCESS) {
        error = driverStatus("cuModuleGetFunction", r);
    } else if ((r = cuMemAlloc(&m_buffer, m_bytes)) != CUDA_SUCCESS) {
        error = driverStatus("cuMemAlloc (L2 eviction buffer)", r);
    } else if ((r = cuMemAlloc(&m_sink, 16)) != CUDA_SUCCESS) {
        error = driverStatus("cuMemAlloc", r);
    } else if ((r = cuMemsetD8(m_buffer, 0, m_bytes)) != CUDA_SUCCESS) {
        error = driverStatus("cuMemsetD8", r);
    } else if ((r = cuCtxSynchronize()) != CUDA_SUCCESS) {
        error = driverStatus("cuCtxSynchronize", r);
    }
    if (r != CUDA_SUCCESS) {
        release();
        return false;
    }
    if (m_returnCtx && m_ownContext) {
        ContextScope back(m_returnCtx);
        if ((r = cuModuleLoadData(&m_returnModule, kL2EvictionPtx)) != CUDA_SUCCESS
            || (r = cuModuleGetFunction(&m_returnKernel, m_returnModule, "ws_l2_evict")) != CUDA_SUCCESS) {
            error = driverStatus("cuModuleLoadData (return kernel)", r);
            return false;
        }
    }
    return true;
}

bool L2Eviction::inOwnContext(const char* what, const std::function<CUresult()>& work, std::string& error)
{
    if (!m_ctx) {
        error = "L2 eviction is not prepared";
        return false;
    }
    ContextScope scope(m_ctx);
    if (!scope.ok()) {
        error = "cannot make the eviction context current";
        return false;
    }
    CUresult r = work();
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        error = driverStatus(what, r);
        return false;
    }
    return true;
}

bool L2Eviction::run(std::string& error)
{
    const auto evict = [this] {
        unsigned long long elements = m_bytes / 16;
        void* args[] = {&m_buffer, &elements, &m_sink};
        return cuLaunchKernel(m_kernel, m_blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
    };
    return inOwnContext("L2 eviction kernel", evict, error) && returnToProgram(true, error);
}

bool L2Eviction::dirty(std::string& error)
{
    const auto write = [this] { return cuMemsetD32(m_buffer + (m_bytes - m_l2Bytes), 0, m_l2Bytes / 4); };
    return inOwnContext("writing L2 dirty", write, error) && returnToProgram(false, error);
}

bool L2Eviction::dirtyInProgram(size_t bytes, bool copyEngine, std::string& error)
{
    if (!m_returnCtx || bytes == 0)
        return true;
    if (bytes > m_programScratchBytes && m_programScratch) {
        error = "the program-side dirty buffer cannot grow once a checkpoint may hold it";
        return false;
    }
    ContextScope scope(m_returnCtx);
    CUresult r = CUDA_SUCCESS;
    if (!m_programScratch && (r = cuMemAlloc(&m_programScratch, bytes)) == CUDA_SUCCESS)
        m_programScratchBytes = bytes;
    if (r == CUDA_SUCCESS && copyEngine) {
        m_hostZeros.resize(bytes);
        r = cuMemcpyHtoD(m_programScratch, m_hostZeros.data(), bytes);
    } else if (r == CUDA_SUCCESS) {
        r = cuMemsetD32(m_programScratch, 0, bytes / 4);
    }
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        error = driverStatus("writing dirty lines in the program's context", r);
        return false;
    }
    return true;
}

bool L2Eviction::returnToProgram(bool warm, std::string& error)
{
    CUresult r = CUDA_SUCCESS;
    if (m_returnKernel) {
        ContextScope back(m_returnCtx);
        CUdeviceptr none = 0;
        unsigned long long zero = 0;
        void* emptyArgs[] = {&none, &zero, &none};
        r = cuLaunchKernel(m_returnKernel, m_returnBlocks, 1, 1, 32, 1, 1, 0, nullptr, emptyArgs, nullptr);
        // The same kernel reads the warm regions (16-byte loads; a tail that is not a multiple of
        // 16 stays out).
        // The loads' sink is allocated in the program's context only when there is something to
        // warm, so `all` leaves the program's memory as it was.
        if (r == CUDA_SUCCESS && warm && !m_warm.empty() && !m_returnSink)
            r = cuMemAlloc(&m_returnSink, 16);
        static const std::vector<std::pair<CUdeviceptr, size_t>> kNone;
        for (const auto& [base, bytes] : warm ? m_warm : kNone) {
            if (r != CUDA_SUCCESS)
                break;
            const size_t take = std::min(bytes, 2 * m_l2Bytes) & ~size_t(15);
            CUdeviceptr from = base + ((bytes - take) & ~size_t(15)); // allocations are 256-byte aligned
            unsigned long long warmElements = take / 16;
            void* warmArgs[] = {&from, &warmElements, &m_returnSink};
            r = cuLaunchKernel(m_returnKernel, m_blocks, 1, 1, 256, 1, 1, 0, nullptr, warmArgs, nullptr);
        }
        if (r == CUDA_SUCCESS)
            r = cuCtxSynchronize();
        if (r != CUDA_SUCCESS) {
            error = driverStatus("return kernel", r);
            return false;
        }
    }
    return true;
}

} // namespace ws::profiler
