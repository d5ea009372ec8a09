# SPDX-License-Identifier: MIT
"""capture() and nvtx_timer() call what the recorder listens to, in the right order, through the
library the program uses. A stand-in `torch` module records the calls (no GPU here); that the
recorder honours them is checked on the H200 by scripts/device/jobs/python-bench.sh."""

import os
import subprocess
import sys
import textwrap
import unittest

import support

FAKE_TORCH = textwrap.dedent("""
    import sys, types
    calls = []
    torch = types.ModuleType("torch")
    cuda = types.SimpleNamespace(
        is_available=lambda: True, is_initialized=lambda: True,
        synchronize=lambda: calls.append("synchronize"),
        profiler=types.SimpleNamespace(start=lambda: calls.append("cudaProfilerStart"),
                                       stop=lambda: calls.append("cudaProfilerStop")),
        nvtx=types.SimpleNamespace(range_push=lambda name: calls.append("push " + name),
                                   range_pop=lambda: calls.append("pop")))
    torch.cuda = cuda
    sys.modules["torch"] = torch
    import warpscope
""")


def run(body):
    env = dict(os.environ, PYTHONPATH=os.path.join(support.REPO, "python"))
    code = FAKE_TORCH + textwrap.dedent(body) + "\nprint('|'.join(calls))\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return p.stdout.strip().split("|")


class Markers(unittest.TestCase):
    def test_capture_opens_the_profiler_window_and_drains_the_work_before_closing(self):
        calls = run("""
            with warpscope.capture():
                calls.append("work")
        """)
        self.assertEqual(calls, ["cudaProfilerStart", "work", "synchronize", "cudaProfilerStop"])

    def test_capture_closes_the_window_when_the_block_raises(self):
        calls = run("""
            try:
                with warpscope.capture(synchronize=False):
                    raise ValueError
            except ValueError:
                calls.append("raised")
        """)
        self.assertEqual(calls, ["cudaProfilerStart", "cudaProfilerStop", "raised"])

    def test_capture_by_nvtx_name(self):
        calls = run("""
            with warpscope.capture(nvtx="train"):
                calls.append("work")
        """)
        self.assertEqual(calls, ["push train", "work", "synchronize", "pop"])

    def test_nvtx_timer_as_block_and_decorator(self):
        calls = run("""
            with warpscope.nvtx_timer("step"):
                calls.append("work")
            @warpscope.nvtx_timer("fwd")
            def forward():
                calls.append("forward")
            forward()
            forward()
        """)
        self.assertEqual(calls, ["push step", "work", "pop", "push fwd", "forward", "pop", "push fwd", "forward",
                                 "pop"])


if __name__ == "__main__":
    unittest.main()
