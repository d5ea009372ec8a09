#!/usr/bin/env python3
# Call A's session with event_op.stream_id + 1 (the id cuStreamGetId gives, which CUPTI's kernel
# records carry): the dependencies by CUDA's rules (latest earlier record of the event; last kernel
# issued on the record's stream before it; first kernel issued on the wait's stream after it).
# Usage: check-shifted.py /work/device-results/stream-deps-A/stream_deps.wscope
import collections, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
names = dict(db.execute("select id, text from string"))
ops = [dict(kind=k, stream=s + 1 if s else 0, corr=c, event=e)
       for k, s, c, e in db.execute("select kind, stream_id, correlation_id, event from event_op order by id")]
gpu = collections.defaultdict(list)
for s, c, n in db.execute("select stream_id, correlation_id, short_name from kernel"):
    gpu[s].append((c, names[n]))
for s in gpu:
    gpu[s].sort()
pairs = collections.Counter()
for w in ops:
    if w["kind"] == 0:
        continue
    recs = [r for r in ops if r["kind"] == 0 and r["event"] == w["event"] and r["corr"] < w["corr"]]
    if not recs:
        continue
    r = max(recs, key=lambda r: r["corr"])
    prod = [n for c, n in gpu[r["stream"]] if c < r["corr"]]
    prod = prod[-1] if prod else "-"
    if w["kind"] == 2:
        pairs[(prod, "host")] += 1
        continue
    if w["stream"] == r["stream"]:
        continue
    cons = [n for c, n in gpu[w["stream"]] if c > w["corr"]]
    pairs[(prod, cons[0] if cons else "-")] += 1
print(dict(pairs))
