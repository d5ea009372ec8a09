#!/usr/bin/env python3
# Per run (--frames files): how many of the frames at or above the run's frame CPU p95 lie in the
# script's first pass (frames 0-141) and how many are "zoom in" steps.
#   python3 p95_frames.py frames/final/new-*.tsv
import csv, sys
for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    cpu = sorted(float(r["cpu_ms"]) for r in rows)
    p95 = cpu[min(len(cpu) - 1, int(0.95 * (len(cpu) - 1) + 0.5))]
    hi = [r for r in rows if float(r["cpu_ms"]) >= p95]
    first = sum(int(r["frame"]) < 142 for r in hi)
    zooms = sum(r["step"].startswith("zoom in") for r in hi)
    print(f"{path}: {len(hi)} frames >= p95 {p95:.2f} ms; in the first pass {first}; zoom in steps {zooms}")
