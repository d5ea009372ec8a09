#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 20 item 3 again, with more repetitions and the bursts' own medians: bench_launch_overhead
# alternates plain / bare CUPTI (libws-bare-cupti.so) / `warpscope-cli record` on ws-launch-cost,
# which now also prints the median and 10th percentile of its bursts (a burst an interrupt landed in
# moves one process's mean, not its median). One table and RESULT line per figure, from the same
# runs. The launch-overhead job's 16 repetitions left a 95 % interval of [-26, 35] % around the
# recorder's cost beyond CUPTI's (goal <= 10 %): this asks how much of that spread is within a
# process and how much between processes. Staged like launch-overhead (scripts/device.sh stage
# launch-cost).
set -u
O=${1:-/tmp/launch-cost-out}
mkdir -p "$O"
CLI=$WS_DEVICE_BIN/warpscope-cli
BIN=$WS_DEVICE_BIN
BARE=$WS_DEVICE_LIB/libws-bare-cupti.so
INJECT=$WS_DEVICE_LIB/libwarpscope-inject.so
exec > >(tee -a "$O/device.log") 2>&1
T=$(mktemp -d)
echo "== environment ($(date -u +%FT%TZ))"
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nproc; uname -r; cat /proc/loadavg
LO="$BIN/bench_launch_overhead --cli $CLI --bare $BARE --inject $INJECT --out $T --timeout 20"
echo "== 1. ws-launch-cost, ${WS_LC_REPS:-48} repetitions, plain / bare / record ($(date +%T))"
timeout 120 $LO --program "$BIN/ws-launch-cost" --launches 30000 --reps "${WS_LC_REPS:-48}" \
  --mode plain:plain --mode bare:bare --mode record:record >"$O/overhead-48.txt"
grep -v '^run ' "$O/overhead-48.txt"
echo "== 2. the same, 16 repetitions pinned to CPUs 2-3 ($(date +%T))"
timeout 60 $LO --program "$BIN/ws-launch-cost" --launches 30000 --reps 16 --cpus 2-3 \
  --mode plain:plain --mode bare:bare --mode record:record >"$O/overhead-pinned-2-3.txt"
grep -v '^run ' "$O/overhead-pinned-2-3.txt"
for f in "$T"/bare.stderr "$T"/record.stderr; do echo "-- $(basename "$f")"; tail -3 "$f" 2>/dev/null; done
echo "== done ($(date +%T))"; cat /proc/loadavg
rm -rf "$T"
exit 0
