# SPDX-License-Identifier: MIT
"""64 synthetic rank sessions (warpscope.fleet.synth: one real DDP rank, timelines stretched per
step, rank 37 planted 25 % slower) through every recipe on a LocalCluster of 2 workers, each
result checked against a brute-force single-process sqlite3 computation, and the planted
straggler found (and nothing else). The 512-session run is python/benchmarks/fleet_scale.py."""

import os
import tempfile
import unittest

import fleetsupport as fs

import warpscope.fleet as fleet
from warpscope.fleet import synth

RANKS = int(os.environ.get("WS_FLEET_TEST_RANKS", "64"))
STRAGGLER = 37 % RANKS
TMP = PATHS = CLUSTER = CLIENT = None


def setUpModule():
    global TMP, PATHS, CLUSTER, CLIENT
    TMP = tempfile.TemporaryDirectory(prefix="ws-fleet-scale-")
    PATHS = synth.write_fleet(TMP.name, RANKS, STRAGGLER, fs.DDP)
    CLUSTER, CLIENT = fs.start_cluster()


def tearDownModule():
    CLIENT.close()
    CLUSTER.close()
    TMP.cleanup()


def run(recipe, **kw):
    r = fleet.run(TMP.name, recipe, scheduler=CLIENT, **kw)
    assert r.meta["counted"] == RANKS and r.meta["skipped"] == 0, r.skipped
    return r


class Scale(unittest.TestCase):
    def test_steps_and_stragglers_equal_brute_force_and_find_the_planted_rank(self):
        r = run("step_time")
        brute = fs.brute_steps(PATHS)
        ranks = fs.ranks_of(PATHS)
        t = r["step_time"]
        self.assertEqual(len(t), sum(len(v) for v in brute.values()))
        got = {(s, p, st): (ns, kns) for s, p, st, ns, kns in
               t[["session", "pid", "step", "step_ns", "kernel_ns"]].itertuples(index=False)}
        want = {(path, pid, st): v for (path, pid), steps in brute.items() for st, v in steps.items()}
        self.assertEqual(got, want)
        flagged = {(s, p, st) for s, p, st in t.loc[t["straggler"] == 1, ["session", "pid", "step"]].itertuples(index=False)}
        self.assertEqual(flagged, fs.brute_stragglers(brute))
        # The planted one, every step, and no other rank.
        self.assertEqual({ranks[(s, p)] for s, p, _ in flagged}, {STRAGGLER})
        self.assertEqual(len(flagged), len(brute[(PATHS[STRAGGLER], next(iter(brute))[1])]))
        per = r["step_ranks"]
        self.assertEqual(list(per.loc[per["straggler"] == 1, "rank"]), [STRAGGLER])
        self.assertEqual(sorted(per["rank"]), list(range(RANKS)))

    def test_comm_overlap_equals_brute_force(self):
        t = run("comm_overlap")["comm_overlap"]
        got = {(s, p): (a, b, c, d, e) for s, p, a, b, c, d, e in
               t[["session", "pid", "comm_ops", "comm_ns", "compute_kernels", "compute_ns", "overlap_ns"]]
               .itertuples(index=False)}
        self.assertEqual(got, fs.brute_comm(PATHS))

    def test_gpu_idle_equals_brute_force(self):
        t = run("gpu_idle")["gpu_idle"]
        got = {(s, p): (b, i, g) for s, p, b, i, g in
               t[["session", "pid", "busy_ns", "idle_ns", "gaps"]].itertuples(index=False)}
        self.assertEqual(got, fs.brute_idle(PATHS))

    def test_kernel_time_and_top_kernels_equal_brute_force(self):
        brute = fs.brute_kernel_time(PATHS)
        r = run("kernel_time")
        t = r["kernel_time"]
        got = {(s, p, n): (c, ns) for s, p, n, c, ns in
               t[["session", "pid", "name", "calls", "total_ns"]].itertuples(index=False)}
        self.assertEqual(got, brute)
        # The straggler's kernels are stretched too: it is the max rank of the biggest spread.
        ranks = fs.ranks_of(PATHS)
        self.assertEqual(int(r["kernel_diff"]["max_rank"].iloc[0]), STRAGGLER)
        self.assertEqual(set(ranks.values()), set(range(RANKS)))

        top = run("top_kernels", params={"n": 5})["top_kernels"]
        totals = {}
        for (_, _, name), (calls, ns) in brute.items():
            totals[name] = totals.get(name, 0) + ns
        self.assertEqual(list(zip(top["name"], top["total_ns"].astype(int))),
                         sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:5])


if __name__ == "__main__":
    unittest.main()
