// SPDX-License-Identifier: MIT
// Where an in-kernel event's time goes, and what each way of recording it costs (issue 23).
// Every candidate layout / store path of warpscope/iket.cuh is timed in one run:
//
//   ws-iket-cost parts [reps]
//       a loop of steps (4 dependent FMAs each) in one warp per SM, with one part of an event
//       per step: a timer read, a store, the lane-0 branch, the address clamp, ... and then
//       whole mark() calls of every recorder. CSV: ns per step over the empty loop.
//   ws-iket-cost rate [reps] [collect]
//       132 CTAs x 4 warps (and x 16), each warp doing ~1 us of FMAs per event: marks, or
//       range_push / range_pop alternating, for every recorder and without one (the same kernel
//       with the calls compiled out). CSV: kernel time, slowdown, ns per event. With `collect`,
//       the default recorder's first launch of each shape is handed to the recorder (run it
//       under `warpscope-cli record` for the "with the recorder" figures).
//   ws-iket-cost accuracy
//       spins of known length (200, 2,000, 20,000 cycles of clock64) inside ranges, recorded by
//       every recorder (one kernel each, collected), with the SM clock against %globaltimer
//       measured before and after: prints the expected duration of each spin, for
//       scripts/device/jobs/iket-cost.sh to compare with the recorded ranges.
// Variants are interleaved and each timing is the median of `reps` CUDA-event timings.
#include <warpscope/iket.cuh>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

WS_IKET_NAMES(CostName, tick, phase, spinner, spin_short, spin_mid, spin_long);

