#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns what the fidelity job kept on the GPU machine into the CI fixtures tst_fidelity_raw reads:
for every <mode>.wscope with its <mode>.wscope.profile-<pid>/ result directory (--keep-raw) in
WORK, writes DEST/<mode>/ with config.txt, the profile-<pid>.txt result files and expected.txt,
every kernel_metric value of the session the GPU machine wrote from those files (launch index
among the session's profiled kernels, metric name, %.17g), so CI can require the same values.

Usage: fidelity-fixtures.py WORK DEST
  e.g. fidelity-fixtures.py docs/evidence/2026-12-05-fidelity/work-none tests/fixtures/fidelity/none
"""
import pathlib
import shutil
import sqlite3
import sys


def expected_rows(session):
    db = sqlite3.connect(f"file:{session}?mode=ro", uri=True)
    try:
        names = dict(db.execute("SELECT id, name FROM metric_def"))
        rows = db.execute("SELECT kernel_id, metric_id, value FROM kernel_metric").fetchall()
    finally:
        db.close()
    # The launch index as tst_fidelity_raw counts it: the kernel's rank among those with values.
    index = {k: i for i, k in enumerate(sorted({r[0] for r in rows}))}
    return sorted((index[k], names[m], v) for k, m, v in rows)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    work, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    made = 0
    for session in sorted(work.glob("*.wscope")):
        raws = sorted(work.glob(session.name + ".profile-*"))
        if len(raws) != 1:
            print(f"{session}: {len(raws)} result directories beside it, skipped", file=sys.stderr)
            continue
        mode = session.stem
        out = dest / mode
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for f in sorted(raws[0].iterdir()):
            if f.name == "config.txt" or (f.name.startswith("profile-") and f.suffix == ".txt"):
                shutil.copy(f, out / f.name)
        with open(out / "expected.txt", "w") as e:
            e.write("# launch\tmetric\tvalue (%.17g), as the GPU machine's session written from these files holds them\n")
            for launch, metric, value in expected_rows(session):
                e.write(f"{launch}\t{metric}\t{value:.17g}\n")
        made += 1
    print(f"{made} fixture directories in {dest}")
    return 0 if made else 1


if __name__ == "__main__":
    sys.exit(main())
