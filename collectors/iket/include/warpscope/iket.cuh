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
// 32-byte event {globaltimer, clock64, SM, warp, block, kind, name} into the warp's own slots
// of a per-launch global buffer. No atomics, no shared memory, never out of bounds: a warp
// that runs out of slots keeps counting, and the decoder reports what was dropped.
// Define WARPSCOPE_IKET_DISABLE to compile every call out to nothing, or
// WARPSCOPE_IKET_CLOCK64_ONLY to time events with clock64 alone (cheaper; two more events per
// warp, anchors with globaltimer at the profiler's start and end, carry the clock).
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

static_assert(sizeof(WsIketEvent) == 32, "one event is 32 bytes (two 16-byte stores)");
static_assert(sizeof(WsIketBufferHeader) == 64, "the header is 64 bytes");

template <typename E> constexpr const char* nameList(E e)
{
    return ws_iket_name_list(e);
}

// What a kernel receives: where its warps write. Trivially copyable, passed by value.
struct DeviceBuffer {
    WsIketBufferHeader* header = nullptr;
    uint32_t* counts = nullptr;
    WsIketEvent* events = nullptr;
    uint32_t totalWarps = 0;
    uint32_t eventsPerWarp = 0;
};

// range_start's result, handed back to range_end: the start event's index in its warp.
struct Token {
    uint32_t index = 0;
};

