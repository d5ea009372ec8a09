#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the gpu-labelled tests staged by gpu-tests-stage.sh on the H200. The test programs were
# built with absolute paths under /work/main, so that path is made to point at this checkout.
set -uo pipefail
here=$(pwd)
if [ "$here" != /work/main ]; then mkdir -p /work && ln -sfn "$here" /work/main; fi
cd /work/main
# The Qt libraries travel compressed (ICU data alone is 30 MB).
[ -d build/gpu/qtlibs ] || tar xJf build/gpu/qtlibs.tar.xz -C build/gpu
export LD_LIBRARY_PATH=/work/main/build/gpu/qtlibs:${LD_LIBRARY_PATH:-}
export QT_QPA_PLATFORM=offscreen WS_FIXTURES_DIR=/work/main/tests/fixtures
out=${OUT:-/tmp}
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
rc=0
for t in build/gpu/gputests/tst_*; do
  echo "== $(basename "$t")"
  log="$out/$(basename "$t").log"
  timeout 300 "$t" >"$log" 2>&1; status=$?
  grep -vE '^(PASS|QDEBUG|QINFO)' "$log"
  [ "$status" -eq 0 ] || rc=1
done
echo "gpu tests exit $rc"
exit $rc
