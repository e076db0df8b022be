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

Each size is called twice on the same tensors, fresh inputs drawn into
them for the second call (as the harness does). The cheats that the
runtime must catch (CHEATS, from tests/kernels/triton/cheats) run the same
way and must go wrong at one size at least. NAME is a kernel or a cheat;
none: all. Prints one line per (kernel, size): max abs error, worst error
over its allowance, ok or FAIL (a cheat: caught or passes here); exits 1
on any FAIL or any cheat never caught. Under the interpreter the
tensors are CPU tensors (the real runtime passes CUDA ones), so this
checks the arithmetic and the masking, not speed or compiled behaviour.
PYTHON can be a copy of out/refenv-kernelbench (torch for the CPU) with
triton added: cp -a out/refenv-kernelbench /tmp/tv && /tmp/tv/bin/python
-m pip install triton==3.6.0.
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
    if n > 2:
        x[n // 2] = float("nan")  # NaN must stay NaN
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


def load(path, entry):
    spec = importlib.util.spec_from_file_location("cand_" + os.path.basename(path)[:-3].replace(".", "_").replace("-", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, entry)


def header(path):
    """a cheat's '# task:' line, or None"""
    with open(path) as f:
        for line in f:
            if line.startswith("# task:"):
                return line.split(":", 1)[1].strip()
    return None


def check(fn, make, tol, sz):
    """two calls on the same tensors, fresh inputs drawn into them for the
    second, as the harness does: (max abs error, worst error / allowance,
    inputs unchanged) over both"""
    ins, outs, rest, ref = make(sz)
    atol, rtol = tol
    err = worst = 0.0
    same = True
    for call in range(2):
        if call:
            fresh = make(sz)
            for t, f in zip(ins, fresh[0]):
                t.copy_(f)
            # the reference reads the fresh tensors, the candidate the old ones refilled with them
            rest, ref = fresh[2], fresh[3]
        want = ref()
        for o in outs:
            o.fill_(float("nan"))
        before = [t.clone() for t in ins]
        fn(*ins, *outs, *rest)
        for o, r in zip(outs, want):
            o = o.double()
            nan_ok = torch.isnan(r) & torch.isnan(o)
            diff = torch.where(nan_ok, torch.zeros_like(r), (o - r).abs())
            diff = torch.where(torch.isnan(diff), torch.full_like(r, float("inf")), diff)
            err = max(err, diff.max().item())
            allow = atol + rtol * torch.where(torch.isnan(r), torch.zeros_like(r), r.abs())
            worst = max(worst, (diff / allow).max().item())
        same = same and all(torch.equal(torch.nan_to_num(a), torch.nan_to_num(b)) and
                            torch.equal(torch.isnan(a), torch.isnan(b)) for a, b in zip(ins, before))
    return err, worst, same


def row(name, sz, err, worst, secs, verdict):
    label = ",".join("%s=%s" % kv for kv in sz.items())
    print("%-34s %-26s %11.3g %9.3g %6.1f %s" % (name, label, err, worst, secs, verdict), flush=True)


def run_honest(names):
    fails = 0
    for name in names:
        entry, make, tol, sizes = KERNELS[name]
        fn = load(os.path.join(HERE, "honest", name + ".py"), entry)
        for sz in sizes:
            t0 = time.time()
            err, worst, same = check(fn, make, tol, sz)
            ok = worst <= 1.0 and same
            fails += not ok
            row(name, sz, err, worst, time.time() - t0, "ok" if ok else "FAIL" + ("" if same else " (input changed)"))
    return fails


def run_cheats(names):
    """each runtime-caught cheat must go wrong at one size at least"""
    fails = 0
    for name in names:
        path = os.path.join(HERE, "cheats", name + ".py")
        entry, make, tol, sizes = KERNELS[header(path)]
        fn = load(path, entry)
        caught = []
        for sz in sizes:
            t0 = time.time()
            err, worst, same = check(fn, make, tol, sz)
            wrong = worst > 1.0 or not same
            caught.append(wrong)
            row("cheat " + name, sz, err, worst, time.time() - t0,
                ("caught: " + ("mismatch" if worst > 1.0 else "") + (" input changed" if not same else "")) if wrong else "passes here")
        fails += not any(caught)
        if not any(caught):
            print("# cheat %s was never caught" % name)
    return fails


# the cheats the runtime must catch (verify), each on its header's task; the
# screen's (torch in the wrapper, .cpu(), a side stream) are not run here
CHEATS = ["hardcoded-shape", "input-mutation", "partial-writes", "precision-downgrade", "result-caching"]


def main():
    args = sys.argv[1:]
    names = [a for a in args if a in KERNELS] or ([] if args else sorted(KERNELS))
    cheats = [a for a in args if a in CHEATS] or ([] if args else CHEATS)
    torch.manual_seed(1234)
    print("%-34s %-26s %11s %9s %6s %s" % ("kernel", "size", "max_abs_err", "err/tol", "secs", "result"))
    fails = run_honest(names) + run_cheats(cheats)
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
