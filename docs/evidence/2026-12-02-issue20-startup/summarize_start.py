import re,statistics,sys
cur=None; d={}
for line in open(sys.argv[1]):
    m=re.match(r'### (\S+)',line)
    if m: cur=m.group(1); continue
    m=re.search(r'startup\s+([\d.]+) ms  (.*)',line)
    if m: d.setdefault(cur,{}).setdefault(m.group(2),[]).append(float(m.group(1)))
    m=re.search(r'resident (\d+) MB, ([\d.]+) B/event',line)
    if m: d.setdefault(cur,{}).setdefault('resident B/event',[]).append(float(m.group(2)))
for b,steps in d.items():
    print(b)
    for s,v in steps.items():
        v=sorted(v); p95=v[min(len(v)-1,int(0.95*(len(v)-1)+0.5))]
        print(f"  {s:55s} p50 {statistics.median(v):7.1f}  p95 {p95:7.1f}  min {v[0]:7.1f}  max {v[-1]:7.1f}  (n={len(v)})")
