#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the programs metrics-compare.sh needs from build/metrics into build/metrics/device,
# without debug info, so `run` can carry them (the build tree itself is far over 64 MiB).
set -euo pipefail
B=${1:-build/metrics}
mkdir -p "$B/device"
for f in bin/warpscope-cli lib/libwarpscope-profiler.so bin/warpscope-occupancygrid bin/warpscope-metricsworkload \
  bin/ws-example-gemm-relu; do
  objcopy --strip-debug "$B/$f" "$B/device/$(basename "$f")"
done
du -sh "$B/device"
