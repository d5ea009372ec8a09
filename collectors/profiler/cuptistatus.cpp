// SPDX-License-Identifier: MIT
#include "cuptistatus.h"

#include <cupti.h>

namespace ws::profiler {

std::string cuptiStatus(CUptiResult r)
{
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "CUPTI_ERROR";
    return std::string(s) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

std::string cuptiRemedy(CUptiResult r)
{
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
        return "no permission to read the GPU performance counters. Run as root, or allow all users: "
               "add 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' to a file in /etc/modprobe.d/, "
               "then reload the nvidia kernel module (or reboot). "
               "See https://developer.nvidia.com/ERR_NVGPUCTRPERM";
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
        return "performance counters are not supported on this GPU or configuration "
               "(a virtualized or MIG GPU, a CMP board, WSL, or confidential computing); "
               "use 'warpscope-cli record' for a trace without metrics";
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return "profiling is not supported on this virtualized GPU; use 'warpscope-cli record' for a trace "
               "without metrics";
    default:
        return {};
    }
}

std::string driverStatus(const char* what, CUresult r)
{
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    return std::string(what) + ": " + (name ? name : "CUDA error " + std::to_string(static_cast<int>(r)));
}

} // namespace ws::profiler
