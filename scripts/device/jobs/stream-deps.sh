#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-stream dependencies (issue 20 item 5) on the H200 (<= 90 s): ws-example-stream-deps
# (a fork-join over three streams through events) run bare, then recorded by warpscope-cli
# record (default settings: the event record / stream wait callbacks are on by default), its
# dependencies printed (warpscope-cli dependencies) and checked against what the program
# issued; once more with --all-api (the API records of the same calls, for the correlation ids);
# the session kept as a fixture (<= 2 MB) with its raw file, and its Chrome trace export.
# PASS/FAIL lines; never stops at the first failure.
# Usage (repo root): scripts/device.sh run stream-deps   (this script gets OUTDIR)
set -u
O=${1:-/tmp/stream-deps-out}
mkdir -p "$O"
CLI=$WS_DEVICE_BIN/warpscope-cli
EX=$WS_DEVICE_BIN/ws-example-stream-deps
LOG=$O/device.log
exec > >(tee -a "$LOG") 2>&1
step() { echo; echo "== $* ($(date +%T))"; }
trap 'echo "step failed (rc=$?), continuing"' ERR
ITER=3

step "environment"
timeout 5 nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
ls -la "$CLI" "$EX" "$WS_DEVICE_LIB/libwarpscope-inject.so" 2>&1

step "example without the recorder"
timeout 20 "$EX" --iterations $ITER 2>&1 | tee "$O/bare.txt"
echo "rc=${PIPESTATUS[0]}"

# record NAME [record options...]: $O/NAME.wscope, its raw file in $O/raw/NAME/
record() {
    local name=$1; shift
    step "record $name ($*)"
    timeout 30 "$CLI" record --keep-raw "$@" -o "$O/$name.wscope" -- "$EX" --iterations $ITER >"$O/$name.log" 2>&1
    echo "rc=$?" >>"$O/$name.log"
    cat "$O/$name.log"
    mkdir -p "$O/raw/$name"
    cp "$O/$name.wscope".raw-*/ws-*.raw "$O/raw/$name/" 2>/dev/null
    rm -rf "$O/$name.wscope".raw-*
    ls -la "$O/raw/$name" "$O/$name.wscope" 2>&1
}
record stream_deps
record stream_deps_allapi --all-api

for name in stream_deps stream_deps_allapi; do
    step "dependencies of $name"
    timeout 20 "$CLI" dependencies "$O/$name.wscope" | tee "$O/$name.deps.txt"
    timeout 20 "$CLI" dependencies --csv "$O/$name.wscope" >"$O/$name.deps.csv"
    timeout 20 "$CLI" info "$O/$name.wscope" >"$O/$name.info.txt" 2>&1
    head -60 "$O/$name.info.txt"
    # Expected: per iteration produce->consume_b, produce->consume_c, consume_b->combine,
    # consume_c->combine on other streams, plus one host wait (cudaEventSynchronize) on combine.
    python3 - "$O/$name.deps.csv" $ITER <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
it = int(sys.argv[2])
waits = [r for r in rows if r["wait_kind"] == "wait"]
syncs = [r for r in rows if r["wait_kind"] == "sync"]
pairs = sorted((r["producer"], r["consumer"]) for r in waits)
want = sorted([("produce", "consume_b"), ("produce", "consume_c"), ("consume_b", "combine"), ("consume_c", "combine")] * it)
print("stream waits:", len(waits), "host syncs:", len(syncs))
print("pairs:", pairs)
print("PASS" if pairs == want else "FAIL", "dependencies: producer -> consumer pairs as the program issued them")
ok = len(syncs) == 1 and syncs[0]["producer"] == "combine"
print("PASS" if ok else "FAIL", "cudaEventSynchronize depends on the last combine")
streams = {r["producer_stream"] for r in waits} | {r["consumer_stream"] for r in waits}
print("PASS" if len(streams) == 3 else "FAIL", "three streams:", sorted(streams))
PY
done

step "event_op rows and the API records of the same calls (--all-api)"
python3 - "$O/stream_deps_allapi.wscope" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT e.kind, e.correlation_id, e.stream_id, e.domain, e.cbid, "
                  "(SELECT s.text FROM api_call a JOIN string s ON s.id = a.name WHERE a.pid = e.pid AND a.correlation_id = e.correlation_id) "
                  "FROM event_op e ORDER BY e.id").fetchall()
for r in rows[:40]:
    print(r)
