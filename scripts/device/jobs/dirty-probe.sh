#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18: how many dirty L2 lines a pass starts with, ncu against ours, as a function of what the
# kernel writes. warpscope-dirtyprobe's probe_read_sum reads 1 GiB (far more than L2, so every line
# a pass starts with is evicted during it) and writes 32 KiB of partial sums into an allocation of
# 2 or 256 MiB, the same values every launch (`same`) or added to what is there (`inc`). Its DRAM
# bytes written are its own 32 KiB plus the dirty lines its pass started with. For each case and
# cache control: ncu with the DRAM metrics alone (one pass: no replay, no save or restore), ncu with
# our whole --set full list (as the fidelity jobs), ours with the metrics and with --set full.
# Prints one line per run: the medians of the measured launches (the first 2 of 4 dropped).
# PROBE_CASES (default "same-2 same-256 inc-2 inc-256"), PROBE_CACHE (default "none all"),
# PROBE_ONE=0 leaves out the one-pass runs; PROBE_EXTRA="CACHE=VAR=VALUE ..." adds a run of ours
# with --set full and that environment for that cache control (label ours-x).
# Usage on the device: bash scripts/device.sh run dirty-probe
set -u
O=${1:-/tmp/dirty-probe}
. "$PWD/scripts/device/profiler-job-env.sh"
PROBE=$WS_DEVICE_BIN/warpscope-dirtyprobe
LAUNCH=$(python3 "$HERE/metrics-compare.py" launch-names)
M=dram__bytes_write.sum,dram__bytes_read.sum,gpu__time_duration.sum
K=probe_read_sum
echo "== $(date -u +%FT%TZ)"; timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
timeout 30 "$PROBE" --alloc-mib 2 --values inc
full=""
for case in ${PROBE_CASES:-same-2 same-256 inc-2 inc-256}; do
  vals=${case%-*}; mib=${case#*-}
  ARGS="--alloc-mib $mib --values $vals --launches 4"
  for c in ${PROBE_CACHE:-none all}; do
    base=$O/$case-$c
    timeout 60 "$CLI" profile -o "$base.full.wscope" --kernel-name "regex:^$K" --cache-control "$c" --set full \
      -- "$PROBE" $ARGS >"$base.full.log" 2>&1
    [ -z "$full" ] && full=$(python3 "$HERE/metrics-compare.py" names "$base.full.wscope")
    if [ "${PROBE_ONE:-1}" = 1 ]; then
      timeout 60 "$CLI" profile -o "$base.one.wscope" --kernel-name "regex:^$K" --cache-control "$c" --section SpeedOfLight \
        --metrics "$M" -- "$PROBE" $ARGS >"$base.one.log" 2>&1
      timeout 60 "$NCU" --metrics "$M" --cache-control "$c" --clock-control none -k "regex:^$K" -f -o "$base.ncu-one" \
        "$PROBE" $ARGS >"$base.ncu-one.log" 2>&1
    fi
    for x in ${PROBE_EXTRA:-}; do
      [ "${x%%=*}" = "$c" ] || continue
      env "${x#*=}" timeout 60 "$CLI" profile -o "$base.x.wscope" --kernel-name "regex:^$K" --cache-control "$c" \
        --set full -- "$PROBE" $ARGS >"$base.x.log" 2>&1
    done
    timeout 120 "$NCU" --metrics "$full,$LAUNCH" --cache-control "$c" --clock-control none -k "regex:^$K" -f \
      -o "$base.ncu-full" "$PROBE" $ARGS >"$base.ncu-full.log" 2>&1
    for r in ncu-one ncu-full; do
      python3 "$HERE/metrics-ncu-export.py" "$base.$r.ncu-rep" "$base.$r.csv" >/dev/null 2>&1 ||
        "$NCU" --import "$base.$r.ncu-rep" --csv --page raw --print-units base >"$base.$r.csv" 2>/dev/null
    done
    grep -h "dirtyprobe:" "$base".*.log | sort | uniq -c
    python3 - "$case" "$c" "$base" <<'PY'
import importlib.util, os, statistics, sys
spec = importlib.util.spec_from_file_location("mc", os.path.join("scripts/device/metrics-compare.py"))
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
case, cache, base = sys.argv[1:4]
def med(runs, name, scale):
    v = [r["values"].get(name) for r in runs[2:]]
    v = [x for x in v if x is not None]
    return f"{statistics.median(v) / scale:10.3f}" if v else "       n/a"
def show(label, runs):
    print(f"{case:9s} {cache:4s} {label:9s} written MB {med(runs, 'dram__bytes_write.sum', 1e6)}"
          f"  read MB {med(runs, 'dram__bytes_read.sum', 1e6)}  duration us {med(runs, 'gpu__time_duration.sum', 1e3)}"
          f"  launches {len(runs)}")
for label, path, load in (("ours-one", base + ".one.wscope", lambda p: mc.load_session(p)[0]),
                          ("ours-full", base + ".full.wscope", lambda p: mc.load_session(p)[0]),
                          ("ours-x", base + ".x.wscope", lambda p: mc.load_session(p)[0]),
                          ("ncu-one", base + ".ncu-one.csv", lambda p: mc.load_ncu(p)[0]),
                          ("ncu-full", base + ".ncu-full.csv", lambda p: mc.load_ncu(p)[0])):
    if not os.path.exists(path) and not os.path.exists(path.replace(".csv", ".ncu-rep")):
        continue
    try:
        show(label, load(path))
    except Exception as e:
        print(f"{case:9s} {cache:4s} {label:9s} no result ({e})")
PY
  done
done
grep -h "passes" "$O"/*.ncu-full.log | head -2
rm -f "$O"/*.ncu-rep
