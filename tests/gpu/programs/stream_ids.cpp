// SPDX-License-Identifier: MIT
// ws-example-stream-ids: creates N streams (default 3), prints the id each has for the program
// itself (cudaStreamGetId) and that of the legacy default stream, then puts one memset on each
// so that a recording holds GPU work on every one of them:
//   STREAM <i> <id>      LEGACY <id>
// tst_stream_ids_gpu and scripts/device/jobs/launch-overhead.sh compare these with the stream
// ids the session stores, and with the ids printed by a run without the recorder.
#include <cuda_runtime.h>

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

int main(int argc, char** argv)
{
    int n = 3;
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--streams") == 0)
            n = std::atoi(argv[i + 1]);
    void* buffer = nullptr;
    CHECK_CUDA(cudaMalloc(&buffer, 4096 * (n + 1)));
    std::vector<cudaStream_t> streams(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
        CHECK_CUDA(cudaStreamCreate(&streams[static_cast<size_t>(i)]));
        unsigned long long id = 0;
        CHECK_CUDA(cudaStreamGetId(streams[static_cast<size_t>(i)], &id));
        std::printf("STREAM %d %llu\n", i, id);
    }
    unsigned long long legacy = 0;
    CHECK_CUDA(cudaStreamGetId(cudaStreamLegacy, &legacy));
    std::printf("LEGACY %llu\n", legacy);
    for (int i = 0; i < n; ++i)
        CHECK_CUDA(cudaMemsetAsync(static_cast<char*>(buffer) + 4096 * i, i, 4096, streams[static_cast<size_t>(i)]));
    CHECK_CUDA(cudaMemsetAsync(static_cast<char*>(buffer) + 4096 * n, 7, 4096, cudaStreamLegacy));
    CHECK_CUDA(cudaDeviceSynchronize());
    for (auto s : streams)
        CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(buffer));
    std::fflush(stdout);
    return 0;
}
