# SPDX-License-Identifier: MIT
"""Issue 21, item 2, on the H200: warpscope.bench (python/warpscope) against
triton.testing.do_bench and a plain CUDA-event loop with the same flush policy, on the same
callable, alternated in one run: torch.mm bf16 4096^3, a Triton kernel, a small elementwise op.
Then the C++ built-in GEMM (warpscope-cli bench -w gemm) against warpscope.bench on torch.mm with
the same cuBLAS, the same shapes and the same input distribution. Targets (issue 21): medians
within 1 % (2 % for ops under 20 us). Also writes the Python results into a session through
`warpscope-cli bench --from-json` (-o, then --append) and reads them back with warpscope.open.
Prints a table last; writes summary.json and sessions.tar.gz to OUT."""

import json
import os
import statistics
import subprocess
import sys
import tarfile
import time

OUT = sys.argv[1] if len(sys.argv) > 1 else "/tmp/python-bench"
BIN = os.environ.get("WS_BIN", "build/gpu/bin")
CLI = os.path.join(BIN, "warpscope-cli")
SESSIONS = os.path.join(os.path.dirname(os.path.abspath(OUT)), "ws-python-bench-sessions")
REPS = 3  # each comparison is repeated, the three measurers rotating their order every time
FLUSH_BYTES = 256 << 20  # triton's do_bench clears 256 MB; warpscope's default is max(2 x L2, 256 MiB)
summary = {"ops": {}, "cpp_vs_python": {}, "session": {}}


def log(*a):
    print(*a, flush=True)


def rel(a, b):
    return (a - b) / b


def cublas_dir_of_torch():
    import torch
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    (a @ a).sum().item()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1]
            if "libcublas.so" in path and "Lt" not in os.path.basename(path):
                return os.path.dirname(path)
    return None


def uniform_bf16(shape, seed):
    """Like warpscope-bench-workloads: uniform in [-1, 1) in FP32, rounded to bf16."""
    import torch
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.rand(shape, device="cuda", dtype=torch.float32, generator=g) * 2 - 1).to(torch.bfloat16)


def make_ops():
    import torch
    import triton
    import triton.language as tl

    n = 4096
    a, b = uniform_bf16((n, n), 1), uniform_bf16((n, n), 2)
    c = torch.empty((n, n), device="cuda", dtype=torch.bfloat16)

    @triton.jit
    def scale_add(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_elements
        x = tl.load(x_ptr + offs, mask=mask)
        y = tl.load(y_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, alpha * x + y, mask=mask)

    big = 16 << 20  # 16 Mi floats: 192 MiB moved per call, well above L2
    x, y = torch.rand(big, device="cuda"), torch.rand(big, device="cuda")
    z = torch.empty_like(x)
    grid = (triton.cdiv(big, 1024),)

    def triton_axpy():
        scale_add[grid](x, y, z, big, 2.0, BLOCK=1024)
        return z

    small = 1 << 20  # 1 Mi floats: a few us, the "under 20 us" case
    p, q = torch.rand(small, device="cuda"), torch.rand(small, device="cuda")
    r = torch.empty_like(p)

    def mm():
        return torch.mm(a, b, out=c)

    def add():
        return torch.add(p, q, out=r)

    return {
        "torch.mm bf16 4096": (mm, {"flops": 2.0 * n ** 3, "dtype": "bf16", "size": n},
                               lambda: (a.float() @ b.float()).to(torch.bfloat16), lambda: c),
        "triton scale_add 16Mi fp32": (triton_axpy, {"bytes": 12.0 * big, "dtype": "fp32", "size": big},
                                       lambda: 2.0 * x + y, lambda: z),
        "torch.add 1Mi fp32": (add, {"bytes": 12.0 * small, "dtype": "fp32", "size": small},
                               lambda: p + q, lambda: r),
    }


def plain_event_loop(fn, calls=400, warmup=100):
    """What a user would write: flush, event, call, event, all enqueued, one synchronize."""
    import torch
    cache = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(calls)]
    for i in range(calls):
        cache.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends))


def do_bench(fn):
    import triton.testing
    return triton.testing.do_bench(fn, warmup=100, rep=400, return_mode="median") * 1e3


def session_median(path):
    """Median of the first bench run's calls, with plain SQL (the device's python may lack pandas)."""
    import sqlite3
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    values = [v for (v,) in db.execute("SELECT value FROM bench_sample WHERE run_id = (SELECT min(id) FROM bench_run) "
                                       "AND call >= 0")]
    db.close()
    return statistics.median(values)


def ws_bench(fn, label, work, session, append, expected):
    import warpscope
    kw = {"append": session} if append else {"output": session}
    # The correctness check runs before any timing, against the FP32 reference computed once.
    r = warpscope.bench({label: fn}, check=expected, workload=label, timer="cuda-events-per-call", cache="flush",
                        flush_bytes=FLUSH_BYTES, warmup_ms=100, repeat=100, rounds=4, cli=CLI, quiet=True,
                        **work, **kw)
    log(r.cli_output.rstrip())
    return r.median(label)


