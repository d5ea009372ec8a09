// SPDX-License-Identifier: MIT
#include "core/metrics/ncucomparison.h"

#include "core/util/demangle.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace ws {

namespace {

using Launches = std::vector<std::map<std::string, double>>;

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

// ncu prints "(anonymous namespace)" where the demangler's short name expects no parentheses.
std::string baseName(std::string name)
{
    const std::string anon = "(anonymous namespace)";
    for (size_t p; (p = name.find(anon)) != std::string::npos;)
        name.replace(p, anon.size(), "anonymous_namespace");
    return shortName(name);
}

void dropWarmup(std::map<std::string, Launches>& byKernel, int warmup)
{
    for (auto& [name, launches] : byKernel) {
        if (static_cast<int>(launches.size()) > warmup)
            launches.erase(launches.begin(), launches.begin() + warmup);
    }
}

} // namespace

const char* NcuComparison::toString(MetricAgreement::How how)
{
    switch (how) {
    case MetricAgreement::How::Zero:
        return "both zero";
    case MetricAgreement::How::Relative:
        return "within tolerance";
    case MetricAgreement::How::WithinSpread:
        return "within ncu's own spread";
    case MetricAgreement::How::AbsolutePercent:
        return "within 0.1 percentage point";
    case MetricAgreement::How::Disagrees:
        return "disagrees";
    }
    return "?";
}

std::vector<MetricAgreement> NcuComparison::compare(
    const SessionData& ours, const std::vector<NcuResult>& ncu, const ComparisonOptions& o)
{
    return compare(ours, std::vector<std::vector<NcuResult>> {ncu}, o);
}

std::vector<MetricAgreement> NcuComparison::compare(
    const SessionData& ours, const std::vector<std::vector<NcuResult>>& ncuRuns, const ComparisonOptions& o)
{
    std::map<uint32_t, const MetricDef*> defs;
    for (const auto& d : ours.metricDefs)
        defs[d.id] = &d;
    std::map<int64_t, std::map<std::string, double>> valuesOf;
    for (const auto& m : ours.kernelMetrics) {
        if (auto it = defs.find(m.metricId); it != defs.end())
            valuesOf[m.kernelId][it->second->name] = m.value;
    }
    std::vector<const KernelRecord*> kernels;
    for (const auto& k : ours.kernels)
        kernels.push_back(&k);
    std::sort(kernels.begin(), kernels.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
    std::map<std::string, Launches> oursBy;
    for (const auto* k : kernels) {
        const std::string& n = ours.str(k->shortName).empty() ? ours.str(k->mangledName) : ours.str(k->shortName);
        oursBy[baseName(n)].push_back(valuesOf[k->id]);
    }
    // Each ncu run loses its own warm-up launches; the rest are pooled, so the spread covers the
    // difference between runs too.
    std::map<std::string, Launches> ncuBy;
    std::map<std::string, std::string> ncuUnits;
    for (const auto& run : ncuRuns) {
        std::vector<const NcuResult*> results;
        results.reserve(run.size());
        for (const auto& r : run)
            results.push_back(&r);
        std::stable_sort(results.begin(), results.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
        std::map<std::string, Launches> runBy;
        for (const auto* r : results) {
            runBy[baseName(r->kernelName)].push_back(r->values);
            for (const auto& [k, u] : r->units)
                ncuUnits.emplace(k, u);
        }
        dropWarmup(runBy, o.warmup);
        for (auto& [name, launches] : runBy)
            ncuBy[name].insert(ncuBy[name].end(), launches.begin(), launches.end());
    }
    std::map<std::string, std::string> ourUnits;
    for (const auto& d : ours.metricDefs)
        ourUnits[d.name] = d.unit;
    dropWarmup(oursBy, o.warmup);

    std::vector<MetricAgreement> out;
    for (const auto& [kernel, ourLaunches] : oursBy) {
        const auto it = ncuBy.find(kernel);
        if (it == ncuBy.end())
            continue;
        const auto& theirLaunches = it->second;
        std::vector<double> durations;
        std::set<std::string> names;
        for (const auto& l : theirLaunches) {
            if (auto d = l.find("gpu__time_duration.sum"); d != l.end())
                durations.push_back(d->second);
        }
        const double duration = durations.empty() ? 0.0 : median(durations);
        for (const auto& l : ourLaunches)
            for (const auto& [n, v] : l)
                names.insert(n);
        for (const auto& name : names) {
            std::vector<double> xo, xn;
            for (const auto& l : ourLaunches)
                if (auto v = l.find(name); v != l.end())
                    xo.push_back(v->second);
            for (const auto& l : theirLaunches)
                if (auto v = l.find(name); v != l.end())
                    xn.push_back(v->second);
            if (xo.empty() || xn.empty())
                continue;
            MetricAgreement a;
            a.kernel = kernel;
            a.metric = name;
            const auto ou = ourUnits.find(name);
            a.unit = ou != ourUnits.end() && !ou->second.empty() ? ou->second : ncuUnits[name];
            a.ours = median(xo);
            a.ncu = median(xn);
            a.oursLaunches = static_cast<int>(xo.size());
            a.ncuLaunches = static_cast<int>(xn.size());
            const auto [lo, hi] = std::minmax_element(xn.begin(), xn.end());
            a.ncuSpread = xn.size() > 1 && a.ncu != 0 ? (*hi - *lo) / std::fabs(a.ncu) : 0.0;
            a.bar = std::max(o.tolerance, a.ncuSpread);
            a.ncuDurationNs = duration;
            a.heldToBar = duration >= o.longKernelNs;
            const double diff = std::fabs(a.ours - a.ncu);
            a.relative = a.ncu != 0 ? diff / std::fabs(a.ncu) : (diff <= o.zero ? 0.0 : INFINITY);
            const bool percent = a.unit == "%" || a.unit == "percent";
            if (std::fabs(a.ours) <= o.zero && std::fabs(a.ncu) <= o.zero)
                a.how = MetricAgreement::How::Zero;
            else if (a.relative <= o.tolerance)
                a.how = MetricAgreement::How::Relative;
            else if (a.relative <= a.bar)
                a.how = MetricAgreement::How::WithinSpread;
            else if (percent && diff <= o.percentAbsolute)
                a.how = MetricAgreement::How::AbsolutePercent;
            else
                a.how = MetricAgreement::How::Disagrees;
            a.agrees = a.how != MetricAgreement::How::Disagrees;
            out.push_back(std::move(a));
        }
    }
    return out;
}

} // namespace ws
