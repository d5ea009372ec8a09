// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"
#include "core/raw/rawreader.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ws {

// `record --nvtx-timing NAME`: the per-instance GPU-stream times the injection library measured
// become benchmark runs of the session (bench_run/bench_sample, no table of their own), so the
// benchmark panel and `warpscope-cli stats --report nvtx_timing_sum` show them. One run per
// (range name, process): workload = the range name, implementation = kNvtxTimingImplementation,
// timer cuda-events-per-call, one round per instance in instance order, values in us.
// Instances that could not be timed (no CUDA context at push, an event call failed) are not
// samples; their count is a warning of the run and of the recording.
inline constexpr const char* kNvtxTimingImplementation = "nvtx-timing";

class NvtxTimingIngest {
public:
    void addFile(const raw::RawFile& file);
    void appendTo(SessionData& session, std::vector<std::string>& warnings) const;

private:
    struct Instance {
        uint32_t index = 0;
        int64_t gpuNs = 0;
    };
    struct Range {
        std::vector<Instance> timed;
        int64_t noContext = 0;
        int64_t failed = 0;
    };
    std::map<std::pair<std::string, int64_t>, Range> m_ranges; // (name, pid)
};

} // namespace ws
