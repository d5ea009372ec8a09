# SPDX-License-Identifier: MIT
"""warpscope.bench: the C++ harness's method (collectors/bench/bench.cpp) for any Python callable.

Order, as there: options validated; every implementation checked against the reference before
anything is timed (a failure raises CorrectnessError and nothing is timed); warm-up per
implementation (a time budget turned into a call count after a 5-call calibration, or a count),
timed in 20 chunks for the drift check; then `rounds` rounds whose order of implementations
rotates every round; per-call events are all enqueued before one synchronize, the L2 flush sits
before the start event (outside the interval); every round value and every call is kept. The
result is the JSON `warpscope-cli bench --from-json` reads (core/bench/benchjson.cpp), and a
session is written by that command, so there is one path from a measurement into a session."""

import json
import math
import os
import subprocess
import sys
import tempfile
import time

from . import _backend, _report


class BenchOptionError(ValueError):
    """Options that cannot give an honest measurement (the harness's sentences)."""


class CorrectnessError(AssertionError):
    """An implementation disagreed with the reference: nothing was timed."""


class CliError(RuntimeError):
    """warpscope-cli was not found, or refused the result."""


def find_cli(cli=None):
    """`cli` if given, else $WARPSCOPE_CLI, else warpscope-cli on PATH."""
    import shutil

    for candidate, where in ((cli, "cli="), (os.environ.get("WARPSCOPE_CLI"), "WARPSCOPE_CLI")):
        if candidate:
            if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
                raise CliError(f"{candidate}: not an executable ({where})")
            return candidate
    found = shutil.which("warpscope-cli")
    if not found:
        raise CliError("warpscope-cli was not found on PATH: install Warpscope, set WARPSCOPE_CLI, or pass cli=")
    return found


# ---- results ----

class BenchResult:
    """What one warpscope.bench call measured: `runs` (one dict per implementation, the JSON
    form), `environment`, `devices`; `session` is the file written (or None)."""

    def __init__(self, environment, devices, runs):
        self.environment = environment
        self.devices = devices
        self.runs = runs
        self.session = None
        self.cli_output = None

    def to_json(self):
        doc = {"format": "warpscope-bench", "version": 1, "environment": self.environment,
               "devices": self.devices, "runs": self.runs}
        return json.dumps(_finite(doc), allow_nan=False)

    def save_json(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())

    def report(self):
        """The summary text, as `warpscope-cli bench` prints it."""
        return _report.format_report(self.runs)

    def run(self, implementation):
        for r in self.runs:
            if r["implementation"] == implementation:
                return r
        raise KeyError(implementation)

    def median(self, implementation=None):
        """Median in us over every call (per-call timers) or every round (batch timer)."""
        r = self.run(implementation) if implementation else self.runs[0]
        return _report.run_stats(r).median

    def medians(self):
        return {r["implementation"]: _report.run_stats(r).median for r in self.runs}

    def __repr__(self):
        parts = ", ".join(f"{k}: {v:.4f} us" for k, v in self.medians().items())
        return f"<warpscope.BenchResult {parts}>"


def _finite(x):
    # JSON has no NaN or infinity; the C++ writer stores null there too.
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_finite(v) for v in x]
    return x


# ---- the correctness check ----

def _to_numpy(x):
    import numpy

    if hasattr(x, "detach") and hasattr(x, "cpu"):  # torch.Tensor (bf16 has no numpy type: widen first)
        return x.detach().float().cpu().numpy().astype(numpy.float64).ravel()
    if hasattr(x, "get") and type(x).__module__.startswith("cupy"):
        return numpy.asarray(x.get(), dtype=numpy.float64).ravel()
    return numpy.asarray(x, dtype=numpy.float64).ravel()


def _count(x):
    try:
        return int(_to_numpy(x).size)
    except (TypeError, ValueError, ImportError):
        return 1


def _compare(name, out, expected, description, rtol, atol):
    import numpy

    a = _to_numpy(out)
    e = _to_numpy(expected)
    if a.size != e.size:
        raise CorrectnessError(f"implementation '{name}' fails the correctness check, so nothing was timed: "
                               f"its output has {a.size} elements, the reference ({description}) {e.size}")
    diff = numpy.abs(a - e)
    allowed = atol + rtol * numpy.abs(e)
    with numpy.errstate(invalid="ignore", divide="ignore"):
        bad = ~(diff <= allowed)  # written so that NaN fails
        finite = numpy.isfinite(diff)
        max_abs = float(diff[finite].max()) if finite.any() else 0.0
        rel_ok = finite & (e != 0)
        max_rel = float((diff[rel_ok] / numpy.abs(e[rel_ok])).max()) if rel_ok.any() else 0.0
    report = {"performed": True, "passed": not bad.any(), "checked": int(a.size), "total": int(a.size),
              "max_abs_error": max_abs, "max_rel_error": max_rel, "rtol": float(rtol), "atol": float(atol),
              "reference": description}
    if bad.any():
        excess = numpy.where(finite, diff - allowed, numpy.inf)
        excess[~bad] = -numpy.inf
        worst = int(excess.argmax())
        raise CorrectnessError(
            "implementation '%s' fails the correctness check, so nothing was timed: %d of %d compared elements "
            "differ from the reference (%s) by more than atol + rtol x |expected| (rtol %g, atol %g); worst: "
            "element %d = %.6g, expected %.6g"
            % (name, int(bad.sum()), a.size, description, rtol, atol, worst, a[worst], e[worst]))
    return report


