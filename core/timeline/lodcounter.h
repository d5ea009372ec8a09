// SPDX-License-Identifier: MIT
#pragma once

#include "core/model/records.h"
#include "core/timeline/timelinecoordinates.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ws {

// What one pixel column of a counter track shows: the range of values the counter held
// during the column (a sample holds until the next one), and the value at its right edge.
struct CounterColumn {
    int32_t x = 0;
    double min = 0;
    double max = 0;
    double last = 0;
    bool operator==(const CounterColumn&) const = default;
};

// A stretch in which a sampled series has no samples although it was being sampled
// (record --gpu-metrics gaps, core/model/gpumetricsgaps.h): the timeline marks it.
struct CounterGap {
    TimeNs start = 0;
    TimeNs end = 0;
    uint32_t reason = 0; // raw::PmGapReason
};

// A sampled series (PM sampling, clocks...) with a min/max pyramid (fan-out 16) so a column
// spanning millions of samples costs O(log n), after Perfetto's counter mipmap.
class CounterSeries {
public:
    static constexpr size_t kFanout = 16;

    CounterSeries() = default;
    // `ts` must be sorted; duplicate timestamps are allowed.
    CounterSeries(std::vector<TimeNs> ts, std::vector<double> values);

    uint32_t trackId = 0;
    int64_t pid = 0;
    uint32_t deviceId = 0;
    std::string name;
    std::string unit;
    std::vector<CounterGap> gaps; // sorted by start, not overlapping

    // The gap `t` falls in, or nullptr.
    const CounterGap* gapAt(TimeNs t) const
    {
        for (const auto& g : gaps)
            if (t >= g.start && t < g.end)
                return &g;
        return nullptr;
    }

    size_t size() const { return m_ts.size(); }
    const std::vector<TimeNs>& timestamps() const { return m_ts; }
    const std::vector<double>& values() const { return m_values; }
    double minValue() const { return m_min; }
    double maxValue() const { return m_max; }
    size_t residentBytes() const;

    // One entry per column in [0, width) that the series covers (from its first sample on;
    // the last sample holds until the session end passed as `until`).
    void columns(const TimelineCoordinates& c, TimeNs until, std::vector<CounterColumn>& out) const;

    // min/max of values[first, last), first < last.
    std::pair<double, double> rangeMinMax(size_t first, size_t last) const;

private:
    std::vector<TimeNs> m_ts;
    std::vector<double> m_values;
    std::vector<std::vector<std::pair<double, double>>> m_levels;
    double m_min = 0;
    double m_max = 0;
};

} // namespace ws
