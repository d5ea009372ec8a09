#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# The SASS of one function from `cuobjdump -sass` output, each instruction with its scheduling
# control bits decoded (sm_70 and later: stall cycles, yield, write/read barrier, wait mask): what
# the warp waits for between two instructions. Used for issue 23's spin reference
# (docs/evidence/2026-12-03-iket-sass).
# Usage: sass-control.py FILE.sass FUNCTION_REGEX [FROM_HEX TO_HEX]
import re
import sys

lines = open(sys.argv[1]).read().split("\n")
fn = re.compile(sys.argv[2])
lo = int(sys.argv[3], 16) if len(sys.argv) > 3 else 0
hi = int(sys.argv[4], 16) if len(sys.argv) > 4 else 1 << 40
inside = False
print("addr  stall yield wbar rbar wait-mask  instruction")
for i, line in enumerate(lines):
    if "Function :" in line:
        inside = fn.search(line) is not None
        if inside:
            print(line.strip())
        continue
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/", line)
    if not (inside and m) or i + 1 >= len(lines):
        continue
    addr = int(m.group(1), 16)
    second = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1])
    if not second or not lo <= addr <= hi:
        continue
    ctl = int(second.group(1), 16) >> 41  # the top 23 bits of the 128-bit instruction
    stall, yld, wb, rb, wait = ctl & 0xF, (ctl >> 4) & 1, (ctl >> 5) & 7, (ctl >> 8) & 7, (ctl >> 11) & 0x3F
    bar = lambda b: "-" if b == 7 else str(b)
    print(f"{addr:04x}  S{stall:<3d}  Y{yld}    W{bar(wb)}   R{bar(rb)}   {wait:06b}    {m.group(2).strip()}")
