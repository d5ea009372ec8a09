# SPDX-License-Identifier: MIT
"""warpscope.bench's method on a CPU-only fake GPU (tests/support.py FakeGpu): what is inside
each interval, warm-up to stability, alternation, correctness before timing, every sample kept.
GPU timing itself is measured on the H200 (scripts/device/jobs/python-bench.sh)."""

import unittest

import support
import warpscope


def quiet(**kw):
    kw.setdefault("quiet", True)
    return kw


class PerCallTimer(unittest.TestCase):
    def test_flush_sits_before_the_start_event_and_every_call_is_kept(self):
        gpu = support.FakeGpu()
        durations = [10.0 + (i % 7) for i in range(1000)]
        k = gpu.kernel("k", lambda i: durations[i])
        r = warpscope.bench(k, backend=gpu, warmup_calls=0, repeat=8, rounds=3, **quiet())
        run = r.run("k")
        # Stream order of the timed part: (flush, event, call, event) per call, one sync per round.
        timed = gpu.log[gpu.log.index(("sync",)) + 1:]  # after the check's synchronize
        per_round = [("flush", 256 << 20), ("event",), ("call", "k"), ("event",)] * 8 + [("sync",)]
        self.assertEqual(timed, per_round * 3)
        # Each sample is exactly the call's own duration: the flush is outside the interval.
        measured = [c for rnd in run["calls"] for c in rnd]
        self.assertEqual(len(measured), 24)
        for got, want in zip(measured, durations[1:25]):  # call 0 was the correctness check
            self.assertAlmostEqual(got, want, places=9)
        self.assertEqual(len(run["rounds"]), 3)
        self.assertAlmostEqual(run["rounds"][1], sum(durations[9:17]) / 8, places=9)
        self.assertEqual(run["resolved_flush_bytes"], 256 << 20)

    def test_flush_size_is_twice_l2_when_that_is_larger(self):
        gpu = support.FakeGpu(l2_bytes=200 << 20)
        r = warpscope.bench(gpu.kernel("k", 5.0), backend=gpu, warmup_calls=0, repeat=2, rounds=1, **quiet())
        self.assertEqual(r.runs[0]["resolved_flush_bytes"], 400 << 20)
        self.assertIn("400 MiB buffer", r.runs[0]["boundary"])

    def test_warm_cache_writes_nothing_between_calls(self):
        gpu = support.FakeGpu()
        warpscope.bench(gpu.kernel("k", 5.0), backend=gpu, cache="warm", warmup_calls=0, repeat=4, rounds=2,
                        **quiet())
        self.assertNotIn("flush", [e[0] for e in gpu.log])

    def test_a_flush_smaller_than_twice_l2_is_refused(self):
        gpu = support.FakeGpu(l2_bytes=64 << 20)
        with self.assertRaisesRegex(warpscope.BenchOptionError, "smaller than 2 x L2"):
            warpscope.bench(gpu.kernel("k", 5.0), backend=gpu, flush_bytes=100 << 20, **quiet())


