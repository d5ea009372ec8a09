#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes an Nsight Compute report (.ncu-rep) as CSV with every value at full precision.

  metrics-ncu-export.py REPORT.ncu-rep OUT.csv

`ncu --import R --csv --page raw --print-units base` rounds many values to two decimals
(0.0579 prints as 0.06), which alone makes small ratios differ by several percent. This reads
the report through ncu's own Python interface (extras/python/ncu_report.py of the ncu install)
and writes the same wide layout as the raw page: a header row ("ID", "Kernel Name",
"Block Size", "Grid Size", then one column per metric), a units row, one row per profiled
launch, values printed with repr() (shortest round-trip form).
"""
import csv
import glob
import os
import shutil
import sys


def find_ncu_report():
    candidates = []
    ncu = shutil.which("ncu")
    if ncu:
        real = os.path.realpath(ncu)
        candidates += glob.glob(os.path.join(os.path.dirname(real), "extras", "python"))
        candidates += glob.glob(os.path.join(os.path.dirname(real), "..", "nsight-compute*", "extras", "python"))
    candidates += glob.glob("/usr/local/cuda*/nsight-compute*/extras/python")
    candidates += glob.glob("/opt/nvidia/nsight-compute/*/extras/python")
    for c in candidates:
        if os.path.exists(os.path.join(c, "ncu_report.py")):
            return c
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    where = find_ncu_report()
    if not where:
        print("ncu_report.py not found next to ncu", file=sys.stderr)
        return 1
    sys.path.insert(0, where)
    import ncu_report  # noqa: E402  (found at run time)

    ctx = ncu_report.load_report(sys.argv[1])
    rows, units, names = [], {}, []
    seen = set()
    rid = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            act = rng.action_by_idx(a)
            try:
                kname = act.name(ncu_report.IAction.NameBase_DEMANGLED)
            except Exception:
                kname = act.name()
            vals = {}
            for m in act.metric_names():
                metric = act.metric_by_name(m)
                try:
                    v = metric.as_double()
                except Exception:
                    continue
                if isinstance(v, float) and v != v:
                    continue
                vals[m] = v
                units.setdefault(m, metric.unit())
                if m not in seen:
                    seen.add(m)
                    names.append(m)
            block = grid = ""
            for dim, key in (("block", "launch__block_dim_"), ("grid", "launch__grid_dim_")):
                xyz = [vals.get(key + c) for c in "xyz"]
                if all(x is not None for x in xyz):
                    s = "(" + ", ".join(str(int(x)) for x in xyz) + ")"
                    block, grid = (s, grid) if dim == "block" else (block, s)
            rows.append((rid, kname, block, grid, vals))
            rid += 1
    names.sort()
    with open(sys.argv[2], "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", "Block Size", "Grid Size"] + names)
        w.writerow(["", "", "", ""] + [units.get(n, "") for n in names])
        for rid, kname, block, grid, vals in rows:
            w.writerow([rid, kname, block, grid] + [repr(vals[n]) if n in vals else "" for n in names])
    print(f"{len(rows)} launch(es), {len(names)} metric(s) -> {sys.argv[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
