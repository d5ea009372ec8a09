// SPDX-License-Identifier: MIT
#include "core/timeline/laneends.h"

#include <algorithm>
#include <cstring>

namespace ws {

namespace {

bool fitsShort(TimeNs duration)
{
    return duration >= 0 && duration < static_cast<TimeNs>(LaneDurations::kLong);
}

} // namespace

void LaneDurations::resize(size_t n)
{
    if (n < m_short.size()) {
        const auto cut = std::lower_bound(m_long.begin(), m_long.end(), n,
            [](const std::pair<uint32_t, TimeNs>& e, size_t i) { return e.first < i; });
        m_long.erase(cut, m_long.end());
    }
    m_short.resize(n, 0);
}

void LaneDurations::clear()
{
    m_short.clear();
    m_long.clear();
}

void LaneDurations::shrinkToFit()
{
    m_short.shrink_to_fit();
    m_long.shrink_to_fit();
}

void LaneDurations::push_back(TimeNs duration)
{
    if (fitsShort(duration)) {
        m_short.push_back(static_cast<uint32_t>(duration));
        return;
    }
    m_long.emplace_back(static_cast<uint32_t>(m_short.size()), duration);
    m_short.push_back(kLong);
}

void LaneDurations::setListed(size_t i, TimeNs duration)
{
    const auto at = std::lower_bound(
        m_long.begin(), m_long.end(), i, [](const std::pair<uint32_t, TimeNs>& e, size_t k) { return e.first < k; });
    const bool listed = at != m_long.end() && at->first == i;
    if (fitsShort(duration)) {
        if (listed)
            m_long.erase(at);
        m_short[i] = static_cast<uint32_t>(duration);
        return;
    }
    if (listed)
        at->second = duration;
    else
        m_long.insert(at, {static_cast<uint32_t>(i), duration}); // at the back when set in index order
    m_short[i] = kLong;
}

void LaneDurations::assignEnds(size_t offset, const TimeNs* start, const std::byte* ends, size_t count)
{
    const auto byIndex = [](const std::pair<uint32_t, TimeNs>& e, size_t k) { return e.first < k; };
    // Whatever the range held before is replaced.
    m_long.erase(std::lower_bound(m_long.begin(), m_long.end(), offset, byIndex),
        std::lower_bound(m_long.begin(), m_long.end(), offset + count, byIndex));
    uint32_t* out = m_short.data() + offset;
    bool allShort = true;
    for (size_t i = 0; i < count; ++i) {
        TimeNs end = 0;
        std::memcpy(&end, ends + i * sizeof(TimeNs), sizeof(TimeNs));
        const uint64_t d = static_cast<uint64_t>(end) - static_cast<uint64_t>(start[i]);
        const bool fits = d < kLong;
        out[i] = fits ? static_cast<uint32_t>(d) : kLong;
        allShort &= fits;
    }
    if (allShort)
        return;
    std::vector<std::pair<uint32_t, TimeNs>> listed;
    for (size_t i = 0; i < count; ++i) {
        if (out[i] == kLong) {
            TimeNs end = 0;
            std::memcpy(&end, ends + i * sizeof(TimeNs), sizeof(TimeNs));
            listed.emplace_back(static_cast<uint32_t>(offset + i), durationOf(start[i], end));
        }
    }
    m_long.insert(std::lower_bound(m_long.begin(), m_long.end(), offset, byIndex), listed.begin(), listed.end());
}

TimeNs LaneDurations::longDuration(size_t i) const
{
    const auto at = std::lower_bound(
        m_long.begin(), m_long.end(), i, [](const std::pair<uint32_t, TimeNs>& e, size_t k) { return e.first < k; });
    return at->second; // set() lists every event it marks kLong
}

TimeNs LaneEnds::max() const
{
    if (m_size == 0)
        return 0;
    TimeNs best = (*this)[0];
    for (size_t i = 1; i < m_size; ++i)
        best = std::max(best, (*this)[i]);
    return best;
}

size_t LaneEnds::upperBound(TimeNs t) const
{
    size_t lo = 0;
    size_t n = m_size;
    while (n > 0) {
        const size_t half = n / 2;
        if ((*this)[lo + half] <= t) {
            lo += half + 1;
            n -= half + 1;
        } else {
            n = half;
        }
    }
    return lo;
}

} // namespace ws
