# SPDX-License-Identifier: MIT
"""Every recipe on the real 2 x H200 DDP recording (tests/fixtures/multigpu/ddp-2gpu.wscope),
checked against what the C++ reports printed on the machine (comm_overlap.csv), the recording's
own summary.json, and brute-force sqlite3 computations; skipped files, the result file and
the CLI (LocalCluster and --scheduler ADDR)."""

import csv
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

import fleetsupport as fs

import warpscope
import warpscope.fleet as fleet

CLUSTER = CLIENT = None


def setUpModule():
    global CLUSTER, CLIENT
    CLUSTER, CLIENT = fs.start_cluster()


def tearDownModule():
    CLIENT.close()
    CLUSTER.close()


def run(recipe, inputs=(fs.DDP,), **kw):
    return fleet.run(list(inputs), recipe, scheduler=CLIENT, **kw)


class DdpFixture(unittest.TestCase):
    def test_comm_overlap_equals_the_cpp_report_recorded_with_the_fixture(self):
        r = run("comm_overlap")
        with open(fs.DDP_COMM_CSV) as f:
            expected = {int(row["PID"]): row for row in csv.DictReader(f)}
        got = r["comm_overlap"].set_index("pid")
        self.assertEqual(sorted(got.index), sorted(expected))
        for pid, row in expected.items():
            g = got.loc[pid]
            self.assertEqual(int(g["rank"]), int(row["Rank"]))
            self.assertEqual(int(g["device_id"]), int(row["DevId"]))
            self.assertEqual(int(g["comm_ops"]), int(row["Comm Ops"]))
            self.assertEqual(int(g["comm_ns"]), int(row["Comm Time (ns)"]))
            self.assertEqual(int(g["compute_kernels"]), int(row["Compute Kernels"]))
            self.assertEqual(int(g["compute_ns"]), int(row["Compute Time (ns)"]))
            self.assertEqual(int(g["overlap_ns"]), int(row["Overlap Time (ns)"]))
            self.assertEqual(int(g["exposed_comm_ns"]), int(row["Exposed Comm (ns)"]))
            self.assertAlmostEqual(float(g["overlap_pct"]), float(row["Overlap (%)"]), delta=0.05)

    def test_step_time_has_every_nvtx_step_of_both_ranks_and_no_straggler_between_two(self):
        r = run("step_time")
        t = r["step_time"]
        brute = fs.brute_steps([fs.DDP])
        self.assertEqual(len(brute), 2)
        for (path, pid), steps in brute.items():
            mine = t[t["pid"] == pid].set_index("step")
            self.assertEqual(sorted(mine.index), list(range(-3, 10)))  # 3 warm-up + 10 timed steps
            for step, (ns, kns) in steps.items():
                self.assertEqual(int(mine.loc[step, "step_ns"]), ns)
                self.assertEqual(int(mine.loc[step, "kernel_ns"]), kns)
        self.assertEqual(set(t["rank"]), {0, 1})
        self.assertEqual(set(t["basis"]), {"nvtx"})
        # The NVTX range's own name (the app's compare window iterates over it): "step N".
        self.assertEqual(list(t["range"]), [f"step {s}" for s in t["step"]])
        # With two ranks each is exactly one MAD from their median: nobody can be flagged.
        self.assertEqual(int(t["straggler"].sum()), 0)
        self.assertEqual(int(r["step_ranks"]["straggler"].sum()), 0)

    def test_kernel_time_counts_every_kernel_and_the_nccl_ones_of_summary_json(self):
        r = run("kernel_time")
        t = r["kernel_time"]
        with open(os.path.join(os.path.dirname(fs.DDP), "summary.json")) as f:
            summary = json.load(f)["per_process_device"]
        brute = fs.brute_kernel_time([fs.DDP])
        self.assertEqual(len(t), len(brute))
        for (path, pid, name), (calls, ns) in brute.items():
            row = t[(t["pid"] == pid) & (t["name"] == name)]
            self.assertEqual((int(row["calls"].iloc[0]), int(row["total_ns"].iloc[0])), (calls, ns), name)
        for key, s in summary.items():
            pid = int(key.split()[1])
            comm = t[(t["pid"] == pid) & (t["comm"] == 1)]
            self.assertEqual(int(comm["calls"].sum()), s["nccl_kernels"])
            self.assertEqual(int(comm["total_ns"].sum()), s["nccl_ns"])
            self.assertEqual(sorted(comm["name"]), sorted(s["nccl_names"]))
        d = r["kernel_diff"]
        self.assertEqual(set(d["name"]), set(t["name"]))
        self.assertTrue((d["spread_ns"] == d["max_ns"] - d["min_ns"]).all())

    def test_gpu_idle_and_top_kernels_match_brute_force(self):
        idle = run("gpu_idle")["gpu_idle"].set_index("pid")
        for (path, pid), (busy, idle_ns, gaps) in fs.brute_idle([fs.DDP]).items():
            self.assertEqual((int(idle.loc[pid, "busy_ns"]), int(idle.loc[pid, "idle_ns"]), int(idle.loc[pid, "gaps"])),
                             (busy, idle_ns, gaps))
        top = run("top_kernels", params={"n": 3})["top_kernels"]
        totals = {}
        for (path, pid, name), (calls, ns) in fs.brute_kernel_time([fs.DDP]).items():
            totals[name] = totals.get(name, 0) + ns
        best = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
        self.assertEqual(list(zip(top["name"], top["total_ns"].astype(int))), best)


