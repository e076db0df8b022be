#!/usr/bin/env python3
"""tests/gpu/run.py - the GPU suite (tests/gpu/run calls it).

Every kernel in tests/kernels/honest and tests/kernels/cheats goes through
compile, verify and bench on this machine's GPU with retort's own tools,
as the graph's evaluate edge runs them (verify with the cache dir, so that
each candidate draws its hidden pool: an answer whose task has a pool
that was not drawn fails the suite). Honest kernels must be accepted;
every cheat must be rejected at the stage its header names (or earlier).
Cheats the static screen catches run a second time with the screen off,
to show what the sandbox and verify do on their own (and that nothing
escapes: no stray files, no processes).
Honest kernels are also timed with triton.testing.do_bench (median), to
compare with bench's median, and every candidate's wall time through
compile + verify + bench is recorded.

The demo's hand-written answers (tasks/replay) run too: each wrong one
must be stopped where tasks/replay/README.md says, the rest accepted.
Answers are compiled first, in parallel on half the cores; then each runs
on the GPU alone. RETORT_GPU_SUITE_SECONDS stops starting new ones after
that many seconds (a partial run is a failed run). RETORT_GPU_SUITE_KB=DIR
takes the KernelBench test problems from DIR, imported already with
scripts/import-kernelbench (elsewhere, with the same tool), instead of
importing them here. Where an honest kernel's bench median is over 3% off
do_bench's (with RETORT_GPU_SUITE_CLOCKS=1, for every honest kernel), do_bench
runs again with the GPU's SM clock and power sampled, and its calls are timed
one at a time as bench makes them: a line each at the end.

With --gpu-jobs N (default 1: one candidate at a time) verify and bench
lease N GPU slots (--gpus N) and the honest kernels and demo answers run N
at a time, each on a GPU of its own; the cheats still run one at a time
(the stray-process check looks at the whole machine), and do_bench runs
only with one job (it would share a GPU). The GPU phase's candidates per
minute are printed at the end.

With --concurrent N the honest kernels and demo answers run N at a time
on one GPU slot, as a build's evaluate edges do (ninja -j): their CPU
work overlaps another's GPU lease, and the one waiting on the slot's deck
makes its harness's CUDA context before its lease. do_bench then runs
holding the slot's lease.

--repeat K runs each honest kernel and demo answer K times (copies of
its build), for throughput figures (bench/gpu-throughput.sh).

usage: tests/gpu/run.py WORKDIR [--gpu-jobs N | --concurrent N] [--repeat K] [--only NAME|cheat|honest|demo|cuda|kernelbench|triton ...]
       tests/gpu/run.py WORKDIR --only eval|propose ...
(--only cuda: the CUDA kernels of tests/kernels/honest and cheats; kernelbench, triton: those groups;
eval alone: tests/eval/replay-gpu.sh over 6 variants of each of two held-out specs, a user's evaluation build end to end;
propose: tests/propose/baseline-gpu.sh, proposals' baselines checked against their references by one ninja)
Prints a short table; writes WORKDIR/results.json after every answer.
Exit 1 if any expectation fails.
"""
import collections
import ctypes
import fcntl
import glob
import itertools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("RETORT_BIN", os.path.join(ROOT, "out", "bin"))
ARCH = os.environ.get("RETORT_ARCH", "sm_90a")


def sh(args, log=None, timeout=1800):
    t0 = time.time()
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    dt = time.time() - t0
    if log:
        with open(log, "ab") as f:
            f.write(b"$ " + " ".join(args).encode() + b"\n" + p.stdout)
    return p.returncode, p.stdout.decode(errors="replace"), dt


def header(path, mark="//"):
    """The kernel's variant and expectations from its first comment lines (mark: // for CUDA, # for Python)."""
    h = {}
    with open(path) as f:
        lines = [next(f, "") for _ in range(8)]
    for line in lines:
        m = re.match(re.escape(mark) + r"\s*(task|cheat|expect|runtime):\s*(.*)", line)
        if m:
            h[m.group(1)] = m.group(2).strip()
    if "task" not in h:
        h["task"] = lines[0].lstrip(mark[0] + " ").split()[0].rstrip(":")
    return h


KBDIR = None  # the imported KernelBench test problems' specs (main: WORK/kb)


def spec_of(variant):
    base = variant.split(".")[0]
    for d in ["tasks", "tests/kernels/tasks"] + ([KBDIR] if KBDIR else []):
        p = os.path.join(ROOT, d, base + ".yaml")
        if os.path.exists(p):
            return p, os.path.join(ROOT, d)
    return None, None


def gpu_python():
    """The environment Triton candidates and Python baselines run in: this interpreter's, when it has torch and triton."""
    try:
        import torch  # noqa: F401
        import triton  # noqa: F401
    except ImportError:
        return None
    return sys.prefix


