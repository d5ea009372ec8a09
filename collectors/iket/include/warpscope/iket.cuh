// SPDX-License-Identifier: MIT
#pragma once

// In-kernel event tracing (IKET-style) for CUDA C++: a warp-role timeline inside one launch.
//
//   WS_IKET_NAMES(Phase, producer, consumer, load, wait_full, mma, tile_done);  // compile-time ids
//
//   __global__ void kernel(..., ws::iket::DeviceBuffer trace) {
//       ws::iket::Profiler prof(trace);
//       prof.role(warp == 0 ? Phase::producer : Phase::consumer);
//       prof.range_push(Phase::load); ...; prof.range_pop();
//       auto t = prof.range_start(Phase::mma); ...; prof.range_end(t);   // may overlap others
//       prof.mark(Phase::tile_done);
//   }
//
//   ws::iket::Launch trace("my_kernel", grid, block, 256, Phase {});   // host: buffer + name table
//   trace.arm();                                  // right before the launch
//   kernel<<<grid, block>>>(..., trace.buffer());
//   trace.collect();                              // after it: hands the events to the recorder
//
// Every method must be called by the whole warp (or at least by lane 0): lane 0 writes one
// 16-byte event {clock64 low word, %globaltimer low word, name | kind, token} into the warp's
// own slots of a per-launch global buffer, with one predicated store (no branch); the warp's
// anchors, when its profiler starts and ends, carry the timers in full and its SM. No atomics,
// no shared memory, never out of bounds: a warp that runs out of slots keeps counting (its
// later events land in scratch slots), and the decoder reports what was dropped.
// Define WARPSCOPE_IKET_DISABLE to compile every call out to nothing,
// WARPSCOPE_IKET_CLOCK64_ONLY to time events with clock64 alone (placed between the warp's
// anchors), or WARPSCOPE_IKET_BATCHED to collect 32 events in registers, one per lane, and
// store them together (every call from the whole converged warp). Recorders are explained
// below (detail::CompactRecorder and the others); BasicProfiler / BasicLaunch take one.
//
// Under `warpscope-cli record`, collect() passes the host copy to libwarpscope-inject.so, which
// stores it in the session (warp_event rows, decoded and aligned to the session's clock).
// Without the recorder, collect() still returns the counts, so a program can report drops.

#include "warpscope/iket_abi.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

// WS_IKET_NAMES(Enum, a, b, c): enum class Enum : uint16_t {a, b, c} plus its name table, the
// same list stringified ("a, b, c"), found by ws::iket::nameList(Enum {}) through ADL.
#define WS_IKET_NAMES(Enum, ...)                                                                                       \
    enum class Enum : uint16_t { __VA_ARGS__ };                                                                        \
    inline constexpr const char* ws_iket_name_list(Enum)                                                               \
    {                                                                                                                  \
        return #__VA_ARGS__;                                                                                           \
    }

