"""tritonscreen.py - compile's static screen of a Triton candidate (trusted).
usage: python3 -I -B tritonscreen.py CANDIDATE.py ABI.json [OUT.json]
Reads it with ast, never running it; writes JSON (doc/triton.md). Rules:
  entry_point   exactly one top-level def of the entry, with the task's
                parameters in number, plain positional ones (no defaults,
                *args, **kwargs or keyword-only ones)
  kernel        at least one @triton.jit kernel that the entry launches
                (kernel[grid](...))
  imports       only triton, triton.language (and its extra submodules),
                math and torch, and only at module level
  structure     module level holds only imports, function definitions,
                constants (numbers, strings, tuples of them,
                tl.constexpr(...)) and a docstring; decorators only
                triton.jit, triton.autotune and triton.heuristics; no class
  autotune      at most MAX_CONFIGS configs in a triton.autotune
  hooks         no host code in decorators and annotations, which run on
                the host beside the kernel's arguments: no pre_hook,
                post_hook, prune_configs_by, do_bench (triton.autotune,
                triton.Config) or launch_metadata, repr (triton.jit);
                triton.heuristics values are lambdas of arithmetic on
                their argument's items (min, max, int, triton.cdiv,
                triton.next_power_of_2 and nothing else); annotations
                are names (tl.constexpr, ...)
  torch_compute outside @triton.jit bodies, torch only to allocate
                (empty, empty_like, empty_strided, zeros, zeros_like,
                full), for dtypes and for shapes and strides: no other
                torch function (matmul, sum, torch.nn, F.*, ...), no tensor
                method but stride/size/numel/dim/element_size/
                is_contiguous/data_ptr, no arithmetic, comparison or `@` on
                a tensor, no builtin over a tensor but len, no write into a
                tensor by indexing, no loop over a tensor
  host_compute  tensor data on the host: .cpu(), .numpy(), .item(),
                .tolist(), .to(...), .cuda(), float()/int()/bool() of a
                tensor
  dynamic       eval, exec, compile, getattr, setattr, delattr, hasattr,
                __import__, globals, locals, vars, breakpoint, dunder
                names and attributes, torch's code loading (torch.ops,
                torch.utils, torch.library, torch.compile, torch.jit,
                torch._*, ...); in any attribute chain, from any object,
                a private name (._C, ._x) or one of DENIED_ATTRS
                (.builtins, .inspect, .os, .sys, .ctypes, .importlib,
                .subprocess, .compile, .exec, .open, ...)
  file_io       open, input, print to a file
  streams       torch.cuda (streams, events, graphs, synchronization),
                triton.runtime / triton.testing (the harness times and
                synchronizes), and triton.autotune's use_cuda_graph
  global_state  state kept across calls: global and nonlocal, mutable
                module-level values (dict, list, set), attributes
                assigned on anything (function attributes), writes into a
                module-level name by indexing, mutable default arguments
"""
import ast
import json
import sys

ALLOWED_MODULES = ("triton", "triton.language", "math", "torch")
ALLOWED_PREFIXES = ("triton.language.extra",)
DECORATORS = ("triton.jit", "triton.autotune", "triton.heuristics")
MAX_CONFIGS = 16
HOOKS = {"pre_hook", "post_hook", "prune_configs_by", "do_bench", "launch_metadata", "repr", "early_config_prune",
         "perf_model"}
HEURISTIC_CALLS = {"min", "max", "int", "bool", "triton.cdiv", "triton.next_power_of_2"}
TORCH_ALLOC = {"empty", "empty_like", "empty_strided", "zeros", "zeros_like", "full"}
TORCH_DTYPES = {"float32": "fp32", "float": "fp32", "float16": "fp16", "half": "fp16", "bfloat16": "bf16",
                "float64": "fp64", "double": "fp64", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
                "int8": "i8", "uint8": "u8", "int16": "i16", "int32": "i32", "int": "i32", "int64": "i64",
                "long": "i64", "bool": "i1"}
TORCH_OTHER = {"Tensor", "Size", "dtype", "device"}
TORCH_DYNAMIC = {"ops", "utils", "library", "compile", "jit", "hub", "fx", "export", "autograd", "backends",
                 "classes", "package", "overrides", "func"}
