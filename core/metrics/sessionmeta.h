// SPDX-License-Identifier: MIT
#pragma once

// Keys of the session's meta and environment tables that collectors write and readers look up.
// Written once here so that a collector and the code reading its sessions cannot drift apart
// (docs/session-format.md describes the values).
namespace ws::metakey {

inline constexpr const char kRecorder[] = "recorder";        // which command wrote the session
inline constexpr const char kSessionKind[] = "session_kind"; // "profile" for warpscope-cli profile
inline constexpr const char kHostOnly[] = "host_only";       // "1": no usable CUDA driver/GPU, host side only
inline constexpr const char kGpuStatus[] = "gpu_status";
inline constexpr const char kCudaStatus[] = "cuda_status";
inline constexpr const char kTargetExit[] = "target_exit";
inline constexpr const char kDroppedRecords[] = "dropped_records";
inline constexpr const char kRecordTrace[] = "record.trace";
inline constexpr const char kRecordCaptureRange[] = "record.capture_range";
inline constexpr const char kRecordDurationS[] = "record.duration_s";
inline constexpr const char kRecordAllApi[] = "record.all_api";
inline constexpr const char kRecordGpuMetrics[] = "record.gpu_metrics";
inline constexpr const char kRecordNvtxTiming[] = "record.nvtx_timing";
inline constexpr const char kRecordInjectionLibrary[] = "record.injection_library";
inline constexpr const char kProfileRangeMode[] = "profile_range_mode";
inline constexpr const char kProfileSections[] = "profile_sections"; // the --section ids, comma-separated
inline constexpr const char kProfilePasses[] = "profile_passes";
inline constexpr const char kProfileCacheControl[] = "profile_cache_control";
inline constexpr const char kProfileReplayMode[] = "profile_replay_mode";
// A replay experiment the profiler ran instead of the default (its WS_PROFILE_* settings, e.g.
// "none_compare=first-as-saved"); absent for the default replay.
inline constexpr const char kProfileReplayExperiment[] = "profile_replay_experiment";
inline constexpr const char kKernelTimeSource[] = "kernel_time_source";
// Absolute path of the session this one was re-run from (warpscope-cli rerun, "Run again"): the
// previous attempt, so a chain A -> B -> C can be stepped through.
inline constexpr const char kPredecessor[] = "predecessor";

// Values of the keys above that readers test for.
inline constexpr const char kSessionKindProfile[] = "profile"; // kSessionKind of a profile session
// kProfileReplayMode of a PC-sampling run starts with this (no replay: one run per launch).
inline constexpr const char kReplayModePcSamplingPrefix[] = "none: PC sampling";
// kProfileReplayMode of our own replays: `all`'s, and `none`'s default (changed blocks restored).
inline constexpr const char kReplayModeRestoreEvict[]
    = "user replay (memory checkpoint restored and L2 evicted before every pass)";
inline constexpr const char kReplayModeChangedBlocks[]
    = "user replay (only the memory the kernel changed restored after every run; L2 as the previous run left it)";
// `none`'s default from 2026-12-04: as ncu's `none`, the first pass (duration, DRAM) starts without
// dirty lines in L2 and the later ones (SM counters) from what the pass before them left.
inline constexpr const char kReplayModeChangedBlocksAfterFirst[]
    = "user replay (only the memory the kernel changed restored; the first pass after that memory was compared, "
      "each later pass with L2 as the pass before it left it)";
// `none`'s default from 2026-12-04 (later that day): the same, and the first pass starts with about
// 2.2 MB of dirty lines that are not the kernel's, restores cover 4 MiB of an allocation around a
// change: the state warpscope-dirtyprobe measured ncu's passes start with (docs/kernel-metrics.md).
inline constexpr const char kReplayModeChangedBlocksAfterFirstDirty[]
    = "user replay (only the memory the kernel changed restored, 4 MiB around each change; the first pass after "
      "that memory was compared, with about 2.2 MB of dirty lines not the kernel's, as ncu's; each later pass "
      "with L2 as the pass before it left it)";

} // namespace ws::metakey

namespace ws::envkey {

inline constexpr const char kCommandLine[] = "command_line"; // joinCommand() of the program's argv
inline constexpr const char kTool[] = "tool";
inline constexpr const char kHost[] = "host";
inline constexpr const char kOs[] = "os";
inline constexpr const char kStartTime[] = "start_time";
inline constexpr const char kStartTimeUnixNs[] = "start_time_unix_ns";
inline constexpr const char kVariablePrefix[] = "env."; // env.<NAME>: the target's relevant variables
inline constexpr const char kProfileKernelFilter[] = "profile.kernel_filter";
inline constexpr const char kProfileLaunchSkip[] = "profile.launch_skip";
inline constexpr const char kProfileLaunchCount[] = "profile.launch_count";

} // namespace ws::envkey
