#!/bin/bash
for i in 1 2; do
  for b in "$@"; do
    echo "### $b run $i"
    WS_BENCH_IMPORT_DIR=/tmp/t20 /tmp/t20/$b 2>&1
  done
done
