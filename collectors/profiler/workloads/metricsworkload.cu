// SPDX-License-Identifier: MIT
// Workloads for checking `warpscope-cli profile` against ncu on a GPU (scripts/device/metrics-*):
//   gemm_relu  cuBLAS bf16 GEMM (4096^3) followed by an in-place ReLU of its output
//   copy       memory-bound float4 copy, 128 MiB each way
//   chase      latency-bound pointer chase: one warp per SM following random chains
//   graph      a ReLU launched through a CUDA graph (the profiler must skip it, not crash)
//   accumulate x = 3x + 1 in place, once per launch: not idempotent, so a replay that does not
//              give every pass (and the program's own launch) the memory as it was shows up
//   growing    accumulate launches with device memory allocated and freed between them (64 MiB,
//              then 256 MiB more, then one freed and 96 MiB allocated), as PyTorch's caching
//              allocator and cuDNN's workspace do between a program's kernels: each replay must
//              checkpoint the memory as it is at that launch
//   memkind K  accumulate launches on one kind of memory a user's program may hand a kernel:
//              device (cudaMalloc), async (cudaMallocAsync, the default pool), pool (a pool of
//              its own), managed (cudaMallocManaged), vmm (cuMemCreate + cuMemMap into a reserved
//              range twice as large, its second half unmapped, as PyTorch's expandable segments), mapped (pinned host
//              memory the kernel writes through its device pointer), indirect (the kernel gets a device array of
//              pointers, not the data: no argument points at what it writes)
//   capture    accumulate launches: 2 before cudaProfilerStart, 3 between it and cudaProfilerStop,
//              2 after (--profile-from-start off profiles the 3 only)
//   threads    four host threads, each with its own stream, copying a new increment to the device,
//              allocating and freeing a scratch buffer and launching x = 3x + inc, again and again:
//              a replay of one thread's launch must not undo or fault on another's memory calls
// Usage: warpscope-metrics-workload <mode> [K] [--warmup N] [--iters N]
// Every launch is checked; results are verified on the host so a broken replay is caught.
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../cudacheck.h"

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint32_t seed)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed;
        h ^= h >> 13;
        h *= 0x5bd1e995u;
        p[i] = __float2bfloat16((static_cast<float>(h & 0xffff) / 65535.0f) - 0.5f);
    }
}

__global__ void relu_kernel(__nv_bfloat16* p, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        const float v = __bfloat162float(p[i]);
        p[i] = __float2bfloat16(v > 0.0f ? v : 0.0f);
    }
}

__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        dst[i] = src[i];
}

__global__ void chase_kernel(
    const uint32_t* __restrict__ next, uint32_t* out, int steps, uint32_t entries, uint32_t stride)
{
    // Each thread starts at its own place in the one cycle, so no two threads share lines.
    uint32_t p = (blockIdx.x * blockDim.x + threadIdx.x) * 7919u % entries * stride;
    for (int s = 0; s < steps; ++s)
        p = next[p];
    out[blockIdx.x * blockDim.x + threadIdx.x] = p;
}

