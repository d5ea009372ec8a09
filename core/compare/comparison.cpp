// SPDX-License-Identifier: MIT
#include "core/compare/comparison.h"

#include "core/bench/benchreport.h"
#include "core/bench/benchstats.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>

namespace ws::compare {

namespace {

double medianOrNaN(const std::vector<double>& v)
{
    return v.empty() ? kNoValue : bench::median(v);
}

std::string percentText(double pct)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
    return buf;
}

std::vector<double> runSamples(const bench::BenchRunResult& run)
{
    std::vector<double> out;
    for (const auto& round : run.calls)
        out.insert(out.end(), round.begin(), round.end());
    if (out.empty())
        out = run.rounds;
    // Microseconds on both sides, whatever unit each session stored.
    for (double& v : out)
        v = bench::toMicroseconds(v, run.unit).value_or(v);
    return out;
}

std::string runTitle(const bench::BenchRunResult& run)
{
    return run.workload + " / " + run.implementation + " (" + std::to_string(run.size) + ", " + run.dtype + ")";
}

// Pairs B's runs with A's: same workload and implementation first, then the rest in order.
std::vector<std::pair<int, int>> matchRuns(const bench::BenchResult& a, const bench::BenchResult& b)
{
    std::vector<std::pair<int, int>> pairs;
    std::vector<bool> usedA(a.runs.size(), false);
    std::vector<int> partner(b.runs.size(), -1);
    for (size_t j = 0; j < b.runs.size(); ++j) {
        for (size_t i = 0; i < a.runs.size(); ++i) {
            if (!usedA[i] && a.runs[i].workload == b.runs[j].workload
                && a.runs[i].implementation == b.runs[j].implementation) {
                usedA[i] = true;
                partner[j] = static_cast<int>(i);
                break;
            }
        }
    }
    size_t nextA = 0;
    for (size_t j = 0; j < b.runs.size(); ++j) {
        if (partner[j] < 0) {
            while (nextA < a.runs.size() && usedA[nextA])
                ++nextA;
            if (nextA < a.runs.size()) {
                usedA[nextA] = true;
                partner[j] = static_cast<int>(nextA);
            }
        }
        if (partner[j] >= 0)
            pairs.emplace_back(partner[j], static_cast<int>(j));
    }
    return pairs;
}

VerdictKind combine(const std::vector<VerdictKind>& kinds)
{
    if (kinds.empty())
        return VerdictKind::TooFewSamples;
    if (std::find(kinds.begin(), kinds.end(), VerdictKind::Slower) != kinds.end())
        return VerdictKind::Slower;
    if (std::find(kinds.begin(), kinds.end(), VerdictKind::Faster) != kinds.end())
        return VerdictKind::Faster;
    if (std::find(kinds.begin(), kinds.end(), VerdictKind::NoChange) != kinds.end())
        return VerdictKind::NoChange;
    return VerdictKind::TooFewSamples;
}

bool contains(const std::string& s, const char* part)
{
    return s.find(part) != std::string::npos;
}

// A metric that adds up over launches (bytes, instructions, cycles summed): ncu's ".sum"
// roll-ups that are not ratios or rates.
bool additive(const std::string& name, const std::string& unit)
{
    return contains(name, ".sum") && !contains(name, ".per_") && !contains(name, "pct") && !contains(name, "ratio")
        && unit.find('/') == std::string::npos && unit != "%";
}

// The session-wide value of a metric: summed over profiled launches when it adds up, else
// averaged weighted by each launch's duration.
std::optional<double> sessionMetric(const CompareSession& s, const std::string& name)
{
    double sum = 0, weighted = 0, weights = 0;
    bool any = false;
    std::string unit;
    for (const auto& k : s.metrics.kernels()) {
        const auto v = k.metrics.get(name);
        if (!v)
            continue;
        any = true;
        unit = k.metrics.unit(name);
        sum += *v;
        const double w = std::max<double>(1, static_cast<double>(k.launch.end - k.launch.start));
        weighted += *v * w;
        weights += w;
    }
    if (!any)
        return std::nullopt;
    return additive(name, unit) ? sum : weighted / weights;
}

const KernelRow* findRow(const Comparison& c, const std::string& kernel)
{
    const KernelRow* found = nullptr;
    for (const auto& r : c.kernels) {
        if (r.name.find(kernel) != std::string::npos || r.nameA.find(kernel) != std::string::npos) {
            // Prefer a matched row, then the one with the most time.
            if (!found || (r.matched() && !found->matched())
                || (r.matched() == found->matched() && r.totalA + r.totalB > found->totalA + found->totalB))
                found = &r;
        }
    }
    return found;
}

HypothesisResult evaluate(
    const Hypothesis& h, const Comparison& c, const CompareSession& a, const CompareSession& b, const VerdictRule& rule)
{
    HypothesisResult r;
    r.hypothesis = h;
    const auto directionHeld = [&](double pct, bool significant) {
        switch (h.direction) {
        case Hypothesis::Direction::Up:
            return significant && pct > 0;
        case Hypothesis::Direction::Down:
            return significant && pct < 0;
        case Hypothesis::Direction::Same:
            return !significant;
        }
        return false;
    };
    const auto finish = [&](double pct, bool significant, const std::string& what) {
        r.evaluated = true;
        r.observedPct = pct;
        r.held = directionHeld(pct, significant);
        // A predicted size holds when the observed change is at least half of it.
        if (r.held && h.sizePct && h.direction != Hypothesis::Direction::Same)
            r.held = std::fabs(pct) >= *h.sizePct / 2;
        r.text = formatHypothesis(h) + ": " + (r.held ? "held" : "did not hold") + " (" + what + " "
            + (std::isfinite(pct) ? percentText(pct) : std::string("n/a"))
            + (h.sizePct
                    ? ", predicted " + percentText(h.direction == Hypothesis::Direction::Up ? *h.sizePct : -*h.sizePct)
                    : std::string())
            + (significant ? ", significant" : ", not significant") + ")";
    };
    const auto notFound = [&](const std::string& why) { r.text = formatHypothesis(h) + ": not checked (" + why + ")"; };
    if (h.subject == "latency") {
        if (c.overall == VerdictKind::TooFewSamples)
            return notFound("too few samples for the latency"), r;
        finish(c.verdict.changePct, c.overall == VerdictKind::Slower || c.overall == VerdictKind::Faster, "latency");
        return r;
    }
    if (h.subject == "time") {
        const KernelRow* row = findRow(c, h.kernel);
        if (!row)
            return notFound("no kernel name contains '" + h.kernel + "'"), r;
        if (!row->matched()) {
            // Removed (-100%) or added (+inf): a change by definition.
            finish(row->keyB < 0 ? -100.0 : std::numeric_limits<double>::infinity(), true,
                "time of " + row->name + (row->keyB < 0 ? " (only in A)" : " (only in B)"));
            return r;
        }
        const bool significant
            = std::isfinite(row->pValue) && row->pValue < rule.alpha && std::fabs(row->diffPct) > rule.thresholdPct;
        finish(row->diffPct, significant, "median time of " + row->name);
        return r;
    }
    std::optional<double> va, vb;
    std::string what = h.subject;
    if (!h.kernel.empty()) {
        const KernelRow* row = findRow(c, h.kernel);
        if (!row || !row->matched())
            return notFound("no kernel pair whose name contains '" + h.kernel + "'"), r;
        va = keyMetrics(a, static_cast<uint32_t>(row->keyA)).get(h.subject);
        vb = keyMetrics(b, static_cast<uint32_t>(row->keyB)).get(h.subject);
        what += " of " + row->name;
    } else {
        va = sessionMetric(a, h.subject);
        vb = sessionMetric(b, h.subject);
    }
    if (!va || !vb)
        return notFound(std::string("metric not collected in ") + (!va && !vb ? "A and B" : (!va ? "A" : "B"))), r;
    double pct = 0;
    if (*va != 0)
        pct = 100 * (*vb - *va) / std::fabs(*va);
    else
        pct = *vb == 0 ? 0 : std::numeric_limits<double>::infinity() * (*vb > 0 ? 1 : -1);
    finish(pct, std::fabs(pct) > rule.thresholdPct, what);
    return r;
}

} // namespace

