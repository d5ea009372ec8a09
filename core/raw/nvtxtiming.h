// SPDX-License-Identifier: MIT
#pragma once

// NVTX range timing (`warpscope-cli record --nvtx-timing NAME`): the raw record of one timed
// range instance. Header-only like raw/rawformat.h (compiled into libwarpscope-inject.so).

#include <cstdint>

namespace ws::raw {

enum class NvtxTimingStatus : uint32_t {
    Ok = 0,
    NoContext = 1,   // no CUDA context was current on the thread at push: not timed
    EventFailed = 2, // cuEventCreate/Record/ElapsedTime failed: not timed
};

// Trailing bytes: the range name.
struct NvtxTimingRecord {
    int64_t hostStart; // CLOCK_MONOTONIC at push/start and at pop/end, on the calling threads
    int64_t hostEnd;
    int64_t tid;       // thread that pushed/started the range
    int64_t gpuNs;     // cuEventElapsedTime between the events recorded at push and pop, in ns
    uint32_t status;   // NvtxTimingStatus
    uint32_t instance; // 0-based count of this name's instances in the process
};

} // namespace ws::raw
