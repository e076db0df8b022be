#!/usr/bin/env python3
"""check-interpret.py - a by-hand check of the honest Triton kernels on the CPU.

Runs every tests/kernels/triton/honest/*.py entry point under Triton's
interpreter on torch CPU tensors at a few sizes (odd ones included),
outputs poisoned with NaN first, and compares each output with a float64
torch reference (|y - ref| <= atol + rtol * |ref|, the variant's
tolerances); also checks that no input changed. Not part of the suite
(the GPU suite, tests/gpu/run.py, runs them for real); it needs torch and
triton in the interpreter it runs under:

    TRITON_INTERPRET=1 PYTHON tests/kernels/triton/check-interpret.py [NAME ...]

Prints one line per (kernel, size): max abs error, worst error over its
allowance, ok or FAIL; exits 1 on any FAIL. Under the interpreter the
tensors are CPU tensors (the real runtime passes CUDA ones), so this
checks the arithmetic and the masking, not speed or compiled behaviour.
"""
import importlib.util
import math
import os
import sys
import time

if os.environ.get("TRITON_INTERPRET") != "1":
    sys.exit("check-interpret.py: run it with TRITON_INTERPRET=1 in the environment")

import torch  # noqa: E402
import triton.runtime.interpreter as interp  # noqa: E402


def _patch_index():
    """The interpreter's program ids are 1-element arrays, and NumPy 2 no
    longer turns those into an int: a loop bound derived from one
    (range(0, (pid + 1) * BM, BN), as causal attention has) fails there
    though it compiles. Read the one element instead."""
    patch = interp._patch_lang_tensor

    def patched(tensor, scope):
        patch(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(self.handle.data.reshape(-1)[0]))
    interp._patch_lang_tensor = patched


_patch_index()

HERE = os.path.dirname(os.path.abspath(__file__))
F32, F16 = torch.float32, torch.float16


def randn(shape, dt, scale=1.0):
    return (torch.randn(shape, dtype=torch.float64) * scale).to(dt)


def relu(sz):
    n = sz["n"]
    x = randn([n], F32)
    x[0] = float("nan")
    return [x], [torch.empty(n, dtype=F32)], [n], lambda: [torch.relu(x.double())]


def softmax(sz):
    r, c = sz["rows"], sz["cols"]
    x = randn([r, c], F32, 4.0)
    return [x], [torch.empty(r, c, dtype=F32)], [r, c], lambda: [torch.softmax(x.double(), dim=1)]


def layer_norm(sz):
    r, c = sz["rows"], sz["cols"]
    x = randn([r, c], F32) + 100.0  # a mean large next to the spread: one-pass E[x^2] - E[x]^2 cancels
    x[0, :: 7] = 1e4  # and a heavy row
    g, b = randn([c], F32), randn([c], F32)
    ref = lambda: [torch.nn.functional.layer_norm(x.double(), [c], g.double(), b.double(), 1e-5)]
    return [x, g, b], [torch.empty(r, c, dtype=F32)], [1e-5, r, c], ref


def row_sum(sz):
    r, c = sz["rows"], sz["cols"]
    x = randn([r, c], F32)
    return [x], [torch.empty(r, dtype=F32)], [r, c], lambda: [x.double().sum(dim=1)]


def hgemm_nt(sz):
    m, n, k = sz["M"], sz["N"], sz["K"]
    a, b = randn([m, k], F16), randn([n, k], F16)
    return [a, b], [torch.empty(m, n, dtype=F16)], [m, n, k], lambda: [a.double() @ b.double().T]


def linear_relu(sz):
    m, n, k = sz["m"], sz["n"], sz["k"]
    a, w, bias = randn([m, k], F16), randn([n, k], F16, 0.1), randn([n], F16)
    ref = lambda: [torch.relu(a.double() @ w.double().T + bias.double())]
    return [a, w, bias], [torch.empty(m, n, dtype=F16)], [m, n, k], ref


def row_cumsum(sz):
    r, c = sz["rows"], sz["cols"]
    x = randn([r, c], F32)
    return [x], [torch.empty(r, c, dtype=F32)], [r, c], lambda: [torch.cumsum(x.double(), dim=1)]


def rms_norm(sz):
    r, c = sz["rows"], sz["cols"]
    x, w = randn([r, c], F16), randn([c], F16)
    xd = x.double()
    ref = lambda: [xd / torch.sqrt((xd * xd).mean(dim=1, keepdim=True) + 1e-6) * w.double()]
    return [x, w], [torch.empty(r, c, dtype=F16)], [1e-6, r, c], ref


