// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileconfig.h"
#include "core/metrics/profileresult.h"

#include <cupti_profiler_host.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ws::profiler {

// The host side of a range-profiler configuration for one chip: which requested metrics are
// valid there, the config image, and how many replay passes it needs with the device's
// counter-availability image. Owns the CUPTI host object the values are evaluated with.
class MetricConfiguration {
public:
    MetricConfiguration() = default;
    ~MetricConfiguration();
    MetricConfiguration(const MetricConfiguration&) = delete;
    MetricConfiguration& operator=(const MetricConfiguration&) = delete;

    // Filters the request by compute capability, expands breakdowns, validates the names on
    // throwaway host objects (all at once; when that fails, every name on its own object, since
    // one failed add poisons a host object for every later add), then builds the real
    // configuration from the names that passed. False with `error` set
    // when nothing usable remains or CUPTI fails.
    bool build(const std::string& chipName, const std::vector<uint8_t>& counterAvailability,
        const std::vector<MetricRequest::Counter>& request, int ccMajor, int ccMinor, std::string& error);

    const std::string& chipName() const { return m_chip; }
    const std::vector<uint8_t>& counterAvailability() const { return m_availability; }
    const std::vector<ProfiledMetric>& metrics() const { return m_metrics; }
    const std::vector<const char*>& metricNames() const { return m_names; }
    const std::vector<std::string>& rejected() const { return m_rejected; }
    const std::vector<uint8_t>& configImage() const { return m_configImage; }
    size_t passes() const { return m_passes; }
    double validationMs() const { return m_validationMs; }
    CUpti_Profiler_Host_Object* hostObject() const { return m_host; }

    // Values of every metric for range `rangeIndex` of a decoded counter-data image; false
    // when CUPTI cannot evaluate it.
    bool evaluate(const std::vector<uint8_t>& counterData, size_t rangeIndex, std::vector<double>& values) const;

private:
    // Whether adding `names` to a fresh host object succeeds.
    bool validate(const std::vector<std::string>& names) const;
    // Constituent counters of a throughput metric on this chip (through NVPW's metrics
    // evaluator), as full metric names with the throughput's rollup and submetric.
    std::vector<std::string> breakdown(const std::string& throughputMetric, std::string& error) const;

    std::string m_chip;
    std::vector<uint8_t> m_availability;
    CUpti_Profiler_Host_Object* m_host = nullptr;
    std::vector<ProfiledMetric> m_metrics;
    std::vector<std::string> m_nameStorage;
    std::vector<const char*> m_names;
    std::vector<std::string> m_rejected;
    std::vector<uint8_t> m_configImage;
    size_t m_passes = 0;
    double m_validationMs = 0;
};

} // namespace ws::profiler
