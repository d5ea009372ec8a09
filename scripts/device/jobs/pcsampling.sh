#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200, from the repo root:  bash scripts/device.sh run pcsampling   (this script gets OUTDIR)
# PC sampling (profile --section SourceCounters) of the three stall kernels of
# collectors/profiler/workloads/stalls.cu, with the cubins disassembled there; the raw results
# (cubins, disassembly, pcsamp-<pid>.txt) are kept for fixtures and the parser's golden files.
# At most ~60 s; every step has a timeout, a failure is logged and the script goes on.
set -u
O=${1:-out/pcsampling}
mkdir -p "$O"
O=$(cd "$O" && pwd)
CLI=$WS_DEVICE_BIN/warpscope-cli
STALLS=$WS_DEVICE_BIN/warpscope-stalls
LOG=$O/device.log
SECTIONS=resources/sections
SRC=collectors/profiler/workloads
export WS_PROFILER_LIB=$WS_DEVICE_LIB/libwarpscope-profiler.so

say() { echo "[$(date -u +%H:%M:%S) +${SECONDS}s] $*" | tee -a "$LOG"; }
# step NAME SECONDS CMD...: runs with a timeout, stdout+stderr into $O/NAME.log, never fails the script.
step() {
  local name=$1 t=$2
  shift 2
  say "step $name (timeout ${t}s): $*"
  timeout --kill-after=3 "$t" "$@" > "$O/$name.log" 2>&1
  local rc=$?
  say "step $name: exit $rc"
  tail -n 25 "$O/$name.log" | sed 's/^/    /' | tee -a "$LOG" > /dev/null
  return 0
}

say "host $(hostname), repo $(pwd)"
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv; } >> "$LOG" 2>&1
for t in nvdisasm cuobjdump ncu; do
  say "$t: $(command -v $t || ls /usr/local/cuda/bin/$t 2>/dev/null || echo missing)"
done
/usr/local/cuda/bin/nvdisasm --version >> "$LOG" 2>&1
ls -l "$WS_DEVICE_BIN" "$WS_DEVICE_LIB" >> "$LOG" 2>&1
export PATH=$PATH:/usr/local/cuda/bin

# 1. The kernels alone: correctness and wall time without any profiler.
step plain 12 "$STALLS" all

# 2. SourceCounters: start/stop PC sampling around each of the three launches.
step source 28 "$CLI" profile -o "$O/stalls-source.wscope" --section SourceCounters --sections-dir "$SECTIONS" \
  --source-folders "$SRC" --keep-raw -v -- "$STALLS" all
if ! grep -qs "^pc " "$O"/stalls-source.wscope.profile-*/pcsamp-*.txt; then
  # 3. Fallback only when the main run sampled no PC: no start/stop control, launches told apart by
  # correlation id. Either way the logs hold the CUPTI error text of the failure.
  step source-nostartstop 18 "$CLI" profile -o "$O/stalls-source-nss.wscope" --section SourceCounters \
    --sections-dir "$SECTIONS" --source-folders "$SRC" --pc-sampling-no-start-stop --keep-raw -v -- "$STALLS" all
fi
"$CLI" info "$O/stalls-source.wscope" > "$O/info.txt" 2>&1 || true

# 4. Golden inputs for the SASS parser: the cubin compiled on the build host and the captured ones.
mkdir -p "$O/golden"
cp "$WS_DEVICE_STAGE/stalls.sm_90a.cubin" "$O/golden/" 2>/dev/null
for c in "$WS_DEVICE_STAGE/stalls.sm_90a.cubin" "$O"/stalls-source.wscope.profile-*/cubin-*.cubin; do
  [ -f "$c" ] || continue
  n=$(basename "$c" .cubin)
  timeout 5 /usr/local/cuda/bin/nvdisasm -c -gi "$c" > "$O/golden/$n.nvdisasm-c-gi.txt" 2>&1
  timeout 5 /usr/local/cuda/bin/nvdisasm -c -g "$c" > "$O/golden/$n.nvdisasm-c-g.txt" 2>&1
  timeout 5 /usr/local/cuda/bin/cuobjdump -sass "$c" > "$O/golden/$n.cuobjdump-sass.txt" 2>&1
done
say "golden: $(ls "$O/golden" | wc -l) files"

# 5. Cross-check with ncu's own source view when time is left (per-instruction stall samples).
if [ "$SECONDS" -lt 34 ] && command -v ncu > /dev/null; then
  step ncu-source $((56 - SECONDS)) ncu --clock-control none --section SourceCounters --section WarpStateStats \
    --kernel-name regex:'chase_kernel|bank_conflict_kernel|barrier_kernel' --launch-count 3 \
    --export "$O/stalls-ncu" --force-overwrite "$STALLS" all
  if [ -f "$O/stalls-ncu.ncu-rep" ] && [ "$SECONDS" -lt 56 ]; then
    timeout $((59 - SECONDS)) ncu --import "$O/stalls-ncu.ncu-rep" --page source --print-source sass --csv \
      > "$O/stalls-ncu-source.csv" 2> "$O/stalls-ncu-source.err"
    say "ncu source csv: $(wc -l < "$O/stalls-ncu-source.csv") lines"
    [ "$SECONDS" -lt 57 ] && timeout $((59 - SECONDS)) ncu --import "$O/stalls-ncu.ncu-rep" --page raw --csv \
      > "$O/stalls-ncu-raw.csv" 2> /dev/null
  fi
fi
du -sh "$O" | tee -a "$LOG"
say "done"
