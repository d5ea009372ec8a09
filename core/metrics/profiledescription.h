// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <string>

namespace ws {

// One line saying how a profile session's kernel metrics were measured, from its meta table:
// passes, the cache state every pass started from, clocks. Empty for sessions without profile
// metrics. The panels show it above their tables (every number on screen says what it measured).
std::string describeProfileRun(const std::map<std::string, std::string>& meta);

} // namespace ws
