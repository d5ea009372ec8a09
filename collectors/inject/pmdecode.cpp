// SPDX-License-Identifier: MIT
#include "pmdecode.h"

#include <cupti.h>

// See pmsampler.cpp: the injection library must load against a CUPTI without PM sampling.
#pragma weak cuptiPmSamplingGetCounterDataInfo
#pragma weak cuptiPmSamplingCounterDataGetSampleInfo
#pragma weak cuptiProfilerHostInitialize
#pragma weak cuptiProfilerHostDeinitialize
#pragma weak cuptiProfilerHostConfigAddMetrics
#pragma weak cuptiProfilerHostEvaluateToGpuValues

namespace ws::inject::pm {

namespace {

template <typename T> T params(size_t structSize)
{
    T p {};
    p.structSize = structSize;
    return p;
}

} // namespace

std::string resultText(CUptiResult r)
{
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s)
        s = "CUPTI_ERROR";
    return std::string(s) + " (" + std::to_string(static_cast<int>(r)) + ")";
}

CUpti_Profiler_Host_Object* createHost(const std::string& chip, const std::vector<uint8_t>& availability,
    std::vector<const char*>& names, std::string& error, CUptiResult* result)
{
    auto hi = params<CUpti_Profiler_Host_Initialize_Params>(CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
    hi.profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING;
    hi.pChipName = chip.c_str();
    hi.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
    if (CUptiResult r = cuptiProfilerHostInitialize(&hi); r != CUPTI_SUCCESS) {
        error = "cuptiProfilerHostInitialize";
        if (result)
            *result = r;
        return nullptr;
    }
    auto add
        = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
    add.pHostObject = hi.pHostObject;
    add.ppMetricNames = names.data();
    add.numMetrics = names.size();
    if (CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
        error = "adding the metrics for " + chip;
        if (result)
            *result = r;
        destroyHost(hi.pHostObject);
        return nullptr;
    }
    return hi.pHostObject;
}

void destroyHost(CUpti_Profiler_Host_Object* host)
{
    if (!host)
        return;
    auto hd = params<CUpti_Profiler_Host_Deinitialize_Params>(CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
    hd.pHostObject = host;
    cuptiProfilerHostDeinitialize(&hd);
}

size_t completedSamples(const std::vector<uint8_t>& image)
{
    auto info
        = params<CUpti_PmSampling_GetCounterDataInfo_Params>(CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
    info.pCounterDataImage = image.data();
    info.counterDataImageSize = image.size();
    if (cuptiPmSamplingGetCounterDataInfo(&info) != CUPTI_SUCCESS)
        return 0;
    return info.numCompletedSamples;
}

CUptiResult sampleTimes(
    CUpti_PmSampling_Object* object, const std::vector<uint8_t>& image, size_t index, uint64_t& start, uint64_t& end)
{
    auto si = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
        CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
    si.pPmSamplingObject = object;
    si.pCounterDataImage = image.data();
    si.counterDataImageSize = image.size();
    si.sampleIndex = index;
    const CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&si);
    start = si.startTimestamp;
    end = si.endTimestamp;
    return r;
}

CUptiResult evaluate(CUpti_Profiler_Host_Object* host, const std::vector<uint8_t>& image, size_t index,
    std::vector<const char*>& names, double* values)
{
    auto ev = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    ev.pHostObject = host;
    ev.pCounterDataImage = image.data();
    ev.counterDataImageSize = image.size();
    ev.rangeIndex = index;
    ev.ppMetricNames = names.data();
    ev.numMetrics = names.size();
    ev.pMetricValues = values;
    return cuptiProfilerHostEvaluateToGpuValues(&ev);
}

} // namespace ws::inject::pm
