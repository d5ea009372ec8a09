#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the gpu-labelled Qt Test programs and what they run (warpscope-cli, the injection and
# profiler libraries, the benchmark workloads, the examples) into build/gpu, and stages the
# Qt 6 Core/Test libraries they need beside them, because the lent H200 has no Qt.
# Then on the device: scripts/h200/gpu-tests-device.sh with build/gpu/{bin,lib,gputests,qtlibs.tar.xz} carried.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=build/gpu
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON \
  -DWS_BUILD_GUI=OFF -DWS_BUILD_BENCH=OFF >/dev/null
mapfile -t gputests < <(ls tests/gpu/tst_*.cpp | xargs -n1 basename | sed 's/\.cpp$//')
cmake --build "$B" -j "${JOBS:-2}" --target warpscope-cli "${gputests[@]}" \
  $(ninja -C "$B" -t targets all | grep -oE '^(warpscope-inject|warpscope-profiler|warpscope-bench-workloads|warpscope-metricsworkload|warpscope-stalls|ws-example-[a-z-]+):' | tr -d ':' | sort -u)
rm -rf "$B/gputests" "$B/qtlibs"; mkdir -p "$B/gputests" "$B/qtlibs"
for t in "${gputests[@]}"; do cp "$B/tests/$t" "$B/gputests/"; done
# Qt libraries (and their non-glibc dependencies) the test programs load.
ldd "$B"/gputests/* | awk '/=> \//{print $3}' | sort -u | grep -E 'libQt6|libicu|libdouble-conversion|libpcre2-16|libb2|libzstd|libglib|libgthread' \
  | xargs -I{} cp -L {} "$B/qtlibs/"
strip --strip-debug "$B"/gputests/* "$B"/bin/* "$B"/lib/*.so 2>/dev/null || true
tar cJf "$B/qtlibs.tar.xz" -C "$B" qtlibs
du -sh "$B"/bin "$B"/lib "$B"/gputests "$B"/qtlibs.tar.xz