namespace ws::iket {

static_assert(sizeof(WsIketEvent) == 32, "a version 1 event is 32 bytes (two 16-byte stores)");
static_assert(sizeof(WsIketCompactEvent) == 16, "a version 2 event is 16 bytes (one vector store)");
static_assert(sizeof(WsIketBufferHeader) == 64, "the header is 64 bytes");

template <typename E> constexpr const char* nameList(E e)
{
    return ws_iket_name_list(e);
}

// What a kernel receives: where its warps write. Trivially copyable, passed by value.
struct DeviceBuffer {
    WsIketBufferHeader* header = nullptr;
    uint32_t* counts = nullptr;
    void* events = nullptr; // WsIketEvent or WsIketCompactEvent slots, slotsPerWarp per warp
    uint32_t totalWarps = 0;
    uint32_t eventsPerWarp = 0;
    uint32_t slotsPerWarp = 0;
};

// range_start's result, handed back to range_end: the start event's index in its warp.
struct Token {
    uint32_t index = 0;
};

// How events are written. Every recorder is independent of the configuration macros (so any
// translation unit may use any of them), records each event at its call's place in the warp's
// instruction stream ("memory" clobbers on the timer reads keep the compiler from moving the
// phase's loads and stores across them), and never writes outside the buffer.
//
//   CompactRecorder<Gt, Store>   the default as <true, Store::PairKeep> (version 3 buffers): one
//       16-byte event per call, stored by lane 0 with a predicated, evict-first vector store
//       (st.global.cs): no branch splits the warp, and a warp out of slots writes into its scratch
//       slots instead of testing. Times are the low words of clock64 (and of %globaltimer with Gt);
//       the warp's anchors, when its profiler starts and ends, carry both timers in full. Store says
//       when an event is written: Deferred at the next call (or at the end), outside the phase its
//       timestamps bound: closer durations, but dearer ranges on the H200. HoldBegin keeps only a
//       range's begin in registers until the next call, and reads the clock last for it: the store,
//       which must wait for the clock's value, then falls outside the phase the range times.
//       HoldAll holds every event that way. Pair is HoldBegin, and a pop that comes right after
//       its push stores both as one event (WsIketPushPop) with one clock read and no %globaltimer
//       read; other recorders write version 2 buffers. PairKeep is Pair, and the registers of an
//       anchor or a mark stay live until the next mark: with them the compiler computes the loop
//       arithmetic of the kernel's code between marks once, not after every mark.
//   BatchedRecorder<Gt, Deferred>   version 2 as well, but events collect in registers, one per lane,
//       and the whole warp stores 32 of them at once (512 contiguous bytes). Needs every call
//       from the whole, converged warp.
//   WideRecorder<Gt>      version 1 (32-byte events, two stores by lane 0 behind a branch,
//       capacity tested per event): what earlier releases wrote; kept for the cost benchmark.

namespace detail {

// The "memory" clobber keeps the phase's own loads and stores on their side of the read. Without it
// the H200 ran the same loop at the same cost (docs/evidence/2026-12-02-iket-cost-G), so the
// clobber stays: it costs nothing and keeps the order independent of the compiler's choices.
__device__ __forceinline__ uint64_t clock64Now()
{
    uint64_t c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}
__device__ __forceinline__ uint32_t globaltimerLoNow()
{
    uint32_t g;
    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(g)::"memory");
    return g;
}
__device__ __forceinline__ uint64_t globaltimerNow()
{
    uint64_t g;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)::"memory");
    return g;
}
__device__ __forceinline__ uint32_t smId()
{
    uint32_t sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    return sm;
}
// One 16-byte store, by the lanes where `on` is nonzero, without a branch; evict-first (.cs):
// the buffer is only read back by the host.
__device__ __forceinline__ void storeIf(uint32_t on, void* dst, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    asm volatile(
        "{\n .reg .pred p;\n setp.ne.u32 p, %0, 0;\n @p st.global.cs.v4.u32 [%1], {%2, %3, %4, %5};\n}" ::"r"(on),
        "l"(dst), "r"(a), "r"(b), "r"(c), "r"(d));
}

// Where a warp's slots are; shared by the recorders.
struct WarpSlot {
    uint64_t index = 0; // block * warpsPerBlock + warp
    uint32_t lane = 0;
    uint32_t warp = 0;
    uint32_t block = 0;
    bool valid = false;

    __device__ static WarpSlot of(const DeviceBuffer& buffer)
    {
        WarpSlot s;
        const unsigned threadLinear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        s.lane = threadLinear & 31u;
        s.warp = threadLinear >> 5;
        s.block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        const unsigned warpsPerBlock = (blockDim.x * blockDim.y * blockDim.z + 31u) / 32u;
        s.index = static_cast<unsigned long long>(s.block) * warpsPerBlock + s.warp;
        s.valid = buffer.events && s.index < buffer.totalWarps;
        if (!s.valid && buffer.header && s.lane == 0)
            atomicAdd(&buffer.header->outOfRangeWarps, 1ull);
        return s;
    }
};

constexpr uint32_t kAnchorNameKind = static_cast<uint32_t>(WsIketAnchor) << 16;

// When a CompactRecorder stores an event (the timers are always read at the call's place).
enum class Store {
    Now,          // at its own call, after its timer reads (the store waits for them)
    Deferred,     // at the next call, before that call's timer reads (after them when it ends a range)
    HoldBegin,    // a range's begin at the next call, after that call's timer reads; others as Now
    HoldAll,      // every event at the next call, after that call's timer reads: no store waits for a timer
    HoldAllTight, // as HoldAll, but a range's begin stores the held event before its timer reads, so
                  // no store of the recorder lies inside the range it begins
    Pair,         // as HoldBegin, and a pop right after its push stores both as one event (WsIketPushPop,
                  // version 3 buffers); a pop reads only the clock (placed by it between the
                  // warp's readings)
    PairKeep,     // as Pair, and the registers of an event stored at its own call (anchor, mark,
                  // role) stay live until the next mark or role: the compiler then hoists the loop
                  // arithmetic between marks (docs/iket.md, "marks keep their registers")
};

