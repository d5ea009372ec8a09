# SPDX-License-Identifier: MIT
"""The harness's texts, ported from core/bench (benchoptions.cpp, benchworkload.cpp, benchreport.cpp)
so that warpscope.bench prints what `warpscope-cli bench` prints. tests/test_bench_cli.py compares
this report with the CLI's for the same result, so the two cannot drift apart silently."""

from . import _stats

TIMER_LABELS = {
    "cuda-events-per-batch": "CUDA-event GPU-stream time per call, averaged over a batch of back-to-back calls",
    "cuda-events-per-call": "CUDA-event GPU-stream time of single calls",
    "wallclock-sync-per-call": "single-call end-to-end latency (host wall clock, synchronized)",
}
TIMERS = tuple(TIMER_LABELS)
CACHES = ("flush", "warm")
DEFAULT_FLUSH_BYTES = 256 << 20
DEFAULT_WARMUP_MS = 100.0


def format_bytes(n):
    kib, mib, gib = 1024, 1024 ** 2, 1024 ** 3
    if n >= gib and n % gib == 0:
        return f"{n // gib} GiB"
    if n >= mib and n % mib == 0:
        return f"{n // mib} MiB"
    if n >= kib and n % kib == 0:
        return f"{n // kib} KiB"
    return f"{n} B"


def describe_boundary(operation, timer, cache, repeat, flush_bytes):
    b = "One call: " + operation + ". "
    if timer == "cuda-events-per-batch":
        b += ("Interval: CUDA events recorded on the timing stream before the first and after the last of "
              f"{repeat} back-to-back calls; the value is the interval divided by {repeat} "
              "(GPU-stream time, idle stream gaps between calls included). ")
    elif timer == "cuda-events-per-call":
        b += ("Interval: one CUDA event pair on the timing stream around each call (GPU-stream time; idle stream "
              "gaps inside the pair count). ")
    else:
        b += ("Interval: host steady clock started after the stream is synchronized, stopped when "
              "cudaStreamSynchronize returns after the call (host call, launch, GPU execution and the wait). ")
    if cache == "flush":
        b += "Cache: before each measured call a " + format_bytes(flush_bytes) + \
             " buffer (at least 2 x L2) is written on the timing stream"
        b += " and synchronized before the clock starts" if timer == "wallclock-sync-per-call" \
            else ", before the start event"
        b += " (outside the interval). "
    else:
        b += "Cache: warm; calls reuse the same buffers, so data the previous call left in L2 may hit. "
    b += ("Outside every interval: allocation, input initialisation, library handles, warm-up and the correctness "
          "check.")
    return b


def validation_errors(o, l2_bytes=0):
    """core/bench/benchoptions.cpp validationErrors + deviceValidationErrors, same sentences."""
    e = []
    finite = lambda v: v == v and v not in (float("inf"), float("-inf"))  # noqa: E731
    if o["warmup_ms"] is not None and o["warmup_calls"] is not None:
        e.append("give either a warm-up time budget (--warmup-ms) or a call count (--warmup-calls), not both")
    if o["warmup_ms"] is not None and (not finite(o["warmup_ms"]) or o["warmup_ms"] < 0):
        e.append("--warmup-ms must be a number >= 0")
    if o["warmup_calls"] is not None and o["warmup_calls"] < 0:
        e.append("--warmup-calls must be >= 0")
    if o["repeat"] < 1:
        e.append("--repeat (calls per round) must be >= 1")
    if o["rounds"] < 1:
        e.append("--rounds must be >= 1")
    if not finite(o["cooldown_ms"]) or o["cooldown_ms"] < 0:
        e.append("--cooldown-ms must be a number >= 0")
    if not finite(o["rtol"]) or o["rtol"] < 0:
        e.append("--rtol must be a number >= 0")
    if not finite(o["atol"]) or o["atol"] < 0:
        e.append("--atol must be a number >= 0")
    if not finite(o["drift_tolerance"]) or o["drift_tolerance"] <= 0 or o["drift_tolerance"] >= 1:
        e.append("the drift tolerance must lie between 0 and 1 (a relative change)")
    if o["flush_bytes"] < 0:
        e.append("--flush-bytes must be > 0")
    if o["cache"] == "flush" and o["timer"] == "cuda-events-per-batch":
        e.append("--cache flush cannot be combined with --timer cuda-events-per-batch: the flush runs before every "
                 "measured call and would fall inside the batch's event interval; use --timer cuda-events-per-call "
                 "or --cache warm")
    if o["cache"] == "warm" and o["flush_bytes"] > 0:
        e.append("--flush-bytes applies to --cache flush only")
    if o["timer"] == "cuda-events-per-batch" and o["repeat"] < 2:
        e.append("--timer cuda-events-per-batch needs --repeat >= 2 (a batch of one call is "
                 "--timer cuda-events-per-call)")
    if o["cache"] == "flush" and o["flush_bytes"] > 0 and l2_bytes > 0 and o["flush_bytes"] < 2 * l2_bytes:
        e.append("--flush-bytes " + format_bytes(o["flush_bytes"]) + " is smaller than 2 x L2 (2 x "
                 + format_bytes(l2_bytes) + "): the flush would leave part of the previous call's data in L2")
    return e


