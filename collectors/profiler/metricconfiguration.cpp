// SPDX-License-Identifier: MIT
#include "metricconfiguration.h"

#include "cuptistatus.h"

#include <nvperf_cuda_host.h>
#include <nvperf_host.h>

#include <algorithm>
#include <chrono>
#include <functional>

namespace ws::profiler {

namespace {

CUpti_Profiler_Host_Object* newHostObject(
    const std::string& chip, const std::vector<uint8_t>& availability, CUptiResult& status)
{
    auto p = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = chip.c_str();
    p.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    status = cuptiProfilerHostInitialize(&p);
    return status == CUPTI_SUCCESS ? p.pHostObject : nullptr;
}

void deleteHostObject(CUpti_Profiler_Host_Object* host)
{
    if (!host)
        return;
    auto p = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    p.pHostObject = host;
    cuptiProfilerHostDeinitialize(&p);
}

} // namespace

MetricConfiguration::~MetricConfiguration()
{
    deleteHostObject(m_host);
}

bool MetricConfiguration::validate(const std::vector<std::string>& names) const
{
    if (names.empty())
        return true;
    CUptiResult status {};
    CUpti_Profiler_Host_Object* host = newHostObject(m_chip, m_availability, status);
    if (!host)
        return false;
    std::vector<const char*> n;
    for (const auto& name : names)
        n.push_back(name.c_str());
    auto p
        = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    p.pHostObject = host;
    p.ppMetricNames = n.data();
    p.numMetrics = n.size();
    const bool ok = cuptiProfilerHostConfigAddMetrics(&p) == CUPTI_SUCCESS;
    deleteHostObject(host);
    return ok;
}

std::vector<std::string> MetricConfiguration::breakdown(const std::string& throughputMetric, std::string& error) const
{
    const size_t dot = throughputMetric.find('.');
    const std::string base = throughputMetric.substr(0, dot);
    const std::string suffix
        = dot == std::string::npos ? std::string(".avg.pct_of_peak_sustained_elapsed") : throughputMetric.substr(dot);
    std::vector<std::string> out;

    auto init = params<NVPW_InitializeHost_Params>(NVPW_InitializeHost_Params_STRUCT_SIZE);
    if (NVPW_InitializeHost(&init) != NVPA_STATUS_SUCCESS) {
        error = "NVPW_InitializeHost failed";
        return out;
    }
    auto sz = params<NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params>(
        NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize_Params_STRUCT_SIZE);
    sz.pChipName = m_chip.c_str();
    if (NVPW_CUDA_MetricsEvaluator_CalculateScratchBufferSize(&sz) != NVPA_STATUS_SUCCESS) {
        error = "cannot size the NVPW metrics evaluator for " + m_chip;
        return out;
    }
    std::vector<uint8_t> scratch(std::max<size_t>(sz.scratchBufferSize, 1));
    auto ep = params<NVPW_CUDA_MetricsEvaluator_Initialize_Params>(
        NVPW_CUDA_MetricsEvaluator_Initialize_Params_STRUCT_SIZE);
    ep.pScratchBuffer = scratch.data();
    ep.scratchBufferSize = scratch.size();
    ep.pChipName = m_chip.c_str();
    if (NVPW_CUDA_MetricsEvaluator_Initialize(&ep) != NVPA_STATUS_SUCCESS) {
        error = "cannot create the NVPW metrics evaluator for " + m_chip;
        return out;
    }
    NVPW_MetricsEvaluator* ev = ep.pMetricsEvaluator;

    auto namesOf = [&](uint8_t type) {
        std::vector<std::string> names;
        auto np = params<NVPW_MetricsEvaluator_GetMetricNames_Params>(
            NVPW_MetricsEvaluator_GetMetricNames_Params_STRUCT_SIZE);
        np.pMetricsEvaluator = ev;
        np.metricType = type;
        if (NVPW_MetricsEvaluator_GetMetricNames(&np) == NVPA_STATUS_SUCCESS) {
            for (size_t i = 0; i < np.numMetrics; ++i)
                names.emplace_back(np.pMetricNames + np.pMetricNameBeginIndices[i]);
        }
        return names;
    };
    const auto counters = namesOf(NVPW_METRIC_TYPE_COUNTER);
    const auto throughputs = namesOf(NVPW_METRIC_TYPE_THROUGHPUT);

    // Depth-first over sub-throughputs, keeping the order NVPW lists the counters in.
    std::function<void(const std::string&, int)> visit = [&](const std::string& name, int depth) {
        if (depth > 8)
            return;
        auto tp = params<NVPW_MetricsEvaluator_GetMetricTypeAndIndex_Params>(
            NVPW_MetricsEvaluator_GetMetricTypeAndIndex_Params_STRUCT_SIZE);
        tp.pMetricsEvaluator = ev;
        tp.pMetricName = name.c_str();
        if (NVPW_MetricsEvaluator_GetMetricTypeAndIndex(&tp) != NVPA_STATUS_SUCCESS
            || tp.metricType != NVPW_METRIC_TYPE_THROUGHPUT)
            return;
        auto pp = params<NVPW_MetricsEvaluator_GetThroughputMetricProperties_Params>(
            NVPW_MetricsEvaluator_GetThroughputMetricProperties_Params_STRUCT_SIZE);
        pp.pMetricsEvaluator = ev;
        pp.throughputMetricIndex = tp.metricIndex;
        if (NVPW_MetricsEvaluator_GetThroughputMetricProperties(&pp) != NVPA_STATUS_SUCCESS)
            return;
        for (size_t i = 0; i < pp.numCounters; ++i) {
            if (pp.pCounterIndices[i] < counters.size()) {
                std::string full = counters[pp.pCounterIndices[i]] + suffix;
                if (std::find(out.begin(), out.end(), full) == out.end())
                    out.push_back(std::move(full));
            }
        }
        std::vector<std::string> subs;
        for (size_t i = 0; i < pp.numSubThroughputs; ++i) {
            if (pp.pSubThroughputIndices[i] < throughputs.size())
                subs.push_back(throughputs[pp.pSubThroughputIndices[i]]);
        }
        for (const auto& s : subs)
            visit(s, depth + 1);
    };
    visit(base, 0);

    auto dp = params<NVPW_MetricsEvaluator_Destroy_Params>(NVPW_MetricsEvaluator_Destroy_Params_STRUCT_SIZE);
    dp.pMetricsEvaluator = ev;
    NVPW_MetricsEvaluator_Destroy(&dp);
    if (out.empty())
        error = "'" + base + "' is not a throughput metric on " + m_chip;
    return out;
}

bool MetricConfiguration::build(const std::string& chipName, const std::vector<uint8_t>& counterAvailability,
    const std::vector<MetricRequest::Counter>& request, int ccMajor, int ccMinor, std::string& error)
{
    m_chip = chipName;
    m_availability = counterAvailability;
    const auto t0 = std::chrono::steady_clock::now();

    // Explicitly requested names first, then breakdown constituents not requested already.
    std::vector<ProfiledMetric> wanted;
    auto want = [&](const std::string& name, const std::string& from) {
        for (const auto& w : wanted) {
            if (w.name == name)
                return;
        }
        ProfiledMetric m;
        m.name = name;
        m.breakdownOf = from;
        wanted.push_back(std::move(m));
    };
    for (const auto& c : request) {
        if (!c.breakdown && c.arch.matches(ccMajor, ccMinor))
            want(c.name, {});
    }
    for (const auto& c : request) {
        if (!c.breakdown || !c.arch.matches(ccMajor, ccMinor))
            continue;
        std::string why;
        const auto parts = breakdown(c.name, why);
        if (parts.empty())
            m_rejected.push_back("breakdown:" + c.name + " (" + why + ")");
        for (const auto& p : parts)
            want(p, c.name);
    }

    // A successful add of all names on a throwaway object proves each of them valid; only
    // when it fails is every name tried on its own object, since the failed add has poisoned
    // that one. This saves ~2-6 ms per metric on the common all-valid path.
    std::vector<std::string> all;
    for (const auto& w : wanted)
        all.push_back(w.name);
    const bool allValid = validate(all);
    for (auto& w : wanted) {
        if (!allValid && !validate({w.name})) {
            m_rejected.push_back(w.name);
            continue;
        }
        m_metrics.push_back(std::move(w));
    }
    m_validationMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (m_metrics.empty()) {
        error = "none of the requested metrics is valid on " + m_chip;
        return false;
    }

    CUptiResult status {};
    m_host = newHostObject(m_chip, m_availability, status);
    if (!m_host) {
        error = "cuptiProfilerHostInitialize: " + cuptiStatus(status);
        return false;
    }
    for (const auto& m : m_metrics)
        m_nameStorage.push_back(m.name);
    for (const auto& n : m_nameStorage)
        m_names.push_back(n.c_str());

    for (auto& m : m_metrics) {
        auto pp = params<CUpti_Profiler_Host_GetMetricProperties_Params>(
            CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE);
        pp.pHostObject = m_host;
        pp.pMetricName = m.name.c_str();
        if (cuptiProfilerHostGetMetricProperties(&pp) == CUPTI_SUCCESS) {
            m.unit = pp.pDimUnit ? pp.pDimUnit : "";
            m.description = pp.pDescription ? pp.pDescription : "";
        }
    }

    auto ap
        = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    ap.pHostObject = m_host;
    ap.ppMetricNames = m_names.data();
    ap.numMetrics = m_names.size();
    if ((status = cuptiProfilerHostConfigAddMetrics(&ap)) != CUPTI_SUCCESS) {
        error = "cuptiProfilerHostConfigAddMetrics: " + cuptiStatus(status);
        return false;
    }
    auto sp = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
    sp.pHostObject = m_host;
    if ((status = cuptiProfilerHostGetConfigImageSize(&sp)) != CUPTI_SUCCESS) {
        error = "cuptiProfilerHostGetConfigImageSize: " + cuptiStatus(status);
        return false;
    }
    m_configImage.resize(sp.configImageSize);
    auto ip = params<CUpti_Profiler_Host_GetConfigImage_Params>(CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
    ip.pHostObject = m_host;
    ip.configImageSize = m_configImage.size();
    ip.pConfigImage = m_configImage.data();
    if ((status = cuptiProfilerHostGetConfigImage(&ip)) != CUPTI_SUCCESS) {
        error = "cuptiProfilerHostGetConfigImage: " + cuptiStatus(status);
        return false;
    }
    auto np = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
    np.configImageSize = m_configImage.size();
    np.pConfigImage = m_configImage.data();
    if ((status = cuptiProfilerHostGetNumOfPasses(&np)) != CUPTI_SUCCESS) {
        error = "cuptiProfilerHostGetNumOfPasses: " + cuptiStatus(status);
        return false;
    }
    m_passes = np.numOfPasses;
    return true;
}

bool MetricConfiguration::evaluate(
    const std::vector<uint8_t>& counterData, size_t rangeIndex, std::vector<double>& values) const
{
    values.assign(m_names.size(), 0.0);
    auto p = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    p.pHostObject = m_host;
    p.pCounterDataImage = counterData.data();
    p.counterDataImageSize = counterData.size();
    p.rangeIndex = rangeIndex;
    p.ppMetricNames = const_cast<const char**>(m_names.data());
    p.numMetrics = m_names.size();
    p.pMetricValues = values.data();
    return cuptiProfilerHostEvaluateToGpuValues(&p) == CUPTI_SUCCESS;
}

} // namespace ws::profiler
