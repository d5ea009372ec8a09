// SPDX-License-Identifier: MIT
// Prints cudaOccupancyMaxActiveBlocksPerMultiprocessor for a grid of launch configurations
// (register counts x block sizes x dynamic shared memory x carveout preferences) on the
// current device, as the fixture tests/fixtures/metrics/occupancy-<gpu>.txt that the core
// occupancy calculator is tested against. Kernels with different register counts come from
// one register-hungry kernel capped with __maxnreg__; the actual count is read back.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cudacheck.h"

// Tag separates instantiations with the same cap so a carveout attribute set on one does not
// leak into another.
template <int R, int StaticSmem, int Tag>
__global__ void __maxnreg__(R) pressure(const float* __restrict__ in, float* out, int n)
{
    constexpr int kAcc = 160;
    float acc[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i)
        acc[i] = in[(threadIdx.x + i * 97) % n];
    for (int k = 0; k < n; ++k) {
#pragma unroll
        for (int i = 0; i < kAcc; ++i)
            acc[i] = acc[i] * acc[(i + 7) % kAcc] + in[(k + i) % n];
    }
    float s = 0;
    if constexpr (StaticSmem > 0) {
        __shared__ float tile[StaticSmem / 4];
        tile[threadIdx.x % (StaticSmem / 4)] = acc[0];
        __syncthreads();
        s += tile[(threadIdx.x + 1) % (StaticSmem / 4)];
    }
#pragma unroll
    for (int i = 0; i < kAcc; ++i)
        s += acc[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

using KernelFn = void (*)(const float*, float*, int);

struct KernelCase {
    KernelFn fn;
    bool optIn;   // raise MaxDynamicSharedMemorySize to the opt-in limit
    int carveout; // PreferredSharedMemoryCarveout, -1 = leave unset
};

int main()
{
    int dev = 0;
    CHECK(cudaSetDevice(dev));
    cudaDeviceProp p {};
    CHECK(cudaGetDeviceProperties(&p, dev));
    int maxBlocksPerSm = 0;
    CHECK(cudaDeviceGetAttribute(&maxBlocksPerSm, cudaDevAttrMaxBlocksPerMultiprocessor, dev));
    std::printf("# cudaOccupancyMaxActiveBlocksPerMultiprocessor on %s\n", p.name);
    std::printf("device cc=%d.%d sms=%d regs_per_sm=%d regs_per_block=%d smem_per_sm=%zu smem_per_block=%zu "
                "smem_optin=%zu smem_reserved=%zu max_threads_per_sm=%d max_blocks_per_sm=%d max_threads_per_block=%d "
                "warp_size=%d name=%s\n",
        p.major, p.minor, p.multiProcessorCount, p.regsPerMultiprocessor, p.regsPerBlock, p.sharedMemPerMultiprocessor,
        p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.reservedSharedMemPerBlock, p.maxThreadsPerMultiProcessor,
        maxBlocksPerSm, p.maxThreadsPerBlock, p.warpSize, p.name);
    std::printf("# columns: regs static_smem max_dyn_smem carveout block_size dyn_smem blocks_per_sm "
                "(max_dyn_smem 0 = attribute not raised; carveout -1 = no preference; blocks -1 = error)\n");

    std::vector<KernelCase> cases = {
        {pressure<24, 0, 0>, true, -1},
        {pressure<32, 0, 0>, true, -1},
        {pressure<40, 0, 0>, true, -1},
        {pressure<48, 0, 0>, true, -1},
        {pressure<56, 0, 0>, true, -1},
        {pressure<64, 0, 0>, true, -1},
        {pressure<72, 0, 0>, true, -1},
        {pressure<80, 0, 0>, true, -1},
        {pressure<96, 0, 0>, true, -1},
        {pressure<112, 0, 0>, true, -1},
        {pressure<128, 0, 0>, true, -1},
        {pressure<144, 0, 0>, true, -1},
        {pressure<168, 0, 0>, true, -1},
        {pressure<192, 0, 0>, true, -1},
        {pressure<216, 0, 0>, true, -1},
        {pressure<232, 0, 0>, true, -1},
        {pressure<255, 0, 0>, true, -1},
        {pressure<32, 4096, 0>, true, -1},
        {pressure<64, 40960, 0>, true, -1},
        {pressure<32, 0, 1>, false, -1},
        {pressure<32, 0, 2>, true, 0},
        {pressure<32, 0, 3>, true, 25},
        {pressure<32, 0, 4>, true, 50},
        {pressure<32, 0, 5>, true, 100},
    };
    const int blockSizes[] = {32, 64, 96, 128, 160, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024};
    const int dynSmem[] = {0, 1024, 2048, 4096, 8192, 12288, 16384, 24576, 32768, 40960, 49152, 65536, 81920, 98304,
        116736, 131072, 163840, 196608, 232448};

    for (const auto& c : cases) {
        cudaFuncAttributes fa {};
        CHECK(cudaFuncGetAttributes(&fa, c.fn));
        int maxDyn = 0;
        if (c.optIn) {
            maxDyn = static_cast<int>(p.sharedMemPerBlockOptin) - static_cast<int>(fa.sharedSizeBytes);
            CHECK(cudaFuncSetAttribute(c.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, maxDyn));
        }
        if (c.carveout >= 0)
            CHECK(cudaFuncSetAttribute(c.fn, cudaFuncAttributePreferredSharedMemoryCarveout, c.carveout));
        for (int b : blockSizes) {
            for (int d : dynSmem) {
                int blocks = -1;
                cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, c.fn, b, d);
                if (e != cudaSuccess) {
                    blocks = -1;
                    cudaGetLastError();
                }
                std::printf(
                    "%d %zu %d %d %d %d %d\n", fa.numRegs, fa.sharedSizeBytes, maxDyn, c.carveout, b, d, blocks);
            }
        }
    }
    return 0;
}
