// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>

namespace ws::inject {

// The driver entry points that --gpu-metrics and --nvtx-timing call, looked up in the already
// loaded libcuda (the library links no driver, so it also loads for NVTX where none is
// installed). Every pointer is null until libcuda is in the process; resolution is retried on
// each call until it succeeds.
struct CudaDriver {
    CUresult (*ctxGetCurrent)(CUcontext*) = nullptr;
    CUresult (*ctxSetCurrent)(CUcontext) = nullptr;
    CUresult (*deviceGet)(CUdevice*, int) = nullptr;
    CUresult (*eventCreate)(CUevent*, unsigned) = nullptr;
    CUresult (*eventRecord)(CUevent, CUstream) = nullptr;
    CUresult (*eventQuery)(CUevent) = nullptr;
    CUresult (*eventSynchronize)(CUevent) = nullptr;
    CUresult (*eventElapsedTime)(float*, CUevent, CUevent) = nullptr;
    CUresult (*eventDestroy)(CUevent) = nullptr;

    bool ready() const { return ctxGetCurrent && eventElapsedTime; }
};

// Null while libcuda is not loaded yet.
const CudaDriver* cudaDriver();

} // namespace ws::inject
