// SPDX-License-Identifier: MIT
// The seeds' workload: a BF16 4096x4096x4096 cuBLAS GEMM followed by a ReLU kernel, each in
// an NVTX range, checked for correctness first, then warmed up, then timed with CUDA events.
// It is the default workload for recording on a machine with a GPU:
//   warpscope-cli record -o gemm.wscope -- ws-example-gemm-relu
// Options: --size N (4096) --warmup N (3) --iters N (20). The timed loop sits between
// cudaProfilerStart/Stop, so --capture-range=cudaProfilerApi records only that part.
// Variants for before/after comparisons (warpscope-cli compare):
//   --epilogue separate (default): cuBLAS GEMM, then the ReLU kernel in its own NVTX range;
//   --epilogue fused: one cublasLt matmul with CUBLASLT_EPILOGUE_RELU, no ReLU kernel;
//   --relu-threads N (256): block size of the separate ReLU kernel.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

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

// Fills with values in [-1, 1) from a per-element hash of (seed, index): random-looking data
// without a host-side copy (zeros would time faster than real data).
__global__ void fill_kernel(__nv_bfloat16* out, size_t n, uint32_t seed)
{
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i >= n)
        return;
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    out[i] = __float2bfloat16(static_cast<float>(h & 0xffffu) / 32768.0f - 1.0f);
}

__global__ void relu_kernel(__nv_bfloat16* data, size_t n)
{
    const size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
    if (i < n)
        data[i] = __hmax(data[i], __float2bfloat16(0.0f));
}

void pushRange(const char* name, uint32_t argb)
{
    nvtxEventAttributes_t a {};
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.colorType = NVTX_COLOR_ARGB;
    a.color = argb;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxRangePushEx(&a);
}

int argInt(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}

bool hasArg(int argc, char** argv, const char* name)
{
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return true;
    return false;
}

bool argIs(int argc, char** argv, const char* name, const char* value)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::strcmp(argv[i + 1], value) == 0;
    return false;
}

#define CHECK_LT(call)                                                                                                 \
    do {                                                                                                               \
        const cublasStatus_t s_ = (call);                                                                              \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                             \
            std::fprintf(stderr, "%s:%d %s -> cublasLt status %d\n", __FILE__, __LINE__, #call, static_cast<int>(s_)); \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

// C = relu(A * B) in one cublasLt matmul (column-major, BF16 in/out, FP32 accumulation): the
// ReLU runs in the GEMM's epilogue on the tile still in registers, so C is written once and
// never read back, which is what the separate ReLU kernel costs (2 x 32 MiB of traffic).
struct FusedGemm {
    cublasLtHandle_t lt = nullptr;
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t layout = nullptr;
    cublasLtMatmulAlgo_t algo {};
    void* workspace = nullptr;
    size_t workspaceBytes = size_t(32) << 20;

    explicit FusedGemm(int n)
    {
        CHECK_LT(cublasLtCreate(&lt));
        CHECK_LT(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_RELU;
        CHECK_LT(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)));
        CHECK_LT(cublasLtMatrixLayoutCreate(&layout, CUDA_R_16BF, n, n, n));
        CHECK_CUDA(cudaMalloc(&workspace, workspaceBytes));
        cublasLtMatmulPreference_t pref = nullptr;
        CHECK_LT(cublasLtMatmulPreferenceCreate(&pref));
        CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes, sizeof(workspaceBytes)));
        cublasLtMatmulHeuristicResult_t result {};
        int found = 0;
        CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, desc, layout, layout, layout, layout, pref, 1, &result, &found));
        cublasLtMatmulPreferenceDestroy(pref);
        if (found < 1) {
            std::fprintf(stderr, "cublasLt found no algorithm for a BF16 GEMM with a ReLU epilogue\n");
            std::exit(2);
        }
        algo = result.algo;
    }
    ~FusedGemm()
    {
        cudaFree(workspace);
        cublasLtMatrixLayoutDestroy(layout);
        cublasLtMatmulDescDestroy(desc);
        cublasLtDestroy(lt);
    }
    void run(const void* a, const void* b, void* c, cudaStream_t stream) const
    {
        const float alpha = 1.0f, beta = 0.0f;
        CHECK_LT(cublasLtMatmul(lt, desc, &alpha, a, layout, b, layout, &beta, c, layout, c, layout, &algo, workspace,
            workspaceBytes, stream));
    }
};

