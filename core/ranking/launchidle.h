// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/gpuidlegaps.h"
#include "core/ranking/kernellaunchtable.h"

#include <map>
#include <string>
#include <vector>

namespace ws {

// analyzeGpuIdle over kernels already in a launch table, so that the kernel panels, which read
// every launch once for the ranking, do not read them a second time (on the 10M-event synthetic
// session the second read was 3-4 s of the panels' 10 s). `copies` and `copyLabels` are the
// copies and memsets as addCopiesAndMemsets() collects them (the panels read them on another
// thread meanwhile). The same result as analyzeGpuIdle(source) when the table holds the source's
// kernels: a kernel is labelled by its group's base name.
GpuIdleAnalysis analyzeGpuIdle(const KernelLaunchTable& launches,
    const std::map<uint32_t, std::vector<GpuWork>>& copies, std::vector<std::string> copyLabels, TimeNs minGapNs = 0);

// The devices' busy/idle summary of analyzeGpuIdle(launches, copies, ...) (its `devices`; the
// gaps are not listed), in one pass over the launches, which are in start order already, with
// each device's copies and memsets merged in: building and sorting a copy of 3M launches per
// device was most of the kernel panels' idle summary. The union of a device's work and its holes
// do not depend on the order of equal starts, so this equals the sort-then-sweep of
// analyzeGpuWork field by field.
std::vector<GpuBusySummary> summarizeGpuBusy(
    const KernelLaunchTable& launches, const std::map<uint32_t, std::vector<GpuWork>>& copies);

} // namespace ws
