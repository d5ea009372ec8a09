// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/kernelmetrics.h"

#include <optional>
#include <string>
#include <vector>

namespace ws {

// One stall reason of WarpStateStats: warp-cycles per issued instruction spent in the state.
struct StallReason {
    std::string key;   // "long_scoreboard" (the <r> of smsp__average_warps_issue_stalled_<r>_per_issue_active)
    std::string label; // "Long Scoreboard"
    double cyclesPerIssue = 0;
};

// Floating-point work of one kernel per precision, in FLOP (an FMA counts two, a packed half2
// instruction two or four; tensor-core operations as the tensor datapath counts them).
struct FlopCounts {
    std::optional<double> fp64, fp32, fp16;
    std::optional<double> tensorFp16, tensorBf16, tensorTf32, tensorFp8, tensorFp64;
    std::optional<double> tensorAll; // when only the total is known (derived__tensor_flop)

    bool any() const;
    double total() const;
    // The precision that did most of the work: "fp64", "fp32", "fp16", "tensor_fp16",
    // "tensor_bf16", "tensor_tf32", "tensor_fp8", "tensor_fp64", "tensor"; empty without work.
    std::string dominant() const;
};

// The figures of one kernel the panels, the roofline and the diagnosis read, gathered from
// its ncu metrics (names: resources/sections/*.section) with units normalised: time in ns,
// sizes in bytes, percentages 0..100. Anything not collected stays empty.
struct KernelFacts {
    std::optional<double> durationNs; // gpu__time_duration.sum, else the traced duration

    // Launch
    std::optional<double> gridBlocks, blockThreads, clusterBlocks, registersPerThread;
    std::optional<double> staticSmemBytes, dynamicSmemBytes, smCount, wavesPerSm;

    // Occupancy
    std::optional<double> theoreticalOccupancyPct, achievedOccupancyPct;
    std::optional<double> theoreticalWarpsPerSm, achievedWarpsPerSm;
    std::optional<double> limitRegisters, limitSharedMem, limitWarps, limitBlocks, limitBarriers;

    // Speed of light, % of each unit's own peak
    std::optional<double> smThroughputPct, memThroughputPct, dramThroughputPct, l1ThroughputPct, l2ThroughputPct;

    // Scheduler (per scheduler per cycle; percentages of active cycles)
    std::optional<double> maxWarpsPerScheduler, theoreticalWarpsPerScheduler, activeWarpsPerScheduler,
        eligibleWarpsPerScheduler, issuedWarpsPerScheduler, noEligiblePct, issueActivePct;
    std::optional<double> issueSlotsBusyPct;

    // Warp states
    std::optional<double> warpCyclesPerIssued;
    std::vector<StallReason> stalls; // sorted, largest first

    // Work and traffic
    FlopCounts flop;
    std::optional<double> dramBytes, l2Bytes, l1Bytes;
    std::optional<double> dramReadBytes, dramWriteBytes;
    std::optional<double> l1HitRatePct, l2HitRatePct;
    std::optional<double> globalLoadRequests, globalLoadSectors, globalStoreRequests, globalStoreSectors;

    std::optional<double> globalLoadSectorsPerRequest() const;
    std::optional<double> globalStoreSectorsPerRequest() const;
    // Bytes per second of a level over the kernel's duration.
    std::optional<double> perSecond(const std::optional<double>& amount) const;
    double stallTotal() const; // sum of all stall reasons but "selected"
};

// From a kernel's metrics; `tracedDurationNs` (end - start of its record) stands in when
// gpu__time_duration.sum is missing and is ignored when <= 0.
KernelFacts kernelFacts(const KernelMetrics& metrics, double tracedDurationNs = 0);

// "Long Scoreboard" for "long_scoreboard".
std::string stallLabel(const std::string& key);

} // namespace ws
