#!/usr/bin/env bash
# Issue 20, bytes per event: old and new `warpscope` alternating on the same session, N rounds
# (default 6) after one discarded warm-up run of each; each run prints the load average before it.
# Usage: ab.sh OLD NEW SESSION [N]
set -euo pipefail
OLD=${1:?old warpscope}
NEW=${2:?new warpscope}
FILE=${3:?session file}
N=${4:-6}
run() { WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen timeout 60 "$1" "$FILE" --quit-after 9000 2>&1 | grep -E 'timeline drawn|resident|panels filled'; }
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC'); command per run: WS_STARTUP_TIMES=1 QT_QPA_PLATFORM=offscreen BIN $FILE --quit-after 9000"
echo "# old: $OLD ($(sha256sum "$OLD" | cut -c1-12)), new: $NEW ($(sha256sum "$NEW" | cut -c1-12))"
run "$OLD" > /dev/null
run "$NEW" > /dev/null
for ((i = 1; i <= N; ++i)); do
  for which in old new; do
    bin=$OLD
    [ "$which" = new ] && bin=$NEW
    echo "== $which run $i ($bin); uptime: $(uptime)"
    run "$bin"
  done
done
echo "# end; uptime: $(uptime)"
