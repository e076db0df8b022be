#!/usr/bin/env python3
"""guard-events.py PYHARNESS: the Python harness's guard (with torch) lets
only triton/testing.py's do_bench make CUDA events; the candidate's own
torch.cuda.Event is refused. Exit 0 when so, else 1 with what went wrong."""
import sys

ns = {"__name__": "pyharness", "DTYPES": {"f32": (4, True)}, "KINDS": {"in": 0, "out": 1, "inout": 2}}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)


class Runtime:
    refused = []

    def harnessrefuse(self, rule, detail):
        self.refused.append((rule, detail))


rt = Runtime()
ns["guard"](rt)
code = "import torch\nev = torch.cuda.Event(enable_timing=True)\n"
try:  # Triton's benchmarker: the genuine Event (on a host without CUDA it may fail, but not as refused)
    exec(compile(code, "/venv/lib/site-packages/triton/testing.py", "exec"), {})
except ns["Refused"]:
    sys.exit("triton.testing's event was refused")
except Exception:
    pass
if rt.refused:
    sys.exit("triton.testing's event was recorded as refused: %s" % rt.refused)
try:
    exec(compile(code, "/tmp/candidate.py", "exec"), {})
    sys.exit("the candidate's own torch.cuda.Event was allowed")
except ns["Refused"]:
    pass
if rt.refused != [(b"streams", b"the candidate called torch.cuda.Event")]:
    sys.exit("refused as %s" % rt.refused)