double zScore(double value, const std::vector<double>& baselines)
{
    std::vector<double> v;
    for (double b : baselines) {
        if (std::isfinite(b))
            v.push_back(b);
    }
    if (v.size() < 2 || !std::isfinite(value))
        return kNoValue;
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    double ss = 0;
    for (double x : v)
        ss += (x - mean) * (x - mean);
    const double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    return sd > 0 ? (value - mean) / sd : kNoValue;
}

KernelMetrics keyMetrics(const CompareSession& s, uint32_t key)
{
    std::map<std::string, std::pair<std::vector<double>, std::string>> values;
    for (const auto& l : s.launches) {
        if (l.key != key)
            continue;
        const auto* k = s.metrics.find(l.id);
        if (!k)
            continue;
        for (const auto& [name, e] : k->metrics.all()) {
            auto& slot = values[name];
            slot.first.push_back(e.value);
            slot.second = e.unit;
        }
    }
    KernelMetrics out;
    for (auto& [name, v] : values)
        out.set(name, bench::median(v.first), v.second);
    return out;
}

int metricPreference(const std::string& name, const std::string& unit)
{
    // Stalls first: "..._stalled_<reason>_per_issue_active" also contains "issue_active".
    if (contains(name, "stall"))
        return -1;
    if (contains(name, "pct_of_peak") || contains(name, "throughput") || contains(name, "per_second")
        || contains(name, "warps_active") || contains(name, "occupancy") || contains(name, "hit_rate")
        || contains(name, "issue_active") || contains(name, "inst_executed_per") || unit == "byte/second")
        return +1;
    if (contains(name, "duration") || contains(name, "cycles_elapsed") || contains(name, "stall")
        || contains(name, "bytes") || contains(name, "sectors") || contains(name, "wavefronts")
        || contains(name, "bank_conflict") || contains(name, "latency"))
        return -1;
    return 0;
}

