#!/usr/bin/env python3
"""p50 / min / max per binary of each startup mark in ab.sh's output."""
import re, statistics, sys

data, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'== (\w+) run', line)
    if m:
        cur = m.group(1)
        continue
    m = re.search(r'startup\s+([\d.]+) ms  (.*)', line)
    if m and cur:
        data.setdefault(cur, {}).setdefault(m.group(2), []).append(float(m.group(1)))
    m = re.search(r'resident (\d+) MB, ([\d.]+) B/event', line)
    if m and cur:
        data.setdefault(cur, {}).setdefault('resident B/event', []).append(float(m.group(2)))
for which, marks in data.items():
    print(which)
    for mark, v in marks.items():
        print(f'  {mark:22s} p50 {statistics.median(v):7.1f}  min {min(v):7.1f}  max {max(v):7.1f}  (n={len(v)})')
