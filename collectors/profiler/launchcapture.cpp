// SPDX-License-Identifier: MIT
#include "launchcapture.h"

#include "collectors/device/deviceattributes.h"

#include <cupti.h>

#include <algorithm>
#include <cstring>

namespace ws::profiler {

namespace {

int funcAttribute(CUfunction f, CUfunction_attribute attr)
{
    int v = 0;
    if (cuFuncGetAttribute(&v, attr, f) != CUDA_SUCCESS)
        return 0;
    return v;
}

// Launches through the CUDA 12+ runtime may pass a context-independent CUkernel cast to
// CUfunction; cuFuncGetAttribute rejects those, cuKernelGetFunction resolves them.
CUfunction resolve(CUfunction f)
{
    int probe = 0;
    if (cuFuncGetAttribute(&probe, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS)
        return f;
    CUfunction resolved = nullptr;
    if (cuKernelGetFunction(&resolved, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && resolved)
        return resolved;
    return f;
}

template <typename P> void fromClassic(CapturedLaunch& c, const P* p)
{
    c.function = p->f;
    c.stream = p->hStream;
    auto& l = c.launch;
    l.gridX = static_cast<int32_t>(p->gridDimX);
    l.gridY = static_cast<int32_t>(p->gridDimY);
    l.gridZ = static_cast<int32_t>(p->gridDimZ);
    l.blockX = static_cast<int32_t>(p->blockDimX);
    l.blockY = static_cast<int32_t>(p->blockDimY);
    l.blockZ = static_cast<int32_t>(p->blockDimZ);
    l.dynamicSmemBytes = static_cast<int32_t>(p->sharedMemBytes);
    c.isKernelLaunch = true;
}

// The allocation `word` points into, if it is a device pointer of the current context.
bool deviceBufferAt(uint64_t word, DeviceBuffer& out)
{
    if (word == 0)
        return false;
    const auto ptr = static_cast<CUdeviceptr>(word);
    unsigned int type = 0;
    if (cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, ptr) != CUDA_SUCCESS
        || type != CU_MEMORYTYPE_DEVICE)
        return false;
    CUdeviceptr base = 0;
    size_t bytes = 0;
    if (cuMemGetAddressRange(&base, &bytes, ptr) != CUDA_SUCCESS || bytes == 0)
        return false;
    out = {base, bytes};
    return true;
}

void addBuffersIn(const unsigned char* bytes, size_t size, std::vector<DeviceBuffer>& out)
{
    for (size_t at = 0; at + sizeof(uint64_t) <= size; at += sizeof(uint64_t)) {
        uint64_t word = 0;
        std::memcpy(&word, bytes + at, sizeof word);
        DeviceBuffer b;
        if (!deviceBufferAt(word, b))
            continue;
        const bool seen = std::any_of(out.begin(), out.end(), [&](const DeviceBuffer& o) { return o.base == b.base; });
        if (!seen)
            out.push_back(b);
    }
}

// The function and arguments of a launch call that can be relaunched (canRelaunch).
struct LaunchArguments {
    CUfunction f = nullptr;
    void** kernelParams = nullptr;
    void** extra = nullptr;
    const CUlaunchConfig* config = nullptr; // cuLaunchKernelEx only
};

LaunchArguments launchArguments(CUpti_CallbackId cbid, const void* params)
{
    LaunchArguments a;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(params);
        a = {p->f, p->kernelParams, p->extra, nullptr};
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        a = {p->f, p->kernelParams, nullptr, nullptr};
        break;
    }
    default: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        a = {p->f, p->kernelParams, p->extra, p->config};
        break;
    }
    }
    return a;
}

} // namespace

std::vector<DeviceBuffer> launchBuffers(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    std::vector<DeviceBuffer> out;
    const void* params = cb->functionParams;
    if (!params || !canRelaunch(cbid))
        return out;
    auto [f, kernelParams, extra, config] = launchArguments(cbid, params);
    if (kernelParams) {
        f = resolve(f);
        // kernelParams has one entry per argument and no terminator: the driver says how many.
        for (size_t i = 0;; ++i) {
            size_t offset = 0, size = 0;
            if (cuFuncGetParamInfo(f, i, &offset, &size) != CUDA_SUCCESS)
                break; // past the last argument (or a driver without the call)
            if (kernelParams[i])
                addBuffersIn(static_cast<const unsigned char*>(kernelParams[i]), size, out);
        }
    } else if (extra) {
        // CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE: the arguments as one packed buffer.
        const unsigned char* buffer = nullptr;
        size_t size = 0;
        for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
            if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buffer = static_cast<const unsigned char*>(extra[i + 1]);
            else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = *static_cast<const size_t*>(extra[i + 1]);
        }
        if (buffer)
            addBuffersIn(buffer, size, out);
    }
    return out;
}

