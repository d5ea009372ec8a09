// SPDX-License-Identifier: MIT
// pdl: a primary/secondary kernel pair on one stream, launched with programmatic dependent
// launch ("pdl") or plainly ("serialized"). Both are checked, so the result is right whether
// the kernels overlap or the runtime serializes them.
#include "kernels.h"
#include "workloads.h"

namespace ws::bench {

namespace {

class PdlWorkload : public PreparedWorkload {
public:
    PdlWorkload(const WorkloadConfig& config, TimerKind timer)
        : m_n(static_cast<size_t>(config.size))
        , m_x(m_n * 4)
        , m_y(m_n * 4)
        , m_z(m_n * 4)
    {
        int device = 0;
        int major = 0;
        throwIfFailed(cudaGetDevice(&device), "cudaGetDevice");
        throwIfFailed(
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
        if (major < 9)
            throw BenchOptionError("the pdl workload needs a GPU of compute capability 9.0 or newer (programmatic "
                                   "dependent launch); this one is "
                + std::to_string(major) + ".x");
        m_host = randomInputs(m_n, 5);
        throwIfFailed(cudaMemcpy(m_x.get(), m_host.data(), m_n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
        for (bool programmatic : {true, false}) {
            Implementation impl;
            impl.name = programmatic ? "pdl" : "serialized";
            impl.call = [this, programmatic](cudaStream_t s) {
                throwIfFailed(kernels::pdlPair(m_x.as<float>(), m_y.as<float>(), m_z.as<float>(), m_n, programmatic, s),
                    "cudaLaunchKernelEx (secondary)");
            };
            // Poison the intermediate too: a secondary that read y before the primary wrote it
            // would otherwise find the previous call's (identical) values and pass.
            impl.reset = [this](cudaStream_t s) {
                throwIfFailed(cudaMemsetAsync(m_y.get(), 0xFF, m_n * 4, s), "cudaMemsetAsync");
            };
            impl.output = {m_z.get(), m_n, ElementType::F32};
            declare(impl, config, timer);
            implementations.push_back(std::move(impl));
        }
        reference.description = "host double-precision (1.5 x + 0.25) + x^2";
        reference.sampleCount = std::min<size_t>(m_n, size_t(1) << 20);
        reference.expected = [this](size_t i) {
            const double x = m_host[i];
            return (1.5 * x + 0.25) + x * x;
        };
    }

private:
    size_t m_n;
    DeviceMemory m_x;
    DeviceMemory m_y;
    DeviceMemory m_z;
    std::vector<float> m_host;
};

} // namespace

std::unique_ptr<PreparedWorkload> preparePdl(const WorkloadConfig& config, TimerKind timer)
{
    return std::make_unique<PdlWorkload>(config, timer);
}

} // namespace ws::bench
