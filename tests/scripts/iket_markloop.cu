// SPDX-License-Identifier: MIT
// Compiled to PTX by tst_iket_markloop.py (CI, no GPU): marks in loops whose work has a runtime
// trip count, the first as the cost benchmark's rate kernel. With the default recorder the
// compiler must compute the work loop's trip count once, before the outer loop, as it does
// without a recorder: the redone arithmetic was what a mark cost after a runtime loop
// (docs/iket.md, "marks keep their registers").
#include <warpscope/iket.cuh>

namespace {
enum class Name : uint16_t { tick, tock, phase };
}

// The cost benchmark's rate kernel: a mark, then work.
template <class Rec> __global__ void markLoop(int steps, int work, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < steps; ++i) {
        prof.mark(Name::tick);
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// Two marks per step, work after each.
template <class Rec> __global__ void twoMarks(int steps, int work, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < steps; ++i) {
        prof.mark(Name::tick);
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
        prof.mark(Name::tock);
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0002f, 0.5f);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// A range around work, then a mark and more work.
template <class Rec> __global__ void rangeAndMark(int steps, int work, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < steps; ++i) {
        prof.range_push(Name::phase);
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
        prof.range_pop();
        prof.mark(Name::tick);
        for (int j = 0; j < work; ++j)
            x = fmaf(x, 1.0002f, 0.5f);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

#define WS_INSTANTIATE(kernel)                                                                                         \
    template __global__ void kernel<ws::iket::DefaultRecorder>(int, int, float*, ws::iket::DeviceBuffer);              \
    template __global__ void kernel<ws::iket::detail::NullRecorder>(int, int, float*, ws::iket::DeviceBuffer);         \
    template __global__ void kernel<ws::iket::detail::CompactRecorder<true, ws::iket::detail::Store::Pair>>(           \
        int, int, float*, ws::iket::DeviceBuffer);
WS_INSTANTIATE(markLoop)
WS_INSTANTIATE(twoMarks)
WS_INSTANTIATE(rangeAndMark)
