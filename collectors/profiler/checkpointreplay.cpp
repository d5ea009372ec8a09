// SPDX-License-Identifier: MIT
#include "checkpointreplay.h"

#include "cuptistatus.h"
#include "l2eviction.h"
#include "rangeprofilersession.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace ws::profiler {

using namespace NV::Cupti::Checkpoint;

namespace {

// Adds the time from construction to destruction to `into`.
class StepTimer {
public:
    explicit StepTimer(double& into)
        : m_into(into)
        , m_start(std::chrono::steady_clock::now())
    {
    }
    ~StepTimer()
    {
        m_into += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    }
    StepTimer(const StepTimer&) = delete;
    StepTimer& operator=(const StepTimer&) = delete;

private:
    double& m_into;
    std::chrono::steady_clock::time_point m_start;
};

void trace(const char* step, size_t pass, int result)
{
    if (replayTracing())
        std::fprintf(stderr, "warpscope-profile: trace: pass %zu: %s -> %d\n", pass, step, result);
}

} // namespace

bool replayTracing()
{
    static const bool on = [] {
        const char* v = std::getenv("WS_PROFILE_TRACE");
        return v && *v && *v != '0';
    }();
    return on;
}

CheckpointReplay::~CheckpointReplay()
{
    release();
}

void CheckpointReplay::release()
{
    if (m_initialized)
        cuptiCheckpointFree(&m_checkpoint);
    m_initialized = false;
}

