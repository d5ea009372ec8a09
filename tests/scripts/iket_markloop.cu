// SPDX-License-Identifier: MIT
// Compiled to PTX by tst_iket_markloop.py (CI, no GPU): a mark in a loop whose work has a
// runtime trip count, as the cost benchmark's rate kernel. With the default recorder the
// compiler must compute the work loop's trip count once, before the outer loop, as it does
// without a recorder: the redone arithmetic was what a mark cost after a runtime loop
// (docs/iket.md, "marks keep their registers").
#include <warpscope/iket.cuh>

namespace {
enum class Name : uint16_t { tick };
}

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

template __global__ void markLoop<ws::iket::DefaultRecorder>(int, int, float*, ws::iket::DeviceBuffer);
template __global__ void markLoop<ws::iket::detail::NullRecorder>(int, int, float*, ws::iket::DeviceBuffer);
template __global__ void markLoop<ws::iket::detail::CompactRecorder<true, ws::iket::detail::Store::Pair>>(
    int, int, float*, ws::iket::DeviceBuffer);
