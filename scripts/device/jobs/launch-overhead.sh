#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 20 items 3, 6, 4b on an H200 (<= 150 s); never stops at the first failure.
#  1. launch overhead: bench_launch_overhead runs ws-example-launch-bound (empty <<<1,32>>>
#     kernels) plain, under the bare CUPTI subscriber (libws-bare-cupti.so: kernel + launch API
#     records only), under `warpscope-cli record` defaults, and ablations (bare + one recorder
#     setting; the recorder's library with one setting off), all in one alternating run.
#  2. stream ids: ws-example-stream-ids prints cudaStreamGetId of its streams plain, under the
#     bare subscriber and its variants, under the recorder's library and under record; the
#     session's memset stream ids must equal what the program printed, and the program's ids
#     must not move under the recorder.
#  3. post-run wait: record --keep-raw of 355k empty-kernel launches (710k events): the record
#     command's "after exit" phases, then `warpscope-cli ingest` of the kept raw file.
# Staged (scripts/device.sh stage launch-overhead): $WS_DEVICE_BIN, $WS_DEVICE_LIB.
set -u
O=${1:-/tmp/launch-overhead-out}
mkdir -p "$O"
CLI=$WS_DEVICE_BIN/warpscope-cli
BIN=$WS_DEVICE_BIN
INJECT=$WS_DEVICE_LIB/libwarpscope-inject.so
BARE=$WS_DEVICE_LIB/libws-bare-cupti.so
LOG=$O/device.log
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "== $* ($(date +%T))"; }
now() { date +%s.%N; }
T=$(mktemp -d)

step "environment"
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nproc; uname -r
ls -la "$CLI" "$INJECT" "$BARE" "$BIN/bench_launch_overhead" "$BIN/ws-example-launch-bound" "$BIN/ws-example-stream-ids" 2>&1

step "1. launch overhead, one alternating run"
timeout 90 "$BIN/bench_launch_overhead" --program "$BIN/ws-example-launch-bound" --cli "$CLI" --bare "$BARE" \
  --inject "$INJECT" --out "$T" --launches ${WS_LO_LAUNCHES:-30000} --reps ${WS_LO_REPS:-4} --timeout 20 \
  --mode plain:plain --mode bare:bare --mode record:record --mode inject:inject \
  --mode bare+monotonic:bare:WS_BARE=monotonic --mode bare+systemtid:bare:WS_BARE=systemtid \
  --mode bare+subscribe:bare:WS_BARE=subscribe,streams --mode bare+kinds:bare:WS_BARE=kinds \
  --mode bare+apis:bare:WS_BARE=apis --mode bare+flush:bare:WS_BARE=flush \
  --mode bare+all:bare:WS_BARE=monotonic,systemtid,subscribe,streams,kinds,apis,flush \
  --mode inject-cuptiTs:inject:WS_CUPTI_TIMESTAMPS=cupti --mode inject-defaultTid:inject:WS_CUPTI_THREAD_IDS=default \
  --mode inject-noflush:inject:WS_CUPTI_FLUSH_MS=0 \
  --mode inject-minimal:inject:WS_CUPTI_KINDS_OFF=sync,overhead,memcpy,memset,driver,subscriber \
  | tee "$O/overhead.txt"
echo "rc=${PIPESTATUS[0]}"
for f in "$T"/bare.stderr "$T"/bare+all.stderr "$T"/record.stderr "$T"/inject.stderr; do
  echo "-- $(basename "$f")"; tail -5 "$f" 2>/dev/null
done
if grep -q '^RESULT' "$O/overhead.txt"; then
  pct=$(sed -n 's/.*beyond_cupti_pct=\([-0-9.]*\).*/\1/p' "$O/overhead.txt")
  awk -v p="$pct" 'BEGIN { exit !(p <= 10) }' && echo "PASS overhead: recorder beyond CUPTI ${pct} % (goal <= 10 %)" ||
    echo "FAIL overhead: recorder beyond CUPTI ${pct} % (goal <= 10 %)"
else
  echo "FAIL overhead: no RESULT line"
fi

step "the recorder's own per-launch work, called directly (timestamp callback, raw writer)"
timeout 20 "$BIN/bench_recorder_hotpath" 1000000 5 | tee "$O/hotpath.txt"

step "perf of the recorder's library in-process (if perf exists here)"
if command -v perf >/dev/null 2>&1; then
  mkdir -p "$T/perf.raw"
  CUDA_INJECTION64_PATH=$INJECT WS_RAW_DIR=$T/perf.raw WS_TRACE=cuda timeout 20 \
    perf record -F 4999 -g -o "$T/perf.data" "$BIN/ws-example-launch-bound" --launches 200000 >/dev/null 2>&1
  timeout 25 perf report -i "$T/perf.data" --stdio --no-children --sort dso,symbol 2>/dev/null | head -120 >"$O/perf-inject.txt"
  head -60 "$O/perf-inject.txt"
