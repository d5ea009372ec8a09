#!/usr/bin/env python3
# usage: perf script -i perf.data --comm "timeline frames" > worker.txt; python3 text_share.py worker.txt
"""Inclusive share of chosen functions in the samples under buildTimelineFrame (perf script text).
usage: incl.py worker.txt"""
import re, sys, collections
def sym(line):
    parts = line.strip().split(None, 1)
    return re.sub(r"\+0x[0-9a-f]+", "", parts[1].split(" (")[0]) if len(parts) > 1 else line
keys = ["sliceLabelImage", "ElisionTable::at", "QFontMetrics::elidedText", "labelAdvance", "horizontalAdvance",
        "drawElided", "renderLabel", "QPainter::drawText", "labelImage", "rowLabelCell", "CountPrefix", "formatDuration",
        "foldLane", "foldLaneReusing", "LodIndex::nextCandidate", "visibleRange", "storeScan", "qstr", "QString::arg",
        "QHash", "QImage::QImage", "QPainter::QPainter", "QPainter::begin", "QFont::QFont", "QFontMetrics::QFontMetrics"]
tot = 0; c = collections.Counter(); callers = collections.Counter()
for stack in open(sys.argv[1]).read().split("\n\n"):
    fr = [sym(l) for l in stack.strip().split("\n")[1:] if l.strip()]
    if not any("buildTimelineFrame" in f for f in fr): continue
    tot += 1
    for k in keys:
        if any(k in f for f in fr): c[k] += 1
    for i, f in enumerate(fr):
        if "horizontalAdvance" in f and i + 1 < len(fr):
            callers["hA <- " + fr[i + 1][:60]] += 1; break
    for i, f in enumerate(fr):
        if "QPainter::drawText" in f and i + 1 < len(fr):
            callers["dT <- " + fr[i + 1][:60]] += 1; break
print(f"buildTimelineFrame: {tot} samples (inclusive shares)")
for k in keys: print(f"  {100.0 * c[k] / max(tot, 1):5.1f}%  {c[k]:5d}  {k}")
for k, n in callers.most_common(10): print(f"  {100.0 * n / max(tot, 1):5.1f}%  {n:5d}  {k}")
