"""tritonaot.py - compile's ahead-of-time compile of a Triton candidate (trusted).

usage: python -I -B tritonaot.py CANDIDATE.py SCREEN.json ARCH [OUT.json]

Runs in compile's sandbox, with the Triton environment at /venv, after
tritonscreen.py passed the candidate. It loads the screened module and
compiles each kernel SCREEN.json's launches name with triton.compile for
GPUTarget("cuda", ARCH, 32), no GPU needed, the signature taken from the
launch; a kernel known only at launch is listed as "jit". Writes one JSON
object to OUT.json, else standard output (doc/triton.md). Exit 0 whatever
became of the kernels; 2 bad usage; else a failure of this script.
"""
import contextlib
import io
import json
import sys
import time
import traceback
import types


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name


class _Torch(types.ModuleType):
    """what a screened module may touch of torch while loading: names"""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Dtype(name)


def load(path):
    """the candidate as a module from its file (triton.jit reads each kernel's source from it)"""
    import importlib.util
    sys.modules["torch"] = _Torch("torch")
    spec = importlib.util.spec_from_file_location("candidate", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = mod
    spec.loader.exec_module(mod)
    return mod


def unwrap(obj):
    """the JITFunction under autotune/heuristics wrappers, the configs, the heuristics' names"""
    import triton
    configs, heur = None, []
    while not isinstance(obj, triton.runtime.jit.JITFunction):
        if hasattr(obj, "configs"):
            configs = obj.configs
        if hasattr(obj, "values") and isinstance(obj.values, dict):
            heur += list(obj.values)
        obj = obj.fn
    return obj, configs, heur


def argtype(a):
    """the signature type of a launch argument, or None"""
    (k, v), = a.items()
    if k == "tensor":
        return "*" + v if v else None
    if k in ("int", "float"):
        return v
    if k == "const":
        if isinstance(v, bool):
            return "i1"
        if isinstance(v, int):
            return "i32" if -2**31 <= v < 2**31 else "i64"
        if isinstance(v, float):
            return "fp32"
    return None


def describe(a):
    (k, v), = a.items()
    return {"unknown": v, "int": "an integer expression", "float": "a float expression",
            "tensor": "a tensor"}.get(k, "%s %s" % (k, v))


OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def plan(fn, launch, config, heur):
    """(signature, constexprs, options) for one launch and config, or a reason it cannot be made"""
    args = dict(zip(fn.arg_names, launch["args"]))
    options, constexprs, sig = {}, {}, {}
    for name, a in launch["kwargs"].items():
        if name in OPTIONS:
            (k, v), = a.items()
            if k != "const":
                return "%s is computed at launch (%s)" % (name, describe(a))
            options[name] = v
        else:
            args[name] = a
    if config is not None:
        for name, v in config.all_kwargs().items():
            if name in OPTIONS:
                options[name] = v
            elif v is not None:
                args[name] = {"const": v}
    for i, p in enumerate(fn.params):
        name = p.name
        if name in heur:
            return "constexpr %s comes from triton.heuristics, known only at launch" % name
        a = args.get(name)
        if a is None and p.has_default:
            a = {"const": p.default}
        if a is None:
            return "parameter %s is not given at the launch (line %d)" % (name, launch["line"])
        if p.is_constexpr:
            (k, v), = a.items()
            if k != "const":
                return "constexpr %s is computed at launch (%s)" % (name, describe(a))
            sig[name] = "constexpr"
            constexprs[name] = v
        else:
            t = argtype(a)
            if t is None:
                return "the type of %s (%s) is known only at launch" % (name, describe(a))
            sig[name] = t
    return sig, constexprs, options


def compileone(fn, sig, constexprs, options, arch):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    triton.knobs.nvidia.dump_ptxas_log = True
    log = io.StringIO()
    t0 = time.monotonic()
    try:
        with contextlib.redirect_stdout(log):
            ck = triton.compile(ASTSource(fn=fn, signature=sig, constexprs=constexprs),
                                target=GPUTarget("cuda", arch, 32), options=options)
    except Exception as e:  # a compile error is the candidate's: data
        msg = str(e) if type(e).__name__ == "CompilationError" else \
            "%s: %s" % (type(e).__name__, "".join(traceback.format_exception_only(type(e), e)).strip())
        return {"status": "compile_error", "error": msg, "seconds": time.monotonic() - t0}
    md = ck.metadata
    return {"status": "ok", "ptxas": log.getvalue(), "shared_bytes": int(getattr(md, "shared", 0) or 0),
            "num_warps": md.num_warps, "num_stages": md.num_stages, "seconds": time.monotonic() - t0}


def main():
    if len(sys.argv) not in (4, 5):
        sys.stderr.write("usage: tritonaot.py CANDIDATE.py SCREEN.json ARCH [OUT.json]\n")
        return 2
    with open(sys.argv[2]) as f:
        screen = json.load(f)
    arch = int(sys.argv[3])
    import triton
    out = {"triton_version": triton.__version__, "kernels": []}
    try:
        mod = load(sys.argv[1])
    except Exception as e:
        out["load_error"] = "".join(traceback.format_exception_only(type(e), e)).strip()
        return write(out)
    done = set()
    for launch in screen["launches"]:
        try:
            fn, configs, heur = unwrap(getattr(mod, launch["kernel"]))
        except Exception as e:
            out["kernels"].append({"kernel": launch["kernel"], "line": launch["line"], "config": None,
                                   "status": "compile_error", "error": "not a Triton kernel: %s" % e})
            continue
        for ci, config in enumerate(configs or [None]):
            p = plan(fn, launch, config, heur)
            entry = {"kernel": launch["kernel"], "line": launch["line"], "config": ci if configs else None,
                     "def_line": getattr(fn, "starting_line_number", 0)}
            if isinstance(p, str):
                entry.update(status="jit", reason=p)
            else:
                key = json.dumps([launch["kernel"], p], sort_keys=True, default=str)
                if key in done:
                    continue
                done.add(key)
                entry.update(compileone(fn, *p, arch))
            out["kernels"].append(entry)
    return write(out)


def write(out):
    text = json.dumps(out, sort_keys=True) + "\n"
    if len(sys.argv) == 5:
        with open(sys.argv[4], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
