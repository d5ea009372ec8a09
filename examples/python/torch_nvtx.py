#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An ordinary PyTorch program with torch.cuda.nvtx ranges: a BF16 matmul then a ReLU per
step, warm-up steps first, then --steps timed steps (default 30). Nothing in it knows about
Warpscope; record it with

    warpscope-cli record -o torch.wscope -- python3 examples/python/torch_nvtx.py

and the session shows the "step N", "mm" and "relu" ranges above the kernels they launched.
"""
import argparse
import time

import torch


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=4096)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    args = p.parse_args()

    dev = torch.device("cuda")
    torch.cuda.nvtx.range_push("setup")
    a = torch.randn(args.size, args.size, device=dev, dtype=torch.bfloat16)
    b = torch.randn(args.size, args.size, device=dev, dtype=torch.bfloat16)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()

    # Correctness first: one step against a float64 reference on sampled rows.
    c = torch.relu(a @ b)
    rows = torch.randint(0, args.size, (16,), device=dev)
    ref = torch.relu(a[rows].double() @ b.double())
    err = (c[rows].double() - ref).norm() / ref.norm()
    if not err < 1e-2:
        raise SystemExit(f"check failed: relative error {err:.3e}")
    torch.cuda.nvtx.mark("check passed")

    def step(i):
        torch.cuda.nvtx.range_push(f"step {i}")
        with torch.cuda.nvtx.range("mm"):
            c = a @ b
        with torch.cuda.nvtx.range("relu"):
            c = torch.relu(c)
        torch.cuda.nvtx.range_pop()
        return c

    for i in range(args.warmup):
        step(-1 - i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(args.steps):
        step(i)
    torch.cuda.synchronize()
    dt = time.perf_counter() - t0
    print(f"RESULT steps={args.steps} ms_per_step={dt / args.steps * 1e3:.4f} check_rel_err={err:.2e}")


if __name__ == "__main__":
    main()
