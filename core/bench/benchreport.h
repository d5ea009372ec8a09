// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchresult.h"
#include "core/bench/benchstats.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::bench {

// Throughput derived from the median and the declared work, always with its formula and
// whether it is the kernel's own rate or an effective one.
struct ThroughputFigure {
    double value = 0;
    std::string unit; // "TFLOP/s" or "GB/s"
    ThroughputKind kind = ThroughputKind::Kernel;
    std::string formula; // with the numbers substituted
};

struct RunSummary {
    std::string title;      // "gemm / cublas"
    std::string timerLabel; // the timer's long name
    std::string basis;      // which samples the statistics summarize
    SampleStats stats;      // per-call samples when there are any, otherwise the round values
    SampleStats roundStats; // the round values
    DriftCheck drift;       // over the round values
    DriftCheck warmupDrift; // over the warm-up chunks
    std::vector<ThroughputFigure> throughput;
    std::vector<std::string> warnings; // stored with the run
};

// Converts a value in `unit` (ns, us, ms, s) to microseconds; nullopt for an unknown unit.
std::optional<double> toMicroseconds(double value, std::string_view unit);

std::vector<ThroughputFigure> throughputFigures(const BenchRunResult& run, double timeInUnit);
RunSummary summarize(const BenchRunResult& run);

// Warnings the harness attaches to a run from its samples (drift of the warm-up chunks and of
// the rounds); empty when the measurement looks settled.
std::vector<std::string> driftWarnings(const BenchRunResult& run);

// Plain-text report for the command line: one block per run, then a comparison of medians
// when several implementations of one workload were measured together.
std::string formatReport(const BenchResult& result);

} // namespace ws::bench
