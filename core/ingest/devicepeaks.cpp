// SPDX-License-Identifier: MIT
#include "core/ingest/devicepeaks.h"

namespace ws {

ArchRates archRates(int ccMajor, int ccMinor)
{
    ArchRates r;
    // Hopper GH100 (sm_90), per SM per clock, from the NVIDIA H100 Tensor Core GPU Architecture
    // whitepaper (2022), "H100 SM architecture" and the peak-rate table: 128 FP32 FMA (256 FLOP),
    // 64 FP64 FMA (128 FLOP), dense tensor 1024 FP16/BF16 FMA per SM-clock doubled to 2048 on
    // Hopper (4096 FLOP), TF32 half of that, FP8 twice that; shared memory/L1 128 B per clock.
    // Check: 132 SMs x 1.83 GHz x 4096 = 989 TFLOP/s dense BF16, the datasheet's figure for H100/H200
    // SXM; 132 x 1.98 GHz x 256 = 67 TFLOP/s FP32.
    if (ccMajor == 9 && ccMinor == 0) {
        r.fp32FlopsPerClkPerSm = 256;
        r.fp64FlopsPerClkPerSm = 128;
        r.fp16TensorFlopsPerClkPerSm = 4096;
        r.bf16TensorFlopsPerClkPerSm = 4096;
        r.fp8TensorFlopsPerClkPerSm = 8192;
        r.tf32TensorFlopsPerClkPerSm = 2048;
        r.l1BytesPerClkPerSm = 128;
    }
    // Ampere GA100 (sm_80), NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 64 FP32
    // FMA, 32 FP64 FMA, 1024 dense FP16/BF16 tensor FMA, 512 TF32 FMA per SM-clock; no FP8.
    // Check: 108 x 1.41 GHz x 2048 = 312 TFLOP/s FP16 tensor.
    else if (ccMajor == 8 && ccMinor == 0) {
        r.fp32FlopsPerClkPerSm = 128;
        r.fp64FlopsPerClkPerSm = 64;
        r.fp16TensorFlopsPerClkPerSm = 2048;
        r.bf16TensorFlopsPerClkPerSm = 2048;
        r.tf32TensorFlopsPerClkPerSm = 1024;
        r.l1BytesPerClkPerSm = 128;
    }
    return r;
}

void fillDevicePeaks(DeviceInfo& d)
{
    if (d.memClockKhz > 0 && d.memBusWidthBits > 0)
        d.dramBandwidthBytesPerS = 2.0 * static_cast<double>(d.memClockKhz) * 1e3 * d.memBusWidthBits / 8.0;
    const ArchRates r = archRates(d.ccMajor, d.ccMinor);
    const double clockHz = static_cast<double>(d.smClockMaxKhz > 0 ? d.smClockMaxKhz : d.smClockKhz) * 1e3;
    const double smClocks = d.smCount * clockHz;
    d.peakFp32FlopsPerS = smClocks * r.fp32FlopsPerClkPerSm;
    d.peakFp64FlopsPerS = smClocks * r.fp64FlopsPerClkPerSm;
    d.peakFp16TensorFlopsPerS = smClocks * r.fp16TensorFlopsPerClkPerSm;
    d.peakBf16TensorFlopsPerS = smClocks * r.bf16TensorFlopsPerClkPerSm;
    d.peakFp8TensorFlopsPerS = smClocks * r.fp8TensorFlopsPerClkPerSm;
    d.peakTf32TensorFlopsPerS = smClocks * r.tf32TensorFlopsPerClkPerSm;
    d.l1BandwidthBytesPerS = smClocks * r.l1BytesPerClkPerSm;
    // NVIDIA publishes no per-clock L2 bandwidth for these parts; it stays 0 (unknown) rather
    // than a guess. A measured figure can be stored by a benchmark later.
}

} // namespace ws
