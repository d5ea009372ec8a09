# SPDX-License-Identifier: MIT
"""Writes per-rank sessions from the real 2 x H200 DDP recording and fleet results over them,
for the app's fleet tests (tests/ui/tst_fleetwindow.cpp runs this with Debian's python3):

    OUTDIR/rank-00000.wscope   rank 0 of tests/fixtures/multigpu/ddp-2gpu.wscope (pid 1067), as recorded
    OUTDIR/rank-00001.wscope   rank 1 (pid 1068), as recorded
    OUTDIR/rank-00002.wscope   rank 0's recording as rank 2, every step 25 % slower (the straggler)
    OUTDIR/ranks-RECIPE.wsfleet   step_time, kernel_time, comm_overlap, gpu_idle over the three
    OUTDIR/ddp-2gpu.wscope        a copy of the DDP recording (both ranks in one file)
    OUTDIR/ddp-step_time.wsfleet  step_time over that copy

Usage: make_rank_fleet.py OUTDIR. Exit 0, or 77 when pandas/dask are missing (the caller skips)."""

import logging
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DDP = os.path.join(REPO, "tests", "fixtures", "multigpu", "ddp-2gpu.wscope")


def main(out):
    sys.path.insert(0, os.path.join(REPO, "python"))
    try:
        from dask.distributed import Client, LocalCluster

        import warpscope.fleet as fleet
        from warpscope.fleet import synth
    except ImportError as e:
        print(f"make_rank_fleet: {e}", file=sys.stderr)
        return 77
    os.makedirs(out, exist_ok=True)
    ranks = [synth.make_template(DDP, 1067, os.path.join(out, "rank-00000.wscope")),
             synth.make_template(DDP, 1068, os.path.join(out, "rank-00001.wscope"))]
    template = synth.make_template(DDP, 1067, os.path.join(out, "template.tmp"))
    try:
        straggler = os.path.join(out, "rank-00002.wscope")
        synth.write_rank(template, straggler, rank=2, world_size=3, straggler=2, slowdown=0.25)
        ranks.append(straggler)
    finally:
        os.remove(template)
    os.environ["PYTHONPATH"] = os.pathsep.join([os.path.join(REPO, "python"), os.environ.get("PYTHONPATH", "")])
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        for recipe in ("step_time", "kernel_time", "comm_overlap", "gpu_idle"):
            fleet.run(ranks, recipe, scheduler=client).write(os.path.join(out, f"ranks-{recipe}.wsfleet"))
        ddp = shutil.copyfile(DDP, os.path.join(out, "ddp-2gpu.wscope"))  # the app opens it, never the fixture
        fleet.run([ddp], "step_time", scheduler=client).write(os.path.join(out, "ddp-step_time.wsfleet"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
