#!/usr/bin/env python3
"""bench/dobench-probe.py - why bench's median and triton.testing.do_bench's part.

For each honest kernel the GPU suite timed (WORKDIR/results.json of
tests/gpu/run), the same kernel and bench case (tests/gpu/run.py's
bench_call) timed several ways, median of REPS calls each, in ms:

  host     the host's time for the call alone (its launch), no sync
  do_bench triton.testing.do_bench, as the suite calls it
  db+cov   do_bench's loop (256 MiB zero_() flush, events, no sync), with
           the GPU kept busy COVER_US before the opening event: the host's
           launch hidden whatever the flush's length
  sync     bench's order without its cover: flush, synchronize, events
  sync+cov bench's order: flush, synchronize, the cover, events
  rd+cov   sync+cov with a flush that reads 256 MiB instead of writing it
           (no dirty lines left in the L2 for the call to write back)
  flush    the zero_() flush alone (what hides do_bench's launch)

and bench's own median from the suite. A gap between do_bench and db+cov
is the host's launch showing in do_bench; between sync+cov and rd+cov the
flush's dirty lines. Prints one table. On a GPU host with torch, triton.

usage: bench/dobench-probe.py WORKDIR [REPS] [COVER_US]   (default 200, 200)
"""
import importlib.util
import json
import os
import statistics
import sys
import time

import torch
import triton.testing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def suite():
    spec = importlib.util.spec_from_file_location("gpurun", os.path.join(ROOT, "tests", "gpu", "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def sleep_cycles(us):
    """torch.cuda._sleep's cycles for US microseconds on this GPU."""
    torch.cuda._sleep(1000)
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    n = 1 << 20
    s.record()
    torch.cuda._sleep(n)
    e.record()
    e.synchronize()
    return max(1, int(n * us / (1000.0 * s.elapsed_time(e))))


def timed(fn, reps, flush, sync, cover):
    """Median ms of fn between events, each call after flush(), a synchronize
    if SYNC, and COVER cycles of busy GPU if nonzero."""
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    for s, e in ev:
        flush()
        if sync:
            torch.cuda.synchronize()
        if cover:
            torch.cuda._sleep(cover)
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in ev)


def host_ms(fn, reps):
    t = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        t.append(time.perf_counter() - t0)
        torch.cuda.synchronize()
    return 1000 * statistics.median(t)


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: bench/dobench-probe.py WORKDIR [REPS] [COVER_US]")
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    cover = sleep_cycles(float(sys.argv[3]) if len(sys.argv) > 3 else 200)
    rows = [r for r in json.load(open(os.path.join(sys.argv[1], "results.json")))
            if r.get("kind") == "honest" and r.get("median_ms") and r.get("pass")]
    run = suite()
    cache = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    sink = torch.empty(1, dtype=torch.int64, device="cuda")
    zero = cache.zero_
    read = lambda: torch.sum(cache.view(torch.int64), dim=0, out=sink)
    cols = ("host", "do_bench", "db+cov", "sync", "sync+cov", "rd+cov", "bench")
    print("%-34s %8s" % ("kernel (ms)", "flush") + "".join(" %9s" % c for c in cols) + "  bench/db  bench/db+cov")
    for r in rows:
        try:
            call = run.bench_call(r)
            if call is None:
                continue
            fn0, argsets, _ = call
            fn = lambda: fn0(*argsets[0])
            fn()
            torch.cuda.synchronize()
            v = {"host": host_ms(fn, 50),
                 "do_bench": triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"),
                 "db+cov": timed(fn, reps, zero, False, cover),
                 "sync": timed(fn, reps, zero, True, 0),
                 "sync+cov": timed(fn, reps, zero, True, cover),
                 "rd+cov": timed(fn, reps, read, True, cover),
                 "bench": r["median_ms"]}
            fl = timed(zero, 20, lambda: None, True, 0)
        except Exception as ex:  # one kernel's failure is a row, not the end
            print("%-34s error %s" % (r["name"][:34], str(ex)[:80]))
            continue
        print("%-34s %8.4f" % (r["name"][:34], fl) + "".join(" %9.4f" % v[c] for c in cols)
              + "  %+7.1f%%  %+7.1f%%" % (100 * (v["bench"] / v["do_bench"] - 1), 100 * (v["bench"] / v["db+cov"] - 1)),
              flush=True)
    del cache


if __name__ == "__main__":
    main()
