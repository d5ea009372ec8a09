// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/sessiondata.h"

#include <vector>

namespace ws {

// Combines sessions of one program into one multi-run session (schema v2): the runs of `more`
// are appended to those of `base`, with every id and string of theirs remapped (through the
// references the schema declares, rowcodec.h): runs, event ids, kernel/metric/counter/bench/
// source ids, strings, and pids (a pid already used in `base` moves to pid + (run << 32)).
// metric_def rows are shared by name. `base` keeps its meta and environment; the meta and
// environment of a session without a run table describe its run (readRuns). Then the kernel
// links are computed (linkKernels). Throws SessionError(BadInput) for more than 2^16 runs.
SessionData mergeSessions(SessionData base, const SessionData& more);

// A profiled launch points to the traced launch it corresponds to: same process (executable
// name), same kernel (mangled name, else demangled, else short) and the same ordinal among that
// kernel's launches in its run. Launches of a measuring run (profile, pc-sampling, or any run
// with kernel_metric rows, e.g. an ncu import) link to the first trace or import run without
// metrics that has the launch. Replaces data.kernelLinks.
void linkKernels(SessionData& data);

} // namespace ws
