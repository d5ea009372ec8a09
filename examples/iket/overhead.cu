// SPDX-License-Identifier: MIT
// What in-kernel tracing costs: the pipelined kernel of pipeline.cuh instrumented, without the
// calls (uninstrumented), and with the calls compiled out (WARPSCOPE_IKET_DISABLE), each timed
// with CUDA events, variants interleaved, median of `reps`; at several `work` levels so the
// event rate per warp spans about one per microsecond. Then a tight loop of mark() calls gives
// the raw cost per event. Prints a CSV table on stdout.
// Usage: ws-iket-overhead [reps] [tiles per block]   (default 15 64)
#include "pipeline.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

cudaError_t launchPipelineCompiledOut(const float* in, float* out, int tiles, int work, int grid, cudaStream_t stream);
cudaError_t launchPipelineClock64(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream);
cudaError_t launchPipelineHoldAll(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream);
cudaError_t launchPipelineHoldAllTight(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream);
cudaError_t launchPipelineHoldBegin(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream);
cudaError_t launchPipelinePair(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream);
void launchMarkLoopClock64(int blocks, int threads, int iterations, float* sink, const ws::iket::DeviceBuffer& trace);

WS_IKET_NAMES(LoopName, tick);

namespace {

template <bool Traced> __global__ void markLoop(int iterations, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < iterations; ++i) {
        x = fmaf(x, 1.0001f, 0.5f);
        if constexpr (Traced)
            prof.mark(LoopName::tick);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// One thread reads %globaltimer and clock64 back to back while spinning ~200 us: how finely
// globaltimer advances on this GPU, and the SM clock against it (for the decoder's notes).
__global__ void timerProbe(unsigned long long* out, int samples)
{
    for (int i = 0; i < samples; ++i) {
        unsigned long long gt;
        unsigned long long clk;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt)::"memory");
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk)::"memory");
        out[2 * i] = gt;
        out[2 * i + 1] = clk;
        const long long until = clock64() + 400;
        while (clock64() < until) { }
    }
}

// What one event costs, part by part: a loop of `iterations` steps, each an FMA plus
// Mode 0 nothing, 1 a %globaltimer read, 2 a clock64 read, 3 lane 0's two 16-byte stores,
// 4 clock64 + stores, 5 globaltimer + clock64 + stores (a full event).
template <int Mode> __global__ void costLoop(int iterations, float* sink, uint4* buffer, int capacity)
{
    float x = static_cast<float>(threadIdx.x);
    unsigned long long acc = 0;
    const bool lane0 = (threadIdx.x & 31u) == 0;
    uint4* slots = buffer + 2ull * capacity * (blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32);
    for (int i = 0; i < iterations; ++i) {
        x = fmaf(x, 1.0001f, 0.5f);
        unsigned long long gt = 0;
        unsigned long long clk = 0;
        if constexpr (Mode == 1 || Mode == 5)
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt)::"memory");
        if constexpr (Mode == 2 || Mode == 4 || Mode == 5)
            asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk)::"memory");
        acc += gt + clk;
        if constexpr (Mode >= 3) {
            if (lane0 && i < capacity) {
                __stcg(slots + 2 * i,
                    make_uint4(static_cast<uint32_t>(gt), static_cast<uint32_t>(gt >> 32), static_cast<uint32_t>(clk),
                        static_cast<uint32_t>(clk >> 32)));
                __stcg(slots + 2 * i + 1, make_uint4(blockIdx.x, 0, static_cast<uint32_t>(i), 0));
            }
        }
    }
    if (x == 12345.0f || acc == 1)
        sink[0] = x + static_cast<float>(acc);
}

// warpscope/iket.cuh lets lanes 0-7 each store a word of an event, trusting that a
// special-register read gives every lane of a warp the same value: count where it does not.
__global__ void laneConsistency(int iterations, unsigned long long* mismatches)
{
    unsigned long long bad = 0;
    for (int i = 0; i < iterations; ++i) {
        unsigned long long gt;
        unsigned long long clk;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt)::"memory");
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(clk)::"memory");
        const unsigned long long gt0 = __shfl_sync(0xffffffffu, gt, 0);
        const unsigned long long clk0 = __shfl_sync(0xffffffffu, clk, 0);
        bad += (gt != gt0 ? 1 : 0) + (clk != clk0 ? 1 : 0);
    }
    if (bad)
        atomicAdd(mismatches, bad);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Timer {
    cudaEvent_t a = nullptr;
    cudaEvent_t b = nullptr;
    Timer()
    {
        cudaEventCreate(&a);
        cudaEventCreate(&b);
    }
    ~Timer()
    {
        cudaEventDestroy(a);
        cudaEventDestroy(b);
    }
    template <typename F> double ms(F&& launch)
    {
        cudaEventRecord(a);
        launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float t = 0;
        cudaEventElapsedTime(&t, a, b);
        return t;
    }
};

} // namespace

