// SPDX-License-Identifier: MIT
// Fidelity suite for comparing `warpscope-cli profile` with Nsight Compute (issue 18): kernels of
// different kinds that nobody tuned the profiler on. Each mode runs ONE kernel under test (its own
// __global__ name, so a kernel filter can pick it); helper kernels are named fill_* / init_*.
// Usage: warpscope-fidelitysuite <mode> [--warmup N] [--iters N]
//        warpscope-fidelitysuite --list
// Every measured kernel is idempotent: launching it again over the same memory gives the same
// memory (a profiler replays it once per pass), either because it writes out of place or because
// an init_* kernel launched right before it resets the state it accumulates into. The result of
// the last launch is verified on the host ("check passed: ..." / "check FAILED: ...", exit 1), and
// one "RESULT mode=<m> ..." line gives the kernel, the launch counts and the mean time per launch
// (CUDA events around the measured kernel only; meaningless under a profiler's replay).
// Sizes are meant for an H200 (141 GB, 132 SMs, 50 MiB L2): the largest mode (gather) needs 4.3 GiB.
// Modes and the time of one launch on an H200 (CUDA events, clocks not locked, 2 Dec 2026):
//   stream 0.28 ms, strided 2.5 ms, transpose 4.3 ms, gather 1.0 ms, l2reuse 76 us, bankconf 0.29 ms,
//   atomics 1.2 ms, cublas 0.17-0.19 ms (one nvjet kernel, itself a cluster launch), mma 0.61 ms,
//   fp64 0.28 ms, tiny ~2 us (ncu gpu__time_duration), cluster 0.13 ms, persistent 0.19 ms.
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../cudacheck.h"

namespace cg = cooperative_groups;

// ---- values both sides can compute -------------------------------------------------------------
// Inputs are generated on the device from a hash of the index, and the host recomputes the same
// hash to know what every input was: no multi-GiB host copies, and every value is exact.

__host__ __device__ inline uint32_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    x ^= x >> 31;
    return static_cast<uint32_t>(x);
}

__host__ __device__ inline uint32_t hashAt(uint64_t i, uint32_t seed)
{
    return mix(i ^ (uint64_t(seed) << 40));
}

// An integer below 2^24 (with mask 0xffffff), so the float holds it exactly.
__host__ __device__ inline float floatAt(uint64_t i, uint32_t seed, uint32_t mask)
{
    return static_cast<float>(hashAt(i, seed) & mask);
}

// A multiple of 1/128 in [-1, 1): exact in half and in bf16 (8 significant bits), so products
// and the host's double reference are exact and only the accumulation order can differ.
__host__ __device__ inline float smallAt(uint64_t i, uint32_t seed)
{
    return static_cast<float>(static_cast<int>(hashAt(i, seed) & 0xffu) - 128) / 128.0f;
}

// ---- helper kernels (not measured) ------------------------------------------------------------

__global__ void fill_float(float* p, size_t n, uint32_t seed, uint32_t mask)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = floatAt(i, seed, mask);
}

__global__ void fill_u32(uint32_t* p, size_t n, uint32_t seed, uint32_t mask)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = hashAt(i, seed) & mask;
}

__global__ void fill_half(__half* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = __float2half(smallAt(i, seed));
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = __float2bfloat16(smallAt(i, seed));
}

// ---- shared plumbing ----------------------------------------------------------------------------

static int smCount()
{
    int device = 0, sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return sms;
}

// Grid for the fill kernels: enough blocks to fill the GPU, each thread striding.
static unsigned fillBlocks()
{
    return static_cast<unsigned>(smCount()) * 8u;
}

// Runs warmup + iters rounds of reset() then launch() on the default stream and returns the mean
// time of the timed launch() calls in microseconds. Events bracket launch() only, so the init_*
// kernels of the atomics and persistent modes are not in the figure.
template <typename Reset, typename Launch> static double timeLaunches(int warmup, int iters, Reset reset, Launch launch)
{
    cudaEvent_t begin, end;
    CHECK(cudaEventCreate(&begin));
    CHECK(cudaEventCreate(&end));
    double totalMs = 0.0;
    for (int i = 0; i < warmup + iters; ++i) {
        reset();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(begin));
        launch();
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(end));
        CHECK(cudaEventSynchronize(end));
        float ms = 0.0f;
        CHECK(cudaEventElapsedTime(&ms, begin, end));
        if (i >= warmup)
            totalMs += ms;
    }
    CHECK(cudaEventDestroy(begin));
    CHECK(cudaEventDestroy(end));
    return iters > 0 ? totalMs * 1000.0 / iters : 0.0;
}

template <typename Launch> static double timeLaunches(int warmup, int iters, Launch launch)
{
    return timeLaunches(
        warmup, iters, [] {}, launch);
}

// Counts mismatches and keeps the first one's description.
struct Mismatches {
    size_t count = 0;
    char first[256] = {};
    bool take() { return count++ == 0; } // true: describe this one into `first`
};

struct Run {
    const char* mode;
    const char* kernel;
    int warmup;
    int iters;
};

