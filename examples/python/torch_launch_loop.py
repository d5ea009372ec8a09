#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A launch-bound PyTorch loop: --launches small in-place adds (default 20,000, one kernel
each) on a tiny tensor, after a warm-up. Prints the host time per launch, which is what a
tracer adds to: "RESULT launches=N host_us_per_launch=X"."""
import argparse
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--launches", type=int, default=20000)
    args = p.parse_args()
    x = torch.zeros(256, device="cuda")
    for _ in range(1000):
        x.add_(1.0)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(args.launches):
        x.add_(1.0)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    expected = 1000.0 + args.launches
    if not bool((x == expected).all()):
        raise SystemExit(f"wrong result: {x[0].item()} != {expected}")
    print(f"RESULT launches={args.launches} host_us_per_launch={(t1 - t0) / args.launches * 1e6:.4f}")


if __name__ == "__main__":
    main()
