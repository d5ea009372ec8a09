#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Host time a recorder setting adds per C++ kernel launch (ws-example-launch-bound, 20,000
empty kernels), paired against the plain program in rotating order:

    launch-overhead.py --bin build/gpu/bin --reps 9 NAME=VAR=VALUE[,VAR=VALUE] ...

"NAME=" alone means the defaults. Prints the median of the paired differences per setting.
"""
import argparse
import os
import re
import statistics
import subprocess


def per_launch(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=90)
    m = re.search(r"host_us_per_launch=([0-9.]+)", p.stdout)
    return float(m.group(1)) if p.returncode == 0 and m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("configs", nargs="+")
    args = ap.parse_args()
    exe = [os.path.join(args.bin, "ws-example-launch-bound"), "--launches", "20000"]
    cli = os.path.join(args.bin, "warpscope-cli")
    configs = {}
    for c in args.configs:
        name, _, rest = c.partition("=")
        configs[name] = dict(kv.split("=", 1) for kv in rest.split(",") if kv)
    added = {n: [] for n in configs}
    for rep in range(args.reps):
        order = ["base"] + list(configs)
        order = order[rep % len(order):] + order[:rep % len(order)]
        got = {}
        for n in order:
            env = dict(os.environ)
            if n == "base":
                got[n] = per_launch(exe, env)
            else:
                env.update(configs[n])
                got[n] = per_launch([cli, "record", "-o", "/tmp/lo.wscope", "--"] + exe, env)
        print(f"rep {rep}: " + ", ".join(f"{n}={v}" for n, v in got.items()), flush=True)
        for n in configs:
            if got.get(n) is not None and got.get("base") is not None:
                added[n].append(got[n] - got["base"])
    print("\n| setting | C++ host us added per launch, median of paired differences | pairs |\n|---|---|---|")
    for n, v in added.items():
        print(f"| {n} {configs[n] or '(defaults)'} | {statistics.median(v):+.3f} | {len(v)} |" if v else f"| {n} | - | 0 |")


if __name__ == "__main__":
    main()
