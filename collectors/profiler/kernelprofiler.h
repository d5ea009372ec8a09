// SPDX-License-Identifier: MIT
#pragma once

#include "checkpointreplay.h"
#include "core/metrics/profileconfig.h"
#include "core/metrics/profileresult.h"
#include "l2eviction.h"
#include "launchcapture.h"
#include "metricconfiguration.h"
#include "pcsampling.h"
#include "rangeprofilersession.h"
#include "replaygate.h"

#include <atomic>
#include <cuda.h>
#include <cupti_callbacks.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace ws::profiler {

// The profile-run agent inside the target: decides per kernel launch whether to profile it
// (name filter, launch skip/count), drives one range-profiler session per context, maps range
// i to the i-th profiled launch of that context, and appends launches with their metric values
// to this process's result file.
class KernelProfiler {
public:
    static KernelProfiler& instance();

    // Reads $WS_PROFILE_CONFIG and subscribes to the driver's launch callbacks. False (after
    // printing why) when the profiler cannot run; the program then runs unprofiled.
    bool initialize();
    void onDriverCallback(CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
    void onContextDestroyStarting(CUcontext ctx);
    // Module loads (cubin capture) and context creation, for PC sampling runs.
    void onResource(CUpti_CallbackId cbid, const CUpti_ResourceData* data);
    // Exit handler: decodes what is pending, closes every session and ends the result file.
    void finish();

private:
    struct DeviceConfig {
        bool failed = false;
        std::unique_ptr<MetricConfiguration> config;
        std::vector<uint32_t> globalIndex; // metric position in config -> index in the result file
    };
    struct ContextState {
        CUcontext ctx = nullptr;
        uint32_t contextId = 0;
        uint32_t deviceId = 0;
        bool failed = false;
        DeviceConfig* device = nullptr;
        RangeProfilerSession session;
        std::vector<ProfiledLaunch> pending; // launches in the image, in range order
        // --cache-control all: our own replay of each launch, and the L2 eviction before each pass.
        CheckpointReplay replay;
        std::unique_ptr<L2Eviction> eviction;
    };

    KernelProfiler() = default;
    bool wants(const std::string& mangledName);
    ContextState* contextFor(CUcontext ctx);
    bool setUp(ContextState& state);
    DeviceConfig* deviceConfig(CUcontext ctx, uint32_t deviceId, std::string& error);
    // Stops the session if started, decodes, evaluates and writes the pending launches.
    void flush(ContextState& state);
    // "warpscope-cli: progress: <kind> <profiled>/<count or ?> launches (<detail>)" on stderr.
    void progress(const char* kind, const std::string& detail) const;
    // Appends the launch to the context's pending ranges (in range order) and marks it in flight.
    void addPending(ContextState& state, CapturedLaunch& captured);
    // --cache-control all: replays the launch of `cb` pass by pass, then writes its values.
    void replayLaunch(ContextState& state, CUpti_CallbackId cbid, const CUpti_CallbackData* cb);
    // Adds a context's replay step times to the process totals (written at exit).
    void addReplayTimes(const ContextState& state);
    // Our own replay (the range profiler in user-replay mode): every kind but CUPTI's.
    bool userReplay() const { return m_replay != Replay::Cupti; }
    void fail(ContextState& state, const std::string& what, const std::string& remedy);
    void warnOnce(const std::string& key, const std::string& text);
    // PC sampling runs (SourceCounters): the launch ENTER after selection, and the EXIT.
    void samplingLaunch(CapturedLaunch& captured, const CUpti_CallbackData* cb);
    void samplingLaunchDone(CUcontext ctx, int64_t launchIndex, uint32_t correlationId);
    void defineSamplingMetrics();
    static int64_t monotonicNs();

    // Recursive: a driver call made under it (cuFuncGetAttribute, lazy module loading) can fire a
    // resource callback on the same thread, which takes it again.
    std::recursive_mutex m_mutex;
    // Other threads' memory calls wait while a launch is replayed (the launch callbacks already
    // wait for m_mutex). m_memoryWrites: by driver callback id, the calls the gate covers.
    ReplayGate m_gate;
    std::vector<bool> m_memoryWrites;
    ProfileConfig m_config;
    // How a launch is replayed. --cache-control all: Restore, the whole checkpoint restored and L2
    // evicted before every pass. --cache-control none: by default Diff, our replay restoring only
    // the blocks the kernel changes in its arguments' memory (CheckpointReplay::restoreOnlyChanged).
    // For comparison runs (WS_PROFILE_NONE): `cupti`, CUPTI's kernel replay, whose restore of every
    // allocation leaves ~20 MB of dirty lines that every pass writes back; `warm`, our replay with L2
    // evicted and the launch's buffers read back into it, clean (L2Eviction::setWarmRegions).
    // Set from the cache control in initialize(): from 2026-12-02 to 12-03 the Diff default leaked into
    // `all`, whose passes then did not start from a clean L2.
    enum class Replay { Restore, Cupti, Warm, Diff };
    Replay m_replay = Replay::Restore;
    // WS_PROFILE_NONE_COMPARE: "" (the default, as "after-first"), or the experiments "every", "ef",
    // "skip", "first-as-saved"; and how the diff replay's passes follow each other for it.
    std::string m_noneCompare;
    CheckpointReplay::Between m_noneBetween = CheckpointReplay::Between::SkipAfterFirstPass;
    std::vector<size_t> m_noneDirtyPasses; // WS_PROFILE_NONE_DIRTY_PASSES (an experiment): parseReplayPasses
    size_t m_passDirtyBytes = 0;           // `none`'s default; WS_PROFILE_PASS_DIRTY_KB, either cache control
    bool m_passDirtyFirstOnly = false;     // true for `none`; WS_PROFILE_PASS_DIRTY_HOW "first" ("", "ce", "ce,first")
    bool m_passDirtyCopy = false;          // WS_PROFILE_PASS_DIRTY_HOW "ce": a host copy instead of a memset
    size_t m_noneRestoreGranule = 0;       // WS_PROFILE_NONE_RESTORE_KB overrides `none`'s default
    unsigned m_returnBlocks = 1;           // WS_PROFILE_RETURN_BLOCKS: see L2Eviction::setReturnBlocks
    std::string m_replayOverrides;         // the experiments' settings, "key=value,..." (info replay_overrides)
    bool m_active = false;
    bool m_finished = false;
    ProfileResultWriter m_writer;
    std::string m_resultPath;
    std::regex m_regex;
    bool m_haveRegex = false;
    std::unordered_map<std::string, bool> m_nameMatches;
    std::map<CUcontext, std::unique_ptr<ContextState>> m_contexts;
    std::map<uint32_t, std::unique_ptr<DeviceConfig>> m_devices;
    std::map<std::string, bool> m_warned;
    uint32_t m_metricCount = 0; // metric lines written
    int64_t m_matched = 0;      // launches that passed the name filter
    int64_t m_profiled = 0;     // launches handed to the range profiler
    int64_t m_skippedGraphs = 0;
    int64_t m_skippedCaptured = 0;
    // --capture-range cudaProfilerApi: inside the program's cudaProfilerStart..Stop, and how many
    // starts it made (a run that profiled nothing says whether the program ever started).
    bool m_capturing = false;
    int64_t m_profilerStarts = 0;
    double m_replayMs = 0; // wall time spent inside profiled launch calls (replay included)
    bool m_profilerInitialized = false;
    bool m_pcSampling = false;
    PcSampler m_sampler;
    std::map<int64_t, ProfiledLaunch> m_samplingPending; // launch index -> launch, until its EXIT
    std::map<std::string, uint32_t> m_samplingMetric;    // metric name -> index in the result file
    std::set<uint32_t> m_devicesSeen;
    bool m_announced = false;
    CheckpointReplay::StepTimes m_replayTimes;
};

} // namespace ws::profiler
