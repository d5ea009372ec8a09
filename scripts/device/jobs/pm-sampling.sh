#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 23, GPU metrics (`record --gpu-metrics`) on a longer program, on the H200 (<= 150 s):
# ws-example-gpu-mix (over 5 s of GPU work: cuBLAS GEMMs, a copy, a pointer chase, a transpose)
# once without the recorder, then recorded with --gpu-metrics at the default 20 us period:
# coverage of the kernel span, gaps, per-kernel character, stop latency and exit time
# (scripts/device/pm-coverage.py) and the sampler's own figures (environment gpu_metrics.*), twice;
# then 10, 20 and 100 us periods, 200 us with short phases (a small session kept), a short program. (Call A also wrote
# the tests/pm fixture: WS_PM_FIXTURE_DIR=DIR WS_PM_FIXTURE_AFTER_MS=900 on the main run.) Prints PASS/FAIL lines; never stops at the first failure.
# Needs (scripts/device.sh stage pm-sampling) $WS_DEVICE_BIN/{warpscope-cli,ws-example-gpu-mix},
# $WS_DEVICE_LIB/libwarpscope-inject.so. Usage on the device: bash scripts/device.sh run pm-sampling
set -u
O=${1:-/tmp/pm-sampling}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
MIX=$WS_DEVICE_BIN/ws-example-gpu-mix
T0=$(date +%s)
step() { echo; echo "== $* (t=$(($(date +%s) - T0)) s)"; }
# Every step's timeout is cut to what is left of 140 s.
tl() { local left=$((140 - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
trap 'echo "step failed (rc=$?), continuing"' ERR

step environment
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv,noheader
nproc
ls -la "$CLI" "$MIX" "$WS_DEVICE_LIB/libwarpscope-inject.so"

step "ws-example-gpu-mix without the recorder"
timeout "$(tl 30)" "$MIX" --summary "$O/baseline-phases.tsv" >"$O/baseline.log" 2>&1
echo "rc=$?"; cat "$O/baseline.log"

# record NAME [env...] -- program args: session $O/NAME.wscope (deleted after analysis when large),
# the record log, the wall time and the analysis (NAME.coverage.json, NAME.coverage.txt).
record() {
  local name=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  step "record --gpu-metrics $name"
  local t0 t1
  t0=$(date +%s.%N)
  env "${envs[@]}" timeout "$(tl 60)" "$CLI" record --gpu-metrics "${EXTRA[@]}" -o "$O/$name.wscope" -- "$@" \
    >"$O/$name.log" 2>&1
  echo "rc=$?" >>"$O/$name.log"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall_s=%.2f\n", b - a }' >>"$O/$name.log"
  cat "$O/$name.log"
  timeout "$(tl 30)" python3 scripts/device/pm-coverage.py "$O/$name.wscope" --json "$O/$name.coverage.json" \
    >"$O/$name.coverage.txt" 2>&1
  grep -E "^(PASS|FAIL)" "$O/$name.coverage.txt" | sed "s/^/$name: /"
  grep -E '"(coverage_pct|samples_per_track|span_ms|last_sample_after_last_kernel_ms)"' "$O/$name.coverage.txt"
  timeout 10 "$CLI" info "$O/$name.wscope" >"$O/$name.info.txt" 2>&1
  sqlite3 "$O/$name.wscope" "SELECT key || '=' || value FROM environment WHERE key LIKE 'gpu_metrics.%'" 2>/dev/null ||
    python3 -c "import sqlite3,sys; [print(k+'='+v) for k,v in sqlite3.connect(sys.argv[1]).execute(\"SELECT key,value FROM environment WHERE key LIKE 'gpu_metrics.%'\")]" "$O/$name.wscope"
  local size
  size=$(stat -c %s "$O/$name.wscope" 2>/dev/null || echo 0)
  [ "$size" -gt 2000000 ] && rm -f "$O/$name.wscope" && echo "(session of $size bytes not kept)"
}

EXTRA=()
record main -- "$MIX" --summary "$O/main-phases.tsv"
# Again, with the phases the GPU test uses (tests/gpu/tst_gpu_metrics_gpu.cpp): run-to-run spread.
record main-2 -- "$MIX" --seconds 1.5
EXTRA=(--gpu-metrics-period 10)
record period-10us -- "$MIX" --seconds 0.6
EXTRA=(--gpu-metrics-period 20)
record period-20us -- "$MIX" --seconds 0.6
EXTRA=(--gpu-metrics-period 100)
record period-100us -- "$MIX" --seconds 0.6
EXTRA=()
# A small session to keep (evidence, UI): 0.3 s phases at a 200 us period.
EXTRA=(--gpu-metrics-period 200)
record small -- "$MIX" --seconds 0.3
EXTRA=()
# A short program: the stop path when the program ends early.
record short -- "$MIX" --seconds 0.05 --gemm-size 2048

step "summary"
grep -h -E "^(PASS|FAIL)" "$O"/*.coverage.txt | sort | uniq -c
echo "done in $(($(date +%s) - T0)) s"
