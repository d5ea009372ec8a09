// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/gpuidlegaps.h"
#include "core/ranking/kernellaunchtable.h"

#include <map>
#include <vector>

namespace ws {

// The devices' busy/idle summary the kernel panels show: the `devices` of analyzeGpuIdle (the
// gaps are not listed) over kernels already in a launch table, so the panels read no kernel row
// for it, with each device's copies and memsets (`copies`, as addCopiesAndMemsets() collects them)
// merged in, in one pass over the launches, which are in start order already: building and
// sorting a copy of 3M launches per device was most of the panels' idle summary. The union of a
// device's work and its holes does not depend on the order of equal starts, so this equals the
// sort-then-sweep of analyzeGpuWork field by field.
std::vector<GpuBusySummary> summarizeGpuBusy(
    const KernelLaunchTable& launches, const std::map<uint32_t, std::vector<GpuWork>>& copies);

} // namespace ws
