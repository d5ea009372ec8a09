#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The default in-kernel recorder leaves a kernel's loop arithmetic where the compiler puts it
without a recorder (issue 23: a mark cost 24 ns after a runtime loop because NVVM redid the next
loop's trip count after every mark; PairKeep brought it to 10.5 ns on the H200).

    tst_iket_markloop.py NVCC SOURCE_DIR

Compiles tests/scripts/iket_markloop.cu to PTX (sm_90a) and, per kernel, finds the outer loop
(the largest backward branch) and the `work` parameter's register. Fails when a kernel that must
hoist (the default recorder, no recorder) computes with that register inside the loop. The pair
recorder, the previous default, is reported (it does not hoist with CUDA 13's NVVM) but not held
to it: it shows the check can tell the two apart.
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
    expect = {"NullRecorder": True, "StoreE6E": True, "StoreE5E": None}  # None: reported only
    names = {"NullRecorder": "no recorder", "StoreE6E": "default (PairKeep)", "StoreE5E": "pair (previous default)"}
    seen = set()
    failed = False
    for name, body in kernels(ptx):
        key = next((k for k in expect if k in name), None)
        if key is None:
            continue
        seen.add(key)
        loop, reg = outer_loop(body), work_register(body)
        if loop is None or reg is None:
            print(f"FAIL {names[key]}: no outer loop or no work parameter found in {name}")
            failed = True
            continue
        redone = arithmetic_on(reg, loop)
        hoisted = not redone
        verdict = "INFO" if expect[key] is None else ("PASS" if hoisted else "FAIL")
        print(f"{verdict} {names[key]}: the work loop's trip count is "
              + ("computed once, before the outer loop" if hoisted else f"redone after every mark: {redone}"))
        failed |= verdict == "FAIL"
    for key in expect:
        if key not in seen:
            print(f"FAIL {names[key]}: kernel not found in the PTX")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
