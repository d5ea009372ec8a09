// SPDX-License-Identifier: MIT
// The pipelined kernel instrumented with every event held in registers until the next call
// (CompactRecorder<true, Store::HoldAll> and <true, Store::HoldAllTight>): the overhead
// benchmark's "instrumented_holdall" and "instrumented_holdall_tight" variants, timed beside the
// default recorder in the same run.
#include <warpscope/iket.cuh>

#define WS_PIPELINE_PROFILER ws::iket::BasicProfiler<ws::iket::detail::CompactRecorder<true, WS_PIPELINE_STORE>>
#ifndef WS_PIPELINE_STORE
#define WS_PIPELINE_STORE ws::iket::detail::Store::HoldAll
#define WS_PIPELINE_LAUNCH launchPipelineHoldAll
#endif
#include "pipeline.cuh"

cudaError_t WS_PIPELINE_LAUNCH(const float* in, float* out, int tiles, int work, int grid,
    const ws::iket::DeviceBuffer& trace, cudaStream_t stream)
{
    PipelineArgs args;
    args.in = in;
    args.out = out;
    args.tiles = tiles;
    args.work = work;
    return launchPipeline<true>(args, grid, trace, stream);
}
