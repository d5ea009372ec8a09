// SPDX-License-Identifier: MIT
// multistream: sin(x) and cos(x) on two streams, ordered after a start event recorded on the
// timing stream and joined back to it by two events, then their sum on the timing stream
// (the seed's event graph). "one-stream" runs the same kernels in order on one stream.
#include "kernels.h"
#include "workloads.h"

#include <cmath>

namespace ws::bench {

namespace {

class MultistreamWorkload : public PreparedWorkload {
public:
    MultistreamWorkload(const WorkloadConfig& config, TimerKind timer)
        : m_n(static_cast<size_t>(config.size))
        , m_x(m_n * 4)
        , m_left(m_n * 4)
        , m_right(m_n * 4)
        , m_out(m_n * 4)
    {
        m_host = randomInputs(m_n, 4);
        throwIfFailed(cudaMemcpy(m_x.get(), m_host.data(), m_n * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
        throwIfFailed(cudaStreamCreateWithFlags(&m_leftStream, cudaStreamNonBlocking), "cudaStreamCreate");
        throwIfFailed(cudaStreamCreateWithFlags(&m_rightStream, cudaStreamNonBlocking), "cudaStreamCreate");
        for (auto* e : {&m_start, &m_leftDone, &m_rightDone})
            throwIfFailed(cudaEventCreateWithFlags(e, cudaEventDisableTiming), "cudaEventCreate");

        Implementation two;
        two.name = "two-streams";
        two.call = [this](cudaStream_t s) {
            throwIfFailed(cudaEventRecord(m_start, s), "cudaEventRecord");
            throwIfFailed(cudaStreamWaitEvent(m_leftStream, m_start, 0), "cudaStreamWaitEvent");
            kernels::sinOf(m_x.as<float>(), m_left.as<float>(), m_n, m_leftStream);
            throwIfFailed(cudaEventRecord(m_leftDone, m_leftStream), "cudaEventRecord");
            throwIfFailed(cudaStreamWaitEvent(m_rightStream, m_start, 0), "cudaStreamWaitEvent");
            kernels::cosOf(m_x.as<float>(), m_right.as<float>(), m_n, m_rightStream);
            throwIfFailed(cudaEventRecord(m_rightDone, m_rightStream), "cudaEventRecord");
            throwIfFailed(cudaStreamWaitEvent(s, m_leftDone, 0), "cudaStreamWaitEvent");
            throwIfFailed(cudaStreamWaitEvent(s, m_rightDone, 0), "cudaStreamWaitEvent");
            kernels::add(m_left.as<float>(), m_right.as<float>(), m_out.as<float>(), m_n, s);
        };
        Implementation one;
        one.name = "one-stream";
        one.call = [this](cudaStream_t s) {
            kernels::sinOf(m_x.as<float>(), m_left.as<float>(), m_n, s);
            kernels::cosOf(m_x.as<float>(), m_right.as<float>(), m_n, s);
            kernels::add(m_left.as<float>(), m_right.as<float>(), m_out.as<float>(), m_n, s);
        };
        for (auto* impl : {&two, &one}) {
            // Poison both branches' results: a join that did not wait would read stale values
            // identical to the right ones.
            impl->reset = [this](cudaStream_t s) {
                throwIfFailed(cudaMemsetAsync(m_left.get(), 0xFF, m_n * 4, s), "cudaMemsetAsync");
                throwIfFailed(cudaMemsetAsync(m_right.get(), 0xFF, m_n * 4, s), "cudaMemsetAsync");
            };
            impl->output = {m_out.get(), m_n, ElementType::F32};
            declare(*impl, config, timer);
            implementations.push_back(std::move(*impl));
        }
        reference.description = "host double-precision sin(x) + cos(x)";
        reference.sampleCount = std::min<size_t>(m_n, size_t(1) << 20);
        reference.expected = [this](size_t i) {
            const double x = m_host[i];
            return std::sin(x) + std::cos(x);
        };
    }

    ~MultistreamWorkload() override
    {
        cudaEventDestroy(m_start);
        cudaEventDestroy(m_leftDone);
        cudaEventDestroy(m_rightDone);
        cudaStreamDestroy(m_leftStream);
        cudaStreamDestroy(m_rightStream);
    }

private:
    size_t m_n;
    DeviceMemory m_x;
    DeviceMemory m_left;
    DeviceMemory m_right;
    DeviceMemory m_out;
    std::vector<float> m_host;
    cudaStream_t m_leftStream = nullptr;
    cudaStream_t m_rightStream = nullptr;
    cudaEvent_t m_start = nullptr;
    cudaEvent_t m_leftDone = nullptr;
    cudaEvent_t m_rightDone = nullptr;
};

} // namespace

std::unique_ptr<PreparedWorkload> prepareMultistream(const WorkloadConfig& config, TimerKind timer)
{
    return std::make_unique<MultistreamWorkload>(config, timer);
}

} // namespace ws::bench
