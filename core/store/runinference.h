// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ws::store {

// The run a session without a run table (schema v1), or a writer whose producer set none,
// describes: kind from meta (session_kind, import.* keys, bench rows), command line, host and
// start from the environment, the meta of the producer (profile_*, record.*, ...) as options.
RunInfo inferRun(const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& environment,
    bool hasKernels, bool hasBenchRuns);

// {"key":"value",...} with JSON string escaping.
std::string toJsonObject(const std::map<std::string, std::string>& values);
// The inverse, for the run table's options and environment: an object of string values.
// Anything else (nested values, numbers, broken text) gives nullopt.
std::optional<std::map<std::string, std::string>> fromJsonObject(std::string_view json);

// Meta keys the store writes in every session (schema_version, complete, created, tool_version):
// facts about the file, not options of a run.
bool isStoreMetaKey(const std::string& key);

} // namespace ws::store
