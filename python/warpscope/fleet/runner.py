# SPDX-License-Identifier: MIT
"""Runs a recipe over many sessions on dask.distributed: one task per file, each task opening
its session where it lies (paths travel, never bytes), the reducer on the client.

Without `scheduler` a LocalCluster of `workers` processes (one thread each: SQLite and pandas
hold the GIL) is started for the run and closed after it; with `scheduler="tcp://host:8786"`
the same tasks go to that cluster, whose workers must see the same paths (a shared file
system) and import the same warpscope package."""

import glob
import logging
import os
import sys
import time

import pandas as pd

from .recipe import Recipe, Skip, normalize
from .recipes import RECIPES
from .result import FleetResult


def discover(inputs):
    """Session paths from directories (every *.wscope below, recursively), glob patterns and
    file names, absolute, sorted within each input, duplicates dropped."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    out = []
    for spec in inputs:
        spec = os.fspath(spec)
        if os.path.isdir(spec):
            found = sorted(glob.glob(os.path.join(glob.escape(spec), "**", "*.wscope"), recursive=True))
        elif any(c in spec for c in "*?["):
            found = sorted(glob.glob(spec, recursive=True))
        else:
            found = [spec]  # a missing file is reported per file, like an unreadable one
        out += [os.path.abspath(p) for p in found]
    return list(dict.fromkeys(out))


def map_session(path, recipe, params):
    """One task: opens the session read-only on the worker, runs the mapper, returns its frames
    (with a `session` column) or the reason the session is skipped. Never raises for a bad file."""
    from ..session import SessionError, open as open_session

    t0 = time.perf_counter()
    try:
        with open_session(path) as s:
            tables = normalize(recipe.map(s, **params), recipe.name)
    except (SessionError, Skip) as e:
        return {"path": path, "ok": False, "reason": str(e), "elapsed_s": time.perf_counter() - t0}
    except Exception as e:  # a recipe that fails on one file: that file is skipped, with the error
        return {"path": path, "ok": False, "reason": f"{path}: {type(e).__name__}: {e}",
                "elapsed_s": time.perf_counter() - t0}
    for df in tables.values():
        df.insert(0, "session", path)
    return {"path": path, "ok": True, "tables": tables, "elapsed_s": time.perf_counter() - t0,
            "rows": sum(len(df) for df in tables.values())}


def reduce_outcomes(recipe, outcomes, params):
    """The reducer over the counted outcomes (in input order), as a FleetResult body."""
    counted = [o for o in outcomes if o["ok"]]
    names = list(dict.fromkeys(t for o in counted for t in o["tables"]))
    parts = {t: pd.concat([o["tables"][t] for o in counted if t in o["tables"]], ignore_index=True) for t in names}
    tables = recipe.reduce(parts, **params) if counted else {}
    return tables


def _progress_printer(stream, total):
    width = len(str(total))

    def show(done, outcome):
        if outcome["ok"]:
            print(f"[{done:>{width}}/{total}] ok    {outcome['path']} ({outcome['elapsed_s']:.2f} s, "
                  f"{outcome['rows']} rows)", file=stream, flush=True)
        else:
            print(f"[{done:>{width}}/{total}] SKIP  {outcome['reason']}", file=stream, flush=True)

    return show


def _ensure_importable_by_workers():
    """LocalCluster's worker processes are spawned fresh: make sure they import this warpscope."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([root] + paths)


def run(inputs, recipe, params=None, scheduler=None, workers=2, progress=None):
    """Runs `recipe` (a Recipe or a built-in's name) over the sessions `inputs` names (paths,
    directories, globs) and returns a FleetResult. `scheduler`: a dask.distributed scheduler
    address (or a Client) to use instead of a LocalCluster of `workers` processes. `progress`:
    a callable(done, outcome), or a stream to print one line per file to."""
    if isinstance(recipe, str):
        if recipe not in RECIPES:
            raise ValueError(f"unknown recipe {recipe!r} (known: {', '.join(RECIPES)})")
        recipe = RECIPES[recipe]
    if not isinstance(recipe, Recipe):
        raise TypeError("recipe must be a warpscope.fleet.Recipe or a built-in recipe's name")
    params = recipe.resolved_params(params)
    paths = discover(inputs)
    if not paths:
        raise ValueError(f"no sessions found in {inputs!r}")
    if progress is not None and not callable(progress):
        progress = _progress_printer(progress, len(paths))

    from dask.distributed import Client, LocalCluster, as_completed

    t0 = time.perf_counter()
    cluster = None
    if scheduler is None:
        _ensure_importable_by_workers()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, silence_logs=logging.ERROR)
        client, owns_client = Client(cluster), True
        where = f"LocalCluster({workers} workers)"
    elif isinstance(scheduler, Client):
        client, owns_client, where = scheduler, False, str(scheduler.scheduler.address)
    else:
        client, owns_client, where = Client(scheduler), True, str(scheduler)
    try:
        futures = client.map(map_session, paths, recipe=recipe, params=params, pure=False,
                             key=[f"warpscope-fleet-{recipe.name}-{i}" for i in range(len(paths))])
        index = {f.key: i for i, f in enumerate(futures)}
        outcomes = [None] * len(paths)
        for done, fut in enumerate(as_completed(futures), 1):
            i = index[fut.key]
            try:
                outcome = fut.result()
            except Exception as e:  # the worker died or could not run the task at all
                outcome = {"path": paths[i], "ok": False, "reason": f"{paths[i]}: task failed: {type(e).__name__}: {e}",
                           "elapsed_s": 0.0}
            outcomes[i] = outcome
            fut.release()
            if progress:
                progress(done, outcome)
        map_s = time.perf_counter() - t0
        tables = reduce_outcomes(recipe, outcomes, params)
    finally:
        if owns_client:
            client.close()
        if cluster is not None:
            cluster.close()
    elapsed = time.perf_counter() - t0
    sessions = pd.DataFrame({"path": [o["path"] for o in outcomes],
                             "status": ["ok" if o["ok"] else "skipped" for o in outcomes],
                             "reason": [None if o["ok"] else o["reason"] for o in outcomes],
                             "elapsed_s": [o["elapsed_s"] for o in outcomes],
                             "rows": [o.get("rows", 0) for o in outcomes]})
    meta = {"recipe": recipe.name, "params": params, "scheduler": where, "sessions": len(paths),
            "counted": int((sessions["status"] == "ok").sum()), "skipped": int((sessions["status"] != "ok").sum()),
            "elapsed_s": round(elapsed, 3), "map_s": round(map_s, 3),
            "python": sys.version.split()[0]}
    return FleetResult(recipe.name, tables, sessions, meta)
