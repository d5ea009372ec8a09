#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One device call that runs every collector's H200 script in turn and packs each one's results
# as $OUT/<name>.tar.gz (the device tool returns at most 8 files). Staged binaries live under
# build/h200/ (scripts/h200/all-stage.sh builds and strips them here; carry build/h200).
# Usage on the device, from the repository root: bash scripts/h200/all-device.sh "$OUT" [names...]
set -uo pipefail
out=${1:?usage: all-device.sh OUT [names...]}
shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(iket extras pcsampling compare)
mkdir -p "$out"
chmod -R u+x build/h200 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >"$out/gpu.txt" 2>&1
for n in "${names[@]}"; do
  s=scripts/h200/$n-device.sh
  [ -f "$s" ] || s=scripts/h200/$n.sh
  limit=75
  [ "$n" = ddp-2gpu ] && limit=130
  [ "$n" = metrics ] && limit=${METRICS_LIMIT:-400}
  d=$(mktemp -d)/$n
  mkdir -p "$d"
  start=$SECONDS
  if [ -f "$s" ]; then
    timeout -k 5 "$limit" bash "$s" build/h200 "$d" >"$d/run.log" 2>&1
    echo "rc=$?" >>"$d/run.log"
  else
    echo "missing $s" >"$d/device.log"
  fi
  echo "$n: $((SECONDS - start)) s" | tee -a "$out/timings.txt"
  tar -C "$(dirname "$d")" -czf "$out/$n.tar.gz" "$n"
done
ls -la "$out"