static int gemmRelu(int warmup, int iters, bool graph)
{
    const int n = 4096;
    const size_t elems = size_t(n) * n;
    __nv_bfloat16 *a = nullptr, *b = nullptr, *c = nullptr;
    CHECK(cudaMalloc(&a, elems * sizeof(*a)));
    CHECK(cudaMalloc(&b, elems * sizeof(*b)));
    CHECK(cudaMalloc(&c, elems * sizeof(*c)));
    fill_bf16<<<1024, 256>>>(a, elems, 1u);
    fill_bf16<<<1024, 256>>>(b, elems, 2u);
    CHECK(cudaGetLastError());
    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    const float alpha = 1.0f, beta = 0.0f;
    const unsigned reluBlocks = static_cast<unsigned>((elems + 511) / 512);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK_BLAS(cublasSetStream(h, s));
    cudaGraphExec_t exec = nullptr;
    if (graph) {
        cudaGraph_t g;
        CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        relu_kernel<<<reluBlocks, 512, 0, s>>>(c, elems);
        CHECK(cudaStreamEndCapture(s, &g));
        CHECK(cudaGraphInstantiate(&exec, g, 0));
    }
    for (int i = 0; i < warmup + iters; ++i) {
        CHECK_BLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, CUDA_R_16BF, n, b, CUDA_R_16BF, n,
            &beta, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        if (graph) {
            CHECK(cudaGraphLaunch(exec, s));
        } else {
            relu_kernel<<<reluBlocks, 512, 0, s>>>(c, elems);
            CHECK(cudaGetLastError());
        }
    }
    CHECK(cudaStreamSynchronize(s));
    // C = relu(A * B): every element must be >= 0 and finite, and not all zero.
    std::vector<__nv_bfloat16> host(elems);
    CHECK(cudaMemcpy(host.data(), c, elems * sizeof(*c), cudaMemcpyDeviceToHost));
    size_t positive = 0;
    for (size_t i = 0; i < elems; i += 97) {
        const float v = __bfloat162float(host[i]);
        if (!(v >= 0.0f) || v > 1e6f) {
            std::fprintf(stderr, "gemm_relu: bad output %g at %zu\n", static_cast<double>(v), i);
            return 1;
        }
        positive += v > 0.0f;
    }
    if (positive == 0) {
        std::fprintf(stderr, "gemm_relu: output is all zero\n");
        return 1;
    }
    cublasDestroy(h);
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
    std::printf(
        "gemm_relu: ok (%d launches of each kernel%s)\n", warmup + iters, graph ? ", ReLU through a graph" : "");
    return 0;
}

