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

enum class Shape {
    Mark,         // a mark, then work: the cost benchmark's rate kernel
    TwoMarks,     // two marks per step, work after each
    RangeAndMark, // a range around work, then a mark and more work
};

__device__ __forceinline__ float work(float x, int n, float scale)
{
    for (int j = 0; j < n; ++j)
        x = fmaf(x, scale, 0.5f);
    return x;
}

template <class Rec, Shape S> __device__ void steps(int count, int n, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::BasicProfiler<Rec> prof(trace);
    float x = static_cast<float>(threadIdx.x);
    for (int i = 0; i < count; ++i) {
        if constexpr (S == Shape::RangeAndMark) {
            prof.range_push(Name::phase);
            x = work(x, n, 1.0001f);
            prof.range_pop();
        }
        prof.mark(Name::tick);
        x = work(x, n, 1.0002f);
        if constexpr (S == Shape::TwoMarks) {
            prof.mark(Name::tock);
            x = work(x, n, 1.0003f);
        }
    }
    if (x == 12345.0f)
        sink[0] = x;
}

// One kernel per shape, named for it (the test finds them by name).
template <class Rec> __global__ void markLoop(int count, int n, float* sink, ws::iket::DeviceBuffer trace)
{
    steps<Rec, Shape::Mark>(count, n, sink, trace);
}
template <class Rec> __global__ void twoMarks(int count, int n, float* sink, ws::iket::DeviceBuffer trace)
{
    steps<Rec, Shape::TwoMarks>(count, n, sink, trace);
}
template <class Rec> __global__ void rangeAndMark(int count, int n, float* sink, ws::iket::DeviceBuffer trace)
{
    steps<Rec, Shape::RangeAndMark>(count, n, sink, trace);
}

#define WS_INSTANTIATE(kernel)                                                                                         \
    template __global__ void kernel<ws::iket::DefaultRecorder>(int, int, float*, ws::iket::DeviceBuffer);              \
    template __global__ void kernel<ws::iket::detail::NullRecorder>(int, int, float*, ws::iket::DeviceBuffer);         \
    template __global__ void kernel<ws::iket::detail::CompactRecorder<true, ws::iket::detail::Store::Pair>>(           \
        int, int, float*, ws::iket::DeviceBuffer);
WS_INSTANTIATE(markLoop)
WS_INSTANTIATE(twoMarks)
WS_INSTANTIATE(rangeAndMark)
