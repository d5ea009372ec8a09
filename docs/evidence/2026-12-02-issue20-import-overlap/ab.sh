#!/usr/bin/env bash
# Old and new bench_import alternating in one run, N rounds (default 3): each prints the load
# average before it starts. OLD and NEW are the two binaries.
set -euo pipefail
OLD=${1:?old bench_import}
NEW=${2:?new bench_import}
ROUNDS=${3:-3}
for ((i = 1; i <= ROUNDS; ++i)); do
  for which in old new; do
    bin=$OLD
    [ "$which" = new ] && bin=$NEW
    echo "=== round $i: $which ($bin); uptime: $(uptime)"
    "$bin"
  done
done
echo "=== end; uptime: $(uptime)"