namespace {

using namespace ws::iket;
using detail::BatchedRecorder;
using detail::CompactRecorder;
using detail::NullRecorder;
using detail::Store;
using detail::WideRecorder;

// ---------------------------------------------------------------------------------------------
// parts

constexpr int kPartSlots = 1024; // per warp, plus 32 scratch

template <int P> __global__ void partLoop(int steps, float* sink, uint4* buffer)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t on = lane == 0;
    uint4* mine = buffer + size_t {kPartSlots + 32} * (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
    float x = static_cast<float>(threadIdx.x);
    uint32_t acc = 0;
    uint4 held {};
    for (int i = 0; i < steps; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
        const uint32_t idx = static_cast<uint32_t>(i) & (kPartSlots - 1);
        if constexpr (P == 1)
            acc += static_cast<uint32_t>(detail::clock64Now());
        if constexpr (P == 2) {
            uint32_t c;
            asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
            acc += c;
        }
        if constexpr (P == 3)
            acc += detail::globaltimerLoNow();
        if constexpr (P == 4)
            acc += static_cast<uint32_t>(detail::globaltimerNow());
        if constexpr (P == 5) {
            // The lane-0 branch alone: a private region the other lanes skip.
            if (lane == 0) {
                asm volatile("add.u32 %0, %0, %1;" : "+r"(acc) : "r"(idx) : "memory");
                asm volatile("xor.b32 %0, %0, %1;" : "+r"(acc) : "r"(i) : "memory");
            }
        }
        if constexpr (P == 6)
            detail::storeIf(on, mine + idx, idx, acc, 1u, 2u);
        if constexpr (P == 7) {
            if (lane == 0)
                __stcs(mine + idx, make_uint4(idx, acc, 1u, 2u));
        }
        if constexpr (P == 8) {
            if (lane == 0) {
                __stcg(mine + 2 * (idx / 2), make_uint4(idx, acc, 1u, 2u));
                __stcg(mine + 2 * (idx / 2) + 1, make_uint4(idx, 3u, 4u, 5u));
            }
        }
        if constexpr (P == 9)
            detail::storeIf(
                on, mine + min(static_cast<uint32_t>(i), static_cast<uint32_t>(kPartSlots)), idx, acc, 1u, 2u);
        if constexpr (P == 10) {
            if (lane == 0 && idx < kPartSlots - 8) // taken in 99 % of the steps
                __stcs(mine + idx, make_uint4(idx, acc, 1u, 2u));
        }
        if constexpr (P == 11) {
            const uint32_t clk = static_cast<uint32_t>(detail::clock64Now());
            const uint32_t gt = detail::globaltimerLoNow();
            detail::storeIf(on, mine + idx, clk, gt, 1u, idx);
        }
        if constexpr (P == 12) {
            if (lane == (idx & 31u))
                held = make_uint4(idx, acc, 1u, 2u);
            if ((idx & 31u) == 31u)
                detail::storeIf(1u, mine + (idx & ~31u) + lane, held.x, held.y, held.z, held.w);
        }
    }
    if (x == 12345.0f || acc == 0x12345678u || held.x == 0x12345678u)
        sink[0] = x + static_cast<float>(acc);
}

template <class Rec> __global__ void markLoop(int steps, float* sink, DeviceBuffer trace)
{
    BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < steps; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
        prof.mark(CostName::tick);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// ---------------------------------------------------------------------------------------------
// rate: ~1 us of work per event

template <class Rec, bool Range> __global__ void rateKernel(int steps, int work, float* sink, DeviceBuffer trace)
{
    BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    if constexpr (Range) {
        // As kernels time their phases: push, the phase's work, pop, the work between phases.
        for (int i = 0; i < steps; i += 2) {
            prof.range_push(CostName::phase);
            for (int j = 0; j < work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
            prof.range_pop();
            for (int j = 0; j < work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
        }
    } else {
        for (int i = 0; i < steps; ++i) {
            prof.mark(CostName::tick);
            for (int j = 0; j < work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
        }
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// rateKernel with the work between events fixed at compile time: the compiler unrolls it, so no
// loop bookkeeping follows an event. With a runtime `work` the compiled loop reloads the kernel's
// parameters and redoes the trip-count arithmetic after every event (its SASS:
// docs/evidence/2026-12-02-iket-cost-F); this kernel times the event without that.
template <class Rec, bool Range, int Work> __global__ void rateKernelFixed(int steps, float* sink, DeviceBuffer trace)
{
    BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    if constexpr (Range) {
        for (int i = 0; i < steps; i += 2) {
            prof.range_push(CostName::phase);
#pragma unroll
            for (int j = 0; j < Work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
            prof.range_pop();
#pragma unroll
            for (int j = 0; j < Work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
        }
    } else {
        for (int i = 0; i < steps; ++i) {
            prof.mark(CostName::tick);
#pragma unroll
            for (int j = 0; j < Work; ++j)
                x = fmaf(x, 1.0001f, 0.5f);
        }
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// ---------------------------------------------------------------------------------------------
// accuracy: spins of known length

// A spin's span: from its first clock read to the clock read right after its loop has exited.
// The loop's last clock read is not its end: the compare and branch after it still run (about 50
// cycles of stalls on sm_90, 27 ns on the H200; docs/evidence/2026-12-03-iket-sass), and a range
// around the spin includes them. `lastRead` is that last read's span, the reference before 2026-12-03.
struct SpinSpan {
    uint64_t toExit;
    uint64_t lastRead;
};
__device__ __forceinline__ SpinSpan spin(uint64_t cycles)
{
    const uint64_t c0 = detail::clock64Now();
    uint64_t c1;
    do {
        c1 = detail::clock64Now();
    } while (c1 - c0 < cycles);
    const uint64_t exit = detail::clock64Now();
    return {exit - c0, c1 - c0};
}

template <class Rec>
__global__ void spinKernel(int reps, unsigned long long* actual, unsigned long long* gtSpan, DeviceBuffer trace)
{
    BasicProfiler<Rec> prof(trace);
    prof.role(CostName::spinner);
    const uint64_t g0 = detail::globaltimerNow();
    const uint64_t c0 = detail::clock64Now();
    uint64_t sum[3] = {0, 0, 0};
    uint64_t last[3] = {0, 0, 0};
    uint64_t bare[3] = {0, 0, 0};
    const uint64_t lengths[3] = {200, 2000, 20000};
    for (int r = 0; r < reps; ++r) {
        prof.range_push(CostName::spin_short);
        const SpinSpan s0 = spin(200);
        prof.range_pop();
        prof.range_push(CostName::spin_mid);
        const SpinSpan s1 = spin(2000);
        prof.range_pop();
        prof.range_push(CostName::spin_long);
        const SpinSpan s2 = spin(20000);
        prof.range_pop();
        sum[0] += s0.toExit;
        sum[1] += s1.toExit;
        sum[2] += s2.toExit;
        last[0] += s0.lastRead;
        last[1] += s1.lastRead;
        last[2] += s2.lastRead;
        prof.mark(CostName::tick);
        // The same spins between two bare clock64 reads: what timestamps around them show
        // without any recorder (the reads' own latency included).
        for (int k = 0; k < 3; ++k) {
            const uint64_t t0 = detail::clock64Now();
            spin(lengths[k]);
            const uint64_t t1 = detail::clock64Now();
            bare[k] += t1 - t0;
        }
    }
    const uint64_t c1 = detail::clock64Now();
    const uint64_t g1 = detail::globaltimerNow();
    if ((threadIdx.x & 31u) == 0) {
        for (int k = 0; k < 3; ++k)
            atomicAdd(actual + k, static_cast<unsigned long long>(sum[k]));
        atomicAdd(actual + 3, 1ull);
        for (int k = 0; k < 3; ++k)
            atomicAdd(actual + 4 + k, static_cast<unsigned long long>(bare[k]));
        atomicAdd(gtSpan, static_cast<unsigned long long>(g1 - g0));
        atomicAdd(gtSpan + 1, static_cast<unsigned long long>(c1 - c0));
        for (int k = 0; k < 3; ++k)
            atomicAdd(gtSpan + 2 + k, static_cast<unsigned long long>(last[k]));
    }
}

// One thread: %globaltimer and clock64 across a ~20 ms spin: the SM clock's rate.
__global__ void clockRate(unsigned long long* out)
{
    const uint64_t g0 = detail::globaltimerNow();
    const uint64_t c0 = detail::clock64Now();
    spin(40000000);
    const uint64_t c1 = detail::clock64Now();
    const uint64_t g1 = detail::globaltimerNow();
    out[0] = g1 - g0;
    out[1] = c1 - c0;
}

// ---------------------------------------------------------------------------------------------

struct Timer {
    cudaEvent_t a;
    cudaEvent_t b;
    Timer()
    {
        cudaEventCreate(&a);
        cudaEventCreate(&b);
    }
    template <class F> float time(F&& launch)
    {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        return ms * 1000.0f;
    }
};

double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Variant {
    std::string name;
    std::function<void()> launch;
    std::vector<float> us;
};

// Times every variant `reps` times, interleaved; returns medians in the variants.
void timeAll(std::vector<Variant>& vs, int reps)
{
    Timer t;
    for (auto& v : vs)
        v.launch(); // warm-up
    cudaDeviceSynchronize();
    for (int r = 0; r < reps; ++r)
        for (auto& v : vs)
            v.us.push_back(t.time(v.launch));
}

const char* const kRecorderNames[]
    = {"wide_gt (v1, old default)", "wide_clock64 (v1 CLOCK64_ONLY)", "compact_gt_immediate",
        "compact_clock64_immediate", "compact_gt_deferred", "compact_clock64_deferred", "batched_gt_immediate",
        "batched_clock64_immediate", "batched_gt_deferred", "batched_clock64_deferred", "compact_gt_holdbegin",
        "compact_clock64_holdbegin", "compact_gt_holdall", "compact_clock64_holdall", "compact_gt_holdall_tight",
        "compact_gt_pair", "compact_clock64_pair", "compact_gt_pair_keep", "compact_clock64_pair_keep"};

template <class T> struct Tag {
    using type = T;
};

// Calls f(Tag<Recorder>, index) for every recorder.
template <class F> void forEachRecorder(F&& f)
{
    f(Tag<WideRecorder<true>> {}, 0);
    f(Tag<WideRecorder<false>> {}, 1);
    f(Tag<CompactRecorder<true, Store::Now>> {}, 2);
    f(Tag<CompactRecorder<false, Store::Now>> {}, 3);
    f(Tag<CompactRecorder<true, Store::Deferred>> {}, 4);
    f(Tag<CompactRecorder<false, Store::Deferred>> {}, 5);
    f(Tag<BatchedRecorder<true, false>> {}, 6);
    f(Tag<BatchedRecorder<false, false>> {}, 7);
    f(Tag<BatchedRecorder<true, true>> {}, 8);
    f(Tag<BatchedRecorder<false, true>> {}, 9);
    // Immediate, but a range's begin held in registers until the next call (issue 23: the begin's
    // store waits for the clock read and sat inside the timed phase).
    f(Tag<CompactRecorder<true, Store::HoldBegin>> {}, 10);
    f(Tag<CompactRecorder<false, Store::HoldBegin>> {}, 11);
    // Every event held until the next call and stored after that call's timer reads: no store
    // waits for a timer read.
    f(Tag<CompactRecorder<true, Store::HoldAll>> {}, 12);
    f(Tag<CompactRecorder<false, Store::HoldAll>> {}, 13);
    // HoldAll, but a begin stores the held event before its timer reads (nothing inside the range).
    f(Tag<CompactRecorder<true, Store::HoldAllTight>> {}, 14);
    // HoldBegin, and a pop right after its push stored with it as one event, reading only the
    // clock (version 3 buffers).
    f(Tag<CompactRecorder<true, Store::Pair>> {}, 15);
    f(Tag<CompactRecorder<false, Store::Pair>> {}, 16);
    // Pair, and the registers of anchors and marks kept live until the next mark (the compiler
    // then computes the loop arithmetic between marks once; the default since 2026-12-03).
    f(Tag<CompactRecorder<true, Store::PairKeep>> {}, 17);
    f(Tag<CompactRecorder<false, Store::PairKeep>> {}, 18);
}

// Which of forEachRecorder's recorders DefaultRecorder is (-1 when none, e.g. a build with
// WARPSCOPE_IKET_DISABLE): the accuracy check holds that one to the goal.
int defaultRecorderIndex()
{
    int found = -1;
    forEachRecorder([&](auto tag, int i) {
        if (std::is_same_v<typename decltype(tag)::type, DefaultRecorder>)
            found = i;
    });
    return found;
}

int sms()
{
    int n = 0;
    cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, 0);
    return n;
}

int parts(int reps)
{
    const int grid = sms();
    constexpr int kSteps = 16384;
    float* sink = nullptr;
    uint4* buffer = nullptr;
    cudaMalloc(&sink, sizeof(float));
    cudaMalloc(&buffer, size_t {kPartSlots + 32} * grid * sizeof(uint4));
    std::vector<Variant> vs;
    const auto part = [&](auto p, const char* name) {
        constexpr int P = decltype(p)::value;
        vs.push_back({name, [=] { partLoop<P><<<grid, 32>>>(kSteps, sink, buffer); }, {}});
    };
    part(std::integral_constant<int, 0> {}, "empty loop");
    part(std::integral_constant<int, 1> {}, "clock64 read");
    part(std::integral_constant<int, 2> {}, "%clock (32-bit) read");
    part(std::integral_constant<int, 3> {}, "%globaltimer_lo read");
    part(std::integral_constant<int, 4> {}, "%globaltimer (64-bit) read");
    part(std::integral_constant<int, 5> {}, "lane-0 branch (two ALU ops inside)");
    part(std::integral_constant<int, 6> {}, "16-byte store, lane 0 predicated, .cs");
    part(std::integral_constant<int, 7> {}, "16-byte store, lane-0 branch, .cs");
    part(std::integral_constant<int, 8> {}, "two 16-byte stores, lane-0 branch, .cg (v1)");
    part(std::integral_constant<int, 9> {}, "16-byte store, predicated, clamped address");
    part(std::integral_constant<int, 10> {}, "16-byte store, lane-0 + bounds branch");
    part(std::integral_constant<int, 11> {}, "clock64 + globaltimer_lo + predicated 16-byte store");
    part(std::integral_constant<int, 12> {}, "register batch: select into lane, 32-lane store every 32");
    std::vector<std::unique_ptr<void, void (*)(void*)>> keep;
    forEachRecorder([&](auto tag, int i) {
        using Rec = typename decltype(tag)::type;
        auto* l = new BasicLaunch<Rec>("parts", dim3(grid), dim3(32), kSteps, CostName {});
        keep.emplace_back(l, [](void* p) { delete static_cast<BasicLaunch<Rec>*>(p); });
        const DeviceBuffer b = l->buffer();
        vs.push_back(
            {std::string("mark(): ") + kRecorderNames[i], [=] { markLoop<Rec><<<grid, 32>>>(kSteps, sink, b); }, {}});
    });
    timeAll(vs, reps);
    const double base = median(vs[0].us);
    std::printf("part,median_us,min_us,max_us,ns_per_step_over_empty\n");
    for (const auto& v : vs) {
        const double m = median(v.us);
        std::printf("\"%s\",%.2f,%.2f,%.2f,%.2f\n", v.name.c_str(), m, *std::min_element(v.us.begin(), v.us.end()),
            *std::max_element(v.us.begin(), v.us.end()), (m - base) * 1000.0 / kSteps);
    }
    std::printf("# %d steps of 4 dependent FMAs, one warp on each of %d SMs, median of %d\n", kSteps, grid, reps);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

int rate(int reps, bool collect)
{
    const int grid = sms();
    constexpr int kSteps = 1000;
    constexpr int kWork = 490; // dependent FMAs between events: ~1 us with 4 warps per SM
    float* sink = nullptr;
    cudaMalloc(&sink, sizeof(float));
    std::printf("warps_per_sm,kind,variant,median_us,min_us,max_us,events_per_warp,us_per_event_uninstrumented,"
                "slowdown_pct,ns_per_event\n");
    int rc = 0;
    for (const int warps : {4, 16}) {
        const dim3 block(32 * warps);
        for (const bool range : {false, true}) {
            std::vector<Variant> vs;
            std::vector<std::unique_ptr<void, void (*)(void*)>> keep;
            const auto add = [&](auto tag, const std::string& name, bool submit) {
                using Rec = typename decltype(tag)::type;
                auto* l = new BasicLaunch<Rec>("rate", dim3(grid), block, kSteps, CostName {});
                keep.emplace_back(l, [](void* p) { delete static_cast<BasicLaunch<Rec>*>(p); });
                const DeviceBuffer b = l->buffer();
                if (submit) {
                    // One launch of this shape handed to the recorder (run under warpscope-cli record).
                    l->arm();
                    if (range)
                        rateKernel<Rec, true><<<grid, block>>>(kSteps, kWork, sink, b);
                    else
                        rateKernel<Rec, false><<<grid, block>>>(kSteps, kWork, sink, b);
                    const Collected c = l->collect();
                    std::fprintf(stderr, "collected %s (%d warps/SM, %s): %llu events, %llu dropped, recorder %d\n",
                        name.c_str(), warps, range ? "range" : "mark", static_cast<unsigned long long>(c.events),
                        static_cast<unsigned long long>(c.dropped), c.recorder);
                }
                vs.push_back({name,
                    [=] {
                        if (range)
                            rateKernel<Rec, true><<<grid, block>>>(kSteps, kWork, sink, b);
                        else
                            rateKernel<Rec, false><<<grid, block>>>(kSteps, kWork, sink, b);
                    },
                    {}});
            };
            add(Tag<NullRecorder> {}, "uninstrumented", false);
            forEachRecorder([&](auto tag, int i) {
                using Rec = typename decltype(tag)::type;
                add(tag, kRecorderNames[i], collect && warps == 4 && std::is_same_v<Rec, DefaultRecorder>);
            });
            // The first variant of a set is its uninstrumented base.
            const auto report = [&](std::vector<Variant>& set) {
                timeAll(set, reps);
                const double base = median(set[0].us);
                for (const auto& v : set) {
                    const double m = median(v.us);
                    std::printf("%d,%s,\"%s\",%.2f,%.2f,%.2f,%d,%.3f,%.2f,%.2f\n", warps, range ? "range" : "mark",
                        v.name.c_str(), m, *std::min_element(v.us.begin(), v.us.end()),
                        *std::max_element(v.us.begin(), v.us.end()), kSteps, base / kSteps, 100.0 * (m - base) / base,
                        (m - base) * 1000.0 / kSteps);
                }
            };
            report(vs);
            std::vector<Variant> fixed;
            const auto addFixed = [&](auto tag, const std::string& name) {
                using Rec = typename decltype(tag)::type;
                auto* l = new BasicLaunch<Rec>("rate-fixed", dim3(grid), block, kSteps, CostName {});
                keep.emplace_back(l, [](void* p) { delete static_cast<BasicLaunch<Rec>*>(p); });
                const DeviceBuffer b = l->buffer();
                fixed.push_back({name + " (work fixed at compile time)",
                    [=] {
                        if (range)
                            rateKernelFixed<Rec, true, kWork><<<grid, block>>>(kSteps, sink, b);
                        else
                            rateKernelFixed<Rec, false, kWork><<<grid, block>>>(kSteps, sink, b);
                    },
                    {}});
            };
            addFixed(Tag<NullRecorder> {}, "uninstrumented");
            addFixed(Tag<CompactRecorder<true, Store::Now>> {}, kRecorderNames[2]);
            addFixed(Tag<CompactRecorder<false, Store::Now>> {}, kRecorderNames[3]);
            addFixed(Tag<CompactRecorder<true, Store::HoldBegin>> {}, kRecorderNames[10]);
            addFixed(Tag<CompactRecorder<true, Store::HoldAll>> {}, kRecorderNames[12]);
            addFixed(Tag<CompactRecorder<true, Store::HoldAllTight>> {}, kRecorderNames[14]);
            addFixed(Tag<CompactRecorder<true, Store::Pair>> {}, kRecorderNames[15]);
            addFixed(Tag<CompactRecorder<true, Store::PairKeep>> {}, kRecorderNames[17]);
            report(fixed);
            if (cudaGetLastError() != cudaSuccess)
                rc = 1;
        }
    }
    std::printf(
        "# %d events per warp, %d dependent FMAs after each, %d CTAs, median of %d\n", kSteps, kWork, grid, reps);
    return rc;
}

// A few launches of the rate kernels, uninstrumented and with the Store::Deferred,
// Store::HoldBegin, Store::HoldAll, Store::HoldAllTight, Store::Pair and Store::PairKeep recorders,
// for `warpscope-cli profile --pc-sampling --kernel-name regex:rateKernel`: which instructions of
// an event the warps stall on, and why.
int sample(int reps)
{
    const int grid = sms();
    constexpr int kSteps = 1000;
    constexpr int kWork = 490;
    float* sink = nullptr;
    cudaMalloc(&sink, sizeof(float));
    const dim3 block(32 * 4);
    const auto run = [&](auto tag) {
        using Rec = typename decltype(tag)::type;
        BasicLaunch<Rec> l("sample", dim3(grid), block, kSteps, CostName {});
        for (int r = 0; r < reps; ++r) {
            rateKernel<Rec, false><<<grid, block>>>(kSteps, kWork, sink, l.buffer());
            rateKernel<Rec, true><<<grid, block>>>(kSteps, kWork, sink, l.buffer());
        }
        cudaDeviceSynchronize();
    };
    run(Tag<NullRecorder> {});
    run(Tag<CompactRecorder<true, Store::Deferred>> {});
    run(Tag<CompactRecorder<true, Store::HoldBegin>> {});
    run(Tag<CompactRecorder<true, Store::HoldAll>> {});
    run(Tag<CompactRecorder<true, Store::HoldAllTight>> {});
    run(Tag<CompactRecorder<true, Store::Pair>> {});
    run(Tag<CompactRecorder<true, Store::PairKeep>> {});
    std::printf("sample: %d launches each of rateKernel (mark, range) x (uninstrumented, deferred, holdbegin, holdall, "
                "holdall_tight, pair, pair_keep)\n",
        reps);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

double measuredNsPerCycle(unsigned long long* d)
{
    clockRate<<<1, 1>>>(d);
    unsigned long long h[2] = {0, 0};
    cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
    return h[1] ? static_cast<double>(h[0]) / static_cast<double>(h[1]) : 0.0;
}

int accuracy()
{
    const int grid = sms();
    constexpr int kReps = 20;
    constexpr int kWarps = 4;
    unsigned long long* d = nullptr;
    cudaMalloc(&d, 16 * sizeof(unsigned long long));
    const double before = measuredNsPerCycle(d);
    std::printf("accuracy: SM clock %.6f ns per cycle (%.4f GHz) against %%globaltimer over a 20 ms spin\n", before,
        before > 0 ? 1.0 / before : 0.0);
    int recorders = 0;
    forEachRecorder([&](auto, int) { ++recorders; });
    std::printf("accuracy: recorders=%d default=%d\n", recorders, defaultRecorderIndex());
    int rc = 0;
    forEachRecorder([&](auto tag, int i) {
        using Rec = typename decltype(tag)::type;
        BasicLaunch<Rec> l("accuracy", dim3(grid), dim3(32 * kWarps), 7 * kReps + 8, CostName {});
        cudaMemset(d + 2, 0, 12 * sizeof(unsigned long long));
        l.arm();
        spinKernel<Rec><<<grid, 32 * kWarps>>>(kReps, d + 2, d + 9, l.buffer());
        const Collected c = l.collect();
        unsigned long long h[12]; // sums to exit [0..2], warps [3], bare [4..6], spans [7..8], last reads [9..11]
        cudaMemcpy(h, d + 2, sizeof(h), cudaMemcpyDeviceToHost);
        const double warps = static_cast<double>(h[3]);
        const double rateInKernel = h[8] ? static_cast<double>(h[7]) / static_cast<double>(h[8]) : 0.0;
        std::printf("accuracy: recorder %d %s: %llu events, %llu dropped, recorder %d; SM clock in the kernel %.6f "
                    "ns per cycle\n",
            i, kRecorderNames[i], static_cast<unsigned long long>(c.events), static_cast<unsigned long long>(c.dropped),
            c.recorder, rateInKernel);
        const char* names[3] = {"spin_short", "spin_mid", "spin_long"};
        const int requested[3] = {200, 2000, 20000};
        for (int k = 0; k < 3; ++k) {
            const double cycles = static_cast<double>(h[k]) / (warps * kReps);
            const double bareCycles = static_cast<double>(h[4 + k]) / (warps * kReps);
            const double lastCycles = static_cast<double>(h[9 + k]) / (warps * kReps);
            // "expect": the spin's own clock64 span, first read to the read after its loop exits,
            // at the kernel's measured clock rate; "last_read": to its loop's last read (the
            // reference before 2026-12-03); "bare": two clock64 reads around another such spin.
            std::printf("expect recorder=%d kernel_tag=%s name=%s requested_cycles=%d mean_cycles=%.1f ns=%.2f "
                        "bare_ns=%.2f last_read_ns=%.2f\n",
                i, kRecorderNames[i], names[k], requested[k], cycles, cycles * rateInKernel, bareCycles * rateInKernel,
                lastCycles * rateInKernel);
        }
        if (!c.ok || c.dropped)
            rc = 1;
    });
    const double after = measuredNsPerCycle(d);
    std::printf("accuracy: SM clock %.6f ns per cycle after the kernels\n", after);
    return rc;
}

} // namespace

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "parts";
    const int reps = argc > 2 ? std::max(1, std::atoi(argv[2])) : 15;
    cudaDeviceProp prop {};
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        std::fprintf(stderr, "no CUDA device\n");
        return 2;
    }
    std::printf("# device %s, %d SMs, default recorder: %s\n", prop.name, prop.multiProcessorCount,
        kRecorderNames[defaultRecorderIndex()]);
    int rc = 2;
    if (std::strcmp(mode, "parts") == 0)
        rc = parts(reps);
    else if (std::strcmp(mode, "rate") == 0)
        rc = rate(reps, argc > 3 && std::strcmp(argv[3], "collect") == 0);
    else if (std::strcmp(mode, "accuracy") == 0)
        rc = accuracy();
    else if (std::strcmp(mode, "sample") == 0)
        rc = sample(reps);
    else
        std::fprintf(stderr, "usage: ws-iket-cost parts|rate|accuracy|sample [reps] [collect]\n");
    if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
        std::fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e));
        rc = 1;
    }
    return rc;
}
