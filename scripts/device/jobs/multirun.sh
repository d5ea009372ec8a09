#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200: one program, three runs, one session — a trace, a --set full profile of its first
# launches and PC sampling of the GEMM, merged with `warpscope-cli merge` into a schema-v2
# multi-run session whose traced launches carry the profile's metrics (issue 16). Usage (from the
# repository root): bash scripts/device.sh run multirun   (this script gets OUTDIR)
# Needs $WS_DEVICE_BIN/{warpscope-cli,ws-example-gemm-relu}, $WS_DEVICE_LIB/libwarpscope-{inject,profiler}.so.
# About 40 s; never fails (each step says its exit status).
set -u
O=${1:-/tmp/multirun}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
GR=$WS_DEVICE_BIN/ws-example-gemm-relu
T0=$(date +%s)
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
trap 'echo "error at line $LINENO (continuing)"' ERR

step environment
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true

step "trace"
timeout 60 "$CLI" record -o "$O/trace.wscope" -- "$GR" --warmup 3 --iters 20; echo "rc=$?"
step "profile --set full, the first 14 launches"
timeout 120 "$CLI" profile --set full --launch-count 14 -o "$O/profile.wscope" -- "$GR" --warmup 3 --iters 20; echo "rc=$?"
step "PC sampling of the first GEMM launch"
timeout 120 "$CLI" profile --section SourceCounters --kernel-name regex:nvjet --launch-count 1 -o "$O/pcsampling.wscope" \
  -- "$GR" --warmup 3 --iters 20; echo "rc=$?"
step "merge"
timeout 60 "$CLI" merge "$O/trace.wscope" "$O/profile.wscope" "$O/pcsampling.wscope" -o "$O/multirun.wscope"; echo "rc=$?"
step "info and stats of the merged session"
timeout 30 "$CLI" info "$O/multirun.wscope"; echo "rc=$?"
timeout 30 "$CLI" stats "$O/multirun.wscope"; echo "rc=$?"
step "stats of the trace alone (must equal the merged session's)"
timeout 30 "$CLI" stats "$O/trace.wscope"; echo "rc=$?"
ls -la "$O"
step done
