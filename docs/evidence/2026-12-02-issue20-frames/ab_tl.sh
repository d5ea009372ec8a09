#!/bin/bash
# A/B: alternate old and new builds of the same benchmark source, same data file.
sizes=${SIZES:-10M}
for i in 1 2; do
  for b in "$@"; do
    echo "### $b run $i"
    QT_QPA_PLATFORM=offscreen /tmp/t20/$b --sizes $sizes --dir /tmp/t20/data --keep --repeat ${REPEAT:-2} 2>&1 | grep -v QStandardPaths
  done
done
