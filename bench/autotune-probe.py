#!/usr/bin/env python3
"""bench/autotune-probe.py - what Triton's autotuner costs, bare and as the harness runs it.

The honest autotuned kernel of the GPU suite (tests/kernels/triton/honest/
leaky_relu.f32.n268435459.py: four configs, key "big", n >= 2^20),
loaded as a plain module and called once for each size in SIZES (n=1
first, as verify's cases come), each call timed by the host's clock with
a synchronize after it, then called again. Triton's do_bench is wrapped
to show the autotuner's benchmark of each config: a re-estimate made by
do_bench's own method just before it (a call, then five flushed calls:
these count in the first call's time, not in do_bench's), the warm-up
and repeat counts do_bench derives from such an estimate, and do_bench's
wall time. Run it twice:
the first process compiles the kernels, the second finds them in
Triton's cache. What the harness adds, a piece at a time:

  --guarded HARNESS_PY  the calls under the harness's Python guard and
                        dispatch mode (guard in src/runtime/pyharness.py;
                        HARNESS_PY is prepare --runtime's harness.py)
  --cupti               and its launch check at the driver (CUPTI, from
                        harness.so beside HARNESS_PY), subscribed before
                        the CUDA context as the harness does
  --fill-first          a 256 MiB torch fill and allocation before the
                        first call (whether torch's first kernel, the
                        first flush do_bench makes, costs the time)

The CUDA module loading mode (lazy or eager) is printed last.
Compare the first calls with verify.json's first_calls, made in the
harness (jailed, with the fence). Prints one table. On a GPU host with
torch and triton. Not a timed test.

usage: python3 bench/autotune-probe.py [--guarded HARNESS_PY [--cupti]] [--fill-first] [SIZES...]
       (default sizes 1 4099 33554401 268435459)
"""
import argparse
import ctypes
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
    ap = argparse.ArgumentParser(description="what Triton's autotuner costs, bare and as the harness runs it")
    ap.add_argument("--guarded", metavar="HARNESS_PY")
    ap.add_argument("--cupti", action="store_true")
    ap.add_argument("--fill-first", action="store_true")
    ap.add_argument("sizes", nargs="*", type=int, default=[1, 4099, 33554401, 268435459])
    o = ap.parse_args()
    if o.cupti and not o.guarded:
        ap.error("--cupti needs --guarded")
    spec = importlib.util.spec_from_file_location("leaky", KERNEL)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    harness = rt = checked = None
    if o.guarded:
        hspec = importlib.util.spec_from_file_location("pyharness", o.guarded)
        harness = importlib.util.module_from_spec(hspec)
        hspec.loader.exec_module(harness)
    if o.cupti:  # subscribed before the CUDA context, as the harness does
        rt = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(o.guarded)), "harness.so"))
        rt.launchstatus.restype = ctypes.c_char_p
        rt.launchviolation.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
        lib = harness.cupti()
        if not lib or rt.launchwatch(lib.encode()) != 0:
            print("# no launch check: %s" % rt.launchstatus().decode())
            return 1
        rt.launchallow("\n".join(harness.kernels(mod) + [harness.TORCH_FILLS]).encode())
    runs = []  # (estimate ms, n_warmup, n_repeat, wall s) of each do_bench
    genuine, event = triton.testing.do_bench, torch.cuda.Event

    def counted(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        # do_bench's own estimate, made the same way first, the counts it
        # derives from it, and do_bench's wall time ("first s" counts both)
        driver = triton.runtime.driver.active
        cache = driver.get_empty_cache_for_benchmark()
        fn()
        torch.cuda.synchronize()
        e0, e1 = event(enable_timing=True), event(enable_timing=True)
        e0.record()
        for _ in range(5):
            driver.clear_cache(cache)
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
    if o.fill_first:
        torch.empty(64 << 20, dtype=torch.int, device="cuda").zero_()
        torch.cuda.synchronize()
    if harness:  # the harness's guard, its refusals counted instead of recorded
        class Runtime:
            refused = 0

            def harnessrefuse(self, rule, detail):
                Runtime.refused += 1
        checked = harness.guard(Runtime())
    refusal = harness.Refused if harness else ()
    print("# %s" % ("bare" if not harness else "guarded" + (", launch check" if rt else "")) +
          (", a fill first" if o.fill_first else ""))
    print("%-10s %9s %9s %6s %9s %9s %9s %9s" % ("n", "first s", "second ms", "bench", "est ms", "warmup", "repeat",
                                                 "bench s"))
    for n in o.sizes:
        x = torch.randn(n, device="cuda")
        y = torch.empty_like(x)
        before = len(runs)
        times = []
        for _ in range(2):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if rt:
                rt.launchbegin()
            try:
                if checked:
                    with checked():
                        mod.leaky_relu(x, y, 0.01, n)
                else:
                    mod.leaky_relu(x, y, 0.01, n)
            except refusal as e:  # the guard refused a call
                print("# n=%d: refused: %s" % (n, e))
            if rt:
                rt.launchend()
                rule, detail = ctypes.create_string_buffer(64), ctypes.create_string_buffer(512)
                if rt.launchviolation(rule, 64, detail, 512):
                    print("# n=%d: launch check: %s: %s" % (n, rule.value.decode(), detail.value.decode()))
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
    if rt:
        print("# launch check: %s" % rt.launchstatus().decode())
    mode = ctypes.c_int(0)
    if ctypes.CDLL("libcuda.so.1").cuModuleGetLoadingMode(ctypes.byref(mode)) == 0:
        print("# module loading: %s" % {1: "eager", 2: "lazy"}.get(mode.value, str(mode.value)))
    if harness:
        print("# the guard refused %d calls" % Runtime.refused)
    return 0


if __name__ == "__main__":
    sys.exit(main())