TENSOR_METHODS = {"stride", "size", "numel", "dim", "element_size", "is_contiguous", "data_ptr"}
TENSOR_ATTRS = {"shape", "dtype", "device", "ndim", "is_cuda"}
HOST_METHODS = {"cpu", "numpy", "item", "tolist", "to", "cuda", "__array__"}
BUILTINS_OK = {"range", "len", "min", "max", "int", "float", "bool", "abs", "tuple", "list", "dict", "print",
               "isinstance", "enumerate", "zip", "str", "round", "divmod", "pow", "sum", "any", "all", "slice"}
DYNAMIC_NAMES = {"eval", "exec", "compile", "getattr", "setattr", "delattr", "hasattr", "__import__", "globals",
                 "locals", "vars", "breakpoint", "__builtins__", "memoryview"}
FILE_NAMES = {"open", "input", "exit", "quit"}
# attribute names no chain may reach, from any module or object: Triton's
# own modules import builtins and inspect (tl.core.builtins.exec is plain
# attribute access), and these lead to code loading and the host
DENIED_ATTRS = {"builtins", "inspect", "os", "sys", "ctypes", "importlib", "subprocess", "compile", "exec", "eval",
                "getattr", "setattr", "delattr", "open", "globals", "locals", "vars", "runpy", "pickle", "marshal",
                "types", "gc", "signal", "socket", "shutil", "pathlib", "io", "threading", "multiprocessing"}
# the task's dtypes as Triton's signature names them
DTYPES = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "f64": "fp64", "f8e4m3": "fp8e4nv", "f8e5m2": "fp8e5",
          "i8": "i8", "u8": "u8", "i16": "i16", "i32": "i32", "i64": "i64"}


