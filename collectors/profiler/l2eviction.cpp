// SPDX-License-Identifier: MIT
#include "l2eviction.h"

#include "cuptistatus.h"
#include "l2evictionptx.h" // generated from l2eviction.ptx: kL2EvictionPtx

#include <algorithm>
#include <string>

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

// A kernel of `instructions` dependent multiply-adds in straight-line code (16 bytes of SASS
// each): y is loaded, so no compiler can fold the chain. Run on every SM, it replaces what the SMs'
// instruction caches held.
std::string codeEvictionPtx(int instructions)
{
    std::string ptx = ".version 7.0\n.target sm_70\n.address_size 64\n"
                      ".visible .entry ws_icache_evict(.param .u64 p0, .param .u64 p1)\n{\n"
                      ".reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n.reg .pred %p;\n"
                      "ld.param.u64 %rd1, [p0];\nld.param.u64 %rd2, [p1];\n"
                      "cvta.to.global.u64 %rd1, %rd1;\ncvta.to.global.u64 %rd2, %rd2;\n"
                      "ld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1+4];\n";
    ptx.reserve(ptx.size() + static_cast<size_t>(instructions) * 40 + 128);
    for (int i = 0; i < instructions; ++i)
        ptx += "mad.lo.u32 %r1, %r1, %r2, " + std::to_string(2654435761u ^ static_cast<unsigned>(i * 40503)) + ";\n";
    ptx += "setp.eq.u32 %p, %r1, 2654435769;\n@%p st.global.u32 [%rd2], %r1;\nret;\n}\n";
    return ptx;
}

// The eviction kernel's PTX as a cubin, so loading it costs no JIT.
bool compileCubin(const char* ptx, std::vector<char>& out, std::string& error)
{
    CUlinkState link = nullptr;
    CUresult r = cuLinkCreate(0, nullptr, nullptr, &link);
    void* cubin = nullptr;
    size_t size = 0;
    if (r == CUDA_SUCCESS)
        r = cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(ptx), std::char_traits<char>::length(ptx) + 1,
            "ws_icache", 0, nullptr, nullptr);
    if (r == CUDA_SUCCESS)
        r = cuLinkComplete(link, &cubin, &size);
    if (r == CUDA_SUCCESS)
        out.assign(static_cast<const char*>(cubin), static_cast<const char*>(cubin) + size);
    if (link)
        cuLinkDestroy(link);
    if (r != CUDA_SUCCESS)
        error = driverStatus("cuLink (instruction-cache module)", r);
    return r == CUDA_SUCCESS;
}

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
        if (m_codeModule)
            cuModuleUnload(m_codeModule);
    }
    m_ctx = nullptr;
    m_module = nullptr;
    m_kernel = nullptr;
    m_codeModule = nullptr;
    m_codeKernel = nullptr;
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
    if (r == CUDA_SUCCESS && m_icache == InstructionCache::Code) {
        const std::string code = codeEvictionPtx(16384);
        if ((r = cuModuleLoadData(&m_codeModule, code.c_str())) != CUDA_SUCCESS)
            error = driverStatus("cuModuleLoadData (instruction-cache eviction kernel)", r);
        else if ((r = cuModuleGetFunction(&m_codeKernel, m_codeModule, "ws_icache_evict")) != CUDA_SUCCESS)
            error = driverStatus("cuModuleGetFunction (instruction-cache eviction kernel)", r);
    }
    if (r == CUDA_SUCCESS && m_icache == InstructionCache::Module && !compileCubin(kL2EvictionPtx, m_cubin, error))
        r = CUDA_ERROR_INVALID_PTX;
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

bool L2Eviction::run(std::string& error)
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
    CUresult r = CUDA_SUCCESS;
    if (m_codeKernel) {
        // Before the L2 eviction, so the program's code is in neither cache when its pass starts.
        void* codeArgs[] = {&m_buffer, &m_sink};
        r = cuLaunchKernel(m_codeKernel, m_blocks, 1, 1, 32, 1, 1, 0, nullptr, codeArgs, nullptr);
    }
    if (r == CUDA_SUCCESS && !m_cubin.empty() && m_returnCtx) {
        ContextScope program(m_returnCtx);
        CUmodule loaded = nullptr;
        r = cuModuleLoadData(&loaded, m_cubin.data());
        if (r == CUDA_SUCCESS)
            r = cuModuleUnload(loaded);
    }
    if (r != CUDA_SUCCESS) {
        error = driverStatus("instruction-cache step before the L2 eviction", r);
        return false;
    }
    unsigned long long elements = m_bytes / 16;
    void* args[] = {&m_buffer, &elements, &m_sink};
    r = cuLaunchKernel(m_kernel, m_blocks, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        error = driverStatus("L2 eviction kernel", r);
        return false;
    }
    if (m_returnKernel) {
        ContextScope back(m_returnCtx);
        CUdeviceptr none = 0;
        unsigned long long zero = 0;
        void* emptyArgs[] = {&none, &zero, &none};
        r = cuLaunchKernel(m_returnKernel, 1, 1, 1, 32, 1, 1, 0, nullptr, emptyArgs, nullptr);
        // The same kernel reads the warm regions (16-byte loads; a tail that is not a multiple of
        // 16 stays out).
        // The loads' sink is allocated in the program's context only when there is something to
        // warm, so `all` leaves the program's memory as it was.
        if (r == CUDA_SUCCESS && !m_warm.empty() && !m_returnSink)
            r = cuMemAlloc(&m_returnSink, 16);
        for (const auto& [base, bytes] : m_warm) {
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