def _percent(rel):
    return "%.2f%%" % (rel * 100.0)


_UNIT_TO_US = {"us": 1.0, "ns": 1e-3, "ms": 1e3, "s": 1e6}


def _to_us(value, unit):
    scale = _UNIT_TO_US.get(unit)
    return None if scale is None else value * scale


def throughput_lines(run, t):
    t_us = _to_us(t, run["unit"])
    out = []
    if t_us is None or not t_us > 0:
        return out
    kind = "kernel throughput" if run["throughput"]["kind"] == "kernel" else "effective throughput"
    work = run["throughput"]["work"]
    if run["work_flops"] > 0:
        v = run["work_flops"] / t_us / 1e6
        out.append(("TFLOP/s", "TFLOP/s = FLOP / t_us / 10^6 = %.6g / %.4f / 10^6 = %.1f (%s; work: %s)"
                    % (run["work_flops"], t_us, v, kind, work)))
    if run["work_bytes"] > 0:
        v = run["work_bytes"] / t_us / 1e3
        out.append(("GB/s", "GB/s = bytes / t_us / 10^3 = %.6g / %.4f / 10^3 = %.1f (%s; work: %s)"
                    % (run["work_bytes"], t_us, v, kind, work)))
    return out


def all_calls(run):
    return [c for r in run["calls"] for c in r]


def drift_warnings(run):
    tol = run["options"]["drift_tolerance"]
    w = []
    chunks = run["warmup"]["chunks"]
    warm = _stats.check_drift(chunks[len(chunks) // 2:], tol)
    if warm.trend == _stats.FALLING:
        w.append("warm-up: the time per call was still falling in the second half of the warm-up ("
                 + _percent(warm.early_vs_rest) + "); increase the warm-up (--warmup-ms or --warmup-calls)")
    rounds = _stats.check_drift(run["rounds"], tol)
    if rounds.trend == _stats.FALLING:
        w.append("rounds still falling: the first quarter of the rounds is " + _percent(rounds.early_vs_rest)
                 + " slower than the rest; increase the warm-up (--warmup-ms or --warmup-calls)")
    elif rounds.trend == _stats.RISING:
        w.append("later rounds are " + _percent(rounds.late_vs_rest)
                 + " slower than the earlier ones: check clocks, temperature and power before trusting the median")
    return w


def run_stats(run):
    """The statistics the report prints: over every call for the per-call timers, else over rounds."""
    calls = all_calls(run)
    return _stats.compute_stats(calls if calls else run["rounds"])


def _g(v):
    # C++ ostream's default for a double: %g with 6 significant digits.
    return "%g" % v


def format_report(runs):
    out = []
    for run in runs:
        o = run["options"]
        round_stats = _stats.compute_stats(run["rounds"])
        calls = all_calls(run)
        if calls:
            st = _stats.compute_stats(calls)
            basis = f"{len(calls)} per-call samples in {len(run['rounds'])} rounds"
        else:
            st = round_stats
            basis = f"{len(run['rounds'])} round values, each the mean of {o['repeat']} back-to-back calls"
        drift = _stats.check_drift(run["rounds"], o["drift_tolerance"])
        out.append(f"{run['workload']} / {run['implementation']}  [{run['dtype']}, size {run['size']}, "
                   f"{o['cache']} cache]\n")
        out.append(f"  timer:     {TIMER_LABELS[o['timer']]} ({o['timer']})\n")
        out.append(f"  samples:   {basis}\n")
        out.append("  median %.4f %s   mean %.4f   min %.4f   max %.4f   CoV %s\n"
                   % (st.median, run["unit"], st.mean, st.min, st.max, _percent(st.cov)))
        out.append(f"  rounds:    CoV of round values {_percent(round_stats.cov)}, drift {drift.trend}\n")
        for unit, formula in throughput_lines(run, st.median):
            out.append(f"  {unit}:   {formula}\n")
        c = run["check"]
        if c["performed"]:
            out.append("  check:     %s, %d of %d elements vs %s (rtol %s, atol %s, max abs error %.3g)\n"
                       % ("passed" if c["passed"] else "FAILED", c["checked"], c["total"], c["reference"],
                          _g(c["rtol"]), _g(c["atol"]), c["max_abs_error"]))
        out.append(f"  boundary:  {run['boundary']}\n")
        for w in run["warnings"]:
            out.append(f"  WARNING:   {w}\n")
        out.append("\n")
    return "".join(out)
