// SPDX-License-Identifier: MIT
// ws-launch-cost: the host cost of an empty <<<1,32>>> kernel launch, with the launch queue never
// full: launches go in bursts of --burst (default 256, well under the queue's depth), each burst
// timed on its own, and the GPU drained between bursts outside the timing. So a tracer's GPU-side
// cost per kernel (timestamps) cannot turn the figure into GPU throughput, which
// ws-example-launch-bound's one long loop may. After 1000 warm-up launches; prints
//   RESULT launches=N host_us_per_launch=X
// (the line bench_launch_overhead reads), followed by the median and 10th percentile of the bursts'
// own figures (burst_median_us=, burst_p10_us=): a burst an interrupt or a page fault landed in
// moves the mean of one process, not its median, so the between-process spread of the A/B is
// the launch path's own.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void empty_kernel() { }

int main(int argc, char** argv)
{
    int launches = 30000, burst = 256;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--launches") == 0)
            launches = std::atoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--burst") == 0)
            burst = std::atoi(argv[i + 1]);
    }
    for (int i = 0; i < 1000; ++i)
        empty_kernel<<<1, 32>>>();
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 2;
    double seconds = 0;
    std::vector<double> perBurst; // us per launch, bursts of the full size only
    for (int done = 0; done < launches;) {
        const int n = launches - done < burst ? launches - done : burst;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i)
            empty_kernel<<<1, 32>>>();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        seconds += s;
        if (n == burst)
            perBurst.push_back(s * 1e6 / n);
        done += n;
        cudaDeviceSynchronize();
    }
    if (cudaGetLastError() != cudaSuccess)
        return 2;
    std::sort(perBurst.begin(), perBurst.end());
    const auto at
        = [&](double q) { return perBurst.empty() ? 0.0 : perBurst[static_cast<size_t>(q * (perBurst.size() - 1))]; };
    std::printf("RESULT launches=%d host_us_per_launch=%.4f burst_median_us=%.4f burst_p10_us=%.4f bursts=%zu\n",
        launches, seconds * 1e6 / launches, at(0.5), at(0.1), perBurst.size());
    return 0;
}
