// SPDX-License-Identifier: MIT
#pragma once

#include <cuda.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ws::profiler {

// Puts the device's L2 cache in the state ncu's `--cache-control all` gives every replay pass:
// no dirty lines and none of the program's data. There is no driver call that flushes L2, so a
// kernel reads a zeroed scratch buffer of four times the L2 size: every dirty line is written
// back as it is evicted, and what stays is clean scratch data.
//
// The buffer and the kernel live in a context of their own on the same device (L2 is physical,
// shared by all contexts), so the buffer stays out of the program's checkpoint, and the switch to
// that context and back leaves the SMs' own caches cold as ncu's flush does. An empty kernel in the
// program's context then switches back before the range profiler starts: without it every start
// took ~13 ms longer on the H200 (22.4 instead of 9.8 ms per pass; the empty kernel costs 0.3 ms).
// Running the eviction in the program's context (`program`, an experiment) agreed with ncu on fewer
// metrics (docs/kernel-metrics.md).
class L2Eviction {
public:
    L2Eviction() = default;
    ~L2Eviction();
    L2Eviction(const L2Eviction&) = delete;
    L2Eviction& operator=(const L2Eviction&) = delete;

    // Creates the context, buffer and kernel for `device`; leaves the caller's current context
    // current. With `shared` set, uses that context instead of one of its own (an experiment:
    // saves the context switches, but the buffer is then checkpointed with the program's memory).
    // False with `error` set.
    bool prepare(CUdevice device, CUcontext shared, std::string& error);
    // After the eviction in its own context, run an empty kernel in `program` so the switch back
    // happens before the profiler starts. Call before prepare().
    void setReturnContext(CUcontext program) { m_returnCtx = program; }
    // How many blocks of 32 threads that empty kernel runs (1 unless set): one block switches one
    // SM back. An issue 18 experiment (WS_PROFILE_RETURN_BLOCKS): our `all` shows a small "misc"
    // stall that ncu's does not, and it went away with the eviction in the program's context, where
    // every SM ran the program's context last (docs/kernel-metrics.md, "What still differs").
    void setReturnBlocks(unsigned blocks) { m_returnBlocks = blocks > 0 ? blocks : 1; }
    // Regions of the program's memory to read into L2 after every eviction (from the program's
    // context, with the switch back), so a pass starts with them cached and clean: what a previous
    // launch of the kernel leaves there once its dirty lines are written back (`--cache-control
    // none`). Of each region only the last 2x L2 bytes are read: more would evict itself.
    void setWarmRegions(std::vector<std::pair<CUdeviceptr, size_t>> regions) { m_warm = std::move(regions); }
    // Runs the eviction kernel (then the warm-up reads) and waits for it.
    bool run(std::string& error);
    // Writes the last L2-sized stretch of the scratch buffer (zeros, as it holds) and waits: L2 is
    // then full of dirty lines, as after a launch that wrote that much, and the next kernel writes
    // them back as it evicts them. For the issue 18 experiment WS_PROFILE_NONE_DIRTY_PASSES.
    bool dirty(std::string& error);
    // Writes `bytes` of a scratch buffer of the program's context (allocated at the first call,
    // kept as long as the context: a checkpoint saved with it may still be restored) and waits:
    // the next kernel starts with that many dirty lines that are not its own. ncu's replay passes
    // start so (docs/kernel-metrics.md, "The dirty lines a pass starts with"). Needs
    // setReturnContext; `bytes` must not grow between calls.
    // `copyEngine`: the bytes come from host memory through a copy (no kernel runs on the SMs)
    // instead of a memset.
    bool dirtyInProgram(size_t bytes, bool copyEngine, std::string& error);

    size_t bufferBytes() const { return m_bytes; }
    size_t l2Bytes() const { return m_l2Bytes; }

private:
    void release();
    // Runs `work` in the eviction's own context and waits for it; `what` names it in the error.
    bool inOwnContext(const char* what, const std::function<CUresult()>& work, std::string& error);
    // The empty kernel in the program's context (and the warm regions' reads with `warm`).
    bool returnToProgram(bool warm, std::string& error);

    CUcontext m_ctx = nullptr;
    CUcontext m_returnCtx = nullptr;
    CUmodule m_returnModule = nullptr;
    CUfunction m_returnKernel = nullptr;
    CUdeviceptr m_returnSink = 0;
    unsigned m_returnBlocks = 1;
    CUdeviceptr m_programScratch = 0; // dirtyInProgram's
    size_t m_programScratchBytes = 0;
    std::vector<unsigned char> m_hostZeros; // dirtyInProgram's source with copyEngine
    std::vector<std::pair<CUdeviceptr, size_t>> m_warm;
    bool m_ownContext = true;
    CUmodule m_module = nullptr;
    CUfunction m_kernel = nullptr;
    CUdeviceptr m_buffer = 0;
    CUdeviceptr m_sink = 0;
    size_t m_bytes = 0;
    size_t m_l2Bytes = 0;
    unsigned m_blocks = 0;
};

} // namespace ws::profiler
