# Pooled over every frame of every run of each build (the --frames files): frame CPU, worker and
# GUI paint p50 / p95 / max, and per round (old and new runs paired in time order) the ratio of
# frame CPU p95.
import csv, os, sys
def q(v, p):
    v = sorted(v); return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]
runs = {"old": [], "new": []}
for path in sorted(sys.argv[1:], key=os.path.basename):
    rows = list(csv.DictReader(open(path), delimiter="\t"))
    runs[os.path.basename(path).split("-")[0]].append(rows)
for b in ("old", "new"):
    allr = [r for run in runs[b] for r in run]
    line = f"{b}: {len(runs[b])} runs, {len(allr)} frames;"
    for col, lab in (("cpu_ms", "frame CPU"), ("build_cpu_ms", "worker"), ("paint_cpu_ms", "GUI paint")):
        v = [float(r[col]) for r in allr]
        line += f" {lab} {q(v,.5):.2f} / {q(v,.95):.2f} / {max(v):.2f};"
    print(line, "(p50 / p95 / max, ms)")
    print(f"   runs with frame CPU p95 <= 2 ms: {sum(q([float(r['cpu_ms']) for r in run], .95) <= 2.0 for run in runs[b])} of {len(runs[b])}")
ratios = [q([float(r['cpu_ms']) for r in n], .95) / q([float(r['cpu_ms']) for r in o], .95) for o, n in zip(runs["old"], runs["new"])]
print("new / old frame CPU p95 per round:", " ".join(f"{x:.2f}" for x in ratios), f"(median {sorted(ratios)[len(ratios)//2]:.2f}, new lower in {sum(x < 1 for x in ratios)} of {len(ratios)})")
