# SPDX-License-Identifier: MIT
"""`pip install ./python` (offline, a venv that sees Debian's pandas and dask) installs the
fleet subpackage and the `warpscope-fleet` console script (python/setup.cfg), and that script
runs a recipe on the DDP fixture."""

import os
import subprocess
import sys
import tempfile
import unittest

import fleetsupport as fs


class Install(unittest.TestCase):
    def test_console_script_from_an_offline_pip_install(self):
        try:
            import ensurepip  # noqa: F401
        except ImportError:
            self.skipTest("python3-venv is not installed")
        with tempfile.TemporaryDirectory(prefix="ws-fleet-venv-") as d:
            venv = os.path.join(d, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            p = subprocess.run([os.path.join(venv, "bin", "python"), "-m", "pip", "install",
                                os.path.join(fs.REPO, "python")], capture_output=True, text=True, env=env, cwd=d)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            script = os.path.join(venv, "bin", "warpscope-fleet")
            self.assertTrue(os.access(script, os.X_OK), os.listdir(os.path.join(venv, "bin")))
            p = subprocess.run([script, fs.DDP, "-r", "comm_overlap", "-o", "r.wsfleet", "-w", "1"],
                               capture_output=True, text=True, env=env, cwd=d, timeout=240)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("1 of 1 sessions counted", p.stderr)
            with open(os.path.join(d, "r.csv")) as f:
                self.assertEqual(len(f.read().splitlines()), 3)  # header + ranks 0 and 1
            # The installed package ran, not the source tree.
            where = subprocess.run([os.path.join(venv, "bin", "python"), "-c",
                                    "import warpscope.fleet as f; print(f.__file__)"],
                                   capture_output=True, text=True, env=env, cwd=d, check=True).stdout
            self.assertTrue(where.startswith(venv), where)


if __name__ == "__main__":
    unittest.main()
