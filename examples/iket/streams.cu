// SPDX-License-Identifier: MIT
// In-kernel tracing as a new user would write it, shaped unlike the other examples: a 2-D grid
// of 2-D blocks (6 warps, 192 threads), two streams running the same kernel at once, nested
// push/pop ranges, a start/end range that overlaps them and is re-opened half-way, marks, and
// four launches that lose events in the ways the recorder must report:
//   full      buffer large enough: every event arrives
//   short     a buffer of at most half a warp's events (1,000 of 3,015 by default): the rest dropped
//   narrow    a Launch declared for half the grid: the other warps have no slots
//   unarmed   a launch without arm(): its events never reach the recorder
// Every launch's result is recomputed on the host (bit-exact: the same fmaf chain).
// Prints per launch what collect() found, then the totals the session must hold.
// With "profiler-range", only the second round runs between cudaProfilerStart and Stop: under
// `record --capture-range cudaProfilerApi` the others end while the recorder is not capturing.
// "small" runs a third of the grid (a session small enough to keep as a test fixture).
// Usage: ws-example-iket-streams [launches] [iterations] [profiler-range|small]   (defaults 3, 500)
#include <warpscope/iket.cuh>

#include <cuda_profiler_api.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

WS_IKET_NAMES(Sweep, loader, math, sweep_first_half, sweep_second_half, iter, load, compute, checkpoint);

