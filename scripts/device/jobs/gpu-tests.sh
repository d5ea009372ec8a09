#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every ctest with label gpu (tests/gpu), on the GPU machine: scripts/device.sh run gpu-tests.
# Where `scripts/device.sh stage gpu-tests` staged the test programs (the lent H200 has no Qt and
# builds no Qt Test program), runs exactly the tests `ctest -L gpu` lists there, each with the
# environment and timeout ctest gives it, with the staged Qt libraries. Where nothing was staged
# and Qt 6 is installed, builds build/gpu here and runs `ctest -L gpu` (what scripts/gpu-tests.sh
# does). Writes OUTDIR/gpu-tests.log (the summary and every failing line) and OUTDIR/<test>.log.
# Exit status 0 only when every test passed.
set -uo pipefail
O=${1:?usage: gpu-tests.sh OUTDIR}
mkdir -p "$O"
cd "$(dirname "$0")/../../.." || exit 2
S=${WS_DEVICE_STAGE:-$PWD/build/gpu/device}
LOG=$O/gpu-tests.log
exec > >(tee -a "$LOG") 2>&1
timeout 10 nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || echo "nvidia-smi failed"

if [ ! -f "$S/gpu-tests.tsv" ]; then
  echo "no staged gpu tests in $S: building build/gpu here and running ctest -L gpu"
  B=build/gpu
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_BUILD_GUI=OFF -DWS_BUILD_BENCH=OFF \
    >"$O/configure.log" 2>&1 || {
    tail -n 20 "$O/configure.log"
    echo "gpu tests: cannot configure (Qt 6 and the CUDA toolkit are needed); stage them on a build machine"
    exit 2
  }
  cmake --build "$B" -j "$(nproc)" >"$O/build.log" 2>&1 || {
    tail -n 40 "$O/build.log"
    exit 2
  }
  ctest --test-dir "$B" -L gpu --output-on-failure --output-junit "$O/ctest-junit.xml"
  rc=$?
  echo "gpu tests exit $rc"
  exit $rc
fi

# The stage travels as one stage.tar.xz, which `scripts/device.sh run` unpacks (ICU data alone is
# 30 MB); a stage of an older device.sh had the Qt libraries alone in qtlibs.tar.xz.
[ -d "$S/qtlibs" ] || [ ! -f "$S/stage.tar.xz" ] || tar xJf "$S/stage.tar.xz" -C "$S"
[ -d "$S/qtlibs" ] || [ ! -f "$S/qtlibs.tar.xz" ] || tar xJf "$S/qtlibs.tar.xz" -C "$S"
export LD_LIBRARY_PATH=$S/qtlibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# On a machine with a GPU every case must run: a skip there (profiling refused, PM sampling
# unavailable, a program missing) hides exactly what this job is for, so it fails the suite.
# WS_GPU_TESTS_ALLOW_SKIP=1 relaxes that (a runner check without a GPU).
gpu_visible=0
timeout 10 nvidia-smi -L 2>/dev/null | grep -q '^GPU' && gpu_visible=1
strict=$gpu_visible
[ "${WS_GPU_TESTS_ALLOW_SKIP:-0}" = 1 ] && strict=0
echo "GPU visible: $gpu_visible; a skipped case fails its suite: $strict"
passed=0
skipped=0
failed=()
while IFS=$'\x1f' read -r name exe limit args envs; do
  echo "== $name"
  started=$SECONDS
  # ctest's ENVIRONMENT property: NAME=value entries separated by ';'.
  IFS=';' read -r -a vars <<<"$envs"
  # shellcheck disable=SC2086 # ctest's own argument list, space-separated
  env "${vars[@]}" timeout -k 10 "$limit" "$S/tests/$exe" $args >"$O/$name.log" 2>&1
  status=$?
  grep -vE '^(PASS|QDEBUG|QINFO)' "$O/$name.log"
  echo "-- $name: exit $status after $((SECONDS - started)) s"
  n_skip=$(grep -c '^SKIP ' "$O/$name.log")
  skipped=$((skipped + n_skip))
  if [ "$status" -eq 0 ] && [ "$strict" = 1 ] && [ "$n_skip" -gt 0 ]; then
    echo "-- $name: $n_skip case(s) skipped on a GPU machine"
    failed+=("$name")
  elif [ "$status" -eq 0 ]; then
    passed=$((passed + 1))
  else
    failed+=("$name")
  fi
done <"$S/gpu-tests.tsv"
# Without a GPU a suite passes with its GPU cases skipped: the skip count says so.
echo "gpu tests: $passed suite(s) passed, ${#failed[@]} failed${failed[*]:+ (${failed[*]})}; $skipped case(s) skipped"
[ ${#failed[@]} -eq 0 ]
