// SPDX-License-Identifier: MIT
#include "core/bench/benchstats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace ws::bench {

double percentileSorted(std::span<const double> sorted, double q)
{
    if (sorted.empty())
        return 0;
    q = std::clamp(q, 0.0, 100.0);
    const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double median(std::span<const double> samples)
{
    std::vector<double> v(samples.begin(), samples.end());
    std::sort(v.begin(), v.end());
    return percentileSorted(v, 50);
}

SampleStats computeStats(std::span<const double> samples)
{
    SampleStats s;
    s.count = samples.size();
    if (samples.empty())
        return s;
    std::vector<double> v(samples.begin(), samples.end());
    std::sort(v.begin(), v.end());
    s.min = v.front();
    s.max = v.back();
    s.median = percentileSorted(v, 50);
    s.p05 = percentileSorted(v, 5);
    s.p25 = percentileSorted(v, 25);
    s.p75 = percentileSorted(v, 75);
    s.p95 = percentileSorted(v, 95);
    // Two-pass mean/variance: the samples are close together, so a one-pass formula would
    // lose the digits the CoV is made of.
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    if (v.size() > 1) {
        double ss = 0;
        for (double x : v)
            ss += (x - s.mean) * (x - s.mean);
        s.stddev = std::sqrt(ss / static_cast<double>(v.size() - 1));
        s.cov = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
    }
    return s;
}

Interval bootstrapMedianInterval(std::span<const double> samples, double confidence, int resamples, uint64_t seed)
{
    if (samples.empty())
        return {};
    if (samples.size() == 1 || resamples < 1)
        return {samples.front(), samples.front()};
    std::mt19937_64 rng(seed);
    const auto n = samples.size();
    std::vector<double> medians;
    medians.reserve(static_cast<size_t>(resamples));
    std::vector<double> draw(n);
    for (int r = 0; r < resamples; ++r) {
        for (size_t i = 0; i < n; ++i)
            draw[i] = samples[static_cast<size_t>(rng() % n)];
        std::sort(draw.begin(), draw.end());
        medians.push_back(percentileSorted(draw, 50));
    }
    std::sort(medians.begin(), medians.end());
    const double tail = (1.0 - std::clamp(confidence, 0.0, 1.0)) / 2.0 * 100.0;
    return {percentileSorted(medians, tail), percentileSorted(medians, 100.0 - tail)};
}

DriftCheck checkDrift(std::span<const double> series, double tolerance)
{
    DriftCheck d;
    const size_t n = series.size();
    if (n < 4)
        return d;
    const size_t k = std::max<size_t>(1, n / 4);
    const double early = median(series.first(k));
    const double afterEarly = median(series.subspan(k));
    const double late = median(series.last(k));
    const double beforeLate = median(series.first(n - k));
    d.earlyVsRest = afterEarly != 0 ? (early - afterEarly) / afterEarly : 0;
    d.lateVsRest = beforeLate != 0 ? (late - beforeLate) / beforeLate : 0;

    // Theil-Sen is quadratic in the number of points: long series are reduced to the medians
    // of at most kMaxPoints equal bins first (the slope is then per bin, scaled back per step).
    constexpr size_t kMaxPoints = 256;
    std::vector<double> points;
    double stepsPerPoint = 1;
    if (n <= kMaxPoints) {
        points.assign(series.begin(), series.end());
    } else {
        stepsPerPoint = static_cast<double>(n) / kMaxPoints;
        for (size_t b = 0; b < kMaxPoints; ++b) {
            const auto lo = static_cast<size_t>(static_cast<double>(b) * stepsPerPoint);
            const auto hi = std::min(n, static_cast<size_t>(static_cast<double>(b + 1) * stepsPerPoint));
            points.push_back(median(series.subspan(lo, std::max<size_t>(1, hi - lo))));
        }
    }
    std::vector<double> slopes;
    slopes.reserve(points.size() * (points.size() - 1) / 2);
    for (size_t i = 0; i < points.size(); ++i) {
        for (size_t j = i + 1; j < points.size(); ++j)
            slopes.push_back((points[j] - points[i]) / (static_cast<double>(j - i) * stepsPerPoint));
    }
    const double overall = median(series);
    d.slopePerStep = overall != 0 ? median(slopes) / overall : 0;

    if (d.earlyVsRest > tolerance)
        d.trend = DriftCheck::Trend::Falling;
    else if (d.lateVsRest > tolerance)
        d.trend = DriftCheck::Trend::Rising;
    else
        d.trend = DriftCheck::Trend::Stable;
    return d;
}

const char* trendName(DriftCheck::Trend t)
{
    switch (t) {
    case DriftCheck::Trend::Stable:
        return "stable";
    case DriftCheck::Trend::Falling:
        return "falling";
    case DriftCheck::Trend::Rising:
        return "rising";
    case DriftCheck::Trend::TooFewSamples:
        return "too few samples";
    }
    return "unknown";
}

} // namespace ws::bench
