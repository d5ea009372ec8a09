#!/usr/bin/env bash
# Issue 20's table on one tree in one sitting (2-core VM, nothing else of ours running):
# open -> drawn and kernel panels (10 runs), bench_import (3), bench_record_ingest (3),
# bench_ui_timeline 10M and 100M (3). Usage: run.sh BUILD_DIR DATA_DIR OUT_DIR
set -u
B=${1:?build dir}; D=${2:?data dir}; O=${3:?out dir}
mkdir -p "$D" "$O"
stamp() { echo "# $(date -u '+%F %T') UTC; $(uptime)"; }
S=$D/synth-10M.wscope
[ -f "$S" ] || "$B/bin/warpscope-cli" synth --events 10000000 --seed 42 -o "$S" >"$O/synth.txt" 2>&1
{
  stamp
  echo "# command per run: WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen $B/bin/warpscope $S --quit-after 9000 (one discarded warm-up run)"
  WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen "$B/bin/warpscope" "$S" --quit-after 9000 >/dev/null 2>&1
  for i in $(seq 1 10); do
    echo "== run $i; $(uptime)"
    WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen "$B/bin/warpscope" "$S" --quit-after 9000 2>&1 | grep 'startup'
  done
} >"$O/startup-10M.txt"
for i in 1 2 3; do
  { stamp; echo "# command: /usr/bin/time -v $B/tests/bench/bench_import"; /usr/bin/time -v "$B/tests/bench/bench_import"; } >"$O/bench_import-$i.txt" 2>&1
done
for i in 1 2 3; do
  { stamp; echo "# command: $B/tests/bench/bench_record_ingest"; "$B/tests/bench/bench_record_ingest"; } >"$O/bench_record_ingest-$i.txt" 2>&1
done
for i in 1 2 3; do
  { stamp; echo "# command: QT_QPA_PLATFORM=offscreen $B/tests/bench/bench_ui_timeline --sizes 10M,100M --dir $D --keep"
    QT_QPA_PLATFORM=offscreen "$B/tests/bench/bench_ui_timeline" --sizes 10M,100M --dir "$D" --keep; } >"$O/bench_ui_timeline-$i.txt" 2>&1
done
stamp >"$O/done.txt"
