#!/usr/bin/env python3
"""guard-events.py PYHARNESS: the Python harness's guard (with torch and
Triton) lets Triton's own code make CUDA events and read a tensor back
(the autotuner's do_bench), and torch's own code make Stream objects
(current_stream(), which an event's record calls); the candidate's own
calls of each are refused. Under the dispatch mode the guard returns
(the candidate's calls run under it), torch may allocate and make views,
and compute only for Triton's own code. On the CPU: exit 0 when so, else
1 with what went wrong."""
import os
import sys

import torch
import triton

ns = {"__name__": "pyharness", "DTYPES": {"f32": (4, True)}, "KINDS": {"in": 0, "out": 1, "inout": 2}}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)


class Runtime:
    refused = []

    def harnessrefuse(self, rule, detail):
        self.refused.append((rule, detail))


rt = Runtime()
mode = ns["guard"](rt)
TESTING = os.path.join(os.path.dirname(triton.__file__), "testing.py")
CUDA = os.path.join(os.path.dirname(torch.cuda.__file__), "__init__.py")
CASES = [  # (code, as if in file, refused as)
    ("import torch\nev = torch.cuda.Event(enable_timing=True)\n", TESTING, None),
    ("import torch\nv = torch.tensor([1.0, 2.0]).tolist()\n", TESTING, None),
    ("import torch\ns = torch.cuda.Stream()\n", CUDA, None),
    ("import torch\nev = torch.cuda.Event(enable_timing=True)\n", "/tmp/candidate.py", "torch.cuda.Event"),
    ("import torch\ns = torch.cuda.Stream()\n", "/tmp/candidate.py", "torch.cuda.Stream"),
    ("import torch\ns = torch.cuda.Stream()\n", os.path.dirname(triton.__file__) + "x/testing.py", "torch.cuda.Stream"),
    ("import torch\nv = torch.tensor([1.0, 2.0]).tolist()\n", "/tmp/candidate.py", "Tensor.tolist()"),
]
for code, where, refused in CASES:
    rt.refused.clear()
    try:  # the genuine call may fail on a host without CUDA, but not as refused
        exec(compile(code, where, "exec"), {})
    except ns["Refused"]:
        if not refused:
            sys.exit("%r from %s was refused" % (code, where))
    except Exception:
        pass
    if refused is None and rt.refused:
        sys.exit("%r from %s was recorded as refused: %s" % (code, where, rt.refused))
    if refused and [d for _, d in rt.refused] != [("the candidate called %s" % refused).encode()]:
        sys.exit("%r from %s: refused as %s" % (code, where, rt.refused))

ALLOC = ("import torch\nx = torch.empty(4, 4)\ny = torch.zeros(8)\nz = torch.full((2,), 1.5)\n"
         "v = x.view(16)[2:6].t() if False else x.view(16)[2:6]\nw = x.transpose(0, 1).unsqueeze(0)\n")
COMPUTE = [("torch.matmul(x, x)", "mm"), ("x + 1", "add"), ("x.sum()", "sum"), ("x.clone()", "clone"),
           ("torch.ones(3)", "ones"), ("x.to(torch.float16)", "_to_copy")]
x = torch.empty(4, 4)
for code, where, refused in [(ALLOC, "/tmp/candidate.py", None)] + \
        [(c, "/tmp/candidate.py", op) for c, op in COMPUTE] + \
        [("torch.quantile(x.flatten(), torch.tensor([0.5]))", TESTING, None)]:
    rt.refused.clear()
    try:
        with mode():
            exec(compile(code, where, "exec"), {"torch": torch, "x": x})
    except ns["Refused"]:
        if not refused:
            sys.exit("%r from %s was refused under the dispatch mode: %s" % (code, where, rt.refused))
    else:
        if refused:
            sys.exit("%r from %s ran under the dispatch mode" % (code, where))
    if refused and not (len(rt.refused) == 1 and rt.refused[0][0] == b"torch_compute" and
                        (b"aten.%s." % refused.encode()) in rt.refused[0][1]):
        sys.exit("%r from %s: refused as %s" % (code, where, rt.refused))
