// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/report/reporttable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// NVTX ranges projected onto the GPU (nsys nvtx_gpu_proj_trace / nvtx_gpu_proj_sum,
// shared/reference/nsight-formats.md 2.5): the span of GPU time taken by the work a range
// launched.
//
// - GPU work = kernels, memcpys and memsets. A piece of work belongs to a range when the API
//   call that launched it (paired by process and correlation id, runtime call first, else the
//   driver call, as cuda_kern_exec_trace pairs them) lies entirely inside the range, on the
//   thread that opened it. Only ranges that start and end on one thread take part.
// - Projected start = earliest start of its work, projected duration = latest end - earliest
//   start, GPU ops = number of distinct correlation ids. Ranges that launched no GPU work
//   have no projection and are not listed.
struct NvtxProjection {
    std::string name; // as nvtx_sum names it: "<domain>:<name>" or the bare name
    NvtxStyle style = NvtxStyle::PushPop;
    int64_t pid = 0;
    int64_t tid = 0;
    TimeNs rangeStart = 0;
    TimeNs rangeEnd = 0;
    TimeNs projectedStart = 0;
    TimeNs projectedEnd = 0;
    int64_t gpuOps = 0;
    int32_t level = 0;    // nesting depth on its thread, 0 = outermost
    int64_t children = 0; // direct child ranges on the same thread (projected or not)
};

std::vector<NvtxProjection> projectNvtxRanges(const RecordSource& source);

// nvtx_gpu_proj_sum: one row per (range name, style) over the projected ranges: Range, Style,
// Total Proj Time, Total Range Time, Range Instances, Proj Avg, Proj Med, Proj Min, Proj Max,
// Proj StdDev, Total GPU Ops, Avg GPU Ops, Avg Range Lvl, Avg Num Child. Statistics follow
// DurationSummary; sorted by total projected time, descending. A parent's projection
// includes its children's, so totals can exceed the capture length.
ReportTable nvtxGpuProjSum(const RecordSource& source);

} // namespace ws
