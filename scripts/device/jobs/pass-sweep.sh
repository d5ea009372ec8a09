#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18, `none`: which of our replay passes holds which counters. ncu's `none` takes its SM
# counters from a pass that starts with dirty lines in L2 (docs/kernel-metrics.md, "What ncu's
# passes see"); to give the same start to the pass of ours that holds them, we must know which it
# is. `profile --set full --cache-control none` of one kernel, once as it is and once per pass p
# with WS_PROFILE_NONE_DIRTY_PASSES=p (L2 filled with dirty lines before pass p only): the
# metrics that move are those pass p collects. Two baselines (their spread is the noise: stall
# ratios move 10-25 % between them), then per pass the raw elapsed/active cycles, duration and
# DRAM counters, the SM elapsed cycles per second and the metrics that moved by more than 2 %.
# PASS_SWEEP_ITERS measured launches per run (default 6).
# PASS_SWEEP_MODE picks the fidelity-suite kernel (default stream).
# Usage on the device: bash scripts/device.sh run pass-sweep   (this script gets OUTDIR)
set -u
O=${1:-/tmp/pass-sweep}
. "$PWD/scripts/device/profiler-job-env.sh"
SUITE=$WS_DEVICE_BIN/warpscope-fidelitysuite
MODE=${PASS_SWEEP_MODE:-stream}
K=$("$SUITE" --list | awk -v m="$MODE" '$1 == m {print $2}')
run() { # label [env assignment]
  local label=$1
  shift
  env "$@" timeout 60 "$CLI" profile -o "$O/$MODE-$label.wscope" --kernel-name "regex:^$K" --cache-control none \
    --set full -- "$SUITE" "$MODE" --warmup 2 --iters "${PASS_SWEEP_ITERS:-6}" >"$O/$MODE-$label.log" 2>&1
  echo "$label rc=$?"
}
run base
run base2 # a second baseline: the spread between two runs without any dirty pass
PASSES=$(sed -n 's/.* \([0-9][0-9]*\) pass(es) per kernel.*/\1/p' "$O/$MODE-base.log" | head -1)
echo "passes: ${PASSES:-?}"
for ((p = 0; p < ${PASSES:-26}; ++p)); do
  run "dirty$p" WS_PROFILE_NONE_DIRTY_PASSES=$p
done
python3 - "$O" "$MODE" "${PASSES:-26}" <<'PY'
import importlib.util, math, os, statistics, sys
spec = importlib.util.spec_from_file_location("mc", os.path.join("scripts/device/metrics-compare.py"))
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
out, mode, passes = sys.argv[1], sys.argv[2], int(sys.argv[3])
def medians(path):
    runs = mc.load_session(path)[0][2:]  # 2 warm-up launches
    keys = set().union(*(r["values"].keys() for r in runs)) if runs else set()
    m = {}
    for k in keys:
        v = [r["values"][k] for r in runs if isinstance(r["values"].get(k), (int, float))]
        if v:
            m[k] = statistics.median(v)
    return m
base = medians(f"{out}/{mode}-base.wscope")
def line(label, m):
    g = lambda k: m.get(k, float("nan"))
    moved = sorted((abs(m[k] - base[k]) / abs(base[k]), k) for k in m
                   if k in base and base[k] and not k.startswith(("launch__", "device__")) and abs(m[k] - base[k]) > 0.02 * abs(base[k]))
    moved.reverse()
    print(f"{label:8s} sm elapsed/s {g('sm__cycles_elapsed.avg.per_second')/1e9:6.3f} GHz  duration {g('gpu__time_duration.sum')/1e3:8.2f} us  "
          f"written {g('dram__bytes_write.sum')/1e6:9.3f} MB  moved >2 %: {len(moved):3d}  "
          + ", ".join(f"{k} {d*100:+.1f}%" for d, k in moved[:8]))
KEYS = ("sm__cycles_elapsed.avg", "gpc__cycles_elapsed.max", "sm__cycles_active.avg", "smsp__cycles_active.avg",
        "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum")
def raw(label, m):
    print(f"{label:8s} " + "  ".join(f"{k.split('.')[0]}={m.get(k, float('nan')):.6g}" for k in KEYS))
line("base", base)
try:
    base2 = medians(f"{out}/{mode}-base2.wscope")
    line("base2", base2)
    raw("base", base); raw("base2", base2)
except Exception as e:
    print(f"base2: no session ({e})")
for p in range(passes):
    try:
        raw(f"dirty{p}", medians(f"{out}/{mode}-dirty{p}.wscope"))
    except Exception:
        pass
for p in range(passes):
    try:
        line(f"dirty{p}", medians(f"{out}/{mode}-dirty{p}.wscope"))
    except Exception as e:
        print(f"dirty{p}: no session ({e})")
PY
rm -f "$O"/*.wscope
