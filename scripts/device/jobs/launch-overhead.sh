#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 20 items 3, 6, 4b on an H200 (<= 150 s); never stops at the first failure.
#  1. launch overhead: bench_launch_overhead runs empty <<<1,32>>> launches plain, under the bare
#     CUPTI subscriber (libws-bare-cupti.so: kernel + launch API records only) and under
#     `warpscope-cli record` defaults, alternating: ws-launch-cost (bursts, the queue never
#     full) unpinned and pinned, ws-example-launch-bound (one long loop), and ablations.
#  2. stream ids: ws-example-stream-ids prints cudaStreamGetId of its streams plain, under the
#     bare subscriber and variants of it (which CUPTI setting shifts the program's ids), under
#     the recorder's library and under record; the
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

step "1. launch overhead, alternating runs"
nvidia-smi topo -m 2>&1 | head -4
lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\)|NUMA node|Thread|Core|Socket)' | head -8
LO="$BIN/bench_launch_overhead --cli $CLI --bare $BARE --inject $INJECT --out $T --timeout 20"
verdict() { # FILE LABEL: PASS/FAIL on the RESULT line's median figure
  local pct
  pct=$(grep -m1 '^RESULT ' "$1" | sed -n 's/.* beyond_cupti_pct=\([-0-9.na]*\).*/\1/p')
  if [ -z "$pct" ]; then echo "FAIL $2: no RESULT line"; return; fi
  awk -v p="$pct" 'BEGIN { exit !(p <= 10) }' && echo "PASS $2: recorder beyond CUPTI ${pct} % (goal <= 10 %)" ||
    echo "FAIL $2: recorder beyond CUPTI ${pct} % (goal <= 10 %)"
  grep '^RESULT' "$1"
}
echo "-- 1a. ws-launch-cost (bursts of 256, queue never full): plain / bare CUPTI / record, 16 repetitions"
timeout 50 $LO --program "$BIN/ws-launch-cost" --launches 30000 --reps ${WS_LO_REPS:-16} \
  --mode plain:plain --mode bare:bare --mode record:record | tee "$O/overhead.txt" | tail -6
verdict "$O/overhead.txt" overhead
echo "-- 1b. the same pinned to CPUs 8-11"
timeout 25 $LO --program "$BIN/ws-launch-cost" --launches 30000 --reps 8 --cpus 8-11 \
  --mode plain:plain --mode bare:bare --mode record:record | tee "$O/overhead-pinned.txt" | tail -6
verdict "$O/overhead-pinned.txt" overhead-pinned
echo "-- 1c. ws-example-launch-bound (one loop of 30000, the issue's program), 8 repetitions"
timeout 25 $LO --program "$BIN/ws-example-launch-bound" --launches 30000 --reps 8 \
  --mode plain:plain --mode bare:bare --mode record:record | tee "$O/overhead-launch-bound.txt" | tail -6
verdict "$O/overhead-launch-bound.txt" overhead-launch-bound
echo "-- 1d. ablations: the recorder's library without the launcher, without its periodic flush; bare + one setting"
timeout 25 $LO --program "$BIN/ws-launch-cost" --launches 30000 --reps 5 \
  --mode plain:plain --mode bare:bare --mode inject:inject --mode inject-noflush:inject:WS_CUPTI_FLUSH_MS=0 \
  --mode bare+monotonic:bare:WS_BARE=monotonic --mode bare+systemtid:bare:WS_BARE=systemtid | tee "$O/overhead-ablations.txt" | tail -8
for f in "$T"/bare.stderr "$T"/record.stderr "$T"/inject.stderr; do
  echo "-- $(basename "$f")"; tail -3 "$f" 2>/dev/null
done

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
sid bare+all CUDA_INJECTION64_PATH=$BARE WS_BARE=monotonic,systemtid,subscribe,streams,kinds,apis,flush
sid bare-nokernel CUDA_INJECTION64_PATH=$BARE WS_BARE=nokernel
sid bare-noapi CUDA_INJECTION64_PATH=$BARE WS_BARE=noapi
sid bare-serialkernel CUDA_INJECTION64_PATH=$BARE WS_BARE=serialkernel
sid bare-late CUDA_INJECTION64_PATH=$BARE WS_BARE=late,subscribe,streams
sid bare-nothing CUDA_INJECTION64_PATH=$BARE WS_BARE=nokernel,noapi
mkdir -p "$T/sid.raw"
sid inject CUDA_INJECTION64_PATH=$INJECT WS_RAW_DIR=$T/sid.raw WS_TRACE=cuda
sid inject-late CUDA_INJECTION64_PATH=$INJECT WS_RAW_DIR=$T/sid.raw WS_TRACE=cuda WS_CUPTI_KERNELS=late
echo "-- record with kernel records enabled at the first context (WS_CUPTI_KERNELS=late): ids, and all 3000 kernels of launch-bound 2000?"
WS_CUPTI_KERNELS=late timeout 30 "$CLI" record -o "$T/late.wscope" -- "$BIN/ws-example-stream-ids" 2>&1 | grep -E '^(STREAM|LEGACY)' | tr '\n' ' '; echo
WS_CUPTI_KERNELS=late timeout 30 "$CLI" record -o "$T/late-lb.wscope" -- "$BIN/ws-example-launch-bound" --launches 2000 2>&1 | grep -E 'wrote|RESULT'
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
ok = len(rec) == 4 and stored == rec and streams == rec
print(("PASS" if ok else "FAIL") + " stream-ids: session stores the ids the program printed under record")
print("INFO stream-ids: the program's ids %s under record, %s without (CUPTI's own stream shifts them)" % (rec, plain))
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
