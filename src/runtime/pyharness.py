# pyharness.py - the harness for a Python entry point: a Triton candidate,
# or a spec's Python baseline (PyTorch on the GPU). verify and bench start
# it in the sandbox (src/judge/proto.c) by its text, not its path:
#
#   /venv/bin/python -I -B -c "$(cat pyharness.py)" SPEC LIB SOURCE ENTRY DEVICE [open|open-tf32]
#
# It loads SOURCE as a module, then hands the process to LIB's
# harnessmain (the harness's runtime as a shared object), which speaks
# the protocol as the per-variant harness does; the entry point it calls
# is `call` below, which passes ENTRY torch tensors over the harness's
# own buffers. doc/verification.md (Python entry points) gives SPEC, the
# modes and the guard.
import ctypes
import importlib.machinery
import importlib.util
import json
import os
import struct
import sys
import time
import traceback

# DTYPES (name: (bytes, floating)) and KINDS (name: number) are the C
# tables', which prepare --runtime writes above this file in harness.py
TENSOR = {k: KINDS[k] for k in ("in", "out", "inout")}
# the dtypes torch reads through a view of same-sized integers: (storage, torch dtype)
VIEWS = {"bf16": ("<i2", "bfloat16"), "f8e4m3": ("|u1", "float8_e4m3fn"), "f8e5m2": ("|u1", "float8_e5m2")}


def storage(name):
    """(NumPy typestr of dtype NAME's storage, torch dtype name to view it as, or None)"""
    size, floating = DTYPES[name]
    if name in VIEWS:
        return VIEWS[name]
    letter = "f" if floating else "u" if name.startswith("u") else "i"
    return ("|" if size == 1 else "<") + letter + str(size), None


STORAGE = {name: storage(name) for name in DTYPES}
INTEGER = {name for name, (_, floating) in DTYPES.items() if not floating}

CALL = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_int64),
                        ctypes.POINTER(ctypes.c_double))
AFTER = ctypes.CFUNCTYPE(None)


def load(source, entry):
    """(ENTRY of SOURCE, its module, 0, None), or (None, None, failure, why) as harness.h's enum says"""
    try:
        loader = importlib.machinery.SourceFileLoader("candidate", source)
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("candidate", loader))
        loader.exec_module(mod)
    except BaseException:
        traceback.print_exc()
        return None, None, 1, traceback.format_exc(limit=-1).strip().splitlines()[-1][:300]
    fn = getattr(mod, entry, None)
    if not callable(fn):
        return None, None, 2, entry
    return fn, mod, 0, None


class Wrap:
    """the harness's buffers as the entry point's tensors, once per set of buffers"""

    def __init__(self, spec):
        self.args = spec["args"]
        self.fake = spec.get("fake", 0)
        self.dims = {tuple(c["sizes"]): c["dims"] for c in spec["cases"]}
        self.ntensors = sum(1 for a in self.args if a["kind"] in TENSOR)
        self.nsizes = sum(1 for a in self.args if a["kind"] == "size")
        self.nscalars = sum(1 for a in self.args if a["kind"] == "scalar")
        self.cache = {}
        if self.fake:
            import numpy
            self.np = numpy
        else:
            import torch
            self.torch = torch

    def tensor(self, ptr, dtype, shape):
        typestr, view = STORAGE[dtype]
        if self.fake:
            np = self.np
            n = 1
            for d in shape:
                n *= d
            size = int(typestr[2:])
            raw = (ctypes.c_char * (n * size)).from_address(ptr)
            return np.frombuffer(raw, dtype=np.dtype(typestr)).reshape(shape)

        class Mem:
            __cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                        "version": 2, "strides": None}
        t = self.torch.as_tensor(Mem(), device="cuda")
        return t.view(getattr(self.torch, view)) if view else t

    def tensors(self, ptrs, sizes):
        key = (tuple(ptrs[i] for i in range(self.ntensors)), sizes)
        got = self.cache.get(key)
        if got is None:
            dims = self.dims.get(sizes)
            if dims is None:
                raise RuntimeError("the harness called with sizes %s, which no case of the task has" % (sizes,))
            got, it = [], 0
            for a in self.args:
                if a["kind"] in TENSOR:
                    got.append(self.tensor(ptrs[it], a["dtype"], dims[it]))
                    it += 1
            self.cache[key] = got
        return got

    def params(self, ptrs, sizes, scalars):
        tens = self.tensors(ptrs, sizes)
        return arguments(self.args, tens, sizes, scalars), tens


