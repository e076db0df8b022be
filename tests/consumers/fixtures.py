#!/usr/bin/env python3
"""tests/consumers/fixtures.py - round files shaped like a GPU host's, for record

usage: fixtures.py OUT_DIR {gpu|big}

Writes OUT_DIR/<variant>/task.json and OUT_DIR/<variant>/s<k>/r<j>/
{response,compile,verify,bench}.json as query-llm, compile, verify and
bench write them on a GPU host (the fields record reads), then record runs
on them (t0730). No GPU is needed: the verdicts and timings are made up,
and shaped to exercise what a trainer meets:

  gpu  12 samples over 6 tasks: correct at round 1 and fast enough; a
       mismatch repaired in round 2; correct but slow, then faster (the
       flag on round 2) or slower (the flag stays on round 1, the fastest);
       a compile error then correct; no code at all; flagged for review
       (not in train); reasoning on some answers only; a teacher without
       prices (cost null); a screen refusal with 14 violations.
  big  14 samples of one task, about 1 MB each: the first 11 (in id
       order) with no reasoning, no review flag, no GPU name, the last 3
       with all of them, so that the one shard is over 10 MB and a chunked
       reader that infers types from its first chunk sees nulls there and
       strings after.
"""
import hashlib
import json
import os
import sys

CODE = """```cuda
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = %s; }
extern "C" void %s(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
```
"""


def put(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, sort_keys=True, indent=1)


def task(variant, entry):
    return {"id": variant, "spec": variant.split(".")[0], "entry": entry, "target_speedup": 1.0}


def rounds(out, variant, sample, plan, entry, priced=True, pad=0):
    """plan: one dict per round: kind (correct, mismatch, compile_error, no_code, screen, caught: verify
    correct, bench mismatch), ms, speedup (None: no baseline), compile (speedup over torch.compile),
    review, reasoning (text or None)"""
    conv = [{"role": "user", "content": "# Task: %s\n\nWrite %s.%s" % (variant, entry, " pad" * pad)}]
    for j, p in enumerate(plan, 1):
        d = "%s/%s/s%d/r%d/" % (out, variant, sample, j)
        kind = p["kind"]
        text = "Round %d of %s: one thread per element.%s\n\n" % (j, variant, " x" * pad)
        if kind != "no_code":
            text += CODE % ("2 * x[i]" if kind != "mismatch" else "x[i]", entry)
        reasoning = p.get("reasoning") or ""
        resp = {"status": "answered", "task": variant, "sample": sample, "round": j, "provider": "anthropic",
                "model": "claude-fixture", "key": hashlib.sha256(("%s/%d/%d" % (variant, sample, j)).encode()).hexdigest(),
                "system": "You are an expert CUDA engineer.", "messages": conv + [{"role": "assistant", "content": text}],
                "answer": {"text": text, "reasoning": reasoning, "blocks": [], "stop_reason": "end_turn"},
                "usage": {"input_tokens": 1000 * j, "output_tokens": 300, "cache_write_tokens": 0, "cache_read_tokens": 0},
                "cost_usd": 0.01 * j if priced else None}
        put(d + "response.json", resp)
        if kind == "no_code":
            put(d + "compile.json", {"status": "no_code", "reason": "the answer has no fenced code block"})
            put(d + "verify.json", {"verdict": "not_built", "feedback": ""})
            put(d + "bench.json", {"status": "not_verified"})
        elif kind == "compile_error":
            put(d + "compile.json", {"status": "compile_error", "source": "bad", "diagnostics": "cand.cu(1): error: expected a \";\""})
            put(d + "verify.json", {"verdict": "not_built", "feedback": ""})
            put(d + "bench.json", {"status": "not_verified"})
        elif kind == "screen":
            v = [{"rule": "timing", "line": 10 + i, "message": "uses a timer (cudaEventRecord)", "stage": "source"} for i in range(14)]
            put(d + "compile.json", {"status": "screen_failed", "source": "timed", "violations": v})
            put(d + "verify.json", {"verdict": "not_built", "feedback": ""})
            put(d + "bench.json", {"status": "not_verified"})
        else:
            put(d + "compile.json", {"status": "ok", "source": "// round %d\n%s" % (j, text), "violations": []})
            if kind == "mismatch":
                put(d + "verify.json", {"verdict": "mismatch", "feedback": "Wrong results at n=1000: y[0] = 0.5, expected 1."})
                put(d + "bench.json", {"status": "not_verified"})
            elif kind == "caught":  # verify passed it, bench's checked calls did not
                put(d + "verify.json", {"verdict": "correct", "feedback": ""})
                put(d + "bench.json", {"status": "mismatch", "feedback": "Timing at n=1048576 failed: a timed call's outputs differ."})
            else:
                put(d + "verify.json", {"verdict": "correct", "feedback": ""})
                sp = p["speedup"] or 1.0  # speedup None: no baseline, not timed against one
                b = {"status": "measured", "speedup": sp, "review": p.get("review", []),
                     "gpu": {"name": p.get("gpu", "NVIDIA H200")},
                     "cases": [{"candidate": {"median_ms": p["ms"]}, "sol": {"percent": 40.0 * sp}}],
                     "feedback": "At n=1048576 the kernel takes %.4f ms (median). The baseline takes 0.1000 ms: speedup %.2fx.\n"
                                 % (p["ms"], sp)}
                if p["speedup"] is None:
                    del b["speedup"]
                if p.get("compile"):
                    b["speedup_compile"] = p["compile"]
                if p.get("gpu") is False:
                    del b["gpu"]
                put(d + "bench.json", b)
        conv = conv + [{"role": "assistant", "content": text},
                       {"role": "user", "content": "Round %d: here is what happened." % (j + 1)}]


