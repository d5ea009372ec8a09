#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Verifies `warpscope-cli bench` on an H200 (issue 7): GEMM 4096 bf16 against PyTorch CUDA
# events and triton.testing.do_bench, CoV, flush vs warm on a cache-sized copy, the other
# workloads' correctness checks. Run from the repository root with the two binaries in
# $WS_BIN (default build/bench/device: stripped copies of build/bench/bin, see below).
#
# Here (build machine), before the run:
#   cmake --build build/bench --target warpscope-cli warpscope-bench-workloads
#   mkdir -p build/bench/device && for b in warpscope-cli warpscope-bench-workloads; do
#     objcopy --strip-debug build/bench/bin/$b build/bench/device/$b; done
# On the device: scripts/h200/bench-verify.sh   (writes everything under $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/bench-verify}
mkdir -p "$OUT"
export WS_BIN=${WS_BIN:-build/bench/device}
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu \
  --format=csv 2>&1 | tee "$OUT/nvidia-smi.txt"
python3 "$(dirname "$0")/bench-verify.py" "$OUT" 2>&1 | tee "$OUT/verify.log"
exit "${PIPESTATUS[0]}"
