// SPDX-License-Identifier: MIT
// Cross-stream dependencies through CUDA events, for the timeline's dependency arrows: per
// iteration a fork-join over three streams.
//
//   s0: produce ──record(fork)─────────────────────────wait(joinB) wait(joinC)── combine
//   s1:              wait(fork)── consume_b ──record(joinB)
//   s2:              wait(fork)── consume_c ──record(joinC)
//
// so each iteration has four dependencies: produce → consume_b, produce → consume_c,
// consume_b → combine, consume_c → combine. Every kernel spins for --spin-us microseconds
// (default 50) so that the waits are real. The last iteration's join is also waited for from
// the host (cudaEventSynchronize). Prints the expected edges and the streams' ids.
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

namespace {

// Spins for about `ns` nanoseconds of the SM's global timer, then adds to one element, so the
// kernel has a visible, predictable length whatever the clocks.
__device__ void spin(long long ns)
{
    unsigned long long t0 = 0, t = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    } while (static_cast<long long>(t - t0) < ns);
}

__global__ void produce(float* x, long long ns)
{
    spin(ns);
    if (threadIdx.x == 0)
        x[0] = 1.0f;
}

__global__ void consume_b(const float* x, float* b, long long ns)
{
    spin(ns);
    if (threadIdx.x == 0)
        b[0] = x[0] + 1.0f;
}

__global__ void consume_c(const float* x, float* c, long long ns)
{
    spin(ns);
    if (threadIdx.x == 0)
        c[0] = x[0] + 2.0f;
}

__global__ void combine(const float* b, const float* c, float* out, long long ns)
{
    spin(ns);
    if (threadIdx.x == 0)
        out[0] = b[0] + c[0];
}

int argInt(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}

} // namespace

int main(int argc, char** argv)
{
    const int iterations = argInt(argc, argv, "--iterations", 3);
    const long long ns = 1000LL * argInt(argc, argv, "--spin-us", 50);
    float* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, 4 * sizeof(float)));
    cudaStream_t s[3];
    for (auto& stream : s)
        CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaEvent_t fork, joinB, joinC;
    CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&joinB, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&joinC, cudaEventDisableTiming));

    // Host time to issue the iterations (launches, event records, stream waits): what a
    // recorder's per-call cost shows in.
    const auto issueStart = std::chrono::steady_clock::now();
    for (int i = 0; i < iterations; ++i) {
        produce<<<1, 32, 0, s[0]>>>(d, ns);
        CHECK_CUDA(cudaGetLastError());
        CHECK_CUDA(cudaEventRecord(fork, s[0]));
        CHECK_CUDA(cudaStreamWaitEvent(s[1], fork, 0));
        CHECK_CUDA(cudaStreamWaitEvent(s[2], fork, 0));
        consume_b<<<1, 32, 0, s[1]>>>(d, d + 1, ns);
        consume_c<<<1, 32, 0, s[2]>>>(d, d + 2, ns);
        CHECK_CUDA(cudaEventRecord(joinB, s[1]));
        CHECK_CUDA(cudaEventRecord(joinC, s[2]));
        CHECK_CUDA(cudaStreamWaitEvent(s[0], joinB, 0));
        CHECK_CUDA(cudaStreamWaitEvent(s[0], joinC, 0));
        combine<<<1, 32, 0, s[0]>>>(d + 1, d + 2, d + 3, ns);
        CHECK_CUDA(cudaGetLastError());
    }
    const double issueUs
        = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - issueStart).count();
    CHECK_CUDA(cudaEventRecord(joinB, s[0]));
    CHECK_CUDA(cudaEventSynchronize(joinB));
    CHECK_CUDA(cudaDeviceSynchronize());

    float out = 0;
    CHECK_CUDA(cudaMemcpy(&out, d + 3, sizeof(float), cudaMemcpyDeviceToHost));
    unsigned long long ids[3] = {};
    for (int k = 0; k < 3; ++k)
        CHECK_CUDA(cudaStreamGetId(s[k], &ids[k]));
    std::printf("streams: s0=%llu s1=%llu s2=%llu\n", ids[0], ids[1], ids[2]);
    std::printf("expected edges: %d (per iteration: produce->consume_b, produce->consume_c, "
                "consume_b->combine, consume_c->combine)\n",
        4 * iterations);
    std::printf("result %.1f (expected 5.0)\n", out);
    std::printf("issue_us_per_iteration=%.3f (4 launches, 3 event records, 4 stream waits)\n", issueUs / iterations);
    for (auto& e : {fork, joinB, joinC})
        CHECK_CUDA(cudaEventDestroy(e));
    for (auto& stream : s)
        CHECK_CUDA(cudaStreamDestroy(stream));
    CHECK_CUDA(cudaFree(d));
    return out == 5.0f ? 0 : 1;
}
