// SPDX-License-Identifier: MIT
#include "core/compare/comparestats.h"

#include "core/bench/benchstats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

namespace ws::compare {

namespace {

double medianOf(std::vector<double>& v)
{
    // Only the middle one or two order statistics are needed: nth_element is linear.
    const size_t n = v.size();
    const size_t mid = n / 2;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
    const double upper = v[mid];
    if (n % 2 == 1)
        return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower + (upper - lower) * 0.5;
}

std::string fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

std::string pText(double p)
{
    char buf[64];
    if (p < 1e-4)
        std::snprintf(buf, sizeof buf, "%.1e", p);
    else
        std::snprintf(buf, sizeof buf, "%.4f", p);
    return buf;
}

} // namespace

double mannWhitneyExactSf(int64_t u, int64_t n1, int64_t n2)
{
    if (n1 <= 0 || n2 <= 0)
        return 1;
    if (u <= 0)
        return 1;
    if (u > n1 * n2)
        return 0;
    // counts(m, n, k) = counts(m - 1, n, k - n) + counts(m, n - 1, k): the number of orderings
    // of m + n values in which U = k. Built for the smaller sample m (at most 8 when the test
    // chooses the exact method) over n = 0..N, keeping one array per m. Counts are at most
    // C(m + n, m), summed without cancellation, so doubles hold them to 1 ulp per step.
    const int64_t m = std::min(n1, n2);
    const int64_t n = std::max(n1, n2);
    std::vector<std::vector<double>> counts(static_cast<size_t>(m + 1));
    // n = 0: only U = 0.
    for (auto& c : counts)
        c.assign(1, 1.0);
    for (int64_t nn = 1; nn <= n; ++nn) {
        std::vector<std::vector<double>> next(static_cast<size_t>(m + 1));
        next[0].assign(1, 1.0);
        for (int64_t mm = 1; mm <= m; ++mm) {
            auto& out = next[static_cast<size_t>(mm)];
            out.assign(static_cast<size_t>(mm * nn + 1), 0.0);
            const auto& withoutX = next[static_cast<size_t>(mm - 1)]; // (mm - 1, nn), shifted by nn
            const auto& withoutY = counts[static_cast<size_t>(mm)];   // (mm, nn - 1)
            for (size_t k = 0; k < withoutY.size(); ++k)
                out[k] += withoutY[k];
            for (size_t k = 0; k < withoutX.size(); ++k)
                out[k + static_cast<size_t>(nn)] += withoutX[k];
        }
        counts = std::move(next);
    }
    const auto& dist = counts[static_cast<size_t>(m)];
    const double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    double tail = 0;
    for (size_t k = static_cast<size_t>(u); k < dist.size(); ++k)
        tail += dist[k];
    return tail / total;
}

MannWhitney mannWhitneyU(std::span<const double> a, std::span<const double> b)
{
    MannWhitney r;
    const size_t n1 = a.size();
    const size_t n2 = b.size();
    if (n1 == 0 || n2 == 0)
        return r;
    r.valid = true;
    // Ranks of the pooled sample, ties averaged; the tie term sum(t^3 - t) for the variance.
    std::vector<std::pair<double, bool>> pooled; // (value, from a)
    pooled.reserve(n1 + n2);
    for (double v : a)
        pooled.emplace_back(v, true);
    for (double v : b)
        pooled.emplace_back(v, false);
    std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    double rankSumA = 0;
    double tieTerm = 0;
    for (size_t i = 0; i < pooled.size();) {
        size_t j = i;
        while (j < pooled.size() && pooled[j].first == pooled[i].first)
            ++j;
        const double rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0; // mean of ranks i+1..j
        for (size_t k = i; k < j; ++k) {
            if (pooled[k].second)
                rankSumA += rank;
        }
        const auto t = static_cast<double>(j - i);
        tieTerm += t * t * t - t;
        i = j;
    }
    const double d1 = static_cast<double>(n1);
    const double d2 = static_cast<double>(n2);
    r.u1 = rankSumA - d1 * (d1 + 1) / 2;
    r.u2 = d1 * d2 - r.u1;
    const double u = std::max(r.u1, r.u2);
    const bool small = n1 <= 8 || n2 <= 8;
    if (small && tieTerm == 0) {
        r.exact = true;
        r.pValue = 2
            * mannWhitneyExactSf(
                static_cast<int64_t>(std::llround(u)), static_cast<int64_t>(n1), static_cast<int64_t>(n2));
    } else {
        const double n = d1 + d2;
        const double s = std::sqrt(d1 * d2 / 12 * ((n + 1) - tieTerm / (n * (n - 1))));
        const double numerator = u - d1 * d2 / 2 - 0.5;
        if (s > 0) {
            r.z = numerator / s;
            r.pValue = 2 * 0.5 * std::erfc(r.z / std::sqrt(2.0));
        } else {
            // Every value equal: no evidence of a difference (scipy returns NaN here).
            r.z = 0;
            r.pValue = 1;
        }
    }
    r.pValue = std::clamp(r.pValue, 0.0, 1.0);
    return r;
}

RatioInterval bootstrapMedianRatio(
    std::span<const double> a, std::span<const double> b, double confidence, int resamples, uint64_t seed)
{
    RatioInterval r;
    if (a.empty() || b.empty())
        return r;
    const double ma = bench::median(a);
    if (ma == 0)
        return r;
    r.ratio = bench::median(b) / ma;
    r.valid = true;
    if (resamples < 1) {
        r.low = r.high = r.ratio;
        return r;
    }
    std::mt19937_64 rng(seed);
    std::vector<double> ratios;
    ratios.reserve(static_cast<size_t>(resamples));
    std::vector<double> drawA(a.size());
    std::vector<double> drawB(b.size());
    for (int i = 0; i < resamples; ++i) {
        for (auto& v : drawA)
            v = a[static_cast<size_t>(rng() % a.size())];
        for (auto& v : drawB)
            v = b[static_cast<size_t>(rng() % b.size())];
        const double medA = medianOf(drawA);
        const double medB = medianOf(drawB);
        if (medA != 0)
            ratios.push_back(medB / medA);
    }
    if (ratios.empty()) {
        r.low = r.high = r.ratio;
        return r;
    }
    std::sort(ratios.begin(), ratios.end());
    const double tail = (1.0 - std::clamp(confidence, 0.0, 1.0)) / 2.0 * 100.0;
    r.low = bench::percentileSorted(ratios, tail);
    r.high = bench::percentileSorted(ratios, 100.0 - tail);
    return r;
}

const char* verdictName(VerdictKind kind)
{
    switch (kind) {
    case VerdictKind::Faster:
        return "faster";
    case VerdictKind::Slower:
        return "slower";
    case VerdictKind::NoChange:
        return "no significant change";
    case VerdictKind::TooFewSamples:
        return "too few samples";
    }
    return "unknown";
}

Verdict decide(std::span<const double> a, std::span<const double> b, const VerdictRule& rule)
{
    Verdict v;
    v.rule = rule;
    v.countA = a.size();
    v.countB = b.size();
    v.medianA = a.empty() ? 0 : bench::median(a);
    v.medianB = b.empty() ? 0 : bench::median(b);
    const std::string ruleText = "threshold " + fixed(rule.thresholdPct, 1) + "%, Mann-Whitney alpha "
        + fixed(rule.alpha, 2) + ", " + fixed(rule.confidence * 100, 0)
        + "% bootstrap CI of the median ratio must exclude 1";
    if (a.size() < 2 || b.size() < 2 || v.medianA == 0) {
        v.kind = VerdictKind::TooFewSamples;
        v.text = "too few samples to decide (" + std::to_string(a.size()) + " in A, " + std::to_string(b.size())
            + " in B; at least 2 each)";
        return v;
    }
    v.ratio = bootstrapMedianRatio(a, b, rule.confidence, rule.resamples, rule.seed);
    v.test = mannWhitneyU(a, b);
    v.changePct = (v.ratio.ratio - 1) * 100;
    const bool significant = v.test.pValue < rule.alpha;
    if (significant && v.ratio.low > 1 && v.changePct > rule.thresholdPct)
        v.kind = VerdictKind::Slower;
    else if (significant && v.ratio.high < 1 && -v.changePct > rule.thresholdPct)
        v.kind = VerdictKind::Faster;
    else
        v.kind = VerdictKind::NoChange;
    std::string head;
    switch (v.kind) {
    case VerdictKind::Slower:
        head = "B is " + fixed(v.changePct, 1) + "% slower";
        break;
    case VerdictKind::Faster:
        head = "B is " + fixed(-v.changePct, 1) + "% faster";
        break;
    default:
        head = "no significant change (" + std::string(v.changePct >= 0 ? "+" : "") + fixed(v.changePct, 1) + "%)";
        break;
    }
    v.text = head + ": median ratio B/A " + fixed(v.ratio.ratio, 4) + ", " + fixed(rule.confidence * 100, 0) + "% CI ["
        + fixed(v.ratio.low, 4) + ", " + fixed(v.ratio.high, 4) + "], Mann-Whitney p = " + pText(v.test.pValue)
        + (v.test.exact ? " (exact)" : "") + ", n = " + std::to_string(a.size()) + " / " + std::to_string(b.size())
        + " (" + ruleText + ")";
    return v;
}

} // namespace ws::compare
