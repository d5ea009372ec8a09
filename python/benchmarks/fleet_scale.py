# SPDX-License-Identifier: MIT
"""Scale benchmark of warpscope.fleet (issue 22): N synthetic rank sessions (default 512, rank
N//3 planted 25 % slower) analysed end to end by every recipe on a LocalCluster of 2 worker
processes; prints time and peak memory (client and each worker), checks step_time and
comm_overlap against brute-force single-process sqlite3 computations and that the planted
straggler is the one found.

    PYTHONPATH=python python3 python/benchmarks/fleet_scale.py [--ranks 512] [--dir DIR] [--json OUT]
                                                               [--results DIR]

--results DIR keeps every recipe's result (DIR/fleet-N-RECIPE.wsfleet) for the app's heatmap
(tests/bench/bench_ui_fleet.cpp opens them)."""

import argparse
import json
import os
import resource
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fleet"))

import fleetsupport as fs  # noqa: E402

import warpscope.fleet as fleet  # noqa: E402
from warpscope.fleet import synth  # noqa: E402


def _worker_peak_mib():
    import resource as r

    return r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", type=int, default=512)
    ap.add_argument("--dir", help="where to write the sessions (default: a temporary directory, removed)")
    ap.add_argument("--json", help="write the figures here as JSON")
    ap.add_argument("--results", help="write each recipe's result file into this directory")
    a = ap.parse_args()
    straggler = a.ranks // 3
    tmp = None if a.dir else tempfile.TemporaryDirectory(prefix="ws-fleet-bench-")
    d = a.dir or tmp.name
    out = {"ranks": a.ranks, "straggler": straggler, "cpus": os.cpu_count()}

    t = time.perf_counter()
    paths = synth.write_fleet(d, a.ranks, straggler, fs.DDP)
    out["generate_s"] = round(time.perf_counter() - t, 2)
    out["session_bytes_total"] = sum(os.path.getsize(p) for p in paths)
    print(f"generated {len(paths)} sessions ({out['session_bytes_total'] / 2**20:.0f} MiB) in {out['generate_s']} s")

    t = time.perf_counter()
    cluster, client = fs.start_cluster()
    out["cluster_start_s"] = round(time.perf_counter() - t, 2)
    print(f"LocalCluster(2 workers) started in {out['cluster_start_s']} s")
    results = {}
    try:
        out["recipes"] = {}
        for name in fleet.RECIPES:
            t = time.perf_counter()
            r = fleet.run(d, name, scheduler=client)
            wall = time.perf_counter() - t
            assert r.meta["counted"] == a.ranks, r.skipped
            results[name] = r
            if a.results:
                os.makedirs(a.results, exist_ok=True)
                r.write(os.path.join(a.results, f"fleet-{a.ranks}-{name}.wsfleet"))
            out["recipes"][name] = {"wall_s": round(wall, 2), "map_s": r.meta["map_s"],
                                    "rows": {k: len(v) for k, v in r.tables.items()}}
            print(f"{name:<13} {wall:6.2f} s  ({a.ranks / wall:6.1f} sessions/s)  "
                  f"tables {out['recipes'][name]['rows']}")
        workers = client.run(_worker_peak_mib)
        out["worker_peak_rss_mib"] = {w.split(":")[-1]: round(v, 1) for w, v in sorted(workers.items())}
    finally:
        client.close()
        cluster.close()
    out["client_peak_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    print(f"peak RSS: client {out['client_peak_rss_mib']} MiB, workers {out['worker_peak_rss_mib']} MiB")

    # End to end as a user runs it: run() starts and stops its own LocalCluster.
    t = time.perf_counter()
    fleet.run(d, "step_time")
    out["end_to_end_step_time_s"] = round(time.perf_counter() - t, 2)
    print(f"end to end (own LocalCluster, step_time): {out['end_to_end_step_time_s']} s")

    # Brute force, one process, and the straggler.
    t = time.perf_counter()
    brute = fs.brute_steps(paths)
    out["brute_force_step_time_s"] = round(time.perf_counter() - t, 2)
    st = results["step_time"]["step_time"]
    got = {(s, p, n): (x, k) for s, p, n, x, k in
           st[["session", "pid", "step", "step_ns", "kernel_ns"]].itertuples(index=False)}
    want = {(path, pid, n): v for (path, pid), steps in brute.items() for n, v in steps.items()}
    flagged = {(s, p, n) for s, p, n in st.loc[st["straggler"] == 1, ["session", "pid", "step"]].itertuples(index=False)}
    ranks = fs.ranks_of(paths)
    per = results["step_time"]["step_ranks"]
    out["step_time_equals_brute_force"] = got == want
    out["stragglers_equal_brute_force"] = flagged == fs.brute_stragglers(brute)
    out["flagged_ranks"] = sorted({ranks[(s, p)] for s, p, _ in flagged})
    out["flagged_rank_rows"] = [int(x) for x in per.loc[per["straggler"] == 1, "rank"]]
    co = results["comm_overlap"]["comm_overlap"]
    got_c = {(s, p): (a_, b, c, e, f) for s, p, a_, b, c, e, f in
             co[["session", "pid", "comm_ops", "comm_ns", "compute_kernels", "compute_ns", "overlap_ns"]]
             .itertuples(index=False)}
    out["comm_overlap_equals_brute_force"] = got_c == fs.brute_comm(paths)
    print(f"brute force step_time (1 process): {out['brute_force_step_time_s']} s; equal: "
          f"{out['step_time_equals_brute_force']}; stragglers equal: {out['stragglers_equal_brute_force']}; "
          f"comm_overlap equal: {out['comm_overlap_equals_brute_force']}")
    print(f"planted straggler rank {straggler}; flagged ranks {out['flagged_ranks']} "
          f"(step_ranks: {out['flagged_rank_rows']})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    if tmp:
        tmp.cleanup()
    ok = (out["step_time_equals_brute_force"] and out["stragglers_equal_brute_force"]
          and out["comm_overlap_equals_brute_force"] and out["flagged_ranks"] == [straggler]
          and out["flagged_rank_rows"] == [straggler])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
