#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 21, item 2, on an H200: warpscope.bench (the Python package in python/) against
# triton.testing.do_bench and a plain CUDA-event loop on the same callables (torch.mm bf16 4096,
# a Triton kernel, torch.add on 1 Mi floats), and the C++ built-in GEMM against torch.mm, all with
# the same flush policy; then warpscope.capture / nvtx_timer under `warpscope-cli record`.
# Needs $WS_DEVICE_BIN/{warpscope-cli,warpscope-bench-workloads}, $WS_DEVICE_LIB/libwarpscope-inject.so
# (scripts/device.sh stage python-bench) and the device's torch + triton.
# On the device: bash scripts/device.sh run python-bench   (this script gets OUTDIR)
set -uo pipefail
OUT=${1:-${OUT:-/tmp/python-bench}}
mkdir -p "$OUT"
export WS_BIN=${WS_BIN:-${WS_DEVICE_BIN:-build/gpu/bin}}
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
CLI=$WS_BIN/warpscope-cli
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
  --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"

echo "== the package's own tests with the device's python (the fake-GPU method tests, sessions, CLI)"
WS_CLI=$CLI timeout 120 python3 -B -m unittest discover -s python/tests 2>&1 | tail -5

echo "== agreement: warpscope.bench vs triton.testing.do_bench vs a CUDA-event loop; C++ GEMM vs torch.mm"
timeout 300 python3 scripts/device/python-bench.py "$OUT" 2>&1 | tee "$OUT/python-bench.log"
rc=${PIPESTATUS[0]}

echo "== warpscope.capture() under record --capture-range cudaProfilerApi; nvtx_timer under --nvtx-timing"
cat >"$OUT/marks.py" <<'PY'
import torch, warpscope
x = torch.rand(1 << 20, device="cuda")
for _ in range(5):          # outside the capture window: not recorded
    torch.relu(x)
with warpscope.capture():   # 7 relu launches inside
    for _ in range(7):
        torch.relu(x)
for _ in range(12):         # 12 instances of "step" for --nvtx-timing
    with warpscope.nvtx_timer("step"):
        torch.relu(x)
torch.cuda.synchronize()
PY
timeout 60 "$CLI" record --capture-range cudaProfilerApi -o "$OUT/capture.wscope" -- python3 "$OUT/marks.py" \
  >"$OUT/capture.log" 2>&1; echo "capture rc=$?"; tail -5 "$OUT/capture.log"
timeout 60 "$CLI" record --nvtx-timing step -o "$OUT/nvtx-timing.wscope" -- python3 "$OUT/marks.py" \
  >"$OUT/nvtx.log" 2>&1; echo "nvtx-timing rc=$?"; tail -5 "$OUT/nvtx.log"
timeout 30 python3 - "$OUT" <<'PY' 2>&1 | tee "$OUT/marks-check.txt"
import sys, warpscope
out = sys.argv[1]
with warpscope.open(f"{out}/capture.wscope") as s:
    k = s.kernels
    relu = k[k["name"].str.contains("elementwise|relu|clamp", case=False, regex=True)]
    print(f"capture: {len(k)} kernels recorded, {len(relu)} elementwise (expected 7: only the captured loop)")
with warpscope.open(f"{out}/nvtx-timing.wscope") as s:
    b = s.bench_runs
    step = b[b["workload"] == "step"]
    n = int((s.bench_samples["workload"] == "step").sum())
    print(f"nvtx-timing: {len(step)} bench run(s) for 'step', {n} instances timed (expected 12), "
          f"median {step['median'].tolist()} us")
PY
exit "$rc"
