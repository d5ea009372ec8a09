# SPDX-License-Identifier: MIT
"""Where warpscope.bench gets its clock, its stream and its L2 flush.

A backend has: `name`, `events(n)` (n timing events with `.record()` and `.elapsed_ms(later)`,
recorded on the current stream), `synchronize()` (the current stream), `flush(nbytes)` (write a
buffer of nbytes on the current stream), `l2_bytes()`, `describe()` -> (environment dict, device
dicts). torch and CuPy are imported only when one of their backends is chosen, so `import warpscope`
works without either; `HostBackend` times host code with the wall clock (tests and CPU-only calls)."""

import os
import platform
import sys
import time


class BackendError(RuntimeError):
    pass


def _device_dict(**given):
    """Every field the harness's JSON reader requires (core/bench/benchjson.cpp forEachDeviceField)."""
    d = {"id": 0, "pid": os.getpid(), "name": "", "uuid": "", "cc_major": 0, "cc_minor": 0, "sm_count": 0,
         "sm_clock_khz": 0, "sm_clock_max_khz": 0, "mem_clock_khz": 0, "mem_bus_width_bits": 0, "l2_bytes": 0,
         "global_mem_bytes": 0, "regs_per_sm": 0, "regs_per_block": 0, "smem_per_sm": 0, "smem_per_block": 0,
         "smem_per_block_optin": 0, "smem_reserved_per_block": 0, "max_warps_per_sm": 0, "max_blocks_per_sm": 0,
         "max_threads_per_block": 0, "warp_size": 0, "dram_bandwidth_bytes_per_s": 0.0,
         "peak_fp32_flops_per_s": 0.0, "peak_fp64_flops_per_s": 0.0, "peak_fp16_tensor_flops_per_s": 0.0,
         "peak_bf16_tensor_flops_per_s": 0.0, "peak_fp8_tensor_flops_per_s": 0.0,
         "peak_tf32_tensor_flops_per_s": 0.0, "l2_bandwidth_bytes_per_s": 0.0, "l1_bandwidth_bytes_per_s": 0.0}
    d.update(given)
    return d


def _base_environment():
    return {"host": platform.node(), "python.version": platform.python_version(),
            "python.executable": sys.executable, "bench.frontend": "warpscope (Python)"}


class HostBackend:
    """Host wall clock after a synchronize; no stream, no cache to flush. `synchronize` may be
    given (e.g. a device's synchronize) so wall-clock timing of asynchronous work stays honest."""

    name = "host"

    def __init__(self, synchronize=None, clock=time.perf_counter):
        self._sync = synchronize or (lambda: None)
        self._clock = clock

    class _Event:
        def __init__(self, backend):
            self._b = backend
            self.t = None

        def record(self):
            self._b._sync()
            self.t = self._b._clock()

        def elapsed_ms(self, later):
            return (later.t - self.t) * 1e3

    def events(self, n):
        return [HostBackend._Event(self) for _ in range(n)]

    def synchronize(self):
        self._sync()

    def flush(self, nbytes):
        raise BackendError("the host backend has no device cache to flush: use cache='warm'")

    def l2_bytes(self):
        return 0

    def describe(self):
        return _base_environment(), []


