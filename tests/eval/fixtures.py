#!/usr/bin/env python3
"""tests/eval/fixtures.py - an evaluation's round files with a known mix, for metrics

usage: fixtures.py OUT_DIR {base|new|paper}

Writes, through tests/consumers/fixtures.py (round files shaped like a
GPU host's), OUT_DIR/<task>/task.json and OUT_DIR/<task>/s<k>/r<j>/*.json
for a student whose answers are, per task of three samples and up to two
rounds (t0740 runs record on them and checks every metric against the
values worked out by hand in its header):

  base  fast    correct 2.5x; mismatch then correct 1.2x; two compile errors
        slow    correct 0.5x then 0.8x (faster); two mismatches; no code twice
        wrong   mismatches only (one sample: screen refusal, then mismatch)
        broken  compile errors only
  new   the same, but slow's correct sample is a mismatch twice (broken),
        wrong's first sample is repaired in round 2 (1.1x, fixed), broken's
        first sample too (3.0x, fixed), and a task only it has, extra.
  paper the papers' definitions (t0740 works them out by hand): five tasks
        of four specs, two samples each, speedups over eager (and over
        torch.compile in parentheses), in sample order:
        kb1-1-mm.a   correct 2.5x (1.2x); correct 0.5x (0.3x)
        kb1-1-mm.b   correct 0.8x (0.5x) at round 1, the fastest at the
                     first bench size (record's final round), then 1.6x
                     (0.9x) at round 2; a mismatch
        kb1-2-relu   verify passed, bench found it wrong; correct 3.0x (2.2x)
        kb2-1-fused  correct, not timed (no baseline); a compile error
        softmax      mismatches only
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "consumers"))
from fixtures import put, rounds, task  # noqa: E402


def c(ms, sp, comp=None):
    return dict(kind="correct", ms=ms, speedup=sp, compile=comp)


M, CE, NC, SCR = (dict(kind=k) for k in ("mismatch", "compile_error", "no_code", "screen"))

BASE = {
    "fast": [[c(0.04, 2.5)], [M, c(0.08, 1.2)], [CE, CE]],
    "slow": [[c(0.2, 0.5), c(0.125, 0.8)], [M, M], [NC, NC]],
    "wrong": [[M, M], [M, M], [SCR, M]],
    "broken": [[CE, CE], [CE, CE], [CE, CE]],
}


def paper():
    return {
        "kb1-1-mm.a": [[c(0.04, 2.5, 1.2)], [c(0.2, 0.5, 0.3)]],
        "kb1-1-mm.b": [[c(0.05, 0.8, 0.5), c(0.0625, 1.6, 0.9)], [M]],
        "kb1-2-relu": [[dict(kind="caught")], [c(0.03, 3.0, 2.2)]],
        "kb2-1-fused": [[c(0.1, None)], [CE]],
        "softmax": [[M], [M]],
    }


def new():
    plans = {k: [list(p) for p in v] for k, v in BASE.items()}
    plans["slow"][0] = [M, M]
    plans["wrong"][0] = [M, c(0.09, 1.1)]
    plans["broken"][0] = [CE, c(0.03, 3.0)]
    plans["extra"] = [[c(0.1, 1.0)]]
    return plans


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("base", "new", "paper"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        sys.exit(2)
    out = sys.argv[1]
    plans = {"base": BASE, "new": new(), "paper": paper()}[sys.argv[2]]
    for name, samples in sorted(plans.items()):
        entry = name.split(".")[0].replace("-", "_") + "_scale"
        put("%s/%s/task.json" % (out, name), task(name, entry))
        for s, plan in enumerate(samples):
            rounds(out, name, s, plan, entry)
