// SPDX-License-Identifier: MIT
#include "core/timeline/lodcounter.h"

#include <algorithm>
#include <cstddef>

namespace ws {

CounterSeries::CounterSeries(std::vector<TimeNs> ts, std::vector<double> values)
    : m_ts(std::move(ts))
    , m_values(std::move(values))
{
    m_values.resize(m_ts.size());
    if (m_values.empty())
        return;
    const auto [mn, mx] = std::minmax_element(m_values.begin(), m_values.end());
    m_min = *mn;
    m_max = *mx;
    if (m_values.size() <= 4 * kFanout)
        return;
    std::vector<std::pair<double, double>> level;
    for (size_t lo = 0; lo < m_values.size(); lo += kFanout) {
        const size_t hi = std::min(lo + kFanout, m_values.size());
        const auto [a, b] = std::minmax_element(
            m_values.begin() + static_cast<std::ptrdiff_t>(lo), m_values.begin() + static_cast<std::ptrdiff_t>(hi));
        level.emplace_back(*a, *b);
    }
    m_levels.push_back(std::move(level));
    while (m_levels.back().size() > kFanout) {
        const auto& below = m_levels.back();
        std::vector<std::pair<double, double>> up;
        for (size_t lo = 0; lo < below.size(); lo += kFanout) {
            const size_t hi = std::min(lo + kFanout, below.size());
            std::pair<double, double> mm = below[lo];
            for (size_t k = lo + 1; k < hi; ++k) {
                mm.first = std::min(mm.first, below[k].first);
                mm.second = std::max(mm.second, below[k].second);
            }
            up.push_back(mm);
        }
        m_levels.push_back(std::move(up));
    }
}

size_t CounterSeries::residentBytes() const
{
    size_t bytes = sizeof(*this) + m_ts.capacity() * sizeof(TimeNs) + m_values.capacity() * sizeof(double)
        + name.capacity() + unit.capacity();
    for (const auto& l : m_levels)
        bytes += l.capacity() * sizeof(l.front());
    return bytes;
}

std::pair<double, double> CounterSeries::rangeMinMax(size_t first, size_t last) const
{
    std::pair<double, double> mm {m_values[first], m_values[first]};
    const auto take = [&mm](double lo, double hi) {
        mm.first = std::min(mm.first, lo);
        mm.second = std::max(mm.second, hi);
    };
    size_t lo = first;
    size_t hi = last;
    while (lo < hi && (m_levels.empty() || lo % kFanout != 0)) {
        take(m_values[lo], m_values[lo]);
        ++lo;
    }
    while (lo < hi && hi % kFanout != 0) {
        --hi;
        take(m_values[hi], m_values[hi]);
    }
    lo /= kFanout;
    hi /= kFanout;
    for (size_t level = 0; level < m_levels.size() && lo < hi; ++level) {
        const auto& l = m_levels[level];
        const bool top = level + 1 == m_levels.size();
        while (lo < hi && (top || lo % kFanout != 0)) {
            take(l[lo].first, l[lo].second);
            ++lo;
        }
        while (lo < hi && hi % kFanout != 0) {
            --hi;
            take(l[hi].first, l[hi].second);
        }
        lo /= kFanout;
        hi /= kFanout;
    }
    return mm;
}

void CounterSeries::columns(const TimelineCoordinates& c, TimeNs until, std::vector<CounterColumn>& out) const
{
    const size_t n = m_ts.size();
    if (n == 0)
        return;
    const int64_t firstCol = std::max<int64_t>(0, c.column(m_ts.front()));
    const int64_t endCol = std::min<int64_t>(c.width(), c.column(std::max(until, m_ts.back())) + 1);
    // k: first sample whose column is >= x; it only moves forward.
    size_t k = static_cast<size_t>(std::partition_point(m_ts.begin(), m_ts.end(), [&](TimeNs t) {
        return c.column(t) < firstCol;
    }) - m_ts.begin());
    for (int64_t x = firstCol; x < endCol; ++x) {
        const auto next = static_cast<size_t>(std::partition_point(m_ts.begin() + static_cast<std::ptrdiff_t>(k),
                                                  m_ts.end(), [&](TimeNs t) { return c.column(t) <= x; })
            - m_ts.begin());
        // Values held in column x: the one carried in from the left plus every sample in x.
        const size_t lo = k > 0 ? k - 1 : k;
        if (next == 0) {
            k = next;
            continue;
        }
        const auto [mn, mx] = rangeMinMax(lo, next);
        out.push_back(CounterColumn {static_cast<int32_t>(x), mn, mx, m_values[next - 1]});
        k = next;
    }
}

} // namespace ws
