#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/layers.py finds each violation planted in tests/fixtures/layers, and none in the
repository itself."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scripts", "layers.py")

planted = subprocess.run([sys.executable, SCRIPT, os.path.join(REPO, "tests", "fixtures", "layers")],
                         capture_output=True, text=True)
expected = [
    "core/store/writer.h:2: core/store (layer store) includes core/timeline/lanes.h (higher layer timeline)",
    "core/timeline/lanes.h:3: core includes QString",
    'core/model/records.h:2: include "timeline/lanes.h" must name its layer',
    "ui/panels/panel.cpp:2: SQL outside core/store",
    "ui/session/document.h:3: SQL outside core/store",
    "folder circle: core/store <-> core/timeline",
    "folder circle: ui/panels <-> ui/session",
]
failures = [e for e in expected if e not in planted.stdout]
if planted.returncode != 1:
    failures.append(f"exit code {planted.returncode} on the planted tree, expected 1")
clean = subprocess.run([sys.executable, SCRIPT], capture_output=True, text=True)
if clean.returncode != 0:
    failures.append("the repository itself has violations:\n" + clean.stdout)
for f in failures:
    print("FAIL:", f)
print(planted.stdout)
sys.exit(1 if failures else 0)
