#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GPU verification, one script for every job that needs a GPU machine (scripts/device/jobs.manifest
# lists them: build, gpu-tests, metrics, recordings, ...). Three steps:
#
#   scripts/device.sh stage [JOB...]    here (the build machine): builds what the jobs run in
#                                       build/gpu and copies it, stripped, into build/gpu/device
#                                       (bin/, lib/, the gpu test programs, the Qt libraries they
#                                       load, cubins; with gpu-tests all packed in one
#                                       stage.tar.xz). Carry build/gpu/device, nothing else.
#   scripts/device.sh run JOB...        on the GPU machine, from the repository root: runs
#                                       scripts/device/jobs/JOB.sh OUTDIR for each job within its
#                                       time limit; writes $OUT/device.log (GPU, timings, exit
#                                       codes), $OUT/JOB.log (its output) and $OUT/JOB.tar.gz (its
#                                       OUTDIR). More than 3 jobs in one call: their OUTDIRs (each
#                                       with its run.log) come back in one $OUT/bundle.tar.gz, since
#                                       the device returns at most 8 files.
#   scripts/device.sh collect DIR [DATE] here: puts what a run wrote (DIR = its $OUT) into
#                                       docs/evidence/DATE-JOB/ (DATE defaults to today, UTC).
#   scripts/device.sh list              the jobs of the manifest.
#
# Example (the gpu-labelled test suites on the lent H200):
#   scripts/device.sh stage gpu-tests
#   device run, cwd = repository root, carry [build/gpu/device]:
#     bash scripts/device.sh run gpu-tests
#   scripts/device.sh collect <files_at>
# GPU_TESTS=REGEX at stage time stages only the gpu tests whose names match (ctest -R): the whole
# suite and the working tree together can outgrow what one device call carries.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MANIFEST=$ROOT/scripts/device/jobs.manifest
B=${WS_DEVICE_BUILD:-build/gpu} # relative to the repository root: the carry names it
STAGE=$B/device

die() {
  echo "scripts/device.sh: $*" >&2
  exit 2
}