class Iterations(unittest.TestCase):
    def test_without_step_ranges_each_launch_of_the_most_frequent_kernel_starts_a_step(self):
        from warpscope.fleet import synth

        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            path = synth.make_template(fs.DDP, 1067, os.path.join(d, "rank0-nosteps.wscope"))
            db = sqlite3.connect(path)
            db.execute("DELETE FROM nvtx_range")
            db.commit()
            db.close()
            t = run("step_time", [path])["step_time"]
            self.assertEqual(set(t["basis"]), {"iterations"})
            # Brute force: the most frequent short name (ties: first launched), its launches.
            db = sqlite3.connect(path)
            rows = db.execute("""SELECT s.text, k.start, k."end" FROM kernel k JOIN string s ON s.id = k.short_name
                                 ORDER BY k.start""").fetchall()
            db.close()
            counts, first = {}, {}
            for name, start, _ in rows:
                counts[name] = counts.get(name, 0) + 1
                first.setdefault(name, start)
            period = min(counts, key=lambda n: (-counts[n], first[n]))
            starts = [s for n, s, _ in rows if n == period]
            ends = starts[1:] + [max(e for _, _, e in rows)]
            self.assertEqual(list(t["start"]), starts)
            self.assertEqual(list(t["step_ns"]), [e - s for s, e in zip(starts, ends)])
            self.assertEqual(list(t["step"]), list(range(len(starts))))
            self.assertEqual(set(t["range"]), {""})  # no NVTX range to name


class Skipped(unittest.TestCase):
    def test_unreadable_sessions_are_skipped_with_their_reason_and_the_rest_count(self):
        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            junk = os.path.join(d, "junk.wscope")
            with open(junk, "w") as f:
                f.write("not a session")
            other = os.path.join(d, "other-sqlite.wscope")
            sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
            missing = os.path.join(d, "missing.wscope")
            r = run("step_time", [fs.DDP, junk, other, missing])
            self.assertEqual((r.meta["counted"], r.meta["skipped"]), (1, 3))
            reasons = dict(zip(r.skipped["path"], r.skipped["reason"]))
            self.assertIn("not an SQLite database", reasons[junk])
            self.assertIn("application_id", reasons[other])
            self.assertIn("cannot read", reasons[missing])
            self.assertEqual(set(r["step_time"]["session"]), {fs.DDP})

            out = os.path.join(d, "res.wsfleet")
            path, csv_path = r.write(out)
            back = fleet.load(path)
            self.assertEqual(back.meta["recipe"], "step_time")
            self.assertEqual(list(back.tables), ["step_time", "step_ranks"])
            self.assertEqual(len(back["step_time"]), len(r["step_time"]))
            self.assertEqual(sorted(back.skipped["path"]), sorted([junk, other, missing]))
            with open(csv_path) as f:
                self.assertEqual(sum(1 for _ in f) - 1, len(r["step_time"]))
            with self.assertRaises(warpscope.SessionError):  # a result is not a session
                warpscope.open(path)

    def test_parquet_beside_the_result_when_pandas_has_an_engine_else_the_reason_in_meta(self):
        from warpscope.fleet import result as fr

        r = run("gpu_idle")
        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            path, _ = r.write(os.path.join(d, "idle.wsfleet"))
            parquet = fr.parquet_path(path, "gpu_idle")
            self.assertEqual(parquet, os.path.join(d, "idle.gpu_idle.parquet"))
            engine = fr.parquet_engine()
            if engine is None:  # Debian 12: neither pyarrow nor fastparquet is packaged
                self.assertEqual(r.parquet_paths, [])
                self.assertFalse(os.path.exists(parquet))
                self.assertEqual(fleet.load(path).meta["parquet"], fr.PARQUET_UNAVAILABLE)
                with self.assertRaises(ValueError) as e:
                    r.write(os.path.join(d, "strict.wsfleet"), parquet=True)
                self.assertIn("python3-pyarrow", str(e.exception))
            else:
                import pandas as pd

                self.assertEqual(r.parquet_paths, [parquet])
                self.assertEqual(fleet.load(path).meta["parquet"], engine)
                back = pd.read_parquet(parquet, engine=engine)
                self.assertEqual(back.to_dict("list"), r["gpu_idle"].to_dict("list"))
            r.write(os.path.join(d, "no.wsfleet"), parquet=False)
            self.assertFalse(os.path.exists(fr.parquet_path(os.path.join(d, "no.wsfleet"), "gpu_idle")))
            self.assertEqual(fleet.load(os.path.join(d, "no.wsfleet")).meta["parquet"], "not requested")

    def test_a_session_without_steps_or_kernels_is_skipped_by_the_recipe(self):
        from warpscope.fleet import synth

        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            empty = synth.make_template(fs.DDP, 1050, os.path.join(d, "agent.wscope"))  # torchrun's agent
            r = run("step_time", [empty])
            self.assertEqual(r.meta["counted"], 0)
            self.assertIn("no NVTX step ranges and no kernels", r.skipped["reason"][0])


