// SPDX-License-Identifier: MIT
#pragma once
// CHECK / CHECK_BLAS for the profiler's GPU check programs (occupancygrid, the workloads): a
// failing CUDA or cuBLAS call prints where and why and ends the program with status 1, so a
// comparison script never mistakes a broken run for a measurement. CHECK_BLAS needs cublas_v2.h
// included before this header. workloads/stalls.cu keeps its own copy: its text and line
// numbers are part of the PC-sampling fixture (tests/fixtures/source), whose SASS maps to them,
// and tst_profile_sourcecounters compares the file's text.

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (x);                                                                                          \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                  \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)
#define CHECK_BLAS(x)                                                                                                  \
    do {                                                                                                               \
        cublasStatus_t s_ = (x);                                                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                                             \
            std::fprintf(stderr, "%s:%d %s -> cuBLAS status %d\n", __FILE__, __LINE__, #x, static_cast<int>(s_));      \
            std::exit(1);                                                                                              \
        }                                                                                                              \
    } while (0)
