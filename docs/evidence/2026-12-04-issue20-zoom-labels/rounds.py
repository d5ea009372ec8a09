#!/usr/bin/env python3
# Per run of an A/B (the --frames files, in time order): frame CPU p50 / p95 / max, the worker's
# and the GUI paint's p50 / p95 (ms), as the rows of docs/timeline.md's table.
#   python3 rounds.py frames/10M/*.tsv
import csv, os, sys


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


runs = {"old": [], "new": []}
for path in sorted(sys.argv[1:], key=lambda p: os.path.basename(p).split("-")[1]):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    c, w, g = ([float(r[k]) for r in rows] for k in ("cpu_ms", "build_cpu_ms", "paint_cpu_ms"))
    runs[os.path.basename(path).split("-")[0]].append(
        (f"{q(c, .5):.2f} / {q(c, .95):.2f} / {max(c):.2f}", f"{q(w, .5):.2f} / {q(w, .95):.2f}", f"{q(g, .5):.2f} / {q(g, .95):.2f}"))
for b in ("old", "new"):
    for k, what in enumerate(("frame CPU p50 / p95 / max", "worker p50 / p95", "GUI paint p50 / p95")):
        print(f"| {b}: {what} | " + "; ".join(r[k] for r in runs[b]) + " |")