class Suite:
    def __init__(self, work):
        self.work = work
        self.out = os.path.join(work, "out")
        self.cache = os.path.join(work, "cache")
        self.log = os.path.join(work, "log.txt")
        self.prepared = {}
        self.rows = []
        self.failures = 0
        self.prep_s = {}
        self.prep_steps = {}  # each step's seconds, a variant's
        self.oracle_s = {}
        self.gpus = 1  # --gpu-jobs: the GPU slots verify and bench lease
        self.gpy = gpu_python()
        # the Python harness's runtime is the suite's own (prepare --runtime writes out/runtime/py beside harness.o)
        self.pyflags = (["--gpu-python", self.gpy, "--python-harness", os.path.join(self.out, "runtime", "py")]
                        if self.gpy else [])
        self.bl = {}  # variant: its baseline (baseline.so or a Python baseline's baseline.py)
        self.refenv = {}  # variant: its reference's environment option (--python-env DIR for a Python one)
        self.haspool = {}  # variant: whether its task has small hidden shapes (a pool each candidate draws from)

    def runtime(self):
        """The harness's runtime (device code, lockdown, guard), built once."""
        obj = os.path.join(self.out, "runtime", "harness.o")
        if not os.path.exists(obj):
            t0 = time.time()
            rc, out, _ = sh([BIN + "/prepare", "--runtime", "--arch", ARCH, "--src", ROOT + "/src", "-o", obj]
                            + (["--gpu-python", self.gpy] if self.gpy else []), self.log)
            print("# prepare --runtime%s: %.1f s" % (" (and the GPU Python's bytecode)" if self.gpy else "", time.time() - t0),
                  flush=True)
            if rc:
                raise RuntimeError("prepare --runtime failed: " + out[-2000:])
        return obj

    def refrunner(self):
        """The reference runner's fixed parts, which every reference links (the build's refrunner edge), built once."""
        obj = os.path.join(self.out, "runtime", "refrun.o")
        if not os.path.exists(obj):
            rc, out, _ = sh([BIN + "/prepare", "--refrunner", "--src", ROOT + "/src", "-o", obj], self.log)
            if rc:
                raise RuntimeError("prepare --refrunner failed: " + out[-2000:])
        return obj

    def variant(self, vid):
        """task.json, harness, expected outputs, baseline and its oracle check for one variant, built once."""
        if vid in self.prepared:
            return self.prepared[vid]
        spec, tdir = spec_of(vid)
        if not spec:
            raise RuntimeError("no spec for variant %s" % vid)
        d = os.path.join(self.out, "v", vid)
        rc, out, _ = sh([BIN + "/gen", "--split", spec, "--all", "--out", self.out, "--tasks-dir", tdir], self.log)
        if rc or not os.path.exists(d + "/task.json"):
            raise RuntimeError("gen --split %s failed: %s" % (spec, out))
        task = json.load(open(d + "/task.json"))
        # a Python reference (an imported KernelBench module) runs in the GPU host's torch environment
        pyref = self.refenv[vid] = ["--python-env", self.gpy] if task.get("reference_language") == "python" and self.gpy else []
        self.haspool[vid] = bool(task.get("cases", {}).get("pool"))
        # as the build's edges run them (rules/stages.ninja): the runner prebuilt, the builds kept by content in the cache dir
        steps = [
            [BIN + "/prepare", "--harness", "-o", d + "/harness", "--object", self.runtime(), "--cache-dir", self.cache,
             d + "/task.json"],
            [BIN + "/prepare", "--reference", "-o", d + "/reference", "--runner", self.refrunner(), "--src", ROOT + "/src",
             "--cache-dir", self.cache, d + "/task.json"],
            [BIN + "/verify", "--expected", "--cache-dir", self.cache] + pyref + ["-o", d + "/expected.json",
             d + "/task.json", d + "/reference"],
        ]
        if task.get("baseline"):
            self.bl[vid] = d + ("/baseline.py" if "python" in task["baseline"] else "/baseline.so")
            steps.append([BIN + "/prepare", "--baseline", "--arch", ARCH, "-o", self.bl[vid], "--cache-dir", self.cache,
                          d + "/task.json"])
        took = {}
        for s, step in zip(steps, ("harness", "reference", "expected", "baseline")):
            rc, out, took[step] = sh(s, self.log)
            if rc:
                raise RuntimeError("%s failed: %s" % (" ".join(s[:2]), out[-2000:]))
        self.prep_s[vid] = sum(took.values())
        self.prep_steps[vid] = took
        self.prepared[vid] = d
        return d

    def baseline(self, vid):
        """The variant's baseline checked as the oracle, then timed once (on the GPU)."""
        d = self.prepared[vid]
        bl = self.bl.get(vid)
        if bl and os.path.exists(bl) and not os.path.exists(d + "/baseline.json"):
            t0 = time.time()
            rc, out, _ = sh([BIN + "/verify", "--baseline", "--lock-dir", self.work + "/gpu", "--gpus", str(self.gpus)] + self.pyflags +
                            ["-o", d + "/oracle.json", d + "/task.json", d + "/harness", d + "/expected.json", bl], self.log)
            if rc:
                raise RuntimeError("verify --baseline failed: " + out[-2000:])
            rc, out, _ = sh([BIN + "/bench", "--baseline", "--lock-dir", self.work + "/gpu", "--gpus", str(self.gpus)] + self.pyflags +
                            ["-o", d + "/baseline.json", d + "/task.json", d + "/harness", d + "/oracle.json", bl], self.log)
            if rc:
                raise RuntimeError("bench --baseline failed: " + out[-2000:])
            self.oracle_s[vid] = time.time() - t0
            oracle = json.load(open(d + "/oracle.json"))
            if oracle.get("verdict") != "correct":
                print("# %s: the baseline is no oracle: %s %s" % (vid, oracle.get("verdict"), (oracle.get("feedback") or "")[:300]), flush=True)

    def calibration(self):
        path = os.path.join(self.out, "gpu", "calibration.json")
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            prog = os.path.join(self.out, "gpu", "calibrate")
            rc, out, _ = sh(["nvcc", "-arch=" + ARCH, "-O3", "-o", prog, ROOT + "/src/runtime/calibrate.cu", "-lcublas"], self.log)
            if rc:
                raise RuntimeError("calibrate does not build: " + out)
            rc, out, _ = sh([BIN + "/bench", "--calibrate", "--lock-dir", self.work + "/gpu", "--gpus", str(self.gpus),
                             "-o", path, prog], self.log)
            if rc:
                raise RuntimeError("calibration failed: " + out)
        return path

    def build(self, name, text, vid, screen=True):
        """compile one answer (CPU only); returns a result row for run()."""
        d = self.variant(vid)
        run = os.path.join(self.work, "runs", name + ("" if screen else ".noscreen"))
        shutil.rmtree(run, ignore_errors=True)
        os.makedirs(run)
        json.dump({"status": "answered", "answer": {"text": text}}, open(run + "/response.json", "w"))
        row = {"name": name, "variant": vid, "screen": screen, "run": run}
        if text.startswith("```python\n") and (not TRITON_COMPILE or not screen):
            # compile has no Triton path in this build, or the run is without the screen
            # (compile --lang triton has no --no-screen): the source as compile would leave it
            open(run + "/cand.py", "w").write(text[len("```python\n"):-len("```\n")])
            json.dump({"status": "ok", "lang": "triton"}, open(run + "/compile.json", "w"))
            row.update(compile="ok", compile_s=0.0, so=run + "/cand.py")
            return row
        args = [BIN + "/compile", "--arch", ARCH, "-o", run + "/compile.json"]
        if text.startswith("```python\n"):  # a Triton answer, compiled with the GPU host's Triton
            args += ["--lang", "triton"] + (["--triton-env", self.gpy] if self.gpy else [])
        if not screen:
            args.append("--no-screen")
        rc, out, row["compile_s"] = sh(args + [d + "/task.json", run + "/response.json"], self.log)
        comp = json.load(open(run + "/compile.json")) if rc == 0 else {"status": "tool failed: " + out[-300:]}
        row["compile"] = comp.get("status")
        if comp.get("violations"):
            row["screen_rules"] = sorted({v["rule"] for v in comp["violations"]})
        return row

    def run(self, row):
        """verify and bench a built answer on the GPU, one at a time, as the
        graph's evaluate edge does: verify --bench (bench in verify's harness)."""
        vid, run = row["variant"], row["run"]
        d = self.prepared[vid]
        self.baseline(vid)
        have = [os.path.exists(d + "/oracle.json"), os.path.exists(d + "/baseline.json")]
        if have[0] != have[1]:
            raise RuntimeError("%s: oracle.json and baseline.json come together (one is missing)" % vid)
        extra = [d + "/oracle.json", d + "/baseline.json"] if have[0] else []
        for f in ("/verify.json", "/bench.json"):
            if os.path.exists(run + f):
                os.remove(run + f)
        # the cache dir holds the secret: without it verify draws no hidden pool cases (as the evaluate edge passes it)
        rc, out, row["verify_s"] = sh([BIN + "/verify", "--bench", "--timeout", "20", "--lock-dir", self.work + "/gpu", "--gpus", str(self.gpus),
                                       "--cache-dir", self.cache] + self.refenv[vid] + self.pyflags +
                                      ["-o", run + "/verify.json", run + "/bench.json", d + "/task.json", run + "/compile.json", d + "/harness",
                                       d + "/expected.json", self.calibration()] + extra, self.log)
        row["bench_s"] = 0  # the same process: verify_s is both
        ver = json.load(open(run + "/verify.json")) if os.path.exists(run + "/verify.json") else {"verdict": "tool failed: " + out[-300:]}
        row["verify"] = ver.get("verdict")
        row["verify_rules"] = sorted(set(re.findall(r"\(rule (\w+)\)", json.dumps(ver))))
        # a task with small shapes must have had its hidden pool drawn: the suite checks what the graph runs
        pool = ver.get("hidden_pool") or {}
        row["pool_why"] = pool.get("why") if self.haspool[vid] and str(pool.get("why", "")).startswith("not drawn") else None
        row["gpu_s"] = ver.get("gpu_seconds", 0)
        row["isolation"] = ver.get("isolation")
        ben = json.load(open(run + "/bench.json")) if rc == 0 else {"status": "tool failed: " + out[-300:]}
        row["bench"] = ben.get("status")
        row["gpu_s"] += ben.get("gpu_seconds", 0)
        row["review"] = ben.get("review", [])
        case = (ben.get("cases") or [{}])[0]
        row["median_ms"] = (case.get("candidate") or {}).get("median_ms")
        pc = case.get("parent_clock") or {}
        if "excess_ms" in pc and row["median_ms"]:
            row["parent_excess_ms"] = pc["excess_ms"] - row["median_ms"]
            row["parent_noise_ms"] = pc["noise_ms"]
        row["speedup"] = case.get("speedup")
        row["speedup_compile"] = case.get("speedup_compile")
        row["baseline_ms"] = (case.get("baseline") or {}).get("median_ms")
        row["sol"] = (case.get("sol") or {}).get("percent")
        g = ben.get("gpu") or {}
        row["bench_clock"] = (g.get("sm_clock_mhz_start"), g.get("sm_clock_mhz_end"))
        row["verify_start_s"] = ver.get("start_seconds")
        row["harness_start"] = ver.get("harness_start")
        row["verify_gpu_s"] = ver.get("gpu_seconds")
        row["verify_phases_s"] = ver.get("phase_seconds")
        row["bench_checked"] = ver.get("bench_checked")
        row["lockdown"] = ver.get("lockdown")
        row["launch_check"] = ver.get("launch_check")
        row["harness_warm"] = ver.get("harness_warm")
        slow = sorted(ver.get("runs") or [], key=lambda r: -(r.get("host_ms") or 0))[:3]
        row["verify_slowest"] = [(r.get("case", "?"), (r.get("inputs") or "?")[:40], r.get("host_ms") or 0) for r in slow]
        # a Python candidate's first call of each case (before its lockdown, not judged; its autotuning)
        first = sorted(ver.get("first_calls") or [], key=lambda r: -(r.get("wall_ms") or 0))
        row["first_calls"] = (len(first), sum(r.get("wall_ms") or 0 for r in first) / 1e3,
                              [(r.get("case", "?"), r.get("wall_ms") or 0) for r in first[:3]])
        row["lockdown_s"] = ver.get("lockdown_seconds")
        row["bench_phases_s"] = case.get("seconds")
        row["bench_check_s"] = case.get("check_seconds")
        row["bench_gpu_s"] = ben.get("gpu_seconds")
        # the lease beyond the handover and the cases (NVML's start, between cases): bench counts it since stop 37
        if ben.get("gpu_seconds") is not None:
            row["bench_gap_s"] = ben["gpu_seconds"] - ben.get("handover_seconds", 0) - sum(
                sum((c.get("seconds") or {}).values()) for c in ben.get("cases") or [])
        row["checks"] = case.get("checks")
        row["feedback"] = (ver.get("feedback") or "") + (ben.get("feedback") or "")
        row["so"] = run + ("/cand.py" if os.path.exists(run + "/cand.py") else "/cand.so")
        row["task"] = d + "/task.json"
        return row


