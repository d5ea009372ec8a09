#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stages scripts/h200/multigpu-device.sh: only the DDP step script (build/h200/multigpu/ddp_step.py).
# warpscope-cli and libwarpscope-inject.so come from the lead's build/h200/common, which must be
# built from a tree with commit 5dbf35c (the injection library records RANK/LOCAL_RANK/WORLD_SIZE).
set -euo pipefail
cd "$(dirname "$0")/../.."
S=build/h200/multigpu
rm -rf "$S"; mkdir -p "$S"
cp examples/python/ddp_step.py "$S/"
python3 -m py_compile "$S/ddp_step.py" && rm -rf "$S/__pycache__"
du -sh "$S"
