#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets (tests/fuzz) with clang in their own build directory, wscore
# instrumented too, and runs each for a while: a 60 s smoke run per target by default.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      e.g. scripts/fuzz.sh 60, scripts/fuzz.sh 600 fuzz_import_ncu
#   WS_FUZZ_RUNS=1000000 scripts/fuzz.sh       a fixed number of executions per target instead of time
#   WS_FUZZ_BUILD_DIR=<dir>                    build directory (default build/fuzz)
#
# Corpora grow in <build>/corpus/<target> (seeded from tests/fixtures/import); crashes are written
# to <build>/crashes/<target>. Exit status is non-zero when any target found a crash.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WS_FUZZ_BUILD_DIR:-$root/build/fuzz}
seconds=${1:-60}
shift || true
all=(fuzz_import_kineto fuzz_import_nsys fuzz_import_ncu fuzz_import_proton fuzz_session_loader)
targets=("$@")
((${#targets[@]})) || targets=("${all[@]}")

if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: clang++ not found (libFuzzer needs clang; scripts/install-deps.sh installs it)" >&2
    exit 1
fi

# ASan only: see tests/fuzz/CMakeLists.txt for why UBSan is left to the GCC asan preset.
san="-fsanitize=fuzzer-no-link,address"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_CXX_FLAGS="$san" -DCMAKE_C_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address" \
    -DWS_BUILD_FUZZ=ON -DWS_BUILD_GUI=OFF -DWS_BUILD_BENCH=OFF >"$build.configure.log" 2>&1 \
    || { cat "$build.configure.log" >&2; exit 1; }
cmake --build "$build" -j2 --target "${targets[@]}"

status=0
summary=()
for t in "${targets[@]}"; do
    corpus=$build/corpus/$t
    crashes=$build/crashes/$t
    mkdir -p "$corpus" "$crashes"
    extra=()
    # Small inputs keep executions fast; the seeds are cuts of the real fixtures.
    maxlen=16384
    case $t in
        fuzz_import_kineto | fuzz_import_proton) extra+=(-dict="$root/tests/fuzz/trace.dict") ;;
        fuzz_import_ncu) extra+=(-dict="$root/tests/fuzz/ncu.dict") ;;
        fuzz_import_nsys) maxlen=65536 ;;
        fuzz_session_loader) maxlen=131072 ;;
    esac
    if [ -n "${WS_FUZZ_RUNS:-}" ]; then
        limit=(-runs="$WS_FUZZ_RUNS")
    else
        limit=(-max_total_time="$seconds")
    fi
    log=$build/$t.log
    # Inputs that once crashed a target (tests/fuzz/regressions/<target>-*) are replayed first.
    regressions=("$root"/tests/fuzz/regressions/"$t"-*)
    if [ -e "${regressions[0]}" ]; then
        if ! ASAN_OPTIONS=detect_leaks=1 "$build/fuzz/$t" "${regressions[@]}" >"$build/$t.regressions.log" 2>&1; then
            status=1
            summary+=("$t: a regression input crashes it again, see $build/$t.regressions.log")
        fi
    fi
    echo "fuzz.sh: $t (${limit[*]})"
    set +e
    ASAN_OPTIONS=detect_leaks=1 WS_FUZZ_WRITE_SEED="$corpus" "$build/fuzz/$t" "$corpus" "${limit[@]}" "${extra[@]}" \
        -rss_limit_mb=2048 -max_len=$maxlen -timeout=20 -print_final_stats=1 -artifact_prefix="$crashes/" >"$log" 2>&1
    rc=$?
    set -e
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ $rc -ne 0 ]; then
        status=1
        summary+=("$t: FAILED (exit $rc) after ${runs:-?} executions, see $log and $crashes")
    else
        summary+=("$t: ${runs:-?} executions, ${speed:-?} exec/s, corpus $(ls "$corpus" | wc -l) files, 0 crashes")
    fi
done
printf 'fuzz.sh: %s\n' "${summary[@]}"
exit $status
