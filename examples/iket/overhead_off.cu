// SPDX-License-Identifier: MIT
// The pipelined kernel with every warpscope/iket.cuh call compiled out
// (WARPSCOPE_IKET_DISABLE): the overhead benchmark's "compiled-out" variant.
#define WARPSCOPE_IKET_DISABLE
#include "pipeline.cuh"

cudaError_t launchPipelineCompiledOut(const float* in, float* out, int tiles, int work, int grid, cudaStream_t stream)
{
    PipelineArgs args;
    args.in = in;
    args.out = out;
    args.tiles = tiles;
    args.work = work;
    return launchPipeline<true>(args, grid, ws::iket::DeviceBuffer {}, stream);
}
