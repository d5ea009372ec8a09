#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Where the warps of each sampled kernel stall, instruction by instruction: reads the source
# counters of a session written by `warpscope-cli profile --pc-sampling` (docs/source-counters.md)
# and prints, per SASS function, its samples by stall reason, then every sampled instruction with
# its samples summed over the launches and its three largest stall reasons. Used by scripts/device/jobs/iket-cost.sh to show what an
# in-kernel event costs (issue 23).
# Usage: sass-stalls.py SESSION [NAME_SUBSTRING]
import sqlite3
import sys
from collections import defaultdict

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
want = sys.argv[2] if len(sys.argv) > 2 else ""
text = dict(db.execute("select id, text from string"))
prefix = "smsp__pcsamp_warps_issue_stalled_"
for fid, name in db.execute("select id, name from sass_function order by id"):
    fname = text.get(name, str(name))
    if want not in fname:
        continue
    launches = db.execute("select count(distinct kernel_id) from source_counter where function_id=?", (fid,)).fetchone()[0]
    per = defaultdict(lambda: defaultdict(int))
    for pc, counter, value in db.execute(
            "select pc_offset, counter, value from source_counter where function_id=?", (fid,)):
        c = text.get(counter, "")
        if c.endswith("_not_issued"):
            continue
        per[pc][c[len(prefix):] if c.startswith(prefix) else c] += value
    total = sum(sum(r.values()) for r in per.values())
    print(f"== {fname}: {launches} launch(es), {total} samples")
    reasons = defaultdict(int)
    for r in per.values():
        for k, v in r.items():
            reasons[k] += v
    print("   by reason: " + ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda kv: -kv[1])))
    for pc, sass in db.execute(
            "select pc_offset, text from sass_instruction where function_id=? order by pc_offset", (fid,)):
        r = per.get(pc, {})
        n = sum(r.values())
        if n == 0:
            continue
        top = ", ".join(f"{k} {v}" for k, v in sorted(r.items(), key=lambda kv: -kv[1])[:3])
        share = 100.0 * n / total if total else 0.0
        print(f"  {pc:#06x} {n:8d} {share:5.1f}%  {sass:<60s} {top}")
    print()
