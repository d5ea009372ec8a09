// SPDX-License-Identifier: MIT
#pragma once

#include "core/bench/benchworkload.h"
#include "warpscope/bench.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ws::bench {

// Device memory owned by a workload.
class DeviceMemory {
public:
    explicit DeviceMemory(size_t bytes);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    void* get() const { return m_ptr; }
    template <typename T> T* as() const { return static_cast<T*>(m_ptr); }
    size_t bytes() const { return m_bytes; }

private:
    void* m_ptr = nullptr;
    size_t m_bytes = 0;
};

void throwIfFailed(cudaError_t e, const char* what);

// Deterministic inputs in [-1, 1): a fixed seed makes every run check the same numbers, and
// random (not zero) data keeps the timing representative.
std::vector<float> randomInputs(size_t n, uint64_t seed);
uint16_t toBf16(float f); // round to nearest even
float fromBf16(uint16_t h);
uint16_t toHalf(float f);
float fromHalf(uint16_t h);

// A workload with inputs allocated and initialised: its implementations, the reference they
// are checked against, and what it adds to the environment (library versions...).
class PreparedWorkload {
public:
    virtual ~PreparedWorkload() = default;
    std::vector<Implementation> implementations;
    Reference reference;
    std::map<std::string, std::string> environment;
};

std::unique_ptr<PreparedWorkload> prepareGemm(const WorkloadConfig& config, TimerKind timer, bool relu);
std::unique_ptr<PreparedWorkload> prepareCopy(const WorkloadConfig& config, TimerKind timer);
std::unique_ptr<PreparedWorkload> prepareMultistream(const WorkloadConfig& config, TimerKind timer);
std::unique_ptr<PreparedWorkload> preparePdl(const WorkloadConfig& config, TimerKind timer);

// Dispatches on config.workload and keeps only config.implementations (all when empty).
std::unique_ptr<PreparedWorkload> prepareWorkload(const WorkloadConfig& config, TimerKind timer);

// Fills the declared work and boundary fields of `impl` from the catalogue.
void declare(Implementation& impl, const WorkloadConfig& config, TimerKind timer);

} // namespace ws::bench
