#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies the programs metrics-compare.sh needs from a build tree (default build/release) into
# DEST (default build/h200/metrics), without debug info, so `run` can carry them (the build tree
# itself is far over 64 MiB). Called by `scripts/h200/all-stage.sh metrics`.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/release}
D=${2:-build/h200/metrics}
cmake --build "$B" -j2 --target warpscope-cli warpscope-profiler warpscope-occupancygrid warpscope-metricsworkload \
  ws-example-gemm-relu
rm -rf "$D"
mkdir -p "$D"
for f in bin/warpscope-cli lib/libwarpscope-profiler.so bin/warpscope-occupancygrid bin/warpscope-metricsworkload \
  bin/ws-example-gemm-relu; do
  objcopy --strip-debug "$B/$f" "$D/$(basename "$f")"
done
du -sh "$D"
