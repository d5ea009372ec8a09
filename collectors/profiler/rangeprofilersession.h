// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>
#include <cupti_range_profiler.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ws::profiler {

class MetricConfiguration;

// The range profiler on one context, in AutoRange mode: every kernel launched while it is
// started becomes one range.
// - Kernel replay (`--cache-control none`): CUPTI replays the range once per pass inside its
//   launch call. The session is started lazily before a launch to profile and stopped before one
//   to let pass (or a graph launch), and each stop decodes what was collected.
// - User replay (`--cache-control all`): CheckpointReplay runs every pass itself, each between
//   start() and stopPass(); decode() then reads the one range, and reset() prepares the next.
class RangeProfilerSession {
public:
    RangeProfilerSession() = default;
    ~RangeProfilerSession();
    RangeProfilerSession(const RangeProfilerSession&) = delete;
    RangeProfilerSession& operator=(const RangeProfilerSession&) = delete;

    // Enables the profiler on `ctx` and sizes the counter-data image for up to `maxRanges`
    // ranges (fewer when the image would exceed `maxImageBytes`). False with `error` set.
    enum class Replay { Kernel, User };

    bool open(CUcontext ctx, const MetricConfiguration& config, size_t maxRanges, size_t maxImageBytes, Replay replay,
        std::string& error);
    void close();

    bool isOpen() const { return m_object != nullptr; }
    bool isStarted() const { return m_started; }
    size_t capacity() const { return m_maxRanges; }
    size_t imageBytes() const { return m_counterData.size(); }

    bool start(std::string& error);
    // Stops and decodes. `ranges` receives the number of ranges in the image, `dropped` the
    // number CUPTI dropped.
    bool stopAndDecode(size_t& ranges, size_t& dropped, std::string& error);
    // User replay: ends one pass; `allSubmitted` tells whether it was the last one.
    bool stopPass(bool& allSubmitted, std::string& error);
    // Clears the image for the next ranges (after their values were evaluated); under user replay
    // it also sets the configuration again, so the next launch starts from pass 0.
    bool reset(std::string& error);

    const std::vector<uint8_t>& counterData() const { return m_counterData; }
    // The status of the last CUPTI call that failed, for a remedy to show with the error.
    CUptiResult lastError() const { return m_lastError; }

private:
    bool applyConfig(std::string& error);
    // cuptiRangeProfilerStop; `allSubmitted` is CUPTI's isAllPassSubmitted.
    bool stopProfiler(bool& allSubmitted, std::string& error);

    CUpti_RangeProfiler_Object* m_object = nullptr;
    const MetricConfiguration* m_config = nullptr;
    Replay m_replay = Replay::Kernel;
    bool m_configured = false;
    std::vector<uint8_t> m_counterData;
    size_t m_maxRanges = 0;
    bool m_started = false;
    CUptiResult m_lastError = CUPTI_SUCCESS;
};

} // namespace ws::profiler
