// SPDX-License-Identifier: MIT
// Dirty-line probe (issue 18): how many dirty L2 lines a profiler's pass starts with, as a function
// of what the kernel writes. ncu's `none` passes write 2-4 MB more to DRAM than ours on kernels
// that stream more than L2 holds (docs/kernel-metrics.md, "Still different"); a kernel that reads
// a buffer far larger than L2 evicts every line it finds, so its DRAM bytes written are its own
// writes plus the dirty lines its pass started with.
//
//   warpscope-dirtyprobe [--alloc-mib S] [--values same|inc] [--launches N]
//
// probe_read_sum reads 1 GiB of floats (all 1.0) and writes one partial sum per block, 8192 blocks
// (32 KiB), into the first 32 KiB of an allocation of S MiB (default 2). --values same: each launch
// writes the same values (idempotent, a compare finds nothing changed); inc: each launch adds its
// sums to what is there, so the memory changes every launch and a replay must restore it. The
// result of the last launch is checked on the host: every partial sum must be 32768 times the
// launches the program made (a replay that restores correctly is invisible to it).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../cudacheck.h"

namespace {

constexpr unsigned kBlocks = 8192;
constexpr unsigned kThreads = 256;
constexpr size_t kFloats = size_t(1) << 28; // 1 GiB

__global__ void fill_ones(float4* p, size_t n4)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x)
        p[i] = make_float4(1.f, 1.f, 1.f, 1.f);
}

// Each block sums its contiguous 1/kBlocks of the input (exactly 32768 ones: a float holds it).
__global__ void probe_read_sum(const float4* __restrict__ in, float* __restrict__ out, int accumulate)
{
    const size_t per = kFloats / 4 / kBlocks;
    const float4* mine = in + blockIdx.x * per;
    float s = 0.f;
    for (size_t i = threadIdx.x; i < per; i += blockDim.x) {
        const float4 v = mine[i];
        s += v.x + v.y + v.z + v.w;
    }
    __shared__ float part[kThreads];
    part[threadIdx.x] = s;
    __syncthreads();
    for (unsigned w = kThreads / 2; w > 0; w /= 2) {
        if (threadIdx.x < w)
            part[threadIdx.x] += part[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = accumulate ? out[blockIdx.x] + part[0] : part[0];
}

} // namespace

int main(int argc, char** argv)
{
    size_t allocMiB = 2;
    bool inc = false;
    int launches = 4;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--alloc-mib"))
            allocMiB = std::strtoull(argv[i + 1], nullptr, 10);
        else if (!std::strcmp(argv[i], "--values"))
            inc = !std::strcmp(argv[i + 1], "inc");
        else if (!std::strcmp(argv[i], "--launches"))
            launches = std::atoi(argv[i + 1]);
        else {
            std::fprintf(stderr, "usage: %s [--alloc-mib S] [--values same|inc] [--launches N]\n", argv[0]);
            return 2;
        }
    }
    if ((allocMiB << 20) < kBlocks * sizeof(float) || launches < 1) {
        std::fprintf(stderr, "dirtyprobe: --alloc-mib must hold 32 KiB and --launches be at least 1\n");
        return 2;
    }
    float* in = nullptr;
    float* out = nullptr;
    CHECK(cudaMalloc(&in, kFloats * sizeof(float)));
    CHECK(cudaMalloc(&out, allocMiB << 20));
    CHECK(cudaMemset(out, 0, allocMiB << 20));
    fill_ones<<<1024, 256>>>(reinterpret_cast<float4*>(in), kFloats / 4);
    CHECK(cudaGetLastError());
    for (int l = 0; l < launches; ++l)
        probe_read_sum<<<kBlocks, kThreads>>>(reinterpret_cast<const float4*>(in), out, inc ? 1 : 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(kBlocks);
    CHECK(cudaMemcpy(back.data(), out, kBlocks * sizeof(float), cudaMemcpyDeviceToHost));
    const float want = 32768.f * static_cast<float>(inc ? launches : 1);
    size_t bad = 0;
    for (unsigned b = 0; b < kBlocks; ++b)
        bad += back[b] != want;
    std::printf("dirtyprobe: alloc %zu MiB, values %s, %d launches: %s (%zu of %u partial sums wrong, want %g)\n",
        allocMiB, inc ? "inc" : "same", launches, bad ? "check FAILED" : "check passed", bad, kBlocks, double(want));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return bad ? 1 : 0;
}
