import sys, importlib.util, glob, os
spec = importlib.util.spec_from_file_location("mc", "/work/main/scripts/device/metrics-compare.py")
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
keys = sys.argv[2].split(',')
mode = sys.argv[1]
for s in sorted(glob.glob(f"work-{mode}/*.wscope")):
    name = s.split('/')[-1][:-7]
    ours = mc.load_session(s)[0]
    nc = [mc.load_ncu(f)[0] for f in (f"work-{mode}/{name}.ncu.csv", f"work-{mode}/{name}-2.ncu.csv") if os.path.exists(f)]
    for r in ours[2:]:
        print(mode, name, "ours", r["name"][:30], " ".join(f"{r['values'].get(k,float('nan')):.5g}" for k in keys))
    for i,run in enumerate(nc):
        for r in run[2:]:
            print(mode, name, f"ncu{i}", r["name"][:30], " ".join(f"{r['values'].get(k,float('nan')):.5g}" for k in keys))
