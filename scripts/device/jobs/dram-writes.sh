#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18: where ncu's extra ~2.1 MB of DRAM writes per kernel come from (docs/kernel-metrics.md,
# "A second suite"). On three kernels of warpscope-fidelitysuite that write little or nothing
# (strided: streams 512 MiB of reads; fp64: compute only; l2reuse: L2-resident reads), both cache
# controls: ncu with dram__bytes_write.sum alone (one pass), ncu with our whole --set full list
# (as in the fidelity job), ours with the metric alone and with --set full. Prints one line per
# run: the medians of the measured launches' DRAM bytes written and read.
# Usage on the device: bash scripts/device.sh run dram-writes   (this script gets OUTDIR)
set -u
O=${1:-/tmp/dram-writes}
. "$PWD/scripts/device/profiler-job-env.sh"
SUITE=$WS_DEVICE_BIN/warpscope-fidelitysuite
LAUNCH=$(python3 "$HERE/metrics-compare.py" launch-names)
M=dram__bytes_write.sum,dram__bytes_read.sum
for mode in strided fp64 l2reuse; do
  k=$("$SUITE" --list | awk -v m="$mode" '$1 == m {print $2}')
  for c in all none; do
    base=$O/$mode-$c
    timeout 60 "$CLI" profile -o "$base.one.wscope" --kernel-name "regex:^$k" --cache-control "$c" --section SpeedOfLight \
      --metrics "$M" -- "$SUITE" "$mode" --warmup 2 --iters 2 >"$base.one.log" 2>&1
    timeout 90 "$CLI" profile -o "$base.full.wscope" --kernel-name "regex:^$k" --cache-control "$c" --set full \
      -- "$SUITE" "$mode" --warmup 2 --iters 2 >"$base.full.log" 2>&1
    full=$(python3 "$HERE/metrics-compare.py" names "$base.full.wscope")
    timeout 60 "$NCU" --metrics "$M" --cache-control "$c" --clock-control none -k "regex:^$k" -f -o "$base.ncu-one" \
      "$SUITE" "$mode" --warmup 2 --iters 2 >"$base.ncu-one.log" 2>&1
    timeout 120 "$NCU" --metrics "$full,$LAUNCH" --cache-control "$c" --clock-control none -k "regex:^$k" -f \
      -o "$base.ncu-full" "$SUITE" "$mode" --warmup 2 --iters 2 >"$base.ncu-full.log" 2>&1
    for r in ncu-one ncu-full; do
      python3 "$HERE/metrics-ncu-export.py" "$base.$r.ncu-rep" "$base.$r.csv" >/dev/null 2>&1 ||
        "$NCU" --import "$base.$r.ncu-rep" --csv --page raw --print-units base >"$base.$r.csv" 2>/dev/null
    done
    python3 - "$mode" "$c" "$base" <<'PY'
import importlib.util, os, statistics, sys
spec = importlib.util.spec_from_file_location("mc", os.path.join("scripts/device/metrics-compare.py"))
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
mode, cache, base = sys.argv[1:4]
def show(label, runs):
    w = [r["values"].get("dram__bytes_write.sum") for r in runs[2:]]
    rd = [r["values"].get("dram__bytes_read.sum") for r in runs[2:]]
    w = [x for x in w if x is not None]; rd = [x for x in rd if x is not None]
    fmt = lambda v: f"{statistics.median(v) / 1e6:10.3f}" if v else "       n/a"
    print(f"{mode:8s} {cache:4s} {label:9s} written MB {fmt(w)}  read MB {fmt(rd)}  launches {len(w)}")
for label, path in (("ours-one", base + ".one.wscope"), ("ours-full", base + ".full.wscope")):
    try:
        show(label, mc.load_session(path)[0])
    except Exception as e:
        print(f"{mode:8s} {cache:4s} {label:9s} no session ({e})")
for label, path in (("ncu-one", base + ".ncu-one.csv"), ("ncu-full", base + ".ncu-full.csv")):
    try:
        show(label, mc.load_ncu(path)[0])
    except Exception as e:
        print(f"{mode:8s} {cache:4s} {label:9s} no csv ({e})")
PY
  done
done
rm -f "$O"/*.ncu-rep
