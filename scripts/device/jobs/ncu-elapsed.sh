#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18, cause 1 of `none` (docs/kernel-metrics.md): ncu's SM elapsed cycles per second lie
# above the clock in its `none` runs of the whole set, and a kernel may run longer there. Is that
# the state of the pass its SM counters came from (ncu's kernel replay restores memory before
# every pass but the first), or do its SM counters read long however few passes there are? On
# two kernels (stream_copy of warpscope-fidelitysuite, the Triton softmax of
# examples/python/fidelity_ops.py), both cache controls: ncu with a few elapsed/duration metrics
# alone (one or two passes), twice, and with our whole --set full list; ours with the same few
# metrics (with SpeedOfLight) and with --set full. Prints per run the medians of the measured
# launches: duration, SM elapsed cycles over GPC elapsed cycles, SM elapsed cycles per second,
# SM active cycles, DRAM bytes written and read.
# Usage on the device: bash scripts/device.sh run ncu-elapsed   (this script gets OUTDIR)
set -u
O=${1:-/tmp/ncu-elapsed}
. "$PWD/scripts/device/profiler-job-env.sh"
SUITE=$WS_DEVICE_BIN/warpscope-fidelitysuite
OPS=$PWD/examples/python/fidelity_ops.py
LAUNCH=$(python3 "$HERE/metrics-compare.py" launch-names)
M=gpu__time_duration.sum,sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,gpc__cycles_elapsed.max,sm__cycles_active.avg,dram__bytes_write.sum,dram__bytes_read.sum
run_kernel() { # name kernel-filter warm-up-launches command...
  local name=$1 filter=$2 warm=$3
  shift 3
  for c in none all; do
    local base=$O/$name-$c
    timeout 90 "$CLI" profile -o "$base.few.wscope" --kernel-name "$filter" --cache-control "$c" --section SpeedOfLight \
      --metrics "$M" -- "$@" >"$base.few.log" 2>&1
    timeout 120 "$CLI" profile -o "$base.full.wscope" --kernel-name "$filter" --cache-control "$c" --set full \
      -- "$@" >"$base.full.log" 2>&1
    local full
    full=$(python3 "$HERE/metrics-compare.py" names "$base.full.wscope")
    for r in 1 2; do
      timeout 90 "$NCU" --metrics "$M" --cache-control "$c" --clock-control none -k "$filter" -f -o "$base.ncu-few-$r" \
        "$@" >"$base.ncu-few-$r.log" 2>&1
    done
    timeout 150 "$NCU" --metrics "$full,$LAUNCH" --cache-control "$c" --clock-control none -k "$filter" -f \
      -o "$base.ncu-full" "$@" >"$base.ncu-full.log" 2>&1
    for r in ncu-few-1 ncu-few-2 ncu-full; do
      python3 "$HERE/metrics-ncu-export.py" "$base.$r.ncu-rep" "$base.$r.csv" >/dev/null 2>&1 ||
        "$NCU" --import "$base.$r.ncu-rep" --csv --page raw --print-units base >"$base.$r.csv" 2>/dev/null
    done
    grep -h "pass" "$base.ncu-few-1.log" | head -1
    python3 - "$name" "$c" "$base" "$warm" <<'PY'
import importlib.util, os, statistics, sys
spec = importlib.util.spec_from_file_location("mc", os.path.join("scripts/device/metrics-compare.py"))
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
name, cache, base, warm = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def med(runs, key):
    v = [r["values"].get(key) for r in runs[warm:]]
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")
def show(label, runs):
    d = med(runs, "gpu__time_duration.sum"); sm = med(runs, "sm__cycles_elapsed.avg")
    gpc = med(runs, "gpc__cycles_elapsed.max"); ps = med(runs, "sm__cycles_elapsed.avg.per_second")
    act = med(runs, "sm__cycles_active.avg"); w = med(runs, "dram__bytes_write.sum"); r = med(runs, "dram__bytes_read.sum")
    print(f"{name:10s} {cache:4s} {label:10s} duration {d/1e3:9.2f} us  sm/gpc elapsed {sm/gpc:6.4f}  "
          f"sm elapsed/s {ps/1e9:6.3f} GHz  sm active {act:10.0f}  written {w/1e6:9.3f} MB  read {r/1e6:9.3f} MB  "
          f"launches {len(runs) - warm}")
for label, path in (("ours-few", base + ".few.wscope"), ("ours-full", base + ".full.wscope")):
    try:
        show(label, mc.load_session(path)[0])
    except Exception as e:
        print(f"{name:10s} {cache:4s} {label:10s} no session ({e})")
for label, path in (("ncu-few-1", base + ".ncu-few-1.csv"), ("ncu-few-2", base + ".ncu-few-2.csv"),
                    ("ncu-full", base + ".ncu-full.csv")):
    try:
        show(label, mc.load_ncu(path)[0])
    except Exception as e:
        print(f"{name:10s} {cache:4s} {label:10s} no csv ({e})")
PY
  done
}
k=$("$SUITE" --list | awk '$1 == "stream" {print $2}')
run_kernel stream "regex:^$k" 2 "$SUITE" stream --warmup 2 --iters 2
run_kernel softmax "regex:softmax_kernel" 1 python3 "$OPS" triton_softmax --launches 4
rm -f "$O"/*.ncu-rep "$O"/*.wscope
