// SPDX-License-Identifier: MIT
#include "rangeprofilersession.h"

#include "cuptistatus.h"
#include "metricconfiguration.h"

#include <cupti.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace ws::profiler {

namespace {

bool writeFile(const std::string& path, const std::vector<uint8_t>& bytes)
{
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return false;
    const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
    return std::fclose(f) == 0 && ok;
}

// WS_CUPTI_CAPTURE=DIR (docs/recorder.md): each decoded counter-data image with what evaluating
// it needs (chip, counter-availability and config images, metric names in evaluation order)
// and the values this process evaluated from it, into DIR/ws-<pid>.rangeprofiler/decode-<n>/,
// so tests/cupti evaluates the same image through MetricConfiguration without a GPU.
void captureDecoded(const MetricConfiguration& config, const std::vector<uint8_t>& counterData, size_t ranges,
    size_t dropped, bool userReplay)
{
    const char* v = std::getenv("WS_CUPTI_CAPTURE");
    if (!v || !*v || v[0] != '/')
        return;
    static int decodes = 0;
    const std::string base = std::string(v) + "/ws-" + std::to_string(getpid()) + ".rangeprofiler";
    mkdir(v, 0755);
    mkdir(base.c_str(), 0755);
    const std::string dir = base + "/decode-" + std::to_string(decodes++);
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        return;
    writeFile(dir + "/counterdata.bin", counterData);
    writeFile(dir + "/config.bin", config.configImage());
    writeFile(dir + "/availability.bin", config.counterAvailability());
    std::FILE* m = std::fopen((dir + "/manifest.tsv").c_str(), "w");
    if (!m)
        return;
    uint32_t version = 0;
    cuptiGetVersion(&version);
    std::fprintf(m, "# warpscope range-profiler capture (WS_CUPTI_CAPTURE, docs/recorder.md)\n");
    std::fprintf(m, "format\t1\nchip\t%s\ncupti_version\t%u\ncupti_api_version\t%d\n", config.chipName().c_str(),
        version, CUPTI_API_VERSION);
    std::fprintf(m, "replay\t%s\nranges\t%zu\ndropped\t%zu\npasses\t%zu\n", userReplay ? "user" : "kernel", ranges,
        dropped, config.passes());
    for (const char* name : config.metricNames())
        std::fprintf(m, "metric\t%s\n", name);
    // The values as this process evaluated them, %.17g so they read back bit-exact.
    std::vector<double> values;
    for (size_t r = 0; r < ranges; ++r) {
        if (!config.evaluate(counterData, r, values))
            continue;
        for (size_t i = 0; i < values.size(); ++i)
            std::fprintf(m, "value\t%zu\t%s\t%.17g\n", r, config.metricNames()[i], values[i]);
    }
    std::fclose(m);
}

} // namespace

RangeProfilerSession::~RangeProfilerSession()
{
    close();
}