def dotted(node):
    """'a.b.c' for a Name or an Attribute chain of Names, else None"""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class Screen:
    def __init__(self, tree, abi):
        self.tree = tree
        self.abi = abi
        self.violations = []
        self.aliases = {}      # local name -> module it stands for ("tl" -> "triton.language")
        self.kernels = set()   # names of @triton.jit functions (autotuned or not)
        self.functions = set()
        self.consts = {}       # module-level constants
        self.launches = []

    def flag(self, rule, node, message):
        self.violations.append({"rule": rule, "line": getattr(node, "lineno", 0), "message": message})

    def resolve(self, node):
        """the dotted name of node with import aliases resolved ('tl.load' -> 'triton.language.load')"""
        d = dotted(node)
        if not d:
            return None
        head, _, rest = d.partition(".")
        if head in self.aliases:
            head = self.aliases[head]
        return head + ("." + rest if rest else "")

    # ---- module level ----
    def module(self):
        body = self.tree.body
        for i, st in enumerate(body):
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                self.imports(st)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.add(st.name)
                if isinstance(st, ast.AsyncFunctionDef):
                    self.flag("structure", st, "async def '%s': write plain functions" % st.name)
                self.decorators(st)
            elif isinstance(st, ast.Expr) and i == 0 and isinstance(st.value, ast.Constant):
                pass  # the docstring
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                self.constant(st)
            elif isinstance(st, ast.ClassDef):
                self.flag("structure", st, "class '%s': module level holds only imports, functions and "
                          "constants" % st.name)
            else:
                self.flag("structure", st, "a %s statement at module level: only imports, functions and "
                          "constants may be there (nothing runs when the module loads)" % type(st).__name__)

    def imports(self, st):
        if isinstance(st, ast.Import):
            for a in st.names:
                if not self.allowedmodule(a.name):
                    self.flag("imports", st, "import %s: only triton, triton.language, math and torch" % a.name)
                elif a.asname:
                    self.aliases[a.asname] = a.name
                else:
                    self.aliases[a.name.split(".")[0]] = a.name.split(".")[0]
            return
        mod = st.module or ""
        if st.level:
            self.flag("imports", st, "a relative import: only triton, triton.language, math and torch")
            return
        for a in st.names:
            full = mod + "." + a.name
            if a.name == "*":
                self.flag("imports", st, "from %s import *: import the names you use" % mod)
            elif self.allowedmodule(full) or (self.allowedmodule(mod) and mod != "torch"):
                self.aliases[a.asname or a.name] = full
            else:
                self.flag("imports", st, "from %s import %s: only triton, triton.language, math and torch "
                          "(and torch only as the module)" % (mod, a.name))

    @staticmethod
    def allowedmodule(name):
        return name in ALLOWED_MODULES or any(name == p or name.startswith(p + ".") for p in ALLOWED_PREFIXES)

    def decorators(self, fn):
        jit = False
        for d in fn.decorator_list:
            target = d.func if isinstance(d, ast.Call) else d
            name = self.resolve(target)
            if name not in DECORATORS:
                self.flag("structure", d, "decorator '%s': only triton.jit, triton.autotune and triton.heuristics"
                          % (dotted(target) or type(target).__name__))
                continue
            jit = True
            if isinstance(d, ast.Call):
                self.hookkeywords(d, name)
            if name == "triton.heuristics" and isinstance(d, ast.Call):
                for v in d.args[:1] + [kw.value for kw in d.keywords if kw.arg == "values"]:
                    for h in (v.values if isinstance(v, ast.Dict) else [v]):
                        self.heuristic(h)
            if name == "triton.autotune" and isinstance(d, ast.Call):
                for kw in d.keywords:
                    if kw.arg == "configs" and isinstance(kw.value, (ast.List, ast.Tuple)) and \
                            len(kw.value.elts) > MAX_CONFIGS:
                        self.flag("autotune", d, "%d autotuning configs: at most %d" % (len(kw.value.elts),
                                  MAX_CONFIGS))
                    elif kw.arg == "configs" and not isinstance(kw.value, (ast.List, ast.Tuple)):
                        self.flag("autotune", d, "configs= must be a literal list (at most %d)" % MAX_CONFIGS)
        if jit:
            self.kernels.add(fn.name)

    def hookkeywords(self, call, name):
        for kw in call.keywords:
            if kw.arg == "use_cuda_graph":
                self.flag("streams", kw.value, "%s(use_cuda_graph=...): the autotuner would launch CUDA graphs, "
                          "which a call may not" % name)
            elif kw.arg in HOOKS:
                self.flag("hooks", kw.value, "%s(%s=...): host code the harness cannot see runs there; tune "
                          "with configs and key alone" % (name, kw.arg))

    def heuristic(self, h):
        """a triton.heuristics value: a lambda of arithmetic on its argument's items"""
        if not isinstance(h, ast.Lambda) or len(h.args.args) != 1:
            self.flag("hooks", h, "a triton.heuristics value must be a lambda of one argument")
            return
        param = h.args.args[0].arg
        for n in ast.walk(h.body):
            ok = isinstance(n, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
                                ast.operator, ast.unaryop, ast.boolop, ast.cmpop, ast.Load, ast.Tuple))
            if isinstance(n, ast.Subscript):
                ok = isinstance(n.value, ast.Name) and n.value.id == param
            elif isinstance(n, ast.Name):
                ok = n.id == param or n.id in ("min", "max", "int", "bool", "triton")
            elif isinstance(n, ast.Call):
                ok = (self.resolve(n.func) if isinstance(n.func, ast.Attribute) else dotted(n.func)) \
                    in HEURISTIC_CALLS and not n.keywords
            elif isinstance(n, ast.Attribute):
                ok = self.resolve(n) in HEURISTIC_CALLS
            if not ok:
                self.flag("hooks", n, "a triton.heuristics lambda may only do arithmetic on %s[...] (min, max, "
                          "int, triton.cdiv, triton.next_power_of_2): it runs on the host" % param)
                return

    def constant(self, st):
        targets = st.targets if isinstance(st, ast.Assign) else [st.target]
        value = st.value
        if len(targets) == 1 and isinstance(targets[0], ast.Tuple) and isinstance(value, ast.Tuple) and \
                len(targets[0].elts) == len(value.elts) and all(isinstance(t, ast.Name) for t in targets[0].elts):
            # BM, BN = 128, 64: each name to its constant
            for t, v in zip(targets[0].elts, value.elts):
                self.constant(ast.Assign(targets=[t], value=v, lineno=st.lineno, col_offset=st.col_offset))
            return
        for t in targets:
            if not isinstance(t, ast.Name):
                self.flag("global_state", st, "module level may only bind names to constants")
                return
        if value is None or self.isconstant(value):
            for t in targets:
                v = self.constvalue(value)
                if v is not None:
                    self.consts[t.id] = v
            return
        if isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
                isinstance(value, ast.Call) and dotted(value.func) in ("dict", "list", "set", "bytearray")):
            self.flag("global_state", st, "a mutable module-level value: nothing may be kept across calls")
        else:
            self.flag("structure", st, "module level may bind names only to constants (numbers, strings, "
                      "tuples of them, tl.constexpr(...))")

    def isconstant(self, v):
        if isinstance(v, ast.Constant):
            return True
        if isinstance(v, ast.Tuple):
            return all(self.isconstant(e) for e in v.elts)
        if isinstance(v, ast.UnaryOp) and isinstance(v.op, (ast.USub, ast.UAdd)):
            return self.isconstant(v.operand)
        if isinstance(v, ast.BinOp):
            return self.isconstant(v.left) and self.isconstant(v.right)
        if isinstance(v, ast.Call) and self.resolve(v.func) == "triton.language.constexpr":
            return len(v.args) == 1 and not v.keywords and self.isconstant(v.args[0])
        return False

    def constvalue(self, v):
        """the value of a constant expression (isconstant's), or None"""
        if isinstance(v, ast.Call):
            v = v.args[0]
        if isinstance(v, ast.Constant):
            return v.value
        if isinstance(v, ast.Tuple):
            return tuple(self.constvalue(e) for e in v.elts)
        if isinstance(v, ast.UnaryOp):
            x = self.constvalue(v.operand)
            return -x if isinstance(x, (int, float)) and isinstance(v.op, ast.USub) else x
        if isinstance(v, ast.BinOp):
            a, b = self.constvalue(v.left), self.constvalue(v.right)
            ops = {ast.Add: lambda: a + b, ast.Sub: lambda: a - b, ast.Mult: lambda: a * b,
                   ast.FloorDiv: lambda: a // b, ast.Mod: lambda: a % b, ast.Div: lambda: a / b,
                   ast.LShift: lambda: a << b if b < 64 else None,
                   ast.Pow: lambda: a ** b if abs(b) < 64 else None}
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or type(v.op) not in ops:
                return None
            try:
                return ops[type(v.op)]()
            except (ArithmeticError, TypeError, ValueError):
                return None
        return None

    # ---- every function ----
    def everywhere(self):
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name) and (node.id in DYNAMIC_NAMES or node.id.startswith("__")):
                self.flag("dynamic", node, "'%s': no dynamic lookups, code loading or introspection" % node.id)
            elif isinstance(node, ast.Name) and node.id in FILE_NAMES:
                self.flag("file_io", node, "'%s': no files or standard input" % node.id)
            elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
                self.flag("dynamic", node, "'.%s': no dunder attributes" % node.attr)
            elif isinstance(node, ast.Attribute) and (node.attr.startswith("_") or node.attr in DENIED_ATTRS):
                self.flag("dynamic", node, "'.%s': no private names, interpreter, module loading or host "
                          "modules through an attribute chain" % node.attr)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                self.flag("global_state", node, "'%s %s': nothing may be kept across calls"
                          % ("global" if isinstance(node, ast.Global) else "nonlocal", ", ".join(node.names)))
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and node not in self.tree.body:
                self.flag("imports", node, "an import inside a function: import at module level")
            elif isinstance(node, (ast.FunctionDef, ast.Lambda)) and node not in self.tree.body and \
                    isinstance(node, ast.FunctionDef):
                self.flag("structure", node, "nested function '%s': define functions at module level" % node.name)
            elif isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
                self.flag("structure", node, "no generators or coroutines")
            elif isinstance(node, ast.arg) and node.annotation is not None and \
                    not isinstance(node.annotation, (ast.Name, ast.Attribute)):
                self.flag("hooks", node.annotation, "an annotation is evaluated on the host: only a name such as "
                          "tl.constexpr")
            elif isinstance(node, ast.Call) and dotted(node.func) == "print":
                if any(kw.arg == "file" for kw in node.keywords):
                    self.flag("file_io", node, "print(file=...): no files")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    self.resolve(node.func) == "triton.Config":
                self.hookkeywords(node, "triton.Config")
            if isinstance(node, ast.FunctionDef) and node.returns is not None and \
                    not isinstance(node.returns, (ast.Name, ast.Attribute, ast.Constant)):
                self.flag("hooks", node.returns, "a return annotation is evaluated on the host: only a name")
            if isinstance(node, (ast.FunctionDef, ast.Lambda)):
                for d in node.args.defaults + [x for x in node.args.kw_defaults if x is not None]:
                    if not self.isconstant(d) and not (isinstance(d, ast.Name) and d.id in self.consts):
                        self.flag("global_state", d, "a default argument that is not a constant: nothing may "
                                  "be kept across calls")
            r = self.resolve(node) if isinstance(node, ast.Attribute) else None
            if r and (r.startswith("torch.") or r == "torch"):
                self.torchname(node, r)
            elif r and r.split(".")[:2] in (["triton", "runtime"], ["triton", "testing"]) and \
                    not isinstance(getattr(node, "_parent", None), ast.Attribute):
                self.flag("streams", node, "'%s': the harness times and synchronizes; use triton.jit, "
                          "triton.autotune, triton.Config, triton.cdiv" % r)
            elif r and r.split(".")[:2] in (["triton", "compiler"], ["triton", "backends"], ["triton", "knobs"],
                                            ["triton", "tools"]):
                self.flag("dynamic", node, "'%s': no compiler internals" % r)

    def torchname(self, node, r):
        """an attribute chain that starts at torch, checked where it is used whole (its outermost part)"""
        if isinstance(getattr(node, "_parent", None), ast.Attribute):
            return
        parts = r.split(".")
        second = parts[1] if len(parts) > 1 else ""
        if second == "cuda":
            self.flag("streams", node, "'%s': no torch.cuda (streams, events, graphs, synchronization are the "
                      "harness's)" % r)
        elif second in TORCH_DYNAMIC or second.startswith("_"):
            self.flag("dynamic", node, "'%s': no code loading or torch internals" % r)
        elif self.injit(node):
            self.flag("torch_compute", node, "'%s' inside a @triton.jit kernel: write it in triton.language" % r)
        elif len(parts) == 2 and (second in TORCH_ALLOC or second in TORCH_DTYPES or second in TORCH_OTHER):
            pass
        else:
            self.flag("torch_compute", node, "'%s': torch may only allocate (torch.empty, ...), name dtypes and "
                      "give shapes and strides; compute in @triton.jit kernels" % r)

    def injit(self, node):
        f = getattr(node, "_function", None)
        return f is not None and f.name in self.kernels

    # ---- host code: the functions that are not kernels ----
    def host(self):
        for fn in self.tree.body:
            if isinstance(fn, ast.FunctionDef) and fn.name not in self.kernels:
                tensors = {}
                if fn.name == self.abi["entry"]:
                    for a, p in zip(self.abi["args"], fn.args.args):
                        if a["kind"] in ("in", "out", "inout"):
                            tensors[p.arg] = DTYPES.get(a["dtype"])
                HostFunction(self, fn, tensors).run()

    def entry(self):
        name = self.abi["entry"]
        defs = [f for f in self.tree.body if isinstance(f, ast.FunctionDef) and f.name == name]
        if not defs:
            self.flag("entry_point", self.tree, "no top-level def %s(...): define the entry point" % name)
            return None
        if len(defs) > 1:
            self.flag("entry_point", defs[1], "def %s defined %d times: define it once" % (name, len(defs)))
        fn = defs[-1]
        a, want = fn.args, len(self.abi["args"])
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs or a.defaults:
            self.flag("entry_point", fn, "def %s: plain positional parameters only (no defaults, *args, "
                      "**kwargs or keyword-only ones)" % name)
        if len(a.args) != want:
            self.flag("entry_point", fn, "def %s takes %d parameters; the task passes %d: %s" % (
                name, len(a.args), want, ", ".join(x["name"] for x in self.abi["args"])))
        if name in self.kernels:
            self.flag("entry_point", fn, "the entry point %s is a @triton.jit kernel: it must be the Python "
                      "function that launches the kernels" % name)
        return fn

    def run(self):
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                child._parent = node
        for fn in self.tree.body:
            if isinstance(fn, ast.FunctionDef):
                for node in ast.walk(fn):
                    node._function = fn
        self.module()
        entry = self.entry()
        self.everywhere()
        self.host()
        if entry is not None and entry.name not in self.kernels and not self.launches:
            self.flag("kernel", entry, "the entry point launches no @triton.jit kernel (kernel[grid](...))"
                      if self.kernels else "no @triton.jit kernel: do the work in Triton kernels")
        self.violations.sort(key=lambda v: (v["line"], v["rule"], v["message"]))
        seen, out = set(), []
        for v in self.violations:
            k = (v["line"], v["rule"], v["message"])
            if k not in seen:
                seen.add(k)
                out.append(v)
        self.violations = out


