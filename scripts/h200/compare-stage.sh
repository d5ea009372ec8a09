#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages what scripts/h200/compare-device.sh runs besides the lead's common warpscope-cli and
# injection/profiler libraries (build/h200/common/{bin,lib}): the GEMM+ReLU example (with its
# fused-epilogue mode) and the benchmark workloads, stripped, into build/h200/compare/bin.
# Usage: scripts/h200/compare-stage.sh [build-dir]   (default build/compare)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build/compare}
[ -f "$B/build.ninja" ] || cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$B" -j2 --target ws-example-gemm-relu warpscope-bench-workloads
D=build/h200/compare
rm -rf "$D"
mkdir -p "$D/bin"
for f in ws-example-gemm-relu warpscope-bench-workloads; do
  strip --strip-debug -o "$D/bin/$f" "$B/bin/$f"
done
du -sh "$D/bin"/*
