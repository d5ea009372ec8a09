# SPDX-License-Identifier: MIT
"""`pip install ./python` works offline with Debian's python3 (in a venv that sees the system's
python3-pandas): the installed package, not the source tree, opens a session."""

import os
import subprocess
import sys
import tempfile
import unittest

import support


class OfflineInstall(unittest.TestCase):
    def test_pip_install_into_a_venv_without_network(self):
        try:
            import ensurepip  # noqa: F401
        except ImportError:
            self.skipTest("python3-venv is not installed")
        with tempfile.TemporaryDirectory(prefix="ws-py-venv-") as d:
            venv = os.path.join(d, "venv")
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], check=True)
            py = os.path.join(venv, "bin", "python")
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            p = subprocess.run([py, "-m", "pip", "install", os.path.join(support.REPO, "python")],
                               capture_output=True, text=True, env=env, cwd=d)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            code = ("import warpscope, sys; s = warpscope.open(sys.argv[1]); "
                    "print(warpscope.__file__); print(len(s.kernels))")
            p = subprocess.run([py, "-c", code, support.DEMO], capture_output=True, text=True, env=env, cwd=d,
                               check=True)
            where, kernels = p.stdout.split()
            self.assertTrue(where.startswith(venv), where)
            self.assertEqual(int(kernels), support.info_table_rows(support.DEMO)["kernel"])


if __name__ == "__main__":
    unittest.main()
