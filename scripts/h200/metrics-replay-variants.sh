#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200: `profile --cache-control all` under the replay experiments of the profiler library
# (WS_PROFILE_EVICTION=own|program|off), on the copy
# and pointer-chase workloads, to choose the defaults: each variant's sessions (raw results kept,
# with the per-step replay times) go to OUTDIR/<variant>/; compare them with ncu's CSV of the same
# workloads with scripts/h200/metrics-compare.py table. Usage (repository root):
#   bash scripts/h200/metrics-replay-variants.sh build/h200 OUTDIR [variant=ENV,ENV ...]
set -u
H=${1:-build/h200}
O=${2:-/tmp/variants}
shift 2 || true
D=$H/metrics
export WS_PROFILER_LIB=$PWD/$D/libwarpscope-profiler.so WS_SECTIONS_DIR=$PWD/resources/sections
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
chmod u+x "$D"/* 2>/dev/null
variants=("$@")
[ ${#variants[@]} -gt 0 ] || variants=("own=" "program=WS_PROFILE_EVICTION=program" "off=WS_PROFILE_EVICTION=off")
for v in "${variants[@]}"; do
  name=${v%%=*}
  envs=${v#*=}
  mkdir -p "$O/$name"
  for w in copy chase; do
    start=$(date +%s.%N)
    env $(echo "$envs" | tr ',' ' ') timeout 60 "$D/warpscope-cli" profile -o "$O/$name/$w.wscope" --set full \
      --cache-control all --keep-raw -- "$D/warpscope-metricsworkload" "$w" --warmup 2 --iters 4 \
      >"$O/$name/$w.log" 2>&1
    rc=$?
    end=$(date +%s.%N)
    echo "$name $w rc=$rc $(python3 -c "print(f'{$end - $start:.2f}')") s"
    grep -h "replay_\|profiled_launch_wall_ms" "$O/$name/$w".wscope.profile-*/profile-*.txt 2>/dev/null | tr '\n' ' '
    echo
  done
done
