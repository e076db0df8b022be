#!/usr/bin/env python3
"""bench/autotune-probe.py - what Triton's autotuner costs outside the harness.

The honest autotuned kernel of the GPU suite (tests/kernels/triton/honest/
leaky_relu.f32.n268435459.py: four configs, key "big"), loaded as a
plain module and called in a bare process (no jail, guard, launch check
or dispatch mode), once for each size in SIZES, first calls timed by the
host's clock with a synchronize after each. Triton's do_bench is wrapped
to count the autotuner's benchmark calls: its estimate (ms a call,
flush included), the warmup and repeat counts it derived, and its wall
time, in all and for each config (the lines under a size). The second
call of each size shows the call itself. Run it twice: the first
process compiles the kernels, the second finds them in Triton's cache.
Prints one table; compare the first calls with verify.json's
first_calls, made in the harness. With --guarded HARNESS_PY (prepare
--runtime's harness.py, as out/runtime/py/harness.py) the calls run
under the harness's Python guard and dispatch mode (guard in
src/runtime/pyharness.py), as a candidate's do, without the jail, CUPTI
or the fence. On a GPU host with torch and triton. Not a timed test.

usage: bench/autotune-probe.py [--guarded HARNESS_PY] [SIZES...]   (default 1 4099 33554401 268435459)
"""
import importlib.util
import os
import statistics
import sys
import time

import torch
import triton.testing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNEL = os.path.join(ROOT, "tests", "kernels", "triton", "honest", "leaky_relu.f32.n268435459.py")


def main():
    args = sys.argv[1:]
    guarded = args[1] if args[:1] == ["--guarded"] and len(args) > 1 else None
    sizes = [int(a) for a in args[2 if guarded else 0:]] or [1, 4099, 33554401, 268435459]
    spec = importlib.util.spec_from_file_location("leaky", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    runs = []  # (estimate ms, n_warmup, n_repeat, wall s) of each do_bench
    genuine, event = triton.testing.do_bench, torch.cuda.Event

    def counted(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        # the estimate do_bench makes (five flushed calls, which "first s" also
        # counts), the counts it derives from it, and its wall time
        cache = triton.runtime.driver.active.get_empty_cache_for_benchmark()
        torch.cuda.synchronize()
        e0, e1 = event(enable_timing=True), event(enable_timing=True)
        e0.record()
        for _ in range(5):
            triton.runtime.driver.active.clear_cache(cache)
            fn()
        e1.record()
        torch.cuda.synchronize()
        est = e0.elapsed_time(e1) / 5
        t0 = time.perf_counter()
        r = genuine(fn, warmup=warmup, rep=rep, grad_to_none=grad_to_none, quantiles=quantiles,
                    return_mode=return_mode)
        runs.append((est, max(1, int(warmup / est)), max(1, int(rep / est)), time.perf_counter() - t0))
        return r
    triton.testing.do_bench = counted

    torch.cuda.init()
    torch.empty(1, device="cuda")
    torch.cuda.synchronize()
    checked = None
    if guarded:  # the harness's guard, its refusals counted instead of recorded
        hspec = importlib.util.spec_from_file_location("pyharness", guarded)
        harness = importlib.util.module_from_spec(hspec)
        hspec.loader.exec_module(harness)

        class Runtime:
            refused = 0

            def harnessrefuse(self, rule, detail):
                Runtime.refused += 1
        checked = harness.guard(Runtime())
    print("%-10s %9s %9s %6s %9s %9s %9s %9s" % ("n", "first s", "second ms", "bench", "est ms", "warmup", "repeat",
                                                 "bench s"))
    for n in sizes:
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        before = len(runs)
        times = []
        for _ in range(2):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if checked:
                with checked():
                    mod.leaky_relu(x, y, 0.01, n)
            else:
                mod.leaky_relu(x, y, 0.01, n)
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        mine = runs[before:]
        print("%-10d %9.3f %9.3f %6d %9s %9s %9s %9.3f" % (
            n, times[0], times[1] * 1e3, len(mine),
            "%.4f" % statistics.median(r[0] for r in mine) if mine else "-",
            "%d" % sum(r[1] for r in mine) if mine else "-", "%d" % sum(r[2] for r in mine) if mine else "-",
            sum(r[3] for r in mine)))
        for r in mine:  # each config's benchmark
            print("%-10s %9s %9s %6s %9.4f %9d %9d %9.3f" % ("", "", "", "", r[0], r[1], r[2], r[3]))
        del x, y
    return 0


if __name__ == "__main__":
    sys.exit(main())
