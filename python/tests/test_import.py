# SPDX-License-Identifier: MIT
"""`import warpscope` needs neither torch, CuPy, numpy nor pandas (they load when used), and
bench without any CUDA library says what to do instead of failing on an import."""

import os
import subprocess
import sys
import unittest

import support


class Import(unittest.TestCase):
    def test_import_loads_no_heavy_module(self):
        code = ("import sys, warpscope; "
                "print(','.join(m for m in ('torch', 'cupy', 'numpy', 'pandas') if m in sys.modules))")
        env = dict(os.environ, PYTHONPATH=os.path.join(support.REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        self.assertEqual(out.stdout.strip(), "")

    def test_bench_without_torch_or_cupy_names_the_choices(self):
        code = ("import warpscope\n"
                "try:\n"
                "    warpscope.bench(lambda: 1, quiet=True)\n"
                "except RuntimeError as e:\n"
                "    print(e)\n")
        env = dict(os.environ, PYTHONPATH=os.path.join(support.REPO, "python"))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        self.assertIn("import torch or cupy first", out.stdout)
        self.assertIn("backend='host'", out.stdout)


if __name__ == "__main__":
    unittest.main()