class BatchAndWallclock(unittest.TestCase):
    def test_batch_value_is_the_interval_over_repeat(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", lambda i: float(i))
        r = warpscope.bench(k, backend=gpu, timer="cuda-events-per-batch", cache="warm", warmup_calls=0,
                            repeat=4, rounds=2, **quiet())
        run = r.run("k")
        self.assertEqual(run["calls"], [])
        self.assertAlmostEqual(run["rounds"][0], (1 + 2 + 3 + 4) / 4)
        self.assertAlmostEqual(run["rounds"][1], (5 + 6 + 7 + 8) / 4)

    def test_batch_with_flush_is_refused_with_the_harness_sentence(self):
        gpu = support.FakeGpu()
        with self.assertRaisesRegex(warpscope.BenchOptionError, "would fall inside the batch's event interval"):
            warpscope.bench(gpu.kernel("k", 1.0), backend=gpu, timer="cuda-events-per-batch", **quiet())
        self.assertEqual(gpu.log, [])

    def test_wallclock_synchronizes_after_the_flush_before_the_clock_starts(self):
        gpu = support.FakeGpu()
        r = warpscope.bench(gpu.kernel("k", 3.0), backend=gpu, timer="wallclock", warmup_calls=0, repeat=2,
                            rounds=1, wallclock=gpu.wallclock, **quiet())
        timed = gpu.log[gpu.log.index(("sync",)) + 1:]
        self.assertEqual(timed, [("flush", 256 << 20), ("sync",), ("call", "k"), ("sync",)] * 2)
        for c in r.runs[0]["calls"][0]:
            self.assertAlmostEqual(c, 3.0, places=6)


class WarmUp(unittest.TestCase):
    def test_a_time_budget_becomes_a_call_count_after_five_calibration_calls(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", 10.0)  # 10 us per call
        r = warpscope.bench(k, backend=gpu, warmup_ms=1.0, repeat=1, rounds=1, **quiet())
        w = r.runs[0]["warmup"]
        # 5 calibration calls (0.05 ms), then ceil((1.0 - 0.05) / 0.01) = 95 calls in 20 chunks.
        self.assertEqual(w["calls"], 100)
        self.assertEqual(len(w["chunks"]), 20)
        self.assertAlmostEqual(w["elapsed_ms"], 1.0, places=9)
        self.assertTrue(all(abs(c - 10.0) < 1e-9 for c in w["chunks"]))

    def test_still_falling_warm_up_and_rounds_are_reported(self):
        gpu = support.FakeGpu()
        # Slower by 1 us per call for the first 200 calls: warm-up (40 calls) never settles.
        k = gpu.kernel("k", lambda i: 10.0 + max(0, 200 - i))
        r = warpscope.bench(k, backend=gpu, cache="warm", warmup_calls=40, repeat=10, rounds=8, **quiet())
        warnings = " ".join(r.runs[0]["warnings"])
        self.assertIn("warm-up: the time per call was still falling", warnings)
        self.assertIn("rounds still falling", warnings)
        self.assertIn("WARNING:   rounds still falling", r.report())

    def test_a_settled_warm_up_gives_no_warning(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", lambda i: 10.0 + max(0, 20 - i))
        r = warpscope.bench(k, backend=gpu, check=1.0, cache="warm", warmup_calls=200, repeat=10, rounds=8,
                            **quiet())
        self.assertEqual(r.runs[0]["warnings"], [])
        self.assertIn("drift stable", r.report())


class Alternation(unittest.TestCase):
    def test_order_rotates_each_round(self):
        gpu = support.FakeGpu()
        impls = {n: gpu.kernel(n, 5.0) for n in ("a", "b", "c")}
        r = warpscope.bench(impls, backend=gpu, cache="warm", warmup_calls=0, repeat=1, rounds=4, **quiet())
        self.assertEqual(r.run("a")["round_positions"], [0, 2, 1, 0])
        self.assertEqual(r.run("b")["round_positions"], [1, 0, 2, 1])
        self.assertEqual(r.run("c")["round_positions"], [2, 1, 0, 2])
        calls = [e[1] for e in gpu.log if e[0] == "call"][3:]  # after the three checks
        self.assertEqual(calls, list("abc" "bca" "cab" "abc"))  # i = (pos + round) % n, as in bench.cpp

    def test_no_alternation_keeps_the_order(self):
        gpu = support.FakeGpu()
        impls = {n: gpu.kernel(n, 5.0) for n in ("a", "b")}
        r = warpscope.bench(impls, backend=gpu, cache="warm", warmup_calls=0, repeat=1, rounds=3, alternate=False,
                            **quiet())
        self.assertEqual(r.run("b")["round_positions"], [1, 1, 1])

    def test_each_implementation_is_timed_separately(self):
        gpu = support.FakeGpu()
        r = warpscope.bench({"fast": gpu.kernel("fast", 4.0), "slow": gpu.kernel("slow", 9.0)}, backend=gpu,
                            warmup_calls=10, repeat=5, rounds=4, **quiet())
        self.assertAlmostEqual(r.median("fast"), 4.0)
        self.assertAlmostEqual(r.median("slow"), 9.0)


class CorrectnessFirst(unittest.TestCase):
    def test_a_wrong_output_stops_everything_before_timing(self):
        gpu = support.FakeGpu()
        good = gpu.kernel("good", 5.0, output=[1.0, 2.0, 3.0])
        bad = gpu.kernel("bad", 5.0, output=[1.0, 2.5, 3.0])
        with self.assertRaisesRegex(warpscope.CorrectnessError,
                                    r"'bad' fails the correctness check, so nothing was timed: 1 of 3 .*"
                                    r"worst: element 1 = 2\.5, expected 2"):
            warpscope.bench({"good": good, "bad": bad}, backend=gpu, check=[1.0, 2.0, 3.0], **quiet())
        self.assertEqual((good.calls[0], bad.calls[0]), (1, 1))
        self.assertNotIn(("event",), gpu.log)

    def test_nan_fails(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", 5.0, output=[float("nan")])
        with self.assertRaises(warpscope.CorrectnessError):
            warpscope.bench(k, backend=gpu, check=[0.0], **quiet())

    def test_tolerances_and_the_check_report(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", 5.0, output=[100.5, -2.0])
        r = warpscope.bench(k, backend=gpu, check=lambda out: [100.0, -2.0], rtol=1e-2, atol=0, warmup_calls=0,
                            repeat=1, rounds=1, **quiet())
        c = r.runs[0]["check"]
        self.assertEqual((c["performed"], c["passed"], c["checked"], c["total"]), (True, True, 2, 2))
        self.assertAlmostEqual(c["max_abs_error"], 0.5)
        self.assertAlmostEqual(c["max_rel_error"], 0.005)
        with self.assertRaises(warpscope.CorrectnessError):
            warpscope.bench(k, backend=gpu, check=[100.0, -2.0], rtol=1e-3, atol=0, **quiet())

    def test_boolean_check_and_implementations_compared_with_the_first(self):
        gpu = support.FakeGpu()
        with self.assertRaisesRegex(warpscope.CorrectnessError, r"returned False"):
            warpscope.bench(gpu.kernel("k", 1.0, output=3), backend=gpu, check=lambda out: out == 4, **quiet())
        a = gpu.kernel("a", 1.0, output=[1.0, 2.0])
        b = gpu.kernel("b", 1.0, output=[1.0, 3.0])
        with self.assertRaisesRegex(warpscope.CorrectnessError, r"output of implementation 'a'"):
            warpscope.bench([a, b], backend=gpu, **quiet())

    def test_an_unchecked_run_says_so(self):
        gpu = support.FakeGpu()
        r = warpscope.bench(gpu.kernel("k", 1.0), backend=gpu, warmup_calls=0, repeat=1, rounds=1, **quiet())
        self.assertFalse(r.runs[0]["check"]["performed"])
        self.assertIn("not checked for correctness", r.runs[0]["warnings"][-1])


class Options(unittest.TestCase):
    def test_setup_runs_once_outside_timing_and_supplies_the_arguments(self):
        gpu = support.FakeGpu()
        seen = []

        def setup():
            gpu.log.append(("setup",))
            return (3, 4)

        def add(x, y):
            seen.append((x, y))
            gpu.now += 0.001
            return x + y

        r = warpscope.bench(add, backend=gpu, setup=setup, check=7, warmup_calls=0, repeat=2, rounds=1,
                            **quiet())
        self.assertEqual(gpu.log[0], ("setup",))
        self.assertEqual(gpu.log.count(("setup",)), 1)
        self.assertEqual(set(seen), {(3, 4)})
        self.assertTrue(r.runs[0]["check"]["passed"])

    def test_invalid_options_name_the_problem(self):
        gpu = support.FakeGpu()
        k = gpu.kernel("k", 1.0)
        for kw, text in (({"repeat": 0}, "--repeat"), ({"timer": "bogus"}, "--timer must be"),
                         ({"cache": "cold"}, "--cache must be flush or warm"),
                         ({"warmup_ms": 1, "warmup_calls": 2}, "not both"),
                         ({"drift_tolerance": 2}, "drift tolerance")):
            with self.assertRaisesRegex(warpscope.BenchOptionError, text):
                warpscope.bench(k, backend=gpu, **quiet(**kw))
        with self.assertRaisesRegex(warpscope.BenchOptionError, "two implementations are named 'x'"):
            warpscope.bench([gpu.kernel("x", 1.0), gpu.kernel("x", 1.0)], backend=gpu, **quiet())


if __name__ == "__main__":
    unittest.main()
