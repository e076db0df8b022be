#!/bin/sh
# t0530: Python entry points (a Triton candidate's cand.py, a spec's Python
# baseline) through src/runtime/pyharness.py on the CPU: the runtime as a
# shared object on the fake device, the harness protocol exactly as for C
# candidates (inputs drawn by the harness, poison, canaries, inputs hashed,
# held copies, the oracle's compare), with NumPy arrays over the fake
# device's host memory where the GPU gives torch tensors. Each of
# tests/fake/py/*.py names the stage and verdict it must get. No GPU needed.
. "$(dirname "$0")/lib/lib.sh"

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tests/python/requirements.txt out/refenv-tests 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no Python environment with NumPy (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
ENV=${PY%/bin/python}

cd "$T" || exit 1
fake_gpu
PYF=$FAKE/py
echo '{"gpu": null}' >calibration.json

# pyvariant ID [BASELINE]: fake_variant's steps, with tests/fake/py/BASELINE
# (default baseline.py) as the spec's Python baseline (prepare --baseline
# writes baseline.py)
pyvariant() {
	d=out/v/$1 bl=$PYF/${2:-baseline.py}
	{ echo "baseline:"; echo "  python: |"; sed "s/^/    /" "$bl"; } >>tasks/$1.yaml &&
	"$RETORT_BIN/gen" --split tasks/$1.yaml --all --out out --tasks-dir tasks >/dev/null &&
	"$RETORT_BIN/prepare" --harness --object out/runtime/harness.o -o $d/harness $d/task.json &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o $d/reference $d/task.json &&
	"$RETORT_BIN/verify" --expected --cache-dir cache -o $d/expected.json $d/task.json $d/reference &&
	"$RETORT_BIN/prepare" --baseline -o $d/baseline.py $d/task.json && cmp $d/baseline.py "$bl" &&
	"$RETORT_BIN/verify" --baseline --lock-dir gpu --gpu-python "$ENV" -o $d/oracle.json $d/task.json $d/harness \
		$d/expected.json $d/baseline.py &&
	"$RETORT_BIN/bench" --baseline --lock-dir gpu --gpu-python "$ENV" -o $d/baseline.json $d/task.json $d/harness \
		$d/oracle.json $d/baseline.py
}

# candidate NAME VARIANT: tests/fake/py/NAME.py as a Triton candidate's
# cand.py, through verify (and bench when verify found it correct)
candidate() {
	d=out/v/$2 r=runs/$1.$2
	mkdir -p $r && cp "$PYF/$1.py" $r/cand.py && echo '{"status": "ok", "lang": "triton"}' >$r/compile.json &&
	"$RETORT_BIN/verify" --timeout 5 --lock-dir gpu --cache-dir cache --gpu-python "$ENV" -o $r/verify.json $d/task.json \
		$r/compile.json $d/harness $d/expected.json $d/oracle.json &&
	"$RETORT_BIN/bench" --timeout 5 --lock-dir gpu --gpu-python "$ENV" -o $r/bench.json $d/task.json $r/verify.json \
		$r/compile.json $d/harness calibration.json $d/baseline.json
}

# expect NAME VARIANT: the run's stage and verdict as NAME.py's header says
expect() { fake_expect runs/$1.$2 "$PYF/$1.py"; }

test_expect_success 'prepare --runtime also gives the runtime as a shared object and pyharness.py beside it' '
	fake_runtime && test -s out/runtime/py/harness.so &&
	tail -n +4 out/runtime/py/harness.py | cmp - "$RETORT_ROOT/src/runtime/pyharness.py" &&
	nm -D --defined-only out/runtime/py/harness.so | grep -q " T harnessmain$"
'
test_expect_success 'the Python harness reads the dtypes and argument kinds of the C tables, written above it' '
	fake_runtime && sed -n 2,3p out/runtime/py/harness.py >tables &&
	grep -q "^DTYPES = {\"f64\": (8, 1), \"f32\": (4, 1), \"f16\": (2, 1), \"bf16\": (2, 1), " tables &&
	grep -q "^KINDS = {\"in\": 0, \"out\": 1, \"inout\": 2, \"size\": 3, \"scalar\": 4}$" tables &&
	python3 - out/runtime/py/harness.py <<-\PY
	import sys
	text = open(sys.argv[1]).read()
	scope = {}
	exec(text[:text.index("INTEGER = ")] + text[text.index("INTEGER = "):].split("\n", 1)[0], scope)
	want = {"f64": ("<f8", None), "f32": ("<f4", None), "f16": ("<f2", None), "bf16": ("<i2", "bfloat16"),
	        "f8e4m3": ("|u1", "float8_e4m3fn"), "f8e5m2": ("|u1", "float8_e5m2"), "i8": ("|i1", None),
	        "u8": ("|u1", None), "i16": ("<i2", None), "i32": ("<i4", None), "i64": ("<i8", None)}
	assert scope["STORAGE"] == want, scope["STORAGE"]
	assert scope["INTEGER"] == {"i8", "u8", "i16", "i32", "i64"}, scope["INTEGER"]
	assert scope["TENSOR"] == {"in": 0, "out": 1, "inout": 2}, scope["TENSOR"]
	PY
'
test_expect_success 'a Python baseline: sound as the oracle, timed like the C one' '
	pyvariant fakescale 2>err.fakescale &&
	test "$(field out/v/fakescale/oracle.json "d[\"verdict\"]")" = correct &&
	test "$(field out/v/fakescale/baseline.json "d[\"oracle\"][\"status\"]")" = ok &&
	test "$(field out/v/fakescale/baseline.json "d[\"cases\"][0][\"baseline\"][\"count\"]")" -ge 20 &&
	test "$(field out/v/fakescale/baseline.json "d[\"cases\"][0][\"compiled\"][\"count\"]")" -ge 20 &&
	test "$(field out/v/fakescale/baseline.json "d[\"tf32\"]")" = True
'
test_expect_success LONG 'a wrong baseline is no oracle, and verify --baseline says so on stderr (exit 0)' '
	sed "s/fakescale/fakewrongbl/g" tasks/fakescale.yaml | sed "/^baseline:/,\$d" >tasks/fakewrongbl.yaml &&
	pyvariant fakewrongbl baseline-wrong.py 2>err &&
	test "$(field out/v/fakewrongbl/oracle.json "d[\"verdict\"]")" = mismatch &&
	grep -q "^verify: fakewrongbl: the spec.s baseline failed its checks (mismatch), so it is no oracle: .*Wrong results" err &&
	! grep -q "no oracle" err.fakescale
'
test_expect_success 'an honest Python candidate: correct at every size, timed, every kept call checked, locked down after the first calls' '
	candidate ok fakescale && expect ok fakescale &&
	np=$(field runs/ok.fakescale/verify.json "d[\"hidden_pool\"][\"drawn\"]") && test "$np" -ge 16 &&
	test "$(field runs/ok.fakescale/verify.json "len(d[\"runs\"])")" = $(($(field out/v/fakescale/expected.json "len(d[\"runs\"])") + np)) &&
	test "$(field runs/ok.fakescale/verify.json "len([r for r in d[\"runs\"] if r[\"pass\"]])")" -ge 23 &&
	test "$(field runs/ok.fakescale/verify.json "d[\"lockdown\"]")" = seccomp &&
	test "$(field runs/ok.fakescale/verify.json "len(d[\"first_calls\"]) == len({r[\"case\"] for r in d[\"runs\"]}) and \
		all(c[\"host_ms\"] >= 0 and c[\"wall_ms\"] > 0 for c in d[\"first_calls\"]) and \
		0 < d[\"lockdown_seconds\"] < d[\"seconds\"]")" = True &&
	test "$(field runs/ok.fakescale/verify.json "d[\"launch_check\"]")" = "none: not armed (trusted code, or no CUPTI was found)" &&
	test "$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" = \
		"$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	test "$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"kept\"]")" -ge 4 &&
	field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"speedup\"], d[\"cases\"][0][\"speedup_compile\"]"
'
# the Python harnesses (fake_early, fake_waitharnesses)
HARNESS_LIKE="written by prepare --runtime"
# (a one-GPU host with CPUs to spare: this machine may have two)
test_expect_success 'a Python candidate'"'"'s harness starts before the lease, gated; (no Triton here, so no warm pass) its module loads only in the lease' '
	mkdir -p gpu && fake_early slowimport fakescale && expect slowimport fakescale &&
	test "$(field runs/slowimport.fakescale/verify.json "d[\"harness_start\"]")" = "before the lease, its CUDA context too (on deck)" &&
	field runs/slowimport.fakescale/verify.json "d[\"start_seconds\"] >= 1.9" | grep -q True
'
test_expect_success LONG 'one that ends while it waits for the lease is not the candidate'"'"'s fault: another starts in the lease' '
	fake_early ok fakescale kill && expect ok fakescale &&
	field runs/ok.fakescale/verify.json "d[\"harness_start\"]" | grep -q "^in the lease (the one started before it had ended)$"
'
test_expect_success 'bench --baseline: a Python baseline'"'"'s eager and compiled harnesses load before the lease, gated' '
	d=out/v/fakescale && fake_holdlock &&
	{ RETORT_SPARE_CPUS=1 "$RETORT_BIN/bench" --baseline --lock-dir gpu --gpu-python "$ENV" -o $d/early.json \
		$d/task.json $d/harness $d/oracle.json $d/baseline.py & } && b=$! &&
	fake_waitharnesses $b 2; ok=$?; fake_release; wait $b && test $ok = 0 &&
	test "$(field $d/early.json "d[\"harness_start\"]")" = "before the lease" &&
	test "$(field $d/early.json "d[\"cases\"][0][\"baseline\"][\"count\"]")" -ge 20 &&
	test "$(field $d/early.json "d[\"cases\"][0][\"compiled\"][\"count\"]")" -ge 20
'
test_expect_success LONG 'the bench size only the oracle checks: the Python oracle compares on the device' '
	pyvariant fakeheavy && test "$(field out/v/fakeheavy/oracle.json "d[\"verdict\"]")" = correct &&
	candidate ok fakeheavy && expect ok fakeheavy &&
	test "$(field runs/ok.fakeheavy/verify.json "d[\"runs\"][-1][\"oracle\"]")" = gpu
'
test_expect_success LONG 'the baseline as the oracle runs in full f32 (open), timed in TF32 (open-tf32)' '
	sed "s/fakeheavy/fakemodes/g" tasks/fakeheavy.yaml | sed "/^baseline:/,\$d" >tasks/fakemodes.yaml &&
	pyvariant fakemodes baseline-modes.py &&
	test "$(field out/v/fakemodes/oracle.json "d[\"verdict\"]")" = correct &&
	candidate ok fakemodes && expect ok fakemodes &&
	test "$(field runs/ok.fakemodes/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" -ge 1
'
test_expect_success LONG 'a Python oracle loads while the candidate'"'"'s calls run (gated), and still checks every kept call' '
	sed "s/fakeheavy/fakeslow/g" tasks/fakeheavy.yaml | sed "/^baseline:/,\$d" >tasks/fakeslow.yaml &&
	pyvariant fakeslow baseline-slow.py &&
	candidate ok fakeslow && expect ok fakeslow &&
	b=runs/ok.fakeslow/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"passed\"]")" = "$(field $b "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	field $b "d[\"cases\"][0][\"check_seconds\"][\"oracle_start\"]" >start &&
	early=$(field $b "d[\"cases\"][0][\"checks\"][\"oracle_early\"]") &&
	echo "# oracle loaded beside the calls: $early (4 CPUs or more, load below their number less 2); its start after them: $(cat start) s" &&
	if test "$early" = True; then awk "{ exit !(\$1 < 1.9) }" start; else awk "{ exit !(\$1 >= 1.5) }" start; fi
'
# sleeping NUMBER: how many "sleep NUMBER" processes run on this machine
sleeping() { pgrep -f -x "sleep $1" | wc -l; }
if test "$(id -u)" = 0; then
	test_expect_success LONG 'as root the spec'"'"'s baseline runs as a uid of its own (from 2000000000), out of the candidates'"'"' reach' '
		sed "s/fakeheavy/fakeuid/g" tasks/fakeheavy.yaml | sed "/^baseline:/,\$d" >tasks/fakeuid.yaml &&
		pyvariant fakeuid baseline-uid.py &&
		test "$(field out/v/fakeuid/oracle.json "d[\"verdict\"]")" = correct
	'
else
	test_skip 'the baseline'"'"'s uid of its own: not root here (bubblewrap maps the uids)'
fi
test_expect_success LONG 'what a candidate leaves behind in a session of its own is ended with it' '
	test "$(sleeping 7391)" = 0 &&
	candidate escape fakescale && expect escape fakescale && test "$(sleeping 7391)" = 0
'
if test "$(id -u)" = 0; then
	test_expect_success LONG 'and where no PID namespace ends it (a root jail on a host that refuses one): swept' '
		RETORT_NSLEVEL=1 candidate escape fakescale && expect escape fakescale &&
		field runs/escape.fakescale/verify.json "d[\"isolation\"]" | grep -q "orphans swept" &&
		test "$(sleeping 7391)" = 0
	'
else
	test_skip 'the sweep without a PID namespace: not root here (bubblewrap gives every jail one)'
fi
pkill -f -x "sleep 7391"
for c in wrong partial modify cache raise noentry badsyntax lockdown-slot; do
	test_expect_success "$(sed -n 2p "$PYF/$c.py" | sed 's|^# ||'): caught" "candidate $c fakescale; expect $c fakescale"
done
for c in lockdown-open lockdown-thread lockdown-early lockdown-refused; do
	test_expect_success LONG "$(sed -n 2p "$PYF/$c.py" | sed 's|^# ||'): caught" "candidate $c fakescale; expect $c fakescale"
done
test_expect_success 'an exception is the teacher'"'"'s feedback: its traceback' '
	field runs/raise.fakescale/verify.json "d[\"feedback\"]" | grep -q "ValueError: block size 128 does not divide n"
'
test_expect_success 'the lockdown names what it refused; the runtime'"'"'s slots are bound at load and read-only' '
	field runs/lockdown-slot.fakescale/verify.json "d[\"feedback\"]" | grep -q "rule lockdown.*mprotect" &&
	readelf -d out/runtime/py/harness.so | grep -q "BIND_NOW" && readelf -lW out/runtime/py/harness.so | grep -q GNU_RELRO
'
test_expect_success LONG 'and names the file opened, the thread started (its stack made writable)' '
	field runs/lockdown-open.fakescale/verify.json "d[\"feedback\"]" | grep -q "rule lockdown.*open" &&
	field runs/lockdown-thread.fakescale/verify.json "d[\"feedback\"]" | grep -q "rule lockdown.*\\(clone\\|mprotect\\)"
'
test_expect_success LONG 'prepare --runtime --gpu-python: the environment'"'"'s imports compiled for the harness'"'"'s jail, which reads them' '
	fake_runtime --gpu-python "$ENV" &&
	pyc=out/runtime/py/pycache &&
	ls $pyc/venv/lib/python*/site-packages/numpy/__init__.*.pyc &&
	json=$($PY -c "import json; print(json.__file__)") &&
	ls "$pyc$(dirname "$json")"/__init__.*.pyc &&
	candidate ok fakescale && expect ok fakescale &&
	# a planted bytecode for json, valid for its source: a harness that reads the cache runs it
	f=$(ls "$pyc$(dirname "$json")"/__init__.*.pyc) && cp "$f" json.pyc.keep && chmod u+w "$f" &&
	$PY -c "import importlib._bootstrap_external as b, os, sys
st = os.stat(sys.argv[1])
code = compile(\"raise ImportError(\x27planted in the pycache\x27)\", sys.argv[1], \"exec\")
open(sys.argv[2], \"wb\").write(b._code_to_timestamp_pyc(code, st.st_mtime, st.st_size))" "$json" "$f" &&
	cp $pyc/env env.keep && echo /another/environment >$pyc/env &&
	candidate ok fakescale && expect ok fakescale &&
	cp env.keep $pyc/env && candidate ok fakescale &&
	test "$(field runs/ok.fakescale/verify.json "d[\"verdict\"]")" != correct &&
	grep -rq "planted in the pycache" runs/ok.fakescale/verify.json &&
	cp json.pyc.keep "$f" && candidate ok fakescale && expect ok fakescale &&
	test "$(stat -c %U "$f")" = "$(id -un)" && test "$(stat -c %a "$f")" = 644
'
test_expect_success LONG 'prepare --runtime without --gpu-python leaves no bytecode of another environment; a bad one is refused (exit 2)' '
	fake_runtime && test ! -e out/runtime/py/pycache &&
	expect_fail 2 "no bin/python in" fake_runtime --gpu-python "$T/none" &&
	expect_fail 2 "goes with --runtime" "$RETORT_BIN/prepare" --harness --gpu-python "$ENV" -o x x.json
'
test_expect_success 'a Python candidate without the GPU'"'"'s Python environment: the edge fails (exit 1), nothing written' '
	d=out/v/fakescale r=runs/ok.fakescale &&
	expect_fail 1 "no --gpu-python environment" "$RETORT_BIN/verify" --lock-dir gpu -o $r/again.json $d/task.json \
		$r/compile.json $d/harness $d/expected.json $d/oracle.json &&
	test ! -e $r/again.json
'
test_done