def arguments(args, tensors, sizes, scalars):
    """the entry point's arguments in ARGS' order: the tensors, the sizes
    and the scalars, each scalar as the C entry point gets it (abi.h)"""
    out, it, isz, isc = [], 0, 0, 0
    for a in args:
        if a["kind"] in TENSOR:
            out.append(tensors[it])
            it += 1
        elif a["kind"] == "size":
            out.append(sizes[isz])
            isz += 1
        else:
            v = scalars[isc]
            if a["dtype"] in INTEGER:
                v = int(v)
            elif a["dtype"] != "f64":  # a float
                v = struct.unpack("f", struct.pack("f", v))[0]
            out.append(v)
            isc += 1
    return out


class Refused(Exception):
    """a call the guard refused (harnessrefuse has recorded the rule)"""


def guard(rt):
    """A Triton candidate's host code, at run time: no side streams, graphs or
    events (the harness's events time the default stream), no host copies
    of tensors (host computation). The static screen refuses these first,
    and what else torch could compute on the host. Triton's own code may
    make them (the autotuner times its configs with do_bench: events, a
    quantile read back with tolist()), and torch's may make Stream objects
    (current_stream(), which an event's record calls): the caller's file
    says whose call it is; the candidate's file lies outside both."""
    import torch
    try:
        import triton
        ours = (os.path.dirname(triton.__file__) + os.sep,)
    except ImportError:  # a Python entry point without Triton: nothing of it may
        ours = ()
    cuda = ours + (os.path.dirname(torch.cuda.__file__) + os.sep,)

    def refuse(rule, what, genuine, callers):
        def refused(*args, **kwargs):
            if sys._getframe(1).f_code.co_filename.startswith(callers):
                return genuine(*args, **kwargs)
            rt.harnessrefuse(rule.encode(), ("the candidate called %s" % what).encode())
            raise Refused("%s is not allowed in a Triton candidate (rule %s)" % (what, rule))
        return refused
    for name in ("Stream", "stream", "set_stream", "ExternalStream", "StreamContext", "graph", "CUDAGraph",
                 "make_graphed_callables", "Event"):
        if hasattr(torch.cuda, name):
            setattr(torch.cuda, name, refuse("streams", "torch.cuda." + name, getattr(torch.cuda, name),
                                             cuda if name == "Stream" else ours))
    for name in ("cpu", "numpy", "item", "tolist"):
        setattr(torch.Tensor, name, refuse("host_compute", "Tensor.%s()" % name, getattr(torch.Tensor, name), ours))
    return launches(rt, torch, ours)


# the torch operators a candidate's call may run: allocation (a fill
# kernel at most, as the screen's torch.zeros and torch.full) and views
TORCH_OPS = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "zeros", "zeros_like",
             "new_zeros", "full", "full_like", "new_full", "zero_", "fill_", "view", "_unsafe_view", "_reshape_alias",
             "as_strided", "alias", "detach", "select", "slice", "t", "transpose", "permute", "expand", "unsqueeze",
             "squeeze", "unflatten", "split", "split_with_sizes", "unbind", "diagonal", "unfold", "view_as_real",
             "view_as_complex"}


