// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/profileconfig.h"
#include "core/source/pcsamplingresult.h"
#include "cubincapture.h"

#include <cuda.h>
#include <cupti_callbacks.h>
#include <cupti_pcsampling.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ws::profiler {

// CUPTI PC sampling for `profile --section SourceCounters`, in the call sequence that worked on
// the H200 (shared/reference/cupti-on-h200.md): per context Enable, stall reasons, then
// ENABLE_START_STOP_CONTROL=1, SAMPLING_DATA_BUFFER, SAMPLING_PERIOD, KERNEL_SERIALIZED, PARSED;
// per selected launch Start (launch ENTER) and, at the launch EXIT, synchronize, Stop, GetData
// into a second buffer. Samples are written per launch to pcsamp-<pid>.txt; at exit every
// sampled PC is correlated with its source line (cuptiGetSassToSourceCorrelation).
class PcSampler {
public:
    PcSampler() = default;
    ~PcSampler();
    PcSampler(const PcSampler&) = delete;
    PcSampler& operator=(const PcSampler&) = delete;

    bool open(const ProfileConfig& config, int64_t pid, std::string& error);
    void onModuleLoaded(const CUpti_ModuleResourceData& module);
    // Enables and configures sampling on `ctx` once; false (the reason in `error`) when it
    // cannot be, and from then on for that context.
    bool prepare(CUcontext ctx, std::string& error);
    bool start(CUcontext ctx, std::string& error);
    // After the launch: waits for the kernel, stops and reads the range. `reasonTotals` gets the
    // samples per stall reason name summed over the PCs.
    PcSamplingRange collect(
        CUcontext ctx, int64_t launchIndex, uint32_t correlationId, std::map<std::string, uint64_t>& reasonTotals);
    // Correlates the sampled PCs with source lines, disables sampling and ends the file.
    void finish();

    const std::map<uint32_t, std::string>& stallReasons() const { return m_reasonNames; }
    uint32_t period() const { return m_period; }
    void error(const std::string& text);

private:
    // A CUpti_PCSamplingData with room for `pcs` PCs of every stall reason.
    struct Buffer {
        CUpti_PCSamplingData data {};
        std::vector<CUpti_PCSamplingPCData> pcs;
        std::vector<CUpti_PCSamplingStallReason> reasons;
        void allocate(size_t pcs, size_t reasonCount);
    };
    struct Context {
        bool failed = false;
        bool started = false;
        std::string error;
        Buffer configBuffer; // SAMPLING_DATA_BUFFER: CUPTI's overflow store
        Buffer readBuffer;   // what GetData fills
    };

    Context& context(CUcontext ctx);
    bool configure(CUcontext ctx, Context& c, std::string& error);
    void drain(CUcontext ctx, Context& c, int64_t launchIndex, uint32_t correlationId, PcSamplingRange& range,
        std::map<std::string, uint64_t>& reasonTotals);
    void correlate();

    ProfileConfig m_config;
    PcSamplingResultWriter m_writer;
    CubinCapture m_cubins;
    std::map<CUcontext, std::unique_ptr<Context>> m_contexts;
    std::map<uint32_t, std::string> m_reasonNames;
    std::vector<uint32_t> m_reasonIndices;
    uint32_t m_period = 7;
    // (cubin crc, function name) -> sampled PC offsets, for the source correlation at exit.
    std::map<std::pair<uint64_t, std::string>, std::set<uint64_t>> m_sampledPcs;
    std::set<std::string> m_errorsSeen;
    bool m_finished = false;
};

} // namespace ws::profiler
