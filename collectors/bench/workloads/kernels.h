// SPDX-License-Identifier: MIT
#pragma once

// Launch wrappers for the workloads' own kernels (kernels.cu, built by nvcc). Plain C++
// declarations so the workload code around them compiles with the host compiler and the
// project's warnings.

#include <cuda_runtime_api.h>

#include <cstddef>

namespace ws::bench::kernels {

enum class Type { F32 = 0, F16 = 1, BF16 = 2 };

void relu(const void* in, void* out, size_t count, Type type, cudaStream_t s);
// 16-byte vector copy; `bytes` is a multiple of 16 and both pointers are 16-byte aligned.
void copy16(const void* src, void* dst, size_t bytes, int smCount, cudaStream_t s);
void sinOf(const float* x, float* y, size_t n, cudaStream_t s);
void cosOf(const float* x, float* y, size_t n, cudaStream_t s);
void add(const float* a, const float* b, float* out, size_t n, cudaStream_t s);
// Primary: y = 1.5 x + 0.25 (then triggers the secondary); secondary: z = y + x^2, where x^2
// is its preamble, computed before it waits on the primary. With `programmatic`, the
// secondary is launched with programmatic stream serialization (PDL).
cudaError_t pdlPair(const float* x, float* y, float* z, size_t n, bool programmatic, cudaStream_t s);

} // namespace ws::bench::kernels
