#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18: the cost of `warpscope-cli profile --set full` against `ncu --set full` on a realistic
# launch count. For each workload of the fidelity suite in SPEED_MODES (default: a streaming copy,
# a cuBLAS GEMM and a hand MMA GEMM) the program runs SPEED_LAUNCHES launches of its kernel
# (2 warm-up + the rest, all profiled by both tools); we time the program alone, ours and ncu with
# the same cache control and --clock-control none, and write speed.txt: wall times, passes per
# launch (ours: the session's info; ncu: its "N passes" line), and the cost per profiled launch
# over the program alone. Usage: bash scripts/device.sh run speed   (this script gets OUTDIR)
set -u
O=${1:-/tmp/speed}
mkdir -p "$O"
DEV=$(realpath -m "${WS_DEVICE_BIN:-build/gpu/bin}")
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export WS_PROFILER_LIB=$DEV/../lib/libwarpscope-profiler.so
export WS_SECTIONS_DIR=$PWD/resources/sections
chmod u+x "$DEV"/* 2>/dev/null
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
N=${SPEED_LAUNCHES:-26}
ITERS=$((N - 2))
now() { date +%s.%N; }
sec() { python3 -c "print(f'{$2 - $1:.2f}')"; }
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$NCU" --version | tail -1
  echo "launches per program: $N (2 warm-up + $ITERS), every one profiled by both tools"
  printf '%-10s %-5s %8s %8s %8s %7s %7s %9s %9s %7s\n' mode cache alone_s ours_s ncu_s ours_p ncu_p ours_ms/l ncu_ms/l ratio
} >"$O/speed.txt"
for m in ${SPEED_MODES:-stream cublas mma}; do
  k=$("$DEV/warpscope-fidelitysuite" --list | awk -v m="$m" '$1 == m {print $2}')
  [ "$k" = cublasGemmEx ] && k=nvjet # cuBLAS picks the kernel; its names start so on the H200
  args=("$DEV/warpscope-fidelitysuite" "$m" --warmup 2 --iters "$ITERS")
  t0=$(now); "${args[@]}" >"$O/$m.alone.log" 2>&1; t1=$(now); alone=$(sec "$t0" "$t1")
  for c in ${SPEED_CACHES:-all none}; do
    t0=$(now)
    timeout 200 "$DEV/warpscope-cli" profile -o "$O/$m.$c.wscope" --set full --cache-control "$c" \
      --kernel-name "regex:^$k" -- "${args[@]}" >"$O/$m.$c.ours.log" 2>&1
    t1=$(now); ours=$(sec "$t0" "$t1")
    t0=$(now)
    timeout 300 "$NCU" --set full --cache-control "$c" --clock-control none -k "regex:^$k" \
      -o "$O/$m.$c.ncu" -f "${args[@]}" >"$O/$m.$c.ncu.log" 2>&1
    t1=$(now); ncu=$(sec "$t0" "$t1")
    op=$(grep -o '[0-9]* pass(es) per kernel' "$O/$m.$c.ours.log" | head -1 | cut -d' ' -f1)
    np=$(grep -o '[0-9]* passes' "$O/$m.$c.ncu.log" | head -1 | cut -d' ' -f1)
    python3 - "$m" "$c" "$alone" "$ours" "$ncu" "${op:-0}" "${np:-0}" "$N" >>"$O/speed.txt" <<'PY'
import sys
m, c, alone, ours, ncu, op, np, n = sys.argv[1:]
alone, ours, ncu, n = float(alone), float(ours), float(ncu), int(n)
po = (ours - alone) / n * 1000
pn = (ncu - alone) / n * 1000
print(f"{m:10s} {c:5s} {alone:8.2f} {ours:8.2f} {ncu:8.2f} {op:>7s} {np:>7s} {po:9.1f} {pn:9.1f} {ours / ncu:7.2f}")
PY
    rm -f "$O/$m.$c.ncu.ncu-rep"
  done
done
cat "$O/speed.txt"
