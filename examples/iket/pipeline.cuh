// SPDX-License-Identifier: MIT
#pragma once

// A warp-specialized, pipelined Hopper kernel (the shape of a TMA-fed GEMM mainloop, with a
// row reduction instead of MMAs so it needs no tensor maps): per CTA, warp 0 is the producer
// and streams 16 KB tiles into a 4-stage shared-memory ring with cp.async.bulk (completion
// counted on the stage's "full" mbarrier); warps 1 and 2 are consumers that wait for a full
// stage, reduce 8 rows each (`work` FMAs per element) and release the stage on its "empty"
// mbarrier. The grid is persistent: CTA b takes tiles b, b + gridDim.x, ...
//
// Instrumented with warpscope/iket.cuh when Traced: roles, push/pop ranges for waiting,
// issuing and computing, a mark per released stage, and an asynchronous stage_busy range per
// stage from the load's issue until the consumers free it (these overlap: 4 stages in flight).
// Included by several translation units (one built with WARPSCOPE_IKET_DISABLE): everything
// here has internal linkage.

#include <warpscope/iket.cuh>

#include <cstdint>
#include <type_traits>

WS_IKET_NAMES(PipePhase, producer, consumer, wait_empty, issue_load, stage_busy, wait_full, compute, release, drain);

namespace {

constexpr int kRowWidth = 256; // floats per row
constexpr int kTileRows = 16;
constexpr int kStages = 4;
constexpr int kConsumerWarps = 2;
constexpr int kThreads = 32 * (1 + kConsumerWarps);
constexpr unsigned kTileBytes = kTileRows * kRowWidth * sizeof(float);
constexpr size_t kSmemBytes = size_t {kStages} * kTileBytes;

struct PipelineArgs {
    const float* in = nullptr; // tiles * kTileRows rows of kRowWidth floats
    float* out = nullptr;      // one value per row
    int tiles = 0;
    int work = 16; // FMAs per element
};

__device__ __forceinline__ uint32_t smemAddress(const void* p)
{
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrierInit(uint64_t* bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddress(bar)), "r"(count) : "memory");
}

__device__ __forceinline__ void barrierArrive(uint64_t* bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smemAddress(bar)) : "memory");
}

__device__ __forceinline__ void barrierWait(uint64_t* bar, unsigned parity)
{
    uint32_t done = 0;
    do {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(smemAddress(bar)), "r"(parity)
            : "memory");
    } while (!done);
}

// One lane: expect kTileBytes on `full`, then copy the tile with the bulk-copy engine.
__device__ __forceinline__ void loadTile(float* dst, const float* src, uint64_t* full)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smemAddress(full)), "r"(kTileBytes)
                 : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smemAddress(dst)),
                 "l"(src), "r"(kTileBytes), "r"(smemAddress(full))
                 : "memory");
}

__device__ __forceinline__ float transform(float x, int work)
{
    float y = x;
    for (int k = 0; k < work; ++k)
        y = fmaf(y, 0.999f, 0.001f);
    return y;
}

// The uninstrumented variant constructs no profiler at all.
struct NoProfiler {
    __device__ explicit NoProfiler(const ws::iket::DeviceBuffer&) { }
};

// The instrumented kernel's profiler: the default one, unless a translation unit names another
// (the overhead benchmark times other recorders of warpscope/iket.cuh in the same run).
#ifndef WS_PIPELINE_PROFILER
#define WS_PIPELINE_PROFILER ws::iket::Profiler
#endif

