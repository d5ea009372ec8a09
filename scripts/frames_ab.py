#!/usr/bin/env python3
# Per run and per step of bench_ui_timeline's script, from the --frames files of an A/B
# (old-HHMMSS.SIZE, new-HHMMSS.SIZE, alternating): frame CPU p50 / p95, the worker's and the
# GUI thread's p50 per step, how many of the run's frames at or above its p95 each step holds,
# and new / old per round (the runs paired in time order).
#   python3 scripts/frames_ab.py frames-10M/*   (the issue 20 A/Bs of 2026-12-04: docs/evidence/2026-12-04-issue20-*)
import csv, os, sys


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))] if v else 0.0


runs = {"old": [], "new": []}
for path in sorted(sys.argv[1:], key=os.path.basename):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    cpu = [float(r["cpu_ms"]) for r in rows]
    build = [float(r["build_cpu_ms"]) for r in rows]
    paint = [float(r["paint_cpu_ms"]) for r in rows]
    p95 = q(cpu, 0.95)
    name = os.path.basename(path)
    runs[name.split("-")[0]].append((name, q(cpu, 0.5), p95, q(build, 0.5), q(paint, 0.5)))
    print(f"== {name}: {len(rows)} frames, frame CPU p50 {q(cpu, .5):.2f} p95 {p95:.2f} ms; "
          f"worker p50 {q(build, .5):.2f}, GUI paint p50 {q(paint, .5):.2f} ms")
    steps = {}
    for r in rows:
        steps.setdefault(r["step"], []).append(r)
    for step, v in sorted(steps.items(), key=lambda kv: -q([float(r["cpu_ms"]) for r in kv[1]], .5)):
        c = [float(r["cpu_ms"]) for r in v]
        print(f"  {step:20s} n={len(v):3d} frame p50 {q(c, .5):.2f} max {max(c):.2f} | worker p50 "
              f"{q([float(r['build_cpu_ms']) for r in v], .5):.2f} | paint p50 "
              f"{q([float(r['paint_cpu_ms']) for r in v], .5):.2f} | frames >= run p95: {sum(x >= p95 for x in c)}")
print("== new / old per round (frame CPU p50, p95; worker p50; GUI paint p50)")
for i, (o, n) in enumerate(zip(runs["old"], runs["new"]), 1):
    print(f"  round {i}: " + ", ".join(f"{n[k] / o[k]:.2f}" for k in (1, 2, 3, 4)))
