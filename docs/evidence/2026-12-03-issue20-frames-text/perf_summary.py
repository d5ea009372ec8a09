#!/usr/bin/env python3
"""Where the frame CPU goes, from `perf script` of a `perf record --call-graph dwarf` of
bench_ui_timeline: samples under TimelineView::paintEvent (GUI thread) and under
buildTimelineFrame (thread 'timeline frames'), grouped by the two frames below the root.
usage: perf script -i perf.data --comm bench_ui_timeli > gui.txt
       perf script -i perf.data --comm 'timeline frames' > worker.txt
       perf_summary.py gui.txt worker.txt"""
import collections
import re
import sys


def sym(line):
    parts = line.strip().split(None, 1)
    return re.sub(r"\+0x[0-9a-f]+", "", parts[1].split(" (")[0]) if len(parts) > 1 else line


for path, root in zip(sys.argv[1:], ("TimelineView::paintEvent", "buildTimelineFrame")):
    groups = collections.Counter()
    total = 0
    for stack in open(path).read().split("\n\n"):
        frames = [sym(l) for l in stack.strip().split("\n")[1:] if l.strip()]
        at = [k for k, f in enumerate(frames) if root in f]
        if not at:
            continue
        total += 1
        groups[" <- ".join(x[:48] for x in frames[max(0, at[0] - 2) : at[0]]) or "(self)"] += 1
    print(f"{root}: {total} samples")
    for what, n in groups.most_common(14):
        print(f"  {100.0 * n / max(total, 1):5.1f}%  {n:5d}  {what}")
    print()
