#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 18: metric fidelity on kernels the profiler was not tuned on. Profiles every mode of
# warpscope-fidelitysuite (and a PyTorch softmax) with `warpscope-cli profile --set full` and
# with ncu twice (its own run-to-run spread), clocks not locked, in the cache controls of
# FIDELITY_CACHE (default "all"; one per device call keeps a call under 10 minutes: run
# `FIDELITY_CACHE=none bash scripts/device.sh run fidelity` for the other), and writes
# table-<cache>.md: per kernel the non-trivial values and how many agree (AGREEMENT lines), the
# worst metrics, and the wall time of both tools. Our raw per-pass results are kept
# (--keep-raw) in metrics-work-<cache>.tar.gz for the CI recomputation fixtures.
# Usage (from the repository root): bash scripts/device.sh run fidelity   (this script gets OUTDIR)
set -u
O=${1:-/tmp/fidelity}
mkdir -p "$O"
export SKIP_OCCUPANCY=1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
chmod u+x "$WS_DEVICE_BIN"/* 2>/dev/null
for c in ${FIDELITY_CACHE:-all}; do
  echo "===== cache control: $c"
  # FIDELITY_VARIANTS / FIDELITY_NONE_VARIANTS: more runs of ours with replay experiments
  # ("label=ENV=value,ENV=value") in cache control all / none.
  variants=""
  [ "$c" = all ] && variants=${FIDELITY_VARIANTS:-}
  [ "$c" = none ] && variants=${FIDELITY_NONE_VARIANTS:-}
  SUITE=fidelity CACHE=$c OUT=$O NCU_RUNS=2 OURS_VARIANTS=$variants DEADLINE=${FIDELITY_DEADLINE:-500} \
    bash scripts/device/metrics-compare.sh
done
