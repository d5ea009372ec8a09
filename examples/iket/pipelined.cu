// SPDX-License-Identifier: MIT
// The warp-specialized pipelined kernel of pipeline.cuh, instrumented, run a few times and
// checked against a host reference. Run under `warpscope-cli record` to see the producer and
// consumer roles (waits, loads, compute, overlapping stage_busy spans) per block.
// Usage: ws-example-iket-pipelined [blocks] [tiles per block] [work] [launches]
//        (default 16 32 16 2)
#include "pipeline.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv)
{
    const int blocks = argc > 1 ? std::atoi(argv[1]) : 16;
    const int tilesPerBlock = argc > 2 ? std::atoi(argv[2]) : 32;
    const int work = argc > 3 ? std::atoi(argv[3]) : 16;
    const int launches = argc > 4 ? std::atoi(argv[4]) : 2;
    PipelineArgs args;
    args.tiles = blocks * tilesPerBlock;
    args.work = work;
    const size_t rows = static_cast<size_t>(args.tiles) * kTileRows;
    std::vector<float> in(rows * kRowWidth);
    for (size_t i = 0; i < in.size(); ++i)
        in[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000.0f;
    float* dIn = nullptr;
    float* dOut = nullptr;
    if (cudaMalloc(&dIn, in.size() * sizeof(float)) != cudaSuccess
        || cudaMalloc(&dOut, rows * sizeof(float)) != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(dIn, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice);
    args.in = dIn;
    args.out = dOut;

    // Per warp: producer 6 events per tile, consumers 5, plus role and drain.
    // (+2: the anchors of WARPSCOPE_IKET_CLOCK64_ONLY.)
    ws::iket::Launch trace("pipelined_row_reduce", dim3(blocks), dim3(kThreads), 6 * tilesPerBlock + 18, PipePhase {});
    int failures = 0;
    for (int l = 0; l < launches; ++l) {
        cudaMemset(dOut, 0, rows * sizeof(float));
        trace.arm();
        const cudaError_t e = launchPipeline<true>(args, blocks, trace.buffer(), nullptr);
        if (e != cudaSuccess) {
            std::fprintf(stderr, "launch: %s\n", cudaGetErrorString(e));
            return 1;
        }
        const ws::iket::Collected c = trace.collect();
        if (!c.ok) {
            std::fprintf(stderr, "kernel: %s\n", cudaGetErrorString(c.error));
            return 1;
        }
        std::vector<float> out(rows);
        cudaMemcpy(out.data(), dOut, rows * sizeof(float), cudaMemcpyDeviceToHost);
        for (size_t r = 0; r < rows; ++r) {
            const double expected = referenceRow(in.data(), static_cast<long long>(r), work);
            failures += std::fabs(out[r] - expected) > 1e-3 * std::fabs(expected) + 1e-3 ? 1 : 0;
        }
        std::printf("launch %d: %llu events, %llu dropped, %llu warps out of range, recorder %d\n", l,
            static_cast<unsigned long long>(c.events), static_cast<unsigned long long>(c.dropped),
            static_cast<unsigned long long>(c.outOfRangeWarps), c.recorder);
    }
    cudaFree(dIn);
    cudaFree(dOut);
    std::printf("%s: %zu rows checked against the host reference, %d wrong\n", failures ? "FAIL" : "ok",
        rows * launches, failures);
    return failures ? 1 : 0;
}
