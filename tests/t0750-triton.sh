#!/bin/sh
# t0750: Triton candidates on the CPU — the static screen on its corpus
# (tests/screen-triton: every rule both ways), the templates and the cache
# key (CUDA's as it was), gen's languages (a spec's lang:, --lang), then,
# with Triton from PyPI in a test environment (skipped visibly without
# it), compile's records (the ahead-of-time compile's resources, compile
# errors, the screen, kernels left to the JIT, no code, a syntax error),
# and a demo-like build through ninja to records and the dataset with lang.
. "$(dirname "$0")/lib.sh"

SCREEN=$RETORT_ROOT/tests/screen-triton
scratch_project "$T/p" && cd "$T/p" || exit 1
mkdir -p tasks/prompts/triton && cp "$RETORT_ROOT"/tasks/prompts/triton/*.md tasks/prompts/triton/ &&
cp "$RETORT_ROOT/tasks/requirements-triton.txt" tasks/
spec a alpha
"$RETORT_BIN/gen" --split tasks/a.yaml --all >/dev/null || { echo "Bail out! split failed"; exit 1; }
TASK=$T/p/out/v/alpha/task.json

# rules FILE: the screen's rule names for FILE (entry run(x, y, n)), sorted, one line
rules() {
	python3 -I -B "$RETORT_ROOT/tools/runtime/tritonscreen.py" "$1" "$SCREEN/abi.json" |
		python3 -c "import json,sys; d = json.load(sys.stdin); print(d['syntax_error'] and 'syntax' or ' '.join(sorted({v['rule'] for v in d['violations']})))"
}
# answer TEXT-ON-STDIN > response.json
answer() {
	python3 -c "import json,sys; json.dump({'status': 'answered', 'lang': 'triton', 'answer': {'text': sys.stdin.read()}}, sys.stdout)"
}
# pyblock FILE [ENTRY]: FILE in a ```python block, its run renamed ENTRY (default alpha_scale)
pyblock() {
	printf 'The module:\n\n```python\n'; sed "s/^def run(/def ${2:-alpha_scale}(/" "$1"; printf '```\n'
}

test_expect_success 'every Triton screen rule catches its examples' '
	n=0 &&
	for f in "$SCREEN"/*-[0-9].py; do
		name=$(basename "$f" .py) rule=${name%-*}
		test "$rule" = honest && continue
		got=$(rules "$f") || exit 1
		case " $got " in *" $rule "*) ;; *) echo "$name: got [$got]"; exit 1 ;; esac
		n=$((n + 1))
	done &&
	echo "$n violating examples" && test "$n" -ge 25
'
test_expect_success 'the honest examples pass the Triton screen' '
	for f in "$SCREEN"/honest-*.py; do
		got=$(rules "$f") && test -z "$got" || { echo "$f: [$got]"; exit 1; }
	done
'
test_expect_success 'every rule the Triton screen names has a violating example, and the manual lists it' '
	for rule in entry_point kernel imports structure autotune torch_compute host_compute dynamic file_io \
		streams global_state; do
		ls "$SCREEN/$rule"-[0-9].py >/dev/null 2>&1 || { echo "no example for $rule"; exit 1; }
		grep -q "^  $rule " "$RETORT_ROOT/tools/runtime/tritonscreen.py" || { echo "$rule not in the manual"; exit 1; }
	done
'
test_expect_success 'the screen never runs the candidate; a syntax error is said with its line' '
	printf "import os\nos.system(\"touch %s/ran\")\ndef run(x, y, n:\n" "$T" >bad.py && test "$(rules bad.py)" = syntax &&
	python3 "$RETORT_ROOT/tools/runtime/tritonscreen.py" bad.py "$SCREEN/abi.json" | grep -q "line 3" &&
	printf "import os\nos.system(\"touch %s/ran\")\n" "$T" >side.py && rules side.py | grep -q imports && test ! -e "$T/ran"
'
test_expect_success 'the screen reads the launches: types from the task, constants, what is known only at launch' '
	python3 "$RETORT_ROOT/tools/runtime/tritonscreen.py" "$SCREEN/honest-2.py" "$SCREEN/abi.json" >l.json &&
	test "$(field l.json "d[\"launches\"][0][\"args\"]")" = "[{'"'"'tensor'"'"': '"'"'fp32'"'"'}, {'"'"'tensor'"'"': '"'"'fp32'"'"'}, {'"'"'int'"'"': '"'"'i32'"'"'}, {'"'"'int'"'"': '"'"'i32'"'"'}]" &&
	test "$(field l.json "d[\"launches\"][0][\"kwargs\"][\"BLOCK\"]")" = "{'"'"'int'"'"': '"'"'i32'"'"'}" &&
	python3 "$RETORT_ROOT/tools/runtime/tritonscreen.py" "$SCREEN/honest-1.py" "$SCREEN/abi.json" >l.json &&
	test "$(field l.json "d[\"launches\"][0][\"kwargs\"][\"BLOCK\"]")" = "{'"'"'const'"'"': 1024}"
'

# cudaedges NINJA: the task graph's build statements up to the phony targets, less the Triton samples'
cudaedges() {
	awk '/^build variants:/ { exit } /^# triton/ || /^$/ { next } /^build / { skip = ($2 ~ /\/triton\//) } !skip' "$1"
}
# the request of a round-1 edge: q OUT [--lang L]
model replay demo
qr() { out=$1; shift; "$RETORT_BIN/query-llm" -o "$out" --model-config m.json --prompts tasks/prompts \
	--cache-dir "$T/cache" --sample 0 --round 1 "$@" "$TASK"; }
mkdir -p tasks/replay/alpha/triton && pyblock "$SCREEN/honest-1.py" >tasks/replay/alpha/triton/s0-r1.md
test_expect_success 'the Triton templates: the Python entry point, its block, the rules; the request says lang' '
	cd p && qr t.json --lang triton && test "$(field t.json "d[\"lang\"]")" = triton &&
	field t.json "d[\"system\"]" | grep -q "@triton.jit" && field t.json "d[\"system\"]" | grep -q "sm_90" &&
	field t.json "d[\"messages\"][0][\"content\"]" | grep -q "^def alpha_scale(x, y, n)$" &&
	field t.json "d[\"messages\"][0][\"content\"]" | grep -q "^\`\`\`python$" &&
	field t.json "d[\"messages\"][0][\"content\"]" | grep -q "^\`\`\`c$" &&
	! field t.json "d[\"system\"]" | grep -q "{{"
'
test_expect_success 'a CUDA request and its key are as they were; a Triton one has a key of its own' '
	cd p && qr c.json && qr c2.json --lang cuda && cmp c.json c2.json && ! grep -q "\"lang\"" c.json &&
	test "$(field c.json "d[\"key\"]")" != "$(field t.json "d[\"key\"]")" &&
	field c.json "d[\"messages\"][0][\"content\"]" | grep -q "extern \"C\" void alpha_scale" &&
	expect_fail 2 "lang is cuda or triton" "$RETORT_BIN/query-llm" -o x.json --model-config m.json --cache-dir "$T/cache" --lang rust "$TASK"
'
test_expect_success 'gen: --lang adds Triton samples beside the CUDA ones, whose edges stay byte-identical' '
	cd p && "$RETORT_BIN/gen" --ninja cuda.ninja --all --models "$RETORT_ROOT/models.yaml" --provider replay --model demo >/dev/null &&
	"$RETORT_BIN/gen" --ninja both.ninja --all --lang cuda,triton --models "$RETORT_ROOT/models.yaml" --provider replay --model demo >/dev/null &&
	cudaedges both.ninja >b1 && cudaedges cuda.ninja >c1 && test -s c1 && cmp c1 b1 &&
	grep -q "^build out/v/alpha/triton/s0/r1/compile.json | out/v/alpha/triton/s0/r1/candidate.py: compile" both.ninja &&
	! grep -q "triton/s0/r1/verify.json" both.ninja && grep -q "^# triton candidates: 1 variants" both.ninja &&
	expect_fail 2 "lang lists cuda and/or triton" "$RETORT_BIN/gen" --list --all --lang cuda,rust
'
test_expect_success 'a spec says lang: for itself; a wrong one is a spec error with its place' '
	cd p && spec b beta "lang: [triton]" && "$RETORT_BIN/gen" --ninja g.ninja --all --models "$RETORT_ROOT/models.yaml" --provider replay --model demo >/dev/null &&
	grep -q "^build out/v/beta/triton/s0/r1/response.json" g.ninja && ! grep -q "^build out/v/beta/s0/" g.ninja &&
	grep -q "^build out/v/alpha/s0/r1/response.json" g.ninja && ! grep -q "^build out/v/alpha/triton" g.ninja &&
	spec b beta "lang: [triton, fortran]" &&
	expect_fail 2 "tasks/b.yaml:[0-9]*:[0-9]*: lang lists the candidate languages: cuda, triton (got .fortran.)" \
		"$RETORT_BIN/gen" --list --all &&
	spec b beta "lang: triton" && mv tasks/prompts/triton tasks/prompts/tt &&
	expect_fail 2 "lang triton needs the template" "$RETORT_BIN/gen" --list --all &&
	mv tasks/prompts/tt tasks/prompts/triton && rm tasks/b.yaml && rm -rf tasks/replay/beta
'

if ! PY=$("$RETORT_ROOT/tests/pyenv" tasks/requirements-triton.txt out/tritonenv-tests 2>"$T/pyenv.err"); then
	test_skip "Triton's ahead-of-time compile: no environment with Triton (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	test_done
fi
ENV=${PY%/bin/python}
# tbuild RESPONSE: compile it as a Triton candidate for alpha into out/c/compile.json
mkdir -p out/c
tbuild() { "$RETORT_BIN/compile" --arch sm_90 --lang triton --triton-env "$ENV" --runtime "$RETORT_ROOT/tools/runtime" \
	-o out/c/compile.json "$TASK" "$1"; }
st() { field out/c/compile.json "d[\"status\"]"; }

test_expect_success 'AOT compile: a kernel compiled without a GPU, its resources recorded, the source beside compile.json' '
	cd p && pyblock "$SCREEN/honest-1.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "d[\"lang\"]")" = triton &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"kernel\"]")" = relu_kernel &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"registers\"]")" -gt 0 &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"num_warps\"]")" = 4 &&
	test "$(field out/c/compile.json "d[\"triton_version\"]")" = 3.6.0 &&
	sed "s/^def run(/def alpha_scale(/" "$SCREEN/honest-1.py" | cmp - out/c/candidate.py
'
test_expect_success 'AOT compile: every autotuning config; a constexpr known only at launch is left to the JIT, said why' '
	cd p && pyblock "$SCREEN/honest-3.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "[(k[\"kernel\"], k[\"config\"], k[\"num_warps\"]) for k in d[\"resources\"]]")" = \
		"[('"'"'partial_kernel'"'"', 0, 2), ('"'"'partial_kernel'"'"', 1, 4), ('"'"'scale_kernel'"'"', None, 4)]" &&
	pyblock "$SCREEN/honest-2.py" | answer >r.json && tbuild r.json && test "$(st)" = ok &&
	test "$(field out/c/compile.json "d[\"resources\"]")" = "[]" &&
	field out/c/compile.json "d[\"jit\"][0][\"reason\"]" | grep -q "constexpr BLOCK is computed at launch"
'
test_expect_success 'AOT compile: a compile error is data, with Triton message and source, and goes back to the teacher' '
	cd p && sed "s/tl.arange(0, BLOCK)/tl.arange(0, 1000)/" "$SCREEN/honest-1.py" >e.py && pyblock e.py | answer >r.json &&
	tbuild r.json && test "$(st)" = compile_error && test ! -s out/c/candidate.py &&
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
test_expect_success 'ninja: CUDA and Triton answers to one task, records with lang, the card by language' '
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
	grep -q "^| default | trajectories | 1 | 1 |$" x/README.md && grep -q "Triton answers were screened" x/README.md &&
	grep -q "\"lang\": *\"triton\"" x/data/trajectories-00000.jsonl
'
test_expect_success 'ninja again: nothing to do' '
	cd p && ninja >n2.log 2>&1 && grep -q "no work to do" n2.log
'
test_done
