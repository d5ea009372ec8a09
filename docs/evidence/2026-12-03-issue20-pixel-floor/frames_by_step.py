#!/usr/bin/env python3
# Per pass and per step of bench_ui_timeline's script, from its --frames files:
#   python3 frames_by_step.py frames-run1.tsv [frames-run2.tsv ...]
import csv, sys


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))] if v else 0.0


for path in sys.argv[1:]:
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    half = len(rows) // 2
    print(f"== {path}: {len(rows)} frames")
    for name, part in (("pass 1 (new labels)", rows[:half]), ("pass 2 (same steps again)", rows[half:])):
        cpu = [float(r["cpu_ms"]) for r in part]
        build = [float(r["build_cpu_ms"]) for r in part]
        print(f"  {name:26s} frame CPU p50 {q(cpu, .5):.2f} p95 {q(cpu, .95):.2f}; worker p50 {q(build, .5):.2f} p95 {q(build, .95):.2f} ms")
    steps = {}
    for r in rows:
        steps.setdefault(r["step"], []).append(float(r["build_cpu_ms"]))
    for step, v in sorted(steps.items(), key=lambda kv: -q(kv[1], .5)):
        print(f"  worker build CPU, {step:20s} n={len(v):3d} p50 {q(v, .5):.2f} max {max(v):.2f} ms")
