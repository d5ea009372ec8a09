// SPDX-License-Identifier: MIT
#include "core/timeline/lodindex.h"

#include "core/timeline/partitionpoint.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ws {

namespace {

// Rounds up so a block's stored maximum is never below its true maximum: the search may then
// look into a block in vain, but never skips one that holds a candidate.
float roundUp(double v)
{
    auto f = static_cast<float>(v);
    if (static_cast<double>(f) < v)
        f = std::nextafter(f, std::numeric_limits<float>::infinity());
    return f;
}

TimeNs duration(std::span<const TimeNs> /*start*/, LaneEnds end, size_t k)
{
    return end.duration(k);
}

// Longer wins; equal durations keep the lower index so every path picks the same event.
[[gnu::always_inline]] inline size_t longer(std::span<const TimeNs> start, LaneEnds end, size_t a, size_t b)
{
    const TimeNs da = duration(start, end, a);
    const TimeNs db = duration(start, end, b);
    if (db > da || (db == da && b < a))
        return b;
    return a;
}

// Thresholds at most this large have both minimums in [1, INT64_MAX]: 0 stays below any
// threshold > 0, and INT64_MAX (9.2e18) reaches it as a gap and as a duration / kFoldPx.
constexpr double kIntegerThresholdMax = 0x1p60;

// The least v in [1, INT64_MAX] with reaches(v) (false, then true), searched outward from `guess`:
// the guess is the answer or next to it but for rounding, so this costs a few probes.
template <typename Reaches> TimeNs leastReaching(double guess, Reaches reaches)
{
    const auto hi = static_cast<size_t>(std::numeric_limits<TimeNs>::max());
    const auto hint = static_cast<size_t>(std::clamp(guess, 1.0, kIntegerThresholdMax * 8));
    const size_t v = partitionPointNear(1, hi, hint, [&](size_t x) { return !reaches(static_cast<TimeNs>(x)); });
    return static_cast<TimeNs>(v); // hi itself reaches every threshold <= kIntegerThresholdMax
}

bool inIntegers(double threshold)
{
    return threshold > 0.0 && threshold <= kIntegerThresholdMax;
}

// A duration as a level keeps it: exact when it fits below kLong, else kLong (read it from the lane).
uint32_t storedDuration(TimeNs d)
{
    return d >= 0 && d < static_cast<TimeNs>(LaneDurations::kLong) ? static_cast<uint32_t>(d) : LaneDurations::kLong;
}

} // namespace

std::optional<TimeNs> leastDurationReaching(double threshold)
{
    if (!inIntegers(threshold))
        return std::nullopt;
    return leastReaching(
        std::ceil(threshold * kFoldPx), [&](TimeNs d) { return static_cast<double>(d) / kFoldPx >= threshold; });
}

CandidateThreshold::CandidateThreshold(double threshold)
    : m_threshold(threshold)
    , m_inIntegers(inIntegers(threshold))
{
    if (!m_inIntegers)
        return;
    m_minDuration = *leastDurationReaching(threshold);
    m_minGap = leastReaching(std::ceil(threshold), [&](TimeNs g) { return static_cast<double>(g) >= threshold; });
}

size_t nextCandidateLinear(
    std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, const CandidateThreshold& threshold)
{
    for (size_t k = from; k < to; ++k) {
        if (threshold(start, end, k))
            return k;
    }
    return to;
}

size_t nextCandidateLinear(std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, double threshold)
{
    for (size_t k = from; k < to; ++k) {
        if (foldKey(start, end, k) >= threshold)
            return k;
    }
    return to;
}

size_t widestLinear(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last)
{
    size_t best = first;
    for (size_t k = first + 1; k < last; ++k)
        best = longer(start, end, best, k);
    return best;
}

LodIndex LodIndex::build(std::span<const TimeNs> start, LaneEnds end, const CancellationToken& cancel)
{
    LodIndex index;
    const size_t n = std::min(start.size(), end.size());
    if (n == 0)
        return index;
    index.m_size = n;

    Level base;
    const size_t blocks = (n + kFanout - 1) / kFanout;
    base.maxKey.resize(blocks);
    base.widest.resize(blocks);
    base.widestDuration.resize(blocks);
    for (size_t b = 0; b < blocks; ++b) {
        if ((b & 0xFFFF) == 0 && cancel.isCancelled())
            return {};
        const size_t lo = b * kFanout;
        const size_t hi = std::min(lo + kFanout, n);
        double maxKey = foldKey(start, end, lo);
        size_t best = lo;
        for (size_t k = lo + 1; k < hi; ++k) {
            maxKey = std::max(maxKey, foldKey(start, end, k));
            best = longer(start, end, best, k);
        }
        base.maxKey[b] = roundUp(maxKey);
        base.widest[b] = static_cast<uint32_t>(best);
        base.widestDuration[b] = storedDuration(end.duration(best));
    }
    index.m_levels.push_back(std::move(base));

    while (index.m_levels.back().maxKey.size() > kFanout) {
        const Level& below = index.m_levels.back();
        const size_t count = (below.maxKey.size() + kFanout - 1) / kFanout;
        Level up;
        up.maxKey.resize(count);
        up.widest.resize(count);
        up.widestDuration.resize(count);
        for (size_t u = 0; u < count; ++u) {
            const size_t lo = u * kFanout;
            const size_t hi = std::min(lo + kFanout, below.maxKey.size());
            float maxKey = below.maxKey[lo];
            size_t best = below.widest[lo];
            for (size_t c = lo + 1; c < hi; ++c) {
                maxKey = std::max(maxKey, below.maxKey[c]);
                best = longer(start, end, best, below.widest[c]);
            }
            up.maxKey[u] = maxKey;
            up.widest[u] = static_cast<uint32_t>(best);
            up.widestDuration[u] = storedDuration(end.duration(best));
        }
        index.m_levels.push_back(std::move(up));
    }
    return index;
}

