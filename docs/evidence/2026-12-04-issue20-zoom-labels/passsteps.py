#!/usr/bin/env python3
# Per step of bench_ui_timeline's script and per pass (--repeat 2: the first half of a run's frames
# is the first pass, whose zoom widths are new to the worker's caches; the second finds them kept),
# pooled over every run of each build (the --frames files old-HHMMSS.SIZE.tsv, new-...):
# worker build CPU and frame CPU p50 / p95, old and new, and new / old. Then the whole runs pooled:
# frame CPU, worker and GUI paint p50 / p95 / max.
#   python3 passsteps.py frames-10M/*.tsv
import csv, os, sys, collections


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))] if v else float("nan")


d = {"old": collections.defaultdict(list), "new": collections.defaultdict(list)}
allr = {"old": [], "new": []}
nruns = collections.Counter()
for path in sys.argv[1:]:
    b = os.path.basename(path).split("-")[0]
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    nruns[b] += 1
    for r in rows:
        p = 1 if int(r["frame"]) < len(rows) // 2 else 2
        d[b][(r["step"], p)].append(r)
        allr[b].append(r)
col = lambda rs, k: [float(r[k]) for r in rs]
print(f"# runs: old {nruns['old']}, new {nruns['new']}")
print(f"{'step':20s} {'pass':>4s} {'n':>4s} | {'worker p50 old':>14s} {'new':>5s} {'ratio':>5s} | {'worker p95 old':>14s} "
      f"{'new':>5s} {'ratio':>5s} | {'frame p95 old':>13s} {'new':>5s} {'ratio':>5s}")
for key in sorted(d["old"], key=lambda k: (k[1], -q(col(d["old"][k], "build_cpu_ms"), .5))):
    o, n = d["old"][key], d["new"][key]
    wo, wn = q(col(o, "build_cpu_ms"), .5), q(col(n, "build_cpu_ms"), .5)
    po, pn = q(col(o, "build_cpu_ms"), .95), q(col(n, "build_cpu_ms"), .95)
    fo, fn = q(col(o, "cpu_ms"), .95), q(col(n, "cpu_ms"), .95)
    print(f"{key[0]:20s} {key[1]:4d} {len(n):4d} | {wo:14.2f} {wn:5.2f} {wn / wo:5.2f} | {po:14.2f} {pn:5.2f} {pn / po:5.2f} | "
          f"{fo:13.2f} {fn:5.2f} {fn / fo:5.2f}")
print("== pooled over all runs: p50 / p95 / max (ms)")
for b in ("old", "new"):
    line = []
    for k, what in (("cpu_ms", "frame CPU"), ("build_cpu_ms", "worker"), ("paint_cpu_ms", "GUI paint")):
        v = col(allr[b], k)
        line.append(f"{what} {q(v, .5):.2f} / {q(v, .95):.2f} / {max(v):.2f}")
    print(f"  {b}: {len(allr[b])} frames; " + "; ".join(line))
