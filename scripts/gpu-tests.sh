#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds Warpscope and runs the GPU-labelled tests (tests/gpu: recording through CUPTI, the
# benchmark harness) on a machine with an NVIDIA GPU, the CUDA toolkit and Qt 6 (the tests are
# Qt Test programs). They skip, saying why, where no GPU is usable.
#
# The lent H200 of this project's workplace has no Qt: there the same suites run from test programs
# staged here, `scripts/device.sh stage gpu-tests` then `scripts/device.sh run gpu-tests`.
# Usage: scripts/gpu-tests.sh [build-dir]   (default build/gpu)
set -euo pipefail
cd "$(dirname "$0")/.."
B=${1:-build/gpu}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || echo "nvidia-smi failed: tests will skip"
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_BUILD_GUI=OFF -DWS_BUILD_BENCH=OFF >/dev/null
cmake --build "$B" -j "$(nproc)"
ctest --test-dir "$B" -L gpu --output-on-failure