template <bool Gt, Store S = Store::Now> class CompactRecorder {
    static constexpr bool Deferred = S == Store::Deferred;
    static constexpr bool HoldBegin = S == Store::HoldBegin;
    static constexpr bool HoldAll = S == Store::HoldAll || S == Store::HoldAllTight;
    static constexpr bool Tight = S == Store::HoldAllTight;
    static constexpr bool Pair = S == Store::Pair || S == Store::PairKeep;
    static constexpr bool Keep = S == Store::PairKeep;

public:
    static constexpr bool kCompact = true;
    static constexpr bool kWholeWarp = false;
    static constexpr bool kPairs = Pair; // writes WsIketPushPop: the buffer says version 3

    __device__ void begin(const DeviceBuffer& buffer)
    {
        const WarpSlot s = WarpSlot::of(buffer);
        m_on = s.lane == 0 && s.valid;
        if (s.valid) {
            m_slots = static_cast<WsIketCompactEvent*>(buffer.events) + s.index * buffer.slotsPerWarp;
            m_count = buffer.counts + s.index;
            m_scratch = buffer.eventsPerWarp;
        }
        anchor(smId());
    }
    __device__ void end()
    {
        if constexpr (HoldBegin || HoldAll || Pair)
            putHeld();
        anchor(0);
        if constexpr (Deferred)
            put(m_next - 1, m_pending);
        if (m_on)
            *m_count = m_next;
    }
    __device__ __forceinline__ void record(uint32_t kind, uint32_t name, uint32_t ownOrStartIndex)
    {
        const uint32_t word = name | (kind << 16) | (Gt ? WS_IKET_EVENT_GLOBALTIMER : 0u);
        // Only range_start/range_end need a token; every other kind's is its own index, which the
        // decoder knows from the slot. Storing the live event counter made the compiler bump it in
        // place right after the store, so the warp waited for the store to read it (call P's PC
        // samples: a long-scoreboard stall on the increment after every range_pop).
        const uint32_t token = (kind == WsIketStart || kind == WsIketEnd) ? ownOrStartIndex : 0u;
        if constexpr (Deferred) {
            // The previous event's store goes outside the phase the timestamp bounds: after the
            // timer reads of a call that ends a range, before those of any other call (a
            // phase then starts as the timers are read). `kind` is a constant at every call.
            if (kind == WsIketPop || kind == WsIketEnd) {
                const uint4 e = stamp(word, token);
                put(m_next - 1, m_pending);
                m_pending = e;
            } else {
                put(m_next - 1, m_pending);
                m_pending = stamp(word, token);
            }
        } else if constexpr (HoldAll) {
            // This call's timers first (the clock last for a begin, first for anything else), then
            // the previous event, whose values have long arrived, then this one is held.
            uint4 e;
            if (kind == WsIketPush || kind == WsIketStart) {
                if constexpr (Tight)
                    putHeld();
                const uint32_t gt = Gt ? globaltimerLoNow() : 0u;
                e = make_uint4(static_cast<uint32_t>(clock64Now()), gt, word, token);
                if constexpr (!Tight)
                    putHeld();
            } else {
                e = stamp(word, token);
                putHeld();
            }
            m_held = e;
            m_heldIndex = m_next;
            m_holding = 1;
        } else if constexpr (HoldBegin || Pair) {
            if (kind == WsIketPush || kind == WsIketStart) {
                // The held begin of an enclosing range is stored first, inside that range; this
                // one's clock is read last and its store waits for the next call.
                putHeld();
                const uint32_t gt = Gt ? globaltimerLoNow() : 0u;
                const uint32_t clk = static_cast<uint32_t>(clock64Now());
                m_held = make_uint4(clk, gt, word, token);
                m_heldIndex = m_next;
                // Bit 1: the held event is a push (a pop that comes next closes it).
                m_holding = Pair && kind == WsIketPush ? 3u : 1u;
            } else if (Pair && kind == WsIketPop) {
                // Half of a range's events are pops, and most pops close the push just before
                // them: one clock read and one store for both (a held range_start is stored
                // alone, as before; its pop closes an earlier push). The pop reads no
                // %globaltimer: the decoder places it by the clock cycles since the push.
                const uint32_t clk = static_cast<uint32_t>(clock64Now());
                const uint32_t paired = m_holding >> 1;
                storeIf(m_on & m_holding & (paired ^ 1u), m_slots + min(m_heldIndex, m_scratch), m_held.x, m_held.y,
                    m_held.z, m_held.w);
                const uint32_t index = paired ? m_heldIndex : m_next;
                const uint4 e = paired
                    ? make_uint4(m_held.x, m_held.y, m_held.z | (static_cast<uint32_t>(WsIketPushPop) << 16), clk)
                    : make_uint4(clk, 0u, word & ~WS_IKET_EVENT_GLOBALTIMER, 0u);
                put(index, e);
                m_holding = 0;
            } else {
                keep();
                const uint4 e = stamp(word, token);
                putHeld();
                putKept(m_next, e);
            }
        } else {
            put(m_next, stamp(word, token));
        }
        ++m_next;
    }
    __device__ __forceinline__ uint32_t next() const { return m_next; }

private:
    __device__ __forceinline__ uint4 stamp(uint32_t word, uint32_t token)
    {
        const uint32_t clk = static_cast<uint32_t>(clock64Now());
        const uint32_t gt = Gt ? globaltimerLoNow() : 0u;
        return make_uint4(clk, gt, word, token);
    }
    // Both timers in full: the decoder's reference for the low words of the warp's events.
    __device__ __forceinline__ void anchor(uint32_t sm)
    {
        const uint64_t gt = globaltimerNow();
        const uint32_t clk = static_cast<uint32_t>(clock64Now());
        const uint4 e = make_uint4(clk, static_cast<uint32_t>(gt), sm | kAnchorNameKind | WS_IKET_EVENT_GLOBALTIMER,
            static_cast<uint32_t>(gt >> 32));
        if constexpr (Deferred) {
            if (m_next > 0)
                put(m_next - 1, m_pending);
            m_pending = e;
        } else {
            putKept(m_next, e);
        }
        ++m_next;
    }
    __device__ __forceinline__ WsIketCompactEvent* put(uint32_t index, const uint4& e)
    {
        // Past its slots a warp writes its scratch slot: no capacity branch on the hot path.
        WsIketCompactEvent* const at = m_slots + min(index, m_scratch);
        storeIf(m_on, at, e.x, e.y, e.z, e.w);
        return at;
    }
    // An event stored at its own call (a mark, an anchor, a role); with Keep its registers stay
    // live until the next mark or role, whose keep() reads them. Measured on the H200 (docs/iket.md,
    // "marks keep their registers"): with them kept, the compiler hoists the loop arithmetic of
    // a kernel's code between marks, which it otherwise redoes after every mark. Keeping a pop's
    // too, or reading them at every call, made ranges dearer (37.9 against 18.7 ns); keeping a
    // mark's but not the anchor's changed nothing.
    __device__ __forceinline__ void putKept(uint32_t index, const uint4& e)
    {
        WsIketCompactEvent* const at = put(index, e);
        if constexpr (Keep) {
            m_kept = e;
            m_keptAt = at;
        }
    }
    // Keep: the last such store's registers are read here, at the next mark or role (an empty
    // asm: no instruction).
    __device__ __forceinline__ void keep() const
    {
        if constexpr (Keep)
            asm volatile("" ::"r"(m_kept.x), "r"(m_kept.y), "r"(m_kept.z), "r"(m_kept.w), "l"(m_keptAt));
    }
    // The held begin, if any, at its own index (a predicate, not a branch).
    __device__ __forceinline__ void putHeld()
    {
        storeIf(m_on & m_holding, m_slots + min(m_heldIndex, m_scratch), m_held.x, m_held.y, m_held.z, m_held.w);
        m_holding = 0;
    }

    WsIketCompactEvent* m_slots = nullptr;
    uint32_t* m_count = nullptr;
    uint32_t m_scratch = 0;
    uint32_t m_next = 0;
    uint32_t m_on = 0;
    uint4 m_pending {};
    uint4 m_held {};
    uint32_t m_heldIndex = 0;
    uint32_t m_holding = 0;
    uint4 m_kept {};
    WsIketCompactEvent* m_keptAt = nullptr;
};

