# Per step: the worker's and the frame's p50 over all frames of the step in all old runs vs all new runs.
import csv,sys,os,collections,statistics
d={'old':collections.defaultdict(lambda:([],[])),'new':collections.defaultdict(lambda:([],[]))}
for p in sys.argv[1:]:
    b=os.path.basename(p).split('-')[0]
    for r in csv.DictReader(open(p),delimiter='\t'):
        d[b][r['step']][0].append(float(r['build_cpu_ms'])); d[b][r['step']][1].append(float(r['cpu_ms']))
print(f"{'step':22s} {'worker p50 old':>14s} {'new':>6s} {'ratio':>6s} | {'frame p50 old':>13s} {'new':>6s} {'ratio':>6s}")
for s in d['old']:
    wo=statistics.median(d['old'][s][0]); wn=statistics.median(d['new'][s][0]); fo=statistics.median(d['old'][s][1]); fn=statistics.median(d['new'][s][1])
    print(f"{s:22s} {wo:14.2f} {wn:6.2f} {wn/wo:6.2f} | {fo:13.2f} {fn:6.2f} {fn/fo:6.2f}")