def launches(rt, torch, ours):
    """A dispatch mode for the candidate's calls: every torch operator
    they run (whatever way the host code reached it) passes through it,
    and one that computes (a torch or cuBLAS kernel in a Triton answer)
    is refused as torch_compute, unless Triton's own code ran it (the
    autotuner's benchmarker)"""
    from torch.utils._python_dispatch import TorchDispatchMode
    lib = os.path.dirname(torch.__file__) + os.sep

    class Launches(TorchDispatchMode):
        @classmethod
        def _should_skip_dynamo(cls):
            # torch (2.11 and on) wraps __torch_dispatch__ in
            # torch._disable_dynamo unless this says False, and the wrapper's
            # first call imports torch._dynamo (4-5 s on an H100 host, in
            # the lease); Dynamo never runs here (the screen refuses
            # torch.compile)
            return False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket.__name__ not in TORCH_OPS:
                f = sys._getframe(1)
                while f is not None and f.f_code.co_filename.startswith(lib):
                    f = f.f_back
                if f is None or not f.f_code.co_filename.startswith(ours):
                    what = "torch's %s (a torch kernel)" % func
                    rt.harnessrefuse(b"torch_compute", ("the candidate ran %s in its call" % what).encode())
                    raise Refused("%s is not allowed in a Triton candidate (rule torch_compute)" % what)
            return func(*args, **(kwargs or {}))
    return Launches


# torch's fill kernels (torch.zeros, torch.full, zero_), which a
# candidate's allocations and the autotuner's benchmarker launch
TORCH_FILLS = "_ZN2at6native*FillFunctor*"


# where CUPTI is, in order: torch's CUDA wheels (site-packages/nvidia/*/lib),
# Triton's own copy, the CUDA toolkit
CUPTI_DIRS = (("torch", ("..", "nvidia", "*", "lib")), ("triton", ("backends", "nvidia", "lib", "cupti")),
              (None, ("/usr/local/cuda/lib64",)), (None, ("/usr/local/cuda/extras/CUPTI/lib64",)))


def cupti():
    """the CUPTI library the launch check loads (CUPTI_DIRS), or None"""
    import glob
    for mod, parts in CUPTI_DIRS:
        try:
            base = os.path.dirname(importlib.import_module(mod).__file__) if mod else ""
        except ImportError:
            continue
        found = sorted(glob.glob(os.path.join(base, *parts, "libcupti.so*")))
        if found:
            return found[0]
    return None


def jitted(mod):
    """the Triton kernels of the candidate's module: @triton.jit functions,
    under autotune and heuristics (the screen keeps kernels at module level)"""
    try:
        from triton.runtime.jit import JITFunction
    except ImportError:
        return []
    found = []
    for v in list(vars(mod).values()):
        for _ in range(8):  # autotune(heuristics(jit(f))): each wraps the next as .fn
            if isinstance(v, JITFunction):
                if v not in found:
                    found.append(v)
                break
            v = getattr(v, "fn", None)
            if v is None:
                break
    return found


def kernels(mod):
    """the names of the candidate's kernels (the launch check allows those)"""
    return sorted({k.fn.__name__ for k in jitted(mod)})


def torchdtype(torch, name):
    """the torch dtype of dtype NAME's tensors, as Wrap.tensor makes them"""
    typestr, view = STORAGE[name]
    if view:
        return getattr(torch, view)
    return getattr(torch, {"f": "float", "i": "int", "u": "uint"}[typestr[1]] + str(8 * int(typestr[2:])))


def hascontext():
    """whether the device's primary CUDA context is active"""
    try:
        cu = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    flags, active = ctypes.c_uint(), ctypes.c_int()
    return cu.cuDevicePrimaryCtxGetState(0, ctypes.byref(flags), ctypes.byref(active)) == 0 and active.value != 0


def brief(e):
    """an exception in a line"""
    return ("%s: %s" % (type(e).__name__, e)).replace("\n", " ")[:160]


MISSING = object()


