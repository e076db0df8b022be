#!/bin/sh
# t0751: Triton candidates through compile on the CPU, with Triton from
# PyPI in a test environment (out/tritonenv-tests; skipped visibly without
# it): the ahead-of-time compile's records (resources, every autotuning
# config, a constexpr left to the JIT), compile errors fed back, the
# screen, no code, a syntax error, and a build through ninja to records
# and a dataset holding CUDA and Triton answers with lang (verify
# skipped: no GPU here).
. "$(dirname "$0")/lib/lib.sh"

SCREEN=$RETORT_ROOT/tests/screen-triton
scratch_project "$T/p" && cd "$T/p" || exit 1
mkdir -p tasks/prompts/triton && cp "$RETORT_ROOT"/tasks/prompts/triton/*.md tasks/prompts/triton/ &&
cp "$RETORT_ROOT/tasks/requirements-triton.txt" tasks/
spec a alpha
"$RETORT_BIN/gen" --split tasks/a.yaml --all >/dev/null || { echo "Bail out! split failed"; exit 1; }
TASK=$T/p/out/v/alpha/task.json

# answer TEXT-ON-STDIN > response.json
answer() {
	python3 -c "import json,sys; json.dump({'status': 'answered', 'lang': 'triton', 'answer': {'text': sys.stdin.read()}}, sys.stdout)"
}
# pyblock FILE [ENTRY]: FILE in a ```python block, its run renamed ENTRY (default alpha_scale)
pyblock() {
	printf 'The module:\n\n```python\n'; sed "s/^def run(/def ${2:-alpha_scale}(/" "$1"; printf '```\n'
}

model replay demo
mkdir -p tasks/replay/alpha/triton && pyblock "$SCREEN/honest-1.py" >tasks/replay/alpha/triton/s0-r1.md
"$RETORT_BIN/query-llm" -o t.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" \
	--sample 0 --round 1 --lang triton "$TASK" || { echo "Bail out! query-llm failed"; exit 1; }

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tasks/requirements-triton.txt out/tritonenv-tests 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no environment with Triton (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
ENV=${PY%/bin/python}
# tbuild RESPONSE: compile it as a Triton candidate for alpha into out/c/compile.json
mkdir -p out/c
tbuild() { "$RETORT_BIN/compile" --arch sm_90 --lang triton --triton-env "$ENV" --runtime "$RETORT_ROOT/src/runtime" \
	-o out/c/compile.json "$TASK" "$1"; }
st() { field out/c/compile.json "d[\"status\"]"; }

test_expect_success 'AOT compile: a kernel compiled without a GPU, its resources recorded, the source beside compile.json' '
	cd p && pyblock "$SCREEN/honest-1.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "d[\"lang\"]")" = triton &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"kernel\"]")" = relu_kernel &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"registers\"]")" -gt 0 &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"num_warps\"]")" = 4 &&
	test "$(field out/c/compile.json "d[\"triton_version\"]")" = 3.6.0 &&
	sed "s/^def run(/def alpha_scale(/" "$SCREEN/honest-1.py" | cmp - out/c/cand.py
'
test_expect_success LONG 'AOT compile: every autotuning config; a constexpr known only at launch is left to the JIT, said why' '
	cd p && pyblock "$SCREEN/honest-3.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "[(k[\"kernel\"], k[\"config\"], k[\"num_warps\"]) for k in d[\"resources\"]]")" = \
		"[('"'"'partial_kernel'"'"', 0, 2), ('"'"'partial_kernel'"'"', 1, 4), ('"'"'scale_kernel'"'"', None, 4)]" &&
	pyblock "$SCREEN/honest-2.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "d[\"resources\"]")" = "[]" &&
	field out/c/compile.json "d[\"jit\"][0][\"reason\"]" | grep -q "constexpr BLOCK is computed at launch"
'
test_expect_success 'AOT compile: a compile error is data, with Triton message and source, and goes back to the teacher' '
	cd p && sed "s/tl.arange(0, BLOCK)/tl.arange(0, 1000)/" "$SCREEN/honest-1.py" >e.py && pyblock e.py | answer >r.json &&
	tbuild r.json && test "$(st)" = compile_error && test ! -s out/c/cand.py &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q "power of 2" &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q "^    offs = pid" &&
	! field out/c/compile.json "d[\"diagnostics\"]" | grep -q "/work/\|$T" &&
	mkdir -p r1 && cp t.json r1/response.json && cp out/c/compile.json r1/compile.json &&
	cp tasks/replay/alpha/triton/s0-r1.md tasks/replay/alpha/triton/s0-r2.md &&
	"$RETORT_BIN/query-llm" -o r2.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" --lang triton \
		--replay-dir tasks/replay --sample 0 --round 2 "$TASK" r1/response.json r1/compile.json &&
	field r2.json "d[\"messages\"][-2][\"content\"]" | grep -q "Triton failed to compile the code" &&
	field r2.json "d[\"messages\"][-2][\"content\"]" | grep -q "module for .def alpha_scale(x, y, n)."
'
test_expect_success 'compile: the screen refuses (rules named, stage source), no code, a syntax error' '
	cd p && pyblock "$SCREEN/torch_compute-1.py" | answer >r.json && tbuild r.json && test "$(st)" = screen_failed &&
	test "$(field out/c/compile.json "sorted({v[\"rule\"] for v in d[\"violations\"]})")" = "['"'"'kernel'"'"', '"'"'torch_compute'"'"']" &&
	test "$(field out/c/compile.json "d[\"violations\"][0][\"stage\"]")" = source &&
	printf "\`\`\`cuda\n__global__ void k() {}\n\`\`\`\n" | answer >r.json && tbuild r.json && test "$(st)" = no_code &&
	field out/c/compile.json "d[\"reason\"]" | grep -q "no Python code block" &&
	printf "\`\`\`python\ndef alpha_scale(x, y, n:\n\`\`\`\n" | answer >r.json && tbuild r.json && test "$(st)" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q "line 1"
'
test_expect_success 'compile --lang triton: a missing environment is exit 2, not a candidate failure' '
	cd p && pyblock "$SCREEN/honest-1.py" | answer >r.json &&
	expect_fail 2 "Triton environment .*missing" "$RETORT_BIN/compile" --lang triton --triton-env "$T/none" -o out/c/x.json "$TASK" r.json
'

# a build: alpha in both languages, its Triton sample repaired once
cat > tasks/replay/alpha/triton/s0-r1.md <<EOF
$(pyblock "$SCREEN/torch_compute-1.py")
EOF
pyblock "$SCREEN/honest-1.py" >tasks/replay/alpha/triton/s0-r2.md
if nvidia-smi -L 2>/dev/null | grep -q GPU; then
	test_skip "the build expects verify skipped (no GPU); tests/gpu/run covers GPU hosts"
else
	test_expect_success LONG 'ninja: CUDA and Triton answers to one task, records with lang, the card by language' '
		cd p && rconfigure --all --rounds=2 --lang=cuda,triton --triton-env="$ENV" >c.log 2>&1 || { cat c.log; false; } &&
		grep -q "languages  cuda,triton" c.log && { ninja >n.log 2>&1 || { tail -n 20 n.log; false; }; } &&
		test "$(field out/v/alpha/triton/s0/r1/compile.json "d[\"status\"]")" = screen_failed &&
		test "$(field out/v/alpha/triton/s0/r2/compile.json "d[\"status\"]")" = ok &&
		r=out/v/alpha/triton/s0/record.json &&
		test "$(field $r "d[\"id\"]")" = alpha/triton/s0 && test "$(field $r "d[\"lang\"]")" = triton &&
		test "$(field $r "[x[\"lang\"] for x in d[\"rounds\"]]")" = "['"'"'triton'"'"', '"'"'triton'"'"']" &&
		test "$(field $r "d[\"outcome\"]")" = unverified && field $r "d[\"final_kernel\"]" | grep -q "@triton.jit" &&
		test "$(field out/v/alpha/s0/record.json "d[\"id\"] + d[\"lang\"]")" = alpha/s0cuda &&
		mkdir x && tar xzf out/dataset/retort-dataset-00000.tar.gz -C x &&
		test "$(field x/manifest.json "d[\"lengths\"][\"default\"][\"trajectories\"][\"rows_by_lang\"]")" = "{'"'"'cuda'"'"': 1, '"'"'triton'"'"': 1}" &&
		grep -q "^| default | trajectories | 1 | 1 |$" x/README.md &&
		test "$(field out/v/alpha/triton/s0/r2/verify.json "d[\"verdict\"]")" = "skipped: no CUDA device" &&
		grep -q "\"lang\": *\"triton\"" x/data/trajectories-00000.jsonl
	'
	test_expect_success LONG 'ninja again: nothing to do' '
		cd p && ninja >n2.log 2>&1 && grep -q "no work to do" n2.log
	'
fi
test_done
