#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18, on kernels nobody chose for the profiler: PyTorch and Triton operations
# (examples/python/fidelity_ops.py) profiled with `warpscope-cli profile --set full` and with ncu
# twice, in each cache control of FIDELITY_CACHE (default "all none"), without a kernel filter;
# writes table-<cache>.md as the fidelity job does. FIDELITY_OPS_DEADLINE seconds per cache control.
# Usage (from the repository root): bash scripts/device.sh run fidelity-ops
set -u
O=${1:-/tmp/fidelity-ops}
mkdir -p "$O"
export SKIP_OCCUPANCY=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
chmod u+x "$WS_DEVICE_BIN"/* 2>/dev/null
for c in ${FIDELITY_CACHE:-all none}; do
  echo "===== cache control: $c"
  # FIDELITY_VARIANTS: more runs of ours with replay experiments ("label=ENV=value,ENV=value").
  SUITE=ops CACHE=$c OUT=$O NCU_RUNS=2 OURS_VARIANTS=${FIDELITY_VARIANTS:-} DEADLINE=${FIDELITY_OPS_DEADLINE:-260} \
    bash scripts/device/metrics-compare.sh
done
