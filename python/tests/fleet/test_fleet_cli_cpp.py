# SPDX-License-Identifier: MIT
"""`warpscope-cli fleet` (app/cli/cmd_fleet.cpp) runs `python3 -m warpscope.fleet` with the
arguments as given: same result, same exit codes, the Python side's --help, and a clear error
when the interpreter does not exist."""

import os
import subprocess
import tempfile
import unittest

import fleetsupport as fs

import warpscope.fleet as fleet


def cli():
    path = os.environ.get("WS_CLI") or os.path.join(fs.REPO, "build", "release", "bin", "warpscope-cli")
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"warpscope-cli not built at {path} (ctest sets WS_CLI)")
    return path


class CliFleet(unittest.TestCase):
    def run_cli(self, *args, cwd, python=None):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the command finds the package
        env["WARPSCOPE_PYTHON"] = python or os.environ.get("WARPSCOPE_PYTHON", "/usr/bin/python3")
        return subprocess.run([cli(), "fleet", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=240)

    def test_fleet_command_runs_the_python_recipes(self):
        with tempfile.TemporaryDirectory(prefix="ws-fleet-cli-") as d:
            junk = os.path.join(d, "junk.wscope")
            with open(junk, "w") as f:
                f.write("x")
            p = self.run_cli(fs.DDP, junk, "--recipe", "comm_overlap", "-o", "c.wsfleet", "-w", "1", cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("SKIP  " + junk, p.stderr)
            r = fleet.load(os.path.join(d, "c.wsfleet"))
            self.assertEqual(sorted(r["comm_overlap"]["rank"]), [0, 1])
            self.assertEqual(r.meta["skipped"], 1)
            p = self.run_cli(junk, "--recipe", "gpu_idle", "-w", "1", cwd=d)
            self.assertEqual(p.returncode, 2, p.stderr)

    def test_help_is_the_python_sides_and_a_missing_interpreter_is_named(self):
        with tempfile.TemporaryDirectory(prefix="ws-fleet-cli-") as d:
            p = self.run_cli("--help", cwd=d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("--scheduler ADDR", p.stdout)
            self.assertIn("step_time", p.stdout)
            p = self.run_cli(fs.DDP, "-r", "gpu_idle", cwd=d, python="no-such-python3")
            self.assertNotEqual(p.returncode, 0)
            self.assertIn("no-such-python3", p.stderr)
            self.assertIn("WARPSCOPE_PYTHON", p.stderr)


if __name__ == "__main__":
    unittest.main()
