// SPDX-License-Identifier: MIT
#pragma once

#include "core/metrics/kernelfacts.h"
#include "core/model/records.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ws {

enum class MemoryLevel { Dram = 0, L2 = 1, L1 = 2 };
const char* memoryLevelName(MemoryLevel level); // "DRAM", "L2", "L1"

// A horizontal roof: peak FLOP/s of one precision, from the session's device record.
struct ComputeCeiling {
    std::string precision; // the FlopCounts::dominant() key it caps: "fp32", "tensor_bf16", ...
    std::string label;     // "FP32 (CUDA cores)", "BF16 Tensor (dense)"
    double flopsPerS = 0;
};

// A slanted roof: peak bandwidth of one memory level, bytes/s.
struct MemoryCeiling {
    MemoryLevel level = MemoryLevel::Dram;
    std::string label; // "DRAM (HBM) 4.81 TB/s"
    double bytesPerS = 0;
};

// The roofs of one device: whatever the recorder measured or computed (a peak of 0 is
// unknown and gets no roof; the panel says which ones are missing).
struct RooflineCeilings {
    std::vector<ComputeCeiling> compute; // descending
    std::vector<MemoryCeiling> memory;   // DRAM, L2, L1 as available
    std::vector<std::string> missing;    // labels of roofs the device record lacks
    // True when the record had no peaks (profile sessions store only what the driver reports)
    // and they were computed from its SM count, clock and compute capability (fillDevicePeaks).
    bool computedPeaks = false;

    // A peak the record lacks is computed from the record's own properties when it has them.
    static RooflineCeilings fromDevice(const DeviceInfo& device);
    // The compute roof for a precision key; for "tensor" (precision unknown) the highest
    // 16-bit tensor roof; nullopt when the device has none for it.
    std::optional<double> peakFor(const std::string& precision) const;
    std::optional<double> bandwidthOf(MemoryLevel level) const;
};

// One kernel at one memory level: x = arithmetic intensity (FLOP per byte moved at that
// level), y = achieved FLOP/s, both from the same launch's counters and duration.
struct RooflinePoint {
    int64_t kernelId = 0;
    MemoryLevel level = MemoryLevel::Dram;
    double flop = 0;
    double bytes = 0;
    double seconds = 0;
    double intensity = 0;  // flop / bytes
    double flopsPerS = 0;  // flop / seconds
    std::string precision; // dominant precision, selects the compute roof
    // min(compute roof, intensity * bandwidth of this level); 0 when neither roof is known.
    double attainableFlopsPerS = 0;
    double pctOfRoof() const { return attainableFlopsPerS > 0 ? 100.0 * flopsPerS / attainableFlopsPerS : 0.0; }
    // Where the two roofs meet for this level: intensities below it are bandwidth-bound.
    double ridgeIntensity = 0;
};

// The points of one kernel: one per memory level whose bytes were collected, none when the
// kernel has no floating-point work, no duration, or no bytes (`why` says which).
std::vector<RooflinePoint> rooflinePoints(
    int64_t kernelId, const KernelFacts& facts, const RooflineCeilings& ceilings, std::string* why = nullptr);

} // namespace ws