template <bool Gt, bool Deferred> class BatchedRecorder {
public:
    static constexpr bool kCompact = true;
    static constexpr bool kWholeWarp = true;
    static constexpr bool kPairs = false;

    __device__ void begin(const DeviceBuffer& buffer)
    {
        const WarpSlot s = WarpSlot::of(buffer);
        m_lane = s.lane;
        m_valid = s.valid;
        if (s.valid) {
            m_slots = static_cast<WsIketCompactEvent*>(buffer.events) + s.index * buffer.slotsPerWarp;
            m_count = buffer.counts + s.index;
            m_scratch = buffer.eventsPerWarp; // a multiple of 32 (BasicLaunch rounds it up)
        }
        anchor(smId());
    }
    __device__ void end()
    {
        anchor(0);
        if constexpr (Deferred)
            place(m_next - 1, m_pending);
        const uint32_t base = m_next & ~31u;
        storeIf(m_valid && m_lane < (m_next & 31u), m_slots + min(base, m_scratch) + m_lane, m_held.x, m_held.y,
            m_held.z, m_held.w);
        if (m_valid && m_lane == 0)
            *m_count = m_next;
    }
    __device__ __forceinline__ void record(uint32_t kind, uint32_t name, uint32_t ownOrStartIndex)
    {
        const uint32_t word = name | (kind << 16) | (Gt ? WS_IKET_EVENT_GLOBALTIMER : 0u);
        const uint32_t token = (kind == WsIketStart || kind == WsIketEnd) ? ownOrStartIndex : 0u; // as CompactRecorder
        if constexpr (Deferred) {
            // As CompactRecorder: the previous event's placing stays outside the timed phase.
            if (kind == WsIketPop || kind == WsIketEnd) {
                const uint4 e = stamp(word, token);
                place(m_next - 1, m_pending);
                m_pending = e;
            } else {
                place(m_next - 1, m_pending);
                m_pending = stamp(word, token);
            }
            ++m_next;
        } else {
            hold(stamp(word, token));
        }
    }
    __device__ __forceinline__ uint32_t next() const { return m_next; }

private:
    __device__ __forceinline__ uint4 stamp(uint32_t word, uint32_t token)
    {
        const uint32_t clk = static_cast<uint32_t>(clock64Now());
        const uint32_t gt = Gt ? globaltimerLoNow() : 0u;
        return make_uint4(clk, gt, word, token);
    }
    __device__ __forceinline__ void anchor(uint32_t sm)
    {
        const uint64_t gt = globaltimerNow();
        const uint32_t clk = static_cast<uint32_t>(clock64Now());
        hold(make_uint4(clk, static_cast<uint32_t>(gt), sm | kAnchorNameKind | WS_IKET_EVENT_GLOBALTIMER,
            static_cast<uint32_t>(gt >> 32)));
    }
    // Deferred: an event is placed at the next call, when its timer reads have long arrived.
    __device__ __forceinline__ void hold(const uint4& e)
    {
        if constexpr (Deferred) {
            if (m_next > 0)
                place(m_next - 1, m_pending);
            m_pending = e;
        } else {
            place(m_next, e);
        }
        ++m_next;
    }
    // Event i lives in lane i % 32 until the batch's last arrives; then the warp stores all 32.
    __device__ __forceinline__ void place(uint32_t index, const uint4& e)
    {
        if (m_lane == (index & 31u))
            m_held = e;
        if ((index & 31u) == 31u)
            storeIf(m_valid, m_slots + min(index & ~31u, m_scratch) + m_lane, m_held.x, m_held.y, m_held.z, m_held.w);
    }

    WsIketCompactEvent* m_slots = nullptr;
    uint32_t* m_count = nullptr;
    uint32_t m_scratch = 0;
    uint32_t m_next = 0;
    uint32_t m_lane = 0;
    uint32_t m_valid = 0;
    uint4 m_held {};
    uint4 m_pending {};
};

