// SPDX-License-Identifier: MIT
// gemm and gemm-relu: C = A x B through cuBLAS (row-major, square), optionally followed by a
// ReLU into a separate output. The reference is computed on the host in double from the same
// rounded inputs, for a sample of output elements.
#include "kernels.h"
#include "workloads.h"

#include <cublas_v2.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstring>

namespace ws::bench {

namespace {

void cublasCheck(cublasStatus_t s, const char* what)
{
    if (s != CUBLAS_STATUS_SUCCESS)
        throw CudaError(
            std::string(what) + " failed: " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

class GemmWorkload : public PreparedWorkload {
public:
    GemmWorkload(const WorkloadConfig& config, TimerKind timer, bool relu)
        : m_n(static_cast<size_t>(config.size))
        , m_dtype(config.dtype)
        , m_a(m_n * m_n * static_cast<size_t>(dtypeBytes(config.dtype)))
        , m_b(m_a.bytes())
        , m_c(m_a.bytes())
        , m_out(relu ? m_a.bytes() : 16)
        , m_workspace(kWorkspaceBytes)
    {
        cublasCheck(cublasCreate(&m_handle), "cublasCreate");
        // The same workspace PyTorch gives cuBLAS on Hopper, so the library can choose the
        // same algorithms for the same shape.
        cublasCheck(cublasSetWorkspace(m_handle, m_workspace.get(), kWorkspaceBytes), "cublasSetWorkspace");
        upload(m_a, m_hostA, 1);
        upload(m_b, m_hostB, 2);
        // B transposed on the host so each reference dot product reads both operands in order.
        m_hostBt.resize(m_n * m_n);
        for (size_t k = 0; k < m_n; ++k) {
            for (size_t j = 0; j < m_n; ++j)
                m_hostBt[j * m_n + k] = m_hostB[k * m_n + j];
        }
        std::vector<float>().swap(m_hostB);

        const auto type = cudaType();
        const auto kernelType
            = m_dtype == "bf16" ? kernels::Type::BF16 : (m_dtype == "fp16" ? kernels::Type::F16 : kernels::Type::F32);
        Implementation impl;
        impl.name = relu ? "cublas+relu" : "cublas";
        impl.call = [this, type, relu, kernelType](cudaStream_t s) {
            cublasCheck(cublasSetStream(m_handle, s), "cublasSetStream");
            const float alpha = 1.0f;
            const float beta = 0.0f;
            const int n = static_cast<int>(m_n);
            // Row-major C = A B is column-major C^T = B^T A^T: pass B first.
            cublasCheck(cublasGemmEx(m_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, m_b.get(), type, n, m_a.get(),
                            type, n, &beta, m_c.get(), type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                "cublasGemmEx");
            if (relu)
                kernels::relu(m_c.get(), m_out.get(), m_n * m_n, kernelType, s);
        };
        impl.output.data = relu ? m_out.get() : m_c.get();
        impl.output.count = m_n * m_n;
        impl.output.type
            = m_dtype == "bf16" ? ElementType::BF16 : (m_dtype == "fp16" ? ElementType::F16 : ElementType::F32);
        declare(impl, config, timer);
        implementations.push_back(std::move(impl));

        reference.description = std::string("host double-precision dot products of the same ") + m_dtype + " inputs"
            + (relu ? ", then ReLU" : "");
        reference.sampleCount = 4096;
        reference.expected = [this, relu](size_t index) {
            const size_t i = index / m_n;
            const size_t j = index % m_n;
            const float* a = &m_hostA[i * m_n];
            const float* b = &m_hostBt[j * m_n];
            double sum = 0;
            for (size_t k = 0; k < m_n; ++k)
                sum += static_cast<double>(a[k]) * static_cast<double>(b[k]);
            return relu ? std::max(sum, 0.0) : sum;
        };

        int version = 0;
        if (cublasGetVersion(m_handle, &version) == CUBLAS_STATUS_SUCCESS)
            environment["cublas.version"] = std::to_string(version);
        Dl_info info {};
        if (dladdr(reinterpret_cast<void*>(&cublasCreate_v2), &info) && info.dli_fname)
            environment["cublas.library"] = info.dli_fname;
        environment["cublas.workspace_bytes"] = std::to_string(kWorkspaceBytes);
        environment["cublas.algorithm"] = "CUBLAS_GEMM_DEFAULT (heuristic), CUBLAS_COMPUTE_32F";
    }

    ~GemmWorkload() override { cublasDestroy(m_handle); }

private:
    static constexpr size_t kWorkspaceBytes = size_t(32) << 20;

    cudaDataType_t cudaType() const
    {
        if (m_dtype == "bf16")
            return CUDA_R_16BF;
        if (m_dtype == "fp16")
            return CUDA_R_16F;
        return CUDA_R_32F;
    }

    // Random inputs, rounded to the element type; the host keeps the rounded values.
    void upload(DeviceMemory& dst, std::vector<float>& host, uint64_t seed)
    {
        host = randomInputs(m_n * m_n, seed);
        if (m_dtype == "fp32") {
            throwIfFailed(cudaMemcpy(dst.get(), host.data(), dst.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
            return;
        }
        std::vector<uint16_t> packed(host.size());
        const bool bf16 = m_dtype == "bf16";
        for (size_t i = 0; i < host.size(); ++i) {
            packed[i] = bf16 ? toBf16(host[i]) : toHalf(host[i]);
            host[i] = bf16 ? fromBf16(packed[i]) : fromHalf(packed[i]);
        }
        throwIfFailed(cudaMemcpy(dst.get(), packed.data(), dst.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }

    size_t m_n;
    std::string m_dtype;
    DeviceMemory m_a;
    DeviceMemory m_b;
    DeviceMemory m_c;
    DeviceMemory m_out;
    DeviceMemory m_workspace;
    cublasHandle_t m_handle = nullptr;
    std::vector<float> m_hostA;
    std::vector<float> m_hostB;
    std::vector<float> m_hostBt;
};

} // namespace

std::unique_ptr<PreparedWorkload> prepareGemm(const WorkloadConfig& config, TimerKind timer, bool relu)
{
    return std::make_unique<GemmWorkload>(config, timer, relu);
}

} // namespace ws::bench