int main(int argc, char** argv)
{
    const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
    const int tilesPerBlock = argc > 2 ? std::atoi(argv[2]) : 64;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaDeviceProp prop {};
    cudaGetDeviceProperties(&prop, 0);
    std::fprintf(stderr, "device %s, %d SMs\n", prop.name, sms);

    {
        constexpr int kSamples = 512;
        unsigned long long* d = nullptr;
        cudaMalloc(&d, 2 * kSamples * sizeof(unsigned long long));
        timerProbe<<<1, 1>>>(d, kSamples);
        std::vector<unsigned long long> h(2 * kSamples);
        cudaMemcpy(h.data(), d, h.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost);
        cudaFree(d);
        unsigned long long minStep = ~0ull;
        int distinct = 1;
        for (int i = 1; i < kSamples; ++i) {
            const unsigned long long step = h[2 * i] - h[2 * (i - 1)];
            if (step > 0) {
                minStep = std::min(minStep, step);
                ++distinct;
            }
        }
        const double gtSpan = static_cast<double>(h[2 * (kSamples - 1)] - h[0]);
        const double clkSpan = static_cast<double>(h[2 * (kSamples - 1) + 1] - h[1]);
        std::printf("# globaltimer: %d distinct values in %d samples over %.1f us, smallest step %llu ns; "
                    "clock64 %.3f GHz against it\n",
            distinct, kSamples, gtSpan / 1000.0, minStep, gtSpan > 0 ? clkSpan / gtSpan : 0.0);
    }

    {
        unsigned long long* d = nullptr;
        cudaMalloc(&d, sizeof(unsigned long long));
        cudaMemset(d, 0, sizeof(unsigned long long));
        laneConsistency<<<sms * 4, 256>>>(1000, d);
        unsigned long long bad = 0;
        cudaMemcpy(&bad, d, sizeof(bad), cudaMemcpyDeviceToHost);
        cudaFree(d);
        std::printf("# lane consistency: %llu of %llu per-lane globaltimer/clock64 reads differ from lane 0's\n", bad,
            2ull * sms * 4 * 256 * 1000);
    }

    const int grid = sms; // persistent: one CTA per SM
    const int tiles = grid * tilesPerBlock;
    const size_t rows = static_cast<size_t>(tiles) * kTileRows;
    float* dIn = nullptr;
    float* dOut = nullptr;
    if (cudaMalloc(&dIn, rows * kRowWidth * sizeof(float)) != cudaSuccess
        || cudaMalloc(&dOut, rows * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemset(dIn, 0, rows * kRowWidth * sizeof(float));
    ws::iket::Launch trace("overhead", dim3(grid), dim3(kThreads), 6 * tilesPerBlock + 16, PipePhase {});
    Timer timer;

    std::printf("kernel,work,variant,median_us,min_us,max_us,events_per_launch,warps,events_per_warp_per_us,"
                "slowdown_pct,ns_per_event\n");
    for (const int work : {4, 16, 64, 256}) {
        PipelineArgs args;
        args.in = dIn;
        args.out = dOut;
        args.tiles = tiles;
        args.work = work;
        std::vector<double> traced;
        std::vector<double> traced64;
        std::vector<double> tracedHoldAll;
        std::vector<double> tracedHoldAllTight;
        std::vector<double> tracedHoldBegin;
        std::vector<double> tracedPair;
        std::vector<double> plain;
        std::vector<double> off;
        for (int r = -2; r < reps; ++r) { // two warm-up rounds
            const double t1 = timer.ms([&] { launchPipeline<true>(args, grid, trace.buffer(), nullptr); });
            const double t2 = timer.ms([&] { launchPipeline<false>(args, grid, trace.buffer(), nullptr); });
            const double t3 = timer.ms([&] { launchPipelineCompiledOut(dIn, dOut, tiles, work, grid, nullptr); });
            const double t4
                = timer.ms([&] { launchPipelineClock64(dIn, dOut, tiles, work, grid, trace.buffer(), nullptr); });
            const double t5
                = timer.ms([&] { launchPipelineHoldAll(dIn, dOut, tiles, work, grid, trace.buffer(), nullptr); });
            const double t6
                = timer.ms([&] { launchPipelineHoldAllTight(dIn, dOut, tiles, work, grid, trace.buffer(), nullptr); });
            const double t7
                = timer.ms([&] { launchPipelineHoldBegin(dIn, dOut, tiles, work, grid, trace.buffer(), nullptr); });
            const double t8
                = timer.ms([&] { launchPipelinePair(dIn, dOut, tiles, work, grid, trace.buffer(), nullptr); });
            if (r >= 0) {
                traced.push_back(t1 * 1000);
                plain.push_back(t2 * 1000);
                off.push_back(t3 * 1000);
                traced64.push_back(t4 * 1000);
                tracedHoldAll.push_back(t5 * 1000);
                tracedHoldAllTight.push_back(t6 * 1000);
                tracedHoldBegin.push_back(t7 * 1000);
                tracedPair.push_back(t8 * 1000);
            }
        }
        if (cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
            std::fprintf(stderr, "kernel failed\n");
            return 1;
        }
        // One more traced launch, collected, for the event count (not timed).
        trace.arm();
        launchPipeline<true>(args, grid, trace.buffer(), nullptr);
        const ws::iket::Collected c = trace.collect();
        const double warps = static_cast<double>(grid) * (kThreads / 32);
        const double perWarp = static_cast<double>(c.events) / warps;
        const double base = median(plain);
        const auto row = [&](const char* name, const std::vector<double>& v, bool withEvents) {
            const double m = median(v);
            std::printf("pipelined,%d,%s,%.2f,%.2f,%.2f,%llu,%.0f,%.3f,%.2f,%.1f\n", work, name, m,
                *std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()),
                withEvents ? static_cast<unsigned long long>(c.events) : 0ull, warps, withEvents ? perWarp / m : 0.0,
                100.0 * (m - base) / base, withEvents && perWarp > 0 ? (m - base) * 1000.0 / perWarp : 0.0);
        };
        row("instrumented", traced, true);
        row("instrumented_clock64", traced64, true);
        row("instrumented_holdall", tracedHoldAll, true);
        row("instrumented_holdall_tight", tracedHoldAllTight, true);
        row("instrumented_holdbegin", tracedHoldBegin, true);
        row("instrumented_pair", tracedPair, true);
        row("uninstrumented", plain, false);
        row("compiled_out", off, false);
        std::fflush(stdout);
    }

    // Raw cost per event: every warp of a full GPU calls mark() back to back.
    {
        constexpr int kIterations = 1000;
        const int blocks = sms * 8;
        ws::iket::Launch loopTrace("mark_loop", dim3(blocks), dim3(256), kIterations, LoopName {});
        std::vector<double> traced;
        std::vector<double> plain;
        for (int r = -2; r < reps; ++r) {
            const double t1 = timer.ms([&] { markLoop<true><<<blocks, 256>>>(kIterations, dOut, loopTrace.buffer()); });
            const double t2
                = timer.ms([&] { markLoop<false><<<blocks, 256>>>(kIterations, dOut, loopTrace.buffer()); });
            if (r >= 0) {
                traced.push_back(t1 * 1000);
                plain.push_back(t2 * 1000);
            }
        }
        const double m1 = median(traced);
        const double m0 = median(plain);
        const double warps = blocks * 8.0;
        std::printf("mark_loop,%d,instrumented,%.2f,%.2f,%.2f,%.0f,%.0f,%.3f,%.2f,%.1f\n", kIterations, m1,
            *std::min_element(traced.begin(), traced.end()), *std::max_element(traced.begin(), traced.end()),
            warps * kIterations, warps, kIterations / m1, 100.0 * (m1 - m0) / m0, (m1 - m0) * 1000.0 / kIterations);
        std::printf("mark_loop,%d,uninstrumented,%.2f,%.2f,%.2f,0,%.0f,0,0,0\n", kIterations, m0,
            *std::min_element(plain.begin(), plain.end()), *std::max_element(plain.begin(), plain.end()), warps);
    }
    // Where an event's time goes: one warp per SM (the latency a warp's own critical path
    // sees), 1000 steps per loop; ns per event = (loop with the part - empty loop) / steps.
    {
        constexpr int kIterations = 1000;
        uint4* slots = nullptr;
        cudaMalloc(&slots, size_t {2} * kIterations * sms * sizeof(uint4));
        ws::iket::Launch one("mark_loop_1warp", dim3(sms), dim3(32), kIterations + 2, LoopName {});
        const char* names[] = {"empty", "globaltimer_read", "clock64_read", "store_32B", "clock64_store",
            "globaltimer_clock64_store", "mark", "mark_clock64"};
        std::vector<std::vector<double>> t(8);
        for (int r = -2; r < reps; ++r) {
            double m[8];
            m[0] = timer.ms([&] { costLoop<0><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[1] = timer.ms([&] { costLoop<1><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[2] = timer.ms([&] { costLoop<2><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[3] = timer.ms([&] { costLoop<3><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[4] = timer.ms([&] { costLoop<4><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[5] = timer.ms([&] { costLoop<5><<<sms, 32>>>(kIterations, dOut, slots, kIterations); });
            m[6] = timer.ms([&] { markLoop<true><<<sms, 32>>>(kIterations, dOut, one.buffer()); });
            m[7] = timer.ms([&] { launchMarkLoopClock64(sms, 32, kIterations, dOut, one.buffer()); });
            if (r >= 0)
                for (int i = 0; i < 8; ++i)
                    t[static_cast<size_t>(i)].push_back(m[i] * 1000);
        }
        const double base = median(t[0]);
        for (int i = 1; i < 8; ++i) {
            const double m = median(t[static_cast<size_t>(i)]);
            std::printf("event_part,%d,%s,%.2f,%.2f,%.2f,%d,%d,0,0,%.1f\n", kIterations, names[i], m,
                *std::min_element(t[static_cast<size_t>(i)].begin(), t[static_cast<size_t>(i)].end()),
                *std::max_element(t[static_cast<size_t>(i)].begin(), t[static_cast<size_t>(i)].end()),
                kIterations * sms, sms, (m - base) * 1000.0 / kIterations);
        }
        std::printf("event_part,%d,empty,%.2f,0,0,0,%d,0,0,0\n", kIterations, base, sms);
        cudaFree(slots);
    }
    cudaFree(dIn);
    cudaFree(dOut);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
