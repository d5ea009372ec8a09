// SPDX-License-Identifier: MIT
#pragma once

#include <algorithm>
#include <cstddef>

namespace ws {

// Binary search for the first index in [lo, hi) where `pred` turns false (pred is monotonic:
// true, then false); hi when it never does.
template <typename Pred> size_t partitionPoint(size_t lo, size_t hi, Pred pred)
{
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (pred(mid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// The same index, searched outward from `hint` (galloping: steps 1, 2, 4, ... until the answer
// is bracketed, then a binary search inside the bracket). Any hint gives the same answer as
// partitionPoint; one near it costs about 2 log2(distance) probes instead of log2(hi - lo), and
// they fall where the previous frame read. A hint outside [lo, hi] is clamped.
template <typename Pred> size_t partitionPointNear(size_t lo, size_t hi, size_t hint, Pred pred)
{
    if (lo >= hi)
        return lo;
    hint = std::clamp(hint, lo, hi);
    if (hint < hi && pred(hint)) {
        size_t known = hint + 1; // the answer is at or after it
        for (size_t step = 1;; step *= 2) {
            if (hi - known < step)
                return partitionPoint(known, hi, pred);
            const size_t probe = known + step - 1;
            if (!pred(probe))
                return partitionPoint(known, probe, pred);
            known = probe + 1;
        }
    }
    size_t bound = hint; // the answer is at or before it: pred(bound) is false, or bound == hi
    for (size_t step = 1;; step *= 2) {
        if (bound - lo < step)
            return partitionPoint(lo, bound, pred);
        const size_t probe = bound - step;
        if (pred(probe))
            return partitionPoint(probe + 1, bound, pred);
        bound = probe;
    }
}

} // namespace ws
