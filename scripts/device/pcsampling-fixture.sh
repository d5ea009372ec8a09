#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Copies what scripts/device/jobs/pcsampling.sh brought back into tests/fixtures/source/:
# the session, the raw results (pcsamp/profile text, the captured cubin and its nvdisasm listing)
# and the golden disassembler outputs. Usage: scripts/device/pcsampling-fixture.sh RESULTS_DIR
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
R=$1
F=$ROOT/tests/fixtures/source
S=$(find "$R" -name stalls-source.wscope -print -quit)
[ -n "$S" ] || { echo "no stalls-source.wscope under $R" >&2; exit 1; }
D=$(dirname "$S")
rm -rf "$F"
mkdir -p "$F/raw" "$F/golden"
cp "$S" "$F/"
for f in "$D"/stalls-source.wscope.profile-*/*; do
  case "$f" in
    *.stderr | *.tmp | */config.txt) ;;
    *) cp "$f" "$F/raw/" ;;
  esac
done
cp "$D"/golden/*.txt "$F/golden/"
du -sh "$F"
ls -l "$F" "$F/raw" "$F/golden"
