#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages what scripts/h200/pcsampling-device.sh needs into build/h200/pcsampling/: warpscope-cli and
# libwarpscope-profiler.so with the PC sampling (SourceCounters) collector, the stall kernels, and
# a cubin of those kernels compiled here (the device disassembles it for the parser's golden files).
# Stripped of debug info so the carry stays small. Run from anywhere:
#   scripts/h200/pcsampling-stage.sh [build dir, default build/pcsampling]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
B=${1:-build/pcsampling}
if [ ! -f "$B/build.ninja" ]; then
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON
fi
cmake --build "$B" -j2 --target warpscope-cli warpscope-profiler warpscope-stalls
D=build/h200/pcsampling
rm -rf "$D"
mkdir -p "$D/bin" "$D/lib"
objcopy --strip-debug "$B/bin/warpscope-cli" "$D/bin/warpscope-cli"
objcopy --strip-debug "$B/bin/warpscope-stalls" "$D/bin/warpscope-stalls"
objcopy --strip-debug "$B/lib/libwarpscope-profiler.so" "$D/lib/libwarpscope-profiler.so"
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
"$NVCC" -cubin -gencode=arch=compute_90a,code=sm_90a -lineinfo \
  -o "$D/stalls.sm_90a.cubin" collectors/profiler/workloads/stalls.cu
du -sh "$D"
ls -l "$D/bin" "$D/lib" "$D"