class TorchBackend:
    """torch.cuda.Event on torch.cuda.current_stream(); the flush is a uint8 buffer filled on it."""

    name = "torch"

    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise BackendError("torch is installed but sees no CUDA device")
        self._torch = torch
        self._buffer = None
        self._value = 0

    class _Event:
        def __init__(self, torch):
            self._e = torch.cuda.Event(enable_timing=True)
            self._torch = torch

        def record(self):
            self._e.record(self._torch.cuda.current_stream())

        def elapsed_ms(self, later):
            return self._e.elapsed_time(later._e)

    def events(self, n):
        return [TorchBackend._Event(self._torch) for _ in range(n)]

    def synchronize(self):
        self._torch.cuda.current_stream().synchronize()

    def flush(self, nbytes):
        if self._buffer is None or self._buffer.numel() != nbytes:
            self._buffer = self._torch.empty(nbytes, dtype=self._torch.uint8, device="cuda")
        # A different byte each time, so no level of the memory system can skip the write.
        self._value = (self._value + 1) & 0xFF
        self._buffer.fill_(self._value)

    def l2_bytes(self):
        p = self._torch.cuda.get_device_properties(self._torch.cuda.current_device())
        return int(getattr(p, "L2_cache_size", 0) or 0)

    def describe(self):
        t = self._torch
        dev = t.cuda.current_device()
        p = t.cuda.get_device_properties(dev)
        env = _base_environment()
        env.update({"torch.version": t.__version__, "cuda_version": str(t.version.cuda or ""),
                    "bench.timing_stream": "torch.cuda.current_stream()", "bench.backend": "torch"})
        d = _device_dict(id=dev, name=p.name, uuid=str(getattr(p, "uuid", "")), cc_major=p.major,
                         cc_minor=p.minor, sm_count=p.multi_processor_count, l2_bytes=self.l2_bytes(),
                         global_mem_bytes=int(p.total_memory),
                         regs_per_sm=int(getattr(p, "regs_per_multiprocessor", 0) or 0),
                         max_threads_per_block=int(getattr(p, "max_threads_per_block", 0) or 0),
                         warp_size=int(getattr(p, "warp_size", 0) or 0),
                         smem_per_sm=int(getattr(p, "shared_memory_per_multiprocessor", 0) or 0),
                         smem_per_block=int(getattr(p, "shared_memory_per_block", 0) or 0),
                         smem_per_block_optin=int(getattr(p, "shared_memory_per_block_optin", 0) or 0))
        return env, [d]


class CupyBackend:
    """cupy.cuda.Event on cupy.cuda.get_current_stream(); the flush is a cupy uint8 array fill."""

    name = "cupy"

    def __init__(self):
        import cupy

        self._cp = cupy
        self._buffer = None
        self._value = 0

    class _Event:
        def __init__(self, cp):
            self._cp = cp
            self._e = cp.cuda.Event()

        def record(self):
            self._e.record(self._cp.cuda.get_current_stream())

        def elapsed_ms(self, later):
            return self._cp.cuda.get_elapsed_time(self._e, later._e)

    def events(self, n):
        return [CupyBackend._Event(self._cp) for _ in range(n)]

    def synchronize(self):
        self._cp.cuda.get_current_stream().synchronize()

    def flush(self, nbytes):
        if self._buffer is None or self._buffer.size != nbytes:
            self._buffer = self._cp.empty(nbytes, dtype=self._cp.uint8)
        self._value = (self._value + 1) & 0xFF
        self._buffer.fill(self._value)

    def l2_bytes(self):
        rt = self._cp.cuda.runtime
        return int(rt.deviceGetAttribute(rt.cudaDevAttrL2CacheSize if hasattr(rt, "cudaDevAttrL2CacheSize") else 38,
                                         self._cp.cuda.Device().id))

    def describe(self):
        cp = self._cp
        dev = cp.cuda.Device().id
        p = cp.cuda.runtime.getDeviceProperties(dev)
        env = _base_environment()
        env.update({"cupy.version": cp.__version__, "cuda_runtime_version": str(cp.cuda.runtime.runtimeGetVersion()),
                    "bench.timing_stream": "cupy.cuda.get_current_stream()", "bench.backend": "cupy"})
        name = p.get("name", b"")
        d = _device_dict(id=dev, name=name.decode() if isinstance(name, bytes) else str(name),
                         cc_major=int(p.get("major", 0)), cc_minor=int(p.get("minor", 0)),
                         sm_count=int(p.get("multiProcessorCount", 0)), l2_bytes=self.l2_bytes(),
                         global_mem_bytes=int(p.get("totalGlobalMem", 0)),
                         max_threads_per_block=int(p.get("maxThreadsPerBlock", 0)),
                         warp_size=int(p.get("warpSize", 0)))
        return env, [d]


def choose(backend):
    """An object is used as given; 'torch', 'cupy', 'host' pick one; None prefers a library that is
    already imported (torch, then CuPy), so the timing stream is the one the caller's work runs on."""
    if backend is not None and not isinstance(backend, str):
        return backend
    if backend == "torch":
        return TorchBackend()
    if backend == "cupy":
        return CupyBackend()
    if backend == "host":
        return HostBackend()
    if backend is not None:
        raise BackendError(f"backend must be 'torch', 'cupy', 'host' or a backend object, not {backend!r}")
    if "torch" in sys.modules:
        return TorchBackend()
    if "cupy" in sys.modules:
        return CupyBackend()
    raise BackendError("no CUDA timing backend: import torch or cupy first (warpscope.bench times on their "
                       "current stream), or pass backend='host' to time host code with the wall clock")