namespace {

constexpr int kN = 1 << 20;

__device__ __host__ inline int sourceIndex(int thread, int it)
{
    return static_cast<int>((static_cast<unsigned>(thread) * 2654435761u + static_cast<unsigned>(it) * 40503u) % kN);
}

__global__ void sweep(const float* in, float* out, int iters, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler prof(trace);
    const int tid = static_cast<int>(threadIdx.x + blockDim.x * threadIdx.y);
    const int block = static_cast<int>(blockIdx.x + gridDim.x * blockIdx.y);
    const int thread = block * static_cast<int>(blockDim.x * blockDim.y) + tid;
    prof.role(tid / 32 == 0 ? Sweep::loader : Sweep::math);
    float acc = 0.0f;
    ws::iket::Token half = prof.range_start(Sweep::sweep_first_half);
    for (int it = 0; it < iters; ++it) {
        prof.range_push(Sweep::iter);
        prof.range_push(Sweep::load);
        const float v = in[sourceIndex(thread, it)];
        prof.range_pop();
        prof.range_push(Sweep::compute);
        for (int k = 0; k < 16; ++k)
            acc = fmaf(acc, 0.999f, v);
        prof.range_pop();
        prof.range_pop();
        if (it % 50 == 49)
            prof.mark(Sweep::checkpoint);
        if (it == iters / 2) {
            prof.range_end(half);
            half = prof.range_start(Sweep::sweep_second_half);
        }
    }
    prof.range_end(half);
    out[thread] = acc;
}

bool check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

} // namespace

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 3;
    const int iters = argc > 2 ? std::atoi(argv[2]) : 500;
    const bool profilerRange = argc > 3 && std::strcmp(argv[3], "profiler-range") == 0;
    const bool small = argc > 3 && std::strcmp(argv[3], "small") == 0;
    const dim3 grid(small ? 11 : 33, 4);
    const dim3 block(96, 2);
    const int threads = static_cast<int>(grid.x * grid.y * block.x * block.y);
    const int warps = threads / 32;
    // Per warp: the role, 6 per iteration, a mark per 50, two start/end pairs.
    const int perWarp = 1 + 6 * iters + iters / 50 + 4;

    std::vector<float> host(kN);
    for (int i = 0; i < kN; ++i)
        host[i] = static_cast<float>((static_cast<long long>(i) * 7919) % 1000) / 1000.0f;
    std::vector<float> expected(threads);
    for (int t = 0; t < threads; ++t) {
        float acc = 0.0f;
        for (int it = 0; it < iters; ++it) {
            const float v = host[sourceIndex(t, it)];
            for (int k = 0; k < 16; ++k)
                acc = std::fmaf(acc, 0.999f, v);
        }
        expected[t] = acc;
    }
    float* in = nullptr;
    float* out[4] = {};
    if (!check(cudaMalloc(&in, kN * sizeof(float)), "cudaMalloc"))
        return 1;
    for (float*& o : out) {
        if (!check(cudaMalloc(&o, threads * sizeof(float)), "cudaMalloc"))
            return 1;
    }
    check(cudaMemcpy(in, host.data(), kN * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    cudaStream_t streams[2];
    for (cudaStream_t& s : streams)
        check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");

    ws::iket::Launch full("sweep_full", grid, block, static_cast<uint32_t>(perWarp + 16), Sweep {});
    // At most half of what a warp writes (1,000 at the default 500 iterations).
    ws::iket::Launch shortBuffer(
        "sweep_short_buffer", grid, block, static_cast<uint32_t>(perWarp / 2 < 1000 ? perWarp / 2 : 1000), Sweep {});
    ws::iket::Launch narrow("sweep_narrow", dim3(grid.x, 2), block, static_cast<uint32_t>(perWarp + 16), Sweep {});
    ws::iket::Launch unarmed("sweep_unarmed", grid, block, static_cast<uint32_t>(perWarp + 16), Sweep {});

    int failures = 0;
    unsigned long long stored = 0, dropped = 0, outOfRange = 0;
    const auto verify = [&](int which, const char* label) {
        std::vector<float> got(threads);
        check(cudaMemcpy(got.data(), out[which], threads * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        int bad = 0;
        for (int t = 0; t < threads; ++t)
            bad += got[t] != expected[t] ? 1 : 0;
        if (bad)
            std::printf("FAIL %s: %d of %d results differ from the host's\n", label, bad, threads);
        failures += bad ? 1 : 0;
    };
    const auto report = [&](const char* label, int launch, const ws::iket::Collected& c) {
        std::printf("launch %d %s: %llu events stored, %llu dropped, %llu warps out of range, recorder %d%s\n", launch,
            label, static_cast<unsigned long long>(c.events), static_cast<unsigned long long>(c.dropped),
            static_cast<unsigned long long>(c.outOfRangeWarps), c.recorder, c.ok ? "" : " (collect failed)");
        stored += c.events;
        dropped += c.dropped;
        outOfRange += c.outOfRangeWarps;
    };
    for (int l = 0; l < launches; ++l) {
        if (profilerRange && l == 1)
            check(cudaProfilerStart(), "cudaProfilerStart");
        // Two launches in flight at once, one per stream.
        full.arm(streams[0]);
        sweep<<<grid, block, 0, streams[0]>>>(in, out[0], iters, full.buffer());
        shortBuffer.arm(streams[1]);
        sweep<<<grid, block, 0, streams[1]>>>(in, out[1], iters, shortBuffer.buffer());
        if (!check(cudaGetLastError(), "launch"))
            return 1;
        report("full", l, full.collect());
        report("short", l, shortBuffer.collect());
        verify(0, "full");
        verify(1, "short");

        narrow.arm(streams[0]);
        sweep<<<grid, block, 0, streams[0]>>>(in, out[2], iters, narrow.buffer());
        report("narrow", l, narrow.collect());
        verify(2, "narrow");

        // Not armed: the kernel writes its events, nobody hands them over.
        sweep<<<grid, block, 0, streams[1]>>>(in, out[3], iters, unarmed.buffer());
        check(cudaStreamSynchronize(streams[1]), "cudaStreamSynchronize");
        verify(3, "unarmed");
        if (profilerRange && l == 1)
            check(cudaProfilerStop(), "cudaProfilerStop");
    }
    std::printf(
        "per warp %d events (+2 anchors), %d warps per launch, %d launches of each kind\n", perWarp, warps, launches);
    std::printf("totals over the collected launches: %llu events stored, %llu dropped, %llu warps out of range\n",
        stored, dropped, outOfRange);
    for (cudaStream_t s : streams)
        cudaStreamDestroy(s);
    for (float* o : out)
        cudaFree(o);
    cudaFree(in);
    std::printf("%s: every launch's results equal the host's\n", failures ? "FAIL" : "ok");
    return failures ? 1 : 0;
}