template <bool Gt> class WideRecorder {
public:
    static constexpr bool kCompact = false;
    static constexpr bool kWholeWarp = false;
    static constexpr bool kPairs = false;

    __device__ void begin(const DeviceBuffer& buffer)
    {
        const WarpSlot s = WarpSlot::of(buffer);
        m_lane0 = s.lane == 0;
        m_block = s.block;
        m_warp = s.warp;
        if (s.valid) {
            m_slots = static_cast<WsIketEvent*>(buffer.events) + s.index * buffer.slotsPerWarp;
            m_count = buffer.counts + s.index;
            m_capacity = buffer.eventsPerWarp;
        }
        m_sm = smId();
        if (!Gt)
            write(WsIketAnchor, 0, m_next, true);
    }
    __device__ void end()
    {
        if (!Gt)
            write(WsIketAnchor, 0, m_next, true);
        if (m_lane0 && m_count)
            *m_count = m_next;
    }
    __device__ __forceinline__ void record(uint32_t kind, uint32_t name, uint32_t token)
    {
        write(kind, name, token, Gt);
    }
    __device__ __forceinline__ uint32_t next() const { return m_next; }

private:
    __device__ __forceinline__ void write(uint32_t kind, uint32_t name, uint32_t token, bool globaltimer)
    {
        if (!m_lane0)
            return;
        uint64_t gt = 0;
        if (globaltimer)
            gt = globaltimerNow();
        const uint64_t clk = clock64Now();
        if (m_next < m_capacity) {
            const uint32_t w3 = (m_sm & 0xffffu) | ((m_warp & 0xffffu) << 16);
            auto* dst = reinterpret_cast<uint4*>(m_slots + m_next);
            __stcg(dst,
                make_uint4(static_cast<uint32_t>(gt), static_cast<uint32_t>(gt >> 32), static_cast<uint32_t>(clk),
                    static_cast<uint32_t>(clk >> 32)));
            __stcg(dst + 1, make_uint4(m_block, w3, name | (kind << 16), token));
        }
        ++m_next;
    }

    WsIketEvent* m_slots = nullptr;
    uint32_t* m_count = nullptr;
    uint32_t m_capacity = 0;
    uint32_t m_next = 0;
    uint32_t m_block = 0;
    uint32_t m_warp = 0;
    uint32_t m_sm = 0;
    bool m_lane0 = false;
};

// Records nothing: WARPSCOPE_IKET_DISABLE.
struct NullRecorder {
    static constexpr bool kCompact = true;
    static constexpr bool kWholeWarp = false;
    static constexpr bool kPairs = false;
    __device__ void begin(const DeviceBuffer&) { }
    __device__ void end() { }
    __device__ void record(uint32_t, uint32_t, uint32_t) { }
    __device__ uint32_t next() const { return 0; }
};

} // namespace detail