std::string describeLaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    std::string d = "cbid " + std::to_string(cbid);
    const void* params = cb->functionParams;
    if (!params || !canRelaunch(cbid))
        return d;
    const auto [f, kernelParams, extra, config] = launchArguments(cbid, params);
    if (config) {
        const CUlaunchConfig& c = *config;
        d += ", grid " + std::to_string(c.gridDimX) + "x" + std::to_string(c.gridDimY) + "x"
            + std::to_string(c.gridDimZ) + ", block " + std::to_string(c.blockDimX) + "x" + std::to_string(c.blockDimY)
            + "x" + std::to_string(c.blockDimZ) + ", dynamic smem " + std::to_string(c.sharedMemBytes) + ", attributes";
        for (unsigned i = 0; i < c.numAttrs && c.attrs; ++i) {
            d += " " + std::to_string(static_cast<int>(c.attrs[i].id)) + "=";
            const auto* raw = reinterpret_cast<const unsigned int*>(&c.attrs[i].value);
            d += std::to_string(raw[0]) + "," + std::to_string(raw[1]) + "," + std::to_string(raw[2]);
        }
    }
    int probe = 0;
    d += std::string(", function handle ")
        + (cuFuncGetAttribute(&probe, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS ? "is a CUfunction"
                                                                                     : "is not a CUfunction");
    d += kernelParams ? ", kernelParams" : "";
    d += extra ? ", extra" : "";
    size_t count = 0, offset = 0, size = 0, bytes = 0;
    const CUfunction r = resolve(f);
    while (cuFuncGetParamInfo(r, count, &offset, &size) == CUDA_SUCCESS) {
        bytes = offset + size;
        ++count;
    }
    d += ", " + std::to_string(count) + " parameter(s), " + std::to_string(bytes) + " bytes";
    // Registers as the resolved function and as the library kernel report them (issue 18: ours
    // said 24 for PyTorch's indexFuncLargeIndex where CUPTI's kernel record and ncu said 32).
    int regs = -1, kernelRegs = -1;
    cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, r);
    CUdevice dev = 0;
    if (r != f && cuCtxGetDevice(&dev) == CUDA_SUCCESS) // only a handle resolve() took for a CUkernel
        cuKernelGetAttribute(&kernelRegs, CU_FUNC_ATTRIBUTE_NUM_REGS, reinterpret_cast<CUkernel>(f), dev);
    d += ", registers " + std::to_string(regs) + " (function), " + std::to_string(kernelRegs) + " (library kernel)";
    return d;
}

bool isGraphLaunch(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz;
}

bool isKernelLaunch(CUpti_CallbackId cbid)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return true;
    default:
        return false;
    }
}

bool canRelaunch(CUpti_CallbackId cbid)
{
    // Every launch call but the pre-CUDA-4 ones, whose configuration is not in the call.
    return isKernelLaunch(cbid) && cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunch
        && cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid && cbid != CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync;
}

CUresult relaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    const void* params = cb->functionParams;
    if (!params || !canRelaunch(cbid))
        return CUDA_ERROR_NOT_SUPPORTED;
    const bool ptsz = cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz
        || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz
        || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;
    // The non-ptsz entry points are called here, so a null stream must be made explicit.
    auto stream = [ptsz](CUstream s) { return ptsz && s == nullptr ? CU_STREAM_PER_THREAD : s; };
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchKernel_params*>(params);
        return cuLaunchKernel(p->f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ,
            p->sharedMemBytes, stream(p->hStream), p->kernelParams, p->extra);
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* p = static_cast<const cuLaunchCooperativeKernel_params*>(params);
        return cuLaunchCooperativeKernel(p->f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY,
            p->blockDimZ, p->sharedMemBytes, stream(p->hStream), p->kernelParams);
    }
    default: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (!p->config)
            return CUDA_ERROR_INVALID_VALUE;
        CUlaunchConfig config = *p->config;
        config.hStream = stream(config.hStream);
        return cuLaunchKernelEx(&config, p->f, p->kernelParams, p->extra);
    }
    }
}

