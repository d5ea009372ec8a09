// SPDX-License-Identifier: MIT
#include "core/metrics/profiledescription.h"

#include "core/metrics/sessionmeta.h"
#include "core/store/runinference.h"

namespace ws {

std::string describeProfileRun(const std::map<std::string, std::string>& meta)
{
    auto value = [&](const char* key) {
        const auto it = meta.find(key);
        return it == meta.end() ? std::string() : it->second;
    };
    if (value(metakey::kSessionKind) != metakey::kSessionKindProfile)
        return {};
    const std::string replay = value(metakey::kProfileReplayMode);
    if (replay.rfind(metakey::kReplayModePcSamplingPrefix, 0) == 0)
        return "PC sampling (warpscope-cli profile --pc-sampling): sample counts per launch, no replay";
    std::string out = "warpscope-cli profile: values per launch";
    if (const std::string passes = value(metakey::kProfilePasses); !passes.empty())
        out += ", " + passes + " replay passes each";
    const std::string cache = value(metakey::kProfileCacheControl);
    const bool dirtyStart = replay == metakey::kReplayModeChangedBlocksAfterFirstDirty;
    const bool changedBlocks = replay == metakey::kReplayModeChangedBlocks
        || replay == metakey::kReplayModeChangedBlocksAfterFirst || dirtyStart;
    if (cache == "all" && changedBlocks)
        out += "; cache control all, but replayed as none is (profilers of 2026-12-02 and 12-03): each pass "
               "started with L2 as the previous run left it, so cache-sensitive values are not ncu's "
               "--cache-control all";
    else if (cache == "all")
        out += "; cache control all: memory restored and L2 evicted before every pass (as ncu's default)";
    else if (cache == "none" && dirtyStart)
        out += "; cache control none: the first pass starts after the memory the kernel changed is restored, with "
               "about 2.2 MB of dirty lines that are not the kernel's (as ncu's passes do), each later pass with L2 "
               "as the pass before it left it (compare with ncu --cache-control none)";
    else if (cache == "none" && replay == metakey::kReplayModeChangedBlocksAfterFirst)
        out += "; cache control none: the first pass starts after the memory the kernel changed is restored, each "
               "later pass with L2 as the pass before it left it (compare with ncu --cache-control none)";
    else if (cache == "none" && replay.rfind("user replay", 0) == 0)
        out += "; cache control none: each pass starts with L2 as the previous run left it, only the memory the "
               "kernel changed restored (compare with ncu --cache-control none)";
    else if (cache == "none")
        out += "; cache control none: L2 as CUPTI's kernel replay left it (compare with ncu --cache-control none)";
    else
        out += "; cache control not recorded (CUPTI kernel replay)";
    if (const std::string experiment = value(metakey::kProfileReplayExperiment); !experiment.empty())
        out += "; replay experiment, not the default (" + experiment + ")";
    out += "; GPU clocks not locked";
    return out;
}

std::map<std::string, std::string> runMeasurementMeta(
    const std::vector<RunInfo>& runs, uint32_t runId, const std::map<std::string, std::string>& sessionMeta)
{
    if (runs.size() >= 2) {
        for (const RunInfo& run : runs) {
            if (run.id != runId)
                continue;
            if (auto options = store::fromJsonObject(run.optionsJson.empty() ? "{}" : run.optionsJson))
                return *options;
        }
    }
    return sessionMeta;
}

} // namespace ws
