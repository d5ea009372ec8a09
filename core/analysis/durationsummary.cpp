// SPDX-License-Identifier: MIT
#include "core/analysis/durationsummary.h"

#include <algorithm>
#include <cmath>

namespace ws {

namespace {
// -Wpedantic rejects __int128 by name; __extension__ states that we mean it.
__extension__ using Int128 = __int128;
} // namespace

// Why sample (n - 1) and not population stdev: nsys's osrt_sum output for sem_wait with the
// two durations 2,971,823 and 333,015,608 ns prints StdDev 233,376,198.5, which is
// |a - b| / sqrt(2) (sample); the population value would be |a - b| / 2 = 165,021,892.5.
// The same output prints 0.0 for groups with one instance.

namespace {
// round(num / den, 1) = round_half_away(10 * num / den) / 10, on integers.
double roundTenthsOfRatio(Int128 num, Int128 den)
{
    const Int128 scaled = num * 10;
    const Int128 magnitude = scaled < 0 ? -scaled : scaled;
    Int128 tenths = (2 * magnitude + den) / (2 * den);
    if (scaled < 0)
        tenths = -tenths;
    return static_cast<double>(tenths) / 10.0;
}
} // namespace

double roundedRatio(int64_t numerator, int64_t denominator)
{
    return roundTenthsOfRatio(numerator, denominator);
}

double roundedPercent(int64_t part, int64_t whole)
{
    return roundTenthsOfRatio(static_cast<Int128>(part) * 100, whole);
}

double roundTenth(double x)
{
    return std::round(x * 10.0) / 10.0;
}

DurationSummary summarizeDurations(std::vector<int64_t>& durations)
{
    DurationSummary s;
    if (durations.empty())
        return s;
    const auto n = static_cast<int64_t>(durations.size());
    s.count = n;
    const auto [minIt, maxIt] = std::minmax_element(durations.begin(), durations.end());
    s.min = *minIt;
    s.max = *maxIt;
    for (const int64_t d : durations)
        s.total += d;
    s.avg = roundedRatio(s.total, n);

    const auto mid = durations.begin() + n / 2;
    std::nth_element(durations.begin(), mid, durations.end());
    if (n % 2 == 1) {
        s.median = static_cast<double>(*mid);
    } else {
        // The lower middle is the largest value left of the upper middle after selection.
        const int64_t lower = *std::max_element(durations.begin(), mid);
        s.median = (static_cast<double>(lower) + static_cast<double>(*mid)) / 2.0;
    }

    if (n > 1) {
        const long double mean = static_cast<long double>(s.total) / static_cast<long double>(n);
        long double squares = 0;
        for (const int64_t d : durations) {
            const long double dev = static_cast<long double>(d) - mean;
            squares += dev * dev;
        }
        s.stdev = roundTenth(static_cast<double>(std::sqrt(squares / static_cast<long double>(n - 1))));
    }
    return s;
}

} // namespace ws
