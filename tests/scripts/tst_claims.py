#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/claims.py finds each problem planted in a small documentation tree (an uncovered
figure, a snippet that no longer occurs, a snippet that occurs twice, a missing evidence file, a
dead evidence link, an evidence folder without its README line) and none in the repository."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(REPO, "scripts", "claims.py")


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def run(root, *extra):
    return subprocess.run([sys.executable, SCRIPT, *extra, root], capture_output=True, text=True)


failures = []
with tempfile.TemporaryDirectory() as root:
    write(root, "README.md", "Opens 10M events in 0.9 s on the VM.\nBuilt in 2026; see issue 19, version 3.2.\n")
    write(root, "docs/a.md", """# A

The writer takes 1.34 M events/s of CPU time and the file is 7.47 GB
([evidence](evidence/2026-01-01-run/out.txt)).

| option | default |
|---|---|
| `--period` | `20 us` |

```
bench --size 64 MiB   # code is not a claim
```

A frame costs 4.2 ms p95, twice 4.2 ms p95 here.
Gone: [figure](evidence/2026-01-01-missing/plot.png) and docs/evidence/2026-01-01-run/nope.txt.
""")
    write(root, "collectors/x/README.md", "Flush writes x1.17 more, 13 to 15 us per call.\n")
    write(root, "docs/evidence/2026-01-01-run/out.txt", "output\n")
    write(root, "docs/evidence/2026-01-01-orphan/out.txt", "output\n")
    write(root, "docs/evidence/README.md", "| folder | what |\n|---|---|\n| `2026-01-01-run/` | a run |\n"
          "| `2026-01-01-gone/` | a removed run |\n")
    write(root, "docs/evidence/claims.tsv", "\t".join(["docs/a.md", "takes 1.34 M events/s", "is 7.47 GB",
                                                       "docs/evidence/2026-01-01-run/out.txt"]) + "\n"
          + "\t".join(["docs/a.md", "4.2 ms p95", "", "docs/evidence/2026-01-01-run/out.txt"]) + "\n"
          + "\t".join(["docs/a.md", "this text is not in the doc", "", "setting: docs/a.md"]) + "\n"
          + "\t".join(["collectors/x/README.md", "Flush writes x1.17", "per call", "docs/evidence/2026-01-01-run/none.txt"])
          + "\n" + "\t".join(["README.md", "in 0.9 s", "", "needs-gpu:"]) + "\n")
    planted = run(root)
    expected = [
        "docs/evidence/claims.tsv:2: snippet occurs 2 times in docs/a.md (must be once): '4.2 ms p95'",
        "docs/evidence/claims.tsv:3: snippet occurs 0 times in docs/a.md",
        "docs/evidence/claims.tsv:4: evidence docs/evidence/2026-01-01-run/none.txt does not exist",
        "docs/evidence/claims.tsv:5: 'needs-gpu:' without a reason",
        "docs/a.md:14: claim '4.2 ms' has no row",
        "docs/a.md:15: cites evidence/2026-01-01-missing/plot.png, which does not exist",
        "docs/a.md:15: cites docs/evidence/2026-01-01-run/nope.txt, which does not exist",
        "docs/evidence/README.md: no line for the folder 2026-01-01-orphan",
        "docs/evidence/README.md: names 2026-01-01-gone, which does not exist",
    ]
    for e in expected:
        if e not in planted.stdout:
            failures.append(f"not reported: {e}")
    # Covered, in code, dates, versions, issue numbers: never reported as uncovered claims.
    for quiet in ("'1.34 M events/s'", "'7.47 GB'", "64 MiB", "20 us", "2026", "3.2", "19", "'x1.17'", "13 to 15 us"):
        if f"claim {quiet}" in planted.stdout or f"claim '{quiet}'" in planted.stdout:
            failures.append(f"reported although covered or not a claim: {quiet}")
    listing = run(root, "--list").stdout
    for e in ["README.md:1\t0.9 s\tneeds-gpu:", "collectors/x/README.md:1\tx1.17\t", "collectors/x/README.md:1\t13 to 15 us\t",
              "docs/a.md:3\t1.34 M events/s\tdocs/evidence/2026-01-01-run/out.txt", "docs/a.md:14\t4.2 ms\tNONE"]:
        if e not in listing:
            failures.append(f"--list lacks: {e!r}")
    if planted.returncode != 1:
        failures.append(f"exit code {planted.returncode} on the planted tree, expected 1")

clean = run(REPO)
if clean.returncode != 0:
    failures.append("the repository itself has problems:\n" + clean.stdout)
for f in failures:
    print("FAIL:", f)
print(planted.stdout)
sys.exit(1 if failures else 0)
