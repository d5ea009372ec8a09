#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PyTorch and Triton operations the metric profiler was never tuned on (issue 18's second suite).

    python3 fidelity_ops.py --list              # one line per op: name, what it is
    python3 fidelity_ops.py OP [--launches N]   # N launches of OP (default 4), then its check

Written as a user's own program: inputs are made on the host and copied over (no GPU kernel of
ours besides the op's), every launch of the op is the same, and the result of the last one is
checked on the host (in float64 where it matters), so a profiler that does not restore memory
between its passes fails the check. Nothing else runs on the GPU, so the program can be profiled
without a kernel filter: every kernel an op launches (cuDNN's transforms, cub's passes) is in the
table, the short ones in its separate "< 50 us" row.
"""
import argparse
import sys

try:
    import torch
except ImportError:  # --list works without PyTorch; running an op says what is missing
    torch = None

DEV = "cuda"


def host_randn(*shape, dtype=None, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=g, dtype=torch.float32)
    return x if dtype is None else x.to(dtype)


def close(name, got, ref, tol):
    got = got.double()
    ref = ref.double()
    err = ((got - ref).norm() / ref.norm().clamp_min(1e-30)).item()
    if not err < tol:
        raise SystemExit(f"{name}: check failed: relative error {err:.3e} (tolerance {tol:g})")
    return err


# Each op: (setup() -> state, run(state) -> output, check(state, output) -> relative error).


def layernorm():
    x = host_randn(8192, 4096)
    w = host_randn(4096, seed=1)
    b = host_randn(4096, seed=2)
    xd, wd, bd = x.to(DEV), w.to(DEV), b.to(DEV)

    def run():
        return torch.nn.functional.layer_norm(xd, (4096,), wd, bd, 1e-5)

    def check(y):
        ref = torch.nn.functional.layer_norm(x.double(), (4096,), w.double(), b.double(), 1e-5)
        return close("layernorm", y.cpu(), ref, 1e-5)

    return run, check


def gelu_bf16():
    x = host_randn(64 * 1024 * 1024, dtype=torch.bfloat16)
    xd = x.to(DEV)

    def run():
        return torch.nn.functional.gelu(xd)

    def check(y):
        ref = torch.nn.functional.gelu(x.float())
        return close("gelu_bf16", y.cpu(), ref, 1e-2)

    return run, check


def sum_rows():
    # A column reduction over 512 MiB: reads everything once, writes 32 KiB.
    x = host_randn(16384, 8192)
    xd = x.to(DEV)

    def run():
        return xd.sum(dim=0)

    def check(y):
        return close("sum_rows", y.cpu(), x.double().sum(dim=0), 1e-5)

    return run, check


def conv2d_fp16():
    # cuDNN's implicit GEMM on tensor cores, channels-last fp16.
    torch.backends.cudnn.benchmark = False
    x = host_randn(32, 256, 56, 56, dtype=torch.float16)
    w = host_randn(256, 256, 3, 3, dtype=torch.float16, seed=1) * 0.05
    xd = x.to(DEV).contiguous(memory_format=torch.channels_last)
    wd = w.to(DEV).contiguous(memory_format=torch.channels_last)

    def run():
        return torch.nn.functional.conv2d(xd, wd, padding=1)

    def check(y):
        # Every output channel at a few hundred positions, in float64 on the host.
        y = y.cpu().double()
        g = torch.Generator().manual_seed(7)
        n = torch.randint(0, 32, (256,), generator=g)
        i = torch.randint(0, 56, (256,), generator=g)
        j = torch.randint(0, 56, (256,), generator=g)
        xp = torch.nn.functional.pad(x.double(), (1, 1, 1, 1))
        wd64 = w.double()
        got, ref = [], []
        for a, b, c in zip(n.tolist(), i.tolist(), j.tolist()):
            patch = xp[a, :, b:b + 3, c:c + 3]
            ref.append((wd64 * patch).sum(dim=(1, 2, 3)))
            got.append(y[a, :, b, c])
        return close("conv2d_fp16", torch.stack(got), torch.stack(ref), 2e-3)

    return run, check


def sdpa_bf16():
    # Scaled dot-product attention (the flash-attention kernel), causal, bf16.
    q = host_randn(4, 16, 2048, 128, dtype=torch.bfloat16)
    k = host_randn(4, 16, 2048, 128, dtype=torch.bfloat16, seed=1)
    v = host_randn(4, 16, 2048, 128, dtype=torch.bfloat16, seed=2)
    qd, kd, vd = q.to(DEV), k.to(DEV), v.to(DEV)

    def run():
        return torch.nn.functional.scaled_dot_product_attention(qd, kd, vd, is_causal=True)

    def check(o):
        # Two heads, every query row, in float64.
        o = o.cpu()
        got, ref = [], []
        for b, h in ((0, 0), (3, 15)):
            s = (q[b, h].double() @ k[b, h].double().T) / 128 ** 0.5
            s = s.masked_fill(torch.ones(2048, 2048, dtype=torch.bool).triu(1), float("-inf"))
            ref.append(torch.softmax(s, dim=1) @ v[b, h].double())
            got.append(o[b, h])
        return close("sdpa_bf16", torch.stack(got), torch.stack(ref), 2e-2)

    return run, check


def embedding_gather():
    # Random rows of a 1 GiB table: a gather with little reuse.
    table = host_randn(1024 * 1024, 256)
    g = torch.Generator().manual_seed(3)
    idx = torch.randint(0, 1024 * 1024, (262144,), generator=g)
    td, id_ = table.to(DEV), idx.to(DEV)

    def run():
        return torch.nn.functional.embedding(id_, td)

    def check(y):
        return close("embedding_gather", y.cpu(), table[idx], 1e-7)

    return run, check


def index_add_atomics():
    # Scatter-add of 32M values into 4,096 bins: atomics on a few hot lines.
    src = host_randn(32 * 1024 * 1024)
    g = torch.Generator().manual_seed(4)
    idx = torch.randint(0, 4096, (32 * 1024 * 1024,), generator=g)
    sd, id_ = src.to(DEV), idx.to(DEV)
    base = torch.zeros(4096)
    bd = base.to(DEV)

    def run():
        return bd.index_add(0, id_, sd)

    def check(y):
        ref = torch.zeros(4096, dtype=torch.float64).index_add_(0, idx, src.double())
        return close("index_add_atomics", y.cpu(), ref, 1e-4)

    return run, check


def dgemm():
    a = host_randn(4096, 4096, dtype=torch.float64)
    b = host_randn(4096, 4096, dtype=torch.float64, seed=1)
    ad, bd = a.to(DEV), b.to(DEV)

    def run():
        return ad @ bd

    def check(c):
        c = c.cpu()
        rows = torch.arange(0, 4096, 97)
        return close("dgemm", c[rows], a[rows] @ b, 1e-12)

    return run, check


def cumsum():
    x = host_randn(8192, 8192)
    xd = x.to(DEV)

    def run():
        return torch.cumsum(xd, dim=1)

    def check(y):
        return close("cumsum", y.cpu(), x.double().cumsum(dim=1), 1e-5)

    return run, check


def triton_softmax():
    # A hand-written Triton kernel: one program per row, the row in registers.
    import triton
    import triton.language as tl

    @triton.jit
    def softmax_kernel(out, inp, stride, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(inp + row * stride + cols, mask=mask, other=-float("inf"))
        x = x - tl.max(x, axis=0)
        e = tl.exp(x)
        tl.store(out + row * stride + cols, e / tl.sum(e, axis=0), mask=mask)

    x = host_randn(16384, 3000)
    xd = x.to(DEV)
    yd = torch.empty_like(xd)

    def run():
        softmax_kernel[(16384,)](yd, xd, xd.stride(0), 3000, BLOCK=4096, num_warps=8)
        return yd

    def check(y):
        return close("triton_softmax", y.cpu(), torch.softmax(x.double(), dim=1), 1e-5)

    return run, check


def triton_matmul():
    # A hand-written Triton GEMM on tensor cores (tl.dot, fp16 in, fp32 accumulate): the kind of
    # kernel a user writes, where the suites' other GEMMs are cuBLAS's and cuDNN's. 4096^3 splits
    # evenly into its tiles, so it needs no masks.
    import triton
    import triton.language as tl

    @triton.jit
    def matmul_kernel(a, b, c, K, sam, sak, sbk, sbn, scm, scn,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            x = tl.load(a + rm[:, None] * sam + (k + rk)[None, :] * sak)
            y = tl.load(b + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn, acc.to(tl.float16))

    n = 4096
    a = host_randn(n, n, dtype=torch.float16)
    b = host_randn(n, n, dtype=torch.float16, seed=1)
    ad, bd = a.to(DEV), b.to(DEV)
    cd = torch.empty(n, n, dtype=torch.float16, device=DEV)

    def run():
        matmul_kernel[(n // 128, n // 128)](ad, bd, cd, n, ad.stride(0), ad.stride(1), bd.stride(0),
                                            bd.stride(1), cd.stride(0), cd.stride(1),
                                            BM=128, BN=128, BK=64, num_warps=8, num_stages=3)
        return cd

    def check(c):
        rows = torch.arange(0, n, 61)
        return close("triton_matmul", c.cpu()[rows], a[rows].double() @ b.double(), 2e-3)

    return run, check


def sort_radix():
    # torch.sort of 16M floats: CUB's radix sort, several kernels a launch (histogram, then one
    # pass per digit with decoupled look-back between blocks), scratch from the caching allocator.
    x = host_randn(16 * 1024 * 1024)
    xd = x.to(DEV)

    def run():
        return torch.sort(xd).values

    def check(y):
        return close("sort_radix", y.cpu(), torch.sort(x).values, 1e-12)

    return run, check


OPS = {
    "layernorm": (layernorm, "ATen layer norm, fp32 8192 x 4096"),
    "gelu_bf16": (gelu_bf16, "elementwise GELU over 64M bf16 values"),
    "sum_rows": (sum_rows, "column sum of a 16384 x 8192 fp32 matrix (ATen reduce)"),
    "conv2d_fp16": (conv2d_fp16, "cuDNN 3x3 convolution, fp16 channels-last, 32 x 256 x 56 x 56"),
    "sdpa_bf16": (sdpa_bf16, "causal scaled dot-product attention (flash), bf16 4 x 16 x 2048 x 128"),
    "embedding_gather": (embedding_gather, "embedding lookup: 262,144 random rows of a 1 GiB table"),
    "index_add_atomics": (index_add_atomics, "index_add of 32M values into 4,096 bins (atomics)"),
    "dgemm": (dgemm, "cuBLAS FP64 GEMM 4096^3"),
    "cumsum": (cumsum, "row prefix sum, fp32 8192 x 8192 (ATen scan)"),
    "triton_softmax": (triton_softmax, "hand-written Triton row softmax, 16384 x 3000 fp32"),
    "triton_matmul": (triton_matmul, "hand-written Triton GEMM on tensor cores, fp16 4096^3, fp32 accumulate"),
    "sort_radix": (sort_radix, "torch.sort of 16M fp32 values (CUB radix sort, several kernels)"),
}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("op", nargs="?")
    p.add_argument("--list", action="store_true")
    p.add_argument("--launches", type=int, default=4)
    a = p.parse_args()
    if a.list or not a.op:
        for name, (_, what) in OPS.items():
            print(f"{name}\t{what}")
        return 0
    if a.op not in OPS:
        print(f"fidelity_ops.py: unknown op '{a.op}' (--list names them)", file=sys.stderr)
        return 2
    if torch is None or not torch.cuda.is_available():
        print("fidelity_ops.py: needs PyTorch with a CUDA GPU", file=sys.stderr)
        return 2
    run, check = OPS[a.op][0]()
    out = None
    for _ in range(a.launches):
        out = run()
    torch.cuda.synchronize()
    err = check(out)
    print(f"{a.op}: ok ({a.launches} launches, relative error {err:.2e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
