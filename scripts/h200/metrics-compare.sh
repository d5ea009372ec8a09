#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks `warpscope-cli profile` against Nsight Compute on an H200 (issue 5) and prints the
# comparison table: the same workloads profiled by both with the same metric set, ncu with
# --clock-control none --cache-control none (the range profiler flushes no caches and leaves
# clocks alone), medians over the launches after warm-up (metrics-compare.py says how they are
# compared). Also writes the occupancy grid (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
# that tests/fixtures/metrics/occupancy-h200.txt holds, and checks that CUDA graph launches are
# skipped rather than crashing the target.
#
# Here (build machine), before the run:
#   cmake -S . -B build/metrics -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_BUILD_GUI=OFF \
#         -DWS_BUILD_TESTS=OFF -DWS_BUILD_BENCH=OFF
#   cmake --build build/metrics --target warpscope-cli warpscope-profiler warpscope-occupancygrid \
#         warpscope-metricsworkload ws-example-gemm-relu
#   scripts/h200/metrics-stage.sh        # stripped copies into build/metrics/device (< 64 MiB)
# On the device, from the repository root:  scripts/h200/metrics-compare.sh
# Everything lands in $OUT (default /tmp/metrics-compare): one tarball plus the table.
set -uo pipefail
OUT=${OUT:-/tmp/metrics-compare}
DEV=${WS_DEVICE_BIN:-build/metrics/device}
SET=${METRICS_SET:-full}
W=$OUT/work
mkdir -p "$W"
export PYTHONUNBUFFERED=1
export WS_PROFILER_LIB=$PWD/$DEV/libwarpscope-profiler.so
export WS_SECTIONS_DIR=$PWD/resources/sections
CLI=$PWD/$DEV/warpscope-cli
HERE=$(cd "$(dirname "$0")" && pwd)
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
TIMINGS=$W/timings.txt
: >"$TIMINGS"
LAUNCH_METRICS=$(python3 "$HERE/metrics-compare.py" launch-names)

now() { date +%s.%N; }
# The whole run must fit a short GPU lease: later workloads are skipped once DEADLINE seconds
# have passed, and every step's timeout is cut to what is left.
DEADLINE=${DEADLINE:-210}
T_START=$(date +%s)
left() { echo $((DEADLINE - ($(date +%s) - T_START))); }
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }
elapsed() { python3 -c "print(f'{$2 - $1:.3f}')"; }

{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  "$NCU" --version | tail -1
  uname -r
} >"$W/env.txt" 2>&1
cat "$W/env.txt"

echo "== occupancy grid"
timeout 60 "$DEV/warpscope-occupancygrid" >"$W/occupancy-h200.txt" 2>"$W/occupancy.err"
echo "rc=$? rows=$(grep -vc '^#\|^device' "$W/occupancy-h200.txt")"

