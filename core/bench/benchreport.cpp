// SPDX-License-Identifier: MIT
#include "core/bench/benchreport.h"

#include <cmath>
#include <cstdio>
#include <span>
#include <sstream>

namespace ws::bench {

namespace {

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::vector<double> allCalls(const BenchRunResult& run)
{
    std::vector<double> v;
    for (const auto& r : run.calls)
        v.insert(v.end(), r.begin(), r.end());
    return v;
}

std::string percent(double rel)
{
    return fmt("%.2f%%", rel * 100.0);
}

} // namespace

std::optional<double> toMicroseconds(double value, std::string_view unit)
{
    if (unit == "us")
        return value;
    if (unit == "ns")
        return value / 1e3;
    if (unit == "ms")
        return value * 1e3;
    if (unit == "s")
        return value * 1e6;
    return std::nullopt;
}

std::vector<ThroughputFigure> throughputFigures(const BenchRunResult& run, double timeInUnit)
{
    std::vector<ThroughputFigure> out;
    const auto tUs = toMicroseconds(timeInUnit, run.unit);
    if (!tUs || !(*tUs > 0))
        return out;
    const std::string kind
        = run.throughputKind == ThroughputKind::Kernel ? "kernel throughput" : "effective throughput";
    if (run.workFlops > 0) {
        ThroughputFigure f;
        f.value = run.workFlops / *tUs / 1e6;
        f.unit = "TFLOP/s";
        f.kind = run.throughputKind;
        f.formula = "TFLOP/s = FLOP / t_us / 10^6 = " + fmt("%.6g", run.workFlops) + " / " + fmt("%.4f", *tUs)
            + " / 10^6 = " + fmt("%.1f", f.value) + " (" + kind + "; work: " + run.workText + ")";
        out.push_back(std::move(f));
    }
    if (run.workBytes > 0) {
        ThroughputFigure f;
        f.value = run.workBytes / *tUs / 1e3;
        f.unit = "GB/s";
        f.kind = run.throughputKind;
        f.formula = "GB/s = bytes / t_us / 10^3 = " + fmt("%.6g", run.workBytes) + " / " + fmt("%.4f", *tUs)
            + " / 10^3 = " + fmt("%.1f", f.value) + " (" + kind + "; work: " + run.workText + ")";
        out.push_back(std::move(f));
    }
    return out;
}

RunSummary summarize(const BenchRunResult& run)
{
    RunSummary s;
    s.title = run.workload + " / " + run.implementation;
    s.timerLabel = std::string(timerLabel(run.options.timer));
    s.roundStats = computeStats(run.rounds);
    const auto calls = allCalls(run);
    if (!calls.empty()) {
        s.stats = computeStats(calls);
        s.basis
            = std::to_string(calls.size()) + " per-call samples in " + std::to_string(run.rounds.size()) + " rounds";
    } else {
        s.stats = s.roundStats;
        s.basis = std::to_string(run.rounds.size()) + " round values, each the mean of "
            + std::to_string(run.options.repeat) + " back-to-back calls";
    }
    s.drift = checkDrift(run.rounds, run.options.driftTolerance);
    s.warmupDrift = checkDrift(
        std::span<const double>(run.warmupChunks).subspan(run.warmupChunks.size() / 2), run.options.driftTolerance);
    s.throughput = throughputFigures(run, s.stats.median);
    s.warnings = run.warnings;
    return s;
}

std::vector<std::string> driftWarnings(const BenchRunResult& run)
{
    std::vector<std::string> w;
    const auto tol = run.options.driftTolerance;
    // The first warm-up chunks are always slow (module load, clocks ramping up); what matters
    // is whether the time per call was still falling in the second half of the warm-up.
    const std::span<const double> chunks(run.warmupChunks);
    const auto warm = checkDrift(chunks.subspan(chunks.size() / 2), tol);
    if (warm.trend == DriftCheck::Trend::Falling)
        w.push_back("warm-up: the time per call was still falling in the second half of the warm-up ("
            + percent(warm.earlyVsRest) + "); increase the warm-up (--warmup-ms or --warmup-calls)");
    const auto rounds = checkDrift(run.rounds, tol);
    if (rounds.trend == DriftCheck::Trend::Falling)
        w.push_back("rounds still falling: the first quarter of the rounds is " + percent(rounds.earlyVsRest)
            + " slower than the rest; increase the warm-up (--warmup-ms or --warmup-calls)");
    else if (rounds.trend == DriftCheck::Trend::Rising)
        w.push_back("later rounds are " + percent(rounds.lateVsRest)
            + " slower than the earlier ones: check clocks, temperature and power before trusting the median");
    return w;
}

std::string formatReport(const BenchResult& result)
{
    std::ostringstream out;
    for (const auto& run : result.runs) {
        const auto s = summarize(run);
        out << s.title << "  [" << run.dtype << ", size " << run.size << ", " << cachePolicyKey(run.options.cache)
            << " cache]\n";
        out << "  timer:     " << s.timerLabel << " (" << timerKey(run.options.timer) << ")\n";
        out << "  samples:   " << s.basis << "\n";
        out << "  median " << fmt("%.4f", s.stats.median) << " " << run.unit << "   mean " << fmt("%.4f", s.stats.mean)
            << "   min " << fmt("%.4f", s.stats.min) << "   max " << fmt("%.4f", s.stats.max) << "   CoV "
            << percent(s.stats.cov) << "\n";
        out << "  rounds:    CoV of round values " << percent(s.roundStats.cov) << ", drift "
            << trendName(s.drift.trend) << "\n";
        for (const auto& t : s.throughput)
            out << "  " << t.unit << ":   " << t.formula << "\n";
        if (run.check.performed)
            out << "  check:     " << (run.check.passed ? "passed" : "FAILED") << ", " << run.check.checked << " of "
                << run.check.total << " elements vs " << run.check.reference << " (rtol " << run.check.rtol << ", atol "
                << run.check.atol << ", max abs error " << fmt("%.3g", run.check.maxAbsError) << ")\n";
        out << "  boundary:  " << run.boundary << "\n";
        for (const auto& w : s.warnings)
            out << "  WARNING:   " << w << "\n";
        out << "\n";
    }
    return out.str();
}

} // namespace ws::bench
