#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds what the GPU machine runs (it has no Qt and no compiler is needed there) and copies it,
# stripped, to build/rec/device/{bin,lib}: warpscope-cli (SQLite linked statically), the
# injection library and the example programs. Carry build/rec/device with the device call,
# then run scripts/h200/record-all.sh there.
# Usage: scripts/h200/stage.sh [build-dir]   (default build/rec)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/rec}
cmake --build "$B" -j2 --target warpscope-cli warpscope-inject ws-example-gemm-relu ws-example-graphs \
    ws-example-launch-bound ws-example-nvtx-threads
D=$B/device
rm -rf "$D"
mkdir -p "$D/bin" "$D/lib"
for f in warpscope-cli ws-example-gemm-relu ws-example-graphs ws-example-launch-bound ws-example-nvtx-threads; do
    strip --strip-debug -o "$D/bin/$f" "$B/bin/$f"
done
strip --strip-debug -o "$D/lib/libwarpscope-inject.so" "$B/lib/libwarpscope-inject.so"
du -sh "$D"/*
