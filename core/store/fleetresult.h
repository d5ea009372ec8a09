// SPDX-License-Identifier: MIT
#pragma once

#include "core/store/fleetgrid.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// A fleet result (python/warpscope/fleet, docs/fleet.md "The result file"): one SQLite file,
// PRAGMA application_id 0x5753464C ("WSFL"), written by a recipe run over many sessions. The
// app shows each per-rank metric it holds as a heatmap (core/store/fleetgrid.h); these read them.

inline constexpr int32_t kFleetApplicationId = 0x5753464C;

// True when the file's SQLite header carries the fleet application id (no SQLite open).
bool isFleetResultFile(const std::string& path);

// The session of a rank: the path the result names, or, when that file is gone, the file of the
// same name beside the result (a result moved or copied together with its sessions).
std::string resolveFleetSession(const std::string& resultPath, const std::string& session);

// Every per-rank metric of a fleet result, one grid each, in the order the app offers them (the
// recipe's headline metric first):
//   step_time     step time (the recipe's medians and flags; ranks from step_ranks), kernel time per step
//   kernel_time   GPU time by kernel name (the kMaxKernelColumns names with the most time over the fleet)
//   comm_overlap  exposed communication, overlap %, communication time
//   gpu_idle      idle %, idle time, largest gap, launch rate
// A rank with rows for several devices counts their sum (percentages from the summed times).
// Flags other than step_time's are computed with the recipe's rule (flagFleetGrid) and its k and
// min_rel (the defaults 5 and 0.01 when the run had none). Throws std::runtime_error naming the
// file when it is not a fleet result or holds no per-rank metric (top_kernels is fleet-wide).
inline constexpr size_t kMaxKernelColumns = 48;
std::vector<FleetStepGrid> readFleetGrids(const std::string& path);

// The step_time grid alone (readFleetGrids' first for a step_time result). Throws
// std::runtime_error naming the file when it is not a fleet result or has no step_time table.
FleetStepGrid readFleetStepGrid(const std::string& path);

} // namespace ws
