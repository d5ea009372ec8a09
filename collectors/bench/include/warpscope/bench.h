// SPDX-License-Identifier: MIT
#pragma once

// Benchmark harness for user code: bench(implementations, reference, options) checks every
// implementation against a reference, then warms up and times them with the chosen timer and
// cache policy, alternating their order round by round, and returns every sample.
//
//   ws::bench::Implementation mine {"mine", [&](cudaStream_t s) { myKernel<<<g, b, 0, s>>>(...); }};
//   mine.output = {dOut, n, ws::bench::ElementType::F32};
//   ws::bench::Reference ref {[&](size_t i) { return expected[i]; }, "CPU reference"};
//   auto result = ws::bench::bench({mine}, ref, options, {"my-op", n, "fp32"});
//   ws::bench::saveJson(result, "my-op.json");   // warpscope-cli bench --from-json my-op.json -o my-op.wscope

#include "core/bench/benchoptions.h"
#include "core/bench/benchresult.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace ws::bench {

enum class ElementType { F32, F16, BF16 };
size_t elementBytes(ElementType t);

// Where an implementation leaves its result, so the harness can compare it.
struct DeviceOutput {
    const void* data = nullptr;
    size_t count = 0;
    ElementType type = ElementType::F32;
};

struct Implementation {
    std::string name;
    // One measured call. Enqueue the operation on `stream`; work on other streams must be
    // ordered after an event recorded on `stream` first and joined back to it before return,
    // or the timer's interval would not contain it. Must not synchronize.
    std::function<void(cudaStream_t stream)> call;
    DeviceOutput output;
    // Optional: restores inputs an in-place implementation modifies, before the check run.
    std::function<void(cudaStream_t stream)> reset;
    std::string operation; // what one call does, in words (start of the boundary text)
    double workFlops = 0;  // declared work of one call, for throughput
    double workBytes = 0;
    ThroughputKind throughputKind = ThroughputKind::Kernel;
    std::string workText; // how the work was counted
};

// The expected output, computed independently of the implementations (on the host, in double).
struct Reference {
    std::function<double(size_t index)> expected;
    std::string description;
    size_t sampleCount = 0; // elements compared: first, last and random ones; 0 = all
    uint64_t seed = 1;
};

// Labels stored with the result.
struct Context {
    std::string workload = "custom";
    int64_t size = 0;
    std::string dtype;
    // Progress and warnings; by default they go to stderr.
    std::function<void(const std::string&)> onMessage;
};

// An implementation's output disagreed with the reference: nothing was timed.
class CorrectnessError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A CUDA call failed; the message names the call and the implementation.
class CudaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs on the current device. Throws BenchOptionError, CorrectnessError or CudaError.
BenchResult bench(const std::vector<Implementation>& implementations, const Reference& reference,
    const BenchOptions& options, const Context& context = {});

// Device and software description for the result's environment and devices tables.
DeviceInfo describeDevice(int device);
std::map<std::string, std::string> collectEnvironment(int device);
// Clocks, temperature and power read through NVML (if the driver provides it), under `prefix`.
void addGpuState(std::map<std::string, std::string>& env, int device, const std::string& prefix);

void saveJson(const BenchResult& result, const std::string& path);

} // namespace ws::bench
