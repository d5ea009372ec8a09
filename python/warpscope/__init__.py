# SPDX-License-Identifier: MIT
"""Warpscope from Python: benchmark any callable with the harness's method into a session,
mark capture ranges and NVTX-timed ops for `warpscope-cli record`, and read sessions as pandas
DataFrames. Importing needs neither torch nor CuPy; see docs/python.md."""

from .bench import BenchOptionError, BenchResult, CliError, CorrectnessError, bench, find_cli, write_session
from .capture import MarkerError, capture, nvtx_timer
from .session import Session, SessionError, open

__version__ = "0.1.0"

__all__ = ["bench", "BenchResult", "BenchOptionError", "CorrectnessError", "CliError", "find_cli", "write_session",
           "capture", "nvtx_timer", "MarkerError", "open", "Session", "SessionError", "__version__"]
