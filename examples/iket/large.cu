// SPDX-License-Identifier: MIT
// In-kernel traces at scale, for the GPU test and the iket-cost device job:
//
//   ws-example-iket-large big [blocks] [warps per block] [ranges]
//       one launch where warp g (of the grid) records ranges + 3 * (g % 11) ranges (push/pop),
//       named a, b, c, a, b, ... in order, between a role() and a final mark(): with the
//       defaults (132 x 8 warps, 2,100 ranges) about 4.5 M events, over 64 MB of buffer.
//       Every event has a slot. Prints what each warp wrote and what collect() counted.
//   ws-example-iket-large lost
//       a launch of 4 blocks x 4 warps with 64 slots per warp, where warp 1 of block 2 and
//       warp 3 of block 3 record 200 marks and every other warp 10: those two warps run out of
//       slots, and the events they lost must be reported with the kernel and the warps.
// Exit status 0 when the launches ran and collect() saw the expected counts.
#include <warpscope/iket.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>

WS_IKET_NAMES(LargeName, worker, a, b, c, done, tick);

namespace {

__host__ __device__ constexpr unsigned rangesOf(unsigned globalWarp, unsigned base)
{
    return base + 3u * (globalWarp % 11u);
}

__global__ void bigKernel(unsigned base, float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler prof(trace);
    const unsigned warpsPerBlock = blockDim.x / 32u;
    const unsigned globalWarp = blockIdx.x * warpsPerBlock + threadIdx.x / 32u;
    prof.role(LargeName::worker);
    float x = static_cast<float>(threadIdx.x);
    const unsigned n = rangesOf(globalWarp, base);
    for (unsigned i = 0; i < n; ++i) {
        const unsigned k = i % 3u;
        prof.range_push(k == 0 ? LargeName::a : k == 1 ? LargeName::b : LargeName::c);
        for (int j = 0; j < 8; ++j)
            x = fmaf(x, 1.0001f, 0.5f);
        prof.range_pop();
    }
    prof.mark(LargeName::done);
    if (x == 12345.0f)
        sink[0] = x;
}

__host__ __device__ constexpr unsigned marksOf(unsigned block, unsigned warp)
{
    return (block == 2 && warp == 1) || (block == 3 && warp == 3) ? 200u : 10u;
}

__global__ void lostKernel(float* sink, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler prof(trace);
    const unsigned warp = threadIdx.x / 32u;
    float x = static_cast<float>(threadIdx.x);
    const unsigned n = marksOf(blockIdx.x, warp);
    for (unsigned i = 0; i < n; ++i) {
        x = fmaf(x, 1.0001f, 0.5f);
        prof.mark(LargeName::tick);
    }
    if (x == 12345.0f)
        sink[0] = x;
}

int fail(const char* what, cudaError_t e)
{
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

} // namespace

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "big";
    float* sink = nullptr;
    if (const cudaError_t e = cudaMalloc(&sink, sizeof(float)); e != cudaSuccess)
        return fail("cudaMalloc", e);
    if (std::strcmp(mode, "big") == 0) {
        const unsigned blocks = argc > 2 ? std::atoi(argv[2]) : 132;
        const unsigned warps = argc > 3 ? std::atoi(argv[3]) : 8;
        const unsigned base = argc > 4 ? std::atoi(argv[4]) : 2100;
        const unsigned most = 2 * rangesOf(10, base) + 2; // role + ranges + mark
        ws::iket::Launch trace("large", dim3(blocks), dim3(32 * warps), most, LargeName {});
        if (!trace.buffer().header)
            return fail("Launch", cudaErrorMemoryAllocation);
        unsigned long long expected = 0;
        for (unsigned g = 0; g < blocks * warps; ++g)
            expected += 2ull * rangesOf(g, base) + 2;
        std::printf("big: %u blocks x %u warps, ranges per warp = %u + 3 * (warp of grid %% 11), buffer %.1f MB\n",
            blocks, warps, base, trace.bytes() / 1e6);
        trace.arm();
        bigKernel<<<blocks, 32 * warps>>>(base, sink, trace.buffer());
        const ws::iket::Collected c = trace.collect();
        if (!c.ok)
            return fail("collect", c.error);
        // collect() counts the two anchors of each warp as well.
        const unsigned long long anchors = 2ull * blocks * warps;
        std::printf("big: expected %llu events (+%llu anchors), collected %llu, dropped %llu, recorder %d\n", expected,
            anchors, c.events, c.dropped, c.recorder);
        std::printf("big: events %.1f MB at 16 bytes each\n", (c.events * 16.0) / 1e6);
        return c.events == expected + anchors && c.dropped == 0 ? 0 : 1;
    }
    if (std::strcmp(mode, "lost") == 0) {
        ws::iket::BasicLaunch<ws::iket::DefaultRecorder> trace("lost", dim3(4), dim3(128), 62, LargeName {});
        trace.arm();
        lostKernel<<<4, 128>>>(sink, trace.buffer());
        const ws::iket::Collected c = trace.collect();
        if (!c.ok)
            return fail("collect", c.error);
        const unsigned slots = trace.buffer().eventsPerWarp;
        unsigned long long lost = 0;
        for (unsigned b = 0; b < 4; ++b)
            for (unsigned w = 0; w < 4; ++w)
                lost += marksOf(b, w) + 2 > slots ? marksOf(b, w) + 2 - slots : 0;
        std::printf("lost: %u slots per warp; block 2 warp 1 and block 3 warp 3 write 200 marks: %llu events lost "
                    "(collect: %llu stored, %llu dropped, recorder %d)\n",
            slots, lost, c.events, c.dropped, c.recorder);
        return c.dropped == lost ? 0 : 1;
    }
    std::fprintf(stderr, "usage: ws-example-iket-large big [blocks] [warps per block] [ranges] | lost\n");
    return 2;
}
