#!/usr/bin/env python3
"""tests/eval/fixtures.py - an evaluation's round files with a known mix, for metrics

usage: fixtures.py OUT_DIR {base|new}

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
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "consumers"))
from fixtures import put, rounds, task  # noqa: E402


def c(ms, sp):
    return dict(kind="correct", ms=ms, speedup=sp)


M, CE, NC, SCR = (dict(kind=k) for k in ("mismatch", "compile_error", "no_code", "screen"))

BASE = {
    "fast": [[c(0.04, 2.5)], [M, c(0.08, 1.2)], [CE, CE]],
    "slow": [[c(0.2, 0.5), c(0.125, 0.8)], [M, M], [NC, NC]],
    "wrong": [[M, M], [M, M], [SCR, M]],
    "broken": [[CE, CE], [CE, CE], [CE, CE]],
}


def new():
    plans = {k: [list(p) for p in v] for k, v in BASE.items()}
    plans["slow"][0] = [M, M]
    plans["wrong"][0] = [M, c(0.09, 1.1)]
    plans["broken"][0] = [CE, c(0.03, 3.0)]
    plans["extra"] = [[c(0.1, 1.0)]]
    return plans


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[2] not in ("base", "new"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        sys.exit(2)
    out = sys.argv[1]
    for name, samples in sorted((BASE if sys.argv[2] == "base" else new()).items()):
        put("%s/%s/task.json" % (out, name), task(name, name + "_scale"))
        for s, plan in enumerate(samples):
            rounds(out, name, s, plan, name + "_scale")
