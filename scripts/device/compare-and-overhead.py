#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the recorder against torch.profiler and measures its overhead, on a GPU machine.

    scripts/device/compare-and-overhead.py --bin build/gpu/bin --out /tmp/cmp [--reps 5]

1. Agreement: examples/python/torch_nvtx.py (--steps 30) once under torch.profiler and once
   under `warpscope-cli record`: kernel names and counts, total kernel time, per-name median
   duration (within 2% or 0.5 us, whichever is larger).
2. Overhead, the tracers alternating in rotating order over --reps repetitions in this one
   process (plain launch times swing by ~25% between runs, so only paired, interleaved runs
   are compared):
   - ws-example-launch-bound (20,000 empty kernels): host us added per launch;
   - examples/python/torch_launch_loop.py (20,000 launches): us added per launch by us and by
     torch.profiler, and the ratio;
   - ws-example-gemm-relu: GEMM median (CUDA events) slowdown.
3. Stress: 100,000 C++ launches and the 20,000-launch PyTorch loop recorded: exit 0 and 0
   dropped records.
Prints a table last; writes every number to OUT/compare.json.
"""
import argparse
import collections
import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(cmd, timeout=90, env=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or "", f"timed out after {timeout} s", time.time() - t0
    return p.returncode, p.stdout, p.stderr, time.time() - t0


def result_of(stdout, key):
    m = re.search(r"RESULT .*?\b" + re.escape(key) + r"=([0-9.eE+-]+)", stdout)
    return float(m.group(1)) if m else None


def session_kernels(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    s = dict(db.execute("select id, text from string"))
    rows = [(s[n], (e - b) / 1e3) for n, b, e in db.execute("select demangled_name, start, end from kernel")]
    meta = dict(db.execute("select key, value from meta"))
    return rows, meta


def trace_kernels(path):
    with open(path) as f:
        trace = json.load(f)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    return [(e["name"], float(e["dur"])) for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"]


def compare(args, out):
    prog = os.path.join(ROOT, "examples/python/torch_nvtx.py")
    steps = ["--steps", "30"]
    trace = os.path.join(out, "torch_profiler_trace.json")
    rc, so, se, _ = run([sys.executable, os.path.join(ROOT, "scripts/device/torch_profiled.py"), trace, prog] + steps)
    if rc != 0:
        return {"error": f"torch.profiler run failed: {se[-2000:]}"}
    ref = trace_kernels(trace)
    sess = os.path.join(out, "torch_compare.wscope")
    rc, so, se, _ = run([args.cli, "record", "-o", sess, "--", sys.executable, prog] + steps)
    if rc != 0:
        return {"error": f"record failed: {se[-2000:]}"}
    ours, meta = session_kernels(sess)

    def by_name(rows):
        d = collections.defaultdict(list)
        for n, dur in rows:
            d[n].append(dur)
        return d

    r, o = by_name(ref), by_name(ours)
    names = sorted(set(r) | set(o))
    count_mismatch = [(n[:90], len(r.get(n, [])), len(o.get(n, []))) for n in names if len(r.get(n, [])) != len(o.get(n, []))]
    within = []
    per_name = []
    for n in sorted(set(r) & set(o)):
        mr, mo = statistics.median(r[n]), statistics.median(o[n])
        tol = max(0.02 * mr, 0.5)
        ok = abs(mo - mr) <= tol
        within.append(ok)
        per_name.append({"name": n[:120], "count_ref": len(r[n]), "count_ours": len(o[n]), "median_ref_us": mr,
                         "median_ours_us": mo, "within": ok})
    total_ref, total_ours = sum(d for _, d in ref), sum(d for _, d in ours)
    return {
        "steps": 30,
        "kernels_ref": len(ref), "kernels_ours": len(ours),
        "names_ref": len(r), "names_ours": len(o), "names_common": len(set(r) & set(o)),
        "count_mismatches": count_mismatch,
        "total_ref_us": total_ref, "total_ours_us": total_ours,
        "total_diff_pct": 100.0 * (total_ours - total_ref) / total_ref if total_ref else None,
        "names_within_tolerance": sum(within), "names_compared": len(within),
        "fraction_within": sum(within) / len(within) if within else 0.0,
        "per_name": per_name,
        "dropped": meta.get("dropped_records"),
    }


def overhead(args, out):
    exe = lambda name: os.path.join(args.bin, name)  # noqa: E731
    loop = os.path.join(ROOT, "examples/python/torch_launch_loop.py")
    rec = lambda path, cmd: [args.cli, "record", "-o", os.path.join(out, path), "--"] + cmd  # noqa: E731
    modes = {
        "cpp": {
            "base": [exe("ws-example-launch-bound"), "--launches", "20000"],
            "ours": rec("ov_cpp.wscope", [exe("ws-example-launch-bound"), "--launches", "20000"]),
        },
        "torch": {
            "base": [sys.executable, loop],
            "ours": rec("ov_torch.wscope", [sys.executable, loop]),
            "torchprof": [sys.executable, os.path.join(ROOT, "scripts/device/torch_profiled.py"), "-", loop],
        },
        "gemm": {
            "base": [exe("ws-example-gemm-relu"), "--iters", "50"],
            "ours": rec("ov_gemm.wscope", [exe("ws-example-gemm-relu"), "--iters", "50"]),
        },
    }
    key = {"cpp": "host_us_per_launch", "torch": "host_us_per_launch", "gemm": "gemm_median_ms"}
    samples = {w: {m: [] for m in modes[w]} for w in modes}
    errors = []
    for rep in range(args.reps):
        for w, ms in modes.items():
            order = list(ms)
            order = order[rep % len(order):] + order[:rep % len(order)]  # rotate who goes first
            for m in order:
                rc, so, se, wall = run(ms[m])
                v = result_of(so, key[w])
                if rc != 0 or v is None:
                    errors.append(f"{w}/{m} rep {rep}: rc={rc} {se[-500:]}")
                    continue
                samples[w][m].append(v)
                print(f"  rep {rep} {w:5s} {m:9s} {key[w]}={v:.4f} ({wall:.1f} s)", flush=True)
    med = {w: {m: (statistics.median(v) if v else None) for m, v in ms.items()} for w, ms in samples.items()}
    return {"samples": samples, "median": med, "errors": errors}


TUNE_CONFIGS = {
    # name: (environment for the recorder, measured on the PyTorch loop too)
    "filter": ({"WS_CUPTI_API_MODE": "filter"}, False),  # enable RUNTIME/DRIVER, disable the rest
    "select": ({}, True),  # the defaults: only the kept API cbids enabled
    "select+pthread-ids": ({"WS_CUPTI_THREAD_IDS": "default"}, True),
    "select+realtime": ({"WS_CUPTI_TIMESTAMPS": "cupti"}, True),
    "select-sync-overhead": ({"WS_CUPTI_KINDS_OFF": "sync,overhead"}, True),
    "minimal": ({"WS_CUPTI_THREAD_IDS": "default", "WS_CUPTI_TIMESTAMPS": "cupti",
                 "WS_CUPTI_KINDS_OFF": "sync,overhead"}, True),
}


def tune(args, out):
    """What each CUPTI setting costs: every configuration against the plain program, rotating
    order, C++ launch loop x5 and PyTorch loop x3. Returns the per-configuration medians of the
    paired differences and the cheapest configuration on the PyTorch loop."""
    cpp = [os.path.join(args.bin, "ws-example-launch-bound"), "--launches", "20000"]
    loop = [sys.executable, os.path.join(ROOT, "examples/python/torch_launch_loop.py")]
    added = {w: {c: [] for c in TUNE_CONFIGS} for w in ("cpp", "torch")}
    broken = set()
    for w, cmd, reps in (("cpp", cpp, 5), ("torch", loop, 3)):
        for rep in range(reps):
            names = ["base"] + [c for c, (_, t) in TUNE_CONFIGS.items() if w == "cpp" or t]
            names = names[rep % len(names):] + names[:rep % len(names)]
            got = {}
            for c in names:
                env = dict(os.environ)
                if c == "base":
                    full = cmd
                else:
                    env.update(TUNE_CONFIGS[c][0])
                    full = [args.cli, "record", "-o", os.path.join(out, "tune.wscope"), "--"] + cmd
                rc, so, se, wall = run(full, env=env)
                v = result_of(so, "host_us_per_launch")
                if rc == 0 and v is not None:
                    got[c] = v
                if c != "base" and rc == 0:
                    # A setting is only a candidate if the session still has the launches' API calls.
                    db = sqlite3.connect(f"file:{os.path.join(out, 'tune.wscope')}?mode=ro", uri=True)
                    apis = db.execute("select count(*) from api_call").fetchone()[0]
                    kernels = db.execute("select count(*) from kernel").fetchone()[0]
                    db.close()
                    if apis < 20000 or kernels < 20000:
                        broken.add(c)
                        print(f"  tune {w} {c}: only {apis} API calls / {kernels} kernels recorded", flush=True)
            print(f"  tune {w} rep {rep}: " + ", ".join(f"{c}={v:.3f}" for c, v in got.items()), flush=True)
            if "base" in got:
                for c, v in got.items():
                    if c != "base":
                        added[w][c].append(v - got["base"])
    med = {w: {c: (statistics.median(v) if v else None) for c, v in cs.items()} for w, cs in added.items()}
    candidates = [c for c in med["torch"] if med["torch"][c] is not None and c not in broken]
    best = min(candidates, key=lambda c: (med["torch"][c], med["cpp"][c] or 0)) if candidates else "select"
    return {"added_us_per_launch": added, "median_added": med, "best": best, "best_env": TUNE_CONFIGS[best][0],
            "broken": sorted(broken)}


def stress(args, out):
    res = {}
    cases = {
        "cpp_100k": ([os.path.join(args.bin, "ws-example-launch-bound"), "--launches", "100000"], 101000),
        "torch_loop_20k": ([sys.executable, os.path.join(ROOT, "examples/python/torch_launch_loop.py")], 21000),
    }
    for name, (cmd, min_kernels) in cases.items():
        path = os.path.join(out, f"stress_{name}.wscope")
        rc, so, se, wall = run([args.cli, "record", "-o", path, "--"] + cmd, timeout=150)
        entry = {"rc": rc, "wall_s": wall, "stderr_tail": se[-600:]}
        if rc == 0 and os.path.exists(path):
            rows, meta = session_kernels(path)
            db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            entry.update({
                "kernels": len(rows), "min_kernels": min_kernels,
                "dropped": meta.get("dropped_records"), "target_exit": meta.get("target_exit"),
                "without_end": meta.get("processes_without_end_record"),
                "api_calls": db.execute("select count(*) from api_call").fetchone()[0],
                "session_bytes": os.path.getsize(path),
            })
            os.remove(path)
        res[name] = entry
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/gpu/bin"))
    ap.add_argument("--cli", default=None)
    ap.add_argument("--out", default="/tmp/ws-compare")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--skip", default="", help="comma list of: compare,overhead,stress")
    ap.add_argument("--tune", action="store_true",
                    help="only measure the CUPTI settings and write OUT/best.env with the cheapest")
    args = ap.parse_args()
    args.cli = args.cli or os.path.join(args.bin, "warpscope-cli")
    os.makedirs(args.out, exist_ok=True)
    skip = set(args.skip.split(","))
    report = {}
    if args.tune:
        t = tune(args, args.out)
        with open(os.path.join(args.out, "tune.json"), "w") as f:
            json.dump(t, f, indent=1)
        with open(os.path.join(args.out, "best.env"), "w") as f:
            f.write("".join(f"export {k}={v}\n" for k, v in t["best_env"].items()))
        print("\n| CUPTI setting | C++ added us/launch (median of 5) | PyTorch added us/launch (median of 3) |")
        print("|---|---|---|")
        for c in TUNE_CONFIGS:
            fmt = lambda v: "-" if v is None else f"{v:+.3f}"  # noqa: E731
            print(f"| {c} | {fmt(t['median_added']['cpp'][c])} | {fmt(t['median_added']['torch'][c])} |")
        print(f"best: {t['best']} {t['best_env']}; incomplete sessions with: {t['broken']}")
        return
    if "stress" not in skip:
        print("== stress", flush=True)
        report["stress"] = stress(args, args.out)
    if "compare" not in skip:
        print("== compare with torch.profiler", flush=True)
        report["compare"] = compare(args, args.out)
    if "overhead" not in skip:
        print("== overhead", flush=True)
        report["overhead"] = overhead(args, args.out)
    with open(os.path.join(args.out, "compare.json"), "w") as f:
        json.dump(report, f, indent=1)

    tuned = {k: v for k, v in os.environ.items() if k.startswith("WS_CUPTI_")}
    print(f"\nrecorder settings: {tuned or 'defaults'}")
    print("\n| check | measured | goal |\n|---|---|---|")
    for name, e in report.get("stress", {}).items():
        print(f"| stress {name} | rc={e.get('rc')} kernels={e.get('kernels')} dropped={e.get('dropped')} "
              f"api={e.get('api_calls')} exit='{e.get('target_exit')}' {e.get('wall_s', 0):.1f} s | exit 0, 0 dropped |")
    c = report.get("compare", {})
    if "error" in c:
        print(f"| compare | ERROR {c['error'][:200]} | |")
    elif c:
        print(f"| kernel count torch.profiler vs ours | {c['kernels_ref']} vs {c['kernels_ours']} "
              f"({c['names_common']}/{c['names_ref']} names common, {len(c['count_mismatches'])} count mismatches) | equal |")
        print(f"| total kernel time | {c['total_ref_us']:.1f} vs {c['total_ours_us']:.1f} us "
              f"({c['total_diff_pct']:+.3f}%) | within 1% |")
        print(f"| per-name median within max(2%, 0.5 us) | {c['names_within_tolerance']}/{c['names_compared']} "
              f"({100 * c['fraction_within']:.0f}%) over {c['steps']} steps | >= 85% |")
    o = report.get("overhead", {})
    if o:
        m = o["median"]
        def delta(w, mode):
            b, x = m[w].get("base"), m[w].get(mode)
            return None if b is None or x is None else x - b
        d = delta("cpp", "ours")
        if d is not None:
            print(f"| C++ launch (20k empty kernels) added per launch | {d:+.3f} us "
                  f"(base {m['cpp']['base']:.3f}, ours {m['cpp']['ours']:.3f}; median of {args.reps}) | <= 1.0 us |")
        do, dt = delta("torch", "ours"), delta("torch", "torchprof")
        if do is not None and dt is not None:
            ratio = do / dt if dt else float("nan")
            print(f"| PyTorch loop (20k launches) added per launch | ours {do:+.3f} us, torch.profiler {dt:+.3f} us, "
                  f"ratio {ratio:.2f} (base {m['torch']['base']:.3f}) | ours <= 0.9x torch.profiler |")
        g = delta("gemm", "ours")
        if g is not None:
            print(f"| GEMM 4096^3 bf16 median | {m['gemm']['base']:.4f} -> {m['gemm']['ours']:.4f} ms "
                  f"({100 * g / m['gemm']['base']:+.2f}%) | <= 1% |")
        for e in o["errors"]:
            print(f"| error | {e[:300]} | |")


if __name__ == "__main__":
    main()
