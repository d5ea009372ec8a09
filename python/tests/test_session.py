# SPDX-License-Identifier: MIT
"""warpscope.open on committed real sessions, checked against what warpscope-cli (C++) says
about the same files: `info` table counts and `stats` reports."""

import hashlib
import os
import re
import shutil
import sqlite3
import tempfile
import unittest

import support
import warpscope


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class DemoSession(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.s = warpscope.open(support.DEMO)
        cls.rows = support.info_table_rows(support.DEMO)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_every_table_has_the_rows_info_counts(self):
        self.assertEqual(self.s.schema_version, 2)
        for frame, table in ((self.s.kernels, "kernel"), (self.s.api_calls, "api_call"), (self.s.nvtx, "nvtx_range"),
                             (self.s.nvtx_marks, "nvtx_mark"), (self.s.metrics, "kernel_metric"),
                             (self.s.bench_runs, "bench_run"), (self.s.bench_samples, "bench_sample"),
                             (self.s.runs, "run"), (self.s.devices, "device"), (self.s.memcpy, "memcpy"),
                             (self.s.memset, "memset"), (self.s.kernel_links, "kernel_link")):
            self.assertEqual(len(frame), self.rows[table], table)
        self.assertEqual(len(self.s.meta), self.rows["meta"])
        self.assertEqual(len(self.s.environment), self.rows["environment"])

    def test_runs_are_the_four_info_lists(self):
        self.assertEqual(list(self.s.runs["kind"]), ["trace", "profile", "pc-sampling", "bench"])
        self.assertIn("--set full", self.s.runs["options"][1]["collector_arguments"])

    def test_trace_kernels_by_name_match_the_kernel_summary(self):
        k = self.s.kernels
        trace = k[k["run_kind"] == "trace"]
        for row in support.cli_csv("cuda_gpu_kern_sum", support.DEMO):
            mine = trace[trace["name"] == row["Name"]]
            self.assertEqual(len(mine), int(row["Instances"]), row["Name"])
            self.assertEqual(int(mine["duration"].sum()), int(row["Total Time (ns)"]), row["Name"])
            self.assertEqual(int(mine["duration"].min()), int(row["Min (ns)"]))
        self.assertEqual(len(trace), sum(int(r["Instances"]) for r in support.cli_csv("cuda_gpu_kern_sum",
                                                                                       support.DEMO)))

    def test_metrics_long_and_wide_agree(self):
        m = self.s.metrics
        w = self.s.metrics_wide
        self.assertEqual(len(w), m["kernel_id"].nunique())
        self.assertEqual(int(w.notna().sum().sum()), len(m))
        row = m[m["metric"] == "gpu__time_duration.sum"].iloc[0]
        self.assertEqual(w.loc[row["kernel_id"], "gpu__time_duration.sum"], row["value"])
        # Every profiled launch of the demo is linked to its traced launch (info: 51 links).
        profiled = self.s.kernels.set_index("id").loc[m["kernel_id"].unique()]
        self.assertEqual(len(profiled), self.rows["kernel_link"])
        self.assertTrue(m["trace_kernel_id"].notna().all())

    def test_bench_samples_hold_every_round_and_call(self):
        b = self.s.bench_runs.iloc[0]
        self.assertEqual(b["implementation"], "cublas+relu")
        samples = self.s.bench_samples
        # --repeat 50 --rounds 10 (the run's collector arguments): 10 round values + 500 calls.
        self.assertEqual((samples["call"] == -1).sum(), 10)
        self.assertEqual((samples["call"] >= 0).sum(), 500)
        self.assertEqual(b["options"]["options"]["repeat"], 50)
        self.assertEqual(b["median"], samples[samples["call"] >= 0]["value"].median())


class V1Session(unittest.TestCase):
    def test_nvtx_and_api_calls_match_the_cli_reports(self):
        with warpscope.open(support.TORCH_NVTX) as s:
            self.assertEqual(s.schema_version, 1)
            self.assertEqual(list(s.runs["id"]), [1])
            self.assertTrue((s.kernels["run_id"] == 1).all())
            for row in support.cli_csv("nvtx_sum", support.TORCH_NVTX):
                mine = s.nvtx[s.nvtx["name"] == row["Range"]]
                self.assertEqual(len(mine), int(row["Instances"]), row["Range"])
                self.assertEqual(int(mine["duration"].sum()), int(row["Total Time (ns)"]))
            # cuda_api_sum: runtime calls grouped by recorded name (the CLI prints the name without
            # its version suffix), so compare (calls, total time) per group.
            api = s.api_calls
            runtime = api[api["domain"] == "runtime"].groupby("name")["duration"]
            mine = sorted(zip(runtime.size(), runtime.sum()))
            theirs = sorted((int(r["Num Calls"]), int(r["Total Time (ns)"]))
                            for r in support.cli_csv("cuda_api_sum", support.TORCH_NVTX))
            self.assertEqual(mine, theirs)
            self.assertEqual(len(api), support.info_table_rows(support.TORCH_NVTX)["api_call"])

    def test_a_bench_only_v1_session(self):
        with warpscope.open(support.PDL_BENCH) as s:
            self.assertEqual(list(s.runs["kind"]), ["bench"])
            self.assertEqual(len(s.kernels), 0)
            rows = support.info_table_rows(support.PDL_BENCH)
            self.assertEqual(len(s.bench_samples), rows["bench_sample"])
            self.assertEqual(sorted(s.bench_runs["implementation"]), sorted(set(s.bench_samples["implementation"])))


class ReadOnlyAndErrors(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="ws-py-test-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_the_file_is_never_modified(self):
        path = os.path.join(self.dir, "copy.wscope")
        shutil.copy2(support.MULTIRUN, path)
        before = (digest(path), os.stat(path).st_mtime_ns, sorted(os.listdir(self.dir)))
        with warpscope.open(path) as s:
            for name in ("runs", "kernels", "api_calls", "nvtx", "metrics", "metrics_wide", "bench_runs",
                         "bench_samples", "meta", "environment"):
                getattr(s, name)
            with self.assertRaisesRegex(warpscope.SessionError, "readonly"):
                s.sql("DELETE FROM kernel")
        self.assertEqual((digest(path), os.stat(path).st_mtime_ns, sorted(os.listdir(self.dir))), before)

    def test_not_a_session(self):
        text = os.path.join(self.dir, "notes.wscope")
        with open(text, "w") as f:
            f.write("hello\n" * 100)
        with self.assertRaisesRegex(warpscope.SessionError, re.escape(text) + ": not a Warpscope session"):
            warpscope.open(text)
        other = os.path.join(self.dir, "other.db")
        db = sqlite3.connect(other)
        db.execute("CREATE TABLE t(x)")
        db.commit()
        db.close()
        with self.assertRaisesRegex(warpscope.SessionError, re.escape(other) + r": not a Warpscope session \("
                                    r"SQLite application_id 0x00000000"):
            warpscope.open(other)
        with self.assertRaisesRegex(warpscope.SessionError, "missing.wscope: cannot read"):
            warpscope.open(os.path.join(self.dir, "missing.wscope"))

    def test_a_truncated_session_names_the_file(self):
        cut = os.path.join(self.dir, "cut.wscope")
        with open(support.DEMO, "rb") as src, open(cut, "wb") as dst:
            dst.write(src.read(8192))
        with self.assertRaisesRegex(warpscope.SessionError, re.escape(cut)):
            s = warpscope.open(cut)
            s.kernels
            s.metrics


if __name__ == "__main__":
    unittest.main()
