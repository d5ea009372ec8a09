#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# About 6 s of GPU work of different kinds from PyTorch, for `warpscope-cli record --gpu-metrics`
# (a program the sampler was not written against): bf16 matmuls (tensor pipe), a large
# elementwise add (DRAM), host-to-device and device-to-host copies, a sort, a 0.3 s host pause
# with the GPU idle, and a burst of small kernels. Each phase checks its own result and prints
# its GPU time (CUDA events) so the samples can be compared with what ran.
# Usage: python3 torch_phases.py [--seconds-per-phase S]   (default 1.0)
import argparse
import time

import torch


def timed(name, seconds, step, check):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.perf_counter()
    start.record()
    n = 0
    while True:
        step()
        n += 1
        if n % 8 == 0:
            torch.cuda.synchronize()
            if time.perf_counter() - t0 >= seconds:
                break
    end.record()
    torch.cuda.synchronize()
    ok = check()
    print(f"phase {name}: {n} steps, {start.elapsed_time(end):.1f} ms GPU (CUDA events), check {'ok' if ok else 'FAILED'}",
          flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds-per-phase", type=float, default=1.0)
    s = ap.parse_args().seconds_per_phase
    dev = torch.device("cuda")
    torch.manual_seed(0)
    ok = True

    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    c = torch.empty(8192, 8192, device=dev, dtype=torch.bfloat16)
    ok &= timed("matmul_bf16", s, lambda: torch.matmul(a, b, out=c),
                lambda: torch.allclose(c[:64, :64].float(), (a[:64].float() @ b[:, :64].float()), rtol=2e-2, atol=2.0))
    del a, b, c

    x = torch.ones(1 << 28, device=dev)  # 1 GiB
    y = torch.full((1 << 28,), 2.0, device=dev)
    z = torch.empty_like(x)
    ok &= timed("elementwise_add", s, lambda: torch.add(x, y, out=z), lambda: bool((z[::4096] == 3.0).all()))
    del x, y, z

    host = torch.arange(1 << 26, dtype=torch.float32).pin_memory()  # 256 MiB
    d = torch.empty(1 << 26, device=dev)
    back = torch.empty_like(host).pin_memory()

    def copies():
        d.copy_(host, non_blocking=True)
        back.copy_(d, non_blocking=True)

    ok &= timed("copies_h2d_d2h", s, copies, lambda: bool(torch.equal(back[::65536], host[::65536])))
    del d

    torch.cuda.synchronize()
    time.sleep(0.3)  # the GPU idle: samples should say so

    v = torch.randn(1 << 24, device=dev)
    out = torch.empty_like(v)

    def sort():
        out.copy_(torch.sort(v).values)

    ok &= timed("sort", s, sort, lambda: bool((out[1:] >= out[:-1]).all()))

    small = torch.randn(4096, device=dev)
    acc = torch.zeros(4096, device=dev)

    def burst():
        for _ in range(64):
            acc.add_(small, alpha=1e-3)

    ok &= timed("small_kernels", s, burst, lambda: bool(torch.isfinite(acc).all()))
    print("ok: every phase checked" if ok else "FAIL: a phase's check failed", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
