// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/recordsource.h"
#include "core/report/reporttable.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ws {

// When a GPU ran nothing at all: the union of every kernel, memcpy and memset on a device
// (all streams and processes together) and the holes between its first start and last end.
// A gap on one stream that another stream fills is not idle. This is what "is the GPU
// busy?" asks before any kernel is tuned (seed "profiling GPU code": timeline first);
// nsys's analysis rule `gpu_gaps` reports the same holes above a threshold (500 ms there).
struct GpuIdleGap {
    uint32_t deviceId = 0;
    TimeNs start = 0;   // end of the last work before the gap
    TimeNs end = 0;     // start of the first work after it
    std::string before; // that work: kernel base name or "[CUDA memcpy ...]"
    std::string after;
    TimeNs duration() const { return end - start; }
};

struct GpuBusySummary {
    uint32_t deviceId = 0;
    TimeNs first = 0; // start of the first work
    TimeNs last = 0;  // end of the last work
    int64_t operations = 0;
    int64_t busyNs = 0; // length of the union of all work
    int64_t idleNs = 0; // (last - first) - busyNs
    int64_t gaps = 0;   // every hole, whatever its length
    TimeNs largestGapNs = 0;
    double idlePct() const
    {
        const TimeNs span = last - first;
        return span > 0 ? 100.0 * static_cast<double>(idleNs) / static_cast<double>(span) : 0.0;
    }
};

struct GpuIdleAnalysis {
    std::vector<GpuBusySummary> devices; // by device id
    std::vector<GpuIdleGap> gaps;        // gaps of at least minGapNs, by start
};

// Devices are told apart by the ordinal the recording process used (device_id).
GpuIdleAnalysis analyzeGpuIdle(const RecordSource& source, TimeNs minGapNs = 0);

// One kernel, copy or memset on a device, for analyzeGpuWork: `label` indexes its caller's names.
struct GpuWork {
    TimeNs start = 0;
    TimeNs end = 0;
    uint32_t label = 0;
};
// The sweep behind analyzeGpuIdle over work the caller already has in memory (the kernel panels
// pass their launch table instead of reading every kernel again): per device, in any order;
// `labels[w.label]` names a gap's neighbours.
GpuIdleAnalysis analyzeGpuWork(
    std::map<uint32_t, std::vector<GpuWork>> byDevice, const std::vector<std::string>& labels, TimeNs minGapNs = 0);
// Appends every memcpy and memset of `source` to `byDevice`, their labels to `labels` (the
// "[CUDA memcpy ...]" / "[CUDA memset]" names analyzeGpuIdle gives them).
void addCopiesAndMemsets(
    const RecordSource& source, std::map<uint32_t, std::vector<GpuWork>>& byDevice, std::vector<std::string>& labels);

// gpu_idle_gaps: Start, Duration, DevId, Before, After; one row per gap of at least
// minGapNs, in start order.
ReportTable gpuIdleGaps(const RecordSource& source, TimeNs minGapNs = 0);

} // namespace ws
