// SPDX-License-Identifier: MIT
// copy: SIZE bytes device to device, by cudaMemcpyAsync and by a 16-byte-vector kernel.
#include "kernels.h"
#include "workloads.h"

namespace ws::bench {

namespace {

class CopyWorkload : public PreparedWorkload {
public:
    CopyWorkload(const WorkloadConfig& config, TimerKind timer)
        : m_bytes(static_cast<size_t>(config.size))
        , m_src(m_bytes)
        , m_dst(m_bytes)
    {
        m_host = randomInputs(m_bytes / 4, 3);
        throwIfFailed(cudaMemcpy(m_src.get(), m_host.data(), m_bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
        int device = 0;
        throwIfFailed(cudaGetDevice(&device), "cudaGetDevice");
        throwIfFailed(
            cudaDeviceGetAttribute(&m_smCount, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");

        Implementation memcpyImpl;
        memcpyImpl.name = "memcpy";
        memcpyImpl.call = [this](cudaStream_t s) {
            throwIfFailed(
                cudaMemcpyAsync(m_dst.get(), m_src.get(), m_bytes, cudaMemcpyDeviceToDevice, s), "cudaMemcpyAsync");
        };
        Implementation kernelImpl;
        kernelImpl.name = "copy-kernel";
        kernelImpl.call = [this](cudaStream_t s) { kernels::copy16(m_src.get(), m_dst.get(), m_bytes, m_smCount, s); };
        for (auto* impl : {&memcpyImpl, &kernelImpl}) {
            impl->output = {m_dst.get(), m_bytes / 4, ElementType::F32};
            declare(*impl, config, timer);
            implementations.push_back(std::move(*impl));
        }
        reference.description = "the source buffer as uploaded";
        reference.sampleCount = std::min<size_t>(m_bytes / 4, size_t(1) << 22);
        reference.expected = [this](size_t i) { return static_cast<double>(m_host[i]); };
    }

private:
    size_t m_bytes;
    DeviceMemory m_src;
    DeviceMemory m_dst;
    std::vector<float> m_host;
    int m_smCount = 0;
};

} // namespace

std::unique_ptr<PreparedWorkload> prepareCopy(const WorkloadConfig& config, TimerKind timer)
{
    return std::make_unique<CopyWorkload>(config, timer);
}

} // namespace ws::bench
