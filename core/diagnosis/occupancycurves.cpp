// SPDX-License-Identifier: MIT
#include "core/diagnosis/occupancycurves.h"

#include <algorithm>

namespace ws {

OccupancyInput occupancyInput(const LaunchConfig& launch, const ArchitectureLimits& limits)
{
    OccupancyInput in;
    in.blockSize = static_cast<int>(std::min<int64_t>(launch.blockThreads(), INT32_MAX));
    in.registersPerThread = launch.registersPerThread;
    in.staticSmemBytes = launch.staticSmemBytes;
    in.dynamicSmemBytes = launch.dynamicSmemBytes;
    if (launch.staticSmemBytes + launch.dynamicSmemBytes > limits.smemPerBlockDefault)
        in.maxDynamicSmemBytes = launch.dynamicSmemBytes;
    return in;
}

OccupancyCurves occupancyCurves(const OccupancyCalculator& calculator, const OccupancyInput& input)
{
    const ArchitectureLimits& a = calculator.limits();
    OccupancyCurves c;
    c.input = input;
    c.current = calculator.compute(input);
    auto point = [&](double x, const OccupancyInput& in) {
        const OccupancyResult r = calculator.compute(in);
        return OccupancyCurvePoint {x, r.occupancyPct, r.blocksPerSm};
    };
    for (int regs = 1; regs <= a.maxRegsPerThread; ++regs) {
        OccupancyInput in = input;
        in.registersPerThread = regs;
        c.byRegisters.push_back(point(regs, in));
    }
    for (int threads = a.warpSize; threads <= a.maxThreadsPerBlock; threads += a.warpSize) {
        OccupancyInput in = input;
        in.blockSize = threads;
        c.byBlockSize.push_back(point(threads, in));
    }
    // Shared memory per block as the kernel would request it (static + dynamic): the varied
    // amount is dynamic, opted in up to the device's per-block maximum.
    const int64_t maxBytes = a.smemPerBlockOptin > 0 ? a.smemPerBlockOptin : a.smemPerBlockDefault;
    for (int64_t bytes = 0; bytes <= maxBytes; bytes += 1024) {
        OccupancyInput in = input;
        in.staticSmemBytes = 0;
        in.dynamicSmemBytes = bytes;
        in.maxDynamicSmemBytes = std::max<int64_t>(bytes, 1);
        c.bySharedMem.push_back(point(static_cast<double>(bytes), in));
    }
    return c;
}

} // namespace ws
