// SPDX-License-Identifier: MIT
#pragma once

#include "core/occupancy/architecture.h"

#include <cstdint>
#include <string>

namespace ws {

// One kernel launch as the occupancy calculation sees it.
struct OccupancyInput {
    int blockSize = 0; // threads per block (x * y * z)
    int registersPerThread = 0;
    int64_t staticSmemBytes = 0;
    int64_t dynamicSmemBytes = 0;
    // cudaFuncAttributeMaxDynamicSharedMemorySize when the program raised it above the default
    // 48 KiB window (opt-in); 0 = not set.
    int64_t maxDynamicSmemBytes = 0;
    // cudaFuncAttributePreferredSharedMemoryCarveout in percent, -1 = no preference.
    int carveoutPercent = -1;
    int barriersPerBlock = 1; // hardware barriers one block uses (bar.sync 0 alone = 1)
};

enum class OccupancyLimiter { None, Registers, SharedMemory, Warps, Blocks, Barriers, Invalid };

const char* toString(OccupancyLimiter limiter);

// Theoretical occupancy and the block limits per resource, with the same rounding as the
// hardware (and as cudaOccupancyMaxActiveBlocksPerMultiprocessor).
struct OccupancyResult {
    int blocksPerSm = 0;
    int limitRegisters = 0; // INT32_MAX where the resource imposes no limit
    // Blocks that fit the shared-memory carveout the driver configures (smemConfigBytes), as
    // ncu reports it.
    int limitSharedMem = 0;
    int limitWarps = 0;
    int limitBlocks = 0;
    int limitBarriers = 0;
    OccupancyLimiter limiter = OccupancyLimiter::Invalid;
    int warpsPerBlock = 0;
    int activeWarpsPerSm = 0;
    double occupancyPct = 0;        // active warps / max warps per SM, in percent
    int allocatedRegsPerThread = 0; // at least ArchitectureLimits::minRegsPerThread
    int allocatedRegsPerBlock = 0;
    int64_t allocatedSmemPerBlock = 0; // including the driver's reserved share
    // The carveout the driver configures for this launch (ncu's launch__shared_mem_config_size;
    // see compute() for the rule without a carveout preference).
    int64_t smemConfigBytes = 0;
    std::string error; // why the launch cannot run at all (blocksPerSm == 0), empty otherwise
};

class OccupancyCalculator {
public:
    explicit OccupancyCalculator(ArchitectureLimits limits);

    OccupancyResult compute(const OccupancyInput& in) const;

    // Waves of blocks needed for the grid: gridBlocks / (blocksPerSm * smCount).
    static double waves(int64_t gridBlocks, int blocksPerSm, int smCount);

    const ArchitectureLimits& limits() const { return m_limits; }

private:
    // The carveout (bytes) the SM is set to when `bytes` of shared memory must fit; -1 when no
    // carveout is large enough.
    int64_t carveoutFor(int64_t bytes) const;

    ArchitectureLimits m_limits;
};

} // namespace ws
