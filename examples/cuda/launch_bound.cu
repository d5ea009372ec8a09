// SPDX-License-Identifier: MIT
// A launch-bound program: --launches N empty <<<1,32>>> kernels (default 20000; 100000 for
// the recorder's stress run) after 1000 warm-up launches. Prints the host time per launch,
// which is what a tracer adds to: "RESULT launches=N host_us_per_launch=X".
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK_CUDA(call)                                                                                               \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

__global__ void empty_kernel() { }

int main(int argc, char** argv)
{
    int launches = 20000;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--launches") == 0)
            launches = std::atoi(argv[i + 1]);
    for (int i = 0; i < 1000; ++i)
        empty_kernel<<<1, 32>>>();
    CHECK_CUDA(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < launches; ++i)
        empty_kernel<<<1, 32>>>();
    const auto t1 = std::chrono::steady_clock::now();
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count() / launches;
    std::printf("RESULT launches=%d host_us_per_launch=%.4f\n", launches, us);
    return 0;
}
