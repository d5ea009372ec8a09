#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the Qt-free release tree on the GPU machine (warpscope-cli, both injection libraries,
# the CUDA programs): a check that the sources build with that machine's toolkit and compiler.
# Nothing built here is used by the other jobs (they run what scripts/device.sh stage staged).
# Usage: scripts/device.sh run build (this script gets OUTDIR).
set -uo pipefail
O=${1:?usage: build.sh OUTDIR}
mkdir -p "$O"
cd "$(dirname "$0")/../../.." || exit 2
B=build/device-release
{ nvcc --version; c++ --version; cmake --version; } 2>&1 | tee "$O/toolchain.txt"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWS_BUILD_GUI=OFF -DWS_BUILD_TESTS=OFF \
  -DWS_BUILD_BENCH=OFF >"$O/configure.log" 2>&1 || {
  tail -n 30 "$O/configure.log"
  exit 2
}
cmake --build "$B" -j "$(nproc)" >"$O/build.log" 2>&1
rc=$?
tail -n 20 "$O/build.log"
ls -la "$B/bin" "$B/lib" 2>&1
echo "build exit $rc"
exit $rc