# manifest_field JOB N: the Nth |-separated field of JOB's line, trimmed (1 = job name).
manifest_field() {
  awk -F'|' -v job="$1" -v n="$2" '
    /^[[:space:]]*(#|$)/ { next }
    { name = $1; gsub(/^[ \t]+|[ \t]+$/, "", name) }
    name == job { v = $n; gsub(/^[ \t]+|[ \t]+$/, "", v); print v; found = 1; exit }
    END { if (!found) exit 1 }' "$MANIFEST"
}

jobs_of_manifest() {
  awk -F'|' '/^[[:space:]]*(#|$)/ { next } { n = $1; gsub(/^[ \t]+|[ \t]+$/, "", n); print n }' "$MANIFEST"
}

check_jobs() {
  local j
  [ $# -gt 0 ] || die "name at least one job (scripts/device.sh list)"
  for j in "$@"; do
    manifest_field "$j" 1 >/dev/null || die "unknown job '$j' (known: $(jobs_of_manifest | tr '\n' ' '))"
    [ -f "$ROOT/scripts/device/jobs/$j.sh" ] || die "job '$j' has no scripts/device/jobs/$j.sh"
  done
}

cmd_list() {
  local j
  for j in $(jobs_of_manifest); do
    printf '%-16s %s GPU(s), %4s s  %s\n' "$j" "$(manifest_field "$j" 2)" "$(manifest_field "$j" 3)" \
      "$(manifest_field "$j" 5)"
  done
}

# ---------------------------------------------------------------------------------------------------
# stage (build machine)

gpu_test_names() {
  ls "$ROOT"/tests/gpu/tst_*.cpp | xargs -n1 basename | sed 's/\.cpp$//'
}

cmd_stage() {
  [ $# -gt 0 ] || set -- gpu-tests
  check_jobs "$@"
  cd "$ROOT"
  if [ ! -f "$B/build.ninja" ]; then
    # The release preset's flags, so ccache serves every object the release build already made.
    cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWS_WARNINGS_AS_ERRORS=ON \
      -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DWS_BUILD_GUI=OFF -DWS_BUILD_BENCH=OFF >/dev/null
  fi
  local available wanted=() tests=0 cubin=0 j t
  available=$(ninja -C "$B" -t targets all | sed -n 's/^\([A-Za-z0-9_.-]*\): .*/\1/p' | sort -u)
  for j in "$@"; do
    for t in $(manifest_field "$j" 4); do
      case "$t" in
      -) ;;
      cubin:stalls) cubin=1 ;;
      gpu-tests)
        # The suites and everything they start: the CLI, both injection libraries, the
        # benchmark and metrics workloads, the stall kernels and every example program (not
        # the occupancy grid, which only the metrics job runs).
        tests=1
        wanted+=(warpscope-cli $(gpu_test_names))
        wanted+=($(echo "$available" | grep -E '^(warpscope-inject|warpscope-profiler|warpscope-bench-workloads|warpscope-metricsworkload|warpscope-stalls|ws-example-[a-z0-9-]+)$' || true))
        ;;
      *) wanted+=("$t") ;;
      esac
    done
  done
  local build=() missing=()
  for t in $(printf '%s\n' "${wanted[@]}" | sort -u); do
    # A here-string, not a pipe: grep -q exits at the first match and, under pipefail, the
    # writer's SIGPIPE would count the target as missing.
    if grep -qx -- "$t" <<<"$available"; then build+=("$t"); else missing+=("$t"); fi
  done
  [ ${#missing[@]} -eq 0 ] || die "no such target in $B (CUDA toolkit missing here?): ${missing[*]}"
  cmake --build "$B" -j "${JOBS:-2}" --target "${build[@]}"

  # Only what the jobs run travels, stripped: the device call carries 64 MiB with the working tree.
  rm -rf "$STAGE"
  mkdir -p "$STAGE/bin" "$STAGE/lib"
  for t in "${build[@]}"; do
    if [ -f "$B/bin/$t" ]; then
      strip --strip-all -o "$STAGE/bin/$t" "$B/bin/$t"
    elif [ -f "$B/lib/lib$t.so" ]; then
      strip --strip-unneeded -o "$STAGE/lib/lib$t.so" "$B/lib/lib$t.so"
    fi
  done
  if [ "$tests" = 1 ]; then
    # The ctest list itself, so that `run gpu-tests` runs exactly what `ctest -L gpu` would,
    # with the environment each test is given there.
    mkdir -p "$STAGE/tests"
    ctest --test-dir "$B" -L gpu ${GPU_TESTS:+-R "$GPU_TESTS"} --show-only=json-v1 >"$STAGE/ctest.json"
    python3 - "$STAGE" <<'PY'
import json, os, subprocess, sys
stage = sys.argv[1]
doc = json.load(open(os.path.join(stage, "ctest.json")))
with open(os.path.join(stage, "gpu-tests.tsv"), "w") as out:
    for t in doc["tests"]:
        exe = t["command"][0]
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        env = props.get("ENVIRONMENT", [])
        timeout = int(float(props.get("TIMEOUT", 600)))
        subprocess.run(["strip", "--strip-all", "-o", os.path.join(stage, "tests", os.path.basename(exe)), exe], check=True)
        # Unit separators, not tabs: `read` would merge the tabs around an empty field.
        out.write("\x1f".join([t["name"], os.path.basename(exe), str(timeout), " ".join(t["command"][1:]), ";".join(env)]) + "\n")
print(f"{sum(1 for _ in open(os.path.join(stage, 'gpu-tests.tsv')))} gpu-labelled tests staged")
PY
    rm "$STAGE/ctest.json"
    # The lent H200 has no Qt: the Qt libraries (and their non-glibc dependencies) travel.
    mkdir -p "$STAGE/qtlibs"
    ldd "$STAGE"/tests/* | awk '/=> \//{print $3}' | sort -u |
      grep -E 'libQt6|libicu|libdouble-conversion|libpcre2-16|libb2|libzstd|libglib|libgthread|libsqlite3' |
      xargs -r -I{} cp -L {} "$STAGE/qtlibs/"
  fi
  if [ "$cubin" = 1 ]; then
    "${NVCC:-/usr/local/cuda/bin/nvcc}" -cubin -gencode=arch=compute_90a,code=sm_90a -lineinfo \
      -o "$STAGE/stalls.sm_90a.cubin" collectors/profiler/workloads/stalls.cu
  fi
  # The programs carry absolute paths of this checkout and build tree (fixtures, the CLI,
  # build/gpu/bin): `run` makes them point at the checkout on the GPU machine and at the stage.
  echo "$ROOT" >"$STAGE/source-dir"
  printf '%s\n' "$@" >"$STAGE/jobs"
  if [ "$tests" = 1 ]; then
    # Uncompressed, the gpu-tests stage is about 30 MiB (ICU data alone 30 MB; six test programs
    # of 1.7 MB that are mostly the same static core); the device carries 64 MiB with the working
    # tree. One xz stream with a 64 MiB dictionary stores what the programs share once: about
    # 14 MiB in all. `run` unpacks it before the jobs start.
    local dirs=(bin lib tests qtlibs)
    tar cf - -C "$STAGE" "${dirs[@]}" | xz -9 -T1 >"$STAGE/stage.tar.xz"
    (cd "$STAGE" && rm -rf "${dirs[@]}")
  fi
  local stage_bytes tree_bytes
  stage_bytes=$(du -sb "$STAGE" | cut -f1)
  # Counted as an archive holds them (a 512-byte header per file, contents padded to 512 bytes):
  # a tree of 2,000 files measured 59.2 MB of contents and was refused with a 7 MB stage.
  tree_bytes=$( (git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null || true) |
    awk '{ s += 512 + int(($1 + 511) / 512) * 512 } END { print s + 0 }')
  echo "stage $((stage_bytes / 1048576)) MiB + working tree $((tree_bytes / 1048576)) MiB travel (the device takes 64 MiB)"
  if [ $((stage_bytes + tree_bytes)) -ge $((64 * 1048576)) ]; then
    echo "warning: over 64 MiB: stage fewer jobs per call, or leave out what no job reads for the call:"
    echo "  git sparse-checkout set --no-cone '/*' '!/docs/evidence/' '!/docs/screenshots/'   (and 'git sparse-checkout disable' after it)"
  fi
  echo "carry: $STAGE   then on the GPU machine: bash scripts/device.sh run $*"
}

# ---------------------------------------------------------------------------------------------------
# run (GPU machine)

cmd_run() {
  check_jobs "$@"
  # The device returns at most 8 files: up to 3 jobs come back as JOB.log + JOB.tar.gz each, more
  # as one bundle.tar.gz of every job's OUTDIR (run.log inside).
  local bundle=0
  [ $# -le 3 ] || bundle=1
  cd "$ROOT"
  local out=${OUT:-/tmp/ws-device-out}
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  local summary=$out/device.log
  : >"$summary"
  if [ -f "$STAGE/source-dir" ]; then
    local src
    src=$(cat "$STAGE/source-dir")
    if [ "$src" != "$ROOT" ] && [ ! -e "$src" ]; then
      mkdir -p "$(dirname "$src")" && ln -sfn "$ROOT" "$src"
      echo "linked $src -> $ROOT (paths compiled into the staged programs)" >>"$summary"
    elif [ "$src" != "$ROOT" ] && [ "$(cd "$src" && pwd -P)" != "$(pwd -P)" ]; then
      echo "warning: $src exists and is not this checkout: staged tests read fixtures from there" >>"$summary"
    fi
  fi
  # `stage gpu-tests` packs bin/, lib/, the test programs and the Qt libraries into one archive.
  if [ -f "$STAGE/stage.tar.xz" ]; then
    tar xJf "$STAGE/stage.tar.xz" -C "$STAGE" && rm "$STAGE/stage.tar.xz"
    echo "unpacked $STAGE/stage.tar.xz" >>"$summary"
  fi
  # The staged programs stand where they were built (build/gpu/bin, build/gpu/lib): the test
  # programs have those paths compiled in.
  local d
  [ -d "$STAGE/bin" ] || echo "nothing staged in $STAGE: only jobs that build for themselves (build, gpu-tests where Qt is installed) can run" >>"$summary"
  for d in bin lib; do
    [ -d "$STAGE/$d" ] || continue
    if [ ! -L "$B/$d" ]; then
      # A build of its own on that machine is kept aside, not deleted.
      if [ -e "$B/$d" ]; then
        rm -rf "${B:?}/$d.before-device-run"
        mv "$B/$d" "$B/$d.before-device-run"
        echo "moved $B/$d aside to $B/$d.before-device-run" >>"$summary"
      fi
      ln -s "device/$d" "$B/$d"
    fi
  done
  chmod -R u+x "$STAGE/bin" "$STAGE/lib" 2>/dev/null || true
  [ -d "$STAGE/tests" ] && chmod u+x "$STAGE"/tests/* 2>/dev/null
  export WS_DEVICE_BIN=$ROOT/$B/bin WS_DEVICE_LIB=$ROOT/$B/lib WS_DEVICE_STAGE=$ROOT/$STAGE
  export PYTHONUNBUFFERED=1
  {
    echo "date: $(date -u +%FT%TZ)   host: $(hostname)   checkout: $ROOT"
    echo "staged jobs: $(tr '\n' ' ' <"$STAGE/jobs" 2>/dev/null || echo none)"
    timeout 10 nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1 ||
      echo "nvidia-smi failed"
  } >>"$summary"
  local gpus
  gpus=$(timeout 10 nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  # WS_DEVICE_ASSUME_GPUS: run jobs anyway, to check the runner itself on a machine without a GPU
  # (the gpu suites then skip their GPU cases, saying why).
  gpus=${WS_DEVICE_ASSUME_GPUS:-$gpus}
  local rc=0 j need limit d start status
  for j in "$@"; do
    need=$(manifest_field "$j" 2)
    limit=$(manifest_field "$j" 3)
    d=$(mktemp -d)/$j
    mkdir -p "$d"
    start=$SECONDS
    # WS_DEVICE_DEADLINE (seconds from the start of this run): a job gets at most what is left,
    # so the call ends with every finished job's output instead of being killed mid-way.
    if [ -n "${WS_DEVICE_DEADLINE:-}" ]; then
      local left=$((WS_DEVICE_DEADLINE - SECONDS))
      [ "$left" -lt "$limit" ] && limit=$left
    fi
    if [ "${limit:-0}" -le 5 ]; then
      echo "$j: no time left before WS_DEVICE_DEADLINE: not run" | tee "$d/run.log" >>"$summary"
      status=4
    elif [ "${gpus:-0}" -lt "$need" ]; then
      echo "$j: needs $need GPU(s), $gpus visible: not run" | tee "$d/run.log" >>"$summary"
      status=3
    else
      status=0
      OUT=$d timeout -k 10 "$limit" bash "scripts/device/jobs/$j.sh" "$d" >"$d/run.log" 2>&1 || status=$?
    fi
    echo "$j: exit $status after $((SECONDS - start)) s (limit $limit s)" >>"$summary"
    [ "$status" -eq 0 ] || rc=1
    if [ "$bundle" = 1 ]; then
      mkdir -p "$out/.bundle" && mv "$d" "$out/.bundle/$j"
    else
      cp "$d/run.log" "$out/$j.log"
      tar -C "$(dirname "$d")" -czf "$out/$j.tar.gz" "$j"
    fi
  done
  if [ "$bundle" = 1 ]; then
    tar -C "$out/.bundle" -czf "$out/bundle.tar.gz" "$@" && rm -rf "$out/.bundle"
  fi
  cat "$summary"
  return $rc
}

# ---------------------------------------------------------------------------------------------------
# collect (build machine)

# fresh_dest BASE: BASE, or BASE-2, BASE-3, ... when it exists: evidence that docs cite is never
# overwritten by a later run of the same job on the same day.
fresh_dest() {
  local dest=$1 k=2
  while [ -e "$dest" ]; do
    dest=$1-$k
    k=$((k + 1))
  done
  echo "$dest"
}

cmd_collect() {
  local from=${1:?usage: scripts/device.sh collect DIR [DATE]}
  local date=${2:-$(date -u +%F)}
  [ -d "$from" ] || die "$from: no such directory"
  local n=0 f j dest
  if [ -f "$from/bundle.tar.gz" ]; then
    # Several jobs in one archive: one directory per job.
    local tmp
    tmp=$(mktemp -d)
    tar -xzf "$from/bundle.tar.gz" -C "$tmp"
    for j in "$tmp"/*/; do
      j=$(basename "$j")
      dest=$(fresh_dest "$ROOT/docs/evidence/$date-$j")
      mkdir -p "$dest"
      cp -r "$tmp/$j/." "$dest/"
      [ -f "$from/device.log" ] && cp "$from/device.log" "$dest/device.log"
      echo "$dest"
      n=$((n + 1))
    done
    rm -rf "$tmp"
  fi
  for f in "$from"/*.tar.gz; do
    [ -e "$f" ] || continue
    [ "$(basename "$f")" = bundle.tar.gz ] && continue
    j=$(basename "$f" .tar.gz)
    dest=$(fresh_dest "$ROOT/docs/evidence/$date-$j")
    mkdir -p "$dest"
    tar -xzf "$f" -C "$dest" --strip-components=1
    [ -f "$from/device.log" ] && cp "$from/device.log" "$dest/device.log"
    echo "$dest"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || die "$from holds no JOB.tar.gz"
  echo "add a line for each to docs/evidence/README.md: what it is and the command that produced it"
}

case "${1:-}" in
stage) shift; cmd_stage "$@" ;;
run) shift; cmd_run "$@" ;;
collect) shift; cmd_collect "$@" ;;
list) cmd_list ;;
*) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
