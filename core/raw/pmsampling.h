// SPDX-License-Identifier: MIT
#pragma once

// PM sampling (`warpscope-cli record --gpu-metrics`): the raw records the injection library
// writes and the pure decisions it shares with ingest and tests. Header-only and dependency-free
// like raw/rawformat.h, because libwarpscope-inject.so compiles it.

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace ws::raw {

// The metrics sampled, as GH100 accepts them in one PM pass (see
// shared/reference/cupti-on-h200.md: sm__throughput alone needs 19 PM passes, these together 1).
struct PmMetricSpec {
    std::string_view name;  // CUPTI/ncu metric name
    std::string_view track; // counter track name shown on the timeline
    std::string_view unit;
};
inline constexpr PmMetricSpec kPmMetrics[] = {
    {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed", "Tensor pipe active", "%"},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", "%"},
    {"sm__warps_active.avg.pct_of_peak_sustained_elapsed", "Warps active", "%"},
};
inline constexpr uint64_t kPmDefaultPeriodNs = 200'000; // see RecordOptions::gpuMetricsPeriodUs
inline constexpr uint64_t kPmMinPeriodNs = 1'000;
inline constexpr uint64_t kPmMaxPeriodNs = 100'000'000;
// The decode interval of the first version (one thread decoding and evaluating every 10 ms); the
// sampler now sizes its cadence from the period (pmSizing), this stays the default of the two
// sizing functions below.
inline constexpr uint64_t kPmDecodeIntervalNs = 10'000'000;

struct PmMetricRecord {
    uint32_t deviceId;
    uint32_t index;    // position of this metric's value in PmSampleRecord's trailing doubles
    uint64_t periodNs; // configured sampling period; trailing bytes: the metric name
};

// One sampling interval [start, end] of one device, CLOCK_MONOTONIC. Trailing bytes: `count`
// doubles, the metric values in PmMetricRecord::index order.
struct PmSampleRecord {
    int64_t start;
    int64_t end;
    uint32_t deviceId;
    uint32_t count;
};

// Samples the counter-data image must hold between two decodes. The image costs about 30 KB
// per sample with these metrics (609 MB for 20 000 on the H200), so it is sized for one decode
// interval, or for the whole collection when --duration is shorter than that, with 50 %
// headroom for a late decode, and never fewer than 64.
inline uint32_t pmImageSamples(uint64_t periodNs, double durationS, uint64_t decodeIntervalNs = kPmDecodeIntervalNs)
{
    periodNs = std::max<uint64_t>(periodNs, 1);
    uint64_t window = decodeIntervalNs;
    if (durationS > 0) {
        const double d = durationS * 1e9;
        if (d < static_cast<double>(window))
            window = static_cast<uint64_t>(d);
    }
    const uint64_t samples = (window + periodNs - 1) / periodNs;
    return static_cast<uint32_t>(std::clamp<uint64_t>(samples + samples / 2 + 2, 64, 1u << 20));
}

// The hardware buffer holds raw samples until a decode drains it. Sized for four decode
// intervals at 8 KB per raw sample (an upper estimate), between 128 MB, so a sampler thread
// that falls behind for a while loses nothing, and 256 MB (what worked on the H200).
inline uint64_t pmHardwareBufferBytes(uint64_t periodNs, uint64_t decodeIntervalNs = kPmDecodeIntervalNs)
{
    periodNs = std::max<uint64_t>(periodNs, 1);
    const uint64_t samples = 4 * decodeIntervalNs / periodNs + 1;
    return std::clamp<uint64_t>(samples * 8192, uint64_t {128} << 20, uint64_t {256} << 20);
}

// Why samples are missing from a stretch of time. A gap is never silent: the sampler writes a
// PmGapRecord for it, ingest counts it (meta gpu_metrics.gaps, gpu_metrics.gap_ns) and the
// timeline marks it on the counter tracks.
enum class PmGapReason : uint32_t {
    Missing = 1,          // consecutive decoded samples are not contiguous (the hardware buffer lost them)
    Overflow = 2,         // the hardware buffer overflowed (decode reported it); sampling restarted
    EvaluateFailed = 3,   // the sample was decoded but its metric values could not be evaluated
    NotDecodedAtExit = 4, // the program ended before the sampler could decode this stretch
    DecodeFailed = 5,     // cuptiPmSamplingDecodeData failed: nothing after this point was decoded
    ImageFull = 6,        // a decode filled the counter-data image: CUPTI dropped the rest of the buffer
};

// One stretch [start, end) of a device without samples, CLOCK_MONOTONIC.
struct PmGapRecord {
    int64_t start;
    int64_t end;
    uint32_t deviceId;
    uint32_t reason; // PmGapReason
};

inline const char* pmGapReasonText(uint32_t reason)
{
    switch (static_cast<PmGapReason>(reason)) {
    case PmGapReason::Missing:
        return "samples missing from the hardware buffer";
    case PmGapReason::Overflow:
        return "hardware buffer overflow";
    case PmGapReason::EvaluateFailed:
        return "metric evaluation failed";
    case PmGapReason::NotDecodedAtExit:
        return "not decoded before the program exited";
    case PmGapReason::DecodeFailed:
        return "decode failed";
    case PmGapReason::ImageFull:
        return "the decoder fell behind (counter-data image full)";
    }
    return "unknown";
}

// Two consecutive samples of one device leave a gap when the second starts more than half a
// period after the first ended (decoded samples are back to back: end == next start).
inline bool pmIsGap(int64_t previousEnd, int64_t nextStart, uint64_t periodNs)
{
    return nextStart - previousEnd > static_cast<int64_t>(periodNs / 2);
}

// How the sampler keeps up with a period (measured on the H200, docs/recorder.md):
// - cuptiPmSamplingDecodeData is CPU-heavy: 0.4-0.85 ms per ms of sampled time (more at shorter
//   periods), and a decode that fills the counter-data image drops the rest of what the
//   hardware buffer held. So one decode thread decodes every `decodeIntervalNs` (128 periods,
//   1 .. 20 ms) into an image that holds eight such intervals (a decode lasting up to seven
//   intervals still fits), at most 2048 samples (about 61 MB) and, with --duration, no more
//   than the whole collection needs;
// - evaluating the samples (about 13 us each) runs on `evaluators` threads (an eighth of the
//   hardware threads, 1 .. 2), one image each, and `images` = evaluators + 1 images circulate;
// - the hardware buffer absorbs a second of backlog at 8 KB per raw sample (128 .. 256 MB).
struct PmSizing {
    uint64_t decodeIntervalNs = 0;
    uint32_t imageSamples = 0;
    uint32_t images = 0;
    uint32_t evaluators = 0;
    uint64_t hardwareBufferBytes = 0;
};

inline PmSizing pmSizing(uint64_t periodNs, double durationS, unsigned hardwareThreads, unsigned evaluatorsWanted = 0)
{
    periodNs = std::max<uint64_t>(periodNs, 1);
    PmSizing z;
    z.decodeIntervalNs = std::clamp<uint64_t>(periodNs * 128, 1'000'000, 20'000'000);
    uint64_t samples = 8 * ((z.decodeIntervalNs + periodNs - 1) / periodNs) + 2;
    if (durationS > 0)
        samples = std::min<uint64_t>(
            samples, static_cast<uint64_t>(durationS * 1e9 / static_cast<double>(periodNs) * 1.5) + 2);
    z.imageSamples = static_cast<uint32_t>(std::clamp<uint64_t>(samples, 64, 2048));
    z.evaluators = evaluatorsWanted > 0 ? std::min(evaluatorsWanted, 16u) : std::clamp(hardwareThreads / 8, 1u, 2u);
    z.images = z.evaluators + 1;
    z.hardwareBufferBytes = pmHardwareBufferBytes(periodNs, 250'000'000);
    return z;
}

// PM sample times are CPU timestamps in CUPTI's clock: CLOCK_REALTIME, or CLOCK_MONOTONIC when
// a timestamp callback is registered. Decide by which clock `ts` (a just-decoded sample, so in
// the recent past) is nearer to, and return it in CLOCK_MONOTONIC.
inline int64_t pmToMonotonic(int64_t ts, int64_t nowRealtime, int64_t nowMonotonic)
{
    const int64_t toRealtime = nowRealtime > ts ? nowRealtime - ts : ts - nowRealtime;
    const int64_t toMonotonic = nowMonotonic > ts ? nowMonotonic - ts : ts - nowMonotonic;
    return toRealtime < toMonotonic ? ts - (nowRealtime - nowMonotonic) : ts;
}

} // namespace ws::raw
