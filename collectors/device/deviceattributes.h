// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ws {

// The driver calls a device query needs. The profiler links the driver and passes its entry
// points; the tracing library links none (so it also loads for NVTX where no driver is
// installed) and passes the ones it looked up in the already loaded libcuda. A null entry
// leaves its fields at their defaults.
struct DeviceQueryCalls {
    CUresult (*getAttribute)(int*, CUdevice_attribute, CUdevice) = nullptr;
    CUresult (*getName)(char*, int, CUdevice) = nullptr;
    CUresult (*getUuid)(CUuuid*, CUdevice) = nullptr;
    CUresult (*totalMem)(size_t*, CUdevice) = nullptr;
};

// The CUDA device properties both injection libraries record (the session's device table:
// occupancy and roofline need them). Attributes the driver refuses read as 0.
struct DeviceAttributes {
    std::string name;
    std::string uuid; // nvidia-smi's form, see formatDeviceUuid()
    int64_t globalMemBytes = 0;
    int ccMajor = 0;
    int ccMinor = 0;
    int smCount = 0;
    int clockKhz = 0; // CU_DEVICE_ATTRIBUTE_CLOCK_RATE (maximum boost)
    int memClockKhz = 0;
    int memBusWidthBits = 0;
    int l2Bytes = 0;
    int regsPerSm = 0;
    int regsPerBlock = 0;
    int smemPerSm = 0;
    int smemPerBlock = 0;
    int smemPerBlockOptin = 0;
    int smemReservedPerBlock = 0;
    int maxThreadsPerSm = 0;
    int maxBlocksPerSm = 0;
    int maxThreadsPerBlock = 0;
    int warpSize = 0;
};

// Only safe once cuInit has completed (at context creation, not inside InitializeInjection).
DeviceAttributes queryDeviceAttributes(const DeviceQueryCalls& cu, CUdevice device);

// "GPU-8-4-4-4-12" lower-case hex digits, the form nvidia-smi prints and NVML's
// GetHandleByUUID accepts.
std::string formatDeviceUuid(const CUuuid& uuid);

} // namespace ws