// The calls a kernel makes, over one recorder (see above); ws::iket::Profiler is the default.
template <class Recorder> class BasicProfiler {
public:
    __device__ explicit BasicProfiler(const DeviceBuffer& buffer) { m_rec.begin(buffer); }
    __device__ ~BasicProfiler() { m_rec.end(); }
    BasicProfiler(const BasicProfiler&) = delete;
    BasicProfiler& operator=(const BasicProfiler&) = delete;

    template <typename E> __device__ __forceinline__ void role(E name)
    {
        m_rec.record(WsIketRole, static_cast<uint16_t>(name), m_rec.next());
    }
    template <typename E> __device__ __forceinline__ void range_push(E name)
    {
        m_rec.record(WsIketPush, static_cast<uint16_t>(name), m_rec.next());
    }
    __device__ __forceinline__ void range_pop() { m_rec.record(WsIketPop, 0, m_rec.next()); }
    template <typename E> __device__ __forceinline__ Token range_start(E name)
    {
        const Token t {m_rec.next()};
        m_rec.record(WsIketStart, static_cast<uint16_t>(name), t.index);
        return t;
    }
    __device__ __forceinline__ void range_end(Token t) { m_rec.record(WsIketEnd, 0, t.index); }
    template <typename E> __device__ __forceinline__ void mark(E name)
    {
        m_rec.record(WsIketMark, static_cast<uint16_t>(name), m_rec.next());
    }

private:
    Recorder m_rec;
};

// What collect() found in the buffer.
struct Collected {
    uint64_t events = 0;  // stored
    uint64_t dropped = 0; // attempted beyond a warp's slots
    uint64_t outOfRangeWarps = 0;
    uint64_t unarmedWarps = 0;  // since the previous collect(): warps of a launch without arm() (the
    uint64_t unarmedEvents = 0; // last, if several) and their events; not recorded, reported as lost
    int recorder = -2;          // warpscope_iket_submit's answer; -2: no recorder in this process
    bool ok = false;            // false: CUDA error, see error
    cudaError_t error = cudaSuccess;
};

