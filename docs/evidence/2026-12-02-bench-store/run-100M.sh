#!/bin/bash
# bench_store on 100M synthetic events: output lines timestamped, resident memory sampled every 0.5 s.
out=$1
exe=build/release/tests/bench/bench_store
{ date -u; uptime; git rev-parse HEAD; echo "\$ $exe 100000000"; } > $out/bench_store-100M.txt
stdbuf -oL $exe 100000000 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date -u +%T.%N | cut -c1-12)" "$line"; done >> $out/bench_store-100M.txt &
sleep 1
pid=$(pgrep -n -x bench_store)
echo "pid $pid" > $out/bench_store-100M.rss.txt
while kill -0 $pid 2>/dev/null; do
  printf '%s %s\n' "$(date -u +%T.%N | cut -c1-12)" "$(grep -E 'VmRSS|VmHWM' /proc/$pid/status 2>/dev/null | tr -s ' \n' ' ')" >> $out/bench_store-100M.rss.txt
  sleep 0.5
done
wait
{ date -u; uptime; } >> $out/bench_store-100M.txt
