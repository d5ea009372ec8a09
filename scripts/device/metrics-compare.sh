#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks `warpscope-cli profile` against Nsight Compute on an H200 (issue 5) and prints the
# comparison table: the same workloads profiled by both with the same metric set and the same
# cache control (CACHE=all, the default of both tools: memory restored and L2 evicted/flushed before
# every replay pass; CACHE=none: CUPTI's kernel replay against ncu --cache-control none), both with
# --clock-control none, medians over the launches after warm-up (metrics-compare.py says how they
# are compared). Also writes the occupancy grid (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
# that tests/fixtures/metrics/occupancy-h200.txt holds, and checks that CUDA graph launches are
# skipped rather than crashing the target.
#
# Here (build machine): scripts/device.sh stage metrics (builds build/gpu and stages it; carry
# build/gpu/device). On the device: bash scripts/device.sh run metrics,
# which runs scripts/device/jobs/metrics.sh (this script with CACHE=all, then CACHE=none).
# Everything lands in $OUT (default /tmp/metrics-compare): one tarball plus the table.
set -uo pipefail
OUT=${OUT:-/tmp/metrics-compare}
DEV=$(realpath -m "${WS_DEVICE_BIN:-build/gpu/bin}")
DEVLIB=$(realpath -m "${WS_DEVICE_LIB:-$DEV/../lib}")
SET=${METRICS_SET:-full}
CACHE=${CACHE:-all}
W=$OUT/work-$CACHE
mkdir -p "$W"
export PYTHONUNBUFFERED=1
export WS_PROFILER_LIB=$DEVLIB/libwarpscope-profiler.so
export WS_SECTIONS_DIR=$PWD/resources/sections
CLI=$DEV/warpscope-cli
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

if [ "${SKIP_OCCUPANCY:-0}" != 1 ]; then
  echo "== occupancy grid"
  timeout 60 "$DEV/warpscope-occupancygrid" >"$W/occupancy-h200.txt" 2>"$W/occupancy.err"
  echo "rc=$? rows=$(grep -vc '^#\|^device' "$W/occupancy-h200.txt")"
fi

# Our runs, "label=ENV,ENV": the default, and with OURS_VARIANTS more replay experiments of the
# profiler library (e.g. "own=WS_PROFILE_EVICTION=own"); each gets its own sessions and table.
read -r -a VARIANTS <<<"default= ${OURS_VARIANTS:-}"

# ours NAME LABEL ENVS KERNEL_ARGS... -- CMD...: one `warpscope-cli profile` run.
ours() {
  local name=$1 label=$2 envs=$3
  shift 3
  local kargs=()
  while [ "$1" != "--" ]; do kargs+=("$1"); shift; done
  shift
  local out=$W/$name.wscope
  [ "$label" = default ] || out=$W/$name.$label.wscope
  local t0 t1 rc
  # A variant may profile with another cache control than the ncu runs it is compared with
  # (WS_OURS_CACHE=all in its ENVS): e.g. our own replay without eviction against ncu's `none`.
  local cache=$CACHE
  [[ ",$envs," =~ ,WS_OURS_CACHE=([a-z]+), ]] && cache=${BASH_REMATCH[1]}
  t0=$(now)
  env ${envs//,/ } timeout "$(cap 120)" "$CLI" profile -o "$out" --set "$SET" --cache-control "$cache" --keep-raw \
    "${kargs[@]}" -- "$@" >"${out%.wscope}.ours.log" 2>&1
  rc=$?
  t1=$(now)
  if [ "$label" = default ]; then echo "$name ours $(elapsed "$t0" "$t1")"; else echo "$name ours-$label $(elapsed "$t0" "$t1")"; fi >>"$TIMINGS"
  echo "   warpscope ($label) rc=$rc $(elapsed "$t0" "$t1") s"
  grep -E 'warpscope-profile|warpscope-cli' "${out%.wscope}.ours.log" | head -8 | sed 's/^/   /'
}

# ncu_run NAME SUFFIX METRICS NCU_ARGS... -- CMD...: one ncu run with our metric list, exported.
ncu_run() {
  local name=$1 suffix=$2 metrics=$3
  shift 3
  local nargs=()
  while [ "$1" != "--" ]; do nargs+=("$1"); shift; done
  shift
  local base=$W/$name$suffix t0 t1 rc
  t0=$(now)
  timeout "$(cap 150)" "$NCU" --metrics "$metrics,$LAUNCH_METRICS" --cache-control "$CACHE" --clock-control none \
    "${nargs[@]}" -f -o "$base" "$@" >"$base.ncu.log" 2>&1
  rc=$?
  t1=$(now)
  echo "   ncu$suffix rc=$rc $(elapsed "$t0" "$t1") s"
  echo "$name ncu$suffix $(elapsed "$t0" "$t1")" >>"$TIMINGS"
  # ncu's own CSV rounds many values to two decimals; compare on a full-precision export of its
  # report (same layout), and keep ncu's CSV beside it.
  "$NCU" --import "$base.ncu-rep" --csv --page raw --print-units base >"$base.ncu-raw.csv" 2>"$base.csv.err"
  if ! python3 "$HERE/metrics-ncu-export.py" "$base.ncu-rep" "$base.ncu.csv" >>"$base.csv.err" 2>&1; then
    echo "   full-precision export failed ($(tail -1 "$base.csv.err")): comparing ncu's rounded CSV"
    cp "$base.ncu-raw.csv" "$base.ncu.csv"
  fi
  echo "   ncu$suffix csv rows: $(($(wc -l <"$base.ncu.csv") - 2))"
}

# run_pair NAME KERNEL_FILTER CMD...: the program alone, then ours and ncu in turn (ours, ncu,
# [our variants, ...], ncu again), so both tools' runs are spread over the same minutes.
run_pair() {
  local name=$1 filter=$2
  shift 2
  local kargs=()
  [ -n "$filter" ] && kargs=(--kernel-name "$filter")
  if [ "$(left)" -lt 25 ]; then
    echo "== $name: skipped, $(left) s left of the ${DEADLINE} s budget"
    return 0
  fi
  # ONLY="copy chase": run just these workloads (experiments).
  if [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]]; then
    return 0
  fi
  echo "== $name: $*"
  local t0 t1
  t0=$(now)
  timeout "$(cap 60)" "$@" >"$W/$name.base.log" 2>&1
  echo "   program alone rc=$?"
  t1=$(now)
  echo "$name base $(elapsed "$t0" "$t1")" >>"$TIMINGS"

  ours "$name" default "" "${kargs[@]}" -- "$@"
  [ -f "$W/$name.wscope" ] || return 0
  local metrics
  metrics=$(python3 "$HERE/metrics-compare.py" names "$W/$name.wscope")
  ncu_run "$name" "" "$metrics" "${kargs[@]}" -- "$@"
  local v
  for v in "${VARIANTS[@]:1}"; do
    ours "$name" "${v%%=*}" "${v#*=}" "${kargs[@]}" -- "$@"
  done
  [ "${NCU_RUNS:-2}" -ge 2 ] && [ "$(left)" -gt 20 ] && ncu_run "$name" "-2" "$metrics" "${kargs[@]}" -- "$@"
}