def caught(row):
    """Where the pipeline stopped the candidate (None: accepted)."""
    if row["compile"] != "ok":
        return "screen" if row["compile"] == "screen_failed" else "compile"
    if row["verify"] != "correct":
        return "verify"
    if row["bench"] != "measured":
        return "bench"
    if row["review"]:
        return "bench"
    return None


def bench_call(row, draws=1):
    """The kernel of ROW and its bench case's arguments over torch tensors on
    the GPU: (fn, argsets, tensors), or None where a dtype has no torch type.
    With DRAWS > 1 and an integer input (lengths, indices: values that set
    how much work a call does), argsets has DRAWS argument lists, each with
    its own draw of the integer inputs, the rest shared; else one."""
    import torch
    task = json.load(open(row["task"]))
    case = task["cases"]["bench"][0]
    dts = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
           "i32": torch.int32, "i64": torch.int64, "i8": torch.int8, "u8": torch.uint8, "i16": torch.int16}
    py = row["so"].endswith(".py")
    if py:  # a Triton candidate: its entry point over torch tensors
        import importlib.machinery
        import importlib.util
        loader = importlib.machinery.SourceFileLoader("cand_" + row["name"].replace("-", "_"), row["so"])
        mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
        loader.exec_module(mod)
        fn = getattr(mod, task["entry"])
    else:
        lib = ctypes.CDLL(row["so"])
        fn = getattr(lib, task["entry"])
    ins = [a for a in task["args"] if a["kind"] in ("in", "inout")]
    if not any(dts.get(a["dtype"]) is not None and not dts[a["dtype"]].is_floating_point for a in ins):
        draws = 1
    argsets, types, keep = [[] for _ in range(draws)], [], []
    for a in task["args"]:
        if a["kind"] in ("in", "out", "inout"):
            shape = case["shapes"][a["name"]]
            dt = dts.get(a["dtype"])
            if dt is None:
                return None
            if dt.is_floating_point:
                ts = [torch.randn(shape, device="cuda").to(dt)] * draws
            else:
                lo, hi = case["ranges"].get(a["name"], [0, 100])
                n = draws if a["kind"] in ("in", "inout") else 1  # an output is shared
                ts = [torch.randint(int(lo), int(hi), shape, device="cuda", dtype=dt) for _ in range(n)] * (draws // n)
            keep += ts
            for args, t in zip(argsets, ts):
                args.append(t if py else ctypes.c_void_p(t.data_ptr()))
            types.append(ctypes.c_void_p)
        else:
            if a["kind"] == "size":
                v = case["sizes"][a["name"]]
                v = v if py else ctypes.c_int64(v) if a["dtype"] == "i64" else ctypes.c_int(v)
            else:
                v = case["scalars"][a["name"]]
                v = ((float(v) if a["dtype"] in ("f32", "f16", "bf16", "f64") else int(v)) if py else
                     ctypes.c_double(v) if a["dtype"] == "f64" else ctypes.c_float(v) if a["dtype"] in ("f32", "f16", "bf16")
                     else ctypes.c_int(int(v)))
            for args in argsets:
                args.append(v)
            types.append(type(v))
    if not py:
        fn.argtypes = types
        fn.restype = None
    return fn, argsets, keep


class Clocks:
    """The GPU's SM clock (MHz), power (W) and clock-event reasons, sampled
    by NVML every 5 ms on a thread between start() and stop()."""
    REASONS = {0x4: "power cap", 0x8: "hw slowdown", 0x20: "sw thermal", 0x40: "hw thermal", 0x80: "power brake"}

    def __init__(self):
        import torch
        self.nvml = ctypes.CDLL("libnvidia-ml.so.1")
        if self.nvml.nvmlInit_v2():
            raise RuntimeError("nvmlInit failed")
        self.dev = ctypes.c_void_p()
        uuid = ("GPU-%s" % torch.cuda.get_device_properties(torch.cuda.current_device()).uuid).encode()
        if self.nvml.nvmlDeviceGetHandleByUUID(uuid, ctypes.byref(self.dev)):
            raise RuntimeError("NVML has no GPU %s" % uuid.decode())
        self.why = getattr(self.nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
            self.nvml.nvmlDeviceGetCurrentClocksThrottleReasons

    def sample(self):
        """(SM MHz, watts, reasons); None for what NVML could not say"""
        c, p, r = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
        return (None if self.nvml.nvmlDeviceGetClockInfo(self.dev, 1, ctypes.byref(c)) else c.value,  # NVML_CLOCK_SM
                None if self.nvml.nvmlDeviceGetPowerUsage(self.dev, ctypes.byref(p)) else p.value / 1e3,
                0 if self.why(self.dev, ctypes.byref(r)) else r.value)

    def start(self):
        self.samples, self.going = [], True

        def poll():
            while self.going:
                self.samples.append(self.sample())
                time.sleep(0.005)
        self.thread = threading.Thread(target=poll, daemon=True)
        self.thread.start()

    def stop(self):
        """{"sm_mhz": median, "sm_mhz_min", "watts_max", "reasons"} over the samples."""
        self.going = False
        self.thread.join()
        s = self.samples or [self.sample()]
        mhz, watts, bits = [x[0] for x in s if x[0] is not None], [x[1] for x in s if x[1] is not None], 0
        for x in s:
            bits |= x[2]
        if not mhz:
            return {"error": "NVML gave no SM clock"}
        return {"sm_mhz": statistics.median(mhz), "sm_mhz_min": min(mhz),
                "watts_max": max(watts) if watts else None, "samples": len(s),
                "reasons": ", ".join(v for k, v in sorted(self.REASONS.items()) if bits & k) or "none"}


DRAWS = 16  # draws of a kernel's integer inputs that do_bench goes through


def do_bench(row):
    """Median of triton.testing.do_bench on the same kernel and bench case,
    in ms, or None. bench draws every timed call's inputs afresh, so where
    integer inputs set the work (attention_decode's lengths) do_bench goes
    through DRAWS draws of them, one a call, and row["do_bench_one_ms"]
    has its median on the first draw alone. Where bench's median is over 3%
    off, do_bench runs again with the SM clock and power sampled (Clocks):
    row["do_bench_again_ms"] and row["do_bench_clock"]; and row["spaced"]
    has its calls timed one at a time (spaced)."""
    try:
        import torch
        import triton.testing
    except ImportError:
        return None
    call = bench_call(row, DRAWS)
    if call is None:
        return None
    fn, argsets, _ = call
    torch.cuda.synchronize()
    if len(argsets) > 1:
        row["do_bench_one_ms"] = triton.testing.do_bench(lambda: fn(*argsets[0]), warmup=25, rep=200,
                                                         return_mode="median")
    turn = itertools.cycle(argsets)
    call1 = lambda: fn(*next(turn))  # noqa: E731
    ms = triton.testing.do_bench(call1, warmup=25, rep=200, return_mode="median")
    if (row.get("median_ms") and abs(row["median_ms"] / ms - 1) > 0.03) or os.environ.get("RETORT_GPU_SUITE_CLOCKS"):
        # outside 3% (or asked for every kernel): do_bench again with the clocks sampled, and its calls one at a time
        try:
            clocks = Clocks()
        except (OSError, AttributeError, RuntimeError) as e:
            clocks, row["do_bench_clock"] = None, {"error": str(e)[:200]}
        if clocks:
            clocks.start()
            row["do_bench_again_ms"] = triton.testing.do_bench(call1, warmup=25, rep=200, return_mode="median")
            row["do_bench_clock"] = clocks.stop()
        row["spaced"] = spaced(call1, clocks)
    return ms


def spaced(call, clocks, n=100, gap_s=0.001, cover_cycles=1000000):
    """CALL made one at a time, as bench makes its calls: the L2 flushed
    as do_bench flushes it, the GPU kept busy COVER_CYCLES clocks (about
    0.5 ms: a Python call's way to its launch is not timed, as bench's
    launch cover keeps it out), the call between two events, then the host
    waits for it and sleeps GAP_S with the GPU idle. {"ms": the median of
    N calls, and the clock while they ran (Clocks)}."""
    import torch
    flush = torch.empty(256 << 20, dtype=torch.int8, device="cuda")
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(n)]
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    if clocks:
        clocks.start()
    for a, b in ev:
        flush.zero_()
        torch.cuda._sleep(cover_cycles)
        a.record()
        call()
        b.record()
        b.synchronize()
        time.sleep(gap_s)
    out = {"ms": statistics.median(a.elapsed_time(b) for a, b in ev)}
    if clocks:
        out["clock"] = clocks.stop()
    return out


# the demo's hand-written answers (tasks/replay/README.md): where each wrong
# one must be stopped; the rest must be accepted
DEMO_EXPECT = {"relu/s0-r1": "compile", "relu/s1-r1": "screen", "relu/s2-r1": "compile",
               "row_max/s1-r1": "verify"}
ORDER = ["screen", "compile", "verify", "bench"]
# compile has a Triton path (compile --lang triton)
TRITON_COMPILE = "--lang triton" in open(ROOT + "/src/build/compile.c").read()


def items():
    """(name, kind, variant, answer text, expectation, header) for everything the suite runs."""
    out = []
    for kind, where in (("cheats", "cheats"), ("honest", "honest"), ("honest", "kernelbench")):
        for path in sorted(glob.glob(ROOT + "/tests/kernels/%s/*.cu" % where)):
            h = header(path)
            h["group"] = "kernelbench" if where == "kernelbench" else "cuda"
            text = "The kernel:\n\n```cuda\n" + open(path).read() + "\n```\n"
            expect = h.get("expect", "verify") if kind == "cheats" else "accepted"
            out.append((os.path.basename(path)[:-3], kind[:-1] if kind == "cheats" else kind, h["task"], text, expect, h))
    for kind in ("cheats", "honest"):
        for path in sorted(glob.glob(ROOT + "/tests/kernels/triton/%s/*.py" % kind)):
            h = header(path, "#")
            h["group"] = "triton"
            expect = h.get("expect", "verify") if kind == "cheats" else "accepted"
            if kind == "cheats" and expect == "screen" and not TRITON_COMPILE:
                # no Triton screen in this build: what the runtime does is what can be checked
                h["screen_pending"] = True
                expect = h.get("runtime", "accepted")
            out.append(("triton:" + os.path.basename(path)[:-3], kind[:-1] if kind == "cheats" else kind, h["task"],
                        "```python\n" + open(path).read() + "```\n", expect, h))
    for path in sorted(glob.glob(ROOT + "/tasks/replay/*/s*-r*.md")):
        key = os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)[:-3]
        out.append(("demo:" + key, "demo", key.split("/")[0], open(path).read(), DEMO_EXPECT.get(key, "accepted"),
                    {"group": "demo"}))
    return out


