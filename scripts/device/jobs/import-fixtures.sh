#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Produces the real import fixtures on an H200 machine (issue 10) and tars them under $OUT:
#   kineto_mm_relu.json   torch.profiler export_chrome_trace of a small mm+relu loop
#                         (record_function + torch.cuda.nvtx ranges, an HtoD and a DtoH copy per step)
#   ncu_raw.csv           ncu --csv --page raw --print-units base, written with --log-file (clean)
#   ncu_mixed.txt         the same kind of run printed to stdout, mixed with the program's own output
#   ncu_report.ncu-rep    an ncu report, plus ncu_import.csv = ncu --import <it> --csv --page raw
#   proton_mm_relu.hatchet  triton.profiler (Proton) tree output of the same loop
#   golden.txt            figures computed here with python's json module, for the golden tests
#   env.txt               versions of everything involved
# Each step is bounded with `timeout` so the whole run stays well inside its device-time budget;
# whatever was produced is tarred even if a step fails.
set -u
OUT=$(realpath -m "${1:-${OUT:-/tmp/out}}")
W=$(mktemp -d)
cd "$W"
finish() {
    ls -l "$W" > "$W/listing.txt"
    tar czf "$OUT/import-fixtures.tar.gz" -C "$W" .
    ls -l "$OUT"
}
trap finish EXIT

export PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)

{
    date -u
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
    python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda); print("triton", triton.__version__)'
    echo "ncu: $NCU"; [ -n "$NCU" ] && "$NCU" --version
} > env.txt 2>&1

cat > mm_relu.py <<'PY'
import sys, torch
mode = sys.argv[1]
dev = "cuda"
torch.manual_seed(0)
a = torch.randn(512, 512, device=dev)
b = torch.randn(512, 512, device=dev)
host = torch.ones(4096, pin_memory=True)

def step(i):
    torch.cuda.nvtx.range_push(f"step{i}")
    with torch.profiler.record_function("mm_relu"):
        c = torch.relu(a @ b)
    d = host.to(dev, non_blocking=True)
    s = (c.sum() + d.sum()).item()  # DtoH copy + stream sync
    torch.cuda.nvtx.range_pop()
    return s

if mode == "kineto":
    from torch.profiler import profile, ProfilerActivity
    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    kw = {}
    try:
        kw["experimental_config"] = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
    except Exception as e:
        print("no cuda sync events:", e)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **kw) as prof:
        for i in range(8):
            step(i)
        torch.cuda.synchronize()
    prof.export_chrome_trace("kineto_mm_relu.json")
elif mode == "proton":
    import triton.profiler as proton
    for i in range(3):
        step(i)
    torch.cuda.synchronize()
    proton.start("proton_mm_relu")
    with proton.scope("loop"):
        for i in range(8):
            with proton.scope("step"):
                step(i)
    torch.cuda.synchronize()
    proton.finalize()
else:  # ncu: the program prints between kernels so stdout interleaves with ncu's output
    for i in range(4):
        print(f"program output: step {i} sum={step(i):.3f}", flush=True)
PY

# Whole script budget: about 100 s of the lease; later steps are skipped once it is spent.
left() { [ "$SECONDS" -lt "$1" ]; }
echo "== kineto"; timeout 40 python3 mm_relu.py kineto
echo "== proton"; left 60 && timeout 35 python3 mm_relu.py proton
if [ -n "$NCU" ] && left 75; then
    # The first kernels are randn's; -c 8 also reaches the mm and relu of the first steps.
    echo "== ncu log-file + export"
    timeout 45 "$NCU" --clock-control none --csv --page raw --print-units base -c 8 \
        --log-file ncu_raw.csv --export ncu_report --force-overwrite python3 mm_relu.py ncu > ncu_program_stdout.txt 2>&1
    if ! grep -q '^"ID"' ncu_raw.csv 2>/dev/null; then
        echo "log file had no CSV (export only); importing the report"
        timeout 15 "$NCU" --import ncu_report.ncu-rep --csv --page raw --print-units base --log-file ncu_raw.csv
    fi
    timeout 15 "$NCU" --import ncu_report.ncu-rep --csv --page raw --print-units base > ncu_import.csv 2>&1
    echo "== ncu mixed stdout"
    left 110 && timeout 35 "$NCU" --clock-control none --csv --page raw --print-units base -c 6 python3 mm_relu.py ncu > ncu_mixed.txt 2>&1
fi

echo "== golden (t=${SECONDS}s)"
timeout 20 python3 - > golden.txt 2>&1 <<'PY'
import json, collections, os, csv
t = json.load(open("kineto_mm_relu.json"))
ev = t["traceEvents"]
cats = collections.Counter(e.get("cat") for e in ev if e.get("ph") == "X")
print("kineto X events per cat:", dict(cats))
k = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "kernel"]
print("kineto kernels:", len(k))
for e in sorted(k, key=lambda e: e["ts"])[:4]:
    print("  kernel", repr(e["name"][:80]), "ts", e["ts"], "dur", e["dur"], "args", {x: e["args"].get(x) for x in ("stream", "correlation", "grid", "block", "registers per thread", "shared memory")})
print("deviceProperties:", [ (d.get("name"), d.get("numSms")) for d in t.get("deviceProperties", [])])
print("baseTimeNanoseconds:", t.get("baseTimeNanoseconds"))
if os.path.exists("proton_mm_relu.hatchet"):
    p = json.load(open("proton_mm_relu.hatchet"))
    def walk(n, path):
        m = n.get("metrics", {})
        if not n.get("children"):
            print("  proton leaf", "/".join(path + [n["frame"]["name"]])[:120], m)
        for c in n.get("children", []):
            walk(c, path + [n["frame"]["name"]])
    walk(p[0], [])
for f in ("ncu_raw.csv", "ncu_import.csv"):
    if os.path.exists(f):
        rows = [r for r in csv.reader(open(f)) if r and r[0] != "" and not r[0].startswith("==")]
        hdr = rows[0]
        print(f, "columns", len(hdr), "rows", len(rows) - 1)
        di = hdr.index("gpu__time_duration.sum") if "gpu__time_duration.sum" in hdr else None
        for r in rows[1:]:
            print("  ", r[0], r[hdr.index("Kernel Name")][:60], "dur", r[di] if di is not None else None)
PY
cat golden.txt env.txt
