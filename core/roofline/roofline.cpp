// SPDX-License-Identifier: MIT
#include "core/roofline/roofline.h"

#include "core/ingest/devicepeaks.h"

#include <algorithm>
#include <cstdio>

namespace ws {

namespace {

std::string rate(double v, const char* unit)
{
    char buf[64];
    if (v >= 1e15)
        std::snprintf(buf, sizeof buf, "%.3g P%s", v / 1e15, unit);
    else if (v >= 1e12)
        std::snprintf(buf, sizeof buf, "%.3g T%s", v / 1e12, unit);
    else
        std::snprintf(buf, sizeof buf, "%.3g G%s", v / 1e9, unit);
    return buf;
}

} // namespace

const char* memoryLevelName(MemoryLevel level)
{
    switch (level) {
    case MemoryLevel::Dram:
        return "DRAM";
    case MemoryLevel::L2:
        return "L2";
    case MemoryLevel::L1:
        return "L1";
    }
    return "?";
}

RooflineCeilings RooflineCeilings::fromDevice(const DeviceInfo& recorded)
{
    RooflineCeilings c;
    DeviceInfo d = recorded;
    DeviceInfo computed = recorded;
    fillDevicePeaks(computed);
    for (auto field : {&DeviceInfo::peakFp32FlopsPerS, &DeviceInfo::peakFp64FlopsPerS,
             &DeviceInfo::peakFp16TensorFlopsPerS, &DeviceInfo::peakBf16TensorFlopsPerS,
             &DeviceInfo::peakFp8TensorFlopsPerS, &DeviceInfo::peakTf32TensorFlopsPerS,
             &DeviceInfo::dramBandwidthBytesPerS, &DeviceInfo::l1BandwidthBytesPerS}) {
        if (d.*field <= 0 && computed.*field > 0) {
            d.*field = computed.*field;
            c.computedPeaks = true;
        }
    }
    auto compute = [&](const char* key, const char* name, double peak) {
        if (peak > 0)
            c.compute.push_back({key, std::string(name) + "  " + rate(peak, "FLOP/s"), peak});
        else
            c.missing.emplace_back(name);
    };
    compute("tensor_fp8", "FP8 Tensor (dense)", d.peakFp8TensorFlopsPerS);
    compute("tensor_bf16", "BF16 Tensor (dense)", d.peakBf16TensorFlopsPerS);
    compute("tensor_fp16", "FP16 Tensor (dense)", d.peakFp16TensorFlopsPerS);
    compute("tensor_tf32", "TF32 Tensor (dense)", d.peakTf32TensorFlopsPerS);
    compute("fp32", "FP32 (CUDA cores)", d.peakFp32FlopsPerS);
    compute("fp64", "FP64 (CUDA cores)", d.peakFp64FlopsPerS);
    std::stable_sort(c.compute.begin(), c.compute.end(),
        [](const ComputeCeiling& a, const ComputeCeiling& b) { return a.flopsPerS > b.flopsPerS; });
    auto memory = [&](MemoryLevel level, const char* name, double bw) {
        if (bw > 0)
            c.memory.push_back({level, std::string(name) + "  " + rate(bw, "B/s"), bw});
        else
            c.missing.push_back(std::string(name) + " bandwidth");
    };
    memory(MemoryLevel::Dram, "DRAM", d.dramBandwidthBytesPerS);
    memory(MemoryLevel::L2, "L2", d.l2BandwidthBytesPerS);
    memory(MemoryLevel::L1, "L1", d.l1BandwidthBytesPerS);
    return c;
}

std::optional<double> RooflineCeilings::peakFor(const std::string& precision) const
{
    const std::string key = precision == "tensor" ? "tensor_bf16" : precision;
    for (const ComputeCeiling& c : compute) {
        if (c.precision == key)
            return c.flopsPerS;
    }
    if (precision == "tensor") {
        for (const ComputeCeiling& c : compute) {
            if (c.precision == "tensor_fp16")
                return c.flopsPerS;
        }
    }
    return std::nullopt;
}

std::optional<double> RooflineCeilings::bandwidthOf(MemoryLevel level) const
{
    for (const MemoryCeiling& m : memory) {
        if (m.level == level)
            return m.bytesPerS;
    }
    return std::nullopt;
}

std::vector<RooflinePoint> rooflinePoints(
    int64_t kernelId, const KernelFacts& facts, const RooflineCeilings& ceilings, std::string* why)
{
    std::vector<RooflinePoint> out;
    auto fail = [&](const char* reason) {
        if (why)
            *why = reason;
        return out;
    };
    if (!facts.durationNs || *facts.durationNs <= 0)
        return fail("no duration");
    if (!facts.flop.any())
        return fail("no FLOP counters collected (run warpscope-cli profile --section Roofline)");
    const double flop = facts.flop.total();
    if (flop <= 0)
        return fail("no floating-point work (0 FLOP): the kernel only moves data");
    const double seconds = *facts.durationNs * 1e-9;
    const std::string precision = facts.flop.dominant();
    const std::optional<double> peak = ceilings.peakFor(precision);
    const std::pair<MemoryLevel, std::optional<double>> levels[] = {
        {MemoryLevel::Dram, facts.dramBytes},
        {MemoryLevel::L2, facts.l2Bytes},
        {MemoryLevel::L1, facts.l1Bytes},
    };
    for (const auto& [level, bytes] : levels) {
        if (!bytes || *bytes <= 0)
            continue;
        RooflinePoint p;
        p.kernelId = kernelId;
        p.level = level;
        p.flop = flop;
        p.bytes = *bytes;
        p.seconds = seconds;
        p.intensity = flop / *bytes;
        p.flopsPerS = flop / seconds;
        p.precision = precision;
        const std::optional<double> bw = ceilings.bandwidthOf(level);
        if (bw && peak) {
            p.attainableFlopsPerS = std::min(*peak, p.intensity * *bw);
            p.ridgeIntensity = *peak / *bw;
        } else if (bw) {
            p.attainableFlopsPerS = p.intensity * *bw;
        } else if (peak) {
            p.attainableFlopsPerS = *peak;
        }
        out.push_back(p);
    }
    if (out.empty())
        return fail("no bytes collected at any memory level (run warpscope-cli profile --section Roofline)");
    return out;
}

} // namespace ws
