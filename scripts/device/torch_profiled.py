#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs an unmodified Python program under torch.profiler (CPU + CUDA activities), the
reference tracer the recorder is compared against:

    torch_profiled.py TRACE.json|- program.py [args...]

The program runs as __main__ with its own argv; the Chrome trace is exported after it ends
(outside anything the program times). "-" skips the export.
"""
import runpy
import sys

import torch


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    trace, program = sys.argv[1], sys.argv[2]
    sys.argv = sys.argv[2:]
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities) as prof:
        runpy.run_path(program, run_name="__main__")
    if trace != "-":
        prof.export_chrome_trace(trace)


if __name__ == "__main__":
    main()