def import_kernelbench(work):
    """tests/kernelbench's problems imported into WORK/kb with this interpreter's torch (they are inputs, not shipped specs)."""
    global KBDIR
    kb = os.path.join(work, "kb")
    pre = os.environ.get("RETORT_GPU_SUITE_KB")
    if pre:  # imported already, elsewhere, with the same tool (saves the GPU host the tracing)
        shutil.rmtree(kb, ignore_errors=True)
        shutil.copytree(pre, kb)
        os.symlink(ROOT + "/tasks/prompts", kb + "/prompts")
        KBDIR = kb
        print("# KernelBench test problems imported elsewhere: %d specs from %s" % (len(glob.glob(kb + "/*.yaml")), pre), flush=True)
        return
    rc, out, dt = sh([sys.executable, ROOT + "/scripts/import-kernelbench", "--python", sys.executable, "--out", kb,
                      ROOT + "/tests/kernelbench/level1", ROOT + "/tests/kernelbench/level2"])
    if rc:
        print("# import-kernelbench failed: %s" % out[-500:], flush=True)
        return
    if not os.path.exists(kb + "/prompts"):
        os.symlink(ROOT + "/tasks/prompts", kb + "/prompts")
    KBDIR = kb
    n = len(glob.glob(kb + "/*.yaml"))
    print("# imported %d KernelBench test problems in %.0f s (%.1f s each)" % (n, dt, dt / max(n, 1)), flush=True)


