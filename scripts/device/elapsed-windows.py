#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per launch of a fidelity run (issue 18): the kernel's duration and the elapsed cycles of the
SM and GPC clock counters, in our session and in ncu's export, and the ratio of the SM elapsed
cycles (as sm__cycles_elapsed.avg.per_second x gpu__time_duration) to gpc__cycles_elapsed.max.
Both count the same clock (unit gpc_cycle) over the same kernel, so a ratio away from 1 says the
two counters were read over different windows, or in passes that ran differently.

Usage: elapsed-windows.py WORKDIR NAME...   (WORKDIR = a metrics-compare work-<cache> folder)
"""
import csv
import sqlite3
import sys

WANT = ["gpu__time_duration.sum", "gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg.per_second"]


def ours(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "select km.kernel_id, md.name, km.value from kernel_metric km join metric_def md on md.id = km.metric_id "
        "where md.name in (?, ?, ?) order by km.kernel_id", WANT).fetchall()
    by = {}
    for k, n, v in rows:
        by.setdefault(k, {})[n] = v
    return [by[k] for k in sorted(by)]


def ncu(path):
    rows = list(csv.reader(open(path)))
    hdr = rows[0]
    idx = {w: hdr.index(w) for w in WANT}
    return [{w: float(r[idx[w]]) for w in WANT} for r in rows[2:] if r]


def line(tool, i, m):
    d, g, ps = m[WANT[0]], m[WANT[1]], m[WANT[2]]
    sm = ps * d * 1e-9
    print(f"  {tool:10s} launch {i}: duration {d / 1000:8.1f} us  gpc elapsed {g:9.0f}  sm elapsed {sm:9.0f}"
          f"  sm/gpc {sm / g:6.4f}  gpc GHz {g / d:6.4f}  sm GHz {ps / 1e9:6.4f}")


work = sys.argv[1]
for name in sys.argv[2:]:
    print(name)
    for label, runs in (("ours", [ours(f"{work}/{name}.wscope")]), ("ncu", [ncu(f"{work}/{name}.ncu.csv"), ncu(f"{work}/{name}-2.ncu.csv")])):
        for r, launches in enumerate(runs):
            for i, m in enumerate(launches):
                line(f"{label}{'' if r == 0 else '-2'}", i, m)
