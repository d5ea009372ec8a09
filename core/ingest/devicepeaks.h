// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

namespace ws {

// Per-SM, per-clock throughput of one architecture, used to turn SM count x clock into the
// device's peak numbers for the roofline.
struct ArchRates {
    double fp32FlopsPerClkPerSm = 0;
    double fp64FlopsPerClkPerSm = 0;
    double fp16TensorFlopsPerClkPerSm = 0; // dense
    double bf16TensorFlopsPerClkPerSm = 0;
    double fp8TensorFlopsPerClkPerSm = 0;
    double tf32TensorFlopsPerClkPerSm = 0;
    double l1BytesPerClkPerSm = 0;
};

// Rates for a compute capability; all zero for architectures we have no published rates for.
ArchRates archRates(int ccMajor, int ccMinor);

// Fills the derived fields of `d` (DRAM bandwidth, peak FLOP/s per precision, L1 bandwidth)
// from its measured properties: bandwidth = 2 x memory clock x bus width / 8 (DDR), peaks =
// SM count x maximum SM clock x per-SM rate. Fields whose inputs are unknown stay 0.
void fillDevicePeaks(DeviceInfo& d);

} // namespace ws
