// SPDX-License-Identifier: MIT
#pragma once

// Names of the metrics code refers to (ncu's names, as the section files in resources/sections
// spell them). Code names a metric through these constants, never through a string literal of
// its own, and tst_metricnames checks that every one of them is shown by some section file, so
// that editing a section cannot leave a figure silently empty. The details panels' table rows
// are not here: they come from the `panel` blocks of the section files.
namespace ws::metric {

// Speed of light (SpeedOfLight section).
inline constexpr const char kDuration[] = "gpu__time_duration.sum";
inline constexpr const char kSmThroughput[] = "sm__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kMemoryThroughput[] = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kDramThroughput[] = "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1Throughput[] = "l1tex__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1ThroughputActive[] = "l1tex__throughput.avg.pct_of_peak_sustained_active";
inline constexpr const char kL2Throughput[] = "lts__throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kElapsedCycles[] = "gpc__cycles_elapsed.max";
inline constexpr const char kSmActiveCycles[] = "sm__cycles_active.avg";
inline constexpr const char kSmFrequency[] = "gpc__cycles_elapsed.avg.per_second";

// Compute workload (ComputeWorkloadAnalysis section).
inline constexpr const char kSmBusy[] = "sm__instruction_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kIssueSlotsBusy[] = "sm__inst_issued.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kExecutedIpcElapsed[] = "sm__inst_executed.avg.per_cycle_elapsed";
inline constexpr const char kExecutedIpcActive[] = "sm__inst_executed.avg.per_cycle_active";
inline constexpr const char kIssuedIpcActive[] = "sm__inst_issued.avg.per_cycle_active";
// Pipe utilization families: sm__pipe_<pipe>_cycles_active.* and sm__inst_executed_pipe_<pipe>.*.
inline constexpr const char kPipeCyclesPrefix[] = "sm__pipe_";
inline constexpr const char kPipeCyclesInfix[] = "_cycles_active";
inline constexpr const char kPipeInstructionsPrefix[] = "sm__inst_executed_pipe_";
// The submetric of every throughput the breakdowns and pipe charts show.
inline constexpr const char kElapsedPctSuffix[] = ".avg.pct_of_peak_sustained_elapsed";

// Memory workload (MemoryWorkloadAnalysis section).
inline constexpr const char kMemBusy[] = "gpu__compute_memory_access_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kMaxBandwidth[]
    = "gpu__compute_memory_request_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kMemPipesBusy[] = "sm__memory_throughput.avg.pct_of_peak_sustained_elapsed";
inline constexpr const char kL1HitRate[] = "l1tex__t_sector_hit_rate.pct";
inline constexpr const char kL2HitRate[] = "lts__t_sector_hit_rate.pct";
inline constexpr const char kDramBytes[] = "dram__bytes.sum";
inline constexpr const char kDramBytesRead[] = "dram__bytes_read.sum";
inline constexpr const char kDramBytesWrite[] = "dram__bytes_write.sum";
inline constexpr const char kSharedLoadBankConflicts[] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum";
inline constexpr const char kSharedStoreBankConflicts[] = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum";

// Launch statistics and occupancy (LaunchStats, Occupancy sections; launch__* are computed from
// the launch configuration).
inline constexpr const char kGridSize[] = "launch__grid_size";
inline constexpr const char kBlockSize[] = "launch__block_size";
inline constexpr const char kThreadCount[] = "launch__thread_count";
inline constexpr const char kClusterSize[] = "launch__cluster_size";
inline constexpr const char kSharedMemPerBlockDriver[] = "launch__shared_mem_per_block_driver";
inline constexpr const char kRegistersPerThread[] = "launch__registers_per_thread"; // allocated
inline constexpr const char kSharedMemPerBlockStatic[] = "launch__shared_mem_per_block_static";
inline constexpr const char kSharedMemPerBlockDynamic[] = "launch__shared_mem_per_block_dynamic";
inline constexpr const char kSmCount[] = "launch__sm_count";
inline constexpr const char kWavesPerSm[] = "launch__waves_per_multiprocessor";
inline constexpr const char kSharedMemConfigSize[] = "launch__shared_mem_config_size";
inline constexpr const char kOccupancyLimitRegisters[] = "launch__occupancy_limit_registers";
inline constexpr const char kOccupancyLimitSharedMem[] = "launch__occupancy_limit_shared_mem";
inline constexpr const char kOccupancyLimitWarps[] = "launch__occupancy_limit_warps";
inline constexpr const char kOccupancyLimitBlocks[] = "launch__occupancy_limit_blocks";
inline constexpr const char kTheoreticalOccupancy[] = "sm__maximum_warps_per_active_cycle_pct";
inline constexpr const char kTheoreticalWarpsPerSm[] = "sm__maximum_warps_avg_per_active_cycle";
inline constexpr const char kAchievedOccupancy[] = "sm__warps_active.avg.pct_of_peak_sustained_active";
inline constexpr const char kAchievedWarpsPerSm[] = "sm__warps_active.avg.per_cycle_active";

// Scheduler and warp states (SchedulerStats, WarpStateStats sections).
inline constexpr const char kSchedulerMaxWarps[] = "smsp__warps_active.avg.peak_sustained";
inline constexpr const char kSchedulerTheoreticalWarps[] = "smsp__maximum_warps_avg_per_active_cycle";
inline constexpr const char kSchedulerActiveWarps[] = "smsp__warps_active.avg.per_cycle_active";
inline constexpr const char kSchedulerEligibleWarps[] = "smsp__warps_eligible.avg.per_cycle_active";
inline constexpr const char kSchedulerIssuedWarps[] = "smsp__issue_active.avg.per_cycle_active";
inline constexpr const char kWarpCyclesPerIssued[] = "smsp__average_warp_latency_per_inst_issued.ratio";
inline constexpr const char kActiveThreadsPerWarp[] = "smsp__thread_inst_executed_per_inst_executed.ratio";
inline constexpr const char kNotPredicatedOffThreadsPerWarp[]
    = "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio";

// PC sampling (SourceCounters section): written by the profiler per sampled launch.
inline constexpr const char kPcSampleCount[] = "smsp__pcsamp_sample_count";
inline constexpr const char kPcDroppedSamples[] = "pcsamp__dropped_samples";
inline constexpr const char kPcIntervalCycles[] = "pcsamp__interval_cycles";

// Warpscope's values of the kernel record that ncu has no metric for: panel rows read them with
// `from=record` (KernelRecordValues); no profile collects them.
inline constexpr const char kRecordGrid[] = "record__grid";                               // text "(x, y, z)"
inline constexpr const char kRecordBlock[] = "record__block";                             // text "(x, y, z)"
inline constexpr const char kRecordCluster[] = "record__cluster";                         // text "(x, y, z)"
inline constexpr const char kRecordRegistersPerThread[] = "record__registers_per_thread"; // as compiled
inline constexpr const char kRecordLocalMemPerThread[] = "record__local_mem_per_thread";
inline constexpr const char kRecordOccupancyLimiter[] = "record__occupancy_limiter"; // text
inline constexpr const char* const kRecordOnly[] = {kRecordGrid, kRecordBlock, kRecordCluster,
    kRecordRegistersPerThread, kRecordLocalMemPerThread, kRecordOccupancyLimiter};

// Every full metric name above: each must be shown by some section file (tst_metricnames).
inline constexpr const char* const kNamed[]
    = {kDuration, kSmThroughput, kMemoryThroughput, kDramThroughput, kL1Throughput, kL1ThroughputActive, kL2Throughput,
        kElapsedCycles, kSmActiveCycles, kSmFrequency, kSmBusy, kIssueSlotsBusy, kExecutedIpcElapsed,
        kExecutedIpcActive, kIssuedIpcActive, kMemBusy, kMaxBandwidth, kMemPipesBusy, kL1HitRate, kL2HitRate,
        kDramBytes, kDramBytesRead, kDramBytesWrite, kSharedLoadBankConflicts, kSharedStoreBankConflicts, kGridSize,
        kBlockSize, kThreadCount, kClusterSize, kSharedMemPerBlockDriver, kRegistersPerThread, kSharedMemPerBlockStatic,
        kSharedMemPerBlockDynamic, kSmCount, kWavesPerSm, kSharedMemConfigSize, kOccupancyLimitRegisters,
        kOccupancyLimitSharedMem, kOccupancyLimitWarps, kOccupancyLimitBlocks, kTheoreticalOccupancy,
        kTheoreticalWarpsPerSm, kAchievedOccupancy, kAchievedWarpsPerSm, kSchedulerMaxWarps, kSchedulerTheoreticalWarps,
        kSchedulerActiveWarps, kSchedulerEligibleWarps, kSchedulerIssuedWarps, kWarpCyclesPerIssued,
        kActiveThreadsPerWarp, kNotPredicatedOffThreadsPerWarp, kPcSampleCount, kPcDroppedSamples, kPcIntervalCycles};

} // namespace ws::metric
