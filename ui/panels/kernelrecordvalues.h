// SPDX-License-Identifier: MIT
#pragma once

#include <map>
#include <string>

namespace ws {

class PanelData;
struct ShownKernel;

// What Warpscope knows of one launch without a profile, by name, for the panel rows that read
// `from=record` (resources/sections/README.md): the kernel record's launch configuration and
// traced duration, and the occupancy calculator's results for it. Names are ncu's where ncu has
// the figure (launch__grid_size, sm__maximum_warps_per_active_cycle_pct, gpu__time_duration.sum);
// record__* where it has none (the compiled register count, the (x, y, z) dimensions, the
// limiting resource). Values are in base units (ns, bytes), as the rows expect.
struct KernelRecordValues {
    std::map<std::string, double> numbers;
    std::map<std::string, std::string> texts; // record__grid "(1024, 1, 1)", record__occupancy_limiter

    static KernelRecordValues of(const PanelData* data, const ShownKernel& kernel);
};

} // namespace ws
