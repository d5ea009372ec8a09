#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Verifies `warpscope-cli bench` on an H200 (issue 7): GEMM 4096 bf16 against PyTorch CUDA
# events and triton.testing.do_bench, CoV, flush vs warm on a cache-sized copy, the other
# workloads' correctness checks. Run from the repository root with warpscope-cli and
# warpscope-bench-workloads in $WS_BIN (default $WS_DEVICE_BIN, staged by scripts/device.sh stage).
# On the device: scripts/device.sh run bench-verify   (this script gets OUTDIR)
set -uo pipefail
OUT=${1:-${OUT:-/tmp/bench-verify}}
mkdir -p "$OUT"
export WS_BIN=${WS_BIN:-${WS_DEVICE_BIN:-build/gpu/bin}}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
  --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"
python3 "$(dirname "$0")/../bench-verify.py" "$OUT" 2>&1 | tee "$OUT/verify.log"
exit "${PIPESTATUS[0]}"
