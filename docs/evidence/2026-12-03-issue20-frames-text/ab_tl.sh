#!/bin/bash
# A/B: alternate old and new builds of the same benchmark source on the same data file.
# usage: SIZES=10M,100M REPEAT=2 ROUNDS=2 ab_tl.sh BIN_A BIN_B ... (binaries in $DIR, default /tmp/t21)
dir=${DIR:-/tmp/t21}
sizes=${SIZES:-10M}
echo "# $(date -u '+%Y-%m-%d %H:%M UTC') $(uname -n), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# command: SIZES=$sizes REPEAT=${REPEAT:-2} ROUNDS=${ROUNDS:-2} ab_tl.sh $*"
for i in $(seq 1 "${ROUNDS:-2}"); do
  for b in "$@"; do
    echo "### $b run $i (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    QT_QPA_PLATFORM=offscreen "$dir/$b" --sizes "$sizes" --dir "$dir/data" --keep --repeat "${REPEAT:-2}" 2>&1 | grep -v QStandardPaths
  done
done
