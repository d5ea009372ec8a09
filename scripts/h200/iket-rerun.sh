#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Second H200 call for in-kernel tracing (<= 40 s): where an event's cost goes (globaltimer read,
# clock64 read, stores; one warp per SM), the overhead benchmark again with the clock64-only
# variant, and the pipelined example built with WARPSCOPE_IKET_CLOCK64_ONLY recorded (raw kept)
# so its anchored decoding is checked on real data. Never fails the whole call.
# Usage (repo root): bash scripts/h200/iket-rerun.sh build/h200 $OUT/iket
set -u
S=${1:-build/h200}
O=${2:-/tmp/iket-out}
mkdir -p "$O/raw/pipelined_clock64"
CLI=$S/common/bin/warpscope-cli
BIN=$S/iket/bin
exec > >(tee -a "$O/device.log") 2>&1
trap 'echo "step failed (rc=$?), continuing"' ERR
echo "== overhead ($(date +%T))"
timeout 20 "$BIN/ws-iket-overhead" 15 64 >"$O/overhead.csv" 2>"$O/overhead.err"
echo "rc=$?"
cat "$O/overhead.err" "$O/overhead.csv"
echo "== record pipelined_clock64 ($(date +%T))"
timeout 12 "$CLI" record --keep-raw -o "$O/pipelined_clock64.wscope" -- "$BIN/ws-example-iket-pipelined-clock64" 16 32 16 1
echo "rc=$?"
cp "$O/pipelined_clock64.wscope".raw-*/ws-*.raw "$O/raw/pipelined_clock64/" 2>/dev/null
rm -rf "$O/pipelined_clock64.wscope".raw-*
timeout 5 "$CLI" warp-roles "$O/pipelined_clock64.wscope"
du -sh "$O"
exit 0