def _check_one(name, out, check, args, reference_out, reference_name, rtol, atol):
    if check is None:
        if reference_out is None:
            return {"performed": False, "passed": False, "checked": 0, "total": _count(out), "max_abs_error": 0.0,
                    "max_rel_error": 0.0, "rtol": float(rtol), "atol": float(atol), "reference": ""}
        return _compare(name, out, reference_out, f"output of implementation '{reference_name}'", rtol, atol)
    if callable(check):
        description = getattr(check, "__name__", "check")
        verdict = check(out, *args)
        if verdict is None or isinstance(verdict, bool):
            if verdict is False:
                raise CorrectnessError(f"implementation '{name}' fails the correctness check, so nothing was "
                                       f"timed: {description}() returned False")
            n = _count(out)
            return {"performed": True, "passed": True, "checked": n, "total": n, "max_abs_error": 0.0,
                    "max_rel_error": 0.0, "rtol": float(rtol), "atol": float(atol),
                    "reference": f"{description}() (returned {verdict})"}
        return _compare(name, out, verdict, f"{description}() of the inputs", rtol, atol)
    return _compare(name, out, check, "the expected output given as check=", rtol, atol)


# ---- timing ----

def _warm_up(call, o, backend, ev):
    calls_done, elapsed, chunks = 0, 0.0, []
    calls = o["warmup_calls"] if o["warmup_calls"] is not None else 0
    if o["warmup_calls"] is None:
        budget = o["warmup_ms"] if o["warmup_ms"] is not None else _report.DEFAULT_WARMUP_MS
        if budget <= 0:
            return calls_done, elapsed, chunks
        calibration = 5  # a few calls give the time per call that turns the budget into a count
        ev[0].record()
        for _ in range(calibration):
            call()
        ev[1].record()
        backend.synchronize()
        ms = ev[0].elapsed_ms(ev[1])
        elapsed += ms
        calls_done += calibration
        per_call = max(ms / calibration, 1e-4)
        calls = min(int(math.ceil(max(0.0, budget - ms) / per_call)), 10_000_000)
    if calls <= 0:
        return calls_done, elapsed, chunks
    # Timed in chunks so the drift check can tell whether the time per call is still falling.
    nchunks = min(calls, 20)
    for c in range(nchunks):
        n = calls // nchunks + (1 if c < calls % nchunks else 0)
        ev[0].record()
        for _ in range(n):
            call()
        ev[1].record()
        backend.synchronize()
        ms = ev[0].elapsed_ms(ev[1])
        elapsed += ms
        calls_done += n
        chunks.append(ms * 1e3 / n)
    return calls_done, elapsed, chunks


def _measure_round(call, o, backend, ev, flush_bytes, wallclock):
    repeat = o["repeat"]
    timer = o["timer"]
    if timer == "cuda-events-per-batch":
        ev[0].record()
        for _ in range(repeat):
            call()
        ev[1].record()
        backend.synchronize()
        return ev[0].elapsed_ms(ev[1]) * 1e3 / repeat, []
    calls = []
    if timer == "cuda-events-per-call":
        # Everything is enqueued first and read after one synchronization: the host stays ahead
        # of the GPU, so the stream does not idle between a start event and its call.
        for i in range(repeat):
            if flush_bytes:
                backend.flush(flush_bytes)
            ev[2 * i].record()
            call()
            ev[2 * i + 1].record()
        backend.synchronize()
        calls = [ev[2 * i].elapsed_ms(ev[2 * i + 1]) * 1e3 for i in range(repeat)]
    else:
        for _ in range(repeat):
            if flush_bytes:
                backend.flush(flush_bytes)
            backend.synchronize()
            t0 = wallclock()
            call()
            backend.synchronize()
            calls.append((wallclock() - t0) * 1e6)
    return sum(calls) / len(calls), calls


