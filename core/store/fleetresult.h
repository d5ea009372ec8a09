// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// A fleet result (python/warpscope/fleet, docs/fleet.md "The result file"): one SQLite file,
// PRAGMA application_id 0x5753464C ("WSFL"), written by a recipe run over many sessions. The
// app shows its step_time table as a rank x step heatmap; this is that table, read once.

inline constexpr int32_t kFleetApplicationId = 0x5753464C;

struct FleetRank {
    std::string session; // the rank's session file, as the result names it
    int64_t pid = 0;
    int64_t rank = -1; // -1: the launcher set no RANK
    int64_t deviceId = -1;
    double medianStepNs = 0;
    bool straggler = false; // step_ranks.straggler: its median step is an outlier
};

struct FleetStepGrid {
    std::string recipe;
    std::vector<FleetRank> ranks;   // rows, in the result's order (by rank)
    std::vector<int64_t> steps;     // columns, ascending
    std::vector<double> stepNs;     // ranks.size() x steps.size(), row-major; < 0 where a rank lacks a step
    std::vector<double> medianNs;   // per step: the median over ranks (the recipe's)
    std::vector<uint8_t> straggler; // same shape as stepNs: 1 where the recipe flagged the cell
    std::vector<int64_t> stepStart; // same shape: the step range's start in the rank's session (ns)
    int64_t skipped = 0;            // sessions the run skipped
    double at(size_t row, size_t col) const { return stepNs[row * steps.size() + col]; }
    bool flagged(size_t row, size_t col) const { return straggler[row * steps.size() + col] != 0; }
};

// True when the file's SQLite header carries the fleet application id (no SQLite open).
bool isFleetResultFile(const std::string& path);

// The session of a rank: the path the result names, or, when that file is gone, the file of the
// same name beside the result (a result moved or copied together with its sessions).
std::string resolveFleetSession(const std::string& resultPath, const std::string& session);

// Reads the step_time and step_ranks tables of a fleet result. Throws std::runtime_error naming
// the file when it is not a fleet result or has no step_time table (another recipe's result).
FleetStepGrid readFleetStepGrid(const std::string& path);

} // namespace ws