// Host side of one instrumented launch: owns the device buffer and its name table, registers
// with the recorder and hands the events over once the kernel has finished. Reusable: arm(),
// launch, collect(), again. Its Recorder must be the kernel's (ws::iket::Launch goes with
// ws::iket::Profiler).
template <class Recorder> class BasicLaunch {
    static constexpr bool kEnabled = !std::is_same_v<Recorder, detail::NullRecorder>;
    static constexpr bool kCompact = Recorder::kCompact;
    static constexpr bool kPairs = Recorder::kPairs;

public:
    template <typename E>
    BasicLaunch(const char* label, dim3 grid, dim3 block, uint32_t eventsPerWarp, E names)
        : BasicLaunch(label, grid, block, eventsPerWarp, nameList(names))
    {
    }
    BasicLaunch(const char* label, dim3 grid, dim3 block, uint32_t eventsPerWarp, const char* names)
        : m_label(label ? label : "")
        , m_names(names ? names : "")
        , m_grid(grid)
        , m_block(block)
    {
        if constexpr (kEnabled) {
            const uint64_t blocks = uint64_t {grid.x} * grid.y * grid.z;
            const uint32_t warpsPerBlock = (block.x * block.y * block.z + 31u) / 32u;
            const uint64_t warps = blocks * warpsPerBlock;
            uint32_t slots = eventsPerWarp;
            if constexpr (kCompact) {
                // Two more for the warp's anchors, whole batches of 32, and one batch of scratch
                // slots that a warp past its capacity writes into instead of testing.
                eventsPerWarp = (eventsPerWarp + 2u + 31u) & ~31u;
                slots = eventsPerWarp + 32u;
            }
            const uint64_t eventBytes = kCompact ? sizeof(WsIketCompactEvent) : sizeof(WsIketEvent);
            m_bytes = sizeof(WsIketBufferHeader) + warps * sizeof(uint32_t);
            m_bytes = (m_bytes + 15u) & ~uint64_t {15u}; // events 16-byte aligned for vector stores
            const uint64_t eventsOffset = m_bytes;
            m_bytes += warps * slots * eventBytes;
            void* p = nullptr;
            if (cudaMalloc(&p, m_bytes) != cudaSuccess) {
                m_bytes = 0;
                return;
            }
            auto* base = static_cast<unsigned char*>(p);
            m_device.header = reinterpret_cast<WsIketBufferHeader*>(base);
            m_device.counts = reinterpret_cast<uint32_t*>(base + sizeof(WsIketBufferHeader));
            m_device.events = base + eventsOffset;
            m_device.totalWarps = static_cast<uint32_t>(warps);
            m_device.eventsPerWarp = eventsPerWarp;
            m_device.slotsPerWarp = slots;
            m_headerTemplate.magic = !kCompact ? WS_IKET_MAGIC : kPairs ? WS_IKET_MAGIC_V3 : WS_IKET_MAGIC_V2;
            m_headerTemplate.version = !kCompact ? 1u
                : kPairs                         ? WS_IKET_BUFFER_VERSION_PAIRS
                                                 : WS_IKET_BUFFER_VERSION_COMPACT;
            m_headerTemplate.warpsPerBlock = warpsPerBlock;
            m_headerTemplate.eventsPerWarp = eventsPerWarp;
            m_headerTemplate.blocks = static_cast<uint32_t>(blocks);
            m_headerTemplate.headerBytes = sizeof(WsIketBufferHeader);
            if constexpr (kCompact) {
                m_headerTemplate.slotsPerWarp = slots;
                m_headerTemplate.eventBytes = sizeof(WsIketCompactEvent);
            }
            // Counts seen by arm() before it clears them: pinned, so the copy stays in stream order.
            if (cudaMallocHost(reinterpret_cast<void**>(&m_seenCounts), warps * sizeof(uint32_t)) != cudaSuccess)
                m_seenCounts = nullptr;
            reset(nullptr);
            cudaDeviceSynchronize();
        }
    }
    ~BasicLaunch()
    {
        if (m_armed)
            collect();
        else
            reportUnarmed(); // launches after the last collect() that were never armed
        if (m_device.header)
            cudaFree(m_device.header);
        if (m_seenCounts)
            cudaFreeHost(m_seenCounts);
    }
    BasicLaunch(const BasicLaunch&) = delete;
    BasicLaunch& operator=(const BasicLaunch&) = delete;

    // Pass to the kernel.
    const DeviceBuffer& buffer() const { return m_device; }
    size_t bytes() const { return m_bytes; }

    // Right before the launch: clears the counts and notes the time and thread, by which the
    // recorder finds the launch (the next kernel launch call of this thread).
    void arm(cudaStream_t stream = nullptr)
    {
        if (!m_device.header)
            return;
        m_stream = stream;
        // collect() leaves the counts at zero, so counts found here were written by launches that
        // ran without arm(): their events are lost, and collect() says how many. A copy in stream
        // order, no wait here.
        if (m_seenCounts) {
            cudaMemcpyAsync(m_seenCounts, m_device.counts, size_t {m_device.totalWarps} * sizeof(uint32_t),
                cudaMemcpyDeviceToHost, stream);
            m_seenPending = true;
        }
        reset(stream);
        m_armedNs = monotonicNs();
        m_armed = true;
    }

    // After the launch: waits for the stream, copies the buffer back and hands it to the
    // recorder (when this process runs under `warpscope-cli record`).
    Collected collect()
    {
        Collected c;
        if (!m_device.header || !m_armed)
            return c;
        m_armed = false;
        c.error = cudaStreamSynchronize(m_stream);
        std::vector<unsigned char> host(m_bytes);
        if (c.error == cudaSuccess)
            c.error = cudaMemcpy(host.data(), m_device.header, m_bytes, cudaMemcpyDeviceToHost);
        // Zero counts until the next arm(): any it finds then came from a launch without arm().
        if (c.error == cudaSuccess)
            c.error = cudaMemsetAsync(m_device.counts, 0, size_t {m_device.totalWarps} * sizeof(uint32_t), m_stream);
        if (c.error == cudaSuccess)
            c.error = cudaStreamSynchronize(m_stream);
        if (m_seenPending) {
            m_seenPending = false;
            unarmed(m_seenCounts, c.unarmedWarps, c.unarmedEvents);
        }
        if (c.error != cudaSuccess)
            return c;
        c.ok = true;
        WsIketBufferHeader h;
        std::memcpy(&h, host.data(), sizeof(h));
        c.outOfRangeWarps = h.outOfRangeWarps;
        for (uint32_t w = 0; w < m_device.totalWarps; ++w) {
            uint32_t n = 0;
            std::memcpy(&n, host.data() + sizeof(WsIketBufferHeader) + w * sizeof(uint32_t), sizeof(n));
            c.events += n < m_device.eventsPerWarp ? n : m_device.eventsPerWarp;
            c.dropped += n > m_device.eventsPerWarp ? n - m_device.eventsPerWarp : 0;
        }
        if (const WsIketSubmitFn submit = recorderEntry()) {
            WsIketSubmission s {};
            s.abiVersion = WS_IKET_ABI_VERSION;
            s.structBytes = sizeof(s);
            s.armedMonotonicNs = m_armedNs;
            s.collectedMonotonicNs = monotonicNs();
            s.tid = static_cast<int64_t>(syscall(SYS_gettid));
            s.label = m_label.c_str();
            s.names = m_names.c_str();
            s.grid[0] = m_grid.x;
            s.grid[1] = m_grid.y;
            s.grid[2] = m_grid.z;
            s.block[0] = m_block.x;
            s.block[1] = m_block.y;
            s.block[2] = m_block.z;
            int device = 0;
            cudaGetDevice(&device);
            s.device = device;
            s.data = host.data();
            s.bytes = host.size();
            s.unarmedWarps = c.unarmedWarps;
            s.unarmedEvents = c.unarmedEvents;
            c.recorder = submit(&s);
        }
        return c;
    }

private:
    // Warps with a nonzero count, and the events they attempted.
    void unarmed(const uint32_t* counts, uint64_t& warps, uint64_t& events) const
    {
        for (uint32_t w = 0; w < m_device.totalWarps; ++w) {
            warps += counts[w] ? 1 : 0;
            events += counts[w];
        }
    }

    // At the end: counts left since the last collect() (or since construction) belong to
    // launches that never armed the buffer. The recorder gets a loss report (no events).
    void reportUnarmed()
    {
        if (!m_device.header || !m_seenCounts)
            return;
        if (cudaMemcpy(
                m_seenCounts, m_device.counts, size_t {m_device.totalWarps} * sizeof(uint32_t), cudaMemcpyDeviceToHost)
            != cudaSuccess)
            return;
        WsIketSubmission s {};
        unarmed(m_seenCounts, s.unarmedWarps, s.unarmedEvents);
        const WsIketSubmitFn submit = recorderEntry();
        if (!s.unarmedWarps || !submit)
            return;
        s.abiVersion = WS_IKET_ABI_VERSION;
        s.structBytes = sizeof(s);
        s.collectedMonotonicNs = monotonicNs();
        s.tid = static_cast<int64_t>(syscall(SYS_gettid));
        s.label = m_label.c_str();
        s.names = m_names.c_str();
        submit(&s);
    }

    static int64_t monotonicNs()
    {
        timespec ts {};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
    }

    // The recorder's entry point, when libwarpscope-inject.so is loaded: the CUDA driver loads
    // it privately (CUDA_INJECTION64_PATH), so look it up by that path or its soname, never
    // loading it ourselves (RTLD_NOLOAD).
    static WsIketSubmitFn recorderEntry()
    {
        static const WsIketSubmitFn fn = [] {
            void* lib = nullptr;
            if (const char* path = std::getenv("CUDA_INJECTION64_PATH"))
                lib = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
            if (!lib)
                lib = dlopen("libwarpscope-inject.so", RTLD_LAZY | RTLD_NOLOAD);
            return lib ? reinterpret_cast<WsIketSubmitFn>(dlsym(lib, WS_IKET_SUBMIT_SYMBOL)) : nullptr;
        }();
        return fn;
    }

    void reset(cudaStream_t stream)
    {
        const size_t countBytes = size_t {m_device.totalWarps} * sizeof(uint32_t);
        cudaMemcpyAsync(m_device.header, &m_headerTemplate, sizeof(m_headerTemplate), cudaMemcpyHostToDevice, stream);
        cudaMemsetAsync(m_device.counts, 0, countBytes, stream);
    }

    std::string m_label;
    std::string m_names;
    dim3 m_grid;
    dim3 m_block;
    DeviceBuffer m_device;
    WsIketBufferHeader m_headerTemplate {};
    size_t m_bytes = 0;
    cudaStream_t m_stream = nullptr;
    int64_t m_armedNs = 0;
    bool m_armed = false;
    uint32_t* m_seenCounts = nullptr; // pinned: the counts arm() found
    bool m_seenPending = false;
};

