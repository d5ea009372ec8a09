#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18: the checkpoint restore that faulted after the program allocated or freed memory
# between profiled launches. Runs `profile --section SpeedOfLight` with WS_PROFILE_TRACE=1 on
# `warpscope-metricsworkload growing` (allocations and a free between launches, every result
# checked) and on PyTorch's convolution (examples/python/fidelity_ops.py conv2d_fp16) in both cache
# controls; prints each run's exit status, the crash report's first lines, and the trace's
# checkpoint steps with the memory calls made while a replay ran.
# Usage on the device: bash scripts/device.sh run checkpoint-diag   (this script gets OUTDIR)
set -u
O=${1:-/tmp/checkpoint-diag}
. "$PWD/scripts/device/profiler-job-env.sh"
W=$WS_DEVICE_BIN/warpscope-metricsworkload
PY=$PWD/examples/python/fidelity_ops.py
LIMIT=${CHECKPOINT_DIAG_DEADLINE:-200}
T0=$(date +%s)
one() {
  local name=$1 rc
  shift
  if [ $(($(date +%s) - T0)) -gt "$LIMIT" ]; then echo "$name: skipped (deadline)"; return; fi
  WS_PROFILE_TRACE=1 timeout 60 "$@" >"$O/$name.log" 2>&1
  rc=$?
  printf '%-28s rc=%s\n' "$name" "$rc"
  grep -E 'received signal|while the collector|warning:|growing: |exited with' "$O/$name.log" | head -6 | cut -c1-220 | sed 's/^/    /'
  grep -E 'trace: (pass 0: (cuptiCheckpointSave|device memory)|pass [0-9]+: (device memory free before|passes done|failed))|during a replay' \
    "$O/$name.log" | sed 's/warpscope-profile: trace: //' | uniq -c | head -40 | sed 's/^/    /'
}
for c in none all; do
  one "growing-$c" "$CLI" profile -o "$O/g.wscope" --section SpeedOfLight --cache-control "$c" -- "$W" growing --warmup 0 --iters 2
  one "conv-$c" "$CLI" profile -o "$O/c.wscope" --section SpeedOfLight --cache-control "$c" -- python3 "$PY" conv2d_fp16 --launches 2
done
rm -f "$O"/*.wscope
