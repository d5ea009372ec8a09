# SPDX-License-Identifier: MIT
"""Fleet analysis: one recipe over many sessions (one per rank, or several ranks each) on
dask.distributed, into one result file. See docs/fleet.md.

    import warpscope.fleet as fleet
    r = fleet.run("runs/job42/", "step_time")                # LocalCluster of 2 workers
    r = fleet.run("runs/job42/", "step_time", scheduler="tcp://head:8786")
    r["step_ranks"][r["step_ranks"].straggler == 1]
    r.write("job42.wsfleet")                                  # + job42.csv

Importing this module does not import Dask; `run` does."""

try:
    from .recipe import Recipe, Skip
    from .recipes import RECIPES, CommOverlap, GpuIdle, KernelTime, StepTime, TopKernels
    from .result import FleetResult, load
    from .runner import discover, map_session, run
except ImportError as e:  # name what to install rather than leave a bare "No module named pandas"
    raise ImportError(f"warpscope.fleet needs pandas, numpy, dask and distributed (Debian: python3-pandas "
                      f"python3-dask python3-distributed; scripts/install-deps.sh): {e}") from e

__all__ = ["run", "discover", "map_session", "load", "FleetResult", "Recipe", "Skip", "RECIPES",
           "StepTime", "KernelTime", "CommOverlap", "GpuIdle", "TopKernels"]
