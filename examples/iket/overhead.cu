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
        std::vector<double> plain;
        std::vector<double> off;
        for (int r = -2; r < reps; ++r) { // two warm-up rounds
            const double t1 = timer.ms([&] { launchPipeline<true>(args, grid, trace.buffer(), nullptr); });
            const double t2 = timer.ms([&] { launchPipeline<false>(args, grid, trace.buffer(), nullptr); });
            const double t3 = timer.ms([&] { launchPipelineCompiledOut(dIn, dOut, tiles, work, grid, nullptr); });
            if (r >= 0) {
                traced.push_back(t1 * 1000);
                plain.push_back(t2 * 1000);
                off.push_back(t3 * 1000);
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
    cudaFree(dIn);
    cudaFree(dOut);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
