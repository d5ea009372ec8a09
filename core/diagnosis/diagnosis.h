// SPDX-License-Identifier: MIT
#pragma once

#include "core/analysis/gpuidlegaps.h"
#include "core/metrics/kernelfacts.h"
#include "core/roofline/roofline.h"

#include <optional>
#include <string>
#include <vector>

namespace ws {

// What limits a kernel (seed "profiling GPU code": name the limiter, each has its own fix).
// Overhead-bound is a property of the timeline (the GPU idles between kernels), found by
// diagnoseSession(); a kernel on its own is compute-, memory- or latency-bound.
enum class Limiter { Unknown, Compute, Memory, Latency, Overhead };
const char* limiterName(Limiter limiter); // "compute-bound", ...

// The steps of the kernel reading order (seed "measuring and analyzing GPU kernel
// performance": launch -> occupancy -> speed of light -> compute or memory path ->
// scheduler -> warp states); the timeline comes before all of them.
enum class ReadingStep {
    Timeline = 0,
    Launch = 1,
    Occupancy = 2,
    Throughput = 3,
    MemoryPath = 4,
    Scheduler = 5,
    WarpState = 6
};
const char* readingStepName(ReadingStep step);

enum class FindingKind {
    OverheadBound,   // GPU idle between kernels (session)
    ManyTinyKernels, // most launches shorter than the tiny-kernel threshold (session)
    TinyKernel,
    SmallGrid,
    LowOccupancy,      // achieved occupancy too low to hide latency (seed rule)
    AchievedOccupancy, // achieved well below theoretical (ncu AchievedOccupancy)
    RooflinePosition,
    ComputeBound,
    MemoryBound,
    LatencyBound,
    Uncoalesced,
    IssueStarved, // the schedulers rarely find an eligible warp
    TopStall,
};

struct Finding {
    FindingKind kind = FindingKind::RooflinePosition;
    ReadingStep step = ReadingStep::Throughput;
    std::string title;    // one line: "memory-bound"
    std::string evidence; // the numbers that triggered it, with units
    std::string nextStep; // what to do or look at next
    // ncu's estimated speedup (% of the kernel's time, or of the workload for session
    // findings) where ncu defines one for the same rule, with how it was computed.
    std::optional<double> estSpeedupPct;
    std::string speedupBasis;
};

// Thresholds of the rules; the defaults are seed 003's and ncu's (they are judgment, not
// standards: the seed says so).
struct DiagnosisOptions {
    double tinyKernelNs = 10'000; // seed: < 10 us -> launch overhead dominates
    // Seed 003 flags > 8 sectors per request, assuming 4-byte words (ideal 4). A coalesced
    // warp of 16-byte (float4) loads needs 16 sectors, though: the H200 copy fixture measures
    // exactly 16 with every byte used. 16 B is the widest load a thread issues, so only more
    // than 16 sectors per request proves uncoalesced access whatever the word size.
    double uncoalescedSectorsPerRequest = 16;
    double idealSectorsPerRequest = 4; // 32 threads x 4-byte words = 128 B = 4 sectors
    double busyPct = 60;               // seed / ncu SOLBottleneck: both units < 60% -> latency
    double lowOccupancyPct = 25;       // seed: achieved occupancy < 25% while latency-bound
    double achievedGapFraction = 0.2;  // achieved below 80% of theoretical
    double noEligiblePct = 50;         // scheduler idle half of its active cycles
    double topStallShare = 0.25;       // a stall reason with a quarter of the stall cycles
    double idlePct = 20;               // GPU idle at least this share of its busy span
    double tinyLaunchShare = 0.5;      // half the launches are tiny
};

struct KernelDiagnosis {
    Limiter limiter = Limiter::Unknown;
    std::string headline;                  // "memory-bound: DRAM 85% of peak bandwidth"
    std::vector<Finding> findings;         // in reading order
    std::vector<std::string> notCollected; // what could not be judged and the section that would tell
};

// Seed 003's rules and ncu's rule formulas on one kernel's facts. `ceilings` are the device's
// roofs (the roofline position needs a DRAM roof and a compute roof for the kernel's
// dominant precision).
KernelDiagnosis diagnoseKernel(
    const KernelFacts& facts, const RooflineCeilings& ceilings, const DiagnosisOptions& options = {});

// Timeline-level findings: GPU idle between kernels, and launch-bound streams of tiny kernels.
struct SessionFacts {
    std::vector<GpuBusySummary> devices;
    int64_t kernelLaunches = 0;
    int64_t tinyLaunches = 0; // shorter than options.tinyKernelNs
    int64_t kernelTimeNs = 0;
    int64_t tinyTimeNs = 0;
};
std::vector<Finding> diagnoseSession(const SessionFacts& facts, const DiagnosisOptions& options = {});

// "1.23 ms", "850 ns": durations in findings.
std::string formatNs(double ns);

} // namespace ws
