#!/bin/sh
# t0752: a Triton candidate's kernels compiled before its GPU lease
# (pyharness.py's warm), on the CPU, with torch and Triton from the test
# environment out/refenv-kernelbench (skipped visibly without it) and a
# Triton driver that names an sm_90 target and nothing else
# (tests/lib/warm.py): each case's specialisations compiled on meta
# tensors, each one's launcher made, every autotuning config compiled and
# none timed or chosen,
# the host code's allocations on the meta device, a failing case ending
# the pass, a launch during it made the first call's refusal, and Triton
# and the runtime put back as they were.
. "$(dirname "$0")/lib/lib.sh"

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tests/kernelbench/requirements.txt out/refenv-kernelbench 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no Python environment with torch and Triton (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
HONEST=$RETORT_ROOT/tests/kernels/triton/honest
mkdir -p "$T/p" && cd "$T/p" && "$RETORT_BIN/prepare" --runtime --fake "$RETORT_ROOT/tests/unit/fakedevice.c" \
	--src "$RETORT_ROOT/src" -o out/runtime/harness.o >/dev/null || { echo "Bail out! prepare --runtime failed"; exit 1; }
# spec ARGS CASE...: the pyspec line of a task with ARGS ("x:in:f32 n:size:i64 ...") and cases
# ("SIZES/DIMS/SCALARS": "4096/4096,4096/" is sizes [4096], dims [[4096], [4096]], no scalars)
spec() {
	python3 - "$@" <<-\PY
	import json, sys
	args = [dict(zip(("name", "kind", "dtype"), a.split(":"))) for a in sys.argv[1].split()]
	cases = []
	for c in sys.argv[2:]:
	    sizes, dims, scalars = c.split("/")
	    cases.append({"sizes": [int(x) for x in sizes.split(",") if x],
	                  "dims": [[int(x) for x in d.split("x")] for d in dims.split(",") if d],
	                  "scalars": [float(x) for x in scalars.split(",") if x]})
	print(json.dumps({"args": args, "cases": cases}))
	PY
}
# warm CANDIDATE SPEC [launched]: warm.json
warm() { "$PY" "$RETORT_ROOT/tests/lib/warm.py" out/runtime/py/harness.py "$@" >warm.json 2>warm.err; }

test_expect_success 'each case'"'"'s kernel compiled on meta tensors, once a specialisation; no launch allowed, Triton put back' '
	cd p && spec "x:in:f32 y:out:f32 rows:size:i64 cols:size:i64" 256,4096/256x4096,256x4096/ \
		37,1000/37x1000,37x1000/ 512,4096/512x4096,512x4096/ 256,4096/256x4096,256x4096/ >s.json &&
	warm "$HONEST/softmax.f32.cols4096.py" s.json &&
	test "$(field warm.json "d[\"compiled\"]")" = "{'"'"'softmax_kernel'"'"': 2}" &&
	field warm.json "d[\"note\"]" | grep -q "^2 kernels compiled before the lease, 2 launchers built, for 3 of 3 cases, in [0-9.]* s; no CUDA context$" &&
	test "$(field warm.json "d[\"launchers\"]")" = "['"'"'softmax_kernel'"'"', '"'"'softmax_kernel'"'"']" &&
	test "$(field warm.json "d[\"calls\"]")" = "[\"launchallow '"'"''"'"'\", '"'"'launchbegin'"'"', '"'"'launchend'"'"', '"'"'launchviolation'"'"']" &&
	test "$(field warm.json "d[\"refusal\"], d[\"restored\"]")" = "(None, True)"
'
test_expect_success LONG 'an autotuned kernel: every config compiled for each key, none timed, none chosen' '
	cd p && spec "x:in:f32 y:out:f32 alpha:scalar:f32 n:size:i64" 4194304/4194304,4194304/0.1 1001/1001,1001/0.25 >s.json &&
	warm "$HONEST/leaky_relu.f32.n268435459.py" s.json &&
	test "$(field warm.json "d[\"compiled\"][\"leaky_kernel\"], d[\"autotuned\"], d[\"restored\"]")" = "(8, [0], True)" &&
	field warm.json "d[\"note\"]" | grep -q "^8 kernels compiled before the lease, 8 launchers built, for 2 of 2 cases"
'
cat >alloc.py <<'PY'
import triton
import triton.language as tl
import torch


@triton.jit
def partial_kernel(x_ptr, p_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(p_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0), axis=0))


@triton.jit
def total_kernel(p_ptr, s_ptr, m, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(s_ptr, tl.sum(tl.load(p_ptr + offs, mask=offs < m, other=0.0), axis=0))


def total(x, s, n):
    if n > 100000:
        raise ValueError("too long")
    m = triton.cdiv(n, 1024)
    p = torch.empty(m, device="cuda", dtype=torch.float32, pin_memory=True)
    partial_kernel[(m,)](x, p, n, BLOCK=1024)
    total_kernel[(1,)](p, s, m, BLOCK=triton.next_power_of_2(m))
PY
test_expect_success LONG 'the host code'"'"'s device allocations on the meta device; a case whose call fails ends the pass' '
	cd p && spec "x:in:f32 s:out:f32 n:size:i64" 5000/5000,1/ 200000/200000,1/ 9000/9000,1/ >s.json &&
	warm alloc.py s.json &&
	test "$(field warm.json "sorted(d[\"compiled\"].items())")" = \
		"[('"'"'partial_kernel'"'"', 1), ('"'"'total_kernel'"'"', 1)]" &&
	field warm.json "d[\"note\"]" | grep -q "^2 kernels compiled before the lease, 2 launchers built, for 1 of 3 cases, .*; stopped at a call that failed (ValueError: too long); no CUDA context$" &&
	test "$(field warm.json "d[\"restored\"]")" = True
'
cat >relaunch.py <<'PY'
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 2.0 * tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def scale(x, y, n):
    k = scale_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    if n == 64:  # the kernel the JIT keeps, from its cache
        k = [c for caches in scale_kernel.device_caches.values() for c in caches[0].values()][0]
    k[(1, 1, 1)](x, y, n)
PY
test_expect_success 'no compiled kernel can be launched or loaded during the pass: not handed back, nor loaded from the cache' '
	cd p && spec "x:in:f32 y:out:f32 n:size:i64" 64/64,64/ >s.json && warm relaunch.py s.json &&
	field warm.json "d[\"note\"]" | grep -q "^1 kernel compiled before the lease, 1 launcher built, for 0 of 1 cases, .*; stopped at a call that failed (RuntimeError: no kernel is loaded before the GPU lease); no CUDA context$" &&
	spec "x:in:f32 y:out:f32 n:size:i64" 100/100,100/ >s.json && warm relaunch.py s.json &&
	field warm.json "d[\"note\"]" | grep -q "stopped at a call that failed (TypeError: .NoneType. object is not subscriptable)" &&
	test "$(field warm.json "d[\"restored\"]")" = True
'
test_expect_success 'the pass stops when its time (warm_seconds, half the step'"'"'s) is spent' '
	cd p && spec "x:in:f32 s:out:f32 n:size:i64" 5000/5000,1/ | sed "s/}\$/, \"warm_seconds\": 0}/" >s.json &&
	warm alloc.py s.json &&
	field warm.json "d[\"note\"]" | grep -q "^0 kernels compiled before the lease, 0 launchers built, for 0 of 1 cases, in [0-9.]* s; stopped when its 0 s were spent; no CUDA context$"
'
test_expect_success LONG 'a launcher that cannot be made: the note says so, no refusal (the first call in the lease makes it)' '
	cd p && spec "x:in:f32 s:out:f32 n:size:i64" 5000/5000,1/ >s.json &&
	WARM_LAUNCHER_FAILS=1 warm alloc.py s.json &&
	field warm.json "d[\"note\"]" | grep -q "^2 kernels compiled before the lease, 0 built, then a launcher failed (OSError: no C compiler), for 1 of 1 cases, .*; no CUDA context$" &&
	test "$(field warm.json "d[\"refusal\"], d[\"launchers\"], d[\"restored\"]")" = "(None, [], True)"
'
test_expect_success LONG 'a launch during the pass: the note says so, and the first call is refused for it (rule launches)' '
	cd p && spec "x:in:f32 s:out:f32 n:size:i64" 5000/5000,1/ >s.json &&
	warm alloc.py s.json launched &&
	field warm.json "d[\"note\"]" | grep -q "; it launched a kernel$" &&
	test "$(field warm.json "d[\"refusal\"]")" = \
		"['"'"'launches'"'"', \"the candidate launched a kernel before its GPU lease: kernel '"'"'stray'"'"'\"]"
'
# the harness itself (main), gated as verify starts it before the lease,
# the runtime the test build's (the fake device) and no GPU driver for
# Triton: the module loads and warm runs before the gate, which answers
# "wait" with what warm did (here, that Triton found no driver)
test_expect_success 'gated, the harness loads a Triton candidate and runs warm before its gate, and says so at "wait"' '
	cd p && spec "x:in:f32 y:out:f32 n:size:i64" 64/64,64/ | sed "s/}\$/, \"gate\": 1, \"warm_seconds\": 10}/" >s.json &&
	printf "wait\nquit\n" >cmds && head -c 4096 /dev/zero >shm.bin &&
	"$PY" -I -B -c "$(cat out/runtime/py/harness.py)" "$(cat s.json)" out/runtime/py/harness.so relaunch.py scale 0 \
		3<cmds 4>reply 5<>shm.bin 2>err &&
	test "$(wc -l <reply)" = 1 &&
	grep -q "^waiting no kernels compiled before the lease (RuntimeError: .*); no CUDA context$" reply
'
test_expect_success LONG 'the guard'"'"'s dispatch mode runs a torch operator without importing torch._dynamo' '
	cd p && "$PY" - out/runtime/py/harness.py >dynamo.out <<-\PY &&
	import importlib.util, sys
	spec = importlib.util.spec_from_file_location("pyharness", sys.argv[1])
	h = importlib.util.module_from_spec(spec)
	spec.loader.exec_module(h)
	class Runtime:
	    def harnessrefuse(self, rule, detail):
	        print("refused", rule, detail)
	checked = h.guard(Runtime())
	print("before", "torch._dynamo" in sys.modules)
	import torch
	with checked():
	    torch.empty(4).zero_()
	print("used", "torch._dynamo" in sys.modules)
	PY
	printf "before False\nused False\n" | cmp - dynamo.out
'
test_done