static int finish(const Run& run, double avgUs, const Mismatches& bad, const std::string& what)
{
    if (bad.count == 0)
        std::printf("check passed: %s: %s\n", run.mode, what.c_str());
    else
        std::printf("check FAILED: %s: %zu mismatches, first: %s\n", run.mode, bad.count, bad.first);
    std::printf("RESULT mode=%s kernel=%s warmup=%d iters=%d avg_us=%.2f check=%s\n", run.mode, run.kernel, run.warmup,
        run.iters, avgUs, bad.count == 0 ? "passed" : "FAILED");
    std::fflush(stdout);
    return bad.count == 0 ? 0 : 1;
}

// ---- 1. stream: coalesced float4 copy, 512 MiB each way ----------------------------------------

__global__ void stream_copy(const float4* __restrict__ src, float4* __restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

static int runStream(const Run& run)
{
    const size_t bytes = size_t(512) << 20;
    const size_t floats = bytes / sizeof(float);
    float *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    fill_float<<<fillBlocks(), 256>>>(src, floats, 11u, 0xffffffu);
    CHECK(cudaGetLastError());
    const unsigned blocks = static_cast<unsigned>(smCount()) * 16u;
    const double us = timeLaunches(run.warmup, run.iters, [&] {
        stream_copy<<<blocks, 256>>>(reinterpret_cast<const float4*>(src), reinterpret_cast<float4*>(dst), floats / 4);
    });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(floats);
    CHECK(cudaMemcpy(back.data(), dst, bytes, cudaMemcpyDeviceToHost));
    Mismatches bad;
    for (size_t i = 0; i < floats; ++i) {
        const float want = floatAt(i, 11u, 0xffffffu);
        if (back[i] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "dst[%zu] = %g, expected %g", i, double(back[i]), double(want));
    }
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    return finish(run, us, bad, "512 MiB copied, every float compared");
}

// ---- 2. strided: uncoalesced reads at a stride of 32 floats ------------------------------------

// The input is viewed as `rows` x 32 floats; out[j] = in[(j % rows) * 32 + j / rows], i.e. the
// input read column by column. Neighbouring threads read 128 bytes apart (one sector used out of
// every line a warp touches), and a whole column sweep covers 512 MiB, far more than L2, so the
// lines are gone by the time the next column needs them: DRAM-bound with ~8x over-fetch. Every
// input float is read exactly once; the output is written compacted (coalesced).
// rows is a power of two (2^rowsLog2) so the index is shifts and masks, not a 64-bit division
// that would make the kernel issue-bound.
__global__ void strided_read(const float* __restrict__ in, float* __restrict__ out, int rowsLog2)
{
    const size_t rows = size_t(1) << rowsLog2;
    const size_t n = rows * 32;
    for (size_t j = blockIdx.x * size_t(blockDim.x) + threadIdx.x; j < n; j += size_t(gridDim.x) * blockDim.x)
        out[j] = in[((j & (rows - 1)) << 5) + (j >> rowsLog2)];
}

static int runStrided(const Run& run)
{
    const int rowsLog2 = 22; // 4 Mi rows of 32 floats
    const size_t rows = size_t(1) << rowsLog2;
    const size_t floats = rows * 32; // 512 MiB
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, floats * sizeof(float)));
    CHECK(cudaMalloc(&out, floats * sizeof(float)));
    fill_float<<<fillBlocks(), 256>>>(in, floats, 12u, 0xffffffu);
    CHECK(cudaGetLastError());
    const unsigned blocks = static_cast<unsigned>(smCount()) * 16u;
    const double us = timeLaunches(run.warmup, run.iters, [&] { strided_read<<<blocks, 256>>>(in, out, rowsLog2); });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(floats);
    CHECK(cudaMemcpy(back.data(), out, floats * sizeof(float), cudaMemcpyDeviceToHost));
    Mismatches bad;
    for (size_t j = 0; j < floats; ++j) {
        const float want = floatAt((j % rows) * 32 + j / rows, 12u, 0xffffffu);
        if (back[j] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "out[%zu] = %g, expected %g", j, double(back[j]), double(want));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return finish(run, us, bad, "512 MiB read at stride 32 floats, every output compared");
}

// ---- 3. transpose: naive 16384 x 16384 float transpose -----------------------------------------

// Block 32 x 8: a warp reads 32 consecutive floats of one row (coalesced) and writes them to 32
// different rows of the output, 64 KiB apart (uncoalesced). No shared-memory staging on purpose.
__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int x = blockIdx.x * 32 + threadIdx.x; // column of in
    const int y = blockIdx.y * 8 + threadIdx.y;  // row of in
    if (x < n && y < n)
        out[size_t(x) * n + y] = in[size_t(y) * n + x];
}

static int runTranspose(const Run& run)
{
    const int n = 16384;
    const size_t elems = size_t(n) * n; // 1 GiB each way
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, elems * sizeof(float)));
    CHECK(cudaMalloc(&out, elems * sizeof(float)));
    fill_float<<<fillBlocks(), 256>>>(in, elems, 13u, 0xffffffu);
    CHECK(cudaGetLastError());
    const dim3 grid(n / 32, n / 8), block(32, 8);
    const double us = timeLaunches(run.warmup, run.iters, [&] { transpose_naive<<<grid, block>>>(in, out, n); });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(elems);
    CHECK(cudaMemcpy(back.data(), out, elems * sizeof(float), cudaMemcpyDeviceToHost));
    Mismatches bad;
    for (size_t c = 0; c < size_t(n); ++c) {
        for (size_t r = 0; r < size_t(n); ++r) {
            const float got = back[c * n + r];
            const float want = floatAt(r * n + c, 13u, 0xffffffu);
            if (got != want && bad.take())
                std::snprintf(
                    bad.first, sizeof bad.first, "out[%zu][%zu] = %g, expected %g", c, r, double(got), double(want));
        }
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return finish(run, us, bad, "16384 x 16384 floats transposed, every element compared");
}