def compare_ops(ops, session):
    first = True
    for label, (fn, work, expected, produced) in ops.items():
        import torch
        fn()
        torch.cuda.synchronize()
        ref = expected()
        err = (produced().float() - ref.float()).abs().max().item()
        log(f"== {label}: max abs error vs reference {err:.3g}")
        measurers = [("warpscope.bench", None), ("triton.do_bench", lambda: do_bench(fn)),
                     ("event loop", lambda: plain_event_loop(fn))]
        results = {m: [] for m, _ in measurers}
        for rep in range(REPS):
            order = measurers[rep % 3:] + measurers[:rep % 3]
            for name, measure in order:
                t = time.time()
                if name == "warpscope.bench":
                    v = ws_bench(fn, label, work, session, append=not first, expected=ref)
                    first = False
                else:
                    v = measure()
                results[name].append(v)
                log(f"   rep {rep} {name:16s} {v:10.3f} us  ({time.time() - t:.1f} s)")
        ws = statistics.median(results["warpscope.bench"])
        entry = {"medians_us": results, "max_abs_error": err}
        for ref in ("triton.do_bench", "event loop"):
            entry[f"vs {ref}"] = rel(ws, statistics.median(results[ref]))
            entry[f"vs {ref} per rep"] = [rel(a, b) for a, b in zip(results["warpscope.bench"], results[ref])]
        tol = 0.02 if ws < 20 else 0.01
        entry["tolerance"] = tol
        entry["met"] = all(abs(entry[f"vs {r}"]) <= tol for r in ("triton.do_bench", "event loop"))
        summary["ops"][label] = entry


def cpp_vs_python(ops, session):
    """The built-in GEMM (warpscope-bench-workloads, cuBLAS) against torch.mm through warpscope.bench."""
    fn, work, expected, _ = ops["torch.mm bf16 4096"]
    ref = expected()
    cpp, py = [], []
    for rep in range(REPS):
        path = os.path.join(SESSIONS, f"cpp-gemm-{rep}.wscope")
        cmd = [CLI, "bench", "-w", "gemm", "--size", "4096", "--dtype", "bf16", "--impl", "cublas", "--timer",
               "cuda-events-per-call", "--cache", "flush", "--flush-bytes", "256M", "--warmup-ms", "100",
               "--repeat", "100", "--rounds", "4", "-o", path]
        order = [("cpp", cmd), ("py", None)] if rep % 2 == 0 else [("py", None), ("cpp", cmd)]
        for side, c in order:
            if side == "cpp":
                log("$", " ".join(c))
                p = subprocess.run(c, capture_output=True, text=True)
                log(p.stdout.rstrip(), p.stderr.rstrip())
                if p.returncode == 0:
                    cpp.append(session_median(path))
            else:
                py.append(ws_bench(fn, "torch.mm bf16 4096", work, session, append=True, expected=ref))
    summary["cpp_vs_python"] = {"cpp_us": cpp, "python_us": py,
                                "rel": rel(statistics.median(py), statistics.median(cpp)) if cpp and py else None}


def main():
    os.makedirs(OUT, exist_ok=True)
    os.makedirs(SESSIONS, exist_ok=True)
    import torch
    import triton
    import warpscope
    summary["versions"] = {"torch": torch.__version__, "triton": triton.__version__,
                           "gpu": torch.cuda.get_device_name(), "warpscope": warpscope.__file__}
    cdir = cublas_dir_of_torch()
    log("torch", torch.__version__, "triton", triton.__version__, "cuBLAS of torch:", cdir)
    # warpscope-bench-workloads (a child of warpscope-cli) loads the same libcublas as torch.
    os.environ["LD_LIBRARY_PATH"] = ":".join([p for p in [cdir, "/usr/local/cuda/lib64"] if p] +
                                             [os.environ.get("LD_LIBRARY_PATH", "")])
    session = os.path.join(SESSIONS, "python-bench.wscope")
    ops = make_ops()
    compare_ops(ops, session)
    cpp_vs_python(ops, session)

    try:
        with warpscope.open(session) as s:
            runs = s.bench_runs
            summary["session"] = {"runs": len(s.runs), "bench_runs": len(runs),
                                  "medians_us": runs.groupby("implementation")["median"].apply(list).to_dict()}
    except ImportError as e:  # pandas is not part of every torch environment
        summary["session"] = {"error": str(e)}
    with open(os.path.join(OUT, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    with tarfile.open(os.path.join(OUT, "sessions.tar.gz"), "w:gz") as tar:
        for n in sorted(os.listdir(SESSIONS)):
            if n.endswith(".wscope"):
                tar.add(os.path.join(SESSIONS, n), arcname=n)

    log("\n==== agreement (rel = warpscope.bench median / reference median - 1) ====")
    log(f"{'op':30s} {'warpscope':>10s} {'do_bench':>10s} {'events':>10s} {'vs do_bench':>12s} {'vs events':>10s} "
        "target  met")
    for label, e in summary["ops"].items():
        m = {k: statistics.median(v) for k, v in e["medians_us"].items()}
        log(f"{label:30s} {m['warpscope.bench']:10.3f} {m['triton.do_bench']:10.3f} {m['event loop']:10.3f} "
            f"{e['vs triton.do_bench'] * 100:11.2f}% {e['vs event loop'] * 100:9.2f}%  {e['tolerance'] * 100:.0f} %"
            f"  {'yes' if e['met'] else 'NO'}")
    c = summary["cpp_vs_python"]
    if c.get("rel") is not None:
        log(f"C++ built-in GEMM {statistics.median(c['cpp_us']):.3f} us vs warpscope.bench(torch.mm) "
            f"{statistics.median(c['python_us']):.3f} us: {c['rel'] * 100:.2f}% (target 1 %)")


if __name__ == "__main__":
    main()