std::vector<MetricRow> compareMetrics(const CompareSession& a, const CompareSession& b, const KernelRow& row)
{
    std::vector<MetricRow> out;
    if (!row.matched())
        return out;
    const KernelMetrics ma = keyMetrics(a, static_cast<uint32_t>(row.keyA));
    const KernelMetrics mb = keyMetrics(b, static_cast<uint32_t>(row.keyB));
    for (const auto& [name, ea] : ma.all()) {
        const auto vb = mb.get(name);
        if (!vb)
            continue;
        MetricRow m;
        m.name = name;
        m.unit = ea.unit;
        if (const auto* def = b.metrics.definition(name))
            m.section = def->section;
        m.valueA = ea.value;
        m.valueB = *vb;
        m.diff = *vb - ea.value;
        m.diffPct = ea.value != 0 ? 100 * m.diff / std::fabs(ea.value) : kNoValue;
        const int pref = metricPreference(name, m.unit);
        const int sign = m.diff > 0 ? 1 : (m.diff < 0 ? -1 : 0);
        m.better = pref * sign;
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Hypothesis> storedHypotheses(const CompareSession& s)
{
    const auto it = s.data.meta.find(kHypothesesMetaKey);
    if (it == s.data.meta.end() || it->second.empty())
        return {};
    try {
        return hypothesesFromJson(it->second);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(s.path + ": meta " + kHypothesesMetaKey + ": " + e.what());
    }
}

Comparison compareSessions(const CompareSession& a, const CompareSession& b, const CompareOptions& options,
    const std::vector<const CompareSession*>& extraBaselines, const std::vector<Hypothesis>& hypotheses)
{
    Comparison c;
    c.pathA = a.path;
    c.pathB = b.path;
    for (const auto* e : extraBaselines)
        c.extraBaselines.push_back(e->path);
    const bool benchBoth = a.bench && b.bench && !a.bench->runs.empty() && !b.bench->runs.empty();
    if (!benchBoth && (a.launches.empty() || b.launches.empty())) {
        std::string why;
        if (a.bench.has_value() != b.bench.has_value())
            why = "one is a benchmark session and the other is not";
        else
            why = std::string(a.launches.empty() ? "A" : "B") + " has no kernel launches";
        throw std::invalid_argument("nothing to compare between " + a.path + " and " + b.path + ": " + why);
    }

    // Kernels.
    c.matching = matchKernels(a, b, options.pairs);
    std::vector<KernelMatching> extraMatches;
    extraMatches.reserve(extraBaselines.size());
    for (const auto* e : extraBaselines)
        extraMatches.push_back(matchKernels(*e, b));
    const auto extraMedian = [&](size_t e, uint32_t keyB) {
        for (const auto& p : extraMatches[e].pairs) {
            if (p.keyB == keyB)
                return medianOrNaN(extraBaselines[e]->durations(p.keyA));
        }
        return kNoValue;
    };
    for (const auto& p : c.matching.pairs) {
        KernelRow r;
        r.keyA = static_cast<int>(p.keyA);
        r.keyB = static_cast<int>(p.keyB);
        r.kind = p.kind;
        r.name = b.keys[p.keyB].name;
        r.path = b.keys[p.keyB].path;
        if (a.keys[p.keyA].name != r.name)
            r.nameA = a.keys[p.keyA].name;
        const auto& da = a.durations(p.keyA);
        const auto& db = b.durations(p.keyB);
        r.countA = da.size();
        r.countB = db.size();
        r.medianA = medianOrNaN(da);
        r.medianB = medianOrNaN(db);
        r.totalA = std::accumulate(da.begin(), da.end(), 0.0);
        r.totalB = std::accumulate(db.begin(), db.end(), 0.0);
        r.diffNs = r.medianB - r.medianA;
        r.diffPct = r.medianA != 0 ? 100 * r.diffNs / r.medianA : kNoValue;
        const auto test = mannWhitneyU(da, db);
        r.pValue = test.valid ? test.pValue : kNoValue;
        r.baselineMedians.push_back(r.medianA);
        for (size_t e = 0; e < extraBaselines.size(); ++e)
            r.baselineMedians.push_back(extraMedian(e, p.keyB));
        r.zScore = zScore(r.medianB, r.baselineMedians);
        c.kernels.push_back(std::move(r));
    }
    for (uint32_t ka : c.matching.unmatchedA) {
        KernelRow r;
        r.keyA = static_cast<int>(ka);
        r.name = a.keys[ka].name;
        r.path = a.keys[ka].path;
        const auto& da = a.durations(ka);
        r.countA = da.size();
        r.medianA = medianOrNaN(da);
        r.totalA = std::accumulate(da.begin(), da.end(), 0.0);
        c.kernels.push_back(std::move(r));
    }
    for (uint32_t kb : c.matching.unmatchedB) {
        KernelRow r;
        r.keyB = static_cast<int>(kb);
        r.name = b.keys[kb].name;
        r.path = b.keys[kb].path;
        const auto& db = b.durations(kb);
        r.countB = db.size();
        r.medianB = medianOrNaN(db);
        r.totalB = std::accumulate(db.begin(), db.end(), 0.0);
        c.kernels.push_back(std::move(r));
    }

    // Latency: benchmark runs when both sides have them, else per-iteration GPU time.
    c.iterationsA = findIterations(a, options.rangeName);
    c.iterationsB = findIterations(b, options.rangeName);
    if (benchBoth) {
        c.verdictSource = "benchmark runs";
        std::vector<VerdictKind> kinds;
        for (const auto& [ia, ib] : matchRuns(*a.bench, *b.bench)) {
            const auto& ra = a.bench->runs[static_cast<size_t>(ia)];
            const auto& rb = b.bench->runs[static_cast<size_t>(ib)];
            BenchRow row;
            row.titleA = runTitle(ra);
            row.titleB = runTitle(rb);
            row.unit = "us";
            row.samplesA = runSamples(ra);
            row.samplesB = runSamples(rb);
            row.verdict = decide(row.samplesA, row.samplesB, options.rule);
            row.baselineMedians.push_back(row.verdict.medianA);
            for (const auto* e : extraBaselines) {
                double m = kNoValue;
                if (e->bench) {
                    for (const auto& [ea, eb] : matchRuns(*e->bench, *b.bench)) {
                        if (eb == ib)
                            m = medianOrNaN(runSamples(e->bench->runs[static_cast<size_t>(ea)]));
                    }
                }
                row.baselineMedians.push_back(m);
            }
            row.zScore = zScore(row.verdict.medianB, row.baselineMedians);
            kinds.push_back(row.verdict.kind);
            c.bench.push_back(std::move(row));
        }
        if (a.bench->runs.size() != b.bench->runs.size())
            c.notes.push_back("A has " + std::to_string(a.bench->runs.size()) + " benchmark runs, B "
                + std::to_string(b.bench->runs.size()) + "; only the paired ones are compared");
        c.overall = combine(kinds);
        // The headline verdict: the run that decided the overall outcome (the first of that kind).
        for (const auto& row : c.bench) {
            if (row.verdict.kind == c.overall) {
                c.verdict = row.verdict;
                break;
            }
        }
        if (c.bench.size() == 1) {
            c.overallText = c.verdict.text;
            c.latencyBaselineMedians = c.bench.front().baselineMedians;
            c.latencyZ = c.bench.front().zScore;
        } else {
            size_t slower = 0, faster = 0;
            for (const auto& row : c.bench) {
                slower += row.verdict.kind == VerdictKind::Slower;
                faster += row.verdict.kind == VerdictKind::Faster;
            }
            std::string headline;
            for (const auto& row : c.bench) {
                if (row.verdict.kind == c.overall) {
                    headline = row.titleB + ": " + row.verdict.text;
                    break;
                }
            }
            c.overallText = std::to_string(slower) + " of " + std::to_string(c.bench.size())
                + " benchmark runs slower, " + std::to_string(faster) + " faster; " + headline;
        }
    } else {
        c.verdictSource = "per-iteration GPU time";
        if (!options.rangeName.empty() && (!c.iterationsA.rangeFound || !c.iterationsB.rangeFound))
            throw std::invalid_argument("NVTX range '" + options.rangeName + "' launched no kernels in "
                + (!c.iterationsA.rangeFound ? a.path : b.path));
        c.verdict = decide(c.iterationsA.values, c.iterationsB.values, options.rule);
        c.overall = c.verdict.kind;
        c.overallText = c.verdict.text;
        c.latencyBaselineMedians.push_back(c.verdict.medianA);
        for (const auto* e : extraBaselines)
            c.latencyBaselineMedians.push_back(medianOrNaN(findIterations(*e, options.rangeName).values));
        c.latencyZ = zScore(c.verdict.medianB, c.latencyBaselineMedians);
        if (c.iterationsA.period != c.iterationsB.period)
            c.notes.push_back(
                "iterations found differently: A: " + c.iterationsA.basis + "; B: " + c.iterationsB.basis);
    }
    if (!c.matching.unmatchedA.empty() || !c.matching.unmatchedB.empty())
        c.notes.push_back(std::to_string(c.matching.unmatchedA.size()) + " kernel(s) only in A, "
            + std::to_string(c.matching.unmatchedB.size()) + " only in B (re-pair with --pair A_NAME=B_NAME)");

    for (const auto& h : hypotheses)
        c.hypotheses.push_back(evaluate(h, c, a, b, options.rule));
    return c;
}

} // namespace ws::compare
