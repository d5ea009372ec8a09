# SPDX-License-Identifier: MIT
"""Marks for `warpscope-cli record`.

capture(): the region `record --capture-range cudaProfilerApi` records. The recorder opens the
window at the exit of the driver's cuProfilerStart and closes it at the entry of cuProfilerStop
(collectors/inject/cuptisession.cpp), which cudaProfilerStart/Stop call, so any of torch's,
CuPy's or libcudart's entry points works. capture(nvtx="NAME") pushes an NVTX range instead,
for `--capture-range nvtx:NAME` (the first range of that name).

nvtx_timer(name): an NVTX push/pop range named `name` on the calling thread, which
`record --nvtx-timing NAME` times with CUDA events on the legacy default stream at push and pop
(docs/recorder.md: work on non-blocking streams is not bracketed)."""

import contextlib
import ctypes
import ctypes.util
import sys


class MarkerError(RuntimeError):
    pass


def _load(names):
    for n in names:
        if not n:
            continue
        try:
            return ctypes.CDLL(n)
        except OSError:
            continue
    return None


class _Profiler:
    """cudaProfilerStart/Stop through the library the program already uses."""

    def __init__(self):
        self._start = self._stop = None
        if "torch" in sys.modules:
            import torch

            if torch.cuda.is_available():
                self._start, self._stop = torch.cuda.profiler.start, torch.cuda.profiler.stop
                return
        if "cupy" in sys.modules:
            import cupy

            self._start, self._stop = cupy.cuda.profiler.start, cupy.cuda.profiler.stop
            return
        lib = _load(["libcudart.so", "libcudart.so.13", "libcudart.so.12", ctypes.util.find_library("cudart")])
        if lib is not None:
            self._start = lambda: _ok(lib.cudaProfilerStart(), "cudaProfilerStart")
            self._stop = lambda: _ok(lib.cudaProfilerStop(), "cudaProfilerStop")
            return
        cuda = _load(["libcuda.so.1", "libcuda.so"])
        if cuda is None:
            raise MarkerError("warpscope.capture(): no CUDA library to call cudaProfilerStart from "
                              "(torch, cupy, libcudart or libcuda)")
        # The driver entry point needs a current context; the runtime's would create one.
        self._start = lambda: _ok(cuda.cuProfilerStart(), "cuProfilerStart")
        self._stop = lambda: _ok(cuda.cuProfilerStop(), "cuProfilerStop")


def _ok(status, what):
    if status != 0:
        raise MarkerError(f"{what} failed with CUDA error {status}")


class _Nvtx:
    """NVTX push/pop: torch.cuda.nvtx when torch is loaded (its NVTX is the one the recorder's
    injection receives), else libnvToolsExt through ctypes."""

    def __init__(self):
        if "torch" in sys.modules:
            import torch

            self.push, self.pop = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
            return
        if "cupy" in sys.modules:
            import cupy

            nvtx = getattr(cupy.cuda, "nvtx", None)
            if nvtx is not None:
                self.push, self.pop = nvtx.RangePush, nvtx.RangePop
                return
        lib = _load(["libnvToolsExt.so.1", "libnvToolsExt.so", ctypes.util.find_library("nvToolsExt")])
        if lib is None:
            raise MarkerError("no NVTX library: import torch or cupy first, or install libnvToolsExt.so.1 "
                              "(the CUDA toolkit's)")
        lib.nvtxRangePushA.argtypes = [ctypes.c_char_p]
        self.push = lambda name: lib.nvtxRangePushA(name.encode())
        self.pop = lib.nvtxRangePop


_marker_cache = {}


def _marker(kind):
    if kind not in _marker_cache:
        _marker_cache[kind] = _Profiler() if kind == "profiler" else _Nvtx()
    return _marker_cache[kind]


@contextlib.contextmanager
def capture(nvtx=None, synchronize=True):
    """Marks the region `warpscope-cli record --capture-range cudaProfilerApi` records (or, with
    nvtx="NAME", `--capture-range nvtx:NAME`). With synchronize, the device is synchronized
    before the window closes, so the work queued inside it has run while it is open."""
    if nvtx is not None:
        marker = _marker("nvtx")
        marker.push(str(nvtx))
        try:
            yield
        finally:
            if synchronize:
                _synchronize()
            marker.pop()
        return
    profiler = _marker("profiler")
    profiler._start()
    try:
        yield
    finally:
        if synchronize:
            _synchronize()
        profiler._stop()


@contextlib.contextmanager
def nvtx_timer(name):
    """An NVTX range `name` around the block, for `warpscope-cli record --nvtx-timing NAME`.
    Also usable as a decorator: @warpscope.nvtx_timer("step")."""
    marker = _marker("nvtx")
    marker.push(str(name))
    try:
        yield
    finally:
        marker.pop()


def _synchronize():
    if "torch" in sys.modules:
        import torch

        if torch.cuda.is_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
            return
    if "cupy" in sys.modules:
        import cupy

        cupy.cuda.Device().synchronize()