// ---- 4. gather: random reads over 4 GiB --------------------------------------------------------

constexpr size_t kGatherSource = size_t(1) << 30; // floats: 4 GiB
constexpr size_t kGatherCount = size_t(32) << 20; // gathered elements

__host__ __device__ inline uint32_t gatherIndex(size_t i)
{
    return hashAt(i, 0x6a7u) & static_cast<uint32_t>(kGatherSource - 1);
}

__global__ void fill_gather_index(uint32_t* idx, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        idx[i] = gatherIndex(i);
}

// Each load lands on a random 32-byte sector of 4 GiB: nearly every warp load misses the TLBs
// and L2, so this is latency/TLB-bound rather than bandwidth-bound.
__global__ void gather_random(
    const float* __restrict__ in, const uint32_t* __restrict__ idx, float* __restrict__ out, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        out[i] = in[idx[i]];
}

static int runGather(const Run& run)
{
    float *in = nullptr, *out = nullptr;
    uint32_t* idx = nullptr;
    CHECK(cudaMalloc(&in, kGatherSource * sizeof(float)));
    CHECK(cudaMalloc(&out, kGatherCount * sizeof(float)));
    CHECK(cudaMalloc(&idx, kGatherCount * sizeof(uint32_t)));
    fill_float<<<fillBlocks(), 256>>>(in, kGatherSource, 14u, 0xffffffu);
    fill_gather_index<<<fillBlocks(), 256>>>(idx, kGatherCount);
    CHECK(cudaGetLastError());
    const unsigned blocks = static_cast<unsigned>(smCount()) * 16u;
    const double us
        = timeLaunches(run.warmup, run.iters, [&] { gather_random<<<blocks, 256>>>(in, idx, out, kGatherCount); });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(kGatherCount);
    CHECK(cudaMemcpy(back.data(), out, kGatherCount * sizeof(float), cudaMemcpyDeviceToHost));
    Mismatches bad;
    for (size_t i = 0; i < kGatherCount; ++i) {
        const float want = floatAt(gatherIndex(i), 14u, 0xffffffu);
        if (back[i] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "out[%zu] = %g, expected in[%u] = %g", i, double(back[i]),
                gatherIndex(i), double(want));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    CHECK(cudaFree(idx));
    return finish(run, us, bad, "32 Mi random reads over 4 GiB, every output compared");
}

// ---- 5. l2reuse: a 24 MiB buffer read many times per launch ------------------------------------

// 24 MiB fits the H200's 50 MiB L2, so after the first pass (and across consecutive launches when
// the cache is not flushed) the reads hit L2. The brief asked for 16 passes; 16 x 24 MiB at the
// ~6-8 TB/s L2 bandwidth of GH100 is 50-65 us, too close to the 50 us floor, hence 24.
constexpr int kL2Passes = 24;
constexpr unsigned kL2Blocks = 768;
constexpr unsigned kL2Threads = 256;
constexpr size_t kL2Chunk = 8192;                  // floats per block per pass: 32 KiB
constexpr size_t kL2Floats = kL2Blocks * kL2Chunk; // 6 Mi floats = 24 MiB
constexpr uint32_t kL2Mask = 0xffu;                // small integers: the sums are exact

// Block b reads chunk (b + p) % gridDim.x in pass p, so over a launch every chunk is read by
// kL2Passes different blocks (on different SMs: no L1 reuse), and __ldcg keeps the loads out of
// L1 anyway: the reuse is in L2. The sum is integer, so it does not depend on the order.
__global__ void l2_reuse(const float* __restrict__ buf, uint32_t* __restrict__ blockSums, int passes)
{
    uint32_t acc = 0;
    for (int p = 0; p < passes; ++p) {
        const float* chunk = buf + ((blockIdx.x + size_t(p)) % gridDim.x) * kL2Chunk;
        // blockDim.x is kL2Threads: a fixed trip count, unrolled so several loads are in flight.
#pragma unroll 8
        for (size_t k = 0; k < kL2Chunk / kL2Threads; ++k)
            acc += static_cast<uint32_t>(__ldcg(chunk + threadIdx.x + k * kL2Threads));
    }
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    __shared__ uint32_t warpSums[kL2Threads / 32];
    if (threadIdx.x % 32 == 0)
        warpSums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t total = 0;
        for (unsigned w = 0; w < kL2Threads / 32; ++w)
            total += warpSums[w];
        blockSums[blockIdx.x] = total;
    }
}

