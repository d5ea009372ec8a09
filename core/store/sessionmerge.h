// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// Combines sessions of one program into one multi-run session (schema v2): the runs of `more`
// are appended to those of `base`, with every id and string of theirs remapped (through the
// references the schema declares, rowcodec.h): runs, event ids, kernel/metric/counter/bench/
// source ids, strings, and pids (a pid already used in `base` moves to pid + (run << 32)).
// metric_def rows are shared by name. `base` keeps its meta and environment; the meta and
// environment of a session without a run table describe its run (readRuns). Then the kernel
// links are computed (linkKernels; its warnings go to `warnings` when given). Throws
// SessionError(BadInput) for more than 2^16 runs.
SessionData mergeSessions(SessionData base, const SessionData& more, std::vector<std::string>* warnings = nullptr);

// A profiled launch points to the traced launch it corresponds to: same process (executable
// name), same kernel (mangled name, else demangled, else short) and the same ordinal among that
// kernel's launches in its run. Launches of a measuring run (profile, pc-sampling, or any run
// with kernel_metric rows, e.g. an ncu import) link to the first trace or import run without
// metrics that has the launch. A profile run made with --launch-skip K (read from its
// collector_arguments, else its profile.launch_skip option) profiled launches K, K+1, ... of
// what its filter matched; in a process whose profiled launches are all of one kernel (the
// exact filter "profile this kernel" uses) they link to that kernel's traced launches K, K+1,
// ...; with K > 0 and several kernels in one process the skip was counted over all of them, so
// no launch of that run is linked and a line in `warnings` says why. Replaces data.kernelLinks.
void linkKernels(SessionData& data, std::vector<std::string>* warnings = nullptr);

// The --launch-skip a profile run was made with: from its collector_arguments, else its
// profile.launch_skip option; 0 when neither says.
int64_t launchSkipOf(const RunInfo& run);
// Where a run started counting launches, so ordinals of two runs compare only when it is the same:
// "" the program's start, "cudaProfilerApi", or "nvtx:NAME" (a trace's record.capture_range, a
// profile run's --capture-range).
std::string launchOrigin(const RunInfo& run);

} // namespace ws
