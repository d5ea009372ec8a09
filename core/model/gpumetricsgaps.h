// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ws {

// `record --gpu-metrics`: a stretch of time in which a device has no PM samples although it was
// being sampled (raw PmGapRecord, or found by ingest between samples during a kernel). Ingest
// stores them in meta (gpu_metrics.gap_list, with gpu_metrics.gaps and gpu_metrics.gap_ns), so
// `info`, the record summary and the timeline's counter tracks can show them.
struct GpuMetricsGap {
    int64_t pid = 0;
    uint32_t deviceId = 0;
    TimeNs start = 0;
    TimeNs end = 0;
    uint32_t reason = 0; // raw::PmGapReason
    bool operator==(const GpuMetricsGap&) const = default;
};

namespace gpumetricskey {
inline constexpr const char* kSamples = "gpu_metrics.samples";
inline constexpr const char* kPeriodNs = "gpu_metrics.period_ns";
inline constexpr const char* kGaps = "gpu_metrics.gaps";
inline constexpr const char* kGapNs = "gpu_metrics.gap_ns";
inline constexpr const char* kGapLongestNs = "gpu_metrics.gap_longest_ns";
inline constexpr const char* kGapList = "gpu_metrics.gap_list";
inline constexpr const char* kCoveragePct = "gpu_metrics.coverage_pct";
inline constexpr const char* kKernelSpanNs = "gpu_metrics.kernel_span_ns";
} // namespace gpumetricskey

// The list kept in meta holds at most this many gaps (the longest); count and total are exact.
inline constexpr size_t kMaxListedGaps = 200;

// "pid:device:start:end:reason" joined by ';'. Decoding skips malformed entries.
std::string encodeGpuMetricsGaps(const std::vector<GpuMetricsGap>& gaps);
std::vector<GpuMetricsGap> decodeGpuMetricsGaps(std::string_view text);

const char* gpuMetricsGapReason(uint32_t reason);

// How much of [spanBegin, spanEnd) sorted sample start times cover: a sample covers
// [ts, next ts) when the next one follows within 1.5 periods, else one period.
struct GpuMetricsCoverage {
    TimeNs span = 0;
    TimeNs covered = 0;
    double percent() const { return span > 0 ? 100.0 * static_cast<double>(covered) / static_cast<double>(span) : 0.0; }
};
GpuMetricsCoverage gpuMetricsCoverage(
    const std::vector<TimeNs>& sortedStarts, uint64_t periodNs, TimeNs spanBegin, TimeNs spanEnd);

// One paragraph for the record summary and `info`, from the session's meta and environment:
// samples and period, coverage of the kernel span, gaps (count, total, longest and why), and
// how fast sampling stopped after the program's end. Empty when the session has no GPU metrics.
std::vector<std::string> describeGpuMetrics(
    const std::map<std::string, std::string>& meta, const std::map<std::string, std::string>& environment);

} // namespace ws
