// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparesession.h"
#include "core/compare/comparestats.h"
#include "core/compare/hypothesis.h"
#include "core/compare/iterations.h"
#include "core/compare/kernelmatch.h"
#include "core/metrics/kernelmetrics.h"

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace ws::compare {

struct CompareOptions {
    VerdictRule rule;
    std::string rangeName;       // NVTX range that defines iterations and the shared origin
    std::vector<UserPair> pairs; // re-pairings
};

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// One kernel row: a matched pair, or a key only one side has. Times in ns.
struct KernelRow {
    int keyA = -1; // -1: only in B
    int keyB = -1; // -1: only in A
    MatchKind kind = MatchKind::Exact;
    std::string name;  // B's name (A's when only in A)
    std::string path;  // NVTX path
    std::string nameA; // A's name when it differs (re-paired)
    size_t countA = 0, countB = 0;
    double medianA = kNoValue, medianB = kNoValue;
    double totalA = 0, totalB = 0;
    double diffNs = kNoValue;  // medianB - medianA
    double diffPct = kNoValue; // 100 * diffNs / medianA
    double pValue = kNoValue;  // Mann-Whitney over the launches' durations
    // Against the extra baselines (with A, at least two): their medians and the z-score of B.
    std::vector<double> baselineMedians; // A first, then each extra baseline (NaN where unmatched)
    double zScore = kNoValue;
    bool matched() const { return keyA >= 0 && keyB >= 0; }
};

// One metric of a matched kernel pair.
struct MetricRow {
    std::string name;
    std::string unit;
    std::string section;
    double valueA = kNoValue, valueB = kNoValue;
    double diff = kNoValue, diffPct = kNoValue;
    // +1 when B moved the way that is better for this metric, -1 worse, 0 unknown or unchanged.
    int better = 0;
};

// A benchmark run of B against its match in A.
struct BenchRow {
    std::string titleA; // "gemm / cublas"
    std::string titleB;
    std::string unit;
    std::vector<double> samplesA, samplesB; // per-call values when there are any, else round values
    Verdict verdict;
    std::vector<double> baselineMedians;
    double zScore = kNoValue;
};

struct HypothesisResult {
    Hypothesis hypothesis;
    bool evaluated = false; // false: the subject was not found (why says so)
    bool held = false;
    double observedPct = kNoValue;
    std::string text;
};

struct Comparison {
    std::string pathA, pathB;
    std::vector<std::string> extraBaselines;
    KernelMatching matching;
    std::vector<KernelRow> kernels; // matched (B's order), then only in A, then only in B
    Iterations iterationsA, iterationsB;
    std::vector<BenchRow> bench;
    std::string verdictSource; // "benchmark runs" or "per-iteration GPU time"
    Verdict verdict;           // overall
    VerdictKind overall = VerdictKind::TooFewSamples;
    std::string overallText;
    double latencyZ = kNoValue; // z-score of B's latency median against A and the extra baselines
    std::vector<double> latencyBaselineMedians;
    std::vector<HypothesisResult> hypotheses;
    std::vector<std::string> notes; // what could not be compared, and why
    bool regression() const { return overall == VerdictKind::Slower; }
};

// Compares B against A (and the extra baselines for the z-scores). Throws std::invalid_argument
// when the two sessions have nothing in common to compare (no launches, no bench runs) or a
// user pair does not resolve.
Comparison compareSessions(const CompareSession& a, const CompareSession& b, const CompareOptions& options = {},
    const std::vector<const CompareSession*>& extraBaselines = {}, const std::vector<Hypothesis>& hypotheses = {});

// Median of every metric over the profiled launches of one key.
KernelMetrics keyMetrics(const CompareSession& s, uint32_t key);
// Metric rows of a matched kernel row (empty when either side has no metrics for it).
std::vector<MetricRow> compareMetrics(const CompareSession& a, const CompareSession& b, const KernelRow& row);
// Whether a larger value of the metric is better (+1), worse (-1) or neither is known (0).
int metricPreference(const std::string& name, const std::string& unit);

// The hypotheses stored with a session (meta "compare.hypotheses"); empty when none. Throws
// std::invalid_argument naming the file when the stored JSON is malformed.
std::vector<Hypothesis> storedHypotheses(const CompareSession& s);

// Mean and sample standard deviation based z-score; NaN with fewer than two finite baselines
// or no spread.
double zScore(double value, const std::vector<double>& baselines);

} // namespace ws::compare
