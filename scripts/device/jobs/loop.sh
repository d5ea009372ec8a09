#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200: the investigation loop of issue 17 through the commands the app runs (the GUI's
# Run dialog, "collect metrics for this kernel" and "Run again" start exactly these):
#   demo.wscope      trace + --set full profile of every launch + PC sampling of the GEMM + a
#                    benchmark of the same operation, appended run by run (--append): the
#                    embedded demo session (resources/demo) when it stays <= 2 MB.
#   loop.wscope      trace, then `collect --kernel-id <4th GEMM launch>` (--set full, that launch):
#                    timed, next to ncu --set full of the same launch.
#   loop-2.wscope    `rerun loop.wscope` (Run again): the after-side of the compare window.
#   launchbound/torch.wscope  a launch-bound program and a PyTorch script: collect 3 launches of
#                    their busiest kernel from its 5th launch; the links must be exactly those.
#   failed.wscope    a trace, then a profile whose target exits 3: the failed run is marked.
# Usage (from the repository root): bash scripts/device.sh run loop   (this script gets OUTDIR)
# Never fails (each step says its exit status).
set -u
O=${1:-/tmp/loop}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
GR=$WS_DEVICE_BIN/ws-example-gemm-relu
export WS_BENCH_WORKLOADS=$WS_DEVICE_BIN/warpscope-bench-workloads
T0=$(date +%s)
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
# timed NAME CMD...: wall time of CMD in seconds, printed as "time NAME <s>".
timed() {
  local name=$1 t
  shift
  t=$(date +%s.%N)
  "$@"
  local rc=$?
  echo "time $name $(python3 -c "print(f'{$(date +%s.%N) - $t:.3f}')") s rc=$rc"
}
trap 'echo "error at line $LINENO (continuing)"' ERR
PROG=("$GR" --warmup 3 --iters 20)

step environment
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
date -u

step "demo: trace"
timeout 60 "$CLI" record -o "$O/demo.wscope" -- "${PROG[@]}"; echo "rc=$?"
step "demo: --set full profile of every launch, appended"
timed demo-profile timeout 240 "$CLI" profile --set full --append "$O/demo.wscope" -- "${PROG[@]}"
step "demo: PC sampling of the first GEMM launch, appended"
timeout 120 "$CLI" profile --pc-sampling --kernel-name regex:nvjet --launch-count 1 --append "$O/demo.wscope" \
  -- "${PROG[@]}"; echo "rc=$?"
step "demo: benchmark of the same operation (gemm-relu 4096 bf16), appended"
timeout 120 "$CLI" bench --append "$O/demo.wscope" --workload gemm-relu --size 4096 --dtype bf16 --rounds 10 \
  --repeat 50 --warmup-calls 100; echo "rc=$?"
timeout 30 "$CLI" info "$O/demo.wscope"; echo "rc=$?"
ls -la "$O/demo.wscope"

step "loop: trace"
timeout 60 "$CLI" record -o "$O/loop.wscope" -- "${PROG[@]}"; echo "rc=$?"
# The 4th GEMM launch of the trace (#9: the third of the 3 warm-up iterations, after the setup GEMM).
GEMM=$(python3 -c "
import sqlite3, sys
c = sqlite3.connect('$O/loop.wscope')
r = c.execute(\"select k.id from kernel k join string s on s.id = k.short_name where s.text like 'nvjet%' order by k.id limit 1 offset 3\").fetchone()
print(r[0] if r else '')")
echo "GEMM launch id: $GEMM"
step "loop: collect metrics for this kernel (--set full, one launch): dry run, then timed"
timeout 30 "$CLI" collect "$O/loop.wscope" --kernel-id "$GEMM" --dry-run; echo "rc=$?"
timed collect timeout 180 "$CLI" collect "$O/loop.wscope" --kernel-id "$GEMM" --yes
timed read-metrics timeout 60 "$CLI" info "$O/loop.wscope"
python3 -c "
import sqlite3
c = sqlite3.connect('$O/loop.wscope')
print('kernel_link (profiled -> traced):', c.execute('select kernel_id, trace_kernel_id from kernel_link').fetchall())
print('runs:', c.execute('select id, kind, options from run').fetchall())"
step "ncu --set full of the same launch (the 4th nvjet launch), for the same wall time"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
timed ncu timeout 240 "$NCU" --set full --clock-control none -k regex:nvjet -s 3 -c 1 -f -o "$O/ncu-gemm" "${PROG[@]}" \
  >"$O/ncu.log" 2>&1
tail -3 "$O/ncu.log"
"$NCU" --import "$O/ncu-gemm.ncu-rep" --page raw --csv --metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
  >"$O/ncu-gemm.csv" 2>&1 || true
rm -f "$O/ncu-gemm.ncu-rep"
step "loop: stall reasons for the same launch"
timed collect-stalls timeout 180 "$CLI" collect "$O/loop.wscope" --kernel-id "$GEMM" --stalls --yes
step "Run again: rerun loop.wscope -> loop-2.wscope"
timed rerun timeout 300 "$CLI" rerun "$O/loop.wscope" -o "$O/loop-2.wscope" --yes
timeout 30 "$CLI" info "$O/loop-2.wscope"; echo "rc=$?"
timeout 60 "$CLI" compare "$O/loop.wscope" "$O/loop-2.wscope" 2>&1 | head -40

# collect_check NAME PROGRAM...: trace PROGRAM, pick the 5th launch of its most launched kernel,
# collect metrics for 3 launches from it, and check that the profiled launches link to exactly
# the traced launches picked (ordinals 4, 5, 6 of that kernel in that process).
collect_check() {
  local name=$1
  shift
  step "$name: trace"
  timeout 120 "$CLI" record -o "$O/$name.wscope" -- "$@" >"$O/$name-record.log" 2>&1; echo "rc=$?"
  tail -2 "$O/$name-record.log"
  local pick
  pick=$(python3 -c "
import sqlite3
c = sqlite3.connect('$O/$name.wscope')
name, pid = c.execute('select mangled_name, pid from kernel group by mangled_name, pid order by count(*) desc limit 1').fetchone()
ids = [r[0] for r in c.execute('select id from kernel where mangled_name = ? and pid = ? order by id', (name, pid))]
print(ids[4], ' '.join(map(str, ids[4:7])))")
  local id=${pick%% *}
  echo "$name: picked launch $id; expected links to: ${pick#* }"
  timed "$name-collect" timeout 240 "$CLI" collect "$O/$name.wscope" --kernel-id "$id" --count 3 --yes \
    >"$O/$name-collect.log" 2>&1
  grep -E "^will run|^step|appended|warning|error" "$O/$name-collect.log" | head -8
  python3 -c "
import sqlite3
c = sqlite3.connect('$O/$name.wscope')
linked = sorted(r[0] for r in c.execute('select trace_kernel_id from kernel_link'))
expected = sorted(int(x) for x in '${pick#* }'.split())
print('$name: linked traced launches', linked, 'expected', expected, 'OK' if linked == expected else 'MISMATCH')"
}
collect_check launchbound "$WS_DEVICE_BIN/ws-example-launch-bound" --launches 200
collect_check torch python3 examples/python/torch_nvtx.py --steps 10

step "a failing profile run appended to a trace"
timeout 60 "$CLI" record -o "$O/failed.wscope" -- "${PROG[@]}"; echo "rc=$?"
timeout 60 "$CLI" profile --set basic --append "$O/failed.wscope" -- /bin/sh -c 'exit 3'; echo "rc=$?"
timeout 30 "$CLI" info "$O/failed.wscope"; echo "rc=$?"
ls -la "$O"
step done
