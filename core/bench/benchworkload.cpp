// SPDX-License-Identifier: MIT
#include "core/bench/benchworkload.h"

#include <algorithm>
#include <sstream>

namespace ws::bench {

const std::vector<WorkloadSpec>& workloadCatalogue()
{
    using K = WorkloadSpec::SizeKind;
    static const std::vector<WorkloadSpec> all = {
        {"gemm", "cuBLAS GEMM C = A x B, square N x N x N, row-major, FP32 accumulation", K::Dimension, 4096, 16, 32768,
            8, {"bf16", "fp16", "fp32"}, {"cublas"}},
        {"gemm-relu", "cuBLAS GEMM followed by a ReLU kernel into a separate output (the complete operation)",
            K::Dimension, 4096, 16, 32768, 8, {"bf16", "fp16", "fp32"}, {"cublas+relu"}},
        {"copy", "device-to-device copy of SIZE bytes", K::Bytes, int64_t(256) << 20, 16, int64_t(32) << 30, 16,
            {"fp32"}, {"memcpy", "copy-kernel"}},
        {"multistream", "sin and cos of SIZE floats on two streams joined by events, then their sum", K::Elements,
            int64_t(1) << 24, 1, int64_t(1) << 31, 1, {"fp32"}, {"two-streams", "one-stream"}},
        {"pdl", "programmatic-dependent-launch primary/secondary kernel pair over SIZE floats", K::Elements,
            int64_t(1) << 24, 1, int64_t(1) << 31, 1, {"fp32"}, {"pdl", "serialized"}},
    };
    return all;
}

const WorkloadSpec* findWorkload(std::string_view name)
{
    for (const auto& w : workloadCatalogue()) {
        if (w.name == name)
            return &w;
    }
    return nullptr;
}

std::string workloadNames()
{
    std::string s;
    for (const auto& w : workloadCatalogue()) {
        if (!s.empty())
            s += ", ";
        s += w.name;
    }
    return s;
}

int dtypeBytes(std::string_view dtype)
{
    if (dtype == "bf16" || dtype == "fp16")
        return 2;
    if (dtype == "fp32")
        return 4;
    return 0;
}

Tolerance defaultTolerance(const WorkloadConfig& config)
{
    if (config.workload == "gemm" || config.workload == "gemm-relu") {
        if (config.dtype == "bf16")
            return {2e-2, 1e-2};
        if (config.dtype == "fp16")
            return {1e-2, 1e-2};
        return {1e-4, 1e-3}; // FP32 accumulation over K terms, no TF32
    }
    if (config.workload == "copy")
        return {0, 0};
    // Single-precision sinf/cosf/fmaf against double: a few ulp.
    return {1e-5, 1e-6};
}

namespace {

std::string joined(const std::vector<std::string_view>& items)
{
    std::string s;
    for (auto i : items) {
        if (!s.empty())
            s += ", ";
        s += i;
    }
    return s;
}

std::optional<int64_t> parseCount(std::string_view text)
{
    // Element counts and dimensions accept the same binary suffixes as byte sizes ("16M" = 2^24).
    return parseByteSize(text);
}

std::string num(double v)
{
    std::ostringstream s;
    s.precision(6);
    s << v;
    return s.str();
}

} // namespace

WorkloadConfig resolveWorkload(std::string_view name, std::optional<std::string_view> sizeText,
    std::optional<std::string_view> dtype, const std::vector<std::string>& implementations)
{
    const auto* spec = findWorkload(name);
    if (!spec)
        throw BenchOptionError("unknown workload '" + std::string(name) + "' (known: " + workloadNames() + ")");
    WorkloadConfig c;
    c.workload = std::string(spec->name);
    c.size = spec->defaultSize;
    if (sizeText) {
        const auto parsed = parseCount(*sizeText);
        if (!parsed)
            throw BenchOptionError("--size '" + std::string(*sizeText) + "' is not a size (examples: 4096, 32M, 1GiB)");
        c.size = *parsed;
    }
    const char* unit = spec->sizeKind == WorkloadSpec::SizeKind::Bytes ? " bytes" : "";
    if (c.size < spec->minSize || c.size > spec->maxSize)
        throw BenchOptionError("--size " + std::to_string(c.size) + " is out of range for " + c.workload + " ("
            + std::to_string(spec->minSize) + unit + " to " + std::to_string(spec->maxSize) + unit + ")");
    if (c.size % spec->sizeMultiple != 0)
        throw BenchOptionError("--size " + std::to_string(c.size) + " for " + c.workload + " must be a multiple of "
            + std::to_string(spec->sizeMultiple) + unit);
    c.dtype = std::string(spec->dtypes.front());
    if (dtype) {
        if (std::find(spec->dtypes.begin(), spec->dtypes.end(), *dtype) == spec->dtypes.end())
            throw BenchOptionError(
                c.workload + " supports --dtype " + joined(spec->dtypes) + "; got '" + std::string(*dtype) + "'");
        c.dtype = std::string(*dtype);
    }
    for (const auto& impl : implementations) {
        if (std::find(spec->implementations.begin(), spec->implementations.end(), impl) == spec->implementations.end())
            throw BenchOptionError("workload " + c.workload + " has no implementation '" + impl
                + "' (it has: " + joined(spec->implementations) + ")");
        if (std::find(c.implementations.begin(), c.implementations.end(), impl) != c.implementations.end())
            throw BenchOptionError("implementation '" + impl + "' is named twice");
        c.implementations.push_back(impl);
    }
    return c;
}

DeclaredWork declaredWork(const WorkloadConfig& config, std::string_view implementation, TimerKind timer)
{
    DeclaredWork w;
    const auto n = static_cast<double>(config.size);
    const double s = dtypeBytes(config.dtype);
    const std::string impl(implementation);
    const std::string ns = std::to_string(config.size);
    if (config.workload == "gemm" || config.workload == "gemm-relu") {
        w.flops = 2.0 * n * n * n;
        w.bytes = 3.0 * n * n * s;
        w.operation = "one cublasGemmEx call C = A x B (" + ns + " x " + ns + " x " + ns + ", " + config.dtype
            + " in and out, FP32 accumulation) on the timing stream";
        w.workText = "2 x " + ns + " x " + ns + " x " + ns + " FLOP; bytes = A + B read once, C written once";
        w.kind = ThroughputKind::Kernel;
        if (config.workload == "gemm-relu") {
            w.bytes += 2.0 * n * n * s;
            w.operation += ", then one ReLU kernel reading C and writing a separate output (the complete GEMM+ReLU "
                           "operation)";
            w.workText = "2 x " + ns + " x " + ns + " x " + ns
                + " FLOP of the GEMM only (ReLU not counted) over the GEMM+ReLU time; bytes = GEMM "
                  "traffic + ReLU read and write";
            w.kind = ThroughputKind::Effective;
        }
    } else if (config.workload == "copy") {
        w.bytes = 2.0 * n;
        w.operation = (impl == "copy-kernel" ? std::string("one 16-byte-vector copy kernel")
                                             : std::string("one cudaMemcpyAsync device-to-device"))
            + " of " + formatBytes(config.size) + " on the timing stream";
        w.workText = "bytes read + bytes written = 2 x " + formatBytes(config.size);
        w.kind = ThroughputKind::Kernel;
    } else if (config.workload == "multistream") {
        w.bytes = 7.0 * n * s;
        w.flops = 0;
        if (impl == "one-stream")
            w.operation = "sin(x), cos(x) and their sum over " + num(n)
                + " floats, all three kernels in order on the timing stream";
        else
            w.operation = "sin(x) on one stream and cos(x) on another, both ordered after the start event by "
                          "cudaStreamWaitEvent, joined back on the timing stream by two events, then their sum ("
                + num(n) + " floats)";
        w.workText = "7 x " + num(n)
            + " x 4 bytes (x read twice, two results written, read and summed, output "
              "written)";
        w.kind = ThroughputKind::Effective;
    } else if (config.workload == "pdl") {
        w.bytes = 5.0 * n * s;
        if (impl == "pdl")
            w.operation
                = "a primary kernel and a secondary kernel launched with programmatic stream serialization "
                  "on the timing stream (the secondary may start its preamble after the primary's trigger) over "
                + num(n) + " floats";
        else
            w.operation = "the same primary and secondary kernels launched plainly (serialized) on the timing stream "
                          "over "
                + num(n) + " floats";
        w.workText = "5 x " + num(n) + " x 4 bytes (primary reads x, writes y; secondary reads x and y, writes z)";
        w.kind = ThroughputKind::Effective;
    }
    if (timer == TimerKind::WallclockSyncPerCall)
        w.kind = ThroughputKind::Effective; // launch and synchronization are inside the interval
    return w;
}

std::string describeBoundary(
    std::string_view operation, TimerKind timer, CachePolicy cache, int64_t repeat, int64_t flushBytes)
{
    std::string b = "One call: " + std::string(operation) + ". ";
    switch (timer) {
    case TimerKind::CudaEventsPerBatch:
        b += "Interval: CUDA events recorded on the timing stream before the first and after the last of "
            + std::to_string(repeat) + " back-to-back calls; the value is the interval divided by "
            + std::to_string(repeat) + " (GPU-stream time, idle stream gaps between calls included). ";
        break;
    case TimerKind::CudaEventsPerCall:
        b += "Interval: one CUDA event pair on the timing stream around each call (GPU-stream time; idle stream "
             "gaps inside the pair count). ";
        break;
    case TimerKind::WallclockSyncPerCall:
        b += "Interval: host steady clock started after the stream is synchronized, stopped when "
             "cudaStreamSynchronize returns after the call (host call, launch, GPU execution and the wait). ";
        break;
    }
    if (cache == CachePolicy::Flush) {
        b += "Cache: before each measured call a " + formatBytes(flushBytes)
            + " buffer (at least 2 x L2) is written on the timing stream";
        b += timer == TimerKind::WallclockSyncPerCall ? " and synchronized before the clock starts"
                                                      : ", before the start event";
        b += " (outside the interval). ";
    } else {
        b += "Cache: warm; calls reuse the same buffers, so data the previous call left in L2 may hit. ";
    }
    b += "Outside every interval: allocation, input initialisation, library handles, warm-up and the correctness "
         "check.";
    return b;
}

} // namespace ws::bench
