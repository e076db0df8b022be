#!/bin/sh
# t0750: Triton candidates on the CPU, no Triton needed — the static screen
# on its corpus (tests/screen-triton: every rule both ways), the templates
# and the cache key (CUDA's as it was), gen's languages (a spec's lang:,
# --lang). t0751 compiles them.
. "$(dirname "$0")/lib/lib.sh"

SCREEN=$RETORT_ROOT/tests/screen-triton
scratch_project "$T/p" && cd "$T/p" || exit 1
mkdir -p tasks/prompts/triton && cp "$RETORT_ROOT"/tasks/prompts/triton/*.md tasks/prompts/triton/
spec a alpha
"$RETORT_BIN/gen" --split tasks/a.yaml --all >/dev/null || { echo "Bail out! split failed"; exit 1; }
TASK=$T/p/out/v/alpha/task.json

# rules FILE: the screen's rule names for FILE (entry run(x, y, n)), sorted, one line
rules() {
	python3 -I -B "$RETORT_ROOT/src/runtime/tritonscreen.py" "$1" "$SCREEN/abi.json" |
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

# caught FILE...: each file's rule (RULE-N.py) among the screen's verdicts; prints the count
caught() {
	n=0
	for f; do
		name=$(basename "$f" .py) rule=${name%-*}
		test "$rule" = honest && continue
		got=$(rules "$f") || return 1
		case " $got " in *" $rule "*) ;; *) echo "$name: got [$got]"; return 1 ;; esac
		n=$((n + 1))
	done
	echo "$n violating examples"
}

test_expect_success 'every Triton screen rule catches its first example' '
	caught "$SCREEN"/*-1.py >n && cat n && test "$(cut -d" " -f1 n)" -ge 11
'
test_expect_success LONG 'every Triton screen rule catches its examples' '
	caught "$SCREEN"/*-[0-9].py >n && cat n && test "$(cut -d" " -f1 n)" -ge 25
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
		grep -q "^  $rule " "$RETORT_ROOT/src/runtime/tritonscreen.py" || { echo "$rule not in the manual"; exit 1; }
	done
'
test_expect_success 'the screen never runs the candidate; a syntax error is said with its line' '
	printf "import os\nos.system(\"touch %s/ran\")\ndef run(x, y, n:\n" "$T" >bad.py && test "$(rules bad.py)" = syntax &&
	python3 "$RETORT_ROOT/src/runtime/tritonscreen.py" bad.py "$SCREEN/abi.json" | grep -q "line 3" &&
	printf "import os\nos.system(\"touch %s/ran\")\n" "$T" >side.py && rules side.py | grep -q imports && test ! -e "$T/ran"
'
test_expect_success 'the screen reads the launches: types from the task, constants, what is known only at launch' '
	python3 "$RETORT_ROOT/src/runtime/tritonscreen.py" "$SCREEN/honest-2.py" "$SCREEN/abi.json" >l.json &&
	test "$(field l.json "d[\"launches\"][0][\"args\"]")" = "[{'"'"'tensor'"'"': '"'"'fp32'"'"'}, {'"'"'tensor'"'"': '"'"'fp32'"'"'}, {'"'"'int'"'"': '"'"'i32'"'"'}, {'"'"'int'"'"': '"'"'i32'"'"'}]" &&
	test "$(field l.json "d[\"launches\"][0][\"kwargs\"][\"BLOCK\"]")" = "{'"'"'int'"'"': '"'"'i32'"'"'}" &&
	python3 "$RETORT_ROOT/src/runtime/tritonscreen.py" "$SCREEN/honest-1.py" "$SCREEN/abi.json" >l.json &&
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
	grep -q "^build out/v/alpha/triton/s0/r1/compile.json | out/v/alpha/triton/s0/r1/cand.py: compile" both.ninja &&
	grep -q "^build out/v/alpha/triton/s0/r1/verify.json out/v/alpha/triton/s0/r1/bench.json: evaluate .* | out/v/alpha/triton/s0/r1/cand.py out/runtime/py/harness.so" both.ninja &&
	grep -q "^# triton candidates: 1 variants" both.ninja &&
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

test_done