// The default recorder, by configuration. Each configuration lives in its own inline namespace,
// so one program may mix translation units built with different settings (the overhead
// benchmark does); the buffer layout of the enabled ones is the same (version 2).
#if defined(WARPSCOPE_IKET_DISABLE)
inline namespace off {
using DefaultRecorder = detail::NullRecorder;
#elif defined(WARPSCOPE_IKET_CLOCK64_ONLY)
inline namespace on_clock64 {
using DefaultRecorder = detail::CompactRecorder<false, detail::Store::PairKeep>;
#elif defined(WARPSCOPE_IKET_BATCHED)
inline namespace on_batched {
using DefaultRecorder = detail::BatchedRecorder<true, false>;
#else
inline namespace on {
// Immediate, not deferred: on the H200 (docs/iket.md, call B) it cost 24.5 ns per range event
// against 50.2 ns deferred, and the same per mark (27.5 / 28.2 ns) at one event per us per warp.
// A range's begin held until the next call: the same cost, and recorded spans 2-18 ns closer to
// the spin they time (call J, docs/evidence/2026-12-02-iket-cost-J). A pop stored with the push
// before it, reading only the clock (Store::Pair): the pipelined kernel 0.81 % against 2.40 %,
// range events 19.5 against 24.9 ns (docs/iket.md, "Where it stands: push/pop pairs"). The
// registers of anchors and marks kept live until the next mark (Store::PairKeep): marks after a
// runtime loop 10.5 against 24.3 ns, ranges unchanged (docs/iket.md, "Where it stands: marks keep
// their registers").
using DefaultRecorder = detail::CompactRecorder<true, detail::Store::PairKeep>;
#endif
using Profiler = BasicProfiler<DefaultRecorder>;
using Launch = BasicLaunch<DefaultRecorder>;
} // namespace on / on_clock64 / on_batched / off
} // namespace ws::iket
