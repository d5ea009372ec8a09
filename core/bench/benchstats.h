// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ws::bench {

// Summary of one set of samples. `stddev` is the sample standard deviation (n - 1), `cov` the
// coefficient of variation stddev / mean (0 for fewer than two samples). Percentiles use linear
// interpolation between closest ranks (numpy's default), so median == percentile(50).
struct SampleStats {
    size_t count = 0;
    double median = 0;
    double mean = 0;
    double min = 0;
    double max = 0;
    double stddev = 0;
    double cov = 0;
    double p05 = 0;
    double p25 = 0;
    double p75 = 0;
    double p95 = 0;
};

SampleStats computeStats(std::span<const double> samples);

// q in [0, 100]; `sorted` must be ascending and non-empty.
double percentileSorted(std::span<const double> sorted, double q);
double median(std::span<const double> samples);

// Percentile bootstrap interval of the median (deterministic for a given seed).
struct Interval {
    double low = 0;
    double high = 0;
};
Interval bootstrapMedianInterval(
    std::span<const double> samples, double confidence = 0.95, int resamples = 2000, uint64_t seed = 1);

// Whether a series of per-round (or per-warm-up-chunk) times is still moving. The seed's
// criterion is "increase warm-up until the early rounds stop drifting": we compare the median of
// the first quarter of the series with the median of the rest (Falling when the early rounds
// are slower by more than `tolerance`), and the last quarter with what precedes it (Rising, a
// sign of clocks dropping or heating). Robust to single outliers because both use medians.
struct DriftCheck {
    enum class Trend { Stable, Falling, Rising, TooFewSamples };
    Trend trend = Trend::TooFewSamples;
    double earlyVsRest = 0;  // (median(first quarter) - median(rest)) / median(rest)
    double lateVsRest = 0;   // (median(last quarter) - median(before it)) / median(before it)
    double slopePerStep = 0; // Theil-Sen slope relative to the overall median, per sample
};

DriftCheck checkDrift(std::span<const double> series, double tolerance);
const char* trendName(DriftCheck::Trend t);

} // namespace ws::bench
