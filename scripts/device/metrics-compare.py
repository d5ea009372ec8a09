#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares `warpscope-cli profile` sessions with Nsight Compute CSV for the same kernels.

  metrics-compare.py names SESSION            counter metric names collected in SESSION (for ncu --metrics)
  metrics-compare.py launch-names             the launch metrics both compute (ncu names)
  metrics-compare.py table [--warmup N] [--timings FILE [--ours-label L]] SESSION:NCU_CSV[:NCU_CSV...] ...
                                               the agreement table (markdown) and the timing table

Per kernel name, the first N launches (warm-up) of each run are dropped on both sides and the
medians of the rest are compared; several ncu CSVs of the same workload (separate ncu runs) are
pooled. A metric agrees when |ours - ncu| / |ncu| <= max(1 %, ncu's own spread), where the spread
is (max - min) / |median| of ncu's launches, over all its runs (with clocks left alone, ncu differs
from itself between runs by more than between launches of one run); percentages also agree within 0.1
percentage point absolute, and two values at or below 1e-9 in magnitude agree. Only kernels of
at least 50 us (ncu's median gpu__time_duration.sum) are held to this; shorter ones are listed
with their figures. The same rules are implemented in core/metrics/ncucomparison.cpp, which the
CI test tst_metrics_ncu uses on the committed fixtures.
"""
import csv
import re
import sqlite3
import statistics
import sys

TOLERANCE = 0.01
PCT_ABS = 0.1
ZERO = 1e-9
LONG_NS = 50_000
# Metrics we compute rather than collect, with ncu's names: compared too.
LAUNCH_METRICS = [
    "launch__grid_size", "launch__block_size", "launch__thread_count", "launch__registers_per_thread",
    "launch__shared_mem_per_block_static", "launch__shared_mem_per_block_dynamic",
    "launch__shared_mem_per_block_driver", "launch__shared_mem_config_size", "launch__waves_per_multiprocessor",
    "launch__sm_count", "launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks", "sm__maximum_warps_per_active_cycle_pct",
    "sm__maximum_warps_avg_per_active_cycle", "smsp__maximum_warps_avg_per_active_cycle", "launch__cluster_size",
]


def short_name(name):
    """Bare function name: no return type, parameters, template arguments or qualifiers."""
    s = name.strip().replace("(anonymous namespace)", "anonymous_namespace")
    depth, cut = 0, len(s)
    for i, c in enumerate(s):  # parameters: the first '(' outside template brackets
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            cut = i
            break
    s = s[:cut]
    out, depth = [], 0
    for c in s:  # template arguments
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif depth == 0:
            out.append(c)
    s = "".join(out).strip()
    s = s.split(" ")[-1]  # return type
    return s.split("::")[-1]


def load_session(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    strings = dict(db.execute("SELECT id, text FROM string"))
    defs = {mid: (name, unit) for mid, name, unit in db.execute("SELECT id, name, unit FROM metric_def")}
    kernels = {}
    for kid, sname, mname in db.execute("SELECT id, short_name, mangled_name FROM kernel ORDER BY id"):
        kernels[kid] = {"name": short_name(strings.get(sname) or strings.get(mname, "?")), "values": {}}
    for kid, mid, value in db.execute("SELECT kernel_id, metric_id, value FROM kernel_metric"):
        kernels[kid]["values"][defs[mid][0]] = value
    meta = dict(db.execute("SELECT key, value FROM meta"))
    env = dict(db.execute("SELECT key, value FROM environment"))
    db.close()
    units = {name: unit for name, unit in defs.values()}
    return [kernels[k] for k in sorted(kernels)], units, meta, env


def parse_number(s):
    s = s.replace(",", "").strip()
    if not s or s == "n/a":
        return None
    try:
        return float(s)
    except ValueError:
        return None


def load_ncu(path):
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("==")]
    rows = list(csv.reader(lines))
    start = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    header = rows[start]
    if "Metric Name" in header:  # details page, long form
        c_id, c_k, c_m, c_u, c_v = (header.index(x) for x in ("ID", "Kernel Name", "Metric Name", "Metric Unit",
                                                              "Metric Value"))
        results, units = {}, {}
        for r in rows[start + 1:]:
            if len(r) < len(header):
                continue
            res = results.setdefault(r[c_id], {"name": short_name(r[c_k]), "values": {}})
            v = parse_number(r[c_v])
            if v is not None:
                res["values"][r[c_m]] = v
                units[r[c_m]] = r[c_u]
        return [results[k] for k in sorted(results, key=int)], units
    unit_row = rows[start + 1]
    c_k = header.index("Kernel Name")
    first = max(header.index(x) for x in ("ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC")
                if x in header) + 1
    out = []
    for r in rows[start + 2:]:
        if len(r) != len(header):
            continue
        vals = {}
        for c in range(first, len(header)):
            v = parse_number(r[c])
            if v is not None:
                vals[header[c]] = v
        out.append({"name": short_name(r[c_k]), "values": vals})
    units = {header[c]: unit_row[c] for c in range(first, len(header)) if c < len(unit_row)}
    return out, units


def group(results, warmup):
    by = {}
    for r in results:
        by.setdefault(r["name"], []).append(r["values"])
    return {k: v[warmup:] if len(v) > warmup else v for k, v in by.items()}


def pooled(runs, warmup):
    """Launches per kernel name over several runs, each run's warm-up dropped."""
    out = {}
    for run in runs:
        for k, v in group(run, warmup).items():
            out.setdefault(k, []).extend(v)
    return out


def compare(ours, ncu_runs, warmup, units):
    """Rows of (kernel, metric, unit, ours, ncu, rel, spread, bar, ok, how, long, n_ours, n_ncu, duration)."""
    rows = []
    g_ours, g_ncu = group(ours, warmup), pooled(ncu_runs, warmup)
    for name in sorted(set(g_ours) & set(g_ncu)):
        lo, ln = g_ours[name], g_ncu[name]
        dur = [v["gpu__time_duration.sum"] for v in ln if "gpu__time_duration.sum" in v]
        duration = statistics.median(dur) if dur else 0.0
        is_long = duration >= LONG_NS
        shared = sorted(set().union(*[v.keys() for v in lo]) & set().union(*[v.keys() for v in ln]))
        for m in shared:
            xo = [v[m] for v in lo if m in v]
            xn = [v[m] for v in ln if m in v]
            if not xo or not xn:
                continue
            mo, mn = statistics.median(xo), statistics.median(xn)
            spread = (max(xn) - min(xn)) / abs(mn) if len(xn) > 1 and mn != 0 else 0.0
            bar = max(TOLERANCE, spread)
            diff = abs(mo - mn)
            rel = diff / abs(mn) if mn != 0 else (0.0 if diff <= ZERO else float("inf"))
            unit = units.get(m, "")
            if abs(mo) <= ZERO and abs(mn) <= ZERO:
                ok, how = True, "zero"
            elif rel <= TOLERANCE:
                ok, how = True, "rel"
            elif rel <= bar:
                ok, how = True, "spread"
            elif unit in ("%", "percent", "pct") and diff <= PCT_ABS:
                ok, how = True, "abs"
            else:
                ok, how = False, "FAIL"
            rows.append((name, m, unit, mo, mn, rel, spread, bar, ok, how, is_long, len(xo), len(xn), duration))
    return rows


def main():
    args = sys.argv[1:]
    if not args:
        print(__doc__)
        return 2
    if args[0] == "launch-names":
        print(",".join(LAUNCH_METRICS))
        return 0
    if args[0] == "names":
        db = sqlite3.connect(f"file:{args[1]}?mode=ro", uri=True)
        names = [n for (n,) in db.execute("SELECT name FROM metric_def ORDER BY id")]
        db.close()
        print(",".join(n for n in names if not n.startswith("derived__") and n not in LAUNCH_METRICS))
        return 0
    warmup, timings, ours_label, pairs = 2, None, "ours", []
    i = 1
    while i < len(args):
        if args[i] == "--warmup":
            warmup = int(args[i + 1])
            i += 2
        elif args[i] == "--timings":
            timings = args[i + 1]
            i += 2
        elif args[i] == "--ours-label":  # which of our runs the timing table shows
            ours_label = args[i + 1]
            i += 2
        else:
            pairs.append(args[i])
            i += 1
    failures = 0
    summary = []
    nontrivial = {}  # "workload/kernel" -> [non-trivial values, agreeing, long]
    for pair in pairs:
        session, *ncu_csvs = pair.split(":")
        ours, units, meta, _env = load_session(session)
        ncu_runs, ncu_units = [], {}
        for c in ncu_csvs:
            run, u = load_ncu(c)
            ncu_runs.append(run)
            ncu_units.update(u)
        units = {**ncu_units, **{k: v for k, v in units.items() if v}}
        rows = compare(ours, ncu_runs, warmup, units)
        workload = re.sub(r"\.wscope$", "", session.split("/")[-1])
        print(f"\n### {workload}  (ours: {len(ours)} launches, ncu: {' + '.join(str(len(r)) for r in ncu_runs)} "
              f"launches in {len(ncu_runs)} run(s), warm-up dropped per run: {warmup}, "
              f"passes: {meta.get('profile_passes', '?')}, cache control: {meta.get('profile_cache_control', '?')})\n")
        print("| kernel | ncu median duration | shared metrics | agree (rel <= 1%) | agree within ncu spread | "
              "agree abs (% metrics) | disagree | worst (ours vs ncu) |")
        print("|---|---:|---:|---:|---:|---:|---:|---|")
        for name in sorted({r[0] for r in rows}):
            kr = [r for r in rows if r[0] == name]
            n_rel = sum(1 for r in kr if r[9] in ("rel", "zero"))
            n_spread = sum(1 for r in kr if r[9] == "spread")
            n_abs = sum(1 for r in kr if r[9] == "abs")
            bad = [r for r in kr if not r[8]]
            worst = sorted(kr, key=lambda r: (r[5] / r[7]) if r[7] else 0, reverse=True)[:3]
            worst_s = "; ".join(f"{r[1]} {r[3]:.4g} vs {r[4]:.4g} ({100 * r[5]:.2f}%, spread {100 * r[6]:.2f}%)"
                                for r in worst)
            long_k = kr[0][10]
            print(f"| {name}{'' if long_k else ' (short: figures only)'} | {kr[0][13] / 1000:.1f} us | {len(kr)} | "
                  f"{n_rel} | {n_spread} | {n_abs} | {len(bad)} | {worst_s} |")
            if long_k:
                failures += len(bad)
            summary.append((workload, name, long_k, len(kr), len(bad)))
            real = [r for r in kr if r[9] != "zero" and not r[1].startswith(("launch__", "device__"))]
            nontrivial[f"{workload}/{name}"] = (len(real), sum(1 for r in real if r[8]), long_k)
        for r in rows:
            if not r[8]:
                print(f"  {'FAIL' if r[10] else 'short'}: {r[0]} {r[1]} [{r[2]}] ours {r[3]:.6g} ncu {r[4]:.6g} "
                      f"rel {100 * r[5]:.2f}% ncu spread {100 * r[6]:.2f}% (n={r[11]}/{r[12]})")
    if timings:
        print("\n### Collection wall time (whole command, same metric set)\n")
        print("| workload | program alone | warpscope profile | ncu | ours / ncu |")
        print("|---|---:|---:|---:|---:|")
        t = {}
        with open(timings) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3:
                    t.setdefault(parts[0], {})[parts[1]] = float(parts[2])
        for w, v in t.items():
            # ncu ran more than once: its mean wall time.
            ncu_all = [x for k, x in v.items() if k.startswith("ncu")]
            ours_s, base = v.get(ours_label), v.get("base")
            ncu_s = sum(ncu_all) / len(ncu_all) if ncu_all else None
            ratio = f"{ours_s / ncu_s:.2f}x" if ours_s and ncu_s else "?"
            fmt = lambda x: f"{x:.2f} s" if x is not None else "?"
            print(f"| {w} | {fmt(base)} | {fmt(ours_s)} | {fmt(ncu_s)} | {ratio} |")
    long_total = sum(1 for s in summary if s[2])
    # Issue 18's figure: of the non-trivial values (not zero in both tools, not a launch or
    # device attribute, which both compute from the same launch configuration), the share
    # within max(1 %, ncu's own spread) of ncu's median (or 0.1 point for percentages), for
    # kernels >= 50 us and, separately, for shorter ones.
    print("\n### Agreement of non-trivial values (zero in both and launch__/device__ attributes left out)\n")
    print("| kernel | >= 50 us | non-trivial values | agree | share |")
    print("|---|---|---:|---:|---:|")
    totals = {True: [0, 0], False: [0, 0]}
    for kernel, (n, ok, long_k) in sorted(nontrivial.items()):
        totals[long_k][0] += n
        totals[long_k][1] += ok
        print(f"| {kernel} | {'yes' if long_k else 'no'} | {n} | {ok} | {100 * ok / n if n else 0:.1f}% |")
    for long_k, label in ((True, "kernels >= 50 us"), (False, "kernels < 50 us")):
        n, ok = totals[long_k]
        print(f"AGREEMENT {label}: {ok} of {n} non-trivial values = {100 * ok / n if n else 0:.1f}%")
    print(f"\n{failures} disagreeing metric(s) on {long_total} kernel(s) of >= 50 us "
          f"({len(summary) - long_total} shorter kernel(s) listed with figures only)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
