// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "launcher/targetlauncher.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// The run row of a session as the collector that started the program knows it: the kind, the
// exact command line, the working directory, the environment variables that change how CUDA
// programs behave, host, user, wall-clock start and end, and the collector's options (its
// session meta). Re-running a recipe reads these, so they are recorded at the source rather
// than inferred from meta when the file is written (store::inferRun, for files and producers
// that have no launcher: imports, synthetic sessions, --from-raw).
RunInfo describeRun(std::string kind, const TargetLauncher& target, int64_t startRealtimeNs, int64_t endRealtimeNs,
    const std::map<std::string, std::string>& options);

// The same for a program that was never started (or a collector that starts none, bench):
// `commandLine` as given, this process's environment.
RunInfo describeRun(std::string kind, const std::string& commandLine, int64_t startRealtimeNs, int64_t endRealtimeNs,
    const std::map<std::string, std::string>& options);

// The run row of a collection that failed before it produced a session (no GPU, no permission
// to read counters, nothing profiled): describeRun() of the command as given, with
// run_status "failed: <reason>" in its options.
RunInfo describeFailedRun(std::string kind, const std::vector<std::string>& command, int64_t startRealtimeNs,
    std::map<std::string, std::string> options, const std::string& reason);

// Environment variables that change how CUDA programs behave (CUDA_*, NCCL_*, TORCH_*, ...):
// the ones a session keeps.
bool relevantVariable(std::string_view name);

// Who and where, as run rows record them (the user name of the effective uid, gethostname()):
// what a recipe's host and user are compared with before it is run here.
std::string currentUser();
std::string currentHost();

// CLOCK_REALTIME in ns since the Unix epoch.
int64_t realtimeNowNs();

} // namespace ws