size_t LodIndex::residentBytes() const
{
    size_t bytes = sizeof(*this) + m_levels.capacity() * sizeof(Level);
    for (const Level& l : m_levels)
        bytes += l.maxKey.capacity() * sizeof(float) + l.widest.capacity() * sizeof(uint32_t)
            + l.widestDuration.capacity() * sizeof(uint32_t);
    return bytes;
}

size_t LodIndex::nextCandidate(
    std::span<const TimeNs> start, LaneEnds end, size_t from, size_t to, const CandidateThreshold& threshold) const
{
    to = std::min(to, m_size);
    if (m_levels.empty())
        return nextCandidateLinear(start, end, from, to, threshold);
    // Comparing floats rounded up against it is conservative.
    const auto t = static_cast<float>(threshold.value());
    size_t k = from;
    while (k < to) {
        // Raw events up to the next block boundary.
        while (k < to && k % kFanout != 0) {
            if (threshold(start, end, k))
                return k;
            ++k;
        }
        if (k >= to)
            return to;

        // Ascend: unit u of level L covers events [u * span, (u + 1) * span), span = 16^(L+1).
        size_t level = 0;
        size_t u = k / kFanout;
        size_t span = kFanout;
        bool found = false;
        for (;;) {
            if (u * span >= to || u >= m_levels[level].maxKey.size())
                return to;
            if (m_levels[level].maxKey[u] >= t) {
                found = true;
                break;
            }
            ++u;
            if (u % kFanout == 0 && level + 1 < m_levels.size()) {
                u /= kFanout;
                span *= kFanout;
                ++level;
            }
        }
        if (!found)
            return to;
        // Descend to the first level-0 block under u that may hold a candidate.
        while (level > 0) {
            const Level& below = m_levels[level - 1];
            size_t c = u * kFanout;
            const size_t cEnd = std::min(c + kFanout, below.maxKey.size());
            while (c < cEnd && below.maxKey[c] < t)
                ++c;
            u = c; // c < cEnd: the parent's maximum is one of these children's values
            --level;
        }
        const size_t lo = u * kFanout;
        const size_t hi = std::min(lo + kFanout, m_size);
        for (k = lo; k < hi; ++k) {
            if (k >= to)
                return to;
            if (threshold(start, end, k))
                return k;
        }
        // Float rounding made the block look like it held one; continue after it.
        k = hi;
    }
    return to;
}

size_t LodIndex::widest(std::span<const TimeNs> start, LaneEnds end, size_t first, size_t last) const
{
    last = std::min(last, m_size);
    if (m_levels.empty() || last - first <= 2 * kFanout)
        return widestLinear(start, end, first, last);

    // Longer wins, equal durations keep the lower index (as `longer`). The units' durations come
    // from the index itself: reading each unit's longest event from the lane would be a cache
    // miss per unit at 10M events, the units lying far apart.
    size_t best = first;
    TimeNs bestDuration = end.duration(first);
    const auto take = [&](size_t k, TimeNs d) {
        if (d > bestDuration || (d == bestDuration && k < best)) {
            best = k;
            bestDuration = d;
        }
    };
    size_t lo = first;
    size_t hi = last;
    // Level -1 (raw events): peel the unaligned ends.
    for (; lo < hi && lo % kFanout != 0; ++lo)
        take(lo, end.duration(lo));
    while (lo < hi && hi % kFanout != 0) {
        --hi;
        take(hi, end.duration(hi));
    }
    lo /= kFanout;
    hi /= kFanout;
    for (size_t level = 0; level < m_levels.size() && lo < hi; ++level) {
        const Level& l = m_levels[level];
        const auto unit = [&](size_t u) {
            const uint32_t d = l.widestDuration[u];
            take(l.widest[u], d != LaneDurations::kLong ? static_cast<TimeNs>(d) : end.duration(l.widest[u]));
        };
        const bool top = level + 1 == m_levels.size();
        for (; lo < hi && (top || lo % kFanout != 0); ++lo)
            unit(lo);
        while (lo < hi && hi % kFanout != 0)
            unit(--hi);
        lo /= kFanout;
        hi /= kFanout;
    }
    return best;
}

} // namespace ws
