// SPDX-License-Identifier: MIT
#pragma once

#include <string>
#include <string_view>

namespace ws {

// Warp stall reasons named three ways: CUPTI's PC sampling counter
// ("smsp__pcsamp_warps_issue_stalled_long_scoreboard[_not_issued]"), ncu's WarpStateStats metric
// ("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio") and the label
// people read ("Long Scoreboard"). The key ("long_scoreboard") links the source view to the
// warp-state panel.
struct StallReasonName {
    // The key of either name form; empty when the name is not a stall reason.
    static std::string key(std::string_view name);
    // True for the *_not_issued PC sampling counters (a subset of their reason's samples).
    static bool isNotIssued(std::string_view name);
    // "Long Scoreboard", "MIO Throttle", "Selected" ... for a key or any name form.
    static std::string label(std::string_view name);
};

} // namespace ws
