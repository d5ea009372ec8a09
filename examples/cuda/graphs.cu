// SPDX-License-Identifier: MIT
// A CUDA graph captured from a stream (memset, two kernels, a device-to-device copy) and
// replayed --replays times (default 10): the recorder shows every replayed kernel with its
// graph id and graph node id, correlated to cudaGraphLaunch.
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK_CUDA(call)                                                                                               \
    do {                                                                                                               \
        const cudaError_t e_ = (call);                                                                                 \
        if (e_ != cudaSuccess) {                                                                                       \
            std::fprintf(stderr, "%s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));               \
            std::exit(2);                                                                                              \
        }                                                                                                              \
    } while (0)

namespace {

__global__ void axpy_kernel(float* y, const float* x, float a, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

__global__ void relu_kernel(float* y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(y[i], 0.0f);
}

int argInt(int argc, char** argv, const char* name, int fallback)
{
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0)
            return std::atoi(argv[i + 1]);
    return fallback;
}

} // namespace

int main(int argc, char** argv)
{
    const int replays = argInt(argc, argv, "--replays", 10);
    const int n = 1 << 20;
    std::vector<float> hx(n);
    for (int i = 0; i < n; ++i)
        hx[i] = std::sin(static_cast<float>(i)); // half negative, so the ReLU matters
    float *x = nullptr, *y = nullptr, *out = nullptr;
    CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&out, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    nvtxRangePushA("capture");
    cudaGraph_t graph;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_CUDA(cudaMemsetAsync(y, 0, n * sizeof(float), s));
    axpy_kernel<<<(n + 255) / 256, 256, 0, s>>>(y, x, 2.0f, n);
    relu_kernel<<<(n + 255) / 256, 256, 0, s>>>(y, n);
    CHECK_CUDA(cudaMemcpyAsync(out, y, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    nvtxRangePop();

    nvtxRangePushA("replays");
    for (int r = 0; r < replays; ++r) {
        nvtxRangePushA("graph launch");
        CHECK_CUDA(cudaGraphLaunch(exec, s));
        nvtxRangePop();
    }
    CHECK_CUDA(cudaStreamSynchronize(s));
    nvtxRangePop();

    std::vector<float> hout(n);
    CHECK_CUDA(cudaMemcpy(hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(hout[i] - std::fmax(2.0f * hx[i], 0.0f)) > 1e-6f)
            ++bad;
    std::printf("graph: %d replays of 4 nodes, %d wrong elements\n", replays, bad);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    cudaFree(x);
    cudaFree(y);
    cudaFree(out);
    return bad == 0 ? 0 : 1;
}
