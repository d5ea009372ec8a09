#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the in-kernel tracing programs (examples/iket) in build/iket and copies them, stripped,
# to build/h200/iket/bin. warpscope-cli and libwarpscope-inject.so come from the lead's common
# staging (build/h200/common). Then on the device: scripts/h200/iket-device.sh build/h200 $OUT/iket
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/iket
[ -f "$B/build.ninja" ] || cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON >/dev/null
progs=(ws-example-iket-two-warp ws-example-iket-pipelined ws-example-iket-pipelined-clock64 ws-iket-overhead)
cmake --build "$B" -j2 --target "${progs[@]}"
D=build/h200/iket
rm -rf "$D"
mkdir -p "$D/bin"
for p in "${progs[@]}"; do
    strip --strip-debug -o "$D/bin/$p" "$B/bin/$p"
done
du -sh "$D/bin"/*
