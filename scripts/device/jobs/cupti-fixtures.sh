#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 19 item 3: CUPTI's own bytes as fixtures, so CI replays them through the same conversion
# and evaluation code without a GPU (tests/cupti, tests/fixtures/cupti/README.md).
#   trace:   record GEMM+ReLU with WS_CUPTI_CAPTURE: every activity buffer CUPTI completed (valid
#            bytes, record offsets and kinds, struct versions, names), the raw file and the session
#            recorded from them in the same run.
#   profile: profile --launch-count 1 of its first GEMM with WS_CUPTI_CAPTURE: the decoded
#            counter-data image, the config and counter-availability images, the values evaluated
#            in the process, and the profile session of the same run.
# Usage (repo root): scripts/device.sh run cupti-fixtures   (this script gets OUTDIR). About 20 s.
# Prints PASS/FAIL per check and never stops at the first failure; exit 1 when any check failed.
set -u
O=${1:?usage: cupti-fixtures.sh OUTDIR}
mkdir -p "$O"
exec > >(tee "$O/device.log") 2>&1
CLI=$WS_DEVICE_BIN/warpscope-cli
GR=$WS_DEVICE_BIN/ws-example-gemm-relu
T0=$(date +%s)
fails=0
step() { echo "== $* (t=$(($(date +%s) - T0)) s)"; }
check() { # check NAME COMMAND...: PASS/FAIL line
  local name=$1
  shift
  if "$@" >/dev/null 2>&1; then echo "PASS $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}

step environment
date -u +%FT%TZ
timeout 5 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "command: WS_CUPTI_CAPTURE=DIR warpscope-cli record --keep-raw / profile --launch-count 1 -- ws-example-gemm-relu --size 1024 --warmup 1 --iters 3"

step "trace with the activity capture"
rm -rf "$O/trace"
mkdir -p "$O/trace"
WS_CUPTI_CAPTURE=$O/trace/capture timeout 40 "$CLI" record --keep-raw -o "$O/trace/trace.wscope" -- \
  "$GR" --size 1024 --warmup 1 --iters 3
echo "rc=$?"
# The raw file the same run wrote (the converter's live output), beside the capture.
cp "$O"/trace/trace.wscope.raw*/ws-*.raw "$O/trace/" 2>/dev/null
rm -rf "$O"/trace/trace.wscope.raw*/
ls -laR "$O/trace"
check "trace session written" test -s "$O/trace/trace.wscope"
check "raw file kept" compgen -G "$O/trace/ws-*.raw"
check "activity capture has a manifest" compgen -G "$O/trace/capture/ws-*.cupti/manifest.tsv"
check "activity capture has buffers" compgen -G "$O/trace/capture/ws-*.cupti/buffer-*.bin"
head -n 20 "$O"/trace/capture/ws-*.cupti/manifest.tsv | cut -c1-200
grep -c '^buffer' "$O"/trace/capture/ws-*.cupti/manifest.tsv
timeout 20 "$CLI" info "$O/trace/trace.wscope" | head -40

step "profile one launch with the counter-data capture"
rm -rf "$O/profile"
mkdir -p "$O/profile"
WS_CUPTI_CAPTURE=$O/profile/capture timeout 60 "$CLI" profile --launch-count 1 -o "$O/profile/profile.wscope" -- \
  "$GR" --size 1024 --warmup 1 --iters 3
echo "rc=$?"
ls -laR "$O/profile"
check "profile session written" test -s "$O/profile/profile.wscope"
check "counter-data image captured" compgen -G "$O/profile/capture/ws-*.rangeprofiler/decode-*/counterdata.bin"
check "values evaluated in the process" grep -q '^value' $O/profile/capture/ws-*.rangeprofiler/decode-*/manifest.tsv
cat "$O"/profile/capture/ws-*.rangeprofiler/decode-*/manifest.tsv | head -80
timeout 20 "$CLI" info "$O/profile/profile.wscope" | head -40

step "sizes"
du -sh "$O/trace" "$O/profile"
du -ab "$O" | sort -n | tail -15
step "done: $fails check(s) failed"
[ "$fails" -eq 0 ]