bool CheckpointReplay::replay(CUcontext ctx, RangeProfilerSession& session, L2Eviction* eviction,
    const std::function<CUresult()>& launch, size_t maxPasses, size_t& passes, std::string& error)
{
    passes = 0;
    // The launch depends on everything queued before it; the checkpoint must see that work done.
    CUresult r = cuCtxSynchronize();
    if (r != CUDA_SUCCESS) {
        error = driverStatus("cuCtxSynchronize before the checkpoint", r);
        return false;
    }
    if (!m_initialized) {
        m_checkpoint = {};
        m_checkpoint.structSize = CUpti_Checkpoint_STRUCT_SIZE;
        m_checkpoint.ctx = ctx;
        m_checkpoint.allowOverwrite = 1;
        // CUPTI_CHECKPOINT_OPT_TRANSFER (restore only changed blocks) failed its first restore on
        // the H200 with CUPTI_ERROR_UNKNOWN (again on 2026-12-02, every kernel of the fidelity
        // suite), and a copy kept in host memory only (reserveDeviceMB = -1) is refused with
        // CUPTI_ERROR_INVALID_PARAMETER: every pass restores everything, from device memory.
        m_checkpoint.optimizations = CUPTI_CHECKPOINT_OPT_NONE;
    }
    CUptiResult st = CUPTI_SUCCESS;
    {
        StepTimer t(m_times.saveMs);
        st = cuptiCheckpointSave(&m_checkpoint);
    }
    trace("cuptiCheckpointSave", 0, st);
    if (st != CUPTI_SUCCESS) {
        error = "cuptiCheckpointSave: " + cuptiStatus(st);
        return false;
    }
    m_initialized = true;
    // Nothing that exists now may be freed before the final restore (ChangedMemory::clear()): the
    // free memory at both ends shows what came and went in between.
    size_t freeBytes = 0, totalBytes = 0;
    if (replayTracing() && cuMemGetInfo(&freeBytes, &totalBytes) == CUDA_SUCCESS)
        trace("device memory free after the save, MiB", 0, static_cast<int>(freeBytes >> 20));

    bool ok = true;
    const bool diff = m_diff;
    m_diff = false;
    if (diff) {
        m_lastChangedBytes = m_lastWatchedBytes = 0;
        {
            StepTimer t(m_times.saveMs);
            ok = m_changed.save(m_diffRegions, error);
            m_diffRegions.clear();
        }
        m_lastWatchedBytes = m_changed.savedBytes();
        // The copies just written are dirty in L2: evict once, so no pass writes them back.
        if (ok && eviction && m_first == First::Settled) {
            StepTimer t(m_times.evictMs);
            ok = eviction->run(error);
        }
        // Two unprofiled runs, each followed by the compare and restore every pass is followed
        // by: pass 1 then starts from the same kind of state as every later pass.
        for (int warm = 0; ok && warm < 2 && m_first == First::Settled; ++warm) {
            {
                StepTimer t(m_times.launchMs);
                r = launch();
                trace("unprofiled launch", 0, r);
                if (r == CUDA_SUCCESS)
                    r = cuCtxSynchronize();
                trace("unprofiled launch: synchronize", 0, r);
            }
            if (r != CUDA_SUCCESS) {
                error = driverStatus("replayed launch (unprofiled)", r);
                ok = false;
                break;
            }
            // Back to back: the first run changed nothing, so nothing comes between the second
            // run and the first pass either (the compare after the last pass checks that).
            if (warm == 1 && m_between == Between::SkipWhenUnchanged && m_lastChangedBytes == 0)
                break;
            StepTimer t(m_times.restoreMs);
            ok = m_changed.findChanged(error) && m_changed.restoreChanged(error);
            m_lastChangedBytes = std::max(m_lastChangedBytes, m_changed.changedBytes());
        }
    }
    // Nothing changed in the unprofiled runs: the passes follow each other directly (after the
    // first with SkipAfterFirstPass, whose second run was compared, so the first pass was not
    // back to back).
    const bool backToBack = diff && m_between != Between::Compare && m_lastChangedBytes == 0;
    bool allSubmitted = false;
    while (ok && !allSubmitted) {
        if (passes >= maxPasses) {
            error = "the range profiler wanted more than " + std::to_string(maxPasses) + " passes";
            ok = false;
            break;
        }
        if (passes > 0 && !diff) {
            StepTimer t(m_times.restoreMs);
            st = cuptiCheckpointRestore(&m_checkpoint);
            trace("cuptiCheckpointRestore", passes, st);
            if (st != CUPTI_SUCCESS) {
                error = "cuptiCheckpointRestore: " + cuptiStatus(st);
                ok = false;
                break;
            }
        }
        if (eviction && !diff) {
            StepTimer t(m_times.evictMs);
            if (!eviction->run(error)) {
                ok = false;
                break;
            }
        }
        if (eviction && diff && std::find(m_dirtyPasses.begin(), m_dirtyPasses.end(), passes) != m_dirtyPasses.end()) {
            StepTimer t(m_times.evictMs);
            if (!eviction->dirty(error)) {
                ok = false;
                break;
            }
        }
        if (eviction && m_passStartDirtyBytes && (passes == 0 || !m_passStartDirtyFirstOnly)) {
            StepTimer t(m_times.evictMs);
            if (!eviction->dirtyInProgram(m_passStartDirtyBytes, m_passStartDirtyCopy, error)) {
                ok = false;
                break;
            }
        }
        {
            StepTimer t(m_times.startMs);
            if (!session.start(error)) {
                ok = false;
                break;
            }
        }
        {
            StepTimer t(m_times.launchMs);
            r = launch();
            trace("launch", passes, r);
            if (r == CUDA_SUCCESS)
                r = cuCtxSynchronize();
            trace("launch: synchronize", passes, r);
        }
        if (r != CUDA_SUCCESS)
            error = driverStatus("replayed launch", r);
        // Stop even after a failed launch, so the profiler is not left inside a pass.
        std::string stopError;
        {
            StepTimer t(m_times.stopMs);
            if (!session.stopPass(allSubmitted, stopError) && r == CUDA_SUCCESS)
                error = stopError;
        }
        ok = r == CUDA_SUCCESS && stopError.empty();
        if (ok && diff && (!backToBack || allSubmitted)) {
            StepTimer t(m_times.restoreMs);
            ok = m_changed.findChanged(error) && m_changed.restoreChanged(error);
            m_lastChangedBytes = std::max(m_lastChangedBytes, m_changed.changedBytes());
        }
        ++passes;
        ++m_times.passes;
    }
    // The program's own launch follows: give it the memory as it was before the first pass.
    trace(ok ? "passes done; final cuptiCheckpointRestore next" : "failed; final cuptiCheckpointRestore next", passes,
        ok ? 0 : -1);
    if (replayTracing() && cuMemGetInfo(&freeBytes, &totalBytes) == CUDA_SUCCESS)
        trace("device memory free before the final restore, MiB", passes, static_cast<int>(freeBytes >> 20));
    {
        StepTimer t(m_times.restoreMs);
        st = cuptiCheckpointRestore(&m_checkpoint);
    }
    if (st != CUPTI_SUCCESS && ok) {
        error = "cuptiCheckpointRestore: " + cuptiStatus(st);
        ok = false;
    }
    m_changed.clear();
    return ok;
}

} // namespace ws::profiler
