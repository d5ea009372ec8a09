// SPDX-License-Identifier: MIT
#pragma once

#include "restorespans.h"

#include <cuda.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ws::profiler {

// The part of a launch's memory that its kernel changes, kept so that replay passes put back only
// that part (`profile --cache-control none`, issue 18).
//
// CUPTI's kernel replay restores every allocation of the context before every pass: the copy
// leaves L2 full of dirty lines that the next pass writes back (about 20 MB more DRAM writes than
// ncu on the streaming kernels of the fidelity suite) and repeats GBs of copies per pass. ncu's
// `none` passes instead see what the previous pass left, an L2-resident buffer still resident.
// Here the memory is copied once on the device, and after every run a kernel compares it with the
// copy block by block and only the blocks that differ are copied back: a kernel that rewrites the
// same values restores nothing, an accumulating one just its outputs. The compare reads both
// copies, as a device-side save/compare/restore does; run on the H200 that way, `none` agreed
// with ncu on more values than a compare through host memory, which left dirty lines of the
// previous pass in L2 (docs/evidence/2026-12-02-diff-fidelity).
//
// Only the allocations the launch's arguments point to are watched (launchBuffers): memory
// reached through pointers stored in device memory is not, so the caller keeps a whole-context
// checkpoint for the program's own launch.
class ChangedMemory {
public:
    // How the compare reads memory. Cached: through L2 like any load (the default). EvictFirst:
    // with an L2 evict-first policy on both reads (Ampere and newer), so the compare stream
    // replaces its own lines rather than the previous pass's: an issue 18 experiment
    // (WS_PROFILE_NONE_COMPARE=ef).
    enum class Compare { Cached, EvictFirst };

    ChangedMemory() = default;
    ~ChangedMemory();
    ChangedMemory(const ChangedMemory&) = delete;
    ChangedMemory& operator=(const ChangedMemory&) = delete;

    // Copies `regions` (device allocations of the current context) on the device. False with
    // `error` set.
    bool save(const std::vector<std::pair<CUdeviceptr, size_t>>& regions, std::string& error);
    // Compares the regions with the copy (after the kernel ran) and notes the blocks that differ.
    bool findChanged(std::string& error);
    // Copies the saved bytes back over the blocks findChanged() found, each widened to the
    // restore granule around it (widenToGranules: aligned from its allocation's start, clipped to
    // the allocation).
    bool restoreChanged(std::string& error) const;
    // The granule restoreChanged puts back around a changed block: the compare's 64 KiB block
    // unless set. ncu's `none` restores about 2 MiB around a 32 KiB change in a 2 MiB allocation
    // and 4 MiB in a 256 MiB one (warpscope-dirtyprobe, docs/kernel-metrics.md), and those bytes
    // start the next pass as dirty lines: KernelProfiler sets 4 MiB for `none`
    // (WS_PROFILE_NONE_RESTORE_KB overrides it).
    void setRestoreGranule(size_t bytes) { m_granule = bytes; }

    // Takes effect at the next save().
    void setCompare(Compare c) { m_compare = c; }
    size_t savedBytes() const { return m_savedBytes; }
    size_t changedBytes() const;
    // Frees the copies (they can be GBs) and flags outgrown since the last clear(); the compare
    // kernel stays loaded. Call it only after the checkpoint's final restore: nothing that
    // existed when the checkpoint was saved may be freed before the checkpoint is restored (CUPTI's
    // restore writes into every allocation it saved, and faulted on the H200 when the outgrown flags
    // had been freed in between, 2026-12-03).
    void clear();

private:
    struct Region {
        CUdeviceptr base = 0;
        CUdeviceptr copy = 0;
        size_t bytes = 0;
    };
    bool loadKernel(std::string& error);
    // The copies only (allocated after the checkpoint was saved, so free to go at any time).
    void freeCopies();

    size_t m_granule = 0; // 0: the compare's block
    Compare m_compare = Compare::Cached;
    Compare m_loaded = Compare::Cached;
    CUcontext m_ctx = nullptr; // where the kernel is loaded
    CUmodule m_module = nullptr;
    CUfunction m_kernel = nullptr;
    CUdeviceptr m_flags = 0;
    size_t m_flagCount = 0;
    std::vector<CUdeviceptr> m_outgrownFlags; // freed by clear()
    std::vector<Region> m_regions;
    std::vector<RestoreSpan> m_changed; // regions' blocks that differ from their copies
    size_t m_savedBytes = 0;
};

} // namespace ws::profiler
