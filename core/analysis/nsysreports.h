// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/report/reporttable.h"

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace ws {

// The `nsys stats` reports Warpscope reproduces, computed exactly as the nsys report scripts
// define them (docs: ../shared/reference/nsight-formats.md section 2). Statistics follow
// DurationSummary (sample stdev, values rounded half away from zero to 0.1).
//
//   cuda_gpu_kern_sum[:base|:mangled]  Time (%), Total Time, Instances, Avg, Med, Min, Max,
//                                      StdDev, Name. One row per kernel name (demangled by
//                                      default), sorted by total desc, instances asc, name.
//   cuda_api_sum                       Time (%), Total Time, Num Calls, Avg, Med, Min, Max,
//                                      StdDev, Name. Runtime API calls only, grouped by the
//                                      recorded name; a `_vNNNN` suffix is dropped on display.
//   nvtx_sum                           Time (%), Total Time, Instances, Avg, Med, Min, Max,
//                                      StdDev, Style, Range. Push/pop and start/end ranges,
//                                      grouped by (style, name); the name is
//                                      "<domain>:<name>", or just the name in the default domain.
//   cuda_kern_exec_trace[:base|:mangled] API Start, API Dur, Queue Start, Queue Dur, Kernel
//                                      Start, Kernel Dur, Total Dur, PID, TID, DevId, API
//                                      Function, GridXYZ, BlockXYZ, Kernel Name. One row per
//                                      kernel whose launch call is recorded (runtime, or driver
//                                      for cuBLAS-style launches), sorted by API start.
//
// Time (%) is a group's share of the sum of all groups in the same report (not of wall time).

enum class KernelNaming { Demangled, Base, Mangled };

struct ReportInfo {
    std::string_view id;
    std::string_view title;
    bool takesKernelNaming;
};

const std::vector<ReportInfo>& availableReports();

// "cuda_gpu_kern_sum", "cuda_gpu_kern_sum:base"... Throws std::invalid_argument with a
// one-line reason for an unknown report or option.
ReportTable computeReport(std::string_view spec, const RecordSource& source);

ReportTable cudaGpuKernSum(const RecordSource& source, KernelNaming naming = KernelNaming::Demangled);
ReportTable cudaApiSum(const RecordSource& source);
ReportTable nvtxSum(const RecordSource& source);
ReportTable cudaKernExecTrace(const RecordSource& source, KernelNaming naming = KernelNaming::Demangled);

// The name a kernel is grouped and shown under. Falls back the way nsys does: a missing
// mangled name uses the demangled one; a missing demangled name is demangled from the mangled
// one here; a missing short name is derived from the full one.
std::string kernelName(const KernelRecord& kernel, const StringTable& strings, KernelNaming naming);

// kernelName() resolved once per distinct (demangled, mangled, short) id triple: sessions have
// millions of launches but a few hundred kernels. Returned references stay valid for the
// lifetime of the cache.
class KernelNameCache {
public:
    explicit KernelNameCache(const StringTable& strings, KernelNaming naming = KernelNaming::Demangled)
        : m_strings(strings)
        , m_naming(naming)
    {
    }
    const std::string& operator()(const KernelRecord& kernel);

private:
    const StringTable& m_strings;
    KernelNaming m_naming;
    std::map<std::tuple<StringId, StringId, StringId>, std::string> m_cache;
};

// nsys: `CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length(name) - 6)`, i.e.
// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel" but "cuGetProcAddress_v2" unchanged.
std::string_view stripApiVersionSuffix(std::string_view name);

// How nvtx_sum names a range: "<domain>:<name>", or the bare name in the default domain.
std::string nvtxRangeName(StringId domain, StringId name, const StringTable& strings);

// nsys operation names for GPU memory work: "[CUDA memcpy Host-to-Device]", "[CUDA memset]".
std::string memcpyOperationName(CopyKind kind);
std::string_view memsetOperationName();

// "PushPop" / "StartEnd" as nsys prints the Style column.
std::string_view nvtxStyleName(NvtxStyle style);

} // namespace ws
