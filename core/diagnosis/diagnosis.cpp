// SPDX-License-Identifier: MIT
#include "core/diagnosis/diagnosis.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace ws {

namespace {

std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string format(const char* fmt, ...)
{
    char buf[512];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

std::string flops(double perS)
{
    if (perS >= 100e12)
        return format("%.0f TFLOP/s", perS / 1e12);
    if (perS >= 1e12)
        return format("%.3g TFLOP/s", perS / 1e12);
    return format("%.3g GFLOP/s", perS / 1e9);
}

std::string bandwidth(double perS)
{
    if (perS >= 1e10)
        return format("%.2f TB/s", perS / 1e12);
    return format("%.3g GB/s", perS / 1e9);
}

struct StallAdvice {
    const char* key;
    const char* meaning;
    const char* next;
};

// What each warp state means and where to go next (ncu Kernel Profiling Guide; seed
// "profiling GPU code": stall reasons translate directly to causes).
constexpr StallAdvice kStallAdvice[] = {
    {"long_scoreboard",
        "warps wait on L1TEX results (global, local, texture memory): memory latency, too few loads in flight, or "
        "register spills",
        "keep more loads in flight (more resident warps or more independent loads per thread), prefetch earlier, check "
        "Memory Workload Analysis for the level that serves them and for local-memory spills"},
    {"short_scoreboard", "warps wait on shared memory or special-function (MIO) results",
        "look for shared-memory bank conflicts and heavy special-math use"},
    {"barrier", "warps wait at a block barrier (__syncthreads) for slower warps",
        "balance the work between warps before each barrier, or use smaller blocks"},
    {"math_pipe_throttle", "an arithmetic pipe is saturated",
        "expected for a compute-bound kernel: move work to tensor cores or a lower precision, or to a less loaded "
        "pipe"},
    {"not_selected", "warps were ready but another was picked: more ready warps than the scheduler can issue",
        "occupancy is not the problem; the instruction mix is"},
    {"mio_throttle", "the MIO queue (shared memory, special math, dynamic branches) is full",
        "fewer and wider shared-memory instructions, fewer bank conflicts"},
    {"lg_throttle", "the local/global memory instruction queue is full",
        "fewer, wider memory instructions (vectorised loads), no local-memory spills"},
    {"wait", "fixed-latency dependencies between instructions",
        "more instruction-level parallelism (unroll, independent accumulators)"},
    {"branch_resolving", "warps wait for a branch target or the branch unit", "fewer branches and less divergence"},
    {"no_instruction", "the warp had no instruction fetched (instruction cache miss)",
        "smaller code: less unrolling or inlining in very large kernels"},
    {"dispatch_stall", "the dispatcher could not issue a selected instruction", "rare; check pipeline conflicts"},
    {"drain", "warps wait for their stores to drain before exiting", "usually harmless at the end of a kernel"},
    {"membar", "warps wait on a memory barrier", "fewer fences (__threadfence) or narrower ones"},
    {"sleeping", "warps sleep (__nanosleep, yield)", "check the spin/sleep loop"},
    {"tex_throttle", "the texture pipe queue is full", "fewer texture/surface instructions"},
    {"gmma", "warps wait for warpgroup MMA (wgmma) results", "deeper software pipelining of the MMA stages"},
    {"imc_miss", "immediate-constant cache miss", "fewer distinct constants per warp"},
};

const StallAdvice* adviceFor(const std::string& key)
{
    for (const StallAdvice& a : kStallAdvice) {
        if (key == a.key)
            return &a;
    }
    return nullptr;
}

// ncu's rule hierarchy: a child rule's global estimate is min(parent, local).
double underParent(double local, const std::optional<double>& parent)
{
    return parent ? std::min(*parent, local) : local;
}

} // namespace

const char* limiterName(Limiter limiter)
{
    switch (limiter) {
    case Limiter::Compute:
        return "compute-bound";
    case Limiter::Memory:
        return "memory-bound";
    case Limiter::Latency:
        return "latency-bound";
    case Limiter::Overhead:
        return "overhead-bound";
    case Limiter::Unknown:
        break;
    }
    return "not determined";
}

const char* readingStepName(ReadingStep step)
{
    switch (step) {
    case ReadingStep::Timeline:
        return "Timeline";
    case ReadingStep::Launch:
        return "Launch";
    case ReadingStep::Occupancy:
        return "Occupancy";
    case ReadingStep::Throughput:
        return "Speed of light";
    case ReadingStep::MemoryPath:
        return "Memory path";
    case ReadingStep::Scheduler:
        return "Scheduler";
    case ReadingStep::WarpState:
        return "Warp states";
    }
    return "";
}

std::string formatNs(double ns)
{
    if (ns >= 1e9)
        return format("%.3g s", ns / 1e9);
    if (ns >= 1e6)
        return format("%.3g ms", ns / 1e6);
    if (ns >= 1e3)
        return format("%.3g us", ns / 1e3);
    return format("%.0f ns", ns);
}

KernelDiagnosis diagnoseKernel(const KernelFacts& f, const RooflineCeilings& ceilings, const DiagnosisOptions& o)
{
    KernelDiagnosis d;
    auto add = [&](Finding x) { d.findings.push_back(std::move(x)); };

    // ncu's IssueSlotUtilization estimate is the parent of the occupancy and stall rules.
    std::optional<double> issueParent;
    if (f.issueActivePct)
        issueParent = std::clamp(100.0 - *f.issueActivePct, 0.0, 100.0);

    // --- 1. Launch -------------------------------------------------------------------------
    if (f.durationNs && *f.durationNs < o.tinyKernelNs) {
        add({FindingKind::TinyKernel, ReadingStep::Launch, "tiny kernel",
            format("%s on the GPU, under the %s threshold", formatNs(*f.durationNs).c_str(),
                formatNs(o.tinyKernelNs).c_str()),
            "launch overhead dominates: fuse it into a neighbouring kernel (e.g. a matmul epilogue) or capture the "
            "sequence in a CUDA graph",
            std::nullopt, {}});
    }
    if (f.wavesPerSm && *f.wavesPerSm < 1.0) {
        std::string evidence = format("%.2f waves per SM", *f.wavesPerSm);
        if (f.gridBlocks && f.smCount)
            evidence += format(" (grid of %.0f blocks on %.0f SMs)", *f.gridBlocks, *f.smCount);
        add({FindingKind::SmallGrid, ReadingStep::Launch, "grid too small to fill the GPU", evidence,
            "launch more blocks (smaller tiles, split-K, more work per launch) or run independent work "
            "concurrently on other streams",
            std::nullopt, {}});
    }

    // --- 3. Speed of light -------------------------------------------------------------------
    // Roofline position, as seed 003 reads it: FLOP/s against the roof at the kernel's DRAM
    // intensity when it does at least 1 FLOP per byte, else DRAM bandwidth against its peak.
    const std::optional<double> dramRate = f.perSecond(f.dramBytes);
    const double flop = f.flop.any() ? f.flop.total() : 0.0;
    const std::optional<double> dramBw = ceilings.bandwidthOf(MemoryLevel::Dram);
    if (f.durationNs && *f.durationNs > 0 && f.dramBytes && *f.dramBytes > 0) {
        const double ai = flop / *f.dramBytes;
        const double seconds = *f.durationNs * 1e-9;
        const std::optional<double> peak = ceilings.peakFor(f.flop.dominant());
        if (ai >= 1 && dramBw && peak) {
            const double achieved = flop / seconds;
            const double roof = std::min(*peak, ai * *dramBw);
            add({FindingKind::RooflinePosition, ReadingStep::Throughput,
                format("%.0f%% of roofline", 100 * achieved / roof),
                format("%s at %.0f FLOP/B (DRAM); roof %s -> %.0f%% of roofline", flops(achieved).c_str(), ai,
                    flops(roof).c_str(), 100 * achieved / roof),
                ai * *dramBw < *peak ? "below the ridge: the DRAM roof caps it; fewer bytes raise the ceiling"
                                     : "above the ridge: the compute roof caps it",
                std::nullopt, {}});
        } else if (dramBw && dramRate) {
            add({FindingKind::RooflinePosition, ReadingStep::Throughput,
                format("%.0f%% of peak DRAM bandwidth", 100 * *dramRate / *dramBw),
                format("%s of DRAM -> %.0f%% of peak bandwidth (%s)", bandwidth(*dramRate).c_str(),
                    100 * *dramRate / *dramBw, bandwidth(*dramBw).c_str()),
                ai < 1 ? "data movement dominates (under 1 FLOP per DRAM byte): judge it by bandwidth"
                       : "no compute roof for its precision on this device record",
                std::nullopt, {}});
        }
    } else {
        d.notCollected.emplace_back("FLOP and DRAM bytes (section Roofline): roofline position not computed");
    }

    // The limiter, by seed 003's rules.
    const bool haveSol = f.smThroughputPct && f.memThroughputPct;
    if (haveSol) {
        const double sm = *f.smThroughputPct;
        const double mem = *f.memThroughputPct;
        const std::string sol = format("Compute (SM) %.0f%%, Memory %.0f%% of their peaks", sm, mem);
        if (std::max(sm, mem) < o.busyPct) {
            d.limiter = Limiter::Latency;
            add({FindingKind::LatencyBound, ReadingStep::Throughput, "latency-bound: neither unit is busy",
                sol + format(" (both below %.0f%%)", o.busyPct),
                "warps wait rather than work: read occupancy, the scheduler and the warp states below", std::nullopt,
                {}});
        } else if (mem > sm) {
            d.limiter = Limiter::Memory;
            std::string evidence = sol;
            if (f.dramThroughputPct)
                evidence += format("; DRAM %.0f%%", *f.dramThroughputPct);
            add({FindingKind::MemoryBound, ReadingStep::Throughput, "memory-bound", evidence,
                "cut bytes: fuse with neighbours, lower precision, reuse data in shared memory/L2; a kernel near "
                "peak bandwidth is done: fuse it rather than tune it",
                std::nullopt, {}});
        } else {
            d.limiter = Limiter::Compute;
            add({FindingKind::ComputeBound, ReadingStep::Throughput, "compute-bound", sol,
                "use tensor cores or a lower precision, cut instructions, or accept: check which pipe is busiest in "
                "the throughput breakdown",
                std::nullopt, {}});
        }
    } else {
        d.notCollected.emplace_back("compute/memory throughput (section SpeedOfLight): limiter not determined");
    }

    // --- 2. Occupancy -----------------------------------------------------------------------
    if (f.achievedOccupancyPct) {
        const double ach = *f.achievedOccupancyPct;
        const std::optional<double> theo = f.theoreticalOccupancyPct;
        std::optional<double> speedup;
        std::string basis;
        if (theo && *theo > 0 && (*theo - ach) / *theo >= o.achievedGapFraction) {
            speedup = underParent(100.0 * (*theo - ach) / *theo, issueParent);
            basis = "ncu AchievedOccupancy: (theoretical - achieved) / theoretical"
                + std::string(issueParent ? ", capped by the issue-slot estimate" : "");
        } else if (theo && *theo < 100) {
            speedup = underParent(100.0 - *theo, issueParent);
            basis = "ncu TheoreticalOccupancy: 100% - theoretical"
                + std::string(issueParent ? ", capped by the issue-slot estimate" : "");
        }
        std::string limits;
        const std::pair<const char*, std::optional<double>> blockLimits[] = {{"registers", f.limitRegisters},
            {"shared memory", f.limitSharedMem}, {"warps", f.limitWarps}, {"SM", f.limitBlocks}};
        for (const auto& [name, v] : blockLimits) {
            if (v)
                limits += format("%s %s %.0f", limits.empty() ? "; block limits per SM:" : ",", name, *v);
        }
        if (d.limiter == Limiter::Latency && ach < o.lowOccupancyPct) {
            add({FindingKind::LowOccupancy, ReadingStep::Occupancy, "occupancy too low to hide latency",
                format("occupancy %.0f%% achieved", ach) + (theo ? format(" of %.0f%% theoretical", *theo) : "")
                    + format(" (below %.0f%%)", o.lowOccupancyPct) + limits,
                "too few warps to hide latency: raise the block limit that binds (fewer registers or less shared "
                "memory per block, other block size), or give each thread more independent work",
                speedup, basis});
        } else if (theo && *theo > 0 && (*theo - ach) / *theo >= o.achievedGapFraction) {
            add({FindingKind::AchievedOccupancy, ReadingStep::Occupancy, "achieved occupancy well below theoretical",
                format("achieved %.1f%% of theoretical %.1f%%", ach, *theo),
                "warps finish unevenly or blocks arrive late: check load imbalance between blocks and the tail "
                "wave (waves per SM)",
                speedup, basis});
        }
    } else {
        d.notCollected.emplace_back("achieved occupancy (section Occupancy)");
    }

    // --- 4. Memory path ---------------------------------------------------------------------
    if (const auto spr = f.globalLoadSectorsPerRequest(); spr && *spr > o.uncoalescedSectorsPerRequest) {
        std::optional<double> speedup;
        std::string basis;
        if (f.l2ThroughputPct) {
            const double excess = std::max(0.0, (*spr - o.idealSectorsPerRequest) / *spr);
            speedup = *f.l2ThroughputPct * excess;
            basis = format("ncu UncoalescedGlobalAccess: L2 busy (%.0f%%) x excessive sectors / all sectors; "
                           "the excess is estimated from sectors per request against the ideal %.0f of 4-byte "
                           "accesses (ncu counts it per instruction from the source counters)",
                *f.l2ThroughputPct, o.idealSectorsPerRequest);
        }
        add({FindingKind::Uncoalesced, ReadingStep::MemoryPath, "uncoalesced global access",
            format("%.0f sectors/request for global loads (ideal %.0f for 4-byte words, %.0f for 16-byte vector "
                   "loads; more than %.0f means threads touch scattered sectors)",
                *spr, o.idealSectorsPerRequest, 4 * o.idealSectorsPerRequest, o.uncoalescedSectorsPerRequest),
            "make neighbouring threads touch neighbouring addresses (transpose through shared memory, "
            "structure-of-arrays, vectorised loads)",
            speedup, basis});
    } else if (!f.globalLoadRequests) {
        d.notCollected.emplace_back("sectors per request (section MemoryWorkloadAnalysis)");
    }

    // --- 5. Scheduler -----------------------------------------------------------------------
    if (f.noEligiblePct && *f.noEligiblePct >= o.noEligiblePct) {
        std::string evidence = format("no eligible warp in %.0f%% of active cycles", *f.noEligiblePct);
        if (f.activeWarpsPerScheduler && f.eligibleWarpsPerScheduler)
            evidence += format("; %.2f eligible of %.2f active warps per scheduler", *f.eligibleWarpsPerScheduler,
                *f.activeWarpsPerScheduler);
        if (f.issuedWarpsPerScheduler)
            evidence += format(", %.2f issued per cycle", *f.issuedWarpsPerScheduler);
        add({FindingKind::IssueStarved, ReadingStep::Scheduler, "schedulers rarely find a ready warp", evidence,
            "the warp states say what the warps wait for; more resident warps or more independent instructions "
            "per warp give the scheduler something to issue",
            issueParent, "ncu IssueSlotUtilization: 100% - issue-active %"});
    } else if (!f.noEligiblePct) {
        d.notCollected.emplace_back("eligible / issued warps (section SchedulerStats)");
    }

    // --- 6. Warp states ---------------------------------------------------------------------
    if (!f.stalls.empty()) {
        const double total = f.warpCyclesPerIssued.value_or(f.stallTotal());
        const StallReason* top = nullptr;
        for (const StallReason& s : f.stalls) {
            if (s.key != "selected") {
                top = &s;
                break;
            }
        }
        if (top && total > 0 && top->cyclesPerIssue / total >= o.topStallShare) {
            const StallAdvice* advice = adviceFor(top->key);
            const double share = top->cyclesPerIssue / total;
            add({FindingKind::TopStall, ReadingStep::WarpState, "top stall: " + top->label,
                format(
                    "%.2f of %.2f warp-cycles per issued instruction (%.0f%%)", top->cyclesPerIssue, total, 100 * share)
                    + (advice ? std::string(": ") + advice->meaning : std::string()),
                advice ? advice->next : "see the Kernel Profiling Guide's warp-state table",
                underParent(100.0 * share, issueParent),
                "ncu CPIStall: stall cycles / all warp cycles per issued instruction"
                    + std::string(issueParent ? ", capped by the issue-slot estimate" : "")});
        }
    } else {
        d.notCollected.emplace_back("stall reasons (section WarpStateStats)");
    }

    std::stable_sort(
        d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) { return a.step < b.step; });

