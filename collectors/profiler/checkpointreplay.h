// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>
#include <cupti_checkpoint.h>

#include "changedmemory.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ws::profiler {

class L2Eviction;
class RangeProfilerSession;

// Our own replay of one kernel launch, for `profile --cache-control all` (the range profiler in
// user-replay mode): the context's memory is checkpointed, and before every pass it is restored
// and L2 is evicted, so each pass starts from the program's memory and from a clean L2 (CUPTI's
// kernel replay restores memory but leaves L2 as its restore left it, dirty lines included).
// After the last pass the memory is restored once more, so the program's own launch, which runs
// when the launch callback returns, sees exactly what it would have seen unprofiled.
// WS_PROFILE_TRACE=1: the launch and every step of its replay with its result on stderr, for a
// launch whose replay fails or crashes (which step, after how many passes).
bool replayTracing();

class CheckpointReplay {
public:
    CheckpointReplay() = default;
    ~CheckpointReplay();
    CheckpointReplay(const CheckpointReplay&) = delete;
    CheckpointReplay& operator=(const CheckpointReplay&) = delete;

    // Replays `launch` (which must launch the kernel once, on the profiled context) for every
    // pass `session` needs; at most `maxPasses`. `passes` receives the passes run. False with
    // `error` set; the memory is restored in that case too when a checkpoint was taken.
    bool replay(CUcontext ctx, RangeProfilerSession& session, L2Eviction* eviction,
        const std::function<CUresult()>& launch, size_t maxPasses, size_t& passes, std::string& error);

    // For the next replay only: instead of restoring the whole checkpoint before every pass,
    // restore only what the kernel changes in `regions` (the launch's argument allocations;
    // ChangedMemory says why). `eviction`, if any, runs once after the copy is taken rather than
    // before every pass; the kernel runs twice unprofiled, and after every run the regions are
    // compared with the copy and the changed blocks put back, so each pass starts from what the
    // previous run left. The checkpoint still restores everything once after the last pass, for
    // the program's own launch. `--cache-control none` without CUPTI's kernel replay.
    void restoreOnlyChanged(std::vector<std::pair<CUdeviceptr, size_t>> regions)
    {
        m_diffRegions = std::move(regions);
        m_diff = true;
    }
    // With restoreOnlyChanged: how passes follow each other (the profiler's default for `none` is
    // SkipAfterFirstPass since 2026-12-04: docs/kernel-metrics.md). Compare: every pass is
    // followed by the compare and the restore of what changed. SkipWhenUnchanged: when the first
    // unprofiled run changed nothing (a kernel that rewrites the same values), the second run and
    // the passes follow each other with nothing between them, so each starts from the L2 the
    // previous run left, as consecutive launches of the program do; the memory is compared once
    // after the last pass.
    // An issue 18 experiment (WS_PROFILE_NONE_COMPARE=skip).
    // SkipAfterFirstPass: the same, except that the second unprofiled run is compared too, so the
    // first pass starts from the compared state (as every pass of Compare does) and only the later
    // passes start from what the pass before them left, its own dirty lines included. ncu's `none`
    // takes its duration and DRAM counters from a pass without dirty lines and its SM counters
    // from passes with them (docs/kernel-metrics.md, "What ncu's passes see"); our first pass holds
    // the former. WS_PROFILE_NONE_COMPARE=after-first.
    enum class Between { Compare, SkipWhenUnchanged, SkipAfterFirstPass };
    void setBetweenPasses(Between b) { m_between = b; }
    // With restoreOnlyChanged: what the first pass starts from. Settled (the default): two
    // unprofiled runs, each followed by the compare and restore, after the copies were evicted, so
    // pass 1 starts from the state every later pass starts from. AsSaved: pass 1 follows the save
    // directly, with the save's dirty lines in L2, as ncu's first pass follows its own save (its
    // one-pass `none` runs write the previous launch's dirty lines back during the kernel:
    // docs/evidence/2026-12-03-ncu-elapsed); later passes as before.
    // An issue 18 experiment (WS_PROFILE_NONE_COMPARE=first-as-saved).
    enum class First { Settled, AsSaved };
    void setFirstPass(First f) { m_first = f; }
    // With restoreOnlyChanged: the passes (0-based) that start with L2 full of dirty lines
    // (L2Eviction::dirty after that pass's compare and restore), as the pass ncu takes its SM
    // counters from in `none` does (docs/kernel-metrics.md, "What ncu's passes see"). Swept pass
    // by pass, it finds which of our passes holds a counter (scripts/device/jobs/pass-sweep.sh).
    // An issue 18 experiment (WS_PROFILE_NONE_DIRTY_PASSES).
    void setDirtyPasses(std::vector<size_t> passes) { m_dirtyPasses = std::move(passes); }
    // Every pass, in both replays, starts with `bytes` of dirty lines that are not the kernel's
    // (L2Eviction::dirtyInProgram, right before the profiler starts the pass), as ncu's passes do
    // (warpscope-dirtyprobe measured it: docs/kernel-metrics.md). 0: none.
    // An issue 18 experiment (WS_PROFILE_PASS_DIRTY_KB).
    // `firstOnly`: before the first pass only (the one that holds the duration and DRAM counters);
    // `copyEngine`: see L2Eviction::dirtyInProgram.
    void setPassStartDirtyBytes(size_t bytes, bool firstOnly = false, bool copyEngine = false)
    {
        m_passStartDirtyBytes = bytes;
        m_passStartDirtyFirstOnly = firstOnly;
        m_passStartDirtyCopy = copyEngine;
    }
    void setCompare(ChangedMemory::Compare c) { m_changed.setCompare(c); }
    void setRestoreGranule(size_t bytes) { m_changed.setRestoreGranule(bytes); }
    // Of the last replay: the most bytes one run changed, and the bytes watched.
    size_t lastChangedBytes() const { return m_lastChangedBytes; }
    size_t lastWatchedBytes() const { return m_lastWatchedBytes; }

    // Wall time spent in each step, summed over every replayed launch (written to the result
    // file: where the cost of a replay goes).
    struct StepTimes {
        double saveMs = 0, restoreMs = 0, evictMs = 0, startMs = 0, launchMs = 0, stopMs = 0;
        size_t passes = 0;
    };
    const StepTimes& times() const { return m_times; }

    // Frees the checkpoint's copies (device and host memory), e.g. when the context goes away.
    void release();

private:
    // Saved again (allowOverwrite) for every launch: CUPTI takes the context's allocations as
    // they are at each save, so allocations and frees between launches are followed (tst_profile_gpu
    // allocationsBetweenProfiledLaunchesOnGpu).
    NV::Cupti::Checkpoint::CUpti_Checkpoint m_checkpoint {};
    bool m_initialized = false;
    bool m_diff = false;
    Between m_between = Between::Compare;
    First m_first = First::Settled;
    std::vector<size_t> m_dirtyPasses;
    size_t m_passStartDirtyBytes = 0;
    bool m_passStartDirtyFirstOnly = false;
    bool m_passStartDirtyCopy = false;
    std::vector<std::pair<CUdeviceptr, size_t>> m_diffRegions;
    ChangedMemory m_changed;
    size_t m_lastChangedBytes = 0;
    size_t m_lastWatchedBytes = 0;
    StepTimes m_times;
};

} // namespace ws::profiler