// The enabled and compiled-out variants live in different inline namespaces, so one program
// may mix translation units built with and without WARPSCOPE_IKET_DISABLE (the overhead
// benchmark does) without two definitions of one class.
#if defined(WARPSCOPE_IKET_DISABLE)
inline namespace off {
#elif defined(WARPSCOPE_IKET_CLOCK64_ONLY)
inline namespace on_clock64 {
#else
inline namespace on {
#endif

#if defined(WARPSCOPE_IKET_DISABLE)

class Profiler {
public:
    __device__ explicit Profiler(const DeviceBuffer&) { }
    template <typename E> __device__ void role(E) { }
    template <typename E> __device__ void range_push(E) { }
    __device__ void range_pop() { }
    template <typename E> __device__ Token range_start(E) { return {}; }
    __device__ void range_end(Token) { }
    template <typename E> __device__ void mark(E) { }
};

#else

class Profiler {
public:
    __device__ explicit Profiler(const DeviceBuffer& buffer)
    {
        const unsigned threadLinear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
        m_lane0 = (threadLinear & 31u) == 0;
        m_warp = threadLinear >> 5;
        m_block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        const unsigned warpsPerBlock = (blockDim.x * blockDim.y * blockDim.z + 31u) / 32u;
        const unsigned long long slot = static_cast<unsigned long long>(m_block) * warpsPerBlock + m_warp;
        if (buffer.events && slot < buffer.totalWarps) {
            m_slots = buffer.events + slot * buffer.eventsPerWarp;
            m_count = buffer.counts + slot;
            m_capacity = buffer.eventsPerWarp;
        } else if (buffer.header && m_lane0) {
            atomicAdd(&buffer.header->outOfRangeWarps, 1ull);
        }
        asm volatile("mov.u32 %0, %%smid;" : "=r"(m_sm));
#if defined(WARPSCOPE_IKET_CLOCK64_ONLY)
        record(WsIketAnchor, 0, m_next, true);
#endif
    }
    __device__ ~Profiler()
    {
#if defined(WARPSCOPE_IKET_CLOCK64_ONLY)
        record(WsIketAnchor, 0, m_next, true);
#endif
        if (m_lane0 && m_count)
            *m_count = m_next;
    }
    Profiler(const Profiler&) = delete;
    Profiler& operator=(const Profiler&) = delete;

    template <typename E> __device__ void role(E name)
    {
        record(WsIketRole, static_cast<uint16_t>(name), m_next);
    }
    template <typename E> __device__ void range_push(E name)
    {
        record(WsIketPush, static_cast<uint16_t>(name), m_next);
    }
    __device__ void range_pop()
    {
        record(WsIketPop, 0, m_next);
    }
    template <typename E> __device__ Token range_start(E name)
    {
        const Token t {m_next};
        record(WsIketStart, static_cast<uint16_t>(name), m_next);
        return t;
    }
    __device__ void range_end(Token t)
    {
        record(WsIketEnd, 0, t.index);
    }
    template <typename E> __device__ void mark(E name)
    {
        record(WsIketMark, static_cast<uint16_t>(name), m_next);
    }

private:
#if defined(WARPSCOPE_IKET_CLOCK64_ONLY)
    // Events carry clock64 only (reading %globaltimer is the slow part of an event); two
    // anchors per warp with both let the decoder put them on the globaltimer clock.
    static constexpr bool kGlobaltimerPerEvent = false;
#else
    static constexpr bool kGlobaltimerPerEvent = true;
#endif

    __device__ __forceinline__ void record(
        uint8_t kind, uint16_t name, uint32_t token, bool globaltimer = kGlobaltimerPerEvent)
    {
        if (!m_lane0)
            return;
        // The "memory" clobbers keep the compiler from moving the phase's loads and stores
        // across the timestamp.
        uint64_t gt = 0;
        uint64_t clk;
        if (globaltimer)
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt)::"memory");
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk)::"memory");
        if (m_next < m_capacity) {
            const uint32_t w2 = m_block;
            const uint32_t w3 = static_cast<uint32_t>(m_sm & 0xffffu) | (static_cast<uint32_t>(m_warp & 0xffffu) << 16);
            const uint32_t w4 = static_cast<uint32_t>(name) | (static_cast<uint32_t>(kind) << 16);
            auto* dst = reinterpret_cast<uint4*>(m_slots + m_next);
            // Two 16-byte stores that bypass L1 (.cg): the buffer is only read back by the host.
            __stcg(dst,
                make_uint4(static_cast<uint32_t>(gt), static_cast<uint32_t>(gt >> 32), static_cast<uint32_t>(clk),
                    static_cast<uint32_t>(clk >> 32)));
            __stcg(dst + 1, make_uint4(w2, w3, w4, token));
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

#endif // WARPSCOPE_IKET_DISABLE

// What collect() found in the buffer.
struct Collected {
    uint64_t events = 0;  // stored
    uint64_t dropped = 0; // attempted beyond a warp's slots
    uint64_t outOfRangeWarps = 0;
    int recorder = -2; // warpscope_iket_submit's answer; -2: no recorder in this process
    bool ok = false;   // false: CUDA error, see error
    cudaError_t error = cudaSuccess;
};

// Host side of one instrumented launch: owns the device buffer and its name table, registers
// with the recorder and hands the events over once the kernel has finished. Reusable: arm(),
// launch, collect(), again.
class Launch {
public:
    template <typename E>
    Launch(const char* label, dim3 grid, dim3 block, uint32_t eventsPerWarp, E names)
        : Launch(label, grid, block, eventsPerWarp, nameList(names))
    {
    }
    Launch(const char* label, dim3 grid, dim3 block, uint32_t eventsPerWarp, const char* names)
        : m_label(label ? label : "")
        , m_names(names ? names : "")
        , m_grid(grid)
        , m_block(block)
    {
#if !defined(WARPSCOPE_IKET_DISABLE)
        const uint64_t blocks = uint64_t {grid.x} * grid.y * grid.z;
        const uint32_t warpsPerBlock = (block.x * block.y * block.z + 31u) / 32u;
        const uint64_t warps = blocks * warpsPerBlock;
        m_bytes = sizeof(WsIketBufferHeader) + warps * sizeof(uint32_t);
        m_bytes = (m_bytes + 15u) & ~uint64_t {15u}; // events 16-byte aligned for vector stores
        const uint64_t eventsOffset = m_bytes;
        m_bytes += warps * eventsPerWarp * sizeof(WsIketEvent);
        void* p = nullptr;
        if (cudaMalloc(&p, m_bytes) != cudaSuccess) {
            m_bytes = 0;
            return;
        }
        auto* base = static_cast<unsigned char*>(p);
        m_device.header = reinterpret_cast<WsIketBufferHeader*>(base);
        m_device.counts = reinterpret_cast<uint32_t*>(base + sizeof(WsIketBufferHeader));
        m_device.events = reinterpret_cast<WsIketEvent*>(base + eventsOffset);
        m_device.totalWarps = static_cast<uint32_t>(warps);
        m_device.eventsPerWarp = eventsPerWarp;
        m_headerTemplate.magic = WS_IKET_MAGIC;
        m_headerTemplate.version = WS_IKET_ABI_VERSION;
        m_headerTemplate.warpsPerBlock = warpsPerBlock;
        m_headerTemplate.eventsPerWarp = eventsPerWarp;
        m_headerTemplate.blocks = static_cast<uint32_t>(blocks);
        m_headerTemplate.headerBytes = sizeof(WsIketBufferHeader);
        reset(nullptr);
        cudaDeviceSynchronize();
#endif
    }
    ~Launch()
    {
        if (m_armed)
            collect();
        if (m_device.header)
            cudaFree(m_device.header);
    }
    Launch(const Launch&) = delete;
    Launch& operator=(const Launch&) = delete;

    // Pass to the kernel.
    const DeviceBuffer& buffer() const
    {
        return m_device;
    }
    size_t bytes() const
    {
        return m_bytes;
    }

    // Right before the launch: clears the counts and notes the time and thread, by which the
    // recorder finds the launch (the next kernel launch call of this thread).
    void arm(cudaStream_t stream = nullptr)
    {
        if (!m_device.header)
            return;
        m_stream = stream;
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
            c.recorder = submit(&s);
        }
        return c;
    }

private:
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
};

} // namespace on / off
} // namespace ws::iket
