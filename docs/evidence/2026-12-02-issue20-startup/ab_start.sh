#!/bin/bash
# A/B of start-up: old = window shown before the loader starts, new = loader starts first.
for i in $(seq 1 ${N:-8}); do
  for b in warpscope.old warpscope.new; do
    echo "### $b run $i"
    WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen timeout 60 /tmp/t20/$b ${SESSION:-/tmp/t20/data/synth-10000000.wscope} 2>&1 | grep startup
  done
done
