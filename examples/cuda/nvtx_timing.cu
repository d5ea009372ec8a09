// SPDX-License-Identifier: MIT
// The reference for `warpscope-cli record --nvtx-timing step`: every iteration of the timed loop
// is an NVTX range "step" on the legacy default stream, and the program brackets the same work
// with its own CUDA events right inside the range, then prints each iteration's event time and
// their median. The recorder's events (at push and pop) must agree with these within 1 %.
//   ws-example-nvtx-timing [--iters N (30)] [--warmup N (5)] [--work-us N (2000)] [--sync]
//                          [--csv FILE]
// --work-us sets the length of the step's GPU work (a compute kernel followed by a memory
// kernel); --sync synchronises after every iteration, so each step starts on an idle GPU
// (the launch gap after the recorder's push-side event is then inside its interval).
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                                                               \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace {

// A dependent FMA chain: run time grows linearly with `steps`, independent of memory.
__global__ void compute_kernel(float* out, int steps)
{
    float x = threadIdx.x * 1e-3f, y = 1.0001f;
    for (int i = 0; i < steps; ++i)
        x = fmaf(x, y, 1e-7f);
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void scale_kernel(float* data, size_t n)
{
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n)
        data[i] = data[i] * 0.5f + 1.0f;
}

int argInt(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}

const char* argStr(int argc, char** argv, const char* name)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return nullptr;
}

bool hasArg(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    const int iters = argInt(argc, argv, "--iters", 30);
    const int warmup = argInt(argc, argv, "--warmup", 5);
    const int workUs = std::max(argInt(argc, argv, "--work-us", 2000), 10);
    const bool sync = hasArg(argc, argv, "--sync");
    const char* csv = argStr(argc, argv, "--csv");

    CHECK_CUDA(cudaFree(nullptr)); // the context exists before the first range
    const int blocks = 264, threads = 256;
    const size_t n = size_t(32) << 20; // 128 MiB of floats for the memory kernel
    float *out = nullptr, *data = nullptr;
    CHECK_CUDA(cudaMalloc(&out, sizeof(float) * blocks * threads));
    CHECK_CUDA(cudaMalloc(&data, sizeof(float) * n));
    CHECK_CUDA(cudaMemset(data, 0, sizeof(float) * n));

    // Calibrate the FMA chain so the compute kernel takes about 80 % of --work-us.
    cudaEvent_t c0, c1;
    CHECK_CUDA(cudaEventCreate(&c0));
    CHECK_CUDA(cudaEventCreate(&c1));
    int steps = 1 << 14;
    float ms = 0;
    for (int round = 0; round < 3; ++round) {
        CHECK_CUDA(cudaEventRecord(c0));
        compute_kernel<<<blocks, threads>>>(out, steps);
        CHECK_CUDA(cudaEventRecord(c1));
        CHECK_CUDA(cudaEventSynchronize(c1));
        CHECK_CUDA(cudaEventElapsedTime(&ms, c0, c1));
        const double target = workUs * 0.8e-3;
        steps = std::max(1, static_cast<int>(steps * target / std::max(ms, 1e-3f)));
    }

    const auto work = [&] {
        compute_kernel<<<blocks, threads>>>(out, steps);
        scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(data, n);
    };
    for (int i = 0; i < warmup; ++i)
        work();
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<cudaEvent_t> ev(static_cast<size_t>(iters) * 2);
    for (auto& e : ev)
        CHECK_CUDA(cudaEventCreate(&e));
    for (int i = 0; i < iters; ++i) {
        nvtxRangePushA("step");
        CHECK_CUDA(cudaEventRecord(ev[i * 2]));
        work();
        CHECK_CUDA(cudaEventRecord(ev[i * 2 + 1]));
        nvtxRangePop();
        if (sync)
            CHECK_CUDA(cudaDeviceSynchronize());
    }
    CHECK_CUDA(cudaDeviceSynchronize());

    std::vector<float> times;
    for (int i = 0; i < iters; ++i) {
        CHECK_CUDA(cudaEventElapsedTime(&ms, ev[i * 2], ev[i * 2 + 1]));
        times.push_back(ms);
    }
    if (csv) {
        if (FILE* f = std::fopen(csv, "w")) {
            std::fprintf(f, "instance,event_ms\n");
            for (int i = 0; i < iters; ++i)
                std::fprintf(f, "%d,%.6f\n", i, times[i]);
            std::fclose(f);
        }
    }
    std::vector<float> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const double median = sorted.empty() ? 0.0
        : sorted.size() % 2              ? sorted[sorted.size() / 2]
                                         : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
    std::printf("step: %d iterations%s, own CUDA events: median %.4f ms, min %.4f ms, max %.4f ms\n", iters,
        sync ? " (synchronised)" : "", median, sorted.empty() ? 0.0 : sorted.front(),
        sorted.empty() ? 0.0 : sorted.back());
    std::printf("RESULT step_event_median_ms=%.6f iterations=%d\n", median, iters);

    for (auto& e : ev)
        cudaEventDestroy(e);
    cudaEventDestroy(c0);
    cudaEventDestroy(c1);
    cudaFree(out);
    cudaFree(data);
    return 0;
}
