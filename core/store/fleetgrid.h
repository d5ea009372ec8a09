// SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// One per-rank metric of a fleet result (docs/fleet.md) as the app's heatmap shows it: a rank x
// column grid of values, each column's median over ranks, and the cells that are outliers.
// Columns are steps (step_time), kernel names (kernel_time) or the metric itself (one column:
// comm_overlap, gpu_idle).

enum class FleetColumns {
    Steps,   // one column per step; a cell is a step range in the rank's session
    Kernels, // one column per kernel name
    Value,   // one column: the rank's value
};

struct FleetMetric {
    std::string key;   // "<table>.<column>", e.g. "step_time.step_ns", unique within a result
    std::string title; // "Step time"
    std::string unit;  // "ns", "%", "/s"
    bool higherIsWorse = true;
    FleetColumns columns = FleetColumns::Steps;
};

struct FleetRank {
    std::string session; // the rank's session file, as the result names it
    int64_t pid = 0;
    int64_t rank = -1; // -1: the launcher set no RANK
    int64_t deviceId = -1;
    double summary = 0;     // the rank's summary of the metric (fleetSummaryTitle): median step, total, value
    bool straggler = false; // the summary is an outlier among the ranks
};

struct FleetStepGrid {
    std::string recipe;
    FleetMetric metric;
    std::vector<FleetRank> ranks;         // rows, in the result's order (by rank)
    std::vector<int64_t> steps;           // columns: the step numbers (Steps), else 0, 1, …
    std::vector<std::string> columnNames; // per column: "step 3", a kernel name, the metric's title
    std::vector<double> values;           // ranks.size() x steps.size(), row-major; < 0 where a rank has no value
    std::vector<double> median;           // per column: the median over the ranks that have a value
    std::vector<uint8_t> straggler;       // same shape as values: 1 where the cell is an outlier
    std::vector<int64_t> stepStart;       // same shape (Steps): the step range's start in the rank's session (ns)
    std::vector<std::string> rangeName;   // same shape (Steps): the step's NVTX range name, "" for iterations
    int64_t skipped = 0;                  // sessions the run skipped
    double at(size_t row, size_t col) const { return values[row * steps.size() + col]; }
    bool flagged(size_t row, size_t col) const { return straggler[row * steps.size() + col] != 0; }
    size_t cell(size_t row, size_t col) const { return row * steps.size() + col; }
};
using FleetGrid = FleetStepGrid;

// The recipe's straggler rule (python/warpscope/fleet/recipes.py robust_flags): a value is an
// outlier when it is worse than the median by more than k x MAD (unscaled median absolute
// deviation) and by more than minRel x |median|; worse is larger, or smaller when
// !higherIsWorse. Values < 0 (missing) are left out and never flagged.
struct RobustFlags {
    double median = 0;
    double mad = 0;
    std::vector<uint8_t> flags;
};
RobustFlags robustFlags(const std::vector<double>& values, double k, double minRel, bool higherIsWorse);

// Fills median and straggler per column with robustFlags, and each rank's summary
// (summary: the median over its steps for Steps, the sum for Kernels, the value for Value)
// and its straggler flag by the same rule over the ranks' summaries.
void flagFleetGrid(FleetStepGrid& grid, double k, double minRel);

// What the rank table calls a rank's summary for this metric ("Median step", "Total", …).
std::string fleetSummaryTitle(const FleetMetric& metric);

// The rank to compare row `row` with at column `col`: the one whose value there is closest to
// the column's median (ties: the first row), among ranks with a value whose session is another
// file (the compare window compares two files). -1 when there is none.
int fleetMedianRow(const FleetStepGrid& grid, size_t row, size_t col);

} // namespace ws
