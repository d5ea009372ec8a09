# SPDX-License-Identifier: MIT
"""Sample statistics and the drift check, line for line the C++ harness's (core/bench/benchstats.cpp),
so a Python measurement is summarised exactly as `warpscope-cli bench` summarises its own."""

import math
from dataclasses import dataclass


def percentile_sorted(sorted_values, q):
    """Linear interpolation between closest ranks (numpy's default); `sorted_values` ascending."""
    if not sorted_values:
        return 0.0
    q = min(max(q, 0.0), 100.0)
    pos = q / 100.0 * (len(sorted_values) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_values) - 1)
    frac = pos - lo
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * frac


def median(values):
    return percentile_sorted(sorted(values), 50)


@dataclass
class SampleStats:
    count: int = 0
    median: float = 0.0
    mean: float = 0.0
    min: float = 0.0
    max: float = 0.0
    stddev: float = 0.0
    cov: float = 0.0
    p05: float = 0.0
    p25: float = 0.0
    p75: float = 0.0
    p95: float = 0.0


def compute_stats(samples):
    s = SampleStats(count=len(samples))
    if not samples:
        return s
    v = sorted(samples)
    s.min, s.max = v[0], v[-1]
    s.median = percentile_sorted(v, 50)
    s.p05 = percentile_sorted(v, 5)
    s.p25 = percentile_sorted(v, 25)
    s.p75 = percentile_sorted(v, 75)
    s.p95 = percentile_sorted(v, 95)
    # Two passes, as in C++: close samples would lose the digits the CoV is made of.
    s.mean = sum(v) / len(v)
    if len(v) > 1:
        ss = sum((x - s.mean) * (x - s.mean) for x in v)
        s.stddev = math.sqrt(ss / (len(v) - 1))
        s.cov = s.stddev / abs(s.mean) if s.mean != 0 else 0.0
    return s


STABLE, FALLING, RISING, TOO_FEW = "stable", "falling", "rising", "too few samples"


@dataclass
class DriftCheck:
    trend: str = TOO_FEW
    early_vs_rest: float = 0.0
    late_vs_rest: float = 0.0


def check_drift(series, tolerance):
    """Median of the first quarter vs the rest (falling: still warming up) and of the last quarter
    vs what precedes it (rising: clocks dropping or heating). Fewer than 4 values: too few."""
    d = DriftCheck()
    n = len(series)
    if n < 4:
        return d
    k = max(1, n // 4)
    early = median(series[:k])
    after_early = median(series[k:])
    late = median(series[n - k:])
    before_late = median(series[:n - k])
    d.early_vs_rest = (early - after_early) / after_early if after_early != 0 else 0.0
    d.late_vs_rest = (late - before_late) / before_late if before_late != 0 else 0.0
    if d.early_vs_rest > tolerance:
        d.trend = FALLING
    elif d.late_vs_rest > tolerance:
        d.trend = RISING
    else:
        d.trend = STABLE
    return d
