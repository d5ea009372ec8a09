// SPDX-License-Identifier: MIT
#include "core/source/stallreasonname.h"

#include "core/metrics/kernelfacts.h"

namespace ws {

namespace {

constexpr std::string_view kPcSampling = "smsp__pcsamp_warps_issue_stalled_";
constexpr std::string_view kWarpState = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kNotIssued = "_not_issued";
constexpr std::string_view kPerIssue = "_per_issue_active";

bool endsWith(std::string_view s, std::string_view tail)
{
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

} // namespace

bool StallReasonName::isNotIssued(std::string_view name)
{
    return name.substr(0, kPcSampling.size()) == kPcSampling && endsWith(name, kNotIssued);
}

std::string StallReasonName::key(std::string_view name)
{
    if (name.substr(0, kPcSampling.size()) == kPcSampling) {
        name.remove_prefix(kPcSampling.size());
        if (endsWith(name, kNotIssued))
            name.remove_suffix(kNotIssued.size());
        return std::string(name);
    }
    if (name.substr(0, kWarpState.size()) == kWarpState) {
        name.remove_prefix(kWarpState.size());
        const size_t per = name.find(kPerIssue);
        if (per == std::string_view::npos)
            return {};
        return std::string(name.substr(0, per));
    }
    return {};
}

std::string StallReasonName::label(std::string_view name)
{
    const std::string k = key(name);
    // The warp-state panel's wording, so both panels name a reason alike.
    return stallLabel(k.empty() ? std::string(name) : k);
}

} // namespace ws
