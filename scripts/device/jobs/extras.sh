#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200: `record --nvtx-timing` against the program's own CUDA events, and
# `record --gpu-metrics` (PM sampling) on GEMM+ReLU. Usage (from the repository root):
#   bash scripts/device.sh run extras   (this script gets OUTDIR)
# Needs $WS_DEVICE_BIN/warpscope-cli and $WS_DEVICE_LIB/libwarpscope-inject.so (scripts/device.sh stage extras)
# and $WS_DEVICE_BIN/{ws-example-nvtx-timing,ws-example-gemm-relu}. About 30 s; never fails.
set -u
O=${1:-/tmp/extras}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
NT=$WS_DEVICE_BIN/ws-example-nvtx-timing
GR=$WS_DEVICE_BIN/ws-example-gemm-relu
T0=$(date +%s)
# The PM sampler's steps on stderr (unbuffered), in the record logs: the last one before a crash shows.
export WS_PM_TRACE=1
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
# Every step's timeout is cut to what is left of 55 s, so the whole script stays under 60 s.
tl() { local left=$((55 - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
trap 'echo "error at line $LINENO (continuing)"' ERR

step environment
timeout $(tl 5) nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader || true
ls -la "$CLI" "$WS_DEVICE_LIB/" "$NT" "$GR" || true

step "baseline: nvtx-timing example without the recorder"
timeout $(tl 15) "$NT" --csv "$O/own-baseline.csv" >"$O/nt-baseline.log" 2>&1; echo "rc=$?"; cat "$O/nt-baseline.log"

step "record --nvtx-timing step (queued iterations)"
timeout $(tl 20) "$CLI" record --keep-raw --nvtx-timing step -o "$O/nvtx-timing.wscope" -- "$NT" --csv "$O/own-queued.csv" \
  >"$O/record-nvtx-timing.log" 2>&1; echo "rc=$?"; cat "$O/record-nvtx-timing.log"
timeout $(tl 10) "$CLI" stats "$O/nvtx-timing.wscope" --report nvtx_timing_sum -f csv >"$O/nvtx-timing-sum.csv" 2>&1
cat "$O/nvtx-timing-sum.csv"

step "record --nvtx-timing step (synchronised iterations: launch gap inside the interval)"
timeout $(tl 20) "$CLI" record --nvtx-timing step -o "$O/nvtx-timing-sync.wscope" -- "$NT" --sync --csv "$O/own-sync.csv" \
  >"$O/record-nvtx-timing-sync.log" 2>&1; echo "rc=$?"; cat "$O/record-nvtx-timing-sync.log"
timeout $(tl 10) "$CLI" stats "$O/nvtx-timing-sync.wscope" --report nvtx_timing_sum -f csv >"$O/nvtx-timing-sync-sum.csv" 2>&1
cat "$O/nvtx-timing-sync-sum.csv"

step "record --gpu-metrics on GEMM+ReLU (timed loop: --capture-range=cudaProfilerApi)"
timeout $(tl 25) "$CLI" record --keep-raw --gpu-metrics --capture-range=cudaProfilerApi -o "$O/gpu-metrics-gemm.wscope" -- "$GR" --iters 200 \
  >"$O/record-gpu-metrics-gemm.log" 2>&1; echo "rc=$?"; cat "$O/record-gpu-metrics-gemm.log"

step "record --gpu-metrics --nvtx-timing together on the nvtx-timing example (whole run, 50 us period)"
timeout $(tl 20) "$CLI" record --keep-raw --gpu-metrics --gpu-metrics-period 50 --nvtx-timing step -o "$O/gpu-metrics-nvtx.wscope" \
  -- "$NT" --iters 20 \
  --csv "$O/own-pm.csv" >"$O/record-gpu-metrics-nvtx.log" 2>&1; echo "rc=$?"; cat "$O/record-gpu-metrics-nvtx.log"

step "record --gpu-metrics, long run (600 steps, ~1 s: set-up finishes long before exit), 100 us period"
timeout $(tl 20) "$CLI" record --gpu-metrics --gpu-metrics-period 100 -o "$O/gpu-metrics-long.wscope" \
  -- "$NT" --iters 600 >"$O/record-gpu-metrics-long.log" 2>&1; echo "rc=$?"; cat "$O/record-gpu-metrics-long.log"

step "record --gpu-metrics on GEMM+ReLU with the set-up inside the context callback (WS_PM_SETUP=sync)"
WS_PM_SETUP=sync timeout $(tl 20) "$CLI" record --gpu-metrics --capture-range=cudaProfilerApi \
  -o "$O/gpu-metrics-gemm-sync.wscope" -- "$GR" --iters 200 >"$O/record-gpu-metrics-gemm-sync.log" 2>&1
echo "rc=$?"; cat "$O/record-gpu-metrics-gemm-sync.log"

step "summary"
timeout $(tl 20) python3 - "$O" <<'PY' || echo "summary failed"
import csv, json, os, sqlite3, statistics, sys
out = sys.argv[1]
res = {}
def own(name):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        return []
    return [float(r["event_ms"]) for r in csv.DictReader(open(p))]
def session(name):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        return None
    return sqlite3.connect("file:" + p + "?mode=ro", uri=True)
def timing(db):
    rows = db.execute("SELECT s.round, s.value, r.unit FROM bench_sample s JOIN bench_run r ON r.id = s.run_id "
                      "WHERE r.implementation LIKE 'nvtx-timing%' AND s.call = -1 ORDER BY s.round").fetchall()
    scale = {"us": 1e-3, "ms": 1.0}.get(rows[0][2], 1.0) if rows else 1.0
    return [v * scale for _, v, _ in rows]
for label, sess, owncsv in (("queued", "nvtx-timing.wscope", "own-queued.csv"),
                            ("synchronised", "nvtx-timing-sync.wscope", "own-sync.csv"),
                            ("with_gpu_metrics", "gpu-metrics-nvtx.wscope", "own-pm.csv")):
    db = session(sess); ev = own(owncsv)
    if db is None or not ev:
        res["nvtx_timing_" + label] = "missing"; continue
    rec = timing(db)
    n = min(len(rec), len(ev))
    per = [abs(rec[i] - ev[i]) / ev[i] * 100 for i in range(n) if ev[i] > 0]
    mr, me = statistics.median(rec) if rec else 0, statistics.median(ev)
    res["nvtx_timing_" + label] = {
        "instances_recorded": len(rec), "instances_program": len(ev),
        "recorder_median_ms": round(mr, 6), "program_median_ms": round(me, 6),
        "median_diff_pct": round((mr - me) / me * 100, 4) if me else None,
        "per_instance_max_abs_diff_pct": round(max(per), 4) if per else None,
        "per_instance_mean_abs_diff_pct": round(statistics.mean(per), 4) if per else None,
        "baseline_program_median_ms": round(statistics.median(own("own-baseline.csv")), 6) if own("own-baseline.csv") else None,
    }
for sess in ("gpu-metrics-gemm.wscope", "gpu-metrics-nvtx.wscope", "gpu-metrics-long.wscope",
             "gpu-metrics-gemm-sync.wscope"):
    db = session(sess)
    if db is None:
        res[sess] = "missing"; continue
    meta = dict(db.execute("SELECT key, value FROM meta"))
    env = dict(db.execute("SELECT key, value FROM environment WHERE key LIKE 'gpu_metrics.%'"))
    tracks = {}
    for tid, name, unit in db.execute("SELECT id, name, unit FROM counter_track"):
        ts = [r[0] for r in db.execute("SELECT ts FROM counter_sample WHERE track_id=? ORDER BY ts", (tid,))]
        vals = [r[0] for r in db.execute("SELECT value FROM counter_sample WHERE track_id=?", (tid,))]
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        tracks[name] = {"samples": len(ts), "period_median_ns": statistics.median(gaps) if gaps else None,
                        "max": round(max(vals), 2) if vals else None, "mean": round(statistics.mean(vals), 2) if vals else None}
    # Do tensor-pipe-busy samples fall inside GEMM kernels? (clock alignment check)
    tid = db.execute("SELECT id FROM counter_track WHERE name='Tensor pipe active'").fetchone()
    inside = None
    if tid:
        busy = [r[0] for r in db.execute("SELECT ts FROM counter_sample WHERE track_id=? AND value > 50", (tid[0],))]
        kern = db.execute("SELECT k.start, k.end FROM kernel k JOIN string s ON s.id = k.short_name "
                          "WHERE s.text LIKE 'nvjet%' OR s.text LIKE '%gemm%'").fetchall()
        if busy and kern:
            kern.sort(); import bisect
            starts = [k[0] for k in kern]
            hit = 0
            for t in busy:
                i = bisect.bisect_right(starts, t) - 1
                if i >= 0 and kern[i][0] - 25000 <= t <= kern[i][1] + 25000: hit += 1
            inside = round(hit / len(busy) * 100, 1)
    res[sess] = {"tracks": tracks, "tensor_busy_samples_within_gemm_pct": inside,
                 "kernels": db.execute("SELECT COUNT(*) FROM kernel").fetchone()[0],
                 "incomplete_gpu_records": meta.get("incomplete_gpu_records"),
                 "meta_gpu_metrics": {k: v for k, v in meta.items() if k.startswith("gpu_metrics")},
                 "environment": env, "recorder_messages": meta.get("recorder_messages", ""),
                 "bytes": os.path.getsize(os.path.join(out, sess))}
json.dump(res, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps(res, indent=1))
PY
ls -la "$O"; du -sh "$O"/*.raw-* 2>/dev/null
step "done"
exit 0
