#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages what scripts/h200/all-device.sh runs: the recorder from build/release (warpscope-cli
# with SQLite linked statically, the injection and range-profiler libraries) stripped into
# build/h200/common, then each collector's own staging script. Carry build/h200 to the device.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/release
cmake --build "$B" -j2 --target warpscope-cli warpscope-inject warpscope-profiler
C=build/h200/common
rm -rf "$C"
mkdir -p "$C/bin" "$C/lib"
strip --strip-debug -o "$C/bin/warpscope-cli" "$B/bin/warpscope-cli"
strip --strip-debug -o "$C/lib/libwarpscope-inject.so" "$B/lib/libwarpscope-inject.so"
strip --strip-debug -o "$C/lib/libwarpscope-profiler.so" "$B/lib/libwarpscope-profiler.so"
for n in "$@"; do
  bash "scripts/h200/$n-stage.sh"
done
du -sh build/h200/*
