// SPDX-License-Identifier: MIT
#pragma once

#include "core/occupancy/occupancycalculator.h"
#include "core/ranking/kernellaunchtable.h"

#include <vector>

namespace ws {

struct OccupancyCurvePoint {
    double x = 0; // registers per thread, threads per block, or shared-memory bytes per block
    double occupancyPct = 0;
    int blocksPerSm = 0;
};

// ncu's "Impact of Varying ..." graphs: theoretical occupancy as one resource varies while the
// others keep the launch's values, from the occupancy calculator.
struct OccupancyCurves {
    OccupancyInput input;                         // the launch as the calculator saw it
    OccupancyResult current;                      // its own point
    std::vector<OccupancyCurvePoint> byRegisters; // 1 .. maxRegsPerThread, step 1
    std::vector<OccupancyCurvePoint> byBlockSize; // warpSize .. maxThreadsPerBlock, step warpSize
    std::vector<OccupancyCurvePoint> bySharedMem; // 0 .. smemPerBlockOptin, step 1 KiB (opted in)
};

// The calculator's input for a recorded launch. The kernel record has no opt-in attribute, so
// a launch using more than the default 48 KiB per block must have opted in for what it uses.
OccupancyInput occupancyInput(const LaunchConfig& launch, const ArchitectureLimits& limits);

OccupancyCurves occupancyCurves(const OccupancyCalculator& calculator, const OccupancyInput& input);

} // namespace ws
