// SPDX-License-Identifier: MIT
// Several seconds of GPU work of four kinds, one phase after the other, for
// `warpscope-cli record --gpu-metrics` (tests/gpu/tst_gpu_metrics_gpu.cpp, job pm-sampling):
//   gemm       cuBLAS BF16 GEMMs, 8192^3 by default (~1.4 ms each): the tensor pipe busy
//   copy       ws_copy: a 1 GiB buffer copied `reps` times per launch (~100 ms): DRAM throughput high
//   chase      ws_chase: one thread following a pseudo-random cycle through 1 GiB: latency bound, idle counters
//   transpose  ws_transpose: a 16384^2 float matrix transposed through shared-memory tiles, `reps` times per launch
// Each phase lasts about --seconds S (default 1.3, calibrated with CUDA events on a first launch),
// so the whole program is over 5 s of GPU time. It prints one line per phase and, with
// --summary FILE, a TSV: phase, kernel (name substring), launches, total_ms (CUDA events).
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#define CHECK_CUDA(call)                                                                                               \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)
#define CHECK_CUBLAS(call)                                                                                             \
    do {                                                                                                               \
        const cublasStatus_t s_ = (call);                                                                              \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                             \
            std::fprintf(stderr, "%s:%d %s -> cuBLAS status %d\n", __FILE__, __LINE__, #call, static_cast<int>(s_));   \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace {

__global__ void ws_fill(__nv_bfloat16* out, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
        h ^= h >> 16;
        h *= 0x7feb352du;
        h ^= h >> 15;
        out[i] = __float2bfloat16(static_cast<float>(h & 0xffffu) / 32768.0f - 1.0f);
    }
}

// 16-byte loads and stores over the whole buffer, `reps` times: one long DRAM-bound kernel.
__global__ void ws_copy(int4* dst, const int4* src, size_t n, int reps)
{
    const size_t stride = static_cast<size_t>(gridDim.x) * blockDim.x;
    for (int r = 0; r < reps; ++r)
        for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += stride)
            dst[i] = src[i];
}

// next[i] = (a*i + c) mod 2^k with a = 1 (mod 4), c odd: one cycle through every element, in an
// order no cache or prefetcher follows.
__global__ void ws_chase_init(uint32_t* next, size_t n)
{
    for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<size_t>(gridDim.x) * blockDim.x)
        next[i] = static_cast<uint32_t>((1664525ull * i + 1013904223ull) & (n - 1));
}

// One thread, one dependent load after the other: DRAM latency, nothing else.
__global__ void ws_chase(const uint32_t* next, long long steps, uint32_t* out)
{
    uint32_t i = 0;
    for (long long s = 0; s < steps; ++s)
        i = next[i];
    *out = i;
}

constexpr int kTile = 32;

// Tiled transpose of an n x n matrix (n a multiple of 32), blocks of 32 x 8 threads walking
// the tiles grid-stride, `reps` times.
__global__ void ws_transpose(float* out, const float* in, int n, int reps)
{
    __shared__ float tile[kTile][kTile + 1];
    const int tiles = n / kTile;
    const long long count = static_cast<long long>(tiles) * tiles;
    for (int r = 0; r < reps; ++r) {
        for (long long t = blockIdx.x; t < count; t += gridDim.x) {
            const int bx = static_cast<int>(t % tiles), by = static_cast<int>(t / tiles);
            for (int j = threadIdx.y; j < kTile; j += blockDim.y)
                tile[j][threadIdx.x] = in[static_cast<size_t>(by * kTile + j) * n + bx * kTile + threadIdx.x];
            __syncthreads();
            for (int j = threadIdx.y; j < kTile; j += blockDim.y)
                out[static_cast<size_t>(bx * kTile + j) * n + by * kTile + threadIdx.x] = tile[threadIdx.x][j];
            __syncthreads();
        }
    }
}

struct Timer {
    cudaEvent_t a {}, b {};
    Timer()
    {
        CHECK_CUDA(cudaEventCreate(&a));
        CHECK_CUDA(cudaEventCreate(&b));
    }
    void start() { CHECK_CUDA(cudaEventRecord(a)); }
    float stopMs()
    {
        CHECK_CUDA(cudaEventRecord(b));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        return ms;
    }
};

FILE* g_summary = nullptr;

void report(const char* phase, const char* kernel, long long launches, float ms)
{
    std::printf("phase %-9s kernel %-12s %5lld launches %9.1f ms\n", phase, kernel, launches, ms);
    std::fflush(stdout);
    if (g_summary)
        std::fprintf(g_summary, "%s\t%s\t%lld\t%.3f\n", phase, kernel, launches, ms);
}

} // namespace