def launchers(active, made, deadline):
    """each compiled kernel's launcher made, as its first launch would
    make it: Triton 3.6 builds one per signature with the C compiler
    (0.17 s on the 2-core box) into the sandbox's cache, where the lease's
    first call finds it; nothing touches the device. Says how many"""
    n = 0
    try:
        for kern in made:
            if time.perf_counter() > deadline:
                return "%d of %d launchers built (the time was spent)" % (n, len(made))
            if getattr(kern, "src", None) is not None:
                active.launcher_cls(kern.src, kern.metadata)
                n += 1
    except Exception as e:  # its type and a start: the note has 255 bytes in all
        return "%d built, then a launcher failed (%s)" % (n, brief(e)[:60])
    return "%d launcher%s built" % (n, "" if n == 1 else "s")


def warm(rt, mod, fn, spec):
    """A Triton candidate's kernels compiled before the lease: the entry
    point called once a distinct case, on meta tensors (no memory, nothing
    on the device), with Triton's JIT made to compile without launching
    (its warmup; the kernel is not handed back), each kernel's launcher
    made (launchers) and an autotuner's configs each compiled, none timed
    (the first call in the lease times them, as it would have). Every
    tensor the host code makes goes to the meta device (pin_memory
    dropped); loading a compiled kernel (which a launch needs) raises; the
    launch check allows no launch. A case whose call fails, or spec's
    warm_seconds spent, ends the pass: what it did not compile, the JIT
    compiles at the first call in the lease, as it would without it.
    Returns what it did (for the "waiting" reply) and, where the
    candidate launched a kernel or made a CUDA context in it, the refusal
    of its first call"""
    t0, done, why, saved = time.perf_counter(), 0, None, []
    seconds = spec.get("warm_seconds", 30)

    def patch(obj, name, value):
        saved.append((obj, name, vars(obj).get(name, MISSING)))
        setattr(obj, name, value)

    try:
        import torch
        from torch.overrides import TorchFunctionMode
        from triton.compiler.compiler import CompiledKernel
        from triton.runtime import driver
        from triton.runtime.autotuner import Autotuner
        from triton.runtime.jit import JITFunction
        run = JITFunction.run

        class Meta(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = dict(kwargs or {})
                if "device" in kwargs:
                    kwargs["device"] = "meta"
                kwargs.pop("pin_memory", None)
                return func(*args, **kwargs)

        def compiles(self, *args, grid=None, warmup=None, **kwargs):
            run(self, *args, grid=grid, warmup=True, **kwargs)

        def configs(self, *args, **kwargs):
            for config in self.configs:
                self.fn.run(*args, **{**kwargs, **config.all_kwargs()})

        def unloaded(self, *args, **kwargs):
            raise RuntimeError("no kernel is loaded before the GPU lease")

        cases = {}
        for c in spec["cases"]:
            cases.setdefault((tuple(c["sizes"]), tuple(c.get("scalars", ()))), c)
        deadline = t0 + seconds
        active = driver.active
        patch(JITFunction, "run", compiles)
        patch(Autotuner, "run", configs)
        patch(CompiledKernel, "_init_handles", unloaded)
        patch(CompiledKernel, "__getitem__", unloaded)
        patch(rt, "harnessrefuse", lambda rule, detail: None)
        patch(active, "get_current_stream", lambda device: 0)  # torch's current stream: not used for a warmup
        rt.launchallow(b"")
        rt.launchbegin()
        try:
            with Meta():
                for c in cases.values():
                    if time.perf_counter() > deadline:
                        why = "when its %g s were spent" % seconds
                        break
                    tens = [torch.empty(d, dtype=torchdtype(torch, a["dtype"]), device="meta")
                            for d, a in zip(c["dims"], [a for a in spec["args"] if a["kind"] in TENSOR])]
                    scalars = [1.0 if v is None else v for v in c.get("scalars", ())]  # null: not finite
                    fn(*arguments(spec["args"], tens, c["sizes"], scalars))
                    done += 1
        except BaseException as e:  # SystemExit too: the candidate's calls in the lease say what it does
            why = "at a call that failed (%s)" % brief(e)
        finally:
            rt.launchend()
        made = [kern for k in jitted(mod) for caches in k.device_caches.values() for kern in caches[0].values()]
        built = launchers(active, made, deadline)
        note = "%d kernel%s compiled before the lease, %s, for %d of %d cases, in %.2f s" % (
            len(made), "" if len(made) == 1 else "s", built, done, len(cases), time.perf_counter() - t0)
    except BaseException as e:
        note = "no kernels compiled before the lease (%s)" % brief(e)
    finally:
        for obj, name, value in reversed(saved):
            if value is MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, value)
    if why:
        note += "; stopped " + why
    rule, detail = ctypes.create_string_buffer(64), ctypes.create_string_buffer(512)
    rt.launchviolation.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
    if rt.launchviolation(rule, 64, detail, 512) != 0:
        return note + "; it launched a kernel", (b"launches", b"the candidate launched a kernel before its GPU lease: " +
                                                   detail.value)
    if hascontext():
        return note + "; a CUDA context made", (b"launches", b"the candidate made a CUDA context before its GPU lease")
    return note + "; no CUDA context", None


