// SPDX-License-Identifier: MIT
#pragma once

#include "core/compare/comparesession.h"

#include <string>
#include <vector>

namespace ws::compare {

// The repeated unit whose GPU time is "the latency" of a recording, and where a session's
// timeline starts for the stacked view.
//
// - With an NVTX range name: every instance of that range that launched kernels is one
//   iteration when there are at least two; a single instance (a "timed loop" around the whole
//   loop) is split like the whole session below, inside that range only.
// - Without: the kernel launched most often (ties: the one launched first) marks the start of
//   each iteration; kernels before its first launch (setup) are left out.
// An iteration's value is its GPU busy time: the sum of its kernels' durations (ns), which
// concurrent kernels may make larger than its span.
struct Iterations {
    std::string basis;          // in words: how the iterations were found
    std::string period;         // name of the kernel that starts each iteration (empty for range instances)
    std::vector<double> values; // ns per iteration
    TimeNs origin = 0;          // the shared origin: start of the range, or first kernel
    bool rangeFound = false;    // false when `rangeName` was given but no instance launched kernels
};

Iterations findIterations(const CompareSession& s, const std::string& rangeName = {});

// Names of the NVTX ranges that contain at least one launch, most instances first (for choosers).
std::vector<std::string> rangesWithKernels(const CompareSession& s);

} // namespace ws::compare
