#!/usr/bin/env python3
"""guard-events.py PYHARNESS: the Python harness's guard (with torch and
Triton) lets Triton's own code make CUDA events and read a tensor back
(the autotuner's do_bench), and torch's own code make Stream objects
(current_stream(), which an event's record calls); the candidate's own
calls of each are refused. Exit 0 when so, else 1 with what went wrong."""
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
ns["guard"](rt)
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
