// SPDX-License-Identifier: MIT
#pragma once

#include "core/ranking/kernellaunchtable.h"
#include "core/ranking/timewindow.h"

#include <cstdint>
#include <vector>

namespace ws {

// One row of the kernel ranking (what Triton's proton-viewer prints, plus the spread): every
// launch of one kernel name inside the window. Durations are GPU execution times in ns
// (kernel end - start as recorded), statistics as cuda_gpu_kern_sum computes them.
struct KernelRank {
    uint32_t group = 0; // index into KernelLaunchTable::groups()
    int64_t calls = 0;
    int64_t totalNs = 0;
    double avgNs = 0;    // rounded to 0.1 ns
    double medianNs = 0; // middle value, or the mean of the two middle values
    int64_t minNs = 0;
    int64_t maxNs = 0;
    double stdevNs = 0; // sample standard deviation
    // totalNs as a percentage of the summed GPU time of all kernels in the window (the
    // Time (%) of cuda_gpu_kern_sum, not a share of wall time: concurrent kernels add up).
    double sharePct = 0;
};

// Ranks kernel names by total GPU time inside the window (an empty window means the whole
// session), most expensive first; ties by fewer calls, then by name, like nsys.
std::vector<KernelRank> rankKernels(const KernelLaunchTable& table, const TimeWindow& window = {});

} // namespace ws