def gpu(out):
    c = lambda ms, sp, **k: dict(kind="correct", ms=ms, speedup=sp, **k)
    samples = [
        ("axpy", 0, [c(0.1, 1.2, reasoning="Memory-bound: one FMA per element.")]),
        ("axpy", 1, [dict(kind="mismatch"), c(0.09, 1.1)]),
        ("scale.f32", 0, [c(0.2, 0.5), c(0.08, 1.3, reasoning="Vectorized with float4.")]),
        ("scale.f32", 1, [c(0.05, 2.0), c(0.07, 0.9)]),  # correct twice: round 1 is the faster
        ("scale.f16", 0, [dict(kind="compile_error", reasoning="Try a cast."), c(0.1, 1.0)]),
        ("scale.f16", 1, [dict(kind="no_code"), dict(kind="no_code")]),
        ("relu2", 0, [c(0.01, 12.0, review=["at n=1048576 the speedup over the baseline is 12.0x"])]),
        ("relu2", 1, [dict(kind="screen"), c(0.1, 1.0)]),
        ("gelu", 0, [dict(kind="mismatch", reasoning="Tanh form."), dict(kind="mismatch")]),
        ("gelu", 1, [c(0.3, 1.01)]),
        ("silu", 0, [c(0.2, 1.5, reasoning="x * sigmoid(x).")]),
        ("silu", 1, [c(0.2, 1.5)]),
    ]
    for variant, s, plan in samples:
        put("%s/%s/task.json" % (out, variant), task(variant, variant.split(".")[0] + "_scale"))
        rounds(out, variant, s, plan, variant.split(".")[0] + "_scale", priced=(variant != "silu"))


def big(out):
    variant = "bigtask"
    put("%s/%s/task.json" % (out, variant), task(variant, "bigtask_scale"))
    for s in range(14):
        late = s in (7, 8, 9)  # the last three ids in sorted order (s0, s1, s10, ..., s13, s2, ..., s9)
        p = dict(kind="correct", ms=0.1, speedup=1.5, gpu="NVIDIA H200" if late else False,
                 review=["at n=1 a flag"] if late else [], reasoning=("think " * 20000) if late else None)
        rounds(out, variant, s, [p], "bigtask_scale", pad=120000)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("gpu", "big"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        sys.exit(2)
    (gpu if sys.argv[2] == "gpu" else big)(sys.argv[1])
