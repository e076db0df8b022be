"""warm.py HARNESS_PY CANDIDATE_PY SPEC_JSON [LAUNCHED]: pyharness.py's
warm (HARNESS_PY, as prepare --runtime writes it) over CANDIDATE_PY's
entry point (its last function) and SPEC_JSON's cases, on the CPU:
Triton's driver is one that names an sm_90 target and nothing else, and
records the launchers made; the runtime's calls are recorded. LAUNCHED:
the launch check says a kernel was launched. With WARM_LAUNCHER_FAILS
in the environment, making a launcher raises. Prints one JSON object:
the note, the refusal, the runtime's calls, each kernel's compiled
count, the launchers made (their kernels' names), the autotuners'
caches, whether Triton's and the runtime's functions were put back
(t0752)"""
import importlib.machinery
import importlib.util
import json
import os
import sys
import types


def module(name, path):
    loader = importlib.machinery.SourceFileLoader(name, path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(mod)
    return mod


class Driver:
    """an sm_90 target; no device, no stream, no benchmarker; launchers
    recorded, not built"""

    def __init__(self):
        self.launchers = []

    def launcher_cls(self, src, metadata):
        if os.environ.get("WARM_LAUNCHER_FAILS"):
            raise OSError("no C compiler")
        self.launchers.append(src.fn.__name__)

    def get_current_device(self):
        return 0

    def get_current_stream(self, device):
        raise AssertionError("warm asked for torch's current stream")

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget("cuda", 90, 32)

    def get_active_torch_device(self):
        import torch
        return torch.device("meta")

    def get_benchmarker(self):
        raise AssertionError("warm timed a config")


class Runtime:
    """the runtime's calls warm makes, recorded"""

    def __init__(self, launched):
        self.calls, self.launched = [], launched
        rt = self

        class Violation:
            argtypes = None

            def __call__(self, rule, rcap, detail, dcap):
                rt.calls.append("launchviolation")
                if rt.launched:
                    detail.value = b"kernel 'stray'"
                return 1 if rt.launched else 0
        self.launchviolation = Violation()

    def harnessrefuse(self, rule, detail):
        self.calls.append("harnessrefuse")

    def launchallow(self, patterns):
        self.calls.append("launchallow %r" % patterns.decode())

    def launchbegin(self):
        self.calls.append("launchbegin")

    def launchend(self):
        self.calls.append("launchend")


def main():
    from triton.runtime import driver
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    ph = module("harness", sys.argv[1])
    cand = module("candidate", sys.argv[2])
    spec = json.load(open(sys.argv[3]))
    drv = Driver()
    driver.set_active(drv)
    rt = Runtime(len(sys.argv) > 4)
    run, tune, refuse = JITFunction.run, Autotuner.run, rt.harnessrefuse
    fn = [v for v in vars(cand).values() if isinstance(v, types.FunctionType)][-1]
    note, refusal = ph.warm(rt, cand, fn, spec)
    print(json.dumps({
        "note": note,
        "refusal": [x.decode() for x in refusal] if refusal else None,
        "calls": rt.calls,
        "compiled": {k.fn.__name__: sum(len(c[0]) for c in k.device_caches.values()) for k in ph.jitted(cand)},
        "launchers": sorted(drv.launchers),
        "autotuned": [len(v.cache) for v in vars(cand).values() if isinstance(v, Autotuner)],
        "restored": JITFunction.run is run and Autotuner.run is tune and rt.harnessrefuse == refuse and
        "get_current_stream" not in vars(driver.active),
    }))


if __name__ == "__main__":
    main()
