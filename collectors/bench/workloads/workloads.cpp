// SPDX-License-Identifier: MIT
#include "workloads.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ws::bench {

DeviceMemory::DeviceMemory(size_t bytes)
    : m_bytes(bytes)
{
    throwIfFailed(cudaMalloc(&m_ptr, std::max<size_t>(bytes, 16)), "cudaMalloc");
}

DeviceMemory::~DeviceMemory()
{
    cudaFree(m_ptr);
}

void throwIfFailed(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
        throw CudaError(std::string(what) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

std::vector<float> randomInputs(size_t n, uint64_t seed)
{
    std::vector<float> v(n);
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& x : v) {
        // xorshift64*: fast enough for hundreds of millions of values.
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        const uint64_t r = s * 0x2545F4914F6CDD1Dull;
        x = static_cast<float>(static_cast<double>(r >> 40) / double(1 << 24) * 2.0 - 1.0);
    }
    return v;
}

uint16_t toBf16(float f)
{
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

float fromBf16(uint16_t h)
{
    const uint32_t bits = uint32_t(h) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t toHalf(float f)
{
    // Inputs are in [-1, 1): normal or subnormal halves, no overflow handling needed beyond
    // the general case kept for safety.
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000;
    const int exp = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
    uint32_t mant = x & 0x7FFFFF;
    if (exp <= 0) {
        if (exp < -10)
            return static_cast<uint16_t>(sign);
        mant |= 0x800000;
        const int shift = 14 - exp;
        uint32_t half = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1)))
            ++half;
        return static_cast<uint16_t>(sign | half);
    }
    if (exp >= 31)
        return static_cast<uint16_t>(sign | 0x7C00);
    uint32_t half = sign | (uint32_t(exp) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1FFF;
    if (rem > 0x1000 || (rem == 0x1000 && (half & 1)))
        ++half;
    return static_cast<uint16_t>(half);
}

float fromHalf(uint16_t h)
{
    const uint32_t sign = (h >> 15) & 1;
    const uint32_t exp = (h >> 10) & 0x1f;
    const uint32_t mant = h & 0x3ff;
    float v;
    if (exp == 0)
        v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31)
        v = mant ? std::nanf("") : INFINITY;
    else
        v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

void declare(Implementation& impl, const WorkloadConfig& config, TimerKind timer)
{
    const auto w = declaredWork(config, impl.name, timer);
    impl.operation = w.operation;
    impl.workFlops = w.flops;
    impl.workBytes = w.bytes;
    impl.throughputKind = w.kind;
    impl.workText = w.workText;
}

std::unique_ptr<PreparedWorkload> prepareWorkload(const WorkloadConfig& config, TimerKind timer)
{
    std::unique_ptr<PreparedWorkload> w;
    if (config.workload == "gemm")
        w = prepareGemm(config, timer, false);
    else if (config.workload == "gemm-relu")
        w = prepareGemm(config, timer, true);
    else if (config.workload == "copy")
        w = prepareCopy(config, timer);
    else if (config.workload == "multistream")
        w = prepareMultistream(config, timer);
    else if (config.workload == "pdl")
        w = preparePdl(config, timer);
    else
        throw BenchOptionError("unknown workload '" + config.workload + "' (known: " + workloadNames() + ")");
    if (!config.implementations.empty()) {
        std::vector<Implementation> kept;
        for (const auto& name : config.implementations) {
            auto it = std::find_if(w->implementations.begin(), w->implementations.end(),
                [&](const Implementation& i) { return i.name == name; });
            if (it == w->implementations.end())
                throw BenchOptionError("workload " + config.workload + " has no implementation '" + name + "'");
            kept.push_back(*it);
        }
        w->implementations = std::move(kept);
    }
    return w;
}

} // namespace ws::bench
