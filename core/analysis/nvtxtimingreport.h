// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/report/reporttable.h"

#include <vector>

namespace ws {

class SessionReader;

// nvtx_timing_sum: the GPU-stream time of NVTX ranges timed with `record --nvtx-timing NAME`
// (bench runs of implementation "nvtx-timing", see ingest/nvtxtimingingest.h). One row per run,
// in run order: Range, Instances, Med, Avg, Min, Max, StdDev (ns, Avg/Med/StdDev rounded to 0.1
// as nsys does), CoV (%) = StdDev / Avg, PID-qualified implementation when several processes
// timed ranges. A session without timed ranges gives no rows.
ReportTable nvtxTimingSum(const std::vector<BenchRun>& runs, const std::vector<BenchSample>& samples);

// The same from a session file: reads only the bench tables. Throws SessionError.
ReportTable nvtxTimingSum(const SessionReader& reader);

inline constexpr const char* kNvtxTimingReport = "nvtx_timing_sum";

} // namespace ws