def lockrefused(rt):
    """whether the lockdown refused a system call of this call's (an
    exception that follows is the refusal's, and the harness replies
    "violation lockdown" naming the call)"""
    rule, detail = ctypes.create_string_buffer(64), ctypes.create_string_buffer(512)
    return rt.lockdownviolation(rule, 64, detail, 512) != 0


def crashed():
    traceback.print_exc()
    sys.stderr.flush()
    os._exit(3)


def gate(makectx, note):
    """wait, loaded, for the parent's "go" line before anything touches the
    GPU (bench starts the oracle so while the candidate's calls run); read
    unbuffered, a byte at a time from the command pipe (fd 3): the rest of
    it is the protocol, harnessmain's. A "ctx" line before it: makectx()
    makes the CUDA context now (the parent has room for it), once. A
    "wait" line: the reply "waiting NOTE" (on fd 4), NOTE what was done
    before the gate. Anything else (the parent gone) ends it"""
    while True:
        line = b""
        while not line.endswith(b"\n") and len(line) < 8:
            c = os.read(3, 1)
            if not c:
                break
            line += c
        if line == b"ctx\n" and makectx:
            failed = makectx()
            note = ((note + "; ") if note else "") + ("its CUDA context failed" if failed else "its CUDA context made")
            makectx = None
            continue
        if line == b"wait\n":
            os.write(4, ("waiting %s\n" % note).encode() if note else b"waiting\n")
            continue
        if line != b"go\n":
            os._exit(0)
        return