if [ "${SUITE:-metrics}" = fidelity ]; then
  # Issue 18's suite: kernels of different kinds the profiler was not tuned on, one mode of
  # warpscope-fidelitysuite each (its --list says what), plus a PyTorch op. Each program runs 2
  # warm-up and 2 measured launches of its kernel; the table drops the first 2 of every run.
  # Only the kernel under test is profiled (its name is --list's second column; cuBLAS names
  # its own, nvjet_*), not the fill_/init_ kernels around it.
  NAMES=()
  while read -r m k _; do
    [ -n "${FIDELITY_MODES:-}" ] && [[ " $FIDELITY_MODES " != *" $m "* ]] && continue
    [ "$k" = cublasGemmEx ] && k=nvjet
    NAMES+=("$m")
    run_pair "$m" "regex:^$k" "$DEV/warpscope-fidelitysuite" "$m" --warmup 2 --iters 2
  done < <("$DEV/warpscope-fidelitysuite" --list)
  NAMES+=(torch_softmax)
  run_pair torch_softmax "regex:SoftMax" python3 "$HERE/metrics-torch.py"
elif [ "${SUITE:-metrics}" = ops ]; then
  # Issue 18's second suite: PyTorch and Triton operations as a user's own program runs them
  # (examples/python/fidelity_ops.py --list), 4 launches each, profiled without a kernel filter:
  # every kernel an op launches is compared.
  NAMES=()
  OPS_PY=$PWD/examples/python/fidelity_ops.py
  while read -r m _; do
    [ -n "${FIDELITY_MODES:-}" ] && [[ " $FIDELITY_MODES " != *" $m "* ]] && continue
    NAMES+=("$m")
    run_pair "$m" "" python3 "$OPS_PY" "$m" --launches 4
  done < <(python3 "$PWD/examples/python/fidelity_ops.py" --list)
else
  NAMES=(gemm_relu copy chase torch_softmax)
  run_pair gemm_relu "" "$DEV/ws-example-gemm-relu" --warmup 1 --iters 4
  run_pair copy "" "$DEV/warpscope-metricsworkload" copy --warmup 2 --iters 4
  run_pair chase "" "$DEV/warpscope-metricsworkload" chase --warmup 2 --iters 4
  run_pair torch_softmax "regex:SoftMax" python3 "$HERE/metrics-torch.py"

  echo "== graph launch under the profiler (must be skipped with a warning, not crash)"
  timeout "$(cap 60)" "$CLI" profile -o "$W/graph.wscope" --section SpeedOfLight --keep-raw -- \
    "$DEV/warpscope-metricsworkload" graph --warmup 1 --iters 2 >"$W/graph.log" 2>&1
  echo "   rc=$?"
  grep -E 'graph|warpscope-cli profile:' "$W/graph.log" | head -5 | sed 's/^/   /'
fi

for v in "${VARIANTS[@]}"; do
  label=${v%%=*}
  suffix=""
  [ "$label" = default ] || suffix=".$label"
  pairs=()
  for s in "${NAMES[@]}"; do
    p="$W/$s$suffix.wscope"
    [ -f "$p" ] && [ -s "$W/$s.ncu.csv" ] || continue
    p="$p:$W/$s.ncu.csv"
    [ -s "$W/$s-2.ncu.csv" ] && p="$p:$W/$s-2.ncu.csv"
    pairs+=("$p")
  done
  ol=ours
  [ "$label" = default ] || ol=ours-$label
  echo "===== table: cache control $CACHE, our run: $label"
  python3 "$HERE/metrics-compare.py" table --warmup 2 --timings "$TIMINGS" --ours-label "$ol" "${pairs[@]}" \
    | tee "$OUT/table-$CACHE$suffix.md"
done
rm -f "$W"/*.ncu-rep
tar -C "$OUT" -czf "$OUT/metrics-work-$CACHE.tar.gz" "work-$CACHE"