template <bool Traced>
__global__ void __launch_bounds__(kThreads, 1) pipelinedRowReduce(PipelineArgs args, ws::iket::DeviceBuffer trace)
{
    extern __shared__ __align__(128) float tiles[];
    __shared__ __align__(8) uint64_t full[kStages];
    __shared__ __align__(8) uint64_t empty[kStages];
    std::conditional_t<Traced, WS_PIPELINE_PROFILER, NoProfiler> prof(trace);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            barrierInit(&full[s], 1);
            barrierInit(&empty[s], kConsumerWarps);
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const int myTiles = args.tiles > static_cast<int>(blockIdx.x)
        ? (args.tiles - static_cast<int>(blockIdx.x) + static_cast<int>(gridDim.x) - 1) / static_cast<int>(gridDim.x)
        : 0;

    if (warp == 0) {
        if constexpr (Traced)
            prof.role(PipePhase::producer);
        // Stage tokens in registers: the stage loop is unrolled, so each index is a constant.
        ws::iket::Token busy[kStages];
        for (int round = 0; round * kStages < myTiles; ++round) {
#pragma unroll
            for (int s = 0; s < kStages; ++s) {
                const int i = round * kStages + s;
                if (i < myTiles && round > 0) {
                    if constexpr (Traced)
                        prof.range_push(PipePhase::wait_empty);
                    barrierWait(&empty[s], (round - 1) & 1);
                    if constexpr (Traced) {
                        prof.range_pop();
                        prof.range_end(busy[s]);
                    }
                }
                if (i >= myTiles)
                    continue;
                if constexpr (Traced)
                    prof.range_push(PipePhase::issue_load);
                const long long tile = blockIdx.x + static_cast<long long>(i) * gridDim.x;
                if (lane == 0)
                    loadTile(
                        tiles + s * (kTileBytes / sizeof(float)), args.in + tile * kTileRows * kRowWidth, &full[s]);
                __syncwarp();
                if constexpr (Traced) {
                    prof.range_pop();
                    busy[s] = prof.range_start(PipePhase::stage_busy);
                }
            }
        }
        // Drain: every stage still in flight is freed before the CTA may exit (its async
        // range ends there too).
        if constexpr (Traced)
            prof.range_push(PipePhase::drain);
#pragma unroll
        for (int s = 0; s < kStages; ++s) {
            const int fills = myTiles > s ? (myTiles - s + kStages - 1) / kStages : 0; // loads into stage s
            if (fills > 0) {
                barrierWait(&empty[s], (fills - 1) & 1);
                if constexpr (Traced)
                    prof.range_end(busy[s]);
            }
        }
        if constexpr (Traced)
            prof.range_pop();
    } else {
        if constexpr (Traced)
            prof.role(PipePhase::consumer);
        const int firstRow = (warp - 1) * (kTileRows / kConsumerWarps);
        for (int round = 0; round * kStages < myTiles; ++round) {
#pragma unroll
            for (int s = 0; s < kStages; ++s) {
                const int i = round * kStages + s;
                if (i >= myTiles)
                    break;
                if constexpr (Traced)
                    prof.range_push(PipePhase::wait_full);
                barrierWait(&full[s], round & 1);
                if constexpr (Traced) {
                    prof.range_pop();
                    prof.range_push(PipePhase::compute);
                }
                const float* tile = tiles + s * (kTileBytes / sizeof(float));
                const long long tileIndex = blockIdx.x + static_cast<long long>(i) * gridDim.x;
                for (int r = 0; r < kTileRows / kConsumerWarps; ++r) {
                    const float* row = tile + (firstRow + r) * kRowWidth;
                    float sum = 0.0f;
#pragma unroll
                    for (int j = 0; j < kRowWidth / 32; ++j)
                        sum += transform(row[j * 32 + lane], args.work);
#pragma unroll
                    for (int o = 16; o > 0; o /= 2)
                        sum += __shfl_xor_sync(0xffffffffu, sum, o);
                    if (lane == 0)
                        args.out[tileIndex * kTileRows + firstRow + r] = sum;
                }
                __syncwarp();
                if constexpr (Traced)
                    prof.range_pop();
                if (lane == 0)
                    barrierArrive(&empty[s]);
                if constexpr (Traced)
                    prof.mark(PipePhase::release);
            }
        }
    }
}

// Host reference for row `row` (double accumulation of the same per-element transform).
inline double referenceRow(const float* in, long long row, int work)
{
    double sum = 0;
    for (int k = 0; k < kRowWidth; ++k) {
        float y = in[row * kRowWidth + k];
        for (int w = 0; w < work; ++w)
            y = __builtin_fmaf(y, 0.999f, 0.001f);
        sum += y;
    }
    return sum;
}

template <bool Traced>
cudaError_t launchPipeline(const PipelineArgs& args, int grid, const ws::iket::DeviceBuffer& trace, cudaStream_t stream)
{
    static const cudaError_t attr = cudaFuncSetAttribute(
        pipelinedRowReduce<Traced>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kSmemBytes));
    if (attr != cudaSuccess)
        return attr;
    pipelinedRowReduce<Traced><<<grid, kThreads, kSmemBytes, stream>>>(args, trace);
    return cudaGetLastError();
}

} // namespace
