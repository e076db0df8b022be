#!/usr/bin/env python3
"""bench/launch-cover.py - how much of an event-timed Python call is the host's launch.

bench times a call with CUDA events around it after a synchronize (the L2
flushed first): the GPU is idle when the opening event is recorded, so the
host's time to reach the kernel's launch (Python, Triton's launcher) is
counted as if the kernel ran. triton.testing.do_bench enqueues its cache
flush and the call without waiting, so the flush covers the launch. This
prints, for a few Triton kernels and PyTorch calls on this GPU: the host's
time for the call alone, the events' median after a synchronize (bench's
way), the same with the GPU kept busy for COVER_US before the opening
event (torch.cuda._sleep), and do_bench's median.

usage: bench/launch-cover.py [COVER_US ...]   (on a GPU host with torch and triton; default 50 100 200)
"""
import statistics
import sys
import time

import torch
import triton
import triton.language as tl
import triton.testing


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x), mask=mask)


@triton.jit
def rownorm_kernel(x_ptr, y_ptr, eps, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=0.0)
    d = tl.where(mask, x - tl.sum(x, axis=0) / cols, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=0) / cols + eps)
    tl.store(y_ptr + row * cols + offs, d * rstd, mask=mask)


def cycles_per_us():
    """torch.cuda._sleep's cycles for one microsecond, measured."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda.synchronize()
    s.record()
    torch.cuda._sleep(10_000_000)
    e.record()
    torch.cuda.synchronize()
    return 10_000_000 / (s.elapsed_time(e) * 1000)


def bench_way(fn, flush, cover_cycles, n=200):
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    ts = []
    for _ in range(n):
        flush.fill_(1)
        torch.cuda.synchronize()
        if cover_cycles:
            torch.cuda._sleep(cover_cycles)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def host_time(fn, n=200):
    ts = []
    for _ in range(n):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1000)
    torch.cuda.synchronize()
    return statistics.median(ts)


def main():
    covers = [float(a) for a in sys.argv[1:]] or [50, 100, 200]
    cpu = cycles_per_us()
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    n = 1 << 24
    x, y = torch.randn(n, device="cuda"), torch.empty(n, device="cuda")
    a, b = torch.randn(16384, 1024, device="cuda"), torch.empty(16384, 1024, device="cuda")
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    calls = {
        "triton relu 16M": lambda: relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024, num_warps=4),
        "triton rownorm 16384x1024": lambda: rownorm_kernel[(16384,)](a, b, 1e-5, 1024, BLOCK=1024, num_warps=4),
        "torch relu 16M": lambda: torch.clamp_min(x, 0, out=y),
        "torch layer_norm 16384x1024": lambda: torch.nn.functional.layer_norm(a, (1024,)),
        "torch matmul f16 4096": lambda: w @ w,
    }
    for fn in calls.values():  # compiled and warm
        fn()
    torch.cuda.synchronize()
    print("%-28s %9s %9s %s %9s" % ("call", "host ms", "events", " ".join("%9s" % ("cover%g" % c) for c in covers),
                                     "do_bench"))
    for name, fn in calls.items():
        row = [host_time(fn), bench_way(fn, flush, 0)] + [bench_way(fn, flush, int(c * cpu)) for c in covers]
        row.append(triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"))
        print("%-28s %s" % (name, " ".join("%9.4f" % v for v in row)), flush=True)


if __name__ == "__main__":
    main()