bool RangeProfilerSession::open(CUcontext ctx, const MetricConfiguration& config, size_t maxRanges,
    size_t maxImageBytes, Replay replay, std::string& error)
{
    m_config = &config;
    m_replay = replay;
    auto ep = params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
    ep.ctx = ctx;
    CUptiResult st = cuptiRangeProfilerEnable(&ep);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerEnable: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    m_object = ep.pRangeProfilerObject;

    // The image grows with ranges x counters (tens of MB for 64 ranges of a large set), so
    // measure one range and fit as many as the budget allows.
    auto sizeFor = [&](size_t ranges, size_t& bytes) {
        auto sp = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
            CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
        sp.pRangeProfilerObject = m_object;
        sp.pMetricNames = const_cast<const char**>(config.metricNames().data());
        sp.numMetrics = config.metricNames().size();
        sp.maxNumOfRanges = ranges;
        sp.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
        st = cuptiRangeProfilerGetCounterDataSize(&sp);
        bytes = sp.counterDataSize;
        return st == CUPTI_SUCCESS;
    };
    size_t one = 0, two = 0;
    if (!sizeFor(1, one) || !sizeFor(2, two)) {
        error = "cuptiRangeProfilerGetCounterDataSize: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    const size_t perRange = std::max<size_t>(two > one ? two - one : one, 1);
    const size_t fixed = one > perRange ? one - perRange : 0;
    size_t ranges = maxImageBytes > fixed ? (maxImageBytes - fixed) / perRange : 1;
    ranges = std::clamp<size_t>(ranges, 1, std::max<size_t>(maxRanges, 1));
    size_t bytes = 0;
    if (!sizeFor(ranges, bytes)) {
        error = "cuptiRangeProfilerGetCounterDataSize: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    m_maxRanges = ranges;
    m_counterData.assign(bytes, 0);
    return reset(error);
}

bool RangeProfilerSession::applyConfig(std::string& error)
{
    auto cp = params<CUpti_RangeProfiler_SetConfig_Params>(CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
    cp.pRangeProfilerObject = m_object;
    cp.configSize = m_config->configImage().size();
    cp.pConfig = m_config->configImage().data();
    cp.counterDataImageSize = m_counterData.size();
    cp.pCounterDataImage = m_counterData.data();
    cp.range = CUPTI_AutoRange;
    cp.replayMode = m_replay == Replay::User ? CUPTI_UserReplay : CUPTI_KernelReplay;
    cp.maxRangesPerPass = m_maxRanges;
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    const CUptiResult st = cuptiRangeProfilerSetConfig(&cp);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerSetConfig: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    return true;
}

void RangeProfilerSession::close()
{
    if (!m_object)
        return;
    if (m_started) {
        auto sp = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
        sp.pRangeProfilerObject = m_object;
        cuptiRangeProfilerStop(&sp);
        m_started = false;
    }
    auto dp = params<CUpti_RangeProfiler_Disable_Params>(CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE);
    dp.pRangeProfilerObject = m_object;
    cuptiRangeProfilerDisable(&dp);
    m_object = nullptr;
    m_configured = false;
}

bool RangeProfilerSession::start(std::string& error)
{
    if (m_started)
        return true;
    auto p = params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
    p.pRangeProfilerObject = m_object;
    const CUptiResult st = cuptiRangeProfilerStart(&p);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerStart: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    m_started = true;
    return true;
}

bool RangeProfilerSession::stopAndDecode(size_t& ranges, size_t& dropped, std::string& error)
{
    ranges = 0;
    dropped = 0;
    bool allSubmitted = false;
    if (m_started && !stopProfiler(allSubmitted, error))
        return false;
    auto dp = params<CUpti_RangeProfiler_DecodeData_Params>(CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
    dp.pRangeProfilerObject = m_object;
    CUptiResult st = cuptiRangeProfilerDecodeData(&dp);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerDecodeData: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    dropped = dp.numOfRangeDropped;
    auto ip = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
    ip.pCounterDataImage = m_counterData.data();
    ip.counterDataImageSize = m_counterData.size();
    if ((st = cuptiRangeProfilerGetCounterDataInfo(&ip)) != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerGetCounterDataInfo: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    ranges = ip.numTotalRanges;
    captureDecoded(*m_config, m_counterData, ranges, dropped, m_replay == Replay::User);
    return true;
}

bool RangeProfilerSession::stopPass(bool& allSubmitted, std::string& error)
{
    allSubmitted = false;
    if (!m_started) {
        error = "cuptiRangeProfilerStop: the profiler was not started";
        return false;
    }
    return stopProfiler(allSubmitted, error);
}

bool RangeProfilerSession::stopProfiler(bool& allSubmitted, std::string& error)
{
    auto sp = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
    sp.pRangeProfilerObject = m_object;
    const CUptiResult st = cuptiRangeProfilerStop(&sp);
    m_started = false;
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerStop: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    allSubmitted = sp.isAllPassSubmitted != 0;
    return true;
}

bool RangeProfilerSession::reset(std::string& error)
{
    auto ip = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
    ip.pRangeProfilerObject = m_object;
    ip.counterDataSize = m_counterData.size();
    ip.pCounterData = m_counterData.data();
    const CUptiResult st = cuptiRangeProfilerCounterDataImageInitialize(&ip);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiRangeProfilerCounterDataImageInitialize: " + cuptiStatus(st);
        m_lastError = st;
        return false;
    }
    // Kernel replay keeps one configuration across image rollovers (measured on the H200); the
    // first reset comes from open(), which has not configured yet.
    if (m_replay == Replay::User || !m_configured) {
        if (!applyConfig(error))
            return false;
        m_configured = true;
    }
    return true;
}

} // namespace ws::profiler