class Cli(unittest.TestCase):
    def cli(self, *args, cwd):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.path.join(fs.REPO, "python")] +
                                            [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        return subprocess.run([sys.executable, "-m", "warpscope.fleet", *args], capture_output=True, text=True,
                              cwd=cwd, env=env, timeout=240)

    def test_cli_progress_per_file_errors_exit_codes_and_scheduler_address(self):
        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            junk = os.path.join(d, "junk.wscope")
            with open(junk, "w") as f:
                f.write("x")
            # A user's cluster: the scheduler this module started, by address.
            p = self.cli(fs.DDP, junk, "-r", "comm_overlap", "-o", "c.wsfleet",
                         "--scheduler", CLUSTER.scheduler_address, cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("ok    " + fs.DDP, p.stderr)
            self.assertIn("SKIP  " + junk + ": not a Warpscope session", p.stderr)
            self.assertIn("1 of 2 sessions counted, 1 skipped", p.stderr)
            self.assertIn(CLUSTER.scheduler_address, p.stderr)
            self.assertTrue(os.path.exists(os.path.join(d, "c.wsfleet")))
            with open(os.path.join(d, "c.csv")) as f:
                self.assertEqual(len(list(csv.DictReader(f))), 2)
            p = self.cli(fs.DDP, junk, "-r", "comm_overlap", "--strict", "-q",
                         "--scheduler", CLUSTER.scheduler_address, cwd=d)
            self.assertEqual(p.returncode, 3, p.stderr)
            p = self.cli(junk, "-r", "gpu_idle", "--scheduler", CLUSTER.scheduler_address, cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)
            if fleet.result.parquet_engine() is None:
                p = self.cli(fs.DDP, "-r", "gpu_idle", "--parquet", "yes", "-q",
                             "--scheduler", CLUSTER.scheduler_address, cwd=d)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn("no python3-pyarrow, no python3-fastparquet", p.stderr)
            p = self.cli(os.path.join(d, "nothing-*.wscope"), "-r", "gpu_idle", cwd=d)
            self.assertEqual(p.returncode, 1)
            self.assertIn("no sessions found", p.stderr)

    def test_cli_default_local_cluster_with_a_recipe_parameter(self):
        with tempfile.TemporaryDirectory(prefix="ws-fleet-") as d:
            p = self.cli(os.path.dirname(fs.DDP), "-r", "top_kernels", "-p", "n=2", cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("LocalCluster(2 workers)", p.stderr)
            r = fleet.load(os.path.join(d, "fleet-top_kernels.wsfleet"))
            self.assertEqual(len(r["top_kernels"]), 2)
            self.assertEqual(r.meta["params"], {"n": 2})


if __name__ == "__main__":
    unittest.main()
