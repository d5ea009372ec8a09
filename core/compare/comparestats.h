// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ws::compare {

// Two-sided Mann-Whitney U test of "the two samples come from one distribution", computed the
// way scipy.stats.mannwhitneyu (1.10, defaults) does, so its figures can be checked against it:
// U1 is the statistic of `a` (ranks with ties averaged); when either sample has at most 8
// values and there are no ties the p-value is exact (the null distribution of U counted),
// otherwise it comes from the normal approximation with the tie correction of the variance
// and a continuity correction of 0.5. p = 2 * P(U >= max(U1, U2)), clipped to 1.
struct MannWhitney {
    double u1 = 0;      // statistic of the first sample
    double u2 = 0;      // n1 * n2 - u1
    double z = 0;       // standardized statistic (asymptotic method only)
    double pValue = 1;  // two-sided
    bool exact = false; // which method produced pValue
    bool valid = false; // false when a sample is empty
};

MannWhitney mannWhitneyU(std::span<const double> a, std::span<const double> b);

// Exact null distribution of U: P(U >= u) for samples of n1 and n2 values without ties.
double mannWhitneyExactSf(int64_t u, int64_t n1, int64_t n2);

// Percentile bootstrap of median(b) / median(a): each resample draws |a| values from `a` and
// then |b| values from `b` with replacement (std::mt19937_64 seeded with `seed`, index =
// draw % size), medians as numpy computes them. Deterministic for a given seed.
struct RatioInterval {
    double ratio = 0; // median(b) / median(a) of the samples themselves
    double low = 0;
    double high = 0;
    bool valid = false; // false when a sample is empty or median(a) is 0
};

RatioInterval bootstrapMedianRatio(std::span<const double> a, std::span<const double> b, double confidence = 0.95,
    int resamples = 2000, uint64_t seed = 1);

// Faster / slower / no significant change of B against A for a latency-like quantity (lower is
// better). A change counts only when all three agree: the Mann-Whitney p-value is below
// `alpha`, the bootstrap interval of the ratio excludes 1, and the ratio differs from 1 by
// more than `thresholdPct`. Anything else is "no significant change".
struct VerdictRule {
    double thresholdPct = 2.0;
    double alpha = 0.05;
    double confidence = 0.95;
    int resamples = 2000;
    uint64_t seed = 1;
};

enum class VerdictKind { Faster, Slower, NoChange, TooFewSamples };
const char* verdictName(VerdictKind kind); // "faster", "slower", "no significant change", ...

struct Verdict {
    VerdictKind kind = VerdictKind::TooFewSamples;
    double changePct = 0; // (ratio - 1) * 100: positive = B slower
    RatioInterval ratio;
    MannWhitney test;
    size_t countA = 0;
    size_t countB = 0;
    double medianA = 0;
    double medianB = 0;
    VerdictRule rule;
    std::string text; // one sentence with the figures and the rule it applied
};

// Needs at least 2 samples on each side; fewer gives TooFewSamples.
Verdict decide(std::span<const double> a, std::span<const double> b, const VerdictRule& rule = {});

} // namespace ws::compare
