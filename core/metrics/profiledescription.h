// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws {

// One line saying how a profile session's kernel metrics were measured, from its meta table:
// passes, the cache state every pass started from, clocks. Empty for sessions without profile
// metrics. The panels show it above their tables (every number on screen says what it measured).
std::string describeProfileRun(const std::map<std::string, std::string>& meta);

// The meta a run's metrics were measured under, for describeProfileRun: in a session of several
// runs that run's own options (its passes, cache control, replay), else the session's meta
// (`sessionMeta`), which a single run's file holds.
std::map<std::string, std::string> runMeasurementMeta(
    const std::vector<RunInfo>& runs, uint32_t runId, const std::map<std::string, std::string>& sessionMeta);

} // namespace ws