def attention_causal(sz):
    b, h, s, d = sz["b"], sz["h"], sz["s"], sz["d"]
    q, k, v = (randn([b, h, s, d], F32) for _ in range(3))
    scale = 1.0 / math.sqrt(d)

    def ref():
        sc = (q.double() @ k.double().transpose(-1, -2)) * scale
        sc = sc.masked_fill(torch.ones(s, s, dtype=torch.bool).triu(1), float("-inf"))
        return [torch.softmax(sc, dim=-1) @ v.double()]
    # argument order: q, k, v, out, b, h, s, d, scale
    return [q, k, v], [torch.empty(b, h, s, d, dtype=F32)], [b, h, s, d, scale], ref


# kernel file -> (entry, case maker, tolerance (atol, rtol) as the variant's task.json has it, sizes)
KERNELS = {
    "relu": ("relu_forward", relu, (1e-5, 1e-3), [{"n": 1}, {"n": 7}, {"n": 65537}]),
    "softmax.f32.cols4096": ("softmax", softmax, (1e-5, 1e-3),
                             [{"rows": 1, "cols": 1}, {"rows": 3, "cols": 1000}, {"rows": 5, "cols": 4096}]),
    "layer_norm.f32.cols1024": ("layer_norm", layer_norm, (1e-5, 1e-3),
                                [{"rows": 1, "cols": 1}, {"rows": 19, "cols": 3}, {"rows": 7, "cols": 1031}]),
    "row_sum.f32.cols4096": ("row_sum", row_sum, (1e-3, 1e-3),
                             [{"rows": 19, "cols": 3}, {"rows": 7, "cols": 1031}, {"rows": 5, "cols": 4096}]),
    "hgemm.f16.nt.mn4096.k4096": ("hgemm", hgemm_nt, (1e-3, 1e-2),
                                  [{"M": 1, "N": 1, "K": 1}, {"M": 7, "N": 5, "K": 3}, {"M": 255, "N": 131, "K": 257}]),
    "linear_bias_act.f16.relu.m512": ("linear_bias_act", linear_relu, (5e-3, 1e-2),
                                      [{"m": 3, "n": 5, "k": 7}, {"m": 129, "n": 257, "k": 100}, {"m": 2, "n": 300, "k": 1031}]),
    "row_cumsum.f32.cols1024": ("row_cumsum", row_cumsum, (2e-3, 1e-3),
                                [{"rows": 1, "cols": 1}, {"rows": 7, "cols": 1031}, {"rows": 3, "cols": 2500}]),
    "rms_norm.f16.cols4096": ("rms_norm", rms_norm, (1e-3, 1e-2),
                              [{"rows": 19, "cols": 3}, {"rows": 7, "cols": 1031}, {"rows": 3, "cols": 4096}]),
    "attention.f32.causal.d64.seq1024": ("attention", attention_causal, (1e-5, 1e-3),
                                         [{"b": 1, "h": 1, "s": 1, "d": 64}, {"b": 2, "h": 3, "s": 17, "d": 64},
                                          {"b": 1, "h": 2, "s": 77, "d": 64}, {"b": 1, "h": 1, "s": 130, "d": 64}]),
}


def load(name, entry):
    path = os.path.join(HERE, "honest", name + ".py")
    spec = importlib.util.spec_from_file_location("cand_" + name.replace(".", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, entry)


def check(name, fn, make, tol, sz):
    """one call: (max abs error, worst error / allowance, inputs unchanged)"""
    ins, outs, rest, ref = make(sz)
    for o in outs:
        o.fill_(float("nan"))
    before = [t.clone() for t in ins]
    fn(*ins, *outs, *rest)
    atol, rtol = tol
    err = worst = 0.0
    for o, r in zip(outs, ref()):
        o = o.double()
        nan_ok = torch.isnan(r) & torch.isnan(o)
        diff = torch.where(nan_ok, torch.zeros_like(r), (o - r).abs())
        diff = torch.where(torch.isnan(diff), torch.full_like(r, float("inf")), diff)
        err = max(err, diff.max().item())
        allow = atol + rtol * torch.where(torch.isnan(r), torch.zeros_like(r), r.abs())
        worst = max(worst, (diff / allow).max().item())
    same = all(torch.equal(a, b) or (torch.isnan(a) == torch.isnan(b)).all() and
               torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)) for a, b in zip(ins, before))
    return err, worst, same


def main():
    names = sys.argv[1:] or sorted(KERNELS)
    torch.manual_seed(1234)
    fails = 0
    print("%-34s %-26s %11s %9s %6s %s" % ("kernel", "size", "max_abs_err", "err/tol", "secs", "result"))
    for name in names:
        entry, make, tol, sizes = KERNELS[name]
        fn = load(name, entry)
        for sz in sizes:
            t0 = time.time()
            err, worst, same = check(name, fn, make, tol, sz)
            ok = worst <= 1.0 and same
            fails += not ok
            label = ",".join("%s=%s" % kv for kv in sz.items())
            print("%-34s %-26s %11.3g %9.3g %6.1f %s" % (name, label, err, worst, time.time() - t0,
                                                       "ok" if ok else "FAIL" + ("" if same else " (input changed)")),
                  flush=True)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
