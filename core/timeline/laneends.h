// SPDX-License-Identifier: MIT
#pragma once

// Where a lane's events end, in 4 bytes an event instead of 8: each event's duration from its
// start in 32 bits, and the few that do not fit (4.29 s or longer, negative in a damaged file)
// exactly in a side table. Every end reads back exactly as it was set. On a 10M-event session
// this is 40 MB of the app's resident memory (docs/timeline.md, "bytes per event").

#include "core/model/records.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ws {

class LaneDurations {
public:
    // A short duration is below this; the value itself marks an event found in the side table.
    static constexpr uint32_t kLong = UINT32_MAX;

    size_t size() const { return m_short.size(); }
    bool empty() const { return m_short.empty(); }
    void reserve(size_t n) { m_short.reserve(n); }
    // New events get duration 0.
    void resize(size_t n);
    void clear();
    void shrinkToFit();
    // `duration` is end - start, computed with wrap-around (durationOf), so any pair of
    // int64 times is kept exactly.
    void push_back(TimeNs duration);
    void set(size_t i, TimeNs duration)
    {
        if (duration >= 0 && duration < static_cast<TimeNs>(kLong) && m_short[i] != kLong)
            m_short[i] = static_cast<uint32_t>(duration);
        else
            setListed(i, duration);
    }
    TimeNs operator[](size_t i) const
    {
        const uint32_t d = m_short[i];
        return d != kLong ? static_cast<TimeNs>(d) : longDuration(i);
    }
    // Events [offset, offset + count) from their starts and 64-bit ends as the lane cache stores
    // them (unaligned, little-endian): one pass without a branch per event when all fit.
    void assignEnds(size_t offset, const TimeNs* start, const std::byte* ends, size_t count);
    // Events whose duration is in the side table.
    size_t longCount() const { return m_long.size(); }
    size_t residentBytes() const
    {
        return m_short.capacity() * sizeof(uint32_t) + m_long.capacity() * sizeof(m_long[0]);
    }
    const uint32_t* shortData() const { return m_short.data(); }
    // The duration of an event marked kLong (rare: kept out of the readers' inlined paths).
    [[gnu::cold]] TimeNs longDuration(size_t i) const;
    bool operator==(const LaneDurations&) const = default;

    // end - start and start + duration with int64 wrap-around (no overflow, exact inverse).
    static TimeNs durationOf(TimeNs start, TimeNs end)
    {
        return static_cast<TimeNs>(static_cast<uint64_t>(end) - static_cast<uint64_t>(start));
    }
    static TimeNs endOf(TimeNs start, TimeNs duration)
    {
        return static_cast<TimeNs>(static_cast<uint64_t>(start) + static_cast<uint64_t>(duration));
    }

private:
    void setListed(size_t i, TimeNs duration);

    std::vector<uint32_t> m_short;
    std::vector<std::pair<uint32_t, TimeNs>> m_long; // (event index, duration), sorted by index
};

// The ends of a lane's events as one read-only column (start + duration), for code that reads
// ends by index: the fold, the LOD index, visible-range searches. Valid while the lane is.
class LaneEnds {
public:
    LaneEnds() = default;
    LaneEnds(const TimeNs* start, const LaneDurations& durations)
        : m_start(start)
        , m_short(durations.shortData())
        , m_durations(&durations)
        , m_size(durations.size())
    {
    }
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    TimeNs operator[](size_t i) const { return LaneDurations::endOf(m_start[i], duration(i)); }
    // end - start of event i, read directly (what the fold and the LOD index compare).
    TimeNs duration(size_t i) const
    {
        const uint32_t d = m_short[i];
        return d != LaneDurations::kLong ? static_cast<TimeNs>(d) : m_durations->longDuration(i);
    }
    TimeNs front() const { return (*this)[0]; }
    TimeNs back() const { return (*this)[m_size - 1]; }
    // The largest end (0 for an empty lane): ends need not grow with the index in nested lanes.
    TimeNs max() const;
    // First index whose end is > t (ends in non-decreasing order, as in a lane without overlaps).
    size_t upperBound(TimeNs t) const;

private:
    const TimeNs* m_start = nullptr;
    const uint32_t* m_short = nullptr;
    const LaneDurations* m_durations = nullptr;
    size_t m_size = 0;
};

} // namespace ws
