#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# In-kernel event tracing on the H200 (<= 60 s): both examples recorded under warpscope-cli
# record (sessions + raw files kept), the examples once more without the recorder, and the
# overhead benchmark (instrumented / uninstrumented / compiled-out, medians of CUDA-event
# timings, ns per event, globaltimer granularity). Never fails the whole call.
# Usage (repo root): scripts/device.sh run iket   (this script gets OUTDIR; see scripts/device/jobs.manifest)
# Staged programs (scripts/device.sh stage): $WS_DEVICE_BIN, $WS_DEVICE_LIB, $WS_DEVICE_STAGE.
set -u
O=${1:-/tmp/iket-out}
mkdir -p "$O"
CLI=$WS_DEVICE_BIN/warpscope-cli
BIN=$WS_DEVICE_BIN
LOG=$O/device.log
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "== $* ($(date +%T))"; }
trap 'echo "step failed (rc=$?), continuing"' ERR

step "environment"
timeout 3 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
ls -la "$CLI" "$WS_DEVICE_LIB/libwarpscope-inject.so" "$BIN" 2>&1 | head

# record NAME program args...: session $O/NAME.wscope, raw files $O/raw/NAME/
record() {
    local name=$1; shift
    step "record $name"
    timeout 12 "$CLI" record --keep-raw -o "$O/$name.wscope" -- "$@" >"$O/$name.log" 2>&1
    echo "rc=$?" >>"$O/$name.log"
    cat "$O/$name.log"
    mkdir -p "$O/raw/$name"
    cp "$O/$name.wscope".raw-*/ws-*.raw "$O/raw/$name/" 2>/dev/null
    rm -rf "$O/$name.wscope".raw-*
    ls -la "$O/raw/$name" "$O/$name.wscope" 2>&1
}
record two_warp "$BIN/ws-example-iket-two-warp" 3
record pipelined "$BIN/ws-example-iket-pipelined" 16 32 16 2

step "warp-role summaries (if this warpscope-cli has warp-roles)"
timeout 5 "$CLI" warp-roles "$O/two_warp.wscope" >"$O/two_warp.roles.txt" 2>&1
timeout 5 "$CLI" warp-roles "$O/pipelined.wscope" >"$O/pipelined.roles.txt" 2>&1
head -40 "$O/two_warp.roles.txt" "$O/pipelined.roles.txt"

step "examples without the recorder"
timeout 6 "$BIN/ws-example-iket-two-warp" 1
echo "rc=$?"
timeout 6 "$BIN/ws-example-iket-pipelined" 132 16 64 1
echo "rc=$?"

step "overhead benchmark"
timeout 20 "$BIN/ws-iket-overhead" 15 64 >"$O/overhead.csv" 2>"$O/overhead.err"
echo "rc=$?"
cat "$O/overhead.err" "$O/overhead.csv"

step "done"
du -sh "$O"
exit 0
