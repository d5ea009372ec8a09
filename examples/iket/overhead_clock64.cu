// SPDX-License-Identifier: MIT
// The pipelined kernel instrumented with events timed by clock64 alone
// (WARPSCOPE_IKET_CLOCK64_ONLY): the overhead benchmark's "instrumented_clock64" variant.
#define WARPSCOPE_IKET_CLOCK64_ONLY
#include "pipeline.cuh"

WS_IKET_NAMES(LoopName64, tick);

namespace {

__global__ void markLoopClock64(int iterations, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < iterations; ++i) {
        x = fmaf(x, 1.0001f, 0.5f);
        prof.mark(LoopName64::tick);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

} // namespace

cudaError_t launchPipelineClock64(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream)
{
    PipelineArgs args;
    args.in = in;
    args.out = out;
    args.tiles = tiles;
    args.work = work;
    return launchPipeline<true>(args, grid, trace, stream);
}

void launchMarkLoopClock64(int blocks, int threads, int iterations, float* sink, const ws::iket::DeviceBuffer& trace)
{
    markLoopClock64<<<blocks, threads>>>(iterations, sink, trace);
}