    d.headline = limiterName(d.limiter);
    for (const Finding& x : d.findings) {
        if (x.kind == FindingKind::RooflinePosition) {
            d.headline += ": " + x.title;
            break;
        }
    }
    return d;
}

std::vector<Finding> diagnoseSession(const SessionFacts& s, const DiagnosisOptions& o)
{
    std::vector<Finding> out;
    for (const GpuBusySummary& dev : s.devices) {
        const TimeNs span = dev.last - dev.first;
        if (span <= 0 || dev.idlePct() < o.idlePct)
            continue;
        out.push_back({FindingKind::OverheadBound, ReadingStep::Timeline, format("GPU %u overhead-bound", dev.deviceId),
            format("GPU %u idle %.0f%% of the %s between its first and last work (%s idle in %lld gaps, largest "
                   "%s)",
                dev.deviceId, dev.idlePct(), formatNs(static_cast<double>(span)).c_str(),
                formatNs(static_cast<double>(dev.idleNs)).c_str(), static_cast<long long>(dev.gaps),
                formatNs(static_cast<double>(dev.largestGapNs)).c_str()),
            "no kernel tuning fixes an idle GPU: see what the host does in the gaps (API and NVTX rows above them); "
            "use CUDA graphs, fuse small kernels, batch more work per launch, make copies asynchronous from pinned "
            "memory and remove host synchronisations (.item(), .cpu(), cudaMemcpy from pageable memory)",
            std::nullopt, {}});
    }
    if (s.kernelLaunches > 0
        && static_cast<double>(s.tinyLaunches) >= o.tinyLaunchShare * static_cast<double>(s.kernelLaunches)) {
        out.push_back({FindingKind::ManyTinyKernels, ReadingStep::Timeline, "most kernels are tiny",
            format("%lld of %lld launches (%.0f%%) ran shorter than %s; they take %.0f%% of the kernel time",
                static_cast<long long>(s.tinyLaunches), static_cast<long long>(s.kernelLaunches),
                100.0 * static_cast<double>(s.tinyLaunches) / static_cast<double>(s.kernelLaunches),
                formatNs(o.tinyKernelNs).c_str(),
                s.kernelTimeNs > 0 ? 100.0 * static_cast<double>(s.tinyTimeNs) / static_cast<double>(s.kernelTimeNs)
                                   : 0.0),
            "launch overhead is a large share of their cost: fuse them or capture them in a CUDA graph", std::nullopt,
            {}});
    }
    return out;
}

} // namespace ws
