// SPDX-License-Identifier: MIT
#include "core/metrics/kernelmetrics.h"

#include "core/store/sessionreader.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ws {

void KernelMetrics::set(std::string name, double value, std::string unit)
{
    m_values[std::move(name)] = {value, std::move(unit)};
}

std::optional<double> KernelMetrics::get(std::string_view name) const
{
    const auto it = m_values.find(name);
    if (it == m_values.end())
        return std::nullopt;
    return it->second.value;
}

std::optional<double> KernelMetrics::first(std::initializer_list<std::string_view> names) const
{
    for (const std::string_view n : names) {
        if (auto v = get(n))
            return v;
    }
    return std::nullopt;
}

std::string KernelMetrics::unit(std::string_view name) const
{
    const auto it = m_values.find(name);
    return it == m_values.end() ? std::string() : it->second.unit;
}

void SessionMetrics::index()
{
    std::sort(
        m_kernels.begin(), m_kernels.end(), [](const Kernel& a, const Kernel& b) { return a.launch.id < b.launch.id; });
    m_defIndex.clear();
    for (size_t i = 0; i < m_defs.size(); ++i)
        m_defIndex.emplace(m_defs[i].name, i);
}

SessionMetrics SessionMetrics::fromData(const SessionData& data)
{
    SessionMetrics s;
    s.m_defs = data.metricDefs;
    s.m_strings = data.strings;
    std::unordered_map<uint32_t, const MetricDef*> defById;
    for (const MetricDef& d : s.m_defs)
        defById.emplace(d.id, &d);
    std::unordered_map<int64_t, KernelMetrics> byKernel;
    std::unordered_map<int64_t, uint32_t> runOf;
    for (const KernelMetric& m : data.kernelMetrics) {
        const auto d = defById.find(m.metricId);
        if (d != defById.end())
            byKernel[m.kernelId].set(d->second->name, m.value, d->second->unit);
        runOf[m.kernelId] = m.runId;
    }
    // Traced launches a profiled launch links to show its metrics (their own win).
    // A linked profiled launch is listed only through its traced launch (SessionReader does the same).
    std::unordered_map<int64_t, int64_t> measuredFor;
    std::unordered_set<int64_t> shownOnTrace;
    for (const KernelLink& link : data.kernelLinks) {
        if (byKernel.contains(link.kernelId) && !byKernel.contains(link.traceKernelId)
            && measuredFor.try_emplace(link.traceKernelId, link.kernelId).second)
            shownOnTrace.insert(link.kernelId);
    }
    for (const KernelRecord& k : data.kernels) {
        auto it = byKernel.find(k.id);
        if (it != byKernel.end() && !shownOnTrace.contains(k.id)) {
            s.m_kernels.push_back({k, it->second, k.id, runOf[k.id]});
            continue;
        }
        const auto linked = measuredFor.find(k.id);
        if (linked != measuredFor.end())
            s.m_kernels.push_back({k, byKernel[linked->second], linked->second, runOf[linked->second]});
    }
    s.index();
    return s;
}

SessionMetrics SessionMetrics::read(const SessionReader& reader)
{
    SessionMetrics s;
    s.m_defs = reader.readMetricDefs();
    std::sort(s.m_defs.begin(), s.m_defs.end(), [](const MetricDef& a, const MetricDef& b) { return a.id < b.id; });
    if (s.m_defs.empty())
        return s;
    std::unordered_map<uint32_t, const MetricDef*> defById;
    for (const MetricDef& d : s.m_defs)
        defById.emplace(d.id, &d);

    // The profiled kernels' own rows (a trace session of millions of launches has no metrics,
    // a profile session one row per profiled launch), and the traced launches linked to them.
    std::unordered_map<int64_t, size_t> indexOf;
    for (KernelRecord& k : reader.readMeasuredKernels()) {
        indexOf.emplace(k.id, s.m_kernels.size());
        s.m_kernels.push_back({k, {}});
    }
    for (const SessionReader::KernelMetricValues& v : reader.readMetricsByKernel()) {
        const auto k = indexOf.find(v.kernelId);
        if (k == indexOf.end())
            continue;
        Kernel& kernel = s.m_kernels[k->second];
        kernel.measuredKernelId = v.measuredKernelId;
        kernel.metricsRunId = v.runId;
        for (const auto& [metricId, value] : v.values) {
            const auto d = defById.find(metricId);
            if (d != defById.end())
                kernel.metrics.set(d->second->name, value, d->second->unit);
        }
    }
    s.m_strings = reader.readStrings();
    s.index();
    return s;
}

const SessionMetrics::Kernel* SessionMetrics::find(int64_t kernelId) const
{
    const auto it = std::lower_bound(
        m_kernels.begin(), m_kernels.end(), kernelId, [](const Kernel& k, int64_t id) { return k.launch.id < id; });
    if (it == m_kernels.end() || it->launch.id != kernelId)
        return nullptr;
    return &*it;
}

const MetricDef* SessionMetrics::definition(std::string_view name) const
{
    const auto it = m_defIndex.find(name);
    return it == m_defIndex.end() ? nullptr : &m_defs[it->second];
}

double toBaseUnit(double value, std::string_view unit)
{
    struct Scale {
        std::string_view unit;
        double factor;
    };
    // ncu prints SI prefixes with a factor of 1000 for bytes too (nsight-formats.md 3.3).
    static constexpr Scale kScales[] = {
        {"nsecond", 1},
        {"nanosecond", 1},
        {"ns", 1},
        {"usecond", 1e3},
        {"microsecond", 1e3},
        {"us", 1e3},
        {"msecond", 1e6},
        {"millisecond", 1e6},
        {"ms", 1e6},
        {"second", 1e9},
        {"s", 1e9},
        {"byte", 1},
        {"Kbyte", 1e3},
        {"Mbyte", 1e6},
        {"Gbyte", 1e9},
        {"Tbyte", 1e12},
        {"byte/second", 1},
        {"Kbyte/second", 1e3},
        {"Mbyte/second", 1e6},
        {"Gbyte/second", 1e9},
        {"Tbyte/second", 1e12},
        {"hz", 1},
        {"Khz", 1e3},
        {"Mhz", 1e6},
        {"Ghz", 1e9},
        {"cycle/nsecond", 1e9},
        {"cycle/usecond", 1e6},
        {"cycle/second", 1},
    };
    for (const Scale& s : kScales) {
        if (s.unit == unit)
            return value * s.factor;
    }
    // Clock rates come as "<domain>_cycle/second" (gpc_cycle, dram_cycle): already Hz.
    return value;
}

} // namespace ws
