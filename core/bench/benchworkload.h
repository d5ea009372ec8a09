// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchoptions.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ws::bench {

// The built-in workloads of `warpscope-cli bench` (run by warpscope-bench-workloads). The
// catalogue lives here, Qt- and CUDA-free, so the command line validates a request before any
// GPU process starts and both sides describe the same boundary and work in the same words.
struct WorkloadSpec {
    enum class SizeKind { Dimension, Bytes, Elements };
    std::string_view name;
    std::string_view description;
    SizeKind sizeKind = SizeKind::Dimension;
    int64_t defaultSize = 0;
    int64_t minSize = 1;
    int64_t maxSize = 0;
    int64_t sizeMultiple = 1;
    std::vector<std::string_view> dtypes; // first is the default
    std::vector<std::string_view> implementations;
};

const std::vector<WorkloadSpec>& workloadCatalogue();
const WorkloadSpec* findWorkload(std::string_view name);
std::string workloadNames(); // "gemm, gemm-relu, ..." for messages

// A validated request: which workload, how large, which element type.
struct WorkloadConfig {
    std::string workload;
    int64_t size = 0;
    std::string dtype;
    std::vector<std::string> implementations; // empty: all of the workload's
    bool operator==(const WorkloadConfig&) const = default;
};

// Throws BenchOptionError naming the bad value and what would be accepted.
WorkloadConfig resolveWorkload(std::string_view name, std::optional<std::string_view> sizeText,
    std::optional<std::string_view> dtype, const std::vector<std::string>& implementations = {});

int dtypeBytes(std::string_view dtype); // 0 when unknown

// Default tolerances of the correctness check: what the element type and the reference
// allow (bf16 GEMM as in the seed: rtol 2e-2, atol 1e-2; a copy must be exact).
struct Tolerance {
    double rtol = 0;
    double atol = 0;
};
Tolerance defaultTolerance(const WorkloadConfig& config);

// The work one call performs, as counted for throughput, and what the call covers.
struct DeclaredWork {
    double flops = 0;
    double bytes = 0;
    ThroughputKind kind = ThroughputKind::Kernel;
    std::string operation; // what one call does, in words (first part of the boundary)
    std::string workText;  // how the work was counted, e.g. "2 x 4096 x 4096 x 4096 FLOP (GEMM only)"
};
DeclaredWork declaredWork(const WorkloadConfig& config, std::string_view implementation, TimerKind timer);

// The complete boundary in words: the operation, the interval of the chosen timer, the cache
// policy and what stays outside every interval.
std::string describeBoundary(
    std::string_view operation, TimerKind timer, CachePolicy cache, int64_t repeat, int64_t flushBytes);

} // namespace ws::bench