CapturedLaunch captureLaunch(CUpti_CallbackId cbid, const CUpti_CallbackData* cb)
{
    CapturedLaunch c;
    const void* params = cb->functionParams;
    if (!params)
        return c;
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        fromClassic(c, static_cast<const cuLaunchKernel_params*>(params));
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        fromClassic(c, static_cast<const cuLaunchCooperativeKernel_params*>(params));
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
        if (!p->config)
            return c;
        const CUlaunchConfig& cfg = *p->config;
        c.function = p->f;
        c.stream = cfg.hStream;
        auto& l = c.launch;
        l.gridX = static_cast<int32_t>(cfg.gridDimX);
        l.gridY = static_cast<int32_t>(cfg.gridDimY);
        l.gridZ = static_cast<int32_t>(cfg.gridDimZ);
        l.blockX = static_cast<int32_t>(cfg.blockDimX);
        l.blockY = static_cast<int32_t>(cfg.blockDimY);
        l.blockZ = static_cast<int32_t>(cfg.blockDimZ);
        l.dynamicSmemBytes = static_cast<int32_t>(cfg.sharedMemBytes);
        for (unsigned i = 0; i < cfg.numAttrs && cfg.attrs; ++i) {
            if (cfg.attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
                l.clusterX = static_cast<int32_t>(cfg.attrs[i].value.clusterDim.x);
                l.clusterY = static_cast<int32_t>(cfg.attrs[i].value.clusterDim.y);
                l.clusterZ = static_cast<int32_t>(cfg.attrs[i].value.clusterDim.z);
            }
        }
        c.isKernelLaunch = true;
        break;
    }
    default:
        // cuLaunch / cuLaunchGrid*: pre-CUDA-4 launches without a configuration in the call.
        c.isKernelLaunch = isKernelLaunch(cbid);
        break;
    }
    return c;
}

std::string functionName(const CapturedLaunch& c, const CUpti_CallbackData* cb)
{
    if (cb->symbolName && *cb->symbolName)
        return cb->symbolName;
    const char* name = nullptr;
    if (c.function && cuFuncGetName(&name, resolve(c.function)) == CUDA_SUCCESS && name)
        return name;
    return "(unknown kernel)";
}

void completeLaunch(CapturedLaunch& c)
{
    auto& l = c.launch;
    if (c.function) {
        const CUfunction f = resolve(c.function);
        l.registersPerThread = funcAttribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
        l.staticSmemBytes = funcAttribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
        l.localMemPerThread = funcAttribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
        l.maxDynamicSmemBytes = funcAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
        int carveout = -1;
        if (cuFuncGetAttribute(&carveout, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, f) != CUDA_SUCCESS)
            carveout = -1;
        l.carveoutPercent = carveout;
        if (l.clusterX == 0) {
            // Cluster dimensions compiled into the kernel (__cluster_dims__).
            const int x = funcAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH);
            if (x > 0) {
                l.clusterX = x;
                l.clusterY = std::max(1, funcAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT));
                l.clusterZ = std::max(1, funcAttribute(f, CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH));
            }
        }
    }
    if (c.stream) {
        unsigned long long id = 0;
        if (cuStreamGetId(c.stream, &id) == CUDA_SUCCESS)
            l.streamId = static_cast<uint32_t>(id);
    }
}

bool isCapturing(CUstream stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    if (cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS)
        return false;
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

DeviceInfo queryDevice(CUdevice device, uint32_t id)
{
    DeviceQueryCalls calls;
    calls.getAttribute = &cuDeviceGetAttribute;
    calls.getName = &cuDeviceGetName;
    calls.getUuid = &cuDeviceGetUuid;
    calls.totalMem = &cuDeviceTotalMem;
    const DeviceAttributes a = queryDeviceAttributes(calls, device);
    DeviceInfo d;
    d.id = id;
    d.name = a.name;
    d.uuid = a.uuid;
    d.globalMemBytes = a.globalMemBytes;
    d.ccMajor = a.ccMajor;
    d.ccMinor = a.ccMinor;
    d.smCount = a.smCount;
    d.smClockKhz = a.clockKhz;
    d.smClockMaxKhz = d.smClockKhz;
    d.memClockKhz = a.memClockKhz;
    d.memBusWidthBits = a.memBusWidthBits;
    d.l2Bytes = a.l2Bytes;
    d.regsPerSm = a.regsPerSm;
    d.regsPerBlock = a.regsPerBlock;
    d.smemPerSm = a.smemPerSm;
    d.smemPerBlock = a.smemPerBlock;
    d.smemPerBlockOptin = a.smemPerBlockOptin;
    d.smemReservedPerBlock = a.smemReservedPerBlock;
    d.warpSize = a.warpSize;
    d.maxWarpsPerSm = a.maxThreadsPerSm / (d.warpSize > 0 ? d.warpSize : 32);
    d.maxBlocksPerSm = a.maxBlocksPerSm;
    d.maxThreadsPerBlock = a.maxThreadsPerBlock;
    // Double data rate: two transfers per memory clock.
    d.dramBandwidthBytesPerS = 2.0 * static_cast<double>(d.memClockKhz) * 1000.0 * d.memBusWidthBits / 8.0;
    return d;
}

} // namespace ws::profiler