class HostFunction:
    """one host function: what it does with tensors, and the entry's launches"""

    def __init__(self, screen, fn, tensors):
        self.s = screen
        self.fn = fn
        self.tensors = dict(tensors)  # name -> triton dtype (None: unknown)
        self.ints = {}                # name -> "i32"/"i64" for sizes and int expressions
        self.floats = {}
        self.consts = {}              # names bound once, to a constant
        self.assigned = set()
        if fn.name == screen.abi["entry"]:
            for a, p in zip(screen.abi["args"], fn.args.args):
                if a["kind"] == "size":
                    self.ints[p.arg] = "i64" if a["dtype"] == "i64" else "i32"
                elif a["kind"] == "scalar":
                    d = DTYPES.get(a["dtype"], "fp32")
                    self.floats[p.arg] = "fp64" if d == "fp64" else ("fp32" if d.startswith(("fp", "bf")) else d)

    def istensor(self, node):
        if isinstance(node, ast.Name):
            return node.id in self.tensors
        if isinstance(node, ast.Subscript):
            return self.istensor(node.value) and not self.isshape(node.value)
        if isinstance(node, ast.Attribute):
            return node.attr == "T" and self.istensor(node.value)
        if isinstance(node, ast.BinOp):
            return self.istensor(node.left) or self.istensor(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.istensor(node.operand)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("view", "reshape", "contiguous", "flatten", "t", "transpose", "permute"):
                return self.istensor(node.func.value)
            return self.s.resolve(node.func) in ("torch." + a for a in TORCH_ALLOC)
        return False

    def isshape(self, node):
        return isinstance(node, ast.Attribute) and node.attr == "shape"

    def tensordtype(self, call):
        """the Triton dtype of a tensor an allocation call makes, or None"""
        name = self.s.resolve(call.func) or ""
        for kw in call.keywords:
            if kw.arg == "dtype":
                d = self.s.resolve(kw.value) or ""
                if d.startswith("torch."):
                    return TORCH_DTYPES.get(d[6:])
                if isinstance(kw.value, ast.Attribute) and kw.value.attr == "dtype" and \
                        isinstance(kw.value.value, ast.Name):
                    return self.tensors.get(kw.value.value.id)
                return None
        if name.endswith("_like") and call.args and isinstance(call.args[0], ast.Name):
            return self.tensors.get(call.args[0].id)
        return "fp32" if name in ("torch.empty", "torch.zeros", "torch.full", "torch.empty_strided") else None

    def run(self):
        for st in self.fn.body:
            self.statement(st)
        for node in ast.walk(self.fn):
            self.node(node)

    def statement(self, st):
        """tracks what names hold, in order (a light type inference of tensors, ints and floats)"""
        for node in ast.walk(st):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            t, v = node.targets[0], node.value
            if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
                pairs = list(zip(t.elts, v.elts))
            elif isinstance(t, ast.Tuple) and isinstance(v, ast.Attribute) and v.attr == "shape":
                pairs = [(e, ast.Subscript(value=v, slice=ast.Constant(i))) for i, e in enumerate(t.elts)]
            else:
                pairs = [(t, v)]
            for t, v in pairs:
                if not isinstance(t, ast.Name):
                    continue
                name = t.id
                if self.istensor(v):
                    self.tensors[name] = self.tensordtype(v) if isinstance(v, ast.Call) and \
                        self.s.resolve(v.func) in ("torch." + a for a in TORCH_ALLOC) else \
                        (self.tensors.get(v.id) if isinstance(v, ast.Name) else None)
                elif self.kind(v)[0] == "const" and name not in self.assigned:
                    self.consts[name] = self.kind(v)[1]
                elif self.kind(v)[0] in ("int", "const") and not isinstance(self.kind(v)[1], float):
                    self.ints[name] = "i32" if self.kind(v)[0] == "const" else self.kind(v)[1]
                elif self.kind(v)[0] in ("float", "const"):
                    self.floats[name] = "fp32" if self.kind(v)[0] == "const" else self.kind(v)[1]
                self.assigned.add(name)

    def kind(self, node):
        """("tensor", dtype), ("int", "i32"), ("float", "fp32"), ("const", value) or ("unknown", why)"""
        if isinstance(node, ast.Name):
            if node.id in self.tensors:
                return ("tensor", self.tensors[node.id])
            if node.id in self.ints:
                return ("int", self.ints[node.id])
            if node.id in self.floats:
                return ("float", self.floats[node.id])
            if node.id in self.consts and self.once(node.id):
                return ("const", self.consts[node.id])
            if node.id in self.s.consts and node.id not in self.assigned:
                return ("const", self.s.consts[node.id])
            return ("unknown", "'%s'" % node.id)
        if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float)):
            return ("const", node.value)
        if isinstance(node, ast.Call):
            f = self.s.resolve(node.func) or ""
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("stride", "size", "numel", "dim",
                                                                          "element_size"):
                return ("int", "i32")
            if f in ("min", "max") and all(self.kind(a)[0] in ("int", "const") for a in node.args):
                return ("int", "i32")
            if f in ("int", "len", "triton.cdiv", "triton.next_power_of_2", "math.ceil", "math.floor"):
                return ("int", "i32")
            if f == "float":
                return ("float", "fp32")
            if self.s.isconstant(node):
                return ("const", self.s.constvalue(node))
            return ("unknown", "the value of %s(...)" % (dotted(node.func) or "a call"))
        if isinstance(node, ast.Subscript) and self.isshape(node.value):
            return ("int", "i32")
        if isinstance(node, (ast.BinOp, ast.UnaryOp)):
            parts = [node.left, node.right] if isinstance(node, ast.BinOp) else [node.operand]
            kinds = [self.kind(p) for p in parts]
            if all(k[0] == "const" for k in kinds) and self.s.isconstant(node):
                return ("const", self.s.constvalue(node))
            if any(k[0] == "float" for k in kinds) or isinstance(getattr(node, "op", None), ast.Div):
                return ("float", "fp32")
            if all(k[0] in ("int", "const") for k in kinds):
                return ("int", "i64" if any(k == ("int", "i64") for k in kinds) else "i32")
            return ("unknown", "an expression of %s" % ", ".join(k[1] if k[0] == "unknown" else k[0]
                                                                for k in kinds))
        return ("unknown", "a %s" % type(node).__name__)

    def once(self, name):
        """name is bound once in the function (so a constant it was given holds at every launch)"""
        return sum(1 for n in ast.walk(self.fn) for t in (n.targets if isinstance(n, ast.Assign) else
                   [n.target] if isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) else [])
                   for x in ast.walk(t) if isinstance(x, ast.Name) and x.id == name) == 1

    def arg(self, node):
        k, v = self.kind(node)
        return {k: v}

    def node(self, node):
        s = self.s
        if isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            s.flag("torch_compute", node, "'@' on the host: multiply in a @triton.jit kernel (tl.dot)")
        elif isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare)) and self.tensoroperand(node):
            s.flag("torch_compute", node, "arithmetic or a comparison on a tensor on the host: compute in a "
                   "@triton.jit kernel")
        elif isinstance(node, ast.AugAssign) and self.istensor(node.target):
            s.flag("torch_compute", node, "an in-place operation on a tensor on the host: compute in a "
                   "@triton.jit kernel")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                self.target(t)
        elif isinstance(node, (ast.For, ast.comprehension)) and self.istensor(node.iter):
            s.flag("torch_compute", node, "a loop over a tensor on the host: compute in a @triton.jit kernel")
        elif isinstance(node, ast.Attribute) and self.istensor(node.value) and \
                not isinstance(getattr(node, "_parent", None), ast.Call) and node.attr not in TENSOR_ATTRS:
            s.flag("torch_compute", node, "'.%s' of a tensor on the host: only .shape, .dtype, .device and the "
                   "shape and stride methods" % node.attr)
        elif isinstance(node, (ast.With, ast.Try)):
            pass

    def tensoroperand(self, node):
        if isinstance(node, ast.Compare):
            return any(self.istensor(x) for x in [node.left] + node.comparators)
        return self.istensor(node)

    def target(self, t):
        for x in ast.walk(t):
            if isinstance(x, ast.Attribute) and x.ctx is not None and isinstance(x.ctx, ast.Store):
                self.s.flag("global_state", x, "assigning the attribute '.%s': nothing may be kept across calls "
                            "(no function attributes)" % x.attr)
            elif isinstance(x, ast.Subscript) and isinstance(x.ctx, ast.Store):
                base = x.value
                while isinstance(base, (ast.Subscript, ast.Attribute)):
                    base = base.value
                if isinstance(base, ast.Name) and base.id in self.s.consts or \
                        (isinstance(base, ast.Name) and base.id not in self.tensors and
                         base.id not in [a.arg for a in self.fn.args.args] and self.ismodulename(base.id)):
                    self.s.flag("global_state", x, "writing into the module-level '%s': nothing may be kept "
                                "across calls" % base.id)
                else:
                    self.s.flag("torch_compute", x, "writing into a tensor by indexing on the host: write outputs "
                                "in a @triton.jit kernel")

    def ismodulename(self, name):
        assigned = {t.id for n in ast.walk(self.fn) if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}
        return name not in assigned

    def call(self, node):
        s = self.s
        f = node.func
        if isinstance(f, ast.Subscript):  # kernel[grid](...)
            name = dotted(f.value)
            if name in s.kernels:
                if self.fn.name == s.abi["entry"]:
                    s.launches.append({"kernel": name, "line": node.lineno,
                                       "args": [self.arg(a) for a in node.args],
                                       "kwargs": {kw.arg: self.arg(kw.value) for kw in node.keywords if kw.arg}})
                    if any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None
                                                                              for kw in node.keywords):
                        s.flag("structure", node, "a launch with *args or **kwargs: pass the kernel's "
                               "arguments by name or position")
            return
        if isinstance(f, ast.Name):
            if f.id in s.kernels:
                s.flag("kernel", node, "'%s(...)' calls a @triton.jit kernel without a grid: launch it as "
                       "%s[grid](...)" % (f.id, f.id))
            elif f.id in ("float", "int", "bool") and any(self.istensor(a) for a in node.args):
                s.flag("host_compute", node, "%s() of a tensor reads device data on the host" % f.id)
            elif f.id in BUILTINS_OK and f.id != "len" and any(self.istensor(a) for a in node.args):
                s.flag("torch_compute", node, "%s() over a tensor on the host: compute in a @triton.jit kernel"
                       % f.id)
            elif f.id not in BUILTINS_OK and f.id not in s.functions and f.id not in DYNAMIC_NAMES and \
                    f.id not in FILE_NAMES and f.id not in s.aliases:
                s.flag("dynamic", node, "'%s(...)': call only your own functions, triton's and the builtins "
                       "range, len, min, max, int, float, ..." % f.id)
            return
        if isinstance(f, ast.Attribute):
            r = s.resolve(f)
            if r and r.split(".")[0] in ("torch", "triton", "math"):
                return  # module functions: checked as names (everywhere)
            if f.attr in HOST_METHODS and (self.istensor(f.value) or f.attr in ("cpu", "numpy", "item", "tolist")):
                s.flag("host_compute", node, "'.%s()' moves tensor data to the host or converts it: compute in "
                       "a @triton.jit kernel" % f.attr)
            elif self.istensor(f.value) and f.attr not in TENSOR_METHODS and f.attr not in \
                    ("view", "reshape", "contiguous", "flatten", "t", "transpose", "permute") or \
                    (self.istensor(f.value) and f.attr in ("reshape", "contiguous", "flatten", "t", "transpose",
                                                           "permute")):
                s.flag("torch_compute", node, "'.%s()' on a tensor on the host: only .stride(), .size(), "
                       ".numel(), .dim(), .element_size(), .is_contiguous(), .data_ptr() and .view()" % f.attr)
            elif not self.istensor(f.value) and f.attr not in TENSOR_METHODS and f.attr != "view":
                s.flag("torch_compute", node, "'.%s()' on the host: only the shape and stride methods of "
                       "tensors" % f.attr)


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write("usage: tritonscreen.py CANDIDATE.py ABI.json [OUT.json]\n")
        return 2
    with open(sys.argv[2]) as f:
        abi = json.load(f)
    with open(sys.argv[1], "rb") as f:
        src = f.read()
    out = {"syntax_error": None, "violations": [], "launches": []}
    try:
        tree = ast.parse(src, "candidate.py")
    except (SyntaxError, ValueError) as e:
        out["syntax_error"] = "candidate.py, line %s: %s" % (getattr(e, "lineno", "?"), getattr(e, "msg", str(e)))
        if getattr(e, "text", None):
            out["syntax_error"] += "\n    " + e.text.rstrip("\n")
    else:
        s = Screen(tree, abi)
        s.run()
        out["violations"] = s.violations
        out["launches"] = s.launches
    text = json.dumps(out, sort_keys=True, indent=1) + "\n"
    if len(sys.argv) == 4:
        with open(sys.argv[3], "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