def main():
    if len(sys.argv) not in (6, 7) or sys.argv[6:] not in ([], ["open"], ["open-tf32"]):
        sys.stderr.write("usage: pyharness.py SPEC LIB SOURCE ENTRY DEVICE [open|open-tf32]\n")
        sys.exit(2)
    spec, lib, source, entry, device = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
    trusted = len(sys.argv) == 7
    # the caches Triton and torch write go to the sandbox's own /tmp (the
    # jail names its user in USER and LOGNAME, which getpass reads first)
    tmp = os.environ.get("TMPDIR", "/tmp")
    for var, sub in (("TRITON_CACHE_DIR", "triton"), ("TORCHINDUCTOR_CACHE_DIR", "inductor"), ("XDG_CACHE_HOME", "cache")):
        os.environ[var] = os.path.join(tmp, sub)
    # a source file named .py: Triton's @jit reads its kernels' source through inspect
    with open(source, "rb") as f, open(os.path.join(tmp, "candidate.py"), "wb") as g:
        g.write(f.read())
    source = os.path.join(tmp, "candidate.py")
    rt = ctypes.CDLL(lib)
    rt.harnessrefuse.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    checked = None  # the dispatch mode a candidate's calls run under (guard's)
    if not trusted and not spec.get("fake", 0):
        checked = guard(rt)
    if trusted and not spec.get("fake", 0):
        # a baseline is timed with TF32 on for matmuls and convolutions, as
        # KernelBench-Verified reports it (bench records "tf32": true); as
        # the oracle it computes in full f32
        import torch
        tf32 = sys.argv[6] == "open-tf32"
        torch.backends.cuda.matmul.allow_tf32 = tf32
        torch.backends.cudnn.allow_tf32 = tf32
    if checked:
        # the launch check at the driver (launches.h), subscribed before the
        # gate: CUPTI and the driver's initialisation take a while, and
        # touch nothing on the device; launchstatus says why where it is not had
        lib_cupti = cupti()
        if lib_cupti:
            rt.launchwatch(lib_cupti.encode())
    # a Triton candidate started before the lease loads its module then (the
    # screen has made loading run only imports, definitions and constants)
    # and compiles its kernels (warm); a trusted module, whose code may
    # touch the GPU, loads only after go
    early, note, refusal = checked and spec.get("gate"), "", None
    if early:
        fn, mod, failure, why = load(source, entry)
        if fn:
            note, refusal = warm(rt, mod, fn, spec)
    if spec.get("gate"):
        # started before the lease (or beside another harness's calls):
        # Python and torch (and for a candidate Triton, guard's) are
        # loaded ("ctx": the device's primary context, as harnessmain makes
        # it, which torch then shares; a failure shows in harnessmain's reply)
        gate(lambda: rt.harnessctx(int(device)), note)
    if not early:
        fn, mod, failure, why = load(source, entry)
    if checked and fn:
        # what the candidate's calls may launch: its kernels and torch's fills
        rt.launchallow("\n".join(kernels(mod) + [TORCH_FILLS]).encode())
    wrap = Wrap(spec) if fn else None
    result = []

    def call(_fn, ptrs, sizes, scalars):
        if refusal:  # a launch before the lease (warm)
            rt.harnessrefuse(*refusal)
            return
        try:
            sz = tuple(sizes[i] for i in range(wrap.nsizes))
            args, tens = wrap.params(ptrs, sz, [scalars[i] for i in range(wrap.nscalars)])
            if checked:
                rt.launchbegin()
                try:
                    with checked():
                        r = fn(*args)
                finally:
                    rt.launchend()
            else:
                r = fn(*args)
            if trusted:
                result[:] = [(r, tens)]
        except Refused:
            return  # the harness replies "violation RULE DETAIL"
        except BaseException:
            if lockrefused(rt):
                return  # an error from a call the lockdown refused: the harness names the call
            crashed()

    def after():
        try:
            r, tens = result.pop() if result else (None, None)
            if r is None:
                return
            outs = [t for t, a in zip(tens, [a for a in wrap.args if a["kind"] in TENSOR]) if a["kind"] != "in"]
            rs = list(r) if isinstance(r, (tuple, list)) else [r]
            if len(rs) != len(outs):
                raise RuntimeError("the baseline returned %d outputs for %d" % (len(rs), len(outs)))
            for o, v in zip(outs, rs):
                if wrap.fake:
                    o[...] = v
                else:
                    o.copy_(v.reshape(o.shape))
            if not wrap.fake:
                wrap.torch.cuda.synchronize()
        except BaseException:
            crashed()

    cb, cafter = CALL(call), AFTER(after)
    argv = [b"harness", b"-", entry.encode(), device.encode()] + ([b"open"] if trusted else [])
    rt.harnessmain.restype = ctypes.c_int
    rt.harnessmain.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.c_void_p, ctypes.c_void_p,
                               ctypes.c_int, ctypes.c_char_p]
    cargv = (ctypes.c_char_p * len(argv))(*argv)
    sys.exit(rt.harnessmain(len(argv), cargv, ctypes.cast(cb, ctypes.c_void_p),
                            ctypes.cast(cafter, ctypes.c_void_p) if trusted else None,
                            failure, why.encode() if why else None))


if __name__ == "__main__":
    main()