def longest_chain(took):
    """a variant's preparation as the build's edges run it (the CPUs free):
    the reference then its expected outputs, beside the harness and the baseline"""
    return max(took.get("reference", 0) + took.get("expected", 0), took.get("harness", 0), took.get("baseline", 0))


def prep_steps(steps):
    """the CPU preparation by step (run one after another here), and its
    longest chain as the build's edges run: the reference then its
    expected outputs, beside the harness and the baseline"""
    steps = list(steps)

    def med(k):  # over the variants that have the step (a baseline is optional)
        v = [s[k] for s in steps if k in s]
        return "%.2f (max %.2f)" % (statistics.median(v), max(v)) if v else "none"
    chain = [longest_chain(s) for s in steps]
    return ("CPU preparation per step, median seconds: harness %s, reference %s, expected outputs %s, baseline build %s; "
            "longest chain as the build runs them (reference then expected outputs, beside the others) median %.2f s "
            "(max %.2f s)" % (med("harness"), med("reference"), med("expected"), med("baseline"),
                              statistics.median(chain), max(chain))) if steps else "CPU preparation: none"


def outside(r):
    """A line on an honest kernel whose bench median is over 3% off
    do_bench's: the clocks under each, and its calls timed one at a time."""
    def clock(c):
        return ("SM %s MHz (min %s), up to %s W, clock events: %s" % (
            c["sm_mhz"], c["sm_mhz_min"], "%.0f" % c["watts_max"] if c["watts_max"] is not None else "?",
            c["reasons"]) if c and "sm_mhz" in c
            else (c or {}).get("error", "not sampled"))
    sp = r.get("spaced") or {}
    return ("  %s: %s: bench %.4f ms (SM %s MHz at its start, %s at its end); do_bench %.4f ms, "
            "again %s ms: %s%s%s" % (
        "outside 3%" if abs(r["median_ms"] / r["do_bench_ms"] - 1) > 0.03 else "within 3%",
        r["name"], r["median_ms"], *(r.get("bench_clock") or (None, None)), r["do_bench_ms"],
        "%.4f" % r["do_bench_again_ms"] if r.get("do_bench_again_ms") else "-", clock(r.get("do_bench_clock")),
        "; on one draw of its integer inputs %.4f ms" % r["do_bench_one_ms"] if r.get("do_bench_one_ms") else "",
        "; one call at a time, 1 ms apart: %.4f ms, %s" % (sp["ms"], clock(sp.get("clock"))) if sp else ""))


