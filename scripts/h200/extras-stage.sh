#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages the programs of scripts/h200/extras-device.sh into build/h200/extras/bin: the NVTX
# timing reference (ws-example-nvtx-timing) and the GEMM+ReLU example, built in build/extras.
# warpscope-cli and libwarpscope-inject.so come from the lead's build/h200/common (build/release,
# which must include --gpu-metrics and --nvtx-timing).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/extras
[ -f "$B/build.ninja" ] || cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build "$B" -j "${JOBS:-2}" --target ws-example-nvtx-timing ws-example-gemm-relu
S=build/h200/extras/bin
rm -rf build/h200/extras; mkdir -p "$S"
for p in ws-example-nvtx-timing ws-example-gemm-relu; do
  cp "$B/bin/$p" "$S/"
  strip --strip-debug "$S/$p"
done
du -sh build/h200/extras