static int copy(int warmup, int iters)
{
    const size_t bytes = size_t(128) << 20;
    const size_t n = bytes / sizeof(float4);
    float4 *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, bytes));
    CHECK(cudaMalloc(&dst, bytes));
    std::vector<float> init(bytes / sizeof(float));
    for (size_t i = 0; i < init.size(); ++i)
        init[i] = static_cast<float>(i % 1000003);
    CHECK(cudaMemcpy(src, init.data(), bytes, cudaMemcpyHostToDevice));
    for (int i = 0; i < warmup + iters; ++i) {
        copy_kernel<<<132 * 16, 256>>>(src, dst, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    std::vector<float> back(init.size());
    CHECK(cudaMemcpy(back.data(), dst, bytes, cudaMemcpyDeviceToHost));
    if (std::memcmp(back.data(), init.data(), bytes) != 0) {
        std::fprintf(stderr, "copy: destination differs from source\n");
        return 1;
    }
    cudaFree(src);
    cudaFree(dst);
    std::printf("copy: ok (%d launches, %zu MiB each way)\n", warmup + iters, bytes >> 20);
    return 0;
}

static int chase(int warmup, int iters)
{
    // One random cycle through 1 Mi entries (4 MiB) spread over a 64 MiB table so that every
    // hop lands on a different 64-byte line, far apart: each load waits for DRAM.
    const uint32_t entries = 1u << 20;
    const uint32_t stride = 16;
    std::vector<uint32_t> order(entries);
    for (uint32_t i = 0; i < entries; ++i)
        order[i] = i;
    std::mt19937 rng(12345);
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<uint32_t> next(size_t(entries) * stride, 0);
    for (uint32_t i = 0; i < entries; ++i)
        next[size_t(order[i]) * stride] = order[(i + 1) % entries] * stride;
    uint32_t *dNext = nullptr, *dOut = nullptr;
    CHECK(cudaMalloc(&dNext, next.size() * sizeof(uint32_t)));
    CHECK(cudaMalloc(&dOut, 132 * 32 * sizeof(uint32_t)));
    CHECK(cudaMemcpy(dNext, next.data(), next.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    const int steps = 400;
    for (int i = 0; i < warmup + iters; ++i) {
        chase_kernel<<<132, 32>>>(dNext, dOut, steps, entries, stride);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    std::vector<uint32_t> out(132 * 32);
    CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    // Follow the first thread's chain on the host.
    uint32_t p = 0;
    for (int s = 0; s < steps; ++s)
        p = next[p];
    if (out[0] != p) {
        std::fprintf(stderr, "chase: thread 0 ended at %u, expected %u\n", out[0], p);
        return 1;
    }
    cudaFree(dNext);
    cudaFree(dOut);
    std::printf("chase: ok (%d launches, %d dependent loads per thread)\n", warmup + iters, steps);
    return 0;
}

__global__ void accumulate_kernel(uint32_t* x, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = 3u * x[i] + 1u;
}

// Whether `x` holds `host` with x = 3x + 1 applied `times` times (read back through unified
// addressing, so any kind of memory); says which element differs, prefixed by `what`, if not.
static bool accumulatedOnce(const char* what, const uint32_t* x, const std::vector<uint32_t>& host, int times)
{
    std::vector<uint32_t> back(host.size());
    CHECK(cudaMemcpy(back.data(), x, back.size() * sizeof(uint32_t), cudaMemcpyDefault));
    for (size_t i = 0; i < host.size(); ++i) {
        uint32_t v = host[i];
        for (int k = 0; k < times; ++k)
            v = 3u * v + 1u;
        if (back[i] != v) {
            std::fprintf(stderr, "%s: element %zu is %u, expected %u after %d launches\n", what, i, back[i], v, times);
            return false;
        }
    }
    return true;
}

// A device allocation holding `host`.
static uint32_t* deviceCopyOf(const std::vector<uint32_t>& host)
{
    uint32_t* x = nullptr;
    CHECK(cudaMalloc(&x, host.size() * sizeof(uint32_t)));
    CHECK(cudaMemcpy(x, host.data(), host.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
    return x;
}

static int accumulate(int warmup, int iters)
{
    const size_t n = size_t(16) << 20; // 64 MiB
    std::vector<uint32_t> host(n);
    for (size_t i = 0; i < n; ++i)
        host[i] = static_cast<uint32_t>(i * 2654435761u);
    uint32_t* x = deviceCopyOf(host);
    const int launches = warmup + iters;
    for (int i = 0; i < launches; ++i) {
        accumulate_kernel<<<132 * 8, 256>>>(x, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    const bool ok = accumulatedOnce("accumulate", x, host, launches);
    cudaFree(x);
    if (!ok)
        return 1;
    std::printf("accumulate: ok (%d launches, each applied once)\n", launches);
    return 0;
}

// Launches accumulate_kernel `times` on a fresh copy of `host` in its own allocation; returns
// the allocation (the caller frees it) after checking nothing.
static uint32_t* accumulateFresh(const std::vector<uint32_t>& host, int times)
{
    uint32_t* x = deviceCopyOf(host);
    for (int i = 0; i < times; ++i) {
        accumulate_kernel<<<132 * 8, 256>>>(x, host.size());
        CHECK(cudaGetLastError());
    }
    return x;
}

static int growing(int warmup, int iters)
{
    const int times = std::max(1, warmup + iters);
    auto values = [](size_t n, uint32_t seed) {
        std::vector<uint32_t> v(n);
        for (size_t i = 0; i < n; ++i)
            v[i] = static_cast<uint32_t>(i * 2654435761u) ^ seed;
        return v;
    };
    const auto a = values(size_t(16) << 20, 1); // 64 MiB
    const auto b = values(size_t(64) << 20, 2); // 256 MiB, allocated after a's launches
    const auto c = values(size_t(24) << 20, 3); // 96 MiB, after a is freed
    uint32_t* da = accumulateFresh(a, times);
    uint32_t* db = accumulateFresh(b, times);
    CHECK(cudaDeviceSynchronize());
    bool ok = accumulatedOnce("growing: first allocation", da, a, times)
        && accumulatedOnce("growing: second allocation", db, b, times);
    CHECK(cudaFree(da));
    uint32_t* dc = accumulateFresh(c, times);
    CHECK(cudaDeviceSynchronize());
    ok = ok && accumulatedOnce("growing: allocation after a free", dc, c, times)
        && accumulatedOnce("growing: second allocation", db, b, times);
    cudaFree(db);
    cudaFree(dc);
    if (!ok)
        return 1;
    std::printf("growing: ok (3 allocations x %d launches, each applied once)\n", times);
    return 0;
}

// ---- memkind ------------------------------------------------------------------------------------

__global__ void accumulate_indirect_kernel(uint32_t* const* parts, size_t partElements, int partCount)
{
    const size_t n = partElements * size_t(partCount);
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
        uint32_t* p = parts[i / partElements] + i % partElements;
        *p = 3u * *p + 1u;
    }
}

#define CHECK_DRV(x)                                                                                                   \
    do {                                                                                                               \
        CUresult r_ = (x);                                                                                             \
        if (r_ != CUDA_SUCCESS) {                                                                                      \
            const char* s_ = nullptr;                                                                                  \
            cuGetErrorString(r_, &s_);                                                                                 \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");                           \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)

// Memory of one kind, `bytes` long, and how to give it back.
struct KindBuffer {
    uint32_t* device = nullptr; // what the kernel gets
    void* host = nullptr;       // mapped: the host side
    CUmemGenericAllocationHandle vmmHandle = 0;
    size_t vmmBytes = 0;
    cudaMemPool_t pool = nullptr;
};

static bool allocateKind(const std::string& kind, size_t bytes, KindBuffer& b)
{
    if (kind == "device" || kind == "indirect") {
        CHECK(cudaMalloc(&b.device, bytes));
    } else if (kind == "async") {
        CHECK(cudaMallocAsync(reinterpret_cast<void**>(&b.device), bytes, nullptr));
        CHECK(cudaStreamSynchronize(nullptr));
    } else if (kind == "pool") {
        cudaMemPoolProps props {};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = 0;
        CHECK(cudaMemPoolCreate(&b.pool, &props));
        CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&b.device), bytes, b.pool, nullptr));
        CHECK(cudaStreamSynchronize(nullptr));
    } else if (kind == "managed") {
        CHECK(cudaMallocManaged(&b.device, bytes));
    } else if (kind == "mapped") {
        CHECK(cudaHostAlloc(&b.host, bytes, cudaHostAllocMapped));
        CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&b.device), b.host, 0));
    } else if (kind == "vmm") {
        CHECK(cudaFree(nullptr)); // the runtime's primary context, current for the driver calls
        CUmemAllocationProp prop {};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = 0;
        size_t granularity = 0;
        CHECK_DRV(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
        b.vmmBytes = (bytes + granularity - 1) / granularity * granularity;
        CUdeviceptr va = 0;
        // Twice the address range, half of it mapped: a replay that takes the reservation for the
        // allocation would touch unmapped addresses.
        CHECK_DRV(cuMemAddressReserve(&va, 2 * b.vmmBytes, 0, 0, 0));
        CHECK_DRV(cuMemCreate(&b.vmmHandle, b.vmmBytes, &prop, 0));
        CHECK_DRV(cuMemMap(va, b.vmmBytes, 0, b.vmmHandle, 0));
        CUmemAccessDesc access {};
        access.location = prop.location;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        CHECK_DRV(cuMemSetAccess(va, b.vmmBytes, &access, 1));
        b.device = reinterpret_cast<uint32_t*>(va);
    } else {
        return false;
    }
    return true;
}

static void freeKind(const std::string& kind, KindBuffer& b)
{
    if (kind == "mapped") {
        CHECK(cudaFreeHost(b.host));
    } else if (kind == "vmm") {
        const auto va = reinterpret_cast<CUdeviceptr>(b.device);
        CHECK_DRV(cuMemUnmap(va, b.vmmBytes));
        CHECK_DRV(cuMemRelease(b.vmmHandle));
        CHECK_DRV(cuMemAddressFree(va, 2 * b.vmmBytes));
    } else if (kind == "async" || kind == "pool") {
        CHECK(cudaFreeAsync(b.device, nullptr));
        CHECK(cudaStreamSynchronize(nullptr));
        if (b.pool)
            CHECK(cudaMemPoolDestroy(b.pool));
    } else {
        CHECK(cudaFree(b.device));
    }
}

static int memkind(const std::string& kind, int warmup, int iters)
{
    // 16 MiB: a few passes of it stay quick even over the host link (mapped).
    const size_t n = size_t(4) << 20;
    const size_t bytes = n * sizeof(uint32_t);
    std::vector<uint32_t> host(n);
    for (size_t i = 0; i < n; ++i)
        host[i] = static_cast<uint32_t>(i * 2654435761u) ^ 0x9e3779b9u;
    KindBuffer b;
    if (!allocateKind(kind, bytes, b)) {
        std::fprintf(
            stderr, "memkind: unknown kind '%s' (device|async|pool|managed|vmm|mapped|indirect)\n", kind.c_str());
        return 2;
    }
    CHECK(cudaMemcpy(b.device, host.data(), bytes, cudaMemcpyDefault));
    // indirect: four parts, reached through a device array of their addresses.
    constexpr int kParts = 4;
    uint32_t** table = nullptr;
    if (kind == "indirect") {
        uint32_t* parts[kParts];
        for (int p = 0; p < kParts; ++p)
            parts[p] = b.device + size_t(p) * (n / kParts);
        CHECK(cudaMalloc(&table, sizeof parts));
        CHECK(cudaMemcpy(table, parts, sizeof parts, cudaMemcpyHostToDevice));
    }
    const int launches = warmup + iters;
    for (int i = 0; i < launches; ++i) {
        if (table)
            accumulate_indirect_kernel<<<132 * 8, 256>>>(table, n / kParts, kParts);
        else
            accumulate_kernel<<<132 * 8, 256>>>(b.device, n);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    const bool ok = accumulatedOnce(("memkind " + kind).c_str(), b.device, host, launches);
    if (table)
        CHECK(cudaFree(table));
    freeKind(kind, b);
    if (!ok)
        return 1;
    std::printf("memkind %s: ok (%d launches, each applied once)\n", kind.c_str(), launches);
    return 0;
}

// ---- threads ------------------------------------------------------------------------------------

__global__ void accumulate_add_kernel(uint32_t* x, const uint32_t* inc, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        x[i] = 3u * x[i] + inc[i];
}

static int threads(int warmup, int iters)
{
    constexpr int kThreads = 4;
    const size_t n = size_t(1) << 20; // 4 MiB a buffer
    const int launches = warmup + iters;
    CHECK(cudaFree(nullptr));
    std::vector<int> status(kThreads, 0);
    std::vector<std::thread> workers;
    for (int t = 0; t < kThreads; ++t) {
        workers.emplace_back([&, t] {
            cudaStream_t stream = nullptr;
            CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
            uint32_t *x = nullptr, *inc = nullptr, *hostInc = nullptr;
            CHECK(cudaMalloc(&x, n * sizeof(uint32_t)));
            CHECK(cudaMalloc(&inc, n * sizeof(uint32_t)));
            CHECK(cudaMallocHost(&hostInc, n * sizeof(uint32_t)));
            CHECK(cudaMemsetAsync(x, 0, n * sizeof(uint32_t), stream));
            std::vector<uint32_t> expected(n, 0);
            for (int k = 0; k < launches; ++k) {
                for (size_t i = 0; i < n; ++i)
                    hostInc[i] = static_cast<uint32_t>(i * 2654435761u) ^ static_cast<uint32_t>((t + 1) * 7919 + k);
                CHECK(cudaMemcpyAsync(inc, hostInc, n * sizeof(uint32_t), cudaMemcpyHostToDevice, stream));
                // Memory that comes and goes between launches, as a caching allocator's does.
                void* scratch = nullptr;
                CHECK(cudaMalloc(&scratch, size_t(8) << 20));
                CHECK(cudaMemsetAsync(scratch, 0xab, size_t(8) << 20, stream));
                accumulate_add_kernel<<<132 * 2, 256, 0, stream>>>(x, inc, n);
                CHECK(cudaGetLastError());
                CHECK(cudaStreamSynchronize(stream));
                CHECK(cudaFree(scratch));
                for (size_t i = 0; i < n; ++i)
                    expected[i] = 3u * expected[i] + hostInc[i];
            }
            std::vector<uint32_t> back(n);
            CHECK(cudaMemcpy(back.data(), x, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; ++i) {
                if (back[i] != expected[i]) {
                    std::fprintf(stderr, "threads: thread %d: element %zu is %u, expected %u after %d launches\n", t, i,
                        back[i], expected[i], launches);
                    status[t] = 1;
                    break;
                }
            }
            CHECK(cudaFreeHost(hostInc));
            CHECK(cudaFree(inc));
            CHECK(cudaFree(x));
            CHECK(cudaStreamDestroy(stream));
        });
    }
    for (auto& w : workers)
        w.join();
    for (int t = 0; t < kThreads; ++t)
        if (status[t])
            return 1;
    std::printf("threads: ok (%d threads x %d launches, each applied once)\n", kThreads, launches);
    return 0;
}

// ---- capture --------------------------------------------------------------------------------------

static int capture()
{
    const size_t n = size_t(1) << 20;
    std::vector<uint32_t> host(n);
    for (size_t i = 0; i < n; ++i)
        host[i] = static_cast<uint32_t>(i * 2654435761u);
    uint32_t* x = deviceCopyOf(host);
    const int counts[] = {2, 3, 2}; // before, inside, after the profiler range
    for (int part = 0; part < 3; ++part) {
        if (part == 1)
            CHECK(cudaProfilerStart());
        if (part == 2)
            CHECK(cudaProfilerStop());
        for (int i = 0; i < counts[part]; ++i) {
            accumulate_kernel<<<132 * 2, 256>>>(x, n);
            CHECK(cudaGetLastError());
        }
    }
    CHECK(cudaDeviceSynchronize());
    const bool ok = accumulatedOnce("capture", x, host, 7);
    CHECK(cudaFree(x));
    if (!ok)
        return 1;
    std::printf("capture: ok (2 + 3 inside cudaProfilerStart..Stop + 2 launches)\n");
    return 0;
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr,
            "usage: %s gemm_relu|copy|chase|graph|accumulate|growing|threads|capture|memkind KIND [--warmup N] "
            "[--iters N]\n",
            argv[0]);
        return 2;
    }
    const std::string mode = argv[1];
    int warmup = 2, iters = 5;
    // memkind takes the kind of memory before the options.
    const std::string kind = mode == "memkind" && argc > 2 ? argv[2] : "";
    for (int i = kind.empty() ? 2 : 3; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--warmup"))
            warmup = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--iters"))
            iters = std::atoi(argv[i + 1]);
    }
    if (mode == "gemm_relu")
        return gemmRelu(warmup, iters, false);
    if (mode == "graph")
        return gemmRelu(warmup, iters, true);
    if (mode == "copy")
        return copy(warmup, iters);
    if (mode == "chase")
        return chase(warmup, iters);
    if (mode == "accumulate")
        return accumulate(warmup, iters);
    if (mode == "growing")
        return growing(warmup, iters);
    if (mode == "memkind")
        return memkind(kind, warmup, iters);
    if (mode == "threads")
        return threads(warmup, iters);
    if (mode == "capture")
        return capture();
    std::fprintf(stderr, "unknown mode '%s'\n", mode.c_str());
    return 2;
}