joined = sum(1 for r in rows if r[5])
print("event_op rows:", len(rows), "with an API record of the same correlation id:", joined)
print("PASS" if rows and joined == len(rows) else "FAIL", "every event_op row's correlation id names its API call")
cols = [r[1] for r in db.execute("PRAGMA table_info(event_op)")]
if "op_table" in cols:
    unresolved = db.execute("SELECT count(*) FROM event_op WHERE op_table < 0").fetchone()[0]
    anchored = db.execute("SELECT count(*) FROM event_op WHERE op_table > 0").fetchone()[0]
    print("anchored rows:", anchored, "unresolved:", unresolved)
    print("PASS" if unresolved == 0 and anchored > 0 else "FAIL", "ingest anchored every event_op row")
PY

step "chrome trace export (flows)"
timeout 20 "$CLI" export "$O/stream_deps.wscope" --format chrome-json -o "$O/stream_deps.trace.json" 2>&1 | tail -3
python3 - "$O/stream_deps.trace.json" "$O/stream_deps.deps.csv" <<'PY'
import csv, json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAIL export:", e); sys.exit(0)
ev = doc["traceEvents"] if isinstance(doc, dict) else doc
flows = [e for e in ev if e.get("ph") in ("s", "t", "f") and e.get("cat") == "dependency"]
ids = {e["id"] for e in flows}
deps = list(csv.DictReader(open(sys.argv[2])))
# one flow record -> wait (-> consumer) per dependency, one producer -> consumer per dependency with a producer
want = len(deps) + sum(1 for d in deps if d["producer_table"] != "none")
print("dependency flow events:", len(flows), "flows:", len(ids), "expected:", want)
print("PASS" if len(ids) == want and want > 0 else "FAIL", "Chrome trace export has a flow per dependency")
PY

step "cost of the event callbacks: host time to issue an iteration, alternating rounds"
# 20000 iterations of 4 launches + 3 event records + 4 stream waits, kernels of 0 us: bare,
# recorded, recorded with the event callbacks off (WS_CUPTI_KINDS_OFF=events). The program
# prints its own issue time per iteration.
N=20000
per() { grep -o 'issue_us_per_iteration=[0-9.]*' "$1" | cut -d= -f2; }
: >"$O/cost.tsv"
timeout 20 "$EX" --iterations 2000 --spin-us 0 >/dev/null 2>&1; echo "warm-up rc=$?"
for round in 1 2 3 4 5; do
    timeout 20 "$EX" --iterations $N --spin-us 0 >"$O/cost.out" 2>&1
    printf 'bare\t%s\n' "$(per "$O/cost.out")" >>"$O/cost.tsv"
    timeout 30 "$CLI" record -o "$O/cost.wscope" -- "$EX" --iterations $N --spin-us 0 >"$O/cost.out" 2>&1
    printf 'recorded\t%s\n' "$(per "$O/cost.out")" >>"$O/cost.tsv"
    if [ $round = 1 ]; then timeout 20 "$CLI" dependencies "$O/cost.wscope" | head -1; fi
    WS_CUPTI_KINDS_OFF=events timeout 30 "$CLI" record -o "$O/cost.wscope" -- "$EX" --iterations $N --spin-us 0 >"$O/cost.out" 2>&1
    printf 'recorded-events-off\t%s\n' "$(per "$O/cost.out")" >>"$O/cost.tsv"
    if [ $round = 1 ]; then timeout 20 "$CLI" dependencies "$O/cost.wscope" | head -1; fi
done
rm -f "$O/cost.wscope" "$O/cost.out"
cat "$O/cost.tsv"
python3 - "$O/cost.tsv" <<'PY'
import statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if "\t" in l]
by = {}
for k, v in rows:
    if v.strip():
        by.setdefault(k, []).append(float(v))
med = {k: statistics.median(v) for k, v in by.items()}
for k, v in med.items():
    print(f"median {k}: {v:.3f} us per iteration ({len(by[k])} rounds)")
if "recorded" in med and "recorded-events-off" in med:
    d = med["recorded"] - med["recorded-events-off"]
    print(f"event callbacks: {d:.3f} us per iteration = {d / 7 * 1000:.0f} ns per event record / stream wait (7 per iteration)")
PY

step "fixture size"
size=$(stat -c %s "$O/stream_deps.wscope" 2>/dev/null || echo 0)
echo "stream_deps.wscope: $size bytes"
[ "$size" -gt 0 ] && [ "$size" -le 2097152 ] && echo "PASS session kept as a fixture (<= 2 MB)" || echo "FAIL session size $size"

step "done"
du -sh "$O"/* | sort -h | tail
exit 0
