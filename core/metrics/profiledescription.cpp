// SPDX-License-Identifier: MIT
#include "core/metrics/profiledescription.h"

namespace ws {

std::string describeProfileRun(const std::map<std::string, std::string>& meta)
{
    auto value = [&](const char* key) {
        const auto it = meta.find(key);
        return it == meta.end() ? std::string() : it->second;
    };
    if (value("session_kind") != "profile")
        return {};
    const std::string replay = value("profile_replay_mode");
    if (replay.rfind("none: PC sampling", 0) == 0)
        return "PC sampling (warpscope-cli profile --pc-sampling): sample counts per launch, no replay";
    std::string out = "warpscope-cli profile: values per launch";
    if (const std::string passes = value("profile_passes"); !passes.empty())
        out += ", " + passes + " replay passes each";
    const std::string cache = value("profile_cache_control");
    if (cache == "all")
        out += "; cache control all: memory restored and L2 evicted before every pass (as ncu's default)";
    else if (cache == "none")
        out += "; cache control none: L2 as CUPTI's kernel replay left it (compare with ncu --cache-control none)";
    else
        out += "; cache control not recorded (CUPTI kernel replay)";
    out += "; GPU clocks not locked";
    return out;
}

} // namespace ws
