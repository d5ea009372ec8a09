// SPDX-License-Identifier: MIT
#include "collectors/device/deviceattributes.h"

#include <cstdio>

namespace ws {

std::string formatDeviceUuid(const CUuuid& u)
{
    char out[64];
    const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
    std::snprintf(out, sizeof(out), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
        b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return out;
}

DeviceAttributes queryDeviceAttributes(const DeviceQueryCalls& cu, CUdevice device)
{
    DeviceAttributes d;
    const auto attr = [&cu, device](CUdevice_attribute a) {
        int v = 0;
        return cu.getAttribute && cu.getAttribute(&v, a, device) == CUDA_SUCCESS ? v : 0;
    };
    char name[256] = {};
    if (cu.getName && cu.getName(name, sizeof(name) - 1, device) == CUDA_SUCCESS)
        d.name = name;
    CUuuid uuid {};
    if (cu.getUuid && cu.getUuid(&uuid, device) == CUDA_SUCCESS)
        d.uuid = formatDeviceUuid(uuid);
    size_t total = 0;
    if (cu.totalMem && cu.totalMem(&total, device) == CUDA_SUCCESS)
        d.globalMemBytes = static_cast<int64_t>(total);
    d.ccMajor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    d.ccMinor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    d.smCount = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    d.clockKhz = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    d.memClockKhz = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
    d.memBusWidthBits = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
    d.l2Bytes = attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
    d.regsPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
    d.regsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    d.smemPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    d.smemPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    d.smemPerBlockOptin = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    d.smemReservedPerBlock = attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
    d.maxThreadsPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
    d.maxBlocksPerSm = attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
    d.maxThreadsPerBlock = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    d.warpSize = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    return d;
}

} // namespace ws
