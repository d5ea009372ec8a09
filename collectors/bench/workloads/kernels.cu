// SPDX-License-Identifier: MIT
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace ws::bench::kernels {

namespace {

constexpr int kThreads = 256;

unsigned blocksFor(size_t n)
{
    return static_cast<unsigned>(std::max<size_t>(1, (n + kThreads - 1) / kThreads));
}

template <typename T> __global__ void reluKernel(const T* __restrict__ in, T* __restrict__ out, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n) {
        const float v = static_cast<float>(in[i]);
        out[i] = static_cast<T>(v > 0.f ? v : 0.f);
    }
}

__global__ void copy16Kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t n)
{
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}

__global__ void sinKernel(const float* __restrict__ x, float* __restrict__ y, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n)
        y[i] = sinf(x[i]);
}

__global__ void cosKernel(const float* __restrict__ x, float* __restrict__ y, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n)
        y[i] = cosf(x[i]);
}

__global__ void addKernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    if (i < n)
        out[i] = a[i] + b[i];
}

__global__ void pdlPrimary(const float* __restrict__ x, float* __restrict__ y, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const float v = i < n ? fmaf(1.5f, x[i], 0.25f) : 0.f; // initial work
#if __CUDA_ARCH__ >= 900
    // Lets the secondary launch; its cudaGridDependencySynchronize still waits until this
    // grid has completed and its writes are visible.
    cudaTriggerProgrammaticLaunchCompletion();
#endif
    if (i < n)
        y[i] = v; // remaining work
}

__global__ void pdlSecondary(const float* __restrict__ x, const float* y, float* __restrict__ z, size_t n)
{
    const size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    const float pre = i < n ? x[i] * x[i] : 0.f; // preamble: independent of the primary
#if __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
    if (i < n)
        z[i] = y[i] + pre; // dependent work
}

} // namespace

void relu(const void* in, void* out, size_t count, Type type, cudaStream_t s)
{
    switch (type) {
    case Type::F32:
        reluKernel<<<blocksFor(count), kThreads, 0, s>>>(
            static_cast<const float*>(in), static_cast<float*>(out), count);
        break;
    case Type::F16:
        reluKernel<<<blocksFor(count), kThreads, 0, s>>>(
            static_cast<const __half*>(in), static_cast<__half*>(out), count);
        break;
    case Type::BF16:
        reluKernel<<<blocksFor(count), kThreads, 0, s>>>(
            static_cast<const __nv_bfloat16*>(in), static_cast<__nv_bfloat16*>(out), count);
        break;
    }
}

void copy16(const void* src, void* dst, size_t bytes, int smCount, cudaStream_t s)
{
    const size_t n = bytes / 16;
    const unsigned blocks = static_cast<unsigned>(std::min<size_t>(blocksFor(n), size_t(std::max(1, smCount)) * 16));
    copy16Kernel<<<blocks, kThreads, 0, s>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst), n);
}

void sinOf(const float* x, float* y, size_t n, cudaStream_t s)
{
    sinKernel<<<blocksFor(n), kThreads, 0, s>>>(x, y, n);
}

void cosOf(const float* x, float* y, size_t n, cudaStream_t s)
{
    cosKernel<<<blocksFor(n), kThreads, 0, s>>>(x, y, n);
}

void add(const float* a, const float* b, float* out, size_t n, cudaStream_t s)
{
    addKernel<<<blocksFor(n), kThreads, 0, s>>>(a, b, out, n);
}

cudaError_t pdlPair(const float* x, float* y, float* z, size_t n, bool programmatic, cudaStream_t s)
{
    pdlPrimary<<<blocksFor(n), kThreads, 0, s>>>(x, y, n);
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocksFor(n));
    config.blockDim = dim3(kThreads);
    config.dynamicSmemBytes = 0;
    config.stream = s;
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = programmatic ? 1 : 0;
    return cudaLaunchKernelEx(&config, pdlSecondary, x, static_cast<const float*>(y), z, n);
}

} // namespace ws::bench::kernels
