// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/streamdependencies.h"

#include <vector>

namespace ws {

class SessionReader;

// The stream dependencies of a session file: reads event_op and, only when it has rows, the
// GPU work and API calls the derivation needs (core/model/streamdependencies.h).
std::vector<StreamDependency> readStreamDependencies(const SessionReader& reader);

} // namespace ws
