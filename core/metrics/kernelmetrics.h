// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

class SessionReader;

// The collected metrics of one kernel launch by ncu metric name, with the unit each was
// stored in (kernel_metric + metric_def). Names are ncu's, so sessions from
// `warpscope-cli profile` and imported `ncu --csv --page raw` results read the same way.
class KernelMetrics {
public:
    void set(std::string name, double value, std::string unit = {});
    std::optional<double> get(std::string_view name) const;
    // The first of several alternative names that is present (arch-dependent metric names).
    std::optional<double> first(std::initializer_list<std::string_view> names) const;
    std::string unit(std::string_view name) const;
    bool has(std::string_view name) const { return m_values.find(name) != m_values.end(); }
    bool empty() const { return m_values.empty(); }
    size_t size() const { return m_values.size(); }

    struct Entry {
        double value = 0;
        std::string unit;
    };
    const std::map<std::string, Entry, std::less<>>& all() const { return m_values; }

private:
    std::map<std::string, Entry, std::less<>> m_values;
};

// Every profiled kernel of a session: its launch record and its metrics, with the metric
// definitions (label, section, description) for display. In a multi-run session (schema v2) a
// traced launch that a profiled launch links to (kernel_link) has that launch's metrics, with
// the launch and run they were measured in.
class SessionMetrics {
public:
    struct Kernel {
        KernelRecord launch;
        KernelMetrics metrics;
        int64_t measuredKernelId = 0; // the launch the metrics were measured on (launch.id when its own)
        uint32_t metricsRunId = 1;    // the run of that launch
    };

    // From tables already in memory (importers, tests).
    static SessionMetrics fromData(const SessionData& data);
    // Reads metric_def, kernel_metric and the profiled kernels' rows through the reader's
    // connection, without reading the event tables. Throws SessionError naming the file.
    static SessionMetrics read(const SessionReader& reader);

    bool empty() const { return m_kernels.empty(); }
    const std::vector<Kernel>& kernels() const { return m_kernels; } // by kernel id
    const Kernel* find(int64_t kernelId) const;
    const std::vector<MetricDef>& definitions() const { return m_defs; }
    const MetricDef* definition(std::string_view name) const;
    const StringTable& strings() const { return m_strings; }

private:
    void index();

    std::vector<Kernel> m_kernels;
    std::vector<MetricDef> m_defs;
    std::map<std::string, size_t, std::less<>> m_defIndex;
    StringTable m_strings; // names of the profiled kernels' records
};

// Converts a value stored in `unit` to the base unit of its dimension: nanoseconds for time,
// bytes for sizes, bytes per second and hertz for rates ("gpc_cycle/second" is already hertz).
// Unknown units pass through.
double toBaseUnit(double value, std::string_view unit);

} // namespace ws