# run_pair NAME KERNEL_FILTER CMD...: the program alone, then ours, then ncu with our metric list.
run_pair() {
  local name=$1 filter=$2
  shift 2
  local kargs=() nargs=()
  if [ -n "$filter" ]; then
    kargs=(--kernel-name "$filter")
    nargs=(--kernel-name "$filter")
  fi
  if [ "$(left)" -lt 25 ]; then
    echo "== $name: skipped, $(left) s left of the ${DEADLINE} s budget"
    return 0
  fi
  echo "== $name: $*"
  local t0 t1
  t0=$(now)
  timeout "$(cap 60)" "$@" >"$W/$name.base.log" 2>&1
  echo "   program alone rc=$?"
  t1=$(now)
  echo "$name base $(elapsed "$t0" "$t1")" >>"$TIMINGS"

  t0=$(now)
  timeout "$(cap 120)" "$CLI" profile -o "$W/$name.wscope" --set "$SET" --keep-raw "${kargs[@]}" -- "$@" >"$W/$name.ours.log" 2>&1
  local rc=$?
  t1=$(now)
  echo "$name ours $(elapsed "$t0" "$t1")" >>"$TIMINGS"
  echo "   warpscope rc=$rc $(elapsed "$t0" "$t1") s"
  grep -E 'warpscope-profile|warpscope-cli' "$W/$name.ours.log" | head -8 | sed 's/^/   /'
  [ -f "$W/$name.wscope" ] || return 0

  local metrics
  metrics=$(python3 "$HERE/metrics-compare.py" names "$W/$name.wscope")
  t0=$(now)
  timeout "$(cap 150)" "$NCU" --metrics "$metrics,$LAUNCH_METRICS" --cache-control none --clock-control none \
    "${nargs[@]}" -f -o "$W/$name" "$@" >"$W/$name.ncu.log" 2>&1
  rc=$?
  t1=$(now)
  echo "   ncu rc=$rc $(elapsed "$t0" "$t1") s"
  if [ $rc -ne 0 ] && grep -q "Failed to find metric\|metric.*not found\|Invalid metric" "$W/$name.ncu.log"; then
    # Our launch-metric names are ncu's, but if this ncu lacks one, time it on the counters alone.
    grep -i "metric" "$W/$name.ncu.log" | head -3 | sed 's/^/   /'
    t0=$(now)
    timeout "$(cap 150)" "$NCU" --metrics "$metrics" --cache-control none --clock-control none \
      "${nargs[@]}" -f -o "$W/$name" "$@" >"$W/$name.ncu.log" 2>&1
    rc=$?
    t1=$(now)
    echo "   ncu (counters only) rc=$rc $(elapsed "$t0" "$t1") s"
  fi
  echo "$name ncu $(elapsed "$t0" "$t1")" >>"$TIMINGS"
  # ncu's own CSV rounds many values to two decimals; compare on a full-precision export of its
  # report (same layout), and keep ncu's CSV beside it.
  "$NCU" --import "$W/$name.ncu-rep" --csv --page raw --print-units base >"$W/$name.ncu-raw.csv" 2>"$W/$name.csv.err"
  if ! python3 "$HERE/metrics-ncu-export.py" "$W/$name.ncu-rep" "$W/$name.ncu.csv" >>"$W/$name.csv.err" 2>&1; then
    echo "   full-precision export failed ($(tail -1 "$W/$name.csv.err")): comparing ncu's rounded CSV"
    cp "$W/$name.ncu-raw.csv" "$W/$name.ncu.csv"
  fi
  echo "   ncu csv rows: $(($(wc -l <"$W/$name.ncu.csv") - 2))"
}

run_pair gemm_relu "" "$DEV/ws-example-gemm-relu" --warmup 1 --iters 4
run_pair copy "" "$DEV/warpscope-metricsworkload" copy --warmup 2 --iters 4
run_pair chase "" "$DEV/warpscope-metricsworkload" chase --warmup 2 --iters 4
run_pair torch_softmax "regex:SoftMax" python3 "$HERE/metrics-torch.py"

echo "== graph launch under the profiler (must be skipped with a warning, not crash)"
timeout "$(cap 60)" "$CLI" profile -o "$W/graph.wscope" --section SpeedOfLight --keep-raw -- \
  "$DEV/warpscope-metricsworkload" graph --warmup 1 --iters 2 >"$W/graph.log" 2>&1
echo "   rc=$?"
grep -E 'graph|warpscope-cli profile:' "$W/graph.log" | head -5 | sed 's/^/   /'

pairs=()
for s in gemm_relu copy chase torch_softmax; do
  [ -f "$W/$s.wscope" ] && [ -s "$W/$s.ncu.csv" ] && pairs+=("$W/$s.wscope:$W/$s.ncu.csv")
done
python3 "$HERE/metrics-compare.py" table --warmup 2 --timings "$TIMINGS" "${pairs[@]}" | tee "$OUT/table.md"
rm -f "$W"/*.ncu-rep
tar -C "$OUT" -czf "$OUT/metrics-work.tar.gz" work