else
  echo "no perf on this machine"
fi

step "2. stream ids"
ids() { grep -E '^(STREAM|LEGACY)' "$1" | awk '{print $NF}' | tr '\n' ' '; }
sid() { # NAME env... : runs the program with extra environment, prints its ids
  local name=$1; shift
  env "$@" timeout 20 "$BIN/ws-example-stream-ids" >"$O/streams-$name.txt" 2>"$T/streams-$name.err"
  echo "$name: rc=$? ids=$(ids "$O/streams-$name.txt") $(grep -c 'stream created' "$T/streams-$name.err") CUPTI stream-created callbacks: $(grep 'stream created' "$T/streams-$name.err" | awk '{print $NF}' | tr '\n' ' ')"
}
sid plain X=1
sid plain2 X=1
sid bare CUDA_INJECTION64_PATH=$BARE
sid bare+subscribe CUDA_INJECTION64_PATH=$BARE WS_BARE=subscribe,streams
sid bare+kinds CUDA_INJECTION64_PATH=$BARE WS_BARE=kinds
sid bare+monotonic CUDA_INJECTION64_PATH=$BARE WS_BARE=monotonic
sid bare+systemtid CUDA_INJECTION64_PATH=$BARE WS_BARE=systemtid
sid bare+apis CUDA_INJECTION64_PATH=$BARE WS_BARE=apis
sid bare+all CUDA_INJECTION64_PATH=$BARE WS_BARE=monotonic,systemtid,subscribe,streams,kinds,apis,flush
mkdir -p "$T/sid.raw"
sid inject CUDA_INJECTION64_PATH=$INJECT WS_RAW_DIR=$T/sid.raw WS_TRACE=cuda
timeout 30 "$CLI" record -o "$O/streams.wscope" -- "$BIN/ws-example-stream-ids" >"$O/streams-record.txt" 2>"$O/streams-record.err"
echo "record: rc=$? ids=$(ids "$O/streams-record.txt")"
cat "$O/streams-record.err"
python3 - "$O/streams.wscope" "$O/streams-record.txt" "$O/streams-plain.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
stored = sorted(r[0] for r in db.execute("select distinct stream_id from memset"))
streams = sorted(r[0] for r in db.execute("select stream_id from stream"))
meta = dict(db.execute("select key, value from meta"))
def printed(path):
    return sorted(int(l.split()[-1]) for l in open(path) if l.startswith(("STREAM", "LEGACY")))
rec, plain = printed(sys.argv[2]), printed(sys.argv[3])
print("session memset stream ids:", stored, " stream table:", streams)
print("program under record:", rec, " program plain:", plain)
print("stream_id_map:", meta.get("stream_id_map", "(none)"))
print(("PASS" if stored == rec and streams == rec else "FAIL") + " stream-ids: session stores the program's ids")
print(("PASS" if rec == plain else "FAIL") + " stream-ids: program unperturbed under record")
PY

step "3. post-run wait, 355k launches (354000 + 1000 warm-up)"
timeout 20 "$BIN/ws-example-launch-bound" --launches 354000
for rep in 1 2; do
  rm -rf "$T/big.wscope" "$T"/big.wscope.raw-*
  t0=$(now)
  timeout 40 "$CLI" record --keep-raw -o "$T/big.wscope" -- "$BIN/ws-example-launch-bound" --launches 354000 2>&1 | tee "$O/postrun-$rep.txt"
  t1=$(now)
  echo "record rep $rep: whole command $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"
  post=$(sed -n 's/.*total \([0-9.]*\) s.*/\1/p' "$O/postrun-$rep.txt")
  [ -n "$post" ] && { awk -v p="$post" 'BEGIN { exit !(p <= 1.0) }' && echo "PASS postrun: $post s after exit (goal <= 1 s)" ||
    echo "FAIL postrun: $post s after exit (goal <= 1 s)"; }
done
raw=$(ls -d "$T"/big.wscope.raw-* 2>/dev/null | head -1)
ls -la "$raw" "$T/big.wscope" 2>&1
t0=$(now)
timeout 40 "$CLI" ingest -o "$T/again.wscope" "$raw"
t1=$(now)
echo "ingest of the kept raw file: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s"

step "done"
rm -rf "$T"
du -sh "$O"
exit 0