int main(int argc, char** argv)
{
    double seconds = 1.3;
    int gemmN = 8192;
    const char* summary = nullptr;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (a == "--gemm-size" && i + 1 < argc)
            gemmN = std::atoi(argv[++i]);
        else if (a == "--summary" && i + 1 < argc)
            summary = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--seconds S per phase] [--gemm-size N] [--summary FILE]\n", argv[0]);
            return 2;
        }
    }
    if (summary) {
        g_summary = std::fopen(summary, "w");
        if (g_summary)
            std::fprintf(g_summary, "phase\tkernel\tlaunches\ttotal_ms\n");
    }
    const double budgetMs = seconds * 1000.0;
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    Timer timer;

    // ---- GEMM: cuBLAS BF16, FP32 accumulate ----
    {
        const size_t n = static_cast<size_t>(gemmN);
        __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
        CHECK_CUDA(cudaMalloc(&a, n * n * sizeof(__nv_bfloat16)));
        CHECK_CUDA(cudaMalloc(&b, n * n * sizeof(__nv_bfloat16)));
        CHECK_CUDA(cudaMalloc(&c, n * n * sizeof(__nv_bfloat16)));
        ws_fill<<<sms * 8, 256>>>(a, n * n, 1);
        ws_fill<<<sms * 8, 256>>>(b, n * n, 2);
        cublasHandle_t h = nullptr;
        CHECK_CUBLAS(cublasCreate(&h));
        const float alpha = 1.0f, beta = 0.0f;
        const auto gemm = [&] {
            CHECK_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, gemmN, gemmN, gemmN, &alpha, a, CUDA_R_16BF, gemmN,
                b, CUDA_R_16BF, gemmN, &beta, c, CUDA_R_16BF, gemmN, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        };
        gemm(); // warm-up (heuristics, module load)
        timer.start();
        gemm();
        const float one = std::max(timer.stopMs(), 0.01f);
        const long long launches = std::max(1LL, static_cast<long long>(budgetMs / one));
        timer.start();
        for (long long i = 0; i < launches; ++i)
            gemm();
        report("gemm", "gemm", launches, timer.stopMs());
        CHECK_CUBLAS(cublasDestroy(h));
        CHECK_CUDA(cudaFree(a));
        CHECK_CUDA(cudaFree(b));
        CHECK_CUDA(cudaFree(c));
    }

    // ---- copy: 1 GiB, `reps` passes per launch, ~100 ms a launch ----
    {
        const size_t bytes = size_t {1} << 30, n = bytes / sizeof(int4);
        int4 *src = nullptr, *dst = nullptr;
        CHECK_CUDA(cudaMalloc(&src, bytes));
        CHECK_CUDA(cudaMalloc(&dst, bytes));
        CHECK_CUDA(cudaMemset(src, 1, bytes));
        timer.start();
        ws_copy<<<sms * 8, 512>>>(dst, src, n, 4);
        const float four = std::max(timer.stopMs(), 0.01f);
        const int reps = std::max(1, static_cast<int>(100.0 / (four / 4)));
        const long long launches = std::max(1LL, static_cast<long long>(budgetMs / 100.0));
        timer.start();
        for (long long i = 0; i < launches; ++i)
            ws_copy<<<sms * 8, 512>>>(dst, src, n, reps);
        report("copy", "ws_copy", launches, timer.stopMs());
        CHECK_CUDA(cudaFree(src));
        CHECK_CUDA(cudaFree(dst));
    }

    // ---- pointer chase: 1 GiB cycle, one long single-thread launch ----
    {
        const size_t n = size_t {1} << 28;
        uint32_t *next = nullptr, *out = nullptr;
        CHECK_CUDA(cudaMalloc(&next, n * sizeof(uint32_t)));
        CHECK_CUDA(cudaMalloc(&out, sizeof(uint32_t)));
        ws_chase_init<<<sms * 8, 256>>>(next, n);
        timer.start();
        ws_chase<<<1, 1>>>(next, 20000, out);
        const float probe = std::max(timer.stopMs(), 0.001f);
        const long long steps = std::max(20000LL, static_cast<long long>(20000.0 * budgetMs / probe));
        timer.start();
        ws_chase<<<1, 1>>>(next, steps, out);
        report("chase", "ws_chase", 1, timer.stopMs());
        CHECK_CUDA(cudaFree(next));
        CHECK_CUDA(cudaFree(out));
    }

    // ---- transpose: 16384^2 floats, ~100 ms a launch ----
    {
        const int n = 16384;
        const size_t bytes = static_cast<size_t>(n) * n * sizeof(float);
        float *in = nullptr, *out = nullptr;
        CHECK_CUDA(cudaMalloc(&in, bytes));
        CHECK_CUDA(cudaMalloc(&out, bytes));
        CHECK_CUDA(cudaMemset(in, 0, bytes));
        const dim3 block(kTile, 8);
        timer.start();
        ws_transpose<<<sms * 16, block>>>(out, in, n, 2);
        const float two = std::max(timer.stopMs(), 0.01f);
        const int reps = std::max(1, static_cast<int>(100.0 / (two / 2)));
        const long long launches = std::max(1LL, static_cast<long long>(budgetMs / 100.0));
        timer.start();
        for (long long i = 0; i < launches; ++i)
            ws_transpose<<<sms * 16, block>>>(out, in, n, reps);
        report("transpose", "ws_transpose", launches, timer.stopMs());
        CHECK_CUDA(cudaFree(in));
        CHECK_CUDA(cudaFree(out));
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    if (g_summary)
        std::fclose(g_summary);
    return 0;
}
