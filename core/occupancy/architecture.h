// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

namespace ws {

struct DeviceInfo;

// Per-SM resource limits of one compute capability, with the allocation granularities the
// hardware rounds requests up to. The occupancy calculator needs only these numbers, so the
// viewer can compute occupancy for a session recorded on any GPU without a driver.
struct ArchitectureLimits {
    int ccMajor = 0;
    int ccMinor = 0;
    const char* family = "";
    int warpSize = 32;
    int maxThreadsPerBlock = 1024;
    int maxWarpsPerSm = 0;
    int maxBlocksPerSm = 0;
    int regsPerSm = 65536;
    int maxRegsPerBlock = 65536;
    int maxRegsPerThread = 255;
    // The hardware allocates at least this many registers per thread (ncu reports 16 for a
    // kernel compiled to 8 on an H200, and computes its register block limit from 16).
    int minRegsPerThread = 16;
    int regAllocUnit = 256; // registers per warp are rounded up to this
    int subPartitions = 4;  // registers are split between the SM's schedulers
    int64_t smemPerSm = 0;  // largest shared-memory carveout
    int64_t smemPerBlockDefault = 48 * 1024;
    int64_t smemPerBlockOptin = 0;
    int64_t smemReservedPerBlock = 0; // taken by the driver for every block (1 KiB since sm_80)
    int smemAllocUnit = 128;
    // Shared-memory carveouts the SM can be configured with, ascending, in KiB. The driver
    // picks the smallest one that holds the blocks it wants to place.
    std::vector<int> carveoutsKib;
    // Hardware barriers per SM are this many times maxBlocksPerSm.
    int barriersPerBlockSlot = 2;

    // The table entry for a compute capability; nullptr when it is not in the table.
    static const ArchitectureLimits* find(int ccMajor, int ccMinor);
    // Every architecture in the table, oldest first.
    static const std::vector<ArchitectureLimits>& all();
    // The table entry for the device's compute capability with the limits the device itself
    // reported (registers, shared memory, warps, blocks) taking precedence. Falls back to the
    // nearest older table entry of the same major version for an unknown minor.
    static bool forDevice(const DeviceInfo& device, ArchitectureLimits& out);
};

} // namespace ws
