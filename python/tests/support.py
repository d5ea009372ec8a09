# SPDX-License-Identifier: MIT
"""Paths and helpers shared by the tests: the repository, the built warpscope-cli (WS_CLI, set
by ctest), and a CPU-only fake GPU that makes the harness's method observable."""

import csv
import io
import os
import subprocess
import unittest

try:
    import numpy  # noqa: F401
    import pandas  # noqa: F401
except ImportError as e:
    raise ImportError(f"{e}: the warpscope package needs python3-numpy and python3-pandas "
                      "(scripts/install-deps.sh installs them)") from e

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DEMO = os.path.join(REPO, "resources", "demo", "h200-gemm-relu.wscope")
TORCH_NVTX = os.path.join(REPO, "tests", "fixtures", "recorder", "sessions", "torch_nvtx.wscope")
PDL_BENCH = os.path.join(REPO, "tests", "fixtures", "bench", "h200-pdl-1M.wscope")
MULTIRUN = os.path.join(REPO, "tests", "fixtures", "multirun", "h200-gemm-relu-3runs.wscope")


def cli_path():
    path = os.environ.get("WS_CLI") or os.path.join(REPO, "build", "release", "bin", "warpscope-cli")
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"warpscope-cli not built at {path} (ctest sets WS_CLI)")
    return path


def cli(*args):
    p = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"warpscope-cli {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p.stdout


def cli_csv(report, path):
    """One `warpscope-cli stats -r REPORT -f csv` report as a list of dicts."""
    return list(csv.DictReader(io.StringIO(cli("stats", "-r", report, "-f", "csv", path))))


def info_table_rows(path):
    """The 'Tables (rows)' section of `warpscope-cli info`: {table: rows}."""
    rows, inside = {}, False
    for line in cli("info", path).splitlines():
        if line.startswith("Tables (rows)"):
            inside = True
            continue
        if inside:
            if not line.strip():
                break
            name, count = line.split()
            rows[name] = int(count.replace(",", ""))
    return rows


class FakeGpu:
    """A stream with a virtual clock (ms). Calls advance it by their scripted duration, the flush
    by `flush_ms`; events read it. `log` keeps every operation in stream order, so a test can see
    exactly where the flush and the events fall relative to each call."""

    name = "fake"

    def __init__(self, l2_bytes=50 << 20, flush_ms=0.25):
        self.now = 0.0
        self.log = []
        self._l2 = l2_bytes
        self.flush_ms = flush_ms

    class Event:
        def __init__(self, gpu):
            self.gpu = gpu
            self.t = None

        def record(self):
            self.t = self.gpu.now
            self.gpu.log.append(("event",))

        def elapsed_ms(self, later):
            return later.t - self.t

    def events(self, n):
        return [FakeGpu.Event(self) for _ in range(n)]

    def synchronize(self):
        self.log.append(("sync",))

    def flush(self, nbytes):
        self.now += self.flush_ms
        self.log.append(("flush", nbytes))

    def l2_bytes(self):
        return self._l2

    def describe(self):
        return {"bench.backend": "fake"}, []

    def wallclock(self):
        return self.now / 1e3

    def kernel(self, name, durations_us, output=1.0):
        """A callable taking durations_us(i) (or a constant) microseconds for its i-th call."""
        gpu = self
        count = [0]

        def call(*args):
            d = durations_us(count[0]) if callable(durations_us) else durations_us
            count[0] += 1
            gpu.now += d / 1e3
            gpu.log.append(("call", name))
            return output

        call.__name__ = call.__qualname__ = name
        call.calls = count
        return call