def _implementations(fn):
    if isinstance(fn, dict):
        items = list(fn.items())
    elif callable(fn):
        items = [(None, fn)]
    else:
        items = [(None, f) for f in fn]
    out = []
    for name, f in items:
        if not callable(f):
            raise BenchOptionError(f"implementation {name or f!r} is not callable")
        if name is None:
            # __name__: torch.matmul is "matmul" (its __qualname__ names torch's internal class).
            name = getattr(f, "__name__", None) or getattr(f, "__qualname__", None) or repr(f)
        out.append((str(name), f))
    if not out:
        raise BenchOptionError("no implementation to measure")
    names = [n for n, _ in out]
    for n in names:
        if names.count(n) > 1:
            raise BenchOptionError(f"two implementations are named '{n}'")
    return out


def _infer_dtype(args):
    for a in args:
        d = getattr(a, "dtype", None)
        if d is not None:
            return str(d).replace("torch.", "")
    return ""


def bench(fn, *args, setup=None, check=None, workload="custom", operation=None, size=0, dtype=None,
          flops=0.0, bytes=0.0, throughput="kernel", work="", timer="cuda-events-per-call", cache="flush",
          warmup_ms=None, warmup_calls=None, repeat=100, rounds=5, cooldown_ms=0.0, flush_bytes=0,
          alternate=True, rtol=1e-2, atol=1e-2, drift_tolerance=0.02, output=None, append=None, cli=None,
          backend=None, quiet=False, on_message=None, wallclock=time.perf_counter):
    """Times `fn(*args)` with the harness's method and returns a BenchResult.

    fn: a callable, or {name: callable} / a list of callables to compare (alternated each round).
    setup: called once, outside every interval; a non-None return value replaces `args`
        (a tuple is spread).
    check: the correctness check, run on every implementation before anything is timed:
        an expected output (array-like, torch or CuPy; compared as |out - expected| <= atol + rtol*|expected|),
        or a callable check(out, *args) returning an expected output, or True/None (pass) / False.
        Without check, several implementations are compared with the first one's output.
    timer: 'cuda-events-per-call' (default), 'cuda-events-per-batch', 'wallclock-sync-per-call';
    cache: 'flush' (write max(2 x L2, 256 MiB) before each measured call, outside the interval) or 'warm'.
    flops, bytes, throughput ('kernel'/'effective'), work: declared work of one call, for TFLOP/s and GB/s.
    output / append: write a new session / add a run to one, through `warpscope-cli bench --from-json`.
    backend: 'torch', 'cupy', 'host' or an object (see warpscope._backend); default: torch or CuPy,
        whichever is imported, timing on its current stream.
    """
    o = {"warmup_ms": None if warmup_ms is None else float(warmup_ms),
         "warmup_calls": None if warmup_calls is None else int(warmup_calls),
         "repeat": int(repeat), "rounds": int(rounds), "cooldown_ms": float(cooldown_ms), "cache": cache,
         "timer": _timer_key(timer), "flush_bytes": int(flush_bytes), "alternate": bool(alternate),
         "rtol": float(rtol), "atol": float(atol), "drift_tolerance": float(drift_tolerance)}
    if cache not in _report.CACHES:
        raise BenchOptionError(f"--cache must be flush or warm, not '{cache}'")
    if throughput not in ("kernel", "effective"):
        raise BenchOptionError(f"throughput must be 'kernel' or 'effective', not '{throughput}'")
    if output and append:
        raise BenchOptionError("give output= (a new session) or append= (an existing one), not both")
    errors = _report.validation_errors(o)
    if errors:
        raise BenchOptionError("; ".join(errors))
    impls = _implementations(fn)
    if output or append:
        cli = find_cli(cli)  # before measuring, so a run is not lost to a missing CLI

    def say(msg):
        if on_message:
            on_message(msg)
        elif not quiet:
            print(msg, file=sys.stderr)

    b = _backend.choose(backend)
    l2 = b.l2_bytes()
    errors = _report.validation_errors(o, l2)
    if errors:
        raise BenchOptionError("; ".join(errors))
    if setup is not None:
        given = setup()
        if given is not None:
            args = given if isinstance(given, tuple) else (given,)
    if dtype is None:
        dtype = _infer_dtype(args)
    environment, devices = b.describe()
    environment = {str(k): str(v) for k, v in environment.items()}
    environment["bench.timer_backend"] = getattr(b, "name", type(b).__name__)

    # 1. Correctness, for every implementation, before anything is timed.
    checks = []
    reference_out, reference_name = None, None
    for name, f in impls:
        out = f(*args)
        b.synchronize()
        report = _check_one(name, out, check, args, reference_out, reference_name, o["rtol"], o["atol"])
        if check is None and reference_out is None and len(impls) > 1:
            reference_out, reference_name = out, name
        checks.append(report)
        if report["performed"]:
            say(f"check passed: {name} ({report['checked']} of {report['total']} elements vs {report['reference']})")
        del out

    per_call = o["timer"] != "cuda-events-per-batch"
    ev = b.events(2 * o["repeat"] if per_call else 2)
    resolved_flush = (o["flush_bytes"] or max(_report.DEFAULT_FLUSH_BYTES, 2 * l2)) if cache == "flush" else 0

    # 2. Warm-up, each implementation in turn.
    warmups = []
    for name, f in impls:
        call = _bind(f, args)
        warmups.append(_warm_up(call, o, b, ev))
        say(f"warm-up: {name}, {warmups[-1][0]} calls")

    # 3. Rounds; the order rotates each round so no implementation always runs first or last.
    n = len(impls)
    rounds_v = [[] for _ in impls]
    calls_v = [[] for _ in impls]
    positions = [[] for _ in impls]
    bound = [_bind(f, args) for _, f in impls]
    for r in range(o["rounds"]):
        for pos in range(n):
            i = (pos + r) % n if o["alternate"] else pos
            if o["cooldown_ms"] > 0:
                time.sleep(o["cooldown_ms"] / 1e3)
            value, c = _measure_round(bound[i], o, b, ev, resolved_flush, wallclock)
            rounds_v[i].append(value)
            if per_call:
                calls_v[i].append(c)
            positions[i].append(pos)

    runs = []
    for i, (name, f) in enumerate(impls):
        op = operation or f"{name}(...) called from Python through warpscope.bench"
        run = {"workload": workload, "implementation": name,
               "boundary": _report.describe_boundary(op, o["timer"], cache, o["repeat"], resolved_flush),
               "unit": "us", "work_flops": float(flops), "work_bytes": float(bytes), "size": int(size),
               "dtype": dtype, "options": _json_options(o), "resolved_flush_bytes": int(resolved_flush),
               "throughput": {"kind": throughput, "work": work},
               "warmup": {"calls": int(warmups[i][0]), "elapsed_ms": float(warmups[i][1]),
                          "chunks": [float(x) for x in warmups[i][2]]},
               "check": checks[i], "round_positions": positions[i], "warnings": [],
               "rounds": [float(x) for x in rounds_v[i]], "calls": [[float(x) for x in c] for c in calls_v[i]]}
        run["warnings"] = _report.drift_warnings(run)
        if not checks[i]["performed"]:
            run["warnings"].append("not checked for correctness: pass check= (an expected output or a function "
                                   "computing it) so a wrong result cannot be timed")
        for w in run["warnings"]:
            say(f"warning: {name}: {w}")
        runs.append(run)

    result = BenchResult(environment, devices, runs)
    if output or append:
        _write_session(result, cli, output, append, quiet)
    elif not quiet:
        sys.stdout.write(result.report())
    return result


