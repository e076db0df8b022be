#!/bin/sh
# t0510: Python references (reference: {python: ...}) on the CPU: gen's
# checks, configure's message for a missing environment or package, the
# reference through ninja to expected.json (the inputs bit-identical to a
# C reference's, float64 evidence), examples reproduced or refused,
# degenerate outputs (constant or NaN on every listed run) and exceptions
# refused, the sandbox (no secret, no
# home, no checkout), the prompt showing the Python reference.
. "$(dirname "$0")/lib/lib.sh"

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tests/python/requirements.txt out/refenv-tests 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no Python environment with NumPy (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
ENV=${PY%/bin/python}

scratch_project "$T/p" && cd "$T/p" || exit 1
cp "$RETORT_ROOT/tests/python/requirements.txt" tasks/requirements.txt

# pyspec ID BODY [EXAMPLE_OUT]: a spec scaling x by alpha per row, whose
# Python reference is BODY (the lines of reference()'s body)
pyspec() {
	cat > "tasks/$1.yaml" <<EOS
id: $1
description: Scale x by alpha ($1).
tags: [py]
entry: $1_scale
args:
  - {name: x, kind: in, dtype: f16, shape: [rows, cols]}
  - {name: y, kind: out, dtype: f16, shape: [rows, cols]}
  - {name: alpha, kind: scalar, dtype: f32, value: 2, range: [0.5, 4]}
  - {name: rows, kind: size}
  - {name: cols, kind: size}
sizes:
  verify: [{rows: 3, cols: 5}, {rows: 37, cols: 129}]
  bench: [{rows: 512, cols: 1024}]
reference:
  python: |
    import numpy as np
    def reference(x, y, alpha, rows, cols):
$2
examples:
  - sizes: {rows: 1, cols: 2}
    in: {x: [1, 2]}
    out: {y: [${3:-2, 4}]}
EOS
}
pyspec pyscale '        assert x.dtype == np.float64 and x.shape == (rows, cols) and y.shape == (rows, cols)
        y[...] = x * alpha'
mkdir -p tasks/replay/pyscale && cat > tasks/replay/pyscale/s0-r1.md <<'EOS'
A test answer: one thread per element.

```cuda
#include <cuda_fp16.h>
__global__ void k(const __half* x, __half* y, float a, int n)
{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = __float2half(__half2float(x[i]) * a); }
extern "C" void pyscale_scale(const __half* x, __half* y, float alpha, int rows, int cols)
{ int n = rows * cols; k<<<(n + 255) / 256, 256>>>(x, y, alpha, n); }
```
EOS

test_expect_success 'configure without the environment: a message with the line that makes it' '
	cd p &&
	expect_fail 1 "pip install -r tasks/requirements.txt" rconfigure --tasks=py --python-env="$T/none" &&
	grep -q "no Python environment in $T/none" "$T/.err" && grep -q -- "--install-deps" "$T/.err" &&
	test ! -f build.ninja
'

test_expect_success LONG 'configure with an environment that lacks numpy: the missing package named' '
	cd p &&
	python3 -m venv "$T/bare" &&
	expect_fail 1 "lacks the Python references. packages: numpy==" rconfigure --tasks=py --python-env="$T/bare"
'

test_expect_success 'gen: a Python reference must define reference(); misspelt keys get a suggestion; origin is checked' '
	cd p &&
	cp tasks/pyscale.yaml keep.yaml &&
	sed -i "s/def reference(/def ref(/" tasks/pyscale.yaml &&
	expect_fail 2 "pyscale.yaml:[0-9]*:[0-9]*: a Python reference must define .def reference(...)." \
		"$RETORT_BIN/gen" --list --all &&
	cp keep.yaml tasks/pyscale.yaml && sed -i "s/  python: |/  pyhton: |/" tasks/pyscale.yaml &&
	expect_fail 2 "pyscale.yaml:[0-9]*:[0-9]*: .*pyhton.*python" "$RETORT_BIN/gen" --list --all &&
	cp keep.yaml tasks/pyscale.yaml && echo "origin: {sourc: kernelbench, level: 1}" >>tasks/pyscale.yaml &&
	expect_fail 2 "pyscale.yaml:[0-9]*:[0-9]*: .*sourc.*source" "$RETORT_BIN/gen" --list --all &&
	cp keep.yaml tasks/pyscale.yaml && echo "origin: {source: kernelbench, level: one}" >>tasks/pyscale.yaml &&
	expect_fail 2 "pyscale.yaml:[0-9]*:[0-9]*: .level. must be an integer" "$RETORT_BIN/gen" --list --all &&
	cp keep.yaml tasks/pyscale.yaml
'

test_expect_success 'ninja on the CPU: expected.json from the Python reference, in float64; verify skipped' '
	cd p &&
	rconfigure --tasks=py --rounds=1 --python-env="$ENV" >conf.log && ninja >build.log 2>&1 &&
	test "$(field out/v/pyscale/expected.json "d[\"reference_language\"] + \" \" + d[\"reference_precision\"]")" = "python float64" &&
	test "$(field out/v/pyscale/task.json "d[\"reference_language\"]")" = python &&
	test -s out/v/pyscale/expected.bin &&
	if ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
		grep -q "skipped: no CUDA device" out/v/pyscale/s0/r1/verify.json
	fi
'

test_expect_success 'the prompt shows the Python reference, in a python block' '
	cd p &&
	grep -q "in Python (your" out/v/pyscale/s0/r1/response.json &&
	grep -q "\`\`\`python" out/v/pyscale/s0/r1/response.json &&
	grep -q "def reference(x, y, alpha, rows, cols)" out/v/pyscale/s0/r1/response.json
'

# xverify DIR [ENV]: verify --expected over pyscale into DIR, with the environment ENV (env2)
xverify() {
	"$RETORT_BIN/verify" --expected --no-bench --cache-dir "$T/cache-env" --python-env "$T/${2:-env2}" \
		-o "$1/expected.json" out/v/pyscale/task.json out/v/pyscale/reference
}
test_expect_success LONG 'its expected outputs are kept under the packages its environment sees: a copy elsewhere is the same key, one more package another' '
	cd p && cp -a "$ENV" "$T/env2" && xverify o1 &&
	for e in $(find "$T/cache-env/expected" -samefile o1/expected.bin); do
		python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d[\"cache_test\"] = 1; json.dump(d, open(sys.argv[1], \"w\"))" \
			"$(dirname "$e")/expected.json" || exit 1
	done &&
	xverify o2 && test "$(field o2/expected.json "d[\"cache_test\"]")" = 1 &&
	cp -a "$T/env2" "$T/env3" && xverify o2b env3 && test "$(field o2b/expected.json "d[\"cache_test\"]")" = 1 &&
	mkdir "$(echo "$T"/env2/lib/python*/site-packages)/zz_retort_test-1.0.dist-info" &&
	xverify o3 && ! grep -q cache_test o3/expected.json && cmp o1/expected.bin o3/expected.bin
'

# the same spec with a C reference computing the same products: the same
# inputs (one generator), so the same bytes
test_expect_success 'the same inputs as a C reference: expected.bin byte for byte' '
	cd p &&
	cp out/v/pyscale/expected.bin py.bin &&
	python3 - tasks/pyscale.yaml <<-EOS &&
	import sys
	s = open(sys.argv[1]).read()
	i, j = s.index("reference:"), s.index("examples:")
	c = "reference: |\n  void reference(const float *x, float *y, float alpha, int rows, int cols)\n" \
	    "  { for (int i = 0; i < rows * cols; i++) y[i] = x[i] * alpha; }\n"
	open(sys.argv[1], "w").write(s[:i] + c + s[j:])
	EOS
	ninja out/v/pyscale/expected.json >c.log 2>&1 &&
	test "$(field out/v/pyscale/expected.json "d[\"reference_language\"] + \" \" + str(d.get(\"reference_precision\"))")" = "c None" &&
	cmp py.bin out/v/pyscale/expected.bin
'

# expected ID: verify --expected over the variant ID (ninja, its one edge)
expected() { ninja "out/v/$1/expected.json" >"$1.log" 2>&1; }

# 1.5 + 1e8 - 1e8 is 1.5 in float64, 0 in float
test_expect_success LONG 'float64 evidence: an example only float64 reproduces passes' '
	cd p &&
	pyspec pyf64 "        y[...] = (x + 1e8) - 1e8" "1, 2" &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log && expected pyf64 &&
	pyspec pyf32 "        y[...] = ((x.astype(np.float32) + np.float32(1e8)) - np.float32(1e8))" "1, 2" &&
	sed -i "s/x: \[1, 2\]/x: [1.5, 2]/; s/y: \[1, 2\]/y: [1.5, 2]/" tasks/pyf32.yaml tasks/pyf64.yaml &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log && expected pyf64 &&
	! expected pyf32 && grep "disagrees with example 1: y\[0\] = 0, the example says 1.5" pyf32.log
'

test_expect_success 'an example the reference does not reproduce is refused' '
	cd p &&
	pyspec pybad "        y[...] = x * alpha" "2, 5" &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pybad && grep -q "the reference disagrees with example 1: y\[1\] = 4, the example says 5" pybad.log
'

test_expect_success 'degenerate outputs are refused' '
	cd p &&
	pyspec pyconst "        y[...] = 3.0 if x.size > 2 else x * alpha" &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pyconst && grep -q "degenerate task: writing the constant 3 into every element of output .y." pyconst.log
'

test_expect_success LONG 'one listed case constant, another varying: not degenerate (a constant kernel fails there)' '
	cd p &&
	pyspec pyrelu "        y[...] = 0.0 if rows == 37 else x * alpha" &&
	sed -i "s/verify: \[{rows: 3, cols: 5}/verify: [{rows: 5, cols: 7}/" tasks/pyrelu.yaml && grep -q "rows: 5, cols: 7" tasks/pyrelu.yaml &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	expected pyrelu && rm tasks/pyrelu.yaml
'

test_expect_success 'an imported problem with degenerate outputs is kept, and expected.json says so (from the cache too)' '
	cd p &&
	pyspec kbconst "        y[...] = 3.0 if x.size > 2 else x * alpha" &&
	printf "origin: {source: kernelbench, file: \"level2/9_X.py\", level: 2, problem: 9}\n" >>tasks/kbconst.yaml &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	expected kbconst && grep -q "degenerate task: writing the constant 3 .*an imported problem: kept" kbconst.log &&
	field out/v/kbconst/expected.json "d[\"degenerate\"]" | grep -q "writing the constant 3" &&
	rm out/v/kbconst/expected.json && expected kbconst && grep -q "EXPECTED out/v/kbconst" kbconst.log &&
	grep -q "degenerate task: writing the constant 3 .*an imported problem: kept" kbconst.log
'
test_expect_success 'the same spec, not imported: refused, although its outputs are in the build cache' '
	cd p && sed -i "/^origin:/d" tasks/kbconst.yaml &&
	! expected kbconst && grep -q "degenerate task: writing the constant 3" kbconst.log &&
	! grep -q "imported problem: kept" kbconst.log && rm tasks/kbconst.yaml
'
test_expect_success LONG 'a small output that is never finite is refused too (a kernel writing NaN would pass)' '
	cd p &&
	pyspec pynan "        y[...] = np.nan if x.size > 2 else x.sum() * alpha" "6" &&
	sed -i "s/name: y, kind: out, dtype: f16, shape: \[rows, cols\]/name: y, kind: out, dtype: f16, shape: [1]/" tasks/pynan.yaml &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pynan && grep -q "degenerate task: output .y. at .* has 0 finite values of 1" pynan.log
'
test_expect_success LONG 'a scalar output that is the same on every verify run is refused; one that follows its inputs is not' '
	cd p &&
	pyspec pyconst "        y[...] = 0.0 if x.size > 2 else x.sum() * alpha" "6" &&
	sed -i "s/name: y, kind: out, dtype: f16, shape: \[rows, cols\]/name: y, kind: out, dtype: f16, shape: [1]/" tasks/pyconst.yaml &&
	pyspec pysum "        y[...] = x.sum() * alpha / x.size" "3" &&
	sed -i "s/name: y, kind: out, dtype: f16, shape: \[rows, cols\]/name: y, kind: out, dtype: f16, shape: [1]/" tasks/pysum.yaml &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pyconst && cat pyconst.log &&
	grep -q "degenerate task: output .y. (1 element) holds the same value on all [0-9]* verify runs" pyconst.log &&
	expected pysum && rm tasks/pyconst.yaml tasks/pysum.yaml
'

test_expect_success 'a reference that raises: refused, with its traceback' '
	cd p &&
	pyspec pyraise "        raise ValueError(\"no such luck %d\" % rows)" &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pyraise && grep -q "ValueError: no such luck 1" pyraise.log &&
	grep -q "File \"reference\", line 3, in reference" pyraise.log
'

test_expect_success 'returned outputs: a wrong shape is said' '
	cd p &&
	pyspec pyret "        return (x * alpha)[:, :1]" &&
	rconfigure --tasks=py --python-env="$ENV" >conf.log &&
	! expected pyret && grep -q "reference returned 1 values (shape \[1, 1\]) for .y., which has shape \[1, 2\]" pyret.log &&
	pyspec pyret "        return x * alpha" && expected pyret
'

# the sandbox: the secret, the checkout and the home are not there; what
# the reference saw is in its exception
test_expect_success LONG 'the reference cannot read the secret, the checkout or the home' '
	cd p &&
	test -f "$T/cache/secret" &&
	# an entry of the home outside the interpreter'"'"'s own prefix (which is read-only there)
	prefix=$("$PY" -c "import os, sys; print(os.path.realpath(sys.base_prefix))") &&
	home=$(ls -A "$HOME" | while read -r e; do case $prefix/ in "$HOME/$e"/*) ;; *) echo "$HOME/$e"; break ;; esac; done) &&
	for p in "$T/cache/secret" "$RETORT_ROOT/README.md" "$T/p/tasks/pyscale.yaml" $home; do
		pyspec pysnoop "        import os
        p = \"$p\"
        print(open(p).read() if os.path.isfile(p) else os.listdir(p))
        y[...] = x * alpha" &&
		rconfigure --tasks=py --python-env="$ENV" >conf.log &&
		! expected pysnoop && grep -q "FileNotFoundError: .*No such file or directory: .$p." pysnoop.log ||
			{ cat pysnoop.log; exit 1; }
	done &&
	pyspec pysnoop "        import os
        assert os.environ[\"HOME\"] == \"/work\" and os.getuid() != 0, (os.environ, os.getuid())
        assert not os.path.exists(\"$T\") and not os.path.exists(\"$RETORT_ROOT\")
        y[...] = x * alpha" && expected pysnoop
'

test_done