def cost_table(results, suite, per_minute):
    """Issue 42's table: the GPU and CPU cost of a candidate and of a variant,
    by group (CUDA, Triton, KernelBench), over the honest answers accepted."""
    groups = (("CUDA", lambda r: r.get("group") == "cuda"), ("Triton", lambda r: r.get("group") == "triton"),
              ("KernelBench", lambda r: r.get("group") == "kernelbench"))
    cols = []
    for name, of in groups:
        rows = [r for r in results if of(r) and r["kind"] == "honest" and r["pass"]]
        if not rows:
            continue
        held = sorted(r["gpu_s"] for r in rows)
        vheld = [r["verify_gpu_s"] for r in rows if r.get("verify_gpu_s") is not None]
        vstart = [r["verify_start_s"] for r in rows if r.get("verify_start_s") is not None]
        vids = {r["variant"] for r in rows}
        orc = [suite.oracle_s[v] for v in vids if v in suite.oracle_s]
        prep = [suite.prep_s[v] for v in vids if v in suite.prep_s]
        chain = [longest_chain(suite.prep_steps[v]) for v in vids if v in suite.prep_steps]
        devs = [100 * (r["median_ms"] / r["do_bench_ms"] - 1) for r in rows if r.get("do_bench_ms") and r.get("median_ms")]
        mm = lambda x: "%.2f s (max %.2f)" % (statistics.median(x), max(x)) if x else "-"
        cols.append(("%s (%d)" % (name, len(rows)), [
            "%.2f s" % statistics.median(held),
            "%.2f / %.2f s" % (held[min(len(held) - 1, int(0.95 * len(held)))], held[-1]),
            ("%.2f s (harness start %.2f s)" % (statistics.median(vheld), statistics.median(vstart))
             if vheld and vstart else "-"),
            "%.2f s" % statistics.median(r["compile_s"] + r["verify_s"] + r["bench_s"] for r in rows),
            mm(orc), "%s; longest chain %s" % (mm(prep), mm(chain)) if prep else "-",
            "%d of %d" % (sum(abs(d) <= 3 for d in devs), len(devs)) if devs else "-"]))
    if not cols:
        return
    labels = ["GPU held per candidate, median", "p95 / max", "of it verify, median",
              "whole candidate (compile + verify + bench), median",
              "per variant, once: oracle check + baseline timing",
              "CPU preparation per variant: steps one after another; as the build runs them",
              "bench vs do_bench within 3%"]
    print("\n| measure | " + " | ".join(c[0] for c in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for i, label in enumerate(labels):
        print("| %s | %s |" % (label, " | ".join(c[1][i] for c in cols)))
    print("| candidates per minute per GPU (GPU phase, all groups) | %s |" % " | ".join(
        ["%.1f" % per_minute] + [""] * (len(cols) - 1)))


def kernelbench_table(results):
    """Speedups of the honest kernels for imported problems over PyTorch eager and torch.compile, and fast_p."""
    kb = [r for r in results if r.get("group") == "kernelbench"]
    if not kb:
        return
    print("\nKernelBench test problems: the honest CUDA kernel against the module on the GPU (TF32 on)")
    print("%-34s %-9s %10s %10s %8s %8s" % ("problem", "verdict", "kernel ms", "eager ms", "x eager", "x comp"))
    for r in kb:
        print("%-34s %-9s %10s %10s %8s %8s" % (
            r["variant"][:34], "ok" if r["pass"] else (r.get("verify") or "?")[:9],
            "%.4f" % r["median_ms"] if r.get("median_ms") else "-", "%.4f" % r["baseline_ms"] if r.get("baseline_ms") else "-",
            "%.2f" % r["speedup"] if r.get("speedup") else "-",
            "%.2f" % r["speedup_compile"] if r.get("speedup_compile") else "-"))
    for key, what in (("speedup", "eager"), ("speedup_compile", "torch.compile")):
        have = [r for r in kb if key == "speedup" or r.get(key)]
        if not have:
            continue
        fast = ["fast_%s %.2f" % (p, sum(1 for r in have if r["pass"] and (r.get(key) or 0) > p) / len(have))
                for p in (0, 1, 1.5, 2)]
        print("vs %s over %d problems: %s" % (what, len(have), ", ".join(fast)))


def evaluation(work, n=6):
    """tests/eval/replay-gpu.sh on this GPU: two held-out specs' first n variants each, replayed student answers,
    configured, built and evaluated as a user would (./configure --eval); its metrics table"""
    t0 = time.time()
    rc, out, _ = sh(["sh", ROOT + "/tests/eval/replay-gpu.sh", os.path.join(work, "eval"), str(n)])
    print("\n# evaluation of replayed answers (tests/eval/replay-gpu.sh, up to %d variants of each spec): exit %d in %.0f s" % (
        n, rc, time.time() - t0))
    print(out[out.find("\nmetric"):] if "\nmetric" in out else out[-3000:], flush=True)
    return rc


def proposals(work):
    """tests/propose/baseline-gpu.sh on this GPU: proposals' baselines checked against their references by one
    ninja (two right, one wrong: held back); its table"""
    t0 = time.time()
    rc, out, _ = sh(["sh", ROOT + "/tests/propose/baseline-gpu.sh", os.path.join(work, "propose")])
    print("\n# proposals' baselines against their references (tests/propose/baseline-gpu.sh): exit %d in %.0f s" % (
        rc, time.time() - t0))
    print(out[out.find("\nninja:"):] if "\nninja:" in out else out[-3000:], flush=True)
    return rc


def main():
    work = sys.argv[1]
    only = sys.argv[sys.argv.index("--only") + 1:] if "--only" in sys.argv else None
    if only and set(only) <= {"eval", "propose"}:  # a user's build end to end, each
        os.makedirs(work, exist_ok=True)
        bad = [g for g in only if (evaluation if g == "eval" else proposals)(work)]
        return 1 if bad else 0
    jobs = int(sys.argv[sys.argv.index("--gpu-jobs") + 1]) if "--gpu-jobs" in sys.argv else 1
    # --concurrent N: N candidates at a time on one GPU slot (the rate is still per GPU)
    at_once = int(sys.argv[sys.argv.index("--concurrent") + 1]) if "--concurrent" in sys.argv else 1
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 1
    deadline = time.time() + float(os.environ.get("RETORT_GPU_SUITE_SECONDS", "1e9"))
    os.makedirs(work, exist_ok=True)
    if not only or "kernelbench" in only or any(o.startswith("kb") for o in only):
        import_kernelbench(work)
    suite = Suite(work)
    suite.gpus = jobs
    todo = [it for it in items() if not only or it[0] in only or it[1] in only or it[5].get("group") in only]
    if not KBDIR:
        todo = [it for it in todo if it[5].get("group") != "kernelbench"]

    # phase 1, CPU only and in parallel: variants prepared, every answer compiled
    # (half the cores: nvcc times stay close to an idle machine's)
    import concurrent.futures
    locks = {}
    guard = threading.Lock()

    def build(it):
        name, kind, vid, text, expect, h = it
        with guard:
            lock = locks.setdefault(vid, threading.Lock())
        with lock:
            suite.variant(vid)
        row = suite.build(name, text, vid)
        row.update(kind=kind, expect=expect, cheat=h.get("cheat"), runtime_expect=h.get("runtime"),
                   group=h.get("group", "demo"), screen_pending=h.get("screen_pending", False))
        if kind == "cheat" and row["compile"] == "screen_failed":
            row["noscreen"] = suite.build(name, text, vid, screen=False)
        return row

    t0 = time.time()
    rows = []
    suite.runtime()
    suite.refrunner()
    with concurrent.futures.ThreadPoolExecutor(max(1, (os.cpu_count() or 2) // 2)) as ex:
        for it, fut in zip(todo, [ex.submit(build, it) for it in todo]):
            try:
                rows.append(fut.result())
            except Exception as e:  # a broken variant is a failure of the suite
                print("%-28s ERROR %s" % (it[0], str(e)[:300]), flush=True)
                suite.failures += 1
    print("# built %d answers in %.0f s" % (len(rows), time.time() - t0), flush=True)
    suite.calibration()

    # phase 2, the GPU: verify, bench, do_bench; one candidate at a time, or
    # with --gpu-jobs N the honest and demo answers N at a time
    results = []
    order = {"cheat": 0, "honest": 1, "demo": 2}
    done = threading.Lock()

    def fail():
        with done:
            suite.failures += 1

    def evaluate(row):
        if time.time() > deadline:
            return fail()
        try:
            suite.run(row)
        except Exception as e:
            print("%-28s ERROR %s" % (row["name"], str(e)[:300]), flush=True)
            return fail()
        where = caught(row)
        row["caught"] = where or "accepted"
        if row["kind"] == "honest" or row["expect"] == "accepted":
            # a speedup above 10x over a plain baseline is flagged for a
            # person to look at (and kept out of train), not a rejection
            # (and one without an oracle at its bench size is kept out of train, not refused)
            other = [r for r in row["review"] if "speedup over the baseline is" not in r and "oracle" not in r]
            row["pass"] = where is None or (where == "bench" and row["bench"] == "measured" and not other)
            if row["pass"] and row["kind"] == "honest" and suite.gpus == 1:
                try:
                    with open(os.path.join(suite.work, "gpu", "gpu0.lock"), "a") as lease:
                        fcntl.flock(lease, fcntl.LOCK_EX)  # another candidate's timed calls are not beside it
                        row["do_bench_ms"] = do_bench(row)
                except Exception as e:
                    row["do_bench_error"] = str(e)[:200]
        elif row.get("screen_pending") and row["expect"].split(" ")[0] not in ORDER:
            # a Triton cheat only the screen refuses, run without one: recorded, not judged
            row["pass"] = True
        else:
            want = row["expect"].split(" ")[0]
            row["pass"] = where is not None and ORDER.index(where) <= ORDER.index(want if want in ORDER else "bench")
            if row.get("noscreen"):
                # the same cheat without the screen: what do the runtime defences do?
                for p in ("/tmp/retort-pwned", "/var/tmp/retort-pwned", "/root/retort-pwned"):
                    if os.path.exists(p):
                        os.remove(p)
                r2 = suite.run(row.pop("noscreen"))
                row["runtime"] = caught(r2) or "accepted"
                row["runtime_rules"] = r2["verify_rules"]
                row["pool_why"] = row.get("pool_why") or r2.get("pool_why")
                if any(str(r2.get(k) or "").startswith("tool failed") for k in ("verify", "bench")):
                    row["runtime"] += " (tool failed)"
                    row["pass"] = False
                # the header's runtime stage, when it names one, must hold too
                rt = (row.get("runtime_expect") or "").split(" ")[0]
                if rt in ORDER and (row["runtime"] not in ORDER or ORDER.index(row["runtime"]) > ORDER.index(rt)):
                    row["runtime"] += " (want %s)" % rt
                    row["pass"] = False
                # and the rule it names ("violation RULE", "a violation with rule RULE")
                rule = re.search(r"violation (?:with rule )?([a-z_]+)", row.get("runtime_expect") or "")
                if rule and rule.group(1) not in r2["verify_rules"]:
                    row["runtime"] += " (want rule %s, got %s)" % (rule.group(1), ",".join(r2["verify_rules"]) or "none")
                    row["pass"] = False
                row["runtime_detail"] = "%s/%s/%s %s" % (r2["compile"], r2["verify"], r2["bench"], "; ".join(r2["review"]))[:200]
                leaked = [p for p in ("/tmp/retort-pwned", "/var/tmp/retort-pwned", "/root/retort-pwned") if os.path.exists(p)]
                if leaked:
                    row["runtime"] += " LEAKED " + ",".join(leaked)
                    row["pass"] = False
                stray = subprocess.run(["sh", "-c", "ps -eo user,stat,comm | awk '$1 != \"root\" && $2 !~ /Z/' | grep -c harness"],
                                       stdout=subprocess.PIPE).stdout.decode().strip()
                if stray not in ("", "0"):
                    row["runtime"] += " STRAY PROCESSES " + stray
                    row["pass"] = False
        if any(str(row.get(k) or "").startswith("tool failed") for k in ("compile", "verify", "bench")):
            row["pass"] = False  # a tool that failed caught nothing: the suite failed, not the answer
        if row.get("pool_why"):
            row["pass"] = False  # the hidden pool went undrawn: the suite did not check what the graph checks
            print("%-28s hidden pool %s" % (row["name"], row["pool_why"]), flush=True)
        if not row["pass"]:
            fail()
        with done:
            results.append(row)
            json.dump(results, open(os.path.join(work, "results.json"), "w"), indent=1)
        dbm = row.get("do_bench_ms")
        print("%-28s %-6s %-8s %-13s %-22s %-12s %-4s %s %s" % (
            row["name"][:28], row["kind"], row["expect"][:8], (row["compile"] or "")[:13], (row["verify"] or "")[:22],
            (row["bench"] or "")[:12], "ok" if row["pass"] else "FAIL",
            "[%.2f+%.2f+%.2f s, GPU held %.2f s]" % (row["compile_s"], row["verify_s"], row["bench_s"], row["gpu_s"]),
            ("median %.4f ms" % row["median_ms"] if row.get("median_ms") else "")
            + (" x%.2f" % row["speedup"] if row.get("speedup") else "")
            + (" SOL %.0f%%" % row["sol"] if row.get("sol") else "")
            + (" do_bench %.4f ms (%+.1f%%)" % (dbm, 100 * (row["median_ms"] / dbm - 1)) if dbm and row.get("median_ms") else "")
            + (" [one draw of its integer inputs %.4f ms]" % row["do_bench_one_ms"] if row.get("do_bench_one_ms") else "")
            + (" kept %d/%d" % (row["checks"]["passed"], row["checks"]["kept"]) if row.get("checks") else "")
            + (" oracle early" if (row.get("checks") or {}).get("oracle_early") else "")
            + (" parent%+.3f+-%.3f ms" % (row["parent_excess_ms"], row["parent_noise_ms"])
               if row.get("parent_excess_ms") is not None else "")
            + (" | no screen: %s" % row["runtime"] if row.get("runtime") else "")
            + (" | %s" % row["verify"][:60] if row["kind"] != "honest" and row["caught"] == "verify" else "")
            + (" | review: %s" % "; ".join(row["review"])[:120] if row.get("review") else "")), flush=True)

    for row in [r for r in rows if r["kind"] != "cheat"]:
        for k in range(1, repeat):  # --repeat: more runs of the same build
            shutil.copytree(row["run"], "%s.%d" % (row["run"], k), dirs_exist_ok=True)
            rows.append(dict(row, run="%s.%d" % (row["run"], k), name="%s#%d" % (row["name"], k)))
    rows = sorted(rows, key=lambda r: order[r["kind"]])
    for row in rows:
        if row["kind"] == "cheat":
            evaluate(row)
    for vid in sorted({r["variant"] for r in rows if r["kind"] != "cheat"}):
        try:
            suite.baseline(vid)  # once per variant, before the timed runs
        except Exception as e:
            print("%-28s ERROR %s" % (vid, str(e)[:300]), flush=True)
    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(jobs * at_once) as ex:
        list(ex.map(evaluate, [r for r in rows if r["kind"] != "cheat"]))
    timed = [r for r in results if r["kind"] != "cheat"]
    gpu_wall = time.time() - t0
    if len(results) < len(rows):
        print("# time is up, or errors: %d answers not run" % (len(rows) - len(results)), flush=True)

    honest = [r for r in results if r["kind"] == "honest" and r["pass"]]
    if honest:
        e2e = [r["compile_s"] + r["verify_s"] + r["bench_s"] for r in honest]
        gpu = [r["verify_s"] + r["bench_s"] for r in honest]
        held = [r["gpu_s"] for r in honest]
        comp = [r["compile_s"] for r in honest]
        print("\nper candidate (median of %d honest kernels): compile %.2f s, verify+bench %.2f s (GPU held %.2f s, "
              "max %.2f s), total %.2f s (min %.2f s, max %.2f s)" % (
                  len(honest), statistics.median(comp), statistics.median(gpu), statistics.median(held), max(held),
                  statistics.median(e2e), min(e2e), max(e2e)))
        phases = [r["bench_phases_s"] for r in honest if r.get("bench_phases_s")]
        if phases:
            print("bench, median seconds: " + ", ".join("%s %.2f" % (k, statistics.median(p[k] for p in phases))
                                                      for k in ("start", "setup", "calls", "checks"))
                  + "; verify: GPU held %.2f s, of it harness start %.2f s" % (
                      statistics.median(r["verify_gpu_s"] or 0 for r in honest),
                      statistics.median(r["verify_start_s"] or 0 for r in honest)))
        gaps = [r["bench_gap_s"] for r in honest if r.get("bench_gap_s") is not None]
        if gaps:
            print("bench's lease beyond the handover and its cases (NVML's start, between cases): median %.3f s, "
                  "max %.3f s" % (statistics.median(gaps), max(gaps)))
        vph = [r["verify_phases_s"] for r in honest if r.get("verify_phases_s")]
        if vph:
            print("verify, median seconds: " + ", ".join("%s %.2f" % (k, statistics.median(p[k] for p in vph))
                                                        for k in ("cases", "calls", "fetches", "comparisons", "end")))
        print("\nwhere the GPU time went, seconds (verify: start, cases, calls+fetches, comparisons, end; "
              "bench: start, setup, calls, checks = fetch (of it export, import) + end + oracle start, case, calls + compare)")
        print("%-30s %5s %5s %5s %5s %5s %5s | %5s %5s %5s %5s %5s : %5s %5s %5s %5s %5s %5s %5s %5s" % (
            "kernel", "v.gpu", "start", "cases", "calls", "cmp", "end", "b.gpu", "start", "setup", "calls", "checks",
            "fetch", "exp", "imp", "end", "o.st", "o.case", "o.call", "cmp"))
        for r in honest:
            v, b, c = r.get("verify_phases_s") or {}, r.get("bench_phases_s") or {}, r.get("bench_check_s") or {}
            f = lambda d, k: d.get(k, 0) or 0
            print("%-30s %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f | %5.2f %5.2f %5.2f %5.2f %5.2f : %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f %5.2f" % (
                r["name"][:30], r.get("verify_gpu_s") or 0, r.get("verify_start_s") or 0, f(v, "cases"),
                f(v, "calls") + f(v, "fetches"), f(v, "comparisons"), f(v, "end"), r.get("bench_gpu_s") or 0,
                f(b, "start"), f(b, "setup"), f(b, "calls"), f(b, "checks"), f(c, "fetch"), f(c, "export"), f(c, "import"), f(c, "end"),
                f(c, "oracle_start"), f(c, "oracle_case"), f(c, "oracle_calls"), f(c, "compare")), flush=True)
        held_sorted = sorted(held)
        print("GPU held per candidate: median %.2f s, p95 %.2f s, max %.2f s (%d kernels)" % (
            statistics.median(held), held_sorted[min(len(held) - 1, int(0.95 * len(held)))], max(held), len(held)))
        if suite.oracle_s:
            print("per variant, once: oracle check + baseline timing median %.2f s (max %.2f s); CPU preparation "
                  "(harness, reference, expected outputs, baseline build) median %.2f s (max %.2f s)" % (
                      statistics.median(suite.oracle_s.values()), max(suite.oracle_s.values()),
                      statistics.median(suite.prep_s.values()), max(suite.prep_s.values())))
            print(prep_steps(suite.prep_steps.values()))
        print("verify's harness started: %s" % ", ".join("%s %d" % kv for kv in sorted(collections.Counter(
            r.get("harness_start") or "not recorded" for r in honest).items())))
        via = collections.Counter((r.get("checks") or {}).get("kept_via", "not recorded") for r in honest)
        print("kept calls read by the oracle via: %s" % ", ".join("%s %d" % kv for kv in sorted(via.items())))
        # verify's bench-size runs (bench_checked) and bench's kept calls (checks.oracle "none: ...")
        unchecked = [r["name"] for r in honest if r.get("bench_checked") is not True
                     or str((r.get("checks") or {}).get("oracle", "")).startswith("none")]
        print("honest kernels whose bench size or timed calls had no oracle: %s" % (", ".join(unchecked) or "none"))
        devs = [100 * (r["median_ms"] / r["do_bench_ms"] - 1) for r in honest if r.get("do_bench_ms") and r.get("median_ms")]
        if devs:
            print("bench median vs triton do_bench median: %d kernels, %d within 3%%, max |dev| %.1f%%, median |dev| %.1f%%"
                  % (len(devs), sum(abs(d) <= 3 for d in devs), max(abs(d) for d in devs),
                     statistics.median(abs(d) for d in devs)))
            for r in honest:
                if r.get("do_bench_ms") and r.get("median_ms") and (r.get("spaced") or abs(r["median_ms"] / r["do_bench_ms"] - 1) > 0.03):
                    print(outside(r))
    # only answers that reached the GPU say how they were isolated
    ran = [r for r in results if r.get("isolation") or r.get("lockdown")]
    print("isolation: %s; lockdown: %s" % (" | ".join(sorted({r.get("isolation") or "?" for r in ran})) or "none ran",
                                           " | ".join(sorted({r.get("lockdown") or "?" for r in ran})) or "none ran"))
    print("GPU phase: %d honest and demo candidates in %.1f s with %d GPU job(s)%s: %.1f per minute, %.1f per GPU "
          "(after each variant's oracle and baseline timing)" % (
              len(timed), gpu_wall, jobs, ", %d at a time on each" % at_once if at_once > 1 else "",
              60 * len(timed) / max(gpu_wall, 1e-9), 60 * len(timed) / max(gpu_wall, 1e-9) / jobs))
    kernelbench_table(results)
    cost_table(results, suite, 60 * len(timed) / max(gpu_wall, 1e-9) / jobs)
    tri = [r for r in results if r.get("group") == "triton"]
    if tri:
        print("\nTriton: %d honest accepted of %d; %d cheats rejected of %d%s" % (
            sum(r["pass"] for r in tri if r["kind"] == "honest"), sum(r["kind"] == "honest" for r in tri),
            sum(r["caught"] != "accepted" for r in tri if r["kind"] == "cheat"), sum(r["kind"] == "cheat" for r in tri),
            "; without a Triton screen in this build: " + ", ".join("%s %s" % (r["name"][7:], r["caught"])
                                                                     for r in tri if r.get("screen_pending"))
            if any(r.get("screen_pending") for r in tri) else ""))
        print("Triton launch check: %s" % (" | ".join("%s (%d)" % (k, v) for k, v in sorted(collections.Counter(
            r["launch_check"] for r in tri if r.get("launch_check")).items())) or "none ran"))
        th = [r for r in tri if r["kind"] == "honest" and r["pass"]]
        warm = [r.get("harness_warm") or "" for r in tri if r["kind"] == "honest"]
        print("Triton kernels compiled before the lease: %d of %d honest, %d of them with no CUDA context made" % (
            sum(bool(re.match(r"[1-9][0-9]* kernels? compiled before the lease", w)) for w in warm), len(warm),
            sum(w.endswith("; no CUDA context") for w in warm)))
        if th:
            print("Triton per candidate (median of %d): verify+bench %.2f s, GPU held %.2f s" % (
                len(th), statistics.median(r["verify_s"] + r["bench_s"] for r in th), statistics.median(r["gpu_s"] for r in th)))
        for r in th:  # where a slow verify's lease went: its longest calls, and what warm did before it
            if (r.get("verify_gpu_s") or 0) > 1.0:
                n, sec, top = r.get("first_calls") or (0, 0.0, [])
                lock = r.get("lockdown_s")
                print("  %s: verify held %.2f s; its longest judged calls: %s; first calls (before the lockdown): "
                      "%d, %.2f s, longest %s; the lockdown %s; warm: %s" % (
                          r["name"], r["verify_gpu_s"], "; ".join("%s (%s) %.0f ms" % c for c in r["verify_slowest"]),
                          n, sec, "; ".join("%s %.0f ms" % c for c in top) or "none",
                          "%.2f s" % lock if lock is not None else "not recorded", r.get("harness_warm") or "none"))
    cheats = [r for r in results if r["kind"] == "cheat"]
    demo = [r for r in results if r["kind"] == "demo"]
    print("cheats rejected: %d of %d; honest accepted: %d of %d; demo answers as expected: %d of %d" % (
        sum(r["caught"] != "accepted" for r in cheats), len(cheats), len(honest),
        sum(r["kind"] == "honest" for r in results), sum(r["pass"] for r in demo), len(demo)))
    return 1 if suite.failures else 0


if __name__ == "__main__":
    sys.exit(main())
