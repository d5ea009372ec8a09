# SPDX-License-Identifier: MIT
"""warpscope-fleet / python3 -m warpscope.fleet: one recipe over many sessions.

Exit status: 0 every session counted (or some skipped without --strict), 1 usage error or no
session found, 2 no session could be counted, 3 --strict and at least one was skipped."""

import argparse
import os
import sys


def _parser():
    from .recipes import RECIPES

    p = argparse.ArgumentParser(
        prog="warpscope-fleet",
        description="Run a fleet recipe over many Warpscope sessions on dask.distributed and write one "
                    "result file (SQLite) plus a CSV of its primary table.",
        epilog="recipes:\n" + "\n".join(f"  {r.name:<13} {r.description}" for r in RECIPES.values())
               + "\n\noutput: RESULT (SQLite, every table) and RESULT's name with .csv (the primary table). With\n"
                 "a Parquet engine for pandas (pyarrow or fastparquet) importable, also every table as\n"
                 "STEM.TABLE.parquet (job42.wsfleet: job42.step_time.parquet, ...). Debian 12 packages\n"
                 "neither (no python3-pyarrow, no python3-fastparquet), so there only the SQLite file and\n"
                 "the CSV are written (warpscope.fleet.load or pandas.read_sql reads every table).",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="+", metavar="DIR|GLOB|FILE",
                   help="sessions: a directory (every *.wscope below it), a glob (quote it), or files")
    p.add_argument("-r", "--recipe", required=True, choices=sorted(RECIPES), help="the recipe to run")
    p.add_argument("-o", "--output", help="result file (default: fleet-RECIPE.wsfleet); the CSV goes beside it")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="a running dask.distributed scheduler (tcp://host:8786); default: a LocalCluster")
    p.add_argument("-w", "--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a recipe parameter, e.g. -p k=3 (repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="no line per file")
    p.add_argument("--parquet", choices=("auto", "yes", "no"), default="auto",
                   help="also write each table as Parquet: auto (default) when pyarrow or fastparquet is "
                        "importable, yes (error without one), no")
    p.add_argument("--strict", action="store_true", help="exit 3 when any session was skipped")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    from .runner import run

    params = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep:
            print(f"warpscope-fleet: --param {item!r}: expected KEY=VALUE", file=sys.stderr)
            return 1
        params[key] = value
    try:
        result = run(args.inputs, args.recipe, params=params, scheduler=args.scheduler, workers=args.workers,
                     progress=None if args.quiet else sys.stderr)
    except ValueError as e:
        print(f"warpscope-fleet: {e}", file=sys.stderr)
        return 1
    output = args.output or f"fleet-{args.recipe}.wsfleet"
    try:
        path, csv_path = result.write(output, parquet={"auto": "auto", "yes": True, "no": False}[args.parquet])
    except ValueError as e:
        print(f"warpscope-fleet: --parquet yes: {e}", file=sys.stderr)
        return 1
    m = result.meta
    print(f"{m['counted']} of {m['sessions']} sessions counted, {m['skipped']} skipped; {m['elapsed_s']:.1f} s on "
          f"{m['scheduler']}", file=sys.stderr)
    for row in result.skipped.itertuples(index=False):
        print(f"  skipped: {row.reason}", file=sys.stderr)
    print(f"result: {os.path.abspath(path)}\ncsv:    {os.path.abspath(csv_path)}")
    for p in result.parquet_paths:
        print(f"parquet: {os.path.abspath(p)}")
    if m["counted"] == 0:
        return 2
    if args.strict and m["skipped"]:
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
