# SPDX-License-Identifier: MIT
"""The JSON warpscope.bench produces goes into a session through the real
`warpscope-cli bench --from-json` (-o and --append), keeps every sample, and the CLI prints the
same report text the Python side prints."""

import json
import os
import shutil
import tempfile
import unittest

import support
import warpscope


class BenchThroughCli(unittest.TestCase):
    def setUp(self):
        self.cli = support.cli_path()
        self.dir = tempfile.mkdtemp(prefix="ws-py-bench-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def measure(self, **kw):
        gpu = support.FakeGpu()
        impls = {"fast": gpu.kernel("fast", lambda i: 4.0 + (i % 5) * 0.125, output=[1.0, 2.0]),
                 "slow": gpu.kernel("slow", lambda i: 9.0 + (i % 3) * 0.25, output=[1.0, 2.0])}
        kw.setdefault("warmup_calls", 40)
        return warpscope.bench(impls, backend=gpu, check=[1.0, 2.0], workload="axpy", size=2, dtype="fp32",
                               flops=4.0, bytes=24.0, work="2 FMA, 3 x 2 x 4 bytes", repeat=6, rounds=4,
                               cli=self.cli, quiet=True, **kw)

    def test_new_session_holds_every_sample_and_the_report_is_the_clis(self):
        out = os.path.join(self.dir, "py.wscope")
        r = self.measure(output=out)
        self.assertEqual(r.session, out)
        report, session_line = r.cli_output.rsplit("session: ", 1)
        self.assertEqual(report, r.report())
        self.assertEqual(session_line, f"{out} (2 runs)\n")
        with warpscope.open(out) as s:
            self.assertEqual(list(s.runs["kind"]), ["bench"])
            b = s.bench_runs.set_index("implementation")
            self.assertEqual(b.loc["fast", "timer"], "cuda-events-per-call")
            self.assertEqual(b.loc["fast", "workload"], "axpy")
            self.assertEqual(b.loc["slow", "work_flops"], 4.0)
            for name in ("fast", "slow"):
                run = r.run(name)
                mine = s.bench_samples[s.bench_samples["implementation"] == name]
                rounds = mine[mine["call"] == -1].sort_values("round")["value"].tolist()
                calls = mine[mine["call"] >= 0].sort_values(["round", "call"])["value"].tolist()
                self.assertEqual(rounds, run["rounds"])
                self.assertEqual(calls, [c for rnd in run["calls"] for c in rnd])
                self.assertEqual(b.loc[name, "median"], r.median(name))
                self.assertEqual(b.loc[name, "options"]["round_positions"], run["round_positions"])
                self.assertEqual(b.loc[name, "options"]["warmup"]["calls"], 40)

    def test_append_adds_one_bench_run_to_a_recorded_session(self):
        target = os.path.join(self.dir, "demo.wscope")
        shutil.copy2(support.DEMO, target)
        r = self.measure(append=target, timer="wallclock-sync-per-call", cache="warm")
        self.assertIn("appended run 5, 5 runs in the session; 2 benchmark runs", r.cli_output)
        with warpscope.open(target) as s:
            self.assertEqual(list(s.runs["kind"]), ["trace", "profile", "pc-sampling", "bench", "bench"])
            mine = s.bench_runs[s.bench_runs["run_id"] == 5]
            self.assertEqual(sorted(mine["implementation"]), ["fast", "slow"])
            self.assertEqual(set(mine["timer"]), {"wallclock-sync-per-call"})
            self.assertEqual(len(s.kernels), 101)  # the recorded runs are kept as they were

    def test_batch_timer_report_matches_too(self):
        out = os.path.join(self.dir, "batch.wscope")
        r = self.measure(output=out, timer="cuda-events-per-batch", cache="warm", warmup_calls=None, warmup_ms=0.5)
        self.assertEqual(r.cli_output.rsplit("session: ", 1)[0], r.report())
        self.assertIn("4 round values, each the mean of 6 back-to-back calls", r.report())

    def test_the_json_is_the_harness_format(self):
        r = self.measure()
        doc = json.loads(r.to_json())
        self.assertEqual((doc["format"], doc["version"]), ("warpscope-bench", 1))
        path = os.path.join(self.dir, "r.json")
        r.save_json(path)
        out = support.cli("bench", "--from-json", path, "-o", os.path.join(self.dir, "j.wscope"))
        self.assertTrue(out.startswith("axpy / fast  [fp32, size 2, flush cache]\n"))
        self.assertIn("  TFLOP/s:   TFLOP/s = FLOP / t_us / 10^6 = 4 / ", out)
        self.assertIn("  check:     passed, 2 of 2 elements vs the expected output given as check= (rtol 0.01", out)

    def test_a_missing_cli_fails_before_measuring(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", 1.0)
        with self.assertRaisesRegex(warpscope.CliError, "not an executable"):
            warpscope.bench(k, backend=gpu, output=os.path.join(self.dir, "x.wscope"),
                            cli=os.path.join(self.dir, "nope"), quiet=True)
        self.assertEqual(gpu.log, [])


if __name__ == "__main__":
    unittest.main()
