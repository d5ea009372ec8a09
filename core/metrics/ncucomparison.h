// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/ncucsv.h"
#include "core/model/sessiondata.h"

#include <string>
#include <vector>

namespace ws {

// How one metric of one kernel compares between a Warpscope profile session and Nsight
// Compute, over the launches after warm-up (scripts/h200/metrics-compare.py applies the same
// rules to print the H200 table).
struct MetricAgreement {
    std::string kernel; // base function name
    std::string metric;
    std::string unit;
    double ours = 0;          // median over our launches
    double ncu = 0;           // median over ncu's launches
    double relative = 0;      // |ours - ncu| / |ncu|
    double ncuSpread = 0;     // (max - min) / |median| over ncu's launches (all runs)
    double bar = 0;           // max(tolerance, ncuSpread)
    double ncuDurationNs = 0; // ncu's median gpu__time_duration.sum of the kernel
    bool heldToBar = false;   // kernel long enough (>= longKernelNs) to be held to the bar
    bool agrees = false;
    enum class How { Zero, Relative, WithinSpread, AbsolutePercent, Disagrees } how = How::Disagrees;
    int oursLaunches = 0;
    int ncuLaunches = 0;
};

struct ComparisonOptions {
    int warmup = 2;               // launches of each kernel dropped before taking medians
    double tolerance = 0.01;      // relative
    double longKernelNs = 50000;  // shorter kernels are reported, not held to the bar
    double percentAbsolute = 0.1; // percentage metrics also agree within this many points
    double zero = 1e-9;           // both at or below this magnitude: agree
};

class NcuComparison {
public:
    // Kernels are matched by base function name, launches in order; metrics by name.
    static std::vector<MetricAgreement> compare(
        const SessionData& ours, const std::vector<NcuResult>& ncu, const ComparisonOptions& options = {});
    // Several ncu runs of the same program: each run's warm-up is dropped and the launches pooled.
    // With clocks left alone ncu differs from itself more between runs than between the launches
    // of one run (measured on the H200: up to 2.3 % on the DRAM throughput of a pointer chase).
    static std::vector<MetricAgreement> compare(const SessionData& ours,
        const std::vector<std::vector<NcuResult>>& ncuRuns, const ComparisonOptions& options = {});
    static const char* toString(MetricAgreement::How how);
};

} // namespace ws