float bf16ToFloat(__nv_bfloat16 v)
{
    uint16_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    const uint32_t f = static_cast<uint32_t>(bits) << 16;
    float out;
    std::memcpy(&out, &f, sizeof(out));
    return out;
}

double median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    const int n = argInt(argc, argv, "--size", 4096);
    const int warmup = argInt(argc, argv, "--warmup", 3);
    const int iters = argInt(argc, argv, "--iters", 20);
    const bool fused = argIs(argc, argv, "--epilogue", "fused");
    const int reluThreads = argInt(argc, argv, "--relu-threads", 256);
    if (hasArg(argc, argv, "--epilogue") && !fused && !argIs(argc, argv, "--epilogue", "separate")) {
        std::fprintf(stderr, "--epilogue must be separate or fused\n");
        return 2;
    }
    if (reluThreads < 32 || reluThreads > 1024 || reluThreads % 32 != 0) {
        std::fprintf(stderr, "--relu-threads must be a multiple of 32 in [32, 1024]\n");
        return 2;
    }
    const size_t elems = static_cast<size_t>(n) * n;

    // A domain and a named category for the loop, to exercise more of NVTX than push/pop.
    nvtxDomainHandle_t domain = nvtxDomainCreateA("ws.example");
    nvtxDomainNameCategoryA(domain, 1, "timed");

    pushRange("setup", 0xff808080u);
    __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK_CUDA(cudaMalloc(&a, elems * sizeof(__nv_bfloat16)));
    CHECK_CUDA(cudaMalloc(&b, elems * sizeof(__nv_bfloat16)));
    CHECK_CUDA(cudaMalloc(&c, elems * sizeof(__nv_bfloat16)));
    const unsigned threads = 256;
    const unsigned blocks = static_cast<unsigned>((elems + threads - 1) / threads);
    const auto reluBlock = static_cast<unsigned>(reluThreads);
    const unsigned reluBlocks = static_cast<unsigned>((elems + reluBlock - 1) / reluBlock);
    std::random_device rd;
    const uint32_t seedA = rd(), seedB = rd();
    fill_kernel<<<blocks, threads>>>(a, elems, seedA);
    fill_kernel<<<blocks, threads>>>(b, elems, seedB);
    CHECK_CUDA(cudaGetLastError());
    cublasHandle_t handle;
    CHECK_CUBLAS(cublasCreate(&handle));
    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CHECK_CUBLAS(cublasSetStream(handle, stream));
    const float alpha = 1.0f, beta = 0.0f;
    const FusedGemm* fusedGemm = fused ? new FusedGemm(n) : nullptr;
    const auto gemm = [&] {
        pushRange("gemm", 0xff2e7d32u);
        // Column-major C = A * B with BF16 inputs/outputs and FP32 accumulation.
        if (fusedGemm)
            fusedGemm->run(a, b, c, stream);
        else
            CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16BF, n, b,
                CUDA_R_16BF, n, &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        nvtxRangePop();
    };
    const auto relu = [&] {
        if (fusedGemm)
            return; // done in the GEMM's epilogue
        pushRange("relu", 0xffc62828u);
        relu_kernel<<<reluBlocks, reluBlock, 0, stream>>>(c, elems);
        CHECK_CUDA(cudaGetLastError());
        nvtxRangePop();
    };
    nvtxRangePop();

    // Correctness first: sampled entries of relu(A*B) against a double-precision reference.
    pushRange("check", 0xff1565c0u);
    CHECK_CUDA(cudaMemsetAsync(c, 0xff, elems * sizeof(__nv_bfloat16), stream)); // poison: NaN
    gemm();
    relu();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<__nv_bfloat16> ha(elems), hb(elems), hc(elems);
    CHECK_CUDA(cudaMemcpy(ha.data(), a, elems * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(hb.data(), b, elems * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(hc.data(), c, elems * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
    std::mt19937 rng(rd());
    std::uniform_int_distribution<int> pick(0, n - 1);
    double errSq = 0, refSq = 0;
    int negatives = 0;
    for (int s = 0; s < 512; ++s) {
        const int i = pick(rng), j = pick(rng); // row i, column j of the column-major result
        double ref = 0;
        for (int k = 0; k < n; ++k)
            ref += static_cast<double>(bf16ToFloat(ha[static_cast<size_t>(k) * n + i]))
                * bf16ToFloat(hb[static_cast<size_t>(j) * n + k]);
        ref = std::max(ref, 0.0);
        const double got = bf16ToFloat(hc[static_cast<size_t>(j) * n + i]);
        if (!(got >= 0)) // also catches NaN, i.e. an element never written
            ++negatives;
        errSq += (got - ref) * (got - ref);
        refSq += ref * ref;
    }
    const double relErr = std::sqrt(errSq / std::max(refSq, 1e-30));
    nvtxRangePop();
    if (negatives > 0 || !(relErr < 1e-2)) {
        std::fprintf(stderr, "check FAILED: relative error %.3e, %d bad entries\n", relErr, negatives);
        return 1;
    }
    nvtxMarkA("check passed");
    std::printf("check passed: relative error %.2e over 512 sampled entries\n", relErr);

    pushRange("warmup", 0xff9e9e9eu);
    for (int i = 0; i < warmup; ++i) {
        gemm();
        relu();
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    nvtxRangePop();

    std::vector<cudaEvent_t> ev(static_cast<size_t>(iters) * 3);
    for (auto& e : ev)
        CHECK_CUDA(cudaEventCreate(&e));
    CHECK_CUDA(cudaProfilerStart());
    nvtxEventAttributes_t loop {};
    loop.version = NVTX_VERSION;
    loop.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    loop.category = 1;
    loop.messageType = NVTX_MESSAGE_TYPE_ASCII;
    loop.message.ascii = "timed loop";
    const nvtxRangeId_t loopRange = nvtxDomainRangeStartEx(domain, &loop);
    for (int i = 0; i < iters; ++i) {
        CHECK_CUDA(cudaEventRecord(ev[i * 3], stream));
        gemm();
        CHECK_CUDA(cudaEventRecord(ev[i * 3 + 1], stream));
        relu();
        CHECK_CUDA(cudaEventRecord(ev[i * 3 + 2], stream));
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    nvtxDomainRangeEnd(domain, loopRange);
    CHECK_CUDA(cudaProfilerStop());

    std::vector<float> gemmMs, reluMs;
    for (int i = 0; i < iters; ++i) {
        float g = 0, r = 0;
        CHECK_CUDA(cudaEventElapsedTime(&g, ev[i * 3], ev[i * 3 + 1]));
        CHECK_CUDA(cudaEventElapsedTime(&r, ev[i * 3 + 1], ev[i * 3 + 2]));
        gemmMs.push_back(g);
        reluMs.push_back(r);
    }
    const double gMed = median(gemmMs);
    std::printf("gemm %dx%dx%d bf16: median %.4f ms (%.1f TFLOP/s) over %d iterations\n", n, n, n, gMed,
        2.0 * n * n * static_cast<double>(n) / (gMed * 1e-3) / 1e12, iters);
    std::printf("relu %zu elements (%s): median %.2f us\n", elems, fused ? "in the GEMM epilogue" : "separate kernel",
        median(reluMs) * 1e3);
    std::printf("RESULT gemm_median_ms=%.5f relu_median_us=%.3f\n", gMed, median(reluMs) * 1e3);

    for (auto& e : ev)
        cudaEventDestroy(e);
    delete fusedGemm;
    cublasDestroy(handle);
    cudaStreamDestroy(stream);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    return 0;
}
