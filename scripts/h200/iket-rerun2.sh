#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Third H200 call for in-kernel tracing (<= 40 s): the overhead benchmark again with events
# stored by lanes 0-7 together (no divergent branch per event), the lane-consistency check of
# special-register reads, and both examples recorded with that header (raw kept) so the new
# store path is decoded from real data. Never fails the whole call.
# Usage (repo root): bash scripts/h200/iket-rerun2.sh build/h200 $OUT/iket
set -u
S=${1:-build/h200}
O=${2:-/tmp/iket-out}
CLI=$S/common/bin/warpscope-cli
BIN=$S/iket/bin
mkdir -p "$O"
exec > >(tee -a "$O/device.log") 2>&1
trap 'echo "step failed (rc=$?), continuing"' ERR
echo "== overhead ($(date +%T))"
timeout 20 "$BIN/ws-iket-overhead" 15 64 >"$O/overhead.csv" 2>"$O/overhead.err"
echo "rc=$?"
cat "$O/overhead.err" "$O/overhead.csv"
for run in "two_warp ws-example-iket-two-warp 3" "pipelined ws-example-iket-pipelined 16 32 16 2"; do
    set -- $run
    name=$1; shift; prog=$1; shift
    echo "== record $name ($(date +%T))"
    mkdir -p "$O/raw/$name"
    timeout 8 "$CLI" record --keep-raw -o "$O/$name.wscope" -- "$BIN/$prog" "$@"
    echo "rc=$?"
    cp "$O/$name.wscope".raw-*/ws-*.raw "$O/raw/$name/" 2>/dev/null
    rm -rf "$O/$name.wscope".raw-*
    timeout 4 "$CLI" warp-roles "$O/$name.wscope" | head -20
done
du -sh "$O"
exit 0