static int runL2Reuse(const Run& run)
{
    float* buf = nullptr;
    uint32_t* sums = nullptr;
    CHECK(cudaMalloc(&buf, kL2Floats * sizeof(float)));
    CHECK(cudaMalloc(&sums, kL2Blocks * sizeof(uint32_t)));
    fill_float<<<fillBlocks(), 256>>>(buf, kL2Floats, 15u, kL2Mask);
    CHECK(cudaGetLastError());
    const double us
        = timeLaunches(run.warmup, run.iters, [&] { l2_reuse<<<kL2Blocks, kL2Threads>>>(buf, sums, kL2Passes); });
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> back(kL2Blocks);
    CHECK(cudaMemcpy(back.data(), sums, kL2Blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    std::vector<uint32_t> chunkSum(kL2Blocks, 0);
    for (size_t i = 0; i < kL2Floats; ++i)
        chunkSum[i / kL2Chunk] += static_cast<uint32_t>(floatAt(i, 15u, kL2Mask));
    Mismatches bad;
    for (unsigned b = 0; b < kL2Blocks; ++b) {
        uint32_t want = 0;
        for (int p = 0; p < kL2Passes; ++p)
            want += chunkSum[(b + p) % kL2Blocks];
        if (back[b] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "block %u summed %u, expected %u", b, back[b], want);
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(sums));
    return finish(run, us, bad, std::to_string(kL2Passes) + " passes over 24 MiB, every block sum compared");
}

// ---- 6. bankconf: 32-way shared-memory bank conflicts ------------------------------------------

// A 32-way conflict costs 32 shared-memory wavefronts, and an SM serves one per clock: 528 blocks
// (4 per SM on an H200, one wave) x 8 warps x 256 iterations x 2 accesses x 32 wavefronts is
// 6.9e7 wavefronts, ~0.5 M clocks per SM, about 300 us.
constexpr int kBankIters = 256;
constexpr unsigned kBankBlocks = 528;

__host__ __device__ inline uint32_t bankStep(uint32_t a, uint32_t v)
{
    return a * 1664525u + v;
}

// Each thread owns a row of 32 words; rows are 32 words apart, so word j of every lane's row is in
// bank j and a warp access with a warp-uniform j is a 32-way conflict (load and store alike).
// The row is volatile so the compiler keeps every access in shared memory; the stores make the
// data change so nothing can be hoisted. Rows are initialised in the kernel: idempotent.
__global__ void bank_conflicts(uint32_t* __restrict__ out, int iters)
{
    __shared__ uint32_t rows[8][32][32]; // 8 warps x 32 lanes x 32 words = 32 KiB
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    volatile uint32_t* row = rows[threadIdx.x / 32][threadIdx.x % 32];
    for (int j = 0; j < 32; ++j)
        row[j] = mix(uint64_t(tid) * 32 + j);
    uint32_t a = tid;
    for (int k = 0; k < iters; ++k) {
        const int j = k & 31; // the same j in every lane: one bank
        a = bankStep(a, row[j]);
        row[j] = a ^ static_cast<uint32_t>(k);
    }
    out[tid] = a;
}

static int runBankConf(const Run& run)
{
    const size_t threads = size_t(kBankBlocks) * 256;
    uint32_t* out = nullptr;
    CHECK(cudaMalloc(&out, threads * sizeof(uint32_t)));
    const double us
        = timeLaunches(run.warmup, run.iters, [&] { bank_conflicts<<<kBankBlocks, 256>>>(out, kBankIters); });
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> back(threads);
    CHECK(cudaMemcpy(back.data(), out, threads * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    // Every thread replayed on the host: 135 Ki threads x 256 steps.
    Mismatches bad;
    for (size_t t = 0; t < threads; ++t) {
        uint32_t row[32];
        for (int j = 0; j < 32; ++j)
            row[j] = mix(uint64_t(t) * 32 + j);
        uint32_t a = static_cast<uint32_t>(t);
        for (int k = 0; k < kBankIters; ++k) {
            const int j = k & 31;
            a = bankStep(a, row[j]);
            row[j] = a ^ static_cast<uint32_t>(k);
        }
        if (back[t] != a && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "thread %zu gave %u, expected %u", t, back[t], a);
    }
    CHECK(cudaFree(out));
    return finish(run, us, bad, std::to_string(threads) + " threads replayed on the host");
}

// ---- 7. atomics: contended atomicAdd on 64 counters ---------------------------------------------

constexpr unsigned kAtomicBlocks = 2048;
constexpr int kAtomicRounds = 8;
constexpr int kCounters = 64;

// Zeroes the counters right before every measured launch: atomic_contention accumulates, so on its
// own it is not idempotent. A profiler that replays atomic_contention must restore the counters
// between passes (as ncu does); if it does not, the final counters are a multiple of one launch's
// totals and the check below fails.
__global__ void init_counters(uint32_t* counters)
{
    if (threadIdx.x < kCounters)
        counters[threadIdx.x] = 0;
}

__host__ __device__ inline uint32_t atomicHash(uint64_t thread, int round)
{
    return mix(thread * kAtomicRounds + round);
}

// 512 Ki threads x 8 rounds = 4 Mi atomics on 64 adjacent words (two 128-byte lines): every L2
// atomic unit involved serialises.
__global__ void atomic_contention(uint32_t* counters)
{
    const uint64_t tid = blockIdx.x * uint64_t(blockDim.x) + threadIdx.x;
    for (int r = 0; r < kAtomicRounds; ++r) {
        const uint32_t h = atomicHash(tid, r);
        atomicAdd(&counters[h % kCounters], ((h >> 8) & 7u) + 1u);
    }
}

static int runAtomics(const Run& run)
{
    uint32_t* counters = nullptr;
    CHECK(cudaMalloc(&counters, kCounters * sizeof(uint32_t)));
    const double us = timeLaunches(
        run.warmup, run.iters, [&] { init_counters<<<1, kCounters>>>(counters); },
        [&] { atomic_contention<<<kAtomicBlocks, 256>>>(counters); });
    CHECK(cudaDeviceSynchronize());
    uint32_t back[kCounters];
    CHECK(cudaMemcpy(back, counters, sizeof back, cudaMemcpyDeviceToHost));
    uint32_t want[kCounters] = {};
    for (uint64_t t = 0; t < uint64_t(kAtomicBlocks) * 256; ++t) {
        for (int r = 0; r < kAtomicRounds; ++r) {
            const uint32_t h = atomicHash(t, r);
            want[h % kCounters] += ((h >> 8) & 7u) + 1u;
        }
    }
    Mismatches bad;
    for (int c = 0; c < kCounters; ++c) {
        if (back[c] != want[c] && bad.take())
            std::snprintf(bad.first, sizeof bad.first,
                "counter %d is %u, expected %u (%.3fx one launch: state not restored between replays?)", c, back[c],
                want[c], double(back[c]) / double(want[c]));
    }
    CHECK(cudaFree(counters));
    return finish(run, us, bad, "4 Mi atomics into 64 counters, every total compared (init_counters before each)");
}

// ---- 8. cublas: bf16 GEMM 4096^3, FP32 accumulation --------------------------------------------

static int runCublas(const Run& run)
{
    const int n = 4096;
    const size_t elems = size_t(n) * n;
    __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&a, elems * sizeof(*a)));
    CHECK(cudaMalloc(&b, elems * sizeof(*b)));
    CHECK(cudaMalloc(&c, elems * sizeof(*c)));
    fill_bf16<<<fillBlocks(), 256>>>(a, elems, 21u);
    fill_bf16<<<fillBlocks(), 256>>>(b, elems, 22u);
    CHECK(cudaGetLastError());
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    const float alpha = 1.0f, beta = 0.0f; // beta 0: C is written, not accumulated (idempotent)
    const double us = timeLaunches(run.warmup, run.iters, [&] {
        CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16BF, n, b, CUDA_R_16BF, n,
            &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    });
    CHECK(cudaDeviceSynchronize());
    std::vector<__nv_bfloat16> back(elems);
    CHECK(cudaMemcpy(back.data(), c, elems * sizeof(*c), cudaMemcpyDeviceToHost));
    // Column-major: C(i, j) = sum_k A(i, k) B(k, j), A(i, k) at a[i + k n]. The inputs are exact,
    // so the reference is exact; the tolerance covers FP32 accumulation and the bf16 output (2^-8).
    Mismatches bad;
    const int samples = 512;
    for (int s = 0; s < samples; ++s) {
        const size_t i = mix(uint64_t(s) * 2 + 0) % n, j = mix(uint64_t(s) * 2 + 1) % n;
        double ref = 0.0, mag = 0.0;
        for (size_t k = 0; k < size_t(n); ++k) {
            const double p = double(smallAt(i + k * n, 21u)) * double(smallAt(k + j * n, 22u));
            ref += p;
            mag += std::fabs(p);
        }
        const double got = double(__bfloat162float(back[i + j * n]));
        if (std::fabs(got - ref) > 1e-2 * std::fabs(ref) + 1e-4 * mag + 1e-3 && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "C(%zu, %zu) = %g, expected %g", i, j, got, ref);
    }
    CHECK_BLAS(cublasDestroy(h));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return finish(run, us, bad, std::to_string(samples) + " sampled entries against a host dot product");
}

// ---- 9. mma: hand tensor-core GEMM with WMMA (half in, float accumulate) ------------------------

constexpr int kMmaM = 4096, kMmaN = 4096, kMmaK = 1024;

// C (M x N, row-major, float) = A (M x K, row-major, half) * B (K x N, column-major, half: column
// n at b + n K). Block of 4 warps in 2 x 2, each warp a 32 x 32 tile (2 x 2 fragments of 16 x 16);
// the fragments are loaded straight from global memory (no shared-memory staging: a plain,
// untuned mma.sync kernel, L1/L2-bandwidth-bound). Out of place: idempotent.
__global__ void wmma_gemm(const __half* __restrict__ a, const __half* __restrict__ b, float* __restrict__ c)
{
    using namespace nvcuda;
    const int warp = threadIdx.x / 32;
    const int row0 = blockIdx.y * 64 + (warp / 2) * 32;
    const int col0 = blockIdx.x * 64 + (warp % 2) * 32;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < kMmaK; k0 += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa[2];
        wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb[2];
        for (int i = 0; i < 2; ++i)
            wmma::load_matrix_sync(fa[i], a + size_t(row0 + 16 * i) * kMmaK + k0, kMmaK);
        for (int j = 0; j < 2; ++j)
            wmma::load_matrix_sync(fb[j], b + size_t(col0 + 16 * j) * kMmaK + k0, kMmaK);
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
                wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(
                c + size_t(row0 + 16 * i) * kMmaN + col0 + 16 * j, acc[i][j], kMmaN, wmma::mem_row_major);
}

static int runMma(const Run& run)
{
    const size_t aElems = size_t(kMmaM) * kMmaK, bElems = size_t(kMmaK) * kMmaN, cElems = size_t(kMmaM) * kMmaN;
    __half *a = nullptr, *b = nullptr;
    float* c = nullptr;
    CHECK(cudaMalloc(&a, aElems * sizeof(__half)));
    CHECK(cudaMalloc(&b, bElems * sizeof(__half)));
    CHECK(cudaMalloc(&c, cElems * sizeof(float)));
    fill_half<<<fillBlocks(), 256>>>(a, aElems, 31u);
    fill_half<<<fillBlocks(), 256>>>(b, bElems, 32u);
    CHECK(cudaGetLastError());
    const dim3 grid(kMmaN / 64, kMmaM / 64);
    const double us = timeLaunches(run.warmup, run.iters, [&] { wmma_gemm<<<grid, 128>>>(a, b, c); });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(cElems);
    CHECK(cudaMemcpy(back.data(), c, cElems * sizeof(float), cudaMemcpyDeviceToHost));
    Mismatches bad;
    const int samples = 1024;
    for (int s = 0; s < samples; ++s) {
        const size_t i = mix(uint64_t(s) * 2 + 100) % kMmaM, j = mix(uint64_t(s) * 2 + 101) % kMmaN;
        double ref = 0.0;
        for (size_t k = 0; k < size_t(kMmaK); ++k)
            ref += double(smallAt(i * kMmaK + k, 31u)) * double(smallAt(j * kMmaK + k, 32u));
        const double got = back[i * kMmaN + j];
        if (std::fabs(got - ref) > 1e-3 * std::fabs(ref) + 1e-3 && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "C(%zu, %zu) = %.6f, expected %.6f", i, j, got, ref);
    }
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    return finish(run, us, bad, std::to_string(samples) + " sampled entries of 4096 x 4096 x 1024 against the host");
}

// ---- 10. fp64: DFMA chains ---------------------------------------------------------------------

constexpr unsigned kFp64Blocks = 4096;
constexpr int kFp64Steps = 1024;

// Four independent chains per thread (enough ILP to keep the FP64 pipes busy), each a dependent
// x = x m + b that converges instead of overflowing. fma() is one correctly rounded DFMA, as is
// std::fma on the host, so the host reproduces every bit.
__host__ __device__ inline double fp64Chains(uint32_t tid, int steps)
{
    double x[4];
    for (int c = 0; c < 4; ++c)
        x[c] = fma(double(tid), 1e-7, 1.0 + c);
    // Explicit fma() everywhere a multiply meets an add: nvcc and the host compiler may each
    // contract a * b + c on their own, and differently.
    double m[4], b[4];
    for (int c = 0; c < 4; ++c) {
        m[c] = fma(-double(c), 1e-4, 0.9993);
        b[c] = 1e-3 * (c + 1);
    }
    for (int s = 0; s < steps; ++s) {
        for (int c = 0; c < 4; ++c)
            x[c] = fma(x[c], m[c], b[c]);
    }
    return (x[0] + x[1]) + (x[2] + x[3]);
}

__global__ void fp64_fma(double* __restrict__ out, int steps)
{
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    out[tid] = fp64Chains(tid, steps);
}

static int runFp64(const Run& run)
{
    const size_t threads = size_t(kFp64Blocks) * 256;
    double* out = nullptr;
    CHECK(cudaMalloc(&out, threads * sizeof(double)));
    const double us = timeLaunches(run.warmup, run.iters, [&] { fp64_fma<<<kFp64Blocks, 256>>>(out, kFp64Steps); });
    CHECK(cudaDeviceSynchronize());
    std::vector<double> back(threads);
    CHECK(cudaMemcpy(back.data(), out, threads * sizeof(double), cudaMemcpyDeviceToHost));
    Mismatches bad;
    size_t checked = 0;
    for (size_t t = 0; t < threads; t += 257) {
        const double want = fp64Chains(static_cast<uint32_t>(t), kFp64Steps);
        ++checked;
        if (back[t] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "thread %zu gave %.17g, expected %.17g", t, back[t], want);
    }
    CHECK(cudaFree(out));
    return finish(run, us, bad, std::to_string(checked) + " threads recomputed bit-exactly on the host");
}

// ---- 11. tiny: a launch-bound kernel (a few microseconds, by design) ---------------------------

__global__ void tiny_kernel(int* __restrict__ out)
{
    out[threadIdx.x] = static_cast<int>(threadIdx.x) * 2;
}

static int runTiny(const Run& run)
{
    int* out = nullptr;
    CHECK(cudaMalloc(&out, 128 * sizeof(int)));
    const double us = timeLaunches(run.warmup, run.iters, [&] { tiny_kernel<<<1, 128>>>(out); });
    CHECK(cudaDeviceSynchronize());
    int back[128];
    CHECK(cudaMemcpy(back, out, sizeof back, cudaMemcpyDeviceToHost));
    Mismatches bad;
    for (int i = 0; i < 128; ++i) {
        if (back[i] != i * 2 && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "out[%d] = %d, expected %d", i, back[i], i * 2);
    }
    CHECK(cudaFree(out));
    return finish(run, us, bad, "128 elements compared (expected < 10 us)");
}

// ---- 12. cluster: cluster launch with distributed shared memory --------------------------------

constexpr size_t kClusterElems = size_t(128) << 20; // uint32: 512 MiB
constexpr unsigned kClusterThreads = 256;

// Each block sums its grid-stride share of the input (uint4 loads), puts each thread's partial in
// shared memory, and after cluster.sync() adds the peer block's partial of the same thread through
// distributed shared memory (map_shared_rank). The second cluster.sync() keeps the peer's shared
// memory alive until both blocks have read it. out[b] = sum(b) + sum(peer of b).
__global__ void cluster_dsmem(const uint4* __restrict__ in, size_t n4, uint32_t* __restrict__ out)
{
    __shared__ uint32_t partial[kClusterThreads];
    __shared__ uint32_t warpSums[kClusterThreads / 32];
    cg::cluster_group cluster = cg::this_cluster();
    uint32_t acc = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) {
        const uint4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    partial[threadIdx.x] = acc;
    cluster.sync();
    const uint32_t* peer = cluster.map_shared_rank(partial, cluster.block_rank() ^ 1u);
    acc += peer[threadIdx.x];
    cluster.sync();
    for (int off = 16; off > 0; off /= 2)
        acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (threadIdx.x % 32 == 0)
        warpSums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        uint32_t total = 0;
        for (unsigned w = 0; w < kClusterThreads / 32; ++w)
            total += warpSums[w];
        out[blockIdx.x] = total;
    }
}

static int runCluster(const Run& run)
{
    // A cluster launch needs the grid divisible by the cluster size: an even number of blocks.
    const unsigned blocks = static_cast<unsigned>(smCount()) * 8u;
    const size_t n4 = kClusterElems / 4;
    uint32_t *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, kClusterElems * sizeof(uint32_t)));
    CHECK(cudaMalloc(&out, blocks * sizeof(uint32_t)));
    fill_u32<<<fillBlocks(), 256>>>(in, kClusterElems, 41u, 0xffffu);
    CHECK(cudaGetLastError());
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 2;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kClusterThreads);
    config.dynamicSmemBytes = 0;
    config.stream = nullptr;
    config.attrs = attr;
    config.numAttrs = 1;
    const uint4* in4 = reinterpret_cast<const uint4*>(in);
    const double us
        = timeLaunches(run.warmup, run.iters, [&] { CHECK(cudaLaunchKernelEx(&config, cluster_dsmem, in4, n4, out)); });
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> back(blocks);
    CHECK(cudaMemcpy(back.data(), out, blocks * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    // uint4 i belongs to block (i / threads) % blocks; its four words are elements 4i .. 4i + 3.
    std::vector<uint32_t> blockSum(blocks, 0);
    for (size_t i = 0; i < n4; ++i) {
        uint32_t s = 0;
        for (size_t q = 0; q < 4; ++q)
            s += hashAt(4 * i + q, 41u) & 0xffffu;
        blockSum[(i / kClusterThreads) % blocks] += s;
    }
    Mismatches bad;
    for (unsigned b = 0; b < blocks; ++b) {
        const uint32_t want = blockSum[b] + blockSum[b ^ 1u];
        if (back[b] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "block %u gave %u, expected %u", b, back[b], want);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return finish(
        run, us, bad, std::to_string(blocks) + " blocks in clusters of 2, every block's own + peer sum compared");
}

// ---- 13. persistent: work-stealing y = a x + y, written out of place ---------------------------

constexpr size_t kPersistElems = size_t(64) << 20; // floats per array: 256 MiB
constexpr size_t kPersistItem = 8192;              // floats per work item
constexpr uint32_t kPersistItems = kPersistElems / kPersistItem;
constexpr unsigned kPersistThreads = 512;
constexpr float kAxpyA = 1.5f;

// work[0]: next item to take, work[1]: items done. Zeroed right before every measured launch.
__global__ void init_work(uint32_t* work)
{
    work[0] = 0;
    work[1] = 0;
}

// Grid = 2 blocks per SM, all resident; each block takes items from work[0] until they run out.
// Every block ends with exactly one failed take, so after a launch work[0] = items + blocks and
// work[1] = items: the host checks both, which catches a replay that did not restore them.
__global__ void persistent_axpy(const float4* __restrict__ x, const float4* __restrict__ y, float4* __restrict__ out,
    float a, uint32_t* __restrict__ work, uint32_t items)
{
    __shared__ uint32_t item;
    for (;;) {
        if (threadIdx.x == 0)
            item = atomicAdd(&work[0], 1u);
        __syncthreads();
        const uint32_t it = item;
        __syncthreads(); // every thread has read `item` before thread 0 takes the next one
        if (it >= items)
            break;
        const size_t base = size_t(it) * (kPersistItem / 4);
        // A trip count known at compile time (blockDim.x is kPersistThreads) lets the loads of
        // the whole item be issued before the first store.
#pragma unroll
        for (size_t k = 0; k < kPersistItem / 4 / kPersistThreads; ++k) {
            const size_t i = threadIdx.x + k * kPersistThreads;
            const float4 xv = x[base + i], yv = y[base + i];
            out[base + i]
                = make_float4(fmaf(a, xv.x, yv.x), fmaf(a, xv.y, yv.y), fmaf(a, xv.z, yv.z), fmaf(a, xv.w, yv.w));
        }
        if (threadIdx.x == 0)
            atomicAdd(&work[1], 1u);
    }
}

static int runPersistent(const Run& run)
{
    const unsigned blocks = static_cast<unsigned>(smCount()) * 2u;
    float *x = nullptr, *y = nullptr, *out = nullptr;
    uint32_t* work = nullptr;
    CHECK(cudaMalloc(&x, kPersistElems * sizeof(float)));
    CHECK(cudaMalloc(&y, kPersistElems * sizeof(float)));
    CHECK(cudaMalloc(&out, kPersistElems * sizeof(float)));
    CHECK(cudaMalloc(&work, 2 * sizeof(uint32_t)));
    fill_float<<<fillBlocks(), 256>>>(x, kPersistElems, 51u, 0xffffffu);
    fill_float<<<fillBlocks(), 256>>>(y, kPersistElems, 52u, 0xffffffu);
    CHECK(cudaGetLastError());
    const double us = timeLaunches(
        run.warmup, run.iters, [&] { init_work<<<1, 1>>>(work); },
        [&] {
            persistent_axpy<<<blocks, kPersistThreads>>>(reinterpret_cast<const float4*>(x),
                reinterpret_cast<const float4*>(y), reinterpret_cast<float4*>(out), kAxpyA, work, kPersistItems);
        });
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(kPersistElems);
    CHECK(cudaMemcpy(back.data(), out, kPersistElems * sizeof(float), cudaMemcpyDeviceToHost));
    uint32_t counters[2];
    CHECK(cudaMemcpy(counters, work, sizeof counters, cudaMemcpyDeviceToHost));
    Mismatches bad;
    if (counters[0] != kPersistItems + blocks || counters[1] != kPersistItems) {
        bad.take();
        std::snprintf(bad.first, sizeof bad.first,
            "work counters %u/%u, expected %u/%u (state not restored between replays?)", counters[0], counters[1],
            kPersistItems + blocks, kPersistItems);
    }
    for (size_t i = 0; i < kPersistElems; ++i) {
        const float want = std::fma(kAxpyA, floatAt(i, 51u, 0xffffffu), floatAt(i, 52u, 0xffffffu));
        if (back[i] != want && bad.take())
            std::snprintf(bad.first, sizeof bad.first, "out[%zu] = %g, expected %g", i, double(back[i]), double(want));
    }
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(out));
    CHECK(cudaFree(work));
    return finish(run, us, bad,
        std::to_string(kPersistItems) + " items over " + std::to_string(blocks)
            + " persistent blocks, every output compared");
}

// ---- driver ---------------------------------------------------------------------------------------

struct Mode {
    const char* name;
    const char* kernel;
    int (*run)(const Run&);
    const char* what;
};

static const Mode kModes[] = {
    {"stream", "stream_copy", runStream, "coalesced float4 copy, 512 MiB each way"},
    {"strided", "strided_read", runStrided, "512 MiB read at a stride of 32 floats, compacted output (uncoalesced)"},
    {"transpose", "transpose_naive", runTranspose, "naive 16384 x 16384 float transpose, uncoalesced writes"},
    {"gather", "gather_random", runGather, "32 Mi random reads over 4 GiB (TLB-heavy); fill_* kernels first"},
    {"l2reuse", "l2_reuse", runL2Reuse, "24 MiB read 24 times per launch through L2, per-block sums"},
    {"bankconf", "bank_conflicts", runBankConf, "32-way shared-memory bank conflicts, 256 iterations of load + store"},
    {"atomics", "atomic_contention", runAtomics, "4 Mi atomicAdd into 64 counters; init_counters before each"},
    {"cublas", "cublasGemmEx", runCublas, "cuBLAS bf16 GEMM 4096^3, FP32 accumulate (kernel name is cuBLAS's own)"},
    {"mma", "wmma_gemm", runMma, "hand WMMA GEMM 4096 x 4096 x 1024, half in, float accumulate"},
    {"fp64", "fp64_fma", runFp64, "FP64 DFMA chains, 4 independent chains of 1024 steps per thread"},
    {"tiny", "tiny_kernel", runTiny, "launch-bound <<<1, 128>>> kernel, expected < 10 us"},
    {"cluster", "cluster_dsmem", runCluster, "cluster launch (2 blocks), distributed shared memory, 512 MiB sum"},
    {"persistent", "persistent_axpy", runPersistent, "2 blocks per SM taking 8 Ki items of y = a x + y; init_work"},
};

int main(int argc, char** argv)
{
    if (argc >= 2 && !std::strcmp(argv[1], "--list")) {
        for (const Mode& m : kModes)
            std::printf("%-10s %-18s %s\n", m.name, m.kernel, m.what);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        std::fprintf(stderr, "usage: %s <mode> [--warmup N] [--iters N]\n       %s --list\n", argv[0], argv[0]);
        return 2;
    }
    int warmup = 2, iters = 5;
    for (int i = 2; i < argc; i += 2) {
        if (i + 1 >= argc) {
            std::fprintf(stderr, "option %s needs a value\n", argv[i]);
            return 2;
        }
        if (!std::strcmp(argv[i], "--warmup")) {
            warmup = std::atoi(argv[i + 1]);
        } else if (!std::strcmp(argv[i], "--iters")) {
            iters = std::atoi(argv[i + 1]);
        } else {
            std::fprintf(stderr, "unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    if (warmup < 0 || iters < 1) {
        std::fprintf(stderr, "need --warmup >= 0 and --iters >= 1\n");
        return 2;
    }
    for (const Mode& m : kModes) {
        if (argv[1] == std::string(m.name))
            return m.run(Run {m.name, m.kernel, warmup, iters});
    }
    std::fprintf(stderr, "unknown mode '%s' (--list shows them)\n", argv[1]);
    return 2;
}
