#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Records before/after pairs on the H200 for `warpscope-cli compare` (issue 9), <= 45 s.
# Usage (repository root): scripts/device.sh run compare   (this script gets OUTDIR)
#   $WS_DEVICE_BIN/{warpscope-cli,ws-example-gemm-relu,warpscope-bench-workloads}
#   $WS_DEVICE_LIB/{libwarpscope-inject.so,libwarpscope-profiler.so}   (scripts/device.sh stage)
# Pairs (A = baseline, B = change):
#   rec-separate / rec-fused      record of the example: cuBLAS GEMM + separate ReLU kernel vs one
#                                 cublasLt GEMM with the ReLU in its epilogue
#   rec-relu256 / rec-relu1024    the separate ReLU kernel with 256 vs 1024 threads per block
#   prof-separate / prof-fused    `profile --set full` of the same two variants (metrics, roofline)
#   bench-gemm-a / bench-gemm-b   the same cuBLAS GEMM benchmarked twice (a null pair)
#   bench-gemm-relu               GEMM followed by ReLU (vs bench-gemm-a: a real regression)
# Then runs `warpscope-cli compare` on each pair (text + json) as a first check. Never fails the
# whole call: each step has its own timeout and the script always exits 0.
set -u
OUT=$(realpath -m "${1:-/tmp/compare-out}")
mkdir -p "$OUT"
CLI=$WS_DEVICE_BIN/warpscope-cli
LIB=$WS_DEVICE_LIB
BIN=$WS_DEVICE_BIN
EX=$BIN/ws-example-gemm-relu
export WS_INJECT_LIB=$LIB/libwarpscope-inject.so
export WS_PROFILER_LIB=$LIB/libwarpscope-profiler.so
export WS_BENCH_WORKLOADS=$BIN/warpscope-bench-workloads
export WS_SECTIONS_DIR=$PWD/resources/sections
LOG=$OUT/compare-device.log
T0=$(date +%s)
BUDGET=${BUDGET:-45}
left() { echo $((BUDGET - ($(date +%s) - T0))); }
# step NAME SECONDS CMD...: runs CMD with a timeout cut to what is left of the budget.
step() {
  local name=$1 limit=$2
  shift 2
  local l
  l=$(left)
  if [ "$l" -lt 3 ]; then
    echo "== $name: skipped, ${l}s left" | tee -a "$LOG"
    return 0
  fi
  [ "$l" -lt "$limit" ] && limit=$l
  local t=$(date +%s.%N)
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  echo "== $name rc=$rc $(python3 -c "print(f'{$(date +%s.%N) - $t:.2f}')") s: $*" | tee -a "$LOG"
  tail -3 "$OUT/$name.log" | sed 's/^/   /' | tee -a "$LOG"
  return 0
}
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv
  date -u
} >"$OUT/env.txt" 2>&1

step rec-separate 8 "$CLI" record -o "$OUT/rec-separate.wscope" -- "$EX" --warmup 3 --iters 20
step rec-fused 8 "$CLI" record -o "$OUT/rec-fused.wscope" -- "$EX" --epilogue fused --warmup 3 --iters 20
BENCH=(--size 4096 --dtype bf16 --rounds 10 --repeat 50 --warmup-calls 100)
step bench-gemm-a 8 "$CLI" bench -o "$OUT/bench-gemm-a.wscope" --workload gemm "${BENCH[@]}"
step bench-gemm-relu 8 "$CLI" bench -o "$OUT/bench-gemm-relu.wscope" --workload gemm-relu "${BENCH[@]}"
step bench-gemm-b 8 "$CLI" bench -o "$OUT/bench-gemm-b.wscope" --workload gemm "${BENCH[@]}"
step prof-separate 10 "$CLI" profile -o "$OUT/prof-separate.wscope" --set full -- "$EX" --warmup 1 --iters 4
step prof-fused 10 "$CLI" profile -o "$OUT/prof-fused.wscope" --set full -- "$EX" --epilogue fused --warmup 1 --iters 4
step rec-relu256 6 "$CLI" record -o "$OUT/rec-relu256.wscope" -- "$EX" --relu-threads 256 --warmup 3 --iters 20
step rec-relu1024 6 "$CLI" record -o "$OUT/rec-relu1024.wscope" -- "$EX" --relu-threads 1024 --warmup 3 --iters 20

# First check with whatever `compare` the staged CLI has (it may predate the command).
for pair in rec-separate:rec-fused bench-gemm-a:bench-gemm-b bench-gemm-a:bench-gemm-relu prof-separate:prof-fused \
  rec-relu256:rec-relu1024; do
  a=${pair%%:*} b=${pair##*:}
  [ -f "$OUT/$a.wscope" ] && [ -f "$OUT/$b.wscope" ] || continue
  timeout 10 "$CLI" compare "$OUT/$a.wscope" "$OUT/$b.wscope" >"$OUT/compare-$a-vs-$b.txt" 2>&1
  echo "compare $a $b rc=$?" | tee -a "$LOG"
done
ls -la "$OUT" >>"$LOG"
echo "total $(($(date +%s) - T0)) s" | tee -a "$LOG"
exit 0
