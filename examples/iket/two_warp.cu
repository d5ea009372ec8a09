// SPDX-License-Identifier: MIT
// The seed's two-warp kernel in CUDA C++: one CTA, warp 0 moves 256 floats from global to
// shared memory, both warps meet at a CTA barrier, warp 1 computes out = 2 * in + 1. Three
// ranges (producer_load, wait_for_data, consumer_compute) and a kernel_start mark per warp.
// Run under `warpscope-cli record` to see the two roles on the timeline.
// Usage: ws-example-iket-two-warp [launches]   (default 3)
#include <warpscope/iket.cuh>

#include <cstdio>
#include <cstdlib>
#include <vector>

WS_IKET_NAMES(Phase, producer, consumer, kernel_start, producer_load, wait_for_data, consumer_compute);

namespace {

constexpr int N = 256;
constexpr int kElemsPerLane = 8;

__global__ void warpRoleExample(const float* in, float* out, ws::iket::DeviceBuffer trace)
{
    ws::iket::Profiler profiler(trace);
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    __shared__ float shared[N];

    profiler.role(warp == 0 ? Phase::producer : Phase::consumer);
    profiler.mark(Phase::kernel_start);
    if (warp == 0) {
        profiler.range_push(Phase::producer_load);
        for (int i = 0; i < kElemsPerLane; ++i)
            shared[i * 32 + lane] = in[i * 32 + lane];
        profiler.range_pop();
    }

    profiler.range_push(Phase::wait_for_data);
    __syncthreads();
    profiler.range_pop();

    if (warp == 1) {
        profiler.range_push(Phase::consumer_compute);
        for (int i = 0; i < kElemsPerLane; ++i)
            out[i * 32 + lane] = shared[i * 32 + lane] * 2.0f + 1.0f;
        profiler.range_pop();
    }
}

bool check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

} // namespace

int main(int argc, char** argv)
{
    const int launches = argc > 1 ? std::atoi(argv[1]) : 3;
    std::vector<float> host(N);
    for (int i = 0; i < N; ++i)
        host[i] = static_cast<float>(i);
    float* in = nullptr;
    float* out = nullptr;
    if (!check(cudaMalloc(&in, N * sizeof(float)), "cudaMalloc")
        || !check(cudaMalloc(&out, N * sizeof(float)), "cudaMalloc"))
        return 1;
    check(cudaMemcpy(in, host.data(), N * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");

    ws::iket::Launch trace("warp_role_example", dim3(1), dim3(64), 16, Phase {});
    int failures = 0;
    for (int l = 0; l < launches; ++l) {
        check(cudaMemset(out, 0, N * sizeof(float)), "cudaMemset");
        trace.arm();
        warpRoleExample<<<1, 64>>>(in, out, trace.buffer());
        if (!check(cudaGetLastError(), "launch"))
            return 1;
        const ws::iket::Collected c = trace.collect();
        std::vector<float> result(N);
        check(cudaMemcpy(result.data(), out, N * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
        for (int i = 0; i < N; ++i)
            failures += result[i] != host[i] * 2.0f + 1.0f ? 1 : 0;
        std::printf("launch %d: %llu events, %llu dropped, recorder %d\n", l, static_cast<unsigned long long>(c.events),
            static_cast<unsigned long long>(c.dropped), c.recorder);
    }
    cudaFree(in);
    cudaFree(out);
    std::printf("%s: out == 2 * in + 1 %s\n", failures ? "FAIL" : "ok", failures ? "violated" : "for every element");
    return failures ? 1 : 0;
}
