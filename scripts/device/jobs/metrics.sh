#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# On the H200: the issue-5 comparison with ncu in both cache controls (metrics-compare.sh with
# CACHE=all, then CACHE=none), from the programs `scripts/device.sh stage metrics` staged into
# $WS_DEVICE_BIN and $WS_DEVICE_LIB. Usage (repository root): bash scripts/device.sh run metrics
# About 6 minutes; each half stops starting workloads after METRICS_DEADLINE seconds. METRICS_VARIANTS
# adds runs of the profiler's replay experiments to the `all` half (see metrics-compare.sh);
# METRICS_CACHE=all runs only that half, ONLY="copy chase" only those workloads.
set -u
O=${1:-/tmp/metrics}
mkdir -p "$O"
export SKIP_OCCUPANCY=${SKIP_OCCUPANCY:-1}
# CUPTI's checkpoint library sits beside libcupti; older toolkits keep both under extras/CUPTI.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
chmod u+x "$WS_DEVICE_BIN"/* 2>/dev/null
for c in ${METRICS_CACHE:-all none}; do
  echo "===== cache control: $c"
  variants=""
  [ "$c" = all ] && variants=${METRICS_VARIANTS:-}
  CACHE=$c OUT=$O OURS_VARIANTS=$variants DEADLINE=${METRICS_DEADLINE:-170} bash scripts/device/metrics-compare.sh
done
