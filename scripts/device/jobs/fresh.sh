#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Programs the collectors were not written against, used as a new user would (<= 140 s):
# ws-example-iket-streams (two streams at once, 2-D grid and blocks, nested and overlapping ranges,
# events lost four ways) without and under `record`, then info, warp-roles, dependencies and a
# Perfetto export of its session; examples/python/torch_phases.py (~6 s of PyTorch phases of
# different kinds) under `record --gpu-metrics`, its coverage (pm-coverage.py) and info.
# Never stops at the first failure; the logs are the evidence. FRESH_PARTS=small: only the small
# recording of ws-example-iket-streams kept as a session.
# Usage on the device: bash scripts/device.sh run fresh   (this script gets OUTDIR)
set -u
O=${1:-/tmp/fresh}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
T0=$(date +%s)
step() { echo; echo "== $* (t=$(($(date +%s) - T0)) s)"; }
tl() { local left=$((135 - ($(date +%s) - T0))); [ "$left" -lt "$1" ] && echo $((left > 1 ? left : 1)) || echo "$1"; }
trap 'echo "step failed (rc=$?), continuing"' ERR

step environment
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1

# A small session of the same program, kept (a fixture of real losses: tests/fixtures/iket).
step "ws-example-iket-streams 1 6 small, recorded and kept"
timeout "$(tl 30)" "$CLI" record -o "$O/iket-streams-small.wscope" -- "$WS_DEVICE_BIN/ws-example-iket-streams" 1 6 small \
  >"$O/iket-streams-small.record.log" 2>&1
echo "rc=$?" >>"$O/iket-streams-small.record.log"; cat "$O/iket-streams-small.record.log"
ls -la "$O/iket-streams-small.wscope"
[ "${FRESH_PARTS:-all}" = small ] && { step done; exit 0; }

step "ws-example-iket-streams alone"
timeout "$(tl 30)" "$WS_DEVICE_BIN/ws-example-iket-streams" 3 500 >"$O/iket-streams.plain.log" 2>&1
echo "rc=$?" >>"$O/iket-streams.plain.log"; cat "$O/iket-streams.plain.log"

step "ws-example-iket-streams recorded"
timeout "$(tl 40)" "$CLI" record --keep-raw -o "$O/iket-streams.wscope" -- "$WS_DEVICE_BIN/ws-example-iket-streams" 3 500 \
  >"$O/iket-streams.record.log" 2>&1
echo "rc=$?" >>"$O/iket-streams.record.log"; cat "$O/iket-streams.record.log"
rm -rf "$O"/iket-streams.wscope.raw-*
for c in info warp-roles dependencies; do
  step "$c iket-streams"
  timeout "$(tl 20)" "$CLI" "$c" "$O/iket-streams.wscope" >"$O/iket-streams.$c.txt" 2>&1
  echo "rc=$?" >>"$O/iket-streams.$c.txt"; cat "$O/iket-streams.$c.txt"
done
step "export iket-streams"
timeout "$(tl 20)" "$CLI" export "$O/iket-streams.wscope" -o "$O/iket-streams.json" >"$O/iket-streams.export.txt" 2>&1
echo "rc=$?" >>"$O/iket-streams.export.txt"; cat "$O/iket-streams.export.txt"; ls -la "$O/iket-streams.json" 2>&1
python3 - "$O/iket-streams.wscope" >"$O/iket-streams.tables.txt" 2>&1 <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
tabs = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
print("tables:", " ".join(sorted(tabs)))
for t in sorted(tabs):
    if "iket" in t or "warp" in t:
        print(t, db.execute(f"SELECT count(*) FROM {t}").fetchone()[0])
        cols = [r[1] for r in db.execute(f"PRAGMA table_info({t})")]
        print("  columns:", ",".join(cols))
PY
cat "$O/iket-streams.tables.txt"
size=$(stat -c %s "$O/iket-streams.wscope" 2>/dev/null || echo 0)
echo "session bytes: $size"
gzip -f "$O/iket-streams.json" 2>/dev/null

step "ws-example-iket-streams recorded inside a cudaProfilerApi capture range (launch round 2 of 3 only)"
timeout "$(tl 30)" "$CLI" record --capture-range cudaProfilerApi -o "$O/iket-capture.wscope" -- \
  "$WS_DEVICE_BIN/ws-example-iket-streams" 3 200 profiler-range >"$O/iket-capture.record.log" 2>&1
echo "rc=$?" >>"$O/iket-capture.record.log"; cat "$O/iket-capture.record.log"
timeout "$(tl 20)" "$CLI" warp-roles "$O/iket-capture.wscope" 2>&1 | grep -v "^    " | head -40
rm -f "$O/iket-capture.wscope"

step "torch_phases.py alone"
timeout "$(tl 40)" python3 examples/python/torch_phases.py >"$O/torch-phases.plain.log" 2>&1
echo "rc=$?" >>"$O/torch-phases.plain.log"; cat "$O/torch-phases.plain.log"

step "torch_phases.py under record --gpu-metrics"
t0=$(date +%s.%N)
timeout "$(tl 60)" "$CLI" record --gpu-metrics -o "$O/torch-phases.wscope" -- python3 examples/python/torch_phases.py \
  >"$O/torch-phases.record.log" 2>&1
echo "rc=$?" >>"$O/torch-phases.record.log"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "wall_s=%.2f\n", b - a }' >>"$O/torch-phases.record.log"
cat "$O/torch-phases.record.log"
timeout "$(tl 30)" python3 scripts/device/pm-coverage.py "$O/torch-phases.wscope" --json "$O/torch-phases.coverage.json" \
  >"$O/torch-phases.coverage.txt" 2>&1
cat "$O/torch-phases.coverage.txt"
timeout "$(tl 10)" "$CLI" info "$O/torch-phases.wscope" >"$O/torch-phases.info.txt" 2>&1
cat "$O/torch-phases.info.txt"
size=$(stat -c %s "$O/torch-phases.wscope" 2>/dev/null || echo 0)
[ "$size" -gt 2000000 ] && rm -f "$O/torch-phases.wscope" && echo "(session of $size bytes not kept)"
step done
