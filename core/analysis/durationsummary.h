// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <vector>

namespace ws {

// The statistics every `nsys stats` *_sum report prints for one group of durations (ns).
//
// Conventions (checked against published nsys output, see durationsummary.cpp):
// - avg: total / count, rounded half away from zero to 0.1, computed exactly on integers;
// - median: the middle value, or the mean of the two middle values for an even count
//   (so it is always a whole or half nanosecond);
// - stdev: SAMPLE standard deviation, sqrt(sum((x - mean)^2) / (n - 1)), rounded to 0.1;
//   0 for a single instance (nsys prints 0.0 there, not NULL);
// - min, max, total: raw integers.
struct DurationSummary {
    int64_t total = 0;
    int64_t count = 0;
    double avg = 0;
    double median = 0;
    int64_t min = 0;
    int64_t max = 0;
    double stdev = 0;
};

// Reorders `durations` (selection for the median). Empty input gives all zeros.
DurationSummary summarizeDurations(std::vector<int64_t>& durations);

// numerator / denominator rounded half away from zero to one decimal, exactly (128-bit
// integer arithmetic, no binary floating-point tie errors). Used for averages. The denominator must be positive.
double roundedRatio(int64_t numerator, int64_t denominator);

// part * 100 / whole, rounded the same way: the Time (%) column. `whole` must be positive.
double roundedPercent(int64_t part, int64_t whole);

// x rounded half away from zero to one decimal (SQLite's round(x, 1)), for the values that
// are not ratios of integers (stdev).
double roundTenth(double x);

} // namespace ws
