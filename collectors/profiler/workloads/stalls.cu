// SPDX-License-Identifier: MIT
// Three kernels whose stall reason and hot line are known in advance, for checking
// `warpscope-cli profile --section SourceCounters` (PC sampling mapped to SASS and source).
// Built with -lineinfo. Each hot line carries a marker comment "HOT(<reason>)"; the fixture
// test (tests/core/tst_source_fixture.cpp) finds the line by that marker, so moving code keeps
// the test honest without editing line numbers by hand.
//   chase_kernel       dependent global loads over a 128 MiB random cycle: long scoreboard
//   bank_conflict_kernel  dependent shared-memory loads, all 32 lanes in one bank: short
//                      scoreboard / MIO throttle
//   barrier_kernel     one warp of eight works, the others wait at __syncthreads: barrier
// Usage: warpscope-stalls [chase|bank|barrier|all] [--scale N]
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                  \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

__global__ void chase_kernel(const uint32_t* __restrict__ next, uint32_t* out, int steps)
{
    uint32_t p = blockIdx.x * blockDim.x + threadIdx.x;
    for (int s = 0; s < steps; ++s) {
        p = next[p]; // HOT(long_scoreboard)
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

__global__ void bank_conflict_kernel(uint32_t* out, int iters)
{
    // tile[r][c] depends on c only, so every lane follows the same column sequence and lane l
    // reads row l: 32 lanes, one bank, a 32-way conflict on every load of the chain.
    __shared__ uint32_t tile[32 * 32];
    for (uint32_t i = threadIdx.x; i < 32 * 32; i += blockDim.x)
        tile[i] = ((i & 31u) * 7u + 1u) & 31u;
    __syncthreads();
    const uint32_t row = (threadIdx.x & 31u) * 32u;
    uint32_t k = 0;
    uint32_t acc = 0;
    // PC sampling charges a stall to the instruction that waits (the load's first consumer), so
    // the load and its consumers share the marked line. clang-format would split it.
    // clang-format off
    for (int it = 0; it < iters; ++it) {
        k = tile[row + k]; acc += k; // HOT(short_scoreboard)
    }
    // clang-format on
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void barrier_kernel(float* out, int rounds, int work)
{
    float x = static_cast<float>(threadIdx.x) * 1e-3f;
    int r = 0;
    // A warp waiting at a barrier is sampled at the instruction after BAR.SYNC (here the loop
    // test), so the barrier and the loop test share the marked line.
    // clang-format off
    do {
        if (threadIdx.x < 32) {
            for (int i = 0; i < work; ++i)
                x = fmaf(x, 0.9999f, 0.5f);
        }
        __syncthreads(); } while (++r < rounds); // HOT(barrier)
    // clang-format on
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

namespace {

int runChase(int scale)
{
    // A single random cycle (Sattolo) over 32 Mi entries (128 MiB, well above the L2): nearly
    // every load goes to DRAM.
    const uint32_t n = 32u << 20;
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    // xorshift64 and a multiply-shift range reduction: a few hundred ms for 32 Mi swaps, where
    // std::uniform_int_distribution takes seconds (the device run has a time budget).
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = n - 1; i > 0; --i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        const auto pick = static_cast<uint32_t>(((state >> 32) * uint64_t(i)) >> 32); // in [0, i)
        std::swap(order[i], order[pick]);
    }
    std::vector<uint32_t> next(n);
    for (uint32_t i = 0; i < n; ++i)
        next[order[i]] = order[(i + 1) % n];
    uint32_t *dNext = nullptr, *dOut = nullptr;
    const int blocks = 132 * 4, threads = 256;
    CHECK(cudaMalloc(&dNext, size_t(n) * sizeof(uint32_t)));
    CHECK(cudaMalloc(&dOut, size_t(blocks) * threads * sizeof(uint32_t)));
    CHECK(cudaMemcpy(dNext, next.data(), size_t(n) * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const int steps = 1000 * scale;
    chase_kernel<<<blocks, threads>>>(dNext, dOut, steps);
    CHECK(cudaGetLastError());
    std::vector<uint32_t> out(size_t(blocks) * threads);
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    // Check a few threads against the host walk.
    for (size_t t : {size_t(0), size_t(777), out.size() - 1}) {
        uint32_t p = static_cast<uint32_t>(t);
        for (int s = 0; s < steps; ++s)
            p = next[p];
        if (p != out[t]) {
            std::fprintf(stderr, "chase_kernel: thread %zu ended at %u, expected %u\n", t, out[t], p);
            return 1;
        }
    }
    CHECK(cudaFree(dNext));
    CHECK(cudaFree(dOut));
    std::printf("chase_kernel: %d blocks x %d threads, %d dependent loads each: ok\n", blocks, threads, steps);
    return 0;
}

int runBank(int scale)
{
    const int blocks = 132 * 4, threads = 256;
    const int iters = 4000 * scale;
    uint32_t* dOut = nullptr;
    CHECK(cudaMalloc(&dOut, size_t(blocks) * threads * sizeof(uint32_t)));
    bank_conflict_kernel<<<blocks, threads>>>(dOut, iters);
    CHECK(cudaGetLastError());
    std::vector<uint32_t> out(size_t(blocks) * threads);
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t k = 0, acc = 0;
    for (int it = 0; it < iters; ++it) {
        k = (k * 7u + 1u) & 31u;
        acc += k;
    }
    for (size_t t = 0; t < out.size(); ++t) {
        if (out[t] != acc) {
            std::fprintf(stderr, "bank_conflict_kernel: thread %zu got %u, expected %u\n", t, out[t], acc);
            return 1;
        }
    }
    CHECK(cudaFree(dOut));
    std::printf(
        "bank_conflict_kernel: %d blocks x %d threads, %d conflicting loads each: ok\n", blocks, threads, iters);
    return 0;
}

int runBarrier(int scale)
{
    const int blocks = 132 * 4, threads = 256;
    const int rounds = 100 * scale, work = 2000;
    float* dOut = nullptr;
    CHECK(cudaMalloc(&dOut, size_t(blocks) * threads * sizeof(float)));
    barrier_kernel<<<blocks, threads>>>(dOut, rounds, work);
    CHECK(cudaGetLastError());
    std::vector<float> out(size_t(blocks) * threads);
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    // Thread 40 never works: its value is its start value.
    if (out[40] != 40 * 1e-3f) {
        std::fprintf(stderr, "barrier_kernel: thread 40 got %g, expected %g\n", double(out[40]), 40 * 1e-3);
        return 1;
    }
    CHECK(cudaFree(dOut));
    std::printf(
        "barrier_kernel: %d blocks x %d threads, %d rounds of %d FMAs in warp 0: ok\n", blocks, threads, rounds, work);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::string mode = "all";
    int scale = 1;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--scale" && i + 1 < argc)
            scale = std::max(1, std::atoi(argv[++i]));
        else if (a == "chase" || a == "bank" || a == "barrier" || a == "all")
            mode = a;
        else {
            std::fprintf(stderr, "usage: warpscope-stalls [chase|bank|barrier|all] [--scale N]\n");
            return 2;
        }
    }
    int rc = 0;
    if (mode == "chase" || mode == "all")
        rc |= runChase(scale);
    if (mode == "bank" || mode == "all")
        rc |= runBank(scale);
    if (mode == "barrier" || mode == "all")
        rc |= runBarrier(scale);
    return rc;
}
