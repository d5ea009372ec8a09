// SPDX-License-Identifier: MIT
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

namespace ws::profiler {

// Whether a CUDA driver call (its name, as cuptiGetCallbackName gives it) writes, frees or
// allocates memory a replayed kernel may touch: copies (reads too: during a replay they would
// read a pass's results, not the program's), memsets, stream memory writes, prefetches and
// discards of managed memory, allocations and frees of every kind. Names, not callback ids, so a
// new variant of a call (`_v2`, `_ptsz`, `Batch`) is covered without a list to keep up.
inline bool isMemoryWrite(std::string_view call)
{
    for (std::string_view prefix : {"cuMemcpy", "cuMemset", "cuMemAlloc", "cuMemFree", "cuMemCreate", "cuMemRelease",
             "cuMemMap", "cuMemUnmap", "cuMemAddressFree", "cuMemPoolTrimTo", "cuMemPoolDestroy", "cuMemPrefetch",
             "cuMemDiscard", "cuStreamWriteValue", "cuStreamBatchMemOp", "cuArrayCreate", "cuArray3DCreate",
             "cuArrayDestroy", "cuMipmappedArrayCreate", "cuMipmappedArrayDestroy"}) {
        if (call.starts_with(prefix))
            return true;
    }
    return false;
}

// Keeps the program's other threads from changing memory while a launch is replayed. A replay
// checkpoints the context's memory, runs the kernel once per pass and restores the checkpoint for
// the program's own launch: a copy another thread makes in between is overwritten by that
// restore, and a free faults inside it (docs/kernel-metrics.md). ncu serializes the program's
// calls the same way. The launch callbacks are already serialized by the profiler's lock; this
// gate covers the memory calls (isMemoryWrite), which take no lock of the profiler's.
//
// A replay waits for the memory calls in flight to end, and memory calls that arrive while it
// waits or runs wait for it (no replay waits behind an endless stream of copies). The replaying
// thread's own calls pass. A replay that cannot get in within `patience` runs without the gate
// (as before it existed) and says so: the driver might hold something a waiting copy needs. For
// the same reason a memory call waits for a replay at most `callPatience` (a long replay of a
// slow kernel takes seconds, not a minute) and then goes on, counted in lateCalls(): it must not
// take any lock of the profiler's to say so, since the replaying thread holds them.
class ReplayGate {
public:
    explicit ReplayGate(std::chrono::milliseconds patience = std::chrono::seconds(10),
        std::chrono::milliseconds callPatience = std::chrono::seconds(60))
        : m_patience(patience)
        , m_callPatience(callPatience)
    {
    }

    // The API-enter and API-exit callbacks of a memory call. Every enter must be followed by its
    // exit on the same thread (CUPTI calls both); an exit without an enter is ignored.
    void memoryCallEnter()
    {
        bool take = !holdsCall();
        if (take) {
            std::unique_lock lock(m_mutex);
            if (ownedBy(std::this_thread::get_id())) {
                take = false; // the replay's own call
            } else {
                take = m_changed.wait_for(
                    lock, m_callPatience, [this] { return !m_replaying && m_waitingReplays == 0; });
                ++(take ? m_calls : m_lateCalls);
            }
        }
        callsOfThisThread().push_back(take);
    }
    // Memory calls that went on during a replay after waiting their patience.
    int lateCalls()
    {
        std::lock_guard lock(m_mutex);
        return m_lateCalls;
    }
    void memoryCallExit()
    {
        auto& calls = callsOfThisThread();
        if (calls.empty())
            return;
        const bool taken = calls.back();
        calls.pop_back();
        if (!taken)
            return;
        std::lock_guard lock(m_mutex);
        --m_calls;
        m_changed.notify_all();
    }

    // Held for the length of one replay (RAII). gated() is false when the memory calls in flight
    // did not end within the patience: the replay then runs with other threads free to call.
    class Replay {
    public:
        Replay(const Replay&) = delete;
        Replay& operator=(const Replay&) = delete;
        ~Replay()
        {
            if (m_gate)
                m_gate->endReplay();
        }
        bool gated() const { return m_gate != nullptr; }
        // Not gated because the calls in flight outlasted the patience (not because the thread
        // already replays or is inside a memory call of its own).
        bool gaveUp() const { return m_gaveUp; }

    private:
        friend class ReplayGate;
        explicit Replay(ReplayGate* gate, bool gaveUp = false)
            : m_gate(gate)
            , m_gaveUp(gaveUp)
        {
        }
        ReplayGate* m_gate;
        bool m_gaveUp;
    };
    [[nodiscard]] Replay replay()
    {
        // A replay from inside the thread's own memory call cannot wait for that call to end.
        if (holdsCall())
            return Replay(nullptr);
        std::unique_lock lock(m_mutex);
        if (ownedBy(std::this_thread::get_id()))
            return Replay(nullptr);
        ++m_waitingReplays;
        const bool in = m_changed.wait_for(lock, m_patience, [this] { return !m_replaying && m_calls == 0; });
        --m_waitingReplays;
        if (!in) {
            m_changed.notify_all(); // the calls held back for this replay go on
            return Replay(nullptr, true);
        }
        m_replaying = true;
        m_owner = std::this_thread::get_id();
        return Replay(this);
    }

private:
    void endReplay()
    {
        std::lock_guard lock(m_mutex);
        m_replaying = false;
        m_owner = {};
        m_changed.notify_all();
    }
    // With m_mutex held.
    bool ownedBy(std::thread::id thread) const { return m_replaying && m_owner == thread; }
    // Per thread: for each memory call it is inside (callbacks may nest), whether it took the gate.
    static std::vector<bool>& callsOfThisThread()
    {
        thread_local std::vector<bool> calls;
        return calls;
    }
    static bool holdsCall()
    {
        for (bool taken : callsOfThisThread())
            if (taken)
                return true;
        return false;
    }

    std::chrono::milliseconds m_patience;
    std::chrono::milliseconds m_callPatience;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_calls = 0;          // memory calls in flight that took the gate
    int m_waitingReplays = 0; // replays waiting for those to end
    int m_lateCalls = 0;
    bool m_replaying = false;
    std::thread::id m_owner;
};

} // namespace ws::profiler
