#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The default in-kernel recorder leaves a kernel's loop arithmetic where the compiler puts it
without a recorder (issue 23: a mark cost 24 ns after a runtime loop because NVVM redid the next
loop's trip count after every mark; PairKeep brought it to 10.5 ns on the H200).

    tst_iket_markloop.py NVCC SOURCE_DIR

Compiles tests/scripts/iket_markloop.cu to PTX (sm_90a): three loop shapes (a mark then work, two
marks each followed by work, a range around work then a mark and work), each without a recorder,
with the default and with the pair recorder. Per kernel it finds the outer loop (the largest
backward branch) and the `work` parameter's register, and fails when a kernel that must hoist (the
default recorder, no recorder) computes with that register inside the loop. The pair recorder,
the previous default, is reported but not held to it (with CUDA 13's NVVM it redoes the arithmetic
in the first two shapes): it shows the check tells the two apart.
"""
import re
import subprocess
import sys
import tempfile


def kernels(ptx):
    parts = re.split(r"^\.visible \.entry ", ptx, flags=re.M)[1:]
    for part in parts:
        yield part.split("(", 1)[0], part


def outer_loop(body):
    lines = body.split("\n")
    labels = {}
    best = None
    for i, line in enumerate(lines):
        m = re.match(r"^(\$L__\w+):", line)
        if m:
            labels[m.group(1)] = i
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__\w+);", line)
        if m and m.group(1) in labels:  # a backward branch: a loop from the label to here
            start = labels[m.group(1)]
            if best is None or i - start > best[1] - best[0]:
                best = (start, i)
    return lines[best[0] : best[1] + 1] if best else None


def work_register(body):
    m = re.search(r"ld\.param\.u32\s+(%r\d+), \[\w+_param_1\];", body)
    return m.group(1) if m else None


def arithmetic_on(reg, loop):
    pattern = re.compile(r"^\s*(add|sub|and|or|mul|mad|shl|shr|min|max)\.\S+\s+%\w+,.*" + re.escape(reg) + r"\b")
    return [line.strip() for line in loop if pattern.match(line)]


def main():
    nvcc, root = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/markloop.ptx"
        cmd = [nvcc, "-O2", "-std=c++17", f"-I{root}/collectors/iket/include",
               "-gencode=arch=compute_90a,code=sm_90a", "-ptx", f"{root}/tests/scripts/iket_markloop.cu", "-o", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL nvcc:", " ".join(cmd), r.stderr, sep="\n")
            return 1
        ptx = open(out).read()
    # Per kernel shape: the default recorder and no recorder must hoist; the pair recorder is
    # reported only (None).
    recorders = {"NullRecorder": ("no recorder", True), "StoreE6E": ("default (PairKeep)", True),
                 "StoreE5E": ("pair (previous default)", None)}
    shapes = ("markLoop", "twoMarks", "rangeAndMark")
    seen = set()
    failed = False
    for name, body in kernels(ptx):
        shape = next((s for s in shapes if s in name), None)
        key = next((k for k in recorders if k in name), None)
        if shape is None or key is None:
            continue
        seen.add((shape, key))
        label, must = recorders[key]
        loop, reg = outer_loop(body), work_register(body)
        if loop is None or reg is None:
            print(f"FAIL {shape}, {label}: no outer loop or no work parameter found in {name}")
            failed = True
            continue
        redone = arithmetic_on(reg, loop)
        verdict = "INFO" if must is None else ("PASS" if not redone else "FAIL")
        print(f"{verdict} {shape}, {label}: the work loop's trip count is "
              + ("computed once, before the outer loop" if not redone else f"redone every step: {redone}"))
        failed |= verdict == "FAIL"
    for shape in shapes:
        for key, (label, _) in recorders.items():
            if (shape, key) not in seen:
                print(f"FAIL {shape}, {label}: kernel not found in the PTX")
                failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