def _bind(f, args):
    return lambda: f(*args)


def _timer_key(timer):
    aliases = {"events-batch": "cuda-events-per-batch", "batch": "cuda-events-per-batch",
               "events-call": "cuda-events-per-call", "events": "cuda-events-per-call",
               "event": "cuda-events-per-call", "wallclock": "wallclock-sync-per-call",
               "wall": "wallclock-sync-per-call"}
    key = aliases.get(timer, timer)
    if key not in _report.TIMERS:
        raise BenchOptionError("--timer must be cuda-events-per-call, cuda-events-per-batch or "
                               f"wallclock-sync-per-call, not '{timer}'")
    return key


def _json_options(o):
    j = {}
    if o["warmup_ms"] is not None:
        j["warmup_ms"] = o["warmup_ms"]
    if o["warmup_calls"] is not None:
        j["warmup_calls"] = o["warmup_calls"]
    j.update({k: o[k] for k in ("repeat", "rounds", "cooldown_ms", "cache", "timer", "flush_bytes", "alternate",
                                "rtol", "atol", "drift_tolerance")})
    return j


def write_session(result, output=None, append=None, cli=None, quiet=False):
    """Writes `result` into a new session (`output`) or as one more run of `append`, with
    `warpscope-cli bench --from-json`; returns the CLI's report text."""
    if bool(output) == bool(append):
        raise BenchOptionError("give exactly one of output= or append=")
    return _write_session(result, find_cli(cli), output, append, quiet)


def _write_session(result, cli, output, append, quiet):
    with tempfile.TemporaryDirectory(prefix="warpscope-py-") as d:
        path = os.path.join(d, "result.json")
        result.save_json(path)
        target = output or append
        cmd = [cli, "bench", "--from-json", path, "-o" if output else "--append", os.fspath(target)]
        p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise CliError(f"{' '.join(cmd[:2])} --from-json failed (exit {p.returncode}): {p.stderr.strip()}")
    if p.stderr and not quiet:
        sys.stderr.write(p.stderr)
    if not quiet:
        sys.stdout.write(p.stdout)
    result.session = os.fspath(target)
    result.cli_output = p.stdout
    return p.stdout
