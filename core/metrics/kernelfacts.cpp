// SPDX-License-Identifier: MIT
#include "core/metrics/kernelfacts.h"

#include "core/util/titlewords.h"

#include <algorithm>
#include <cctype>

namespace ws {

namespace {

constexpr std::string_view kStallPrefix = "smsp__average_warps_issue_stalled_";
constexpr std::string_view kStallSuffix = "_per_issue_active.ratio";

std::optional<double> sum(std::initializer_list<std::optional<double>> parts)
{
    std::optional<double> out;
    for (const auto& p : parts) {
        if (p)
            out = out.value_or(0) + *p;
    }
    return out;
}

std::optional<double> ratio(const std::optional<double>& a, const std::optional<double>& b)
{
    if (!a || !b || *b <= 0)
        return std::nullopt;
    return *a / *b;
}

// A metric converted to its base unit (ns, bytes, bytes/s, Hz).
std::optional<double> base(const KernelMetrics& m, std::string_view name)
{
    const auto v = m.get(name);
    if (!v)
        return std::nullopt;
    return toBaseUnit(*v, m.unit(name));
}

// Work from ncu's roofline-section form: thread instructions per elapsed cycle (summed over
// SMSPs) times the SMSP clock gives a rate; times the duration, a count.
std::optional<double> perCycleCount(const KernelMetrics& m, const std::string& counter,
    const std::optional<double>& clockHz, const std::optional<double>& durationNs)
{
    const auto perCycle = m.get(counter + ".sum.per_cycle_elapsed");
    if (!perCycle || !clockHz || !durationNs)
        return std::nullopt;
    return *perCycle * *clockHz * *durationNs * 1e-9;
}

std::optional<double> instructionCount(const KernelMetrics& m, const std::string& op,
    const std::optional<double>& clockHz, const std::optional<double>& durationNs)
{
    const std::string counter = "smsp__sass_thread_inst_executed_op_" + op + "_pred_on";
    if (auto v = m.get(counter + ".sum"))
        return v;
    return perCycleCount(m, counter, clockHz, durationNs);
}

// FLOP of one precision from add/mul/fma instruction counts with their FLOP per instruction.
std::optional<double> flopOf(const KernelMetrics& m, const char* add, const char* mul, const char* fma,
    double perAddMul, double perFma, const std::optional<double>& clockHz, const std::optional<double>& durationNs)
{
    const auto a = instructionCount(m, add, clockHz, durationNs);
    const auto b = instructionCount(m, mul, clockHz, durationNs);
    const auto c = instructionCount(m, fma, clockHz, durationNs);
    if (!a && !b && !c)
        return std::nullopt;
    return perAddMul * (a.value_or(0) + b.value_or(0)) + perFma * c.value_or(0);
}

std::optional<double> bytesOf(
    const KernelMetrics& m, const std::string& counter, const std::optional<double>& durationNs)
{
    if (auto v = base(m, counter + ".sum"))
        return v;
    const auto rate = base(m, counter + ".sum.per_second");
    if (rate && durationNs)
        return *rate * *durationNs * 1e-9;
    return std::nullopt;
}

} // namespace

bool FlopCounts::any() const
{
    return fp64 || fp32 || fp16 || tensorFp16 || tensorBf16 || tensorTf32 || tensorFp8 || tensorFp64 || tensorAll;
}

double FlopCounts::total() const
{
    double t = fp64.value_or(0) + fp32.value_or(0) + fp16.value_or(0);
    const double perType = tensorFp16.value_or(0) + tensorBf16.value_or(0) + tensorTf32.value_or(0)
        + tensorFp8.value_or(0) + tensorFp64.value_or(0);
    // The total counter covers the per-type ones; never add both.
    t += std::max(perType, tensorAll.value_or(0));
    return t;
}

std::string FlopCounts::dominant() const
{
    const std::pair<const char*, std::optional<double>> all[] = {
        {"fp64", fp64},
        {"fp32", fp32},
        {"fp16", fp16},
        {"tensor_fp16", tensorFp16},
        {"tensor_bf16", tensorBf16},
        {"tensor_tf32", tensorTf32},
        {"tensor_fp8", tensorFp8},
        {"tensor_fp64", tensorFp64},
    };
    const char* best = "";
    double most = 0;
    for (const auto& [name, v] : all) {
        if (v && *v > most) {
            most = *v;
            best = name;
        }
    }
    const double perType = tensorFp16.value_or(0) + tensorBf16.value_or(0) + tensorTf32.value_or(0)
        + tensorFp8.value_or(0) + tensorFp64.value_or(0);
    if (perType == 0 && tensorAll && *tensorAll > most)
        return "tensor";
    return best;
}

std::optional<double> KernelFacts::globalLoadSectorsPerRequest() const
{
    return ratio(globalLoadSectors, globalLoadRequests);
}

std::optional<double> KernelFacts::globalStoreSectorsPerRequest() const
{
    return ratio(globalStoreSectors, globalStoreRequests);
}

std::optional<double> KernelFacts::perSecond(const std::optional<double>& amount) const
{
    if (!amount || !durationNs || *durationNs <= 0)
        return std::nullopt;
    return *amount / (*durationNs * 1e-9);
}

double KernelFacts::stallTotal() const
{
    double t = 0;
    for (const StallReason& s : stalls) {
        if (s.key != "selected")
            t += s.cyclesPerIssue;
    }
    return t;
}

std::string stallLabel(const std::string& key)
{
    static const std::pair<std::string_view, std::string_view> kSpecial[] = {{"mio_throttle", "MIO Throttle"},
        {"lg_throttle", "LG Throttle"}, {"imc_miss", "IMC Miss"}, {"gmma", "GMMA"}, {"tex_throttle", "TEX Throttle"}};
    for (const auto& [k, label] : kSpecial) {
        if (k == key)
            return std::string(label);
    }
    return titleWords(key);
}

KernelFacts kernelFacts(const KernelMetrics& m, double tracedDurationNs)
{
    KernelFacts f;
    f.durationNs = base(m, "gpu__time_duration.sum");
    if (!f.durationNs && tracedDurationNs > 0)
        f.durationNs = tracedDurationNs;

    f.gridBlocks = m.get("launch__grid_size");
    f.blockThreads = m.get("launch__block_size");
    f.clusterBlocks = m.get("launch__cluster_size");
    f.registersPerThread = m.get("launch__registers_per_thread");
    f.staticSmemBytes = base(m, "launch__shared_mem_per_block_static");
    f.dynamicSmemBytes = base(m, "launch__shared_mem_per_block_dynamic");
    f.smCount = m.get("launch__sm_count");
    f.wavesPerSm = m.get("launch__waves_per_multiprocessor");

    f.theoreticalOccupancyPct = m.get("sm__maximum_warps_per_active_cycle_pct");
    f.achievedOccupancyPct = m.get("sm__warps_active.avg.pct_of_peak_sustained_active");
    f.theoreticalWarpsPerSm = m.get("sm__maximum_warps_avg_per_active_cycle");
    f.achievedWarpsPerSm = m.get("sm__warps_active.avg.per_cycle_active");
    f.limitRegisters = m.get("launch__occupancy_limit_registers");
    f.limitSharedMem = m.get("launch__occupancy_limit_shared_mem");
    f.limitWarps = m.get("launch__occupancy_limit_warps");
    f.limitBlocks = m.get("launch__occupancy_limit_blocks");
    f.limitBarriers = m.get("launch__occupancy_limit_barriers");

    f.smThroughputPct = m.get("sm__throughput.avg.pct_of_peak_sustained_elapsed");
    f.memThroughputPct = m.get("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    f.dramThroughputPct = m.get("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed");
    f.l1ThroughputPct = m.get("l1tex__throughput.avg.pct_of_peak_sustained_active");
    f.l2ThroughputPct = m.get("lts__throughput.avg.pct_of_peak_sustained_elapsed");

    f.maxWarpsPerScheduler = m.get("smsp__warps_active.avg.peak_sustained");
    f.theoreticalWarpsPerScheduler = m.get("smsp__maximum_warps_avg_per_active_cycle");
    f.activeWarpsPerScheduler = m.get("smsp__warps_active.avg.per_cycle_active");
    f.eligibleWarpsPerScheduler = m.get("smsp__warps_eligible.avg.per_cycle_active");
    f.issuedWarpsPerScheduler = m.get("smsp__issue_active.avg.per_cycle_active");
    f.noEligiblePct = m.get("smsp__issue_inst0.avg.pct_of_peak_sustained_active");
    f.issueActivePct = m.get("smsp__issue_active.avg.pct_of_peak_sustained_active");
    if (!f.noEligiblePct && f.issueActivePct)
        f.noEligiblePct = 100.0 - *f.issueActivePct;
    if (!f.issueActivePct && f.noEligiblePct)
        f.issueActivePct = 100.0 - *f.noEligiblePct;
    f.issueSlotsBusyPct = m.get("sm__inst_issued.avg.pct_of_peak_sustained_elapsed");

    f.warpCyclesPerIssued = m.get("smsp__average_warp_latency_per_inst_issued.ratio");
    for (const auto& [name, entry] : m.all()) {
        const std::string_view n = name;
        if (n.size() > kStallPrefix.size() + kStallSuffix.size() && n.starts_with(kStallPrefix)
            && n.ends_with(kStallSuffix)) {
            std::string key(n.substr(kStallPrefix.size(), n.size() - kStallPrefix.size() - kStallSuffix.size()));
            f.stalls.push_back({key, stallLabel(key), entry.value});
        }
    }
    std::stable_sort(f.stalls.begin(), f.stalls.end(),
        [](const StallReason& a, const StallReason& b) { return a.cyclesPerIssue > b.cyclesPerIssue; });

    // FLOP: Warpscope's derived totals when the profile computed them, else from the
    // instruction counters (per launch, or per elapsed cycle as ncu's roofline section
    // collects them).
    const auto clock = base(m, "smsp__cycles_elapsed.avg.per_second");
    f.flop.fp32 = m.get("derived__fp32_flop");
    if (!f.flop.fp32)
        f.flop.fp32 = flopOf(m, "fadd", "fmul", "ffma", 1, 2, clock, f.durationNs);
    f.flop.fp64 = m.get("derived__fp64_flop");
    if (!f.flop.fp64)
        f.flop.fp64 = flopOf(m, "dadd", "dmul", "dfma", 1, 2, clock, f.durationNs);
    f.flop.fp16 = m.get("derived__fp16_flop");
    if (!f.flop.fp16)
        f.flop.fp16 = flopOf(m, "hadd", "hmul", "hfma", 2, 4, clock, f.durationNs);
    f.flop.tensorFp16 = m.get("sm__ops_path_tensor_src_fp16.sum");
    f.flop.tensorBf16 = m.get("sm__ops_path_tensor_src_bf16_dst_fp32.sum");
    f.flop.tensorTf32 = m.get("sm__ops_path_tensor_src_tf32_dst_fp32.sum");
    f.flop.tensorFp8 = m.get("sm__ops_path_tensor_src_fp8.sum");
    f.flop.tensorFp64 = m.get("sm__ops_path_tensor_src_fp64.sum");
    f.flop.tensorAll = m.get("derived__tensor_flop");

    f.dramBytes = bytesOf(m, "dram__bytes", f.durationNs);
    f.dramReadBytes = bytesOf(m, "dram__bytes_read", f.durationNs);
    f.dramWriteBytes = bytesOf(m, "dram__bytes_write", f.durationNs);
    if (!f.dramBytes)
        f.dramBytes = sum({f.dramReadBytes, f.dramWriteBytes});
    f.l2Bytes = bytesOf(m, "lts__t_bytes", f.durationNs);
    f.l1Bytes = bytesOf(m, "l1tex__t_bytes", f.durationNs);
    f.l1HitRatePct = m.get("l1tex__t_sector_hit_rate.pct");
    f.l2HitRatePct = m.get("lts__t_sector_hit_rate.pct");
    f.globalLoadRequests = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum");
    f.globalLoadSectors = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    f.globalStoreRequests = m.get("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum");
    f.globalStoreSectors = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum");
    return f;
}

} // namespace ws
