// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace ws::profiler {

// The part of a launch's memory that its kernel changes, kept so that replay passes can put back
// only that part (an experiment for `profile --cache-control none`, issue 18).
//
// CUPTI's kernel replay restores every allocation of the context before every pass: the copy
// leaves L2 full of dirty lines the next pass writes back (about 20 MB more DRAM writes than
// ncu on the streaming kernels of the fidelity suite) and repeats GBs of copies per pass. ncu's
// `none` passes instead see what the previous pass left (an L2-resident buffer stays resident,
// clean). Restoring only the bytes the kernel changed keeps that state: a kernel that rewrites
// the same values needs no restore at all, an accumulating one gets back just its outputs.
//
// Only the allocations the launch's arguments point to are watched (launchBuffers): memory
// reached through pointers stored in device memory is not, so the caller keeps a whole-context
// checkpoint for the program's own launch.
class ChangedMemory {
public:
    // Copies `regions` (device allocations) to host memory. False with `error` set.
    bool save(std::vector<std::pair<CUdeviceptr, size_t>> regions, std::string& error);
    // Compares the regions with the saved copy (after the kernel ran once) and keeps the blocks
    // that differ. False with `error` set.
    bool findChanged(std::string& error);
    // Writes the saved bytes back over the changed blocks. False with `error` set.
    bool restoreChanged(std::string& error) const;

    size_t savedBytes() const { return m_savedBytes; }
    size_t changedBytes() const;
    // Frees the host copies (they can be GBs).
    void clear();

private:
    struct Region {
        CUdeviceptr base = 0;
        size_t bytes = 0;
        std::vector<unsigned char> saved;
    };
    struct Range {
        CUdeviceptr device = 0;
        const unsigned char* host = nullptr;
        size_t bytes = 0;
    };
    std::vector<Region> m_regions;
    std::vector<Range> m_changed;
    size_t m_savedBytes = 0;
};

} // namespace ws::profiler
