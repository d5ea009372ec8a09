#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# How well `record --gpu-metrics` covered a program (issue 23): reads a session (read-only SQLite)
# and prints JSON plus PASS/FAIL lines:
#   coverage   share of [first kernel start, last kernel end] covered by PM samples (a sample
#              covers [ts, next ts) when the next follows within 1.5 periods, else one period);
#   gaps       stretches inside that span without samples (count, total, longest), and the
#              gaps the sampler itself reported (meta/environment gpu_metrics.gaps, gap_ms);
#   character  mean of each metric over the samples inside each kernel group (gemm, copy, chase,
#              transpose of ws-example-gpu-mix);
#   stop       the sampler's stop latency after the program's end and the last sample against
#              the last kernel's end.
# Usage: pm-coverage.py SESSION [--min-coverage 99] [--max-stop-ms 100] [--json OUT]
import argparse, json, sqlite3, statistics, sys

GROUPS = {"gemm": ("gemm", "nvjet", "sm90_xmma", "cutlass"), "copy": ("ws_copy",), "chase": ("ws_chase",),
          "transpose": ("ws_transpose",),
          # PyTorch's (examples/python/torch_phases.py): the add, the sort
          "elementwise": ("elementwise_kernel",), "sort": ("radixsort", "sort_")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("session")
    ap.add_argument("--min-coverage", type=float, default=99.0)
    ap.add_argument("--max-stop-ms", type=float, default=100.0)
    ap.add_argument("--json")
    a = ap.parse_args()
    db = sqlite3.connect("file:" + a.session + "?mode=ro", uri=True)
    meta = dict(db.execute("SELECT key, value FROM meta"))
    env = dict(db.execute("SELECT key, value FROM environment WHERE key LIKE 'gpu_metrics.%'"))
    names = dict(db.execute("SELECT id, text FROM string"))
    kernels = [(s, e, names.get(n, "")) for s, e, n in db.execute("SELECT start, end, short_name FROM kernel")]
    kernels.sort()
    res = {"session": a.session, "kernels": len(kernels), "environment": env,
           "meta": {k: v for k, v in meta.items() if k.startswith("gpu_metrics")}}
    fails = []
    tracks = {name: tid for tid, name in db.execute("SELECT id, name FROM counter_track")}
    if not kernels or not tracks:
        print("FAIL: no kernels or no counter tracks")
        return 1
    period = int(meta.get("gpu_metrics.period_ns", env.get("gpu_metrics.period_ns", "20000")))
    series = {}
    for name, tid in tracks.items():
        series[name] = db.execute("SELECT ts, value FROM counter_sample WHERE track_id=? ORDER BY ts", (tid,)).fetchall()
    ts = [t for t, _ in series[next(iter(series))]]
    span0, span1 = kernels[0][0], max(e for _, e, _ in kernels)
    covered, gaps = 0, []
    prev_end = span0
    for i, t in enumerate(ts):
        nxt = ts[i + 1] if i + 1 < len(ts) else None
        end = nxt if nxt is not None and nxt - t <= 1.5 * period else t + period
        s, e = max(t, span0), min(end, span1)
        if e > s:
            if s > prev_end:
                gaps.append((prev_end, s))
            covered += e - s
            prev_end = max(prev_end, e)
    if prev_end < span1:
        gaps.append((prev_end, span1))
    span = span1 - span0
    cov = 100.0 * covered / span if span else 0.0
    big = [g for g in gaps if g[1] - g[0] > period]
    res["span_ms"] = span / 1e6
    res["samples_per_track"] = len(ts)
    res["coverage_pct"] = round(cov, 3)
    res["gaps_in_span"] = {"count": len(big), "total_ms": round(sum(e - s for s, e in big) / 1e6, 3),
                           "longest_ms": round(max((e - s for s, e in big), default=0) / 1e6, 3),
                           "first": [[s, e] for s, e in big[:10]]}
    res["last_sample_after_last_kernel_ms"] = round((ts[-1] - span1) / 1e6, 3) if ts else None
    res["first_sample_before_first_kernel_ms"] = round((span0 - ts[0]) / 1e6, 3) if ts else None
    # Character per kernel group: samples wholly inside a kernel of the group.
    import bisect
    char = {}
    for group, keys in GROUPS.items():
        ks = [(s, e) for s, e, n in kernels if any(k in n.lower() for k in keys)]
        if not ks:
            continue
        starts = [s for s, _ in ks]
        per = {}
        for name, rows in series.items():
            vals = []
            for t, v in rows:
                j = bisect.bisect_right(starts, t) - 1
                if j >= 0 and t + period <= ks[j][1]:
                    vals.append(v)
            per[name] = {"samples": len(vals), "mean": round(statistics.mean(vals), 2) if vals else None,
                         "median": round(statistics.median(vals), 2) if vals else None}
        longest = max(e - s for s, e in ks)
        char[group] = {"kernels": len(ks), "kernel_ms": round(sum(e - s for s, e in ks) / 1e6, 1),
                       "longest_kernel_ms": round(longest / 1e6, 3), "metrics": per}
    res["character"] = char
    print(json.dumps(res, indent=1))

    def check(ok, what):
        print(("PASS: " if ok else "FAIL: ") + what)
        if not ok:
            fails.append(what)
    check(cov >= a.min_coverage, f"coverage {cov:.2f} % of the kernel span ({span / 1e6:.1f} ms) >= {a.min_coverage} %")
    reported = int(meta.get("gpu_metrics.gaps", env.get("gpu_metrics.gaps", "0")))
    check(not big or reported > 0, f"{len(big)} gap(s) in the span, {reported} reported by the sampler/ingest")
    g = char.get("gemm", {}).get("metrics", {}).get("Tensor pipe active", {})
    check((g.get("mean") or 0) > 40, f"GEMM samples: tensor pipe mean {g.get('mean')} % > 40 %")
    c = char.get("copy", {}).get("metrics", {}).get("DRAM throughput", {})
    check((c.get("mean") or 0) > 50, f"copy samples: DRAM throughput mean {c.get('mean')} % > 50 %")
    ch = char.get("chase", {}).get("metrics", {})
    chase_dram = ch.get("DRAM throughput", {}).get("mean")
    chase_tensor = ch.get("Tensor pipe active", {}).get("mean")
    check(chase_dram is not None and chase_tensor is not None and chase_dram < 10 and chase_tensor < 1,
          f"chase samples: DRAM {chase_dram} % < 10 %, tensor {chase_tensor} % < 1 %")
    tr = char.get("transpose", {}).get("metrics", {}).get("DRAM throughput", {})
    check((tr.get("mean") or 0) > 20, f"transpose samples: DRAM throughput mean {tr.get('mean')} % > 20 %")
    stop = env.get("gpu_metrics.stop_latency_ms")
    check(stop is not None and float(stop) <= a.max_stop_ms, f"stop latency {stop} ms <= {a.max_stop_ms} ms")
    tail = res["last_sample_after_last_kernel_ms"]
    check(tail is not None and tail <= a.max_stop_ms, f"last sample {tail} ms after the last kernel's end <= {a.max_stop_ms} ms")
    if a.json:
        res["failed"] = fails
        json.dump(res, open(a.json, "w"), indent=1)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
