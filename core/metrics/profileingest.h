// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileresult.h"
#include "core/metrics/sectioncatalog.h"
#include "core/model/sessiondata.h"

#include <string>
#include <vector>

namespace ws {

// Turns the result files of a profile run into a session: one kernel row per profiled launch,
// a metric_def per metric (placed in its section, labelled), and kernel_metric rows for the
// collected counters, the launch metrics (computed from the launch configuration with the
// occupancy calculator) and the derived metrics.
//
// A profile run has no activity tracing (CUPTI zeroes kernel timestamps when both run), so a
// kernel's start is the host time its launch call was entered and its end is start plus the
// measured gpu__time_duration.sum; meta records this so no view mistakes it for a trace.
class ProfileIngest {
public:
    ProfileIngest(const SectionCatalog& catalog, MetricRequest request);

    struct ProcessExit {
        int64_t pid = 0;
        std::string commandLine;
        int exitCode = -1;
        int exitSignal = 0;
    };

    // `results` in any order; kernels are numbered by host launch time across processes.
    SessionData build(const std::vector<ProfileResult>& results, const ProcessExit& root) const;

    // Label for a breakdown constituent the way ncu shows it, "<unit>: <Counter Name>":
    //   "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed" -> "SM: Inst Executed Pipe Lsu".
    static std::string breakdownLabel(const std::string& metricName);
    // The unit ncu prints for a metric, from CUPTI's dimension unit of its base metric: "%" for
    // percentages (CUPTI reports the counter's own unit for `.pct_of_peak_*` submetrics).
    static std::string displayUnit(const std::string& metricName, const std::string& cuptiUnit);

private:
    const SectionCatalog& m_catalog;
    MetricRequest m_request;
};

} // namespace ws
