// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace ws {

// The replay passes an experiment names (WS_PROFILE_NONE_DIRTY_PASSES, issue 18): numbers and
// ranges, separated by ',' or '+' ('+' because the device jobs' variant lists split on ','):
// "3", "0,5", "1+10", "1-4", "1-" (from 1 to kMaxReplayPass, past any metric set's last pass).
// The list ends at the first item that is not one; empty when the text starts with none.
inline constexpr size_t kMaxReplayPass = 255;
std::vector<size_t> parseReplayPasses(std::string_view text);

} // namespace ws
