#!/bin/sh
# t0100: bad specs — each class gets "file:line:col: message", exit 2, and
# nothing partial is written
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec good good
rconfigure --all >/dev/null || { echo "Bail out! configure failed"; exit 1; }
# what gen writes for it (these cases are gen's: the kernel graph past it
# is t0200's)
GOOD="build.ninja out/v/good/task.json out/model.json"
ninja $GOOD >/dev/null || { echo "Bail out! ninja failed"; exit 1; }
cp build.ninja "$T/build.ninja.good"

# bad NAME PATTERN: with tasks/bad.yaml written by the caller, gen refuses
# it with PATTERN and exit 2, ninja fails, and build.ninja is unchanged
bad() {
	expect_fail 2 "$2" "$RETORT_BIN/gen" --list --all &&
	! ninja >ninja.out 2>&1 && cat ninja.out && grep -q -e "$2" ninja.out &&
	cmp build.ninja "$T/build.ninja.good" &&
	test ! -d out/v/bad && rm -rf tasks/bad.yaml tasks/replay/bad && ninja $GOOD >/dev/null
}

test_expect_success 'unknown key: did you mean' '
	cd p && spec bad bad "descripton: [n]" &&
	bad bad "tasks/bad.yaml:15:1: unknown key .descripton. (did you mean .description.?)"
'
test_expect_success 'unknown key inside an arg' '
	cd p && spec bad bad && sed -i "s/shape: \[n\]}/shpae: [n]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: unknown key .shpae. in an arg (did you mean .shape.?)"
'
test_expect_success 'an entry point the C library or CUDA already names: refused' '
	cd p && spec bad bad && sed -i "s/^entry: .*/entry: expf/" tasks/bad.yaml &&
	expect_fail 2 "entry .expf. is a function of the C or CUDA maths library" "$RETORT_BIN/gen" --list --all &&
	sed -i "s/^entry: .*/entry: normcdff/" tasks/bad.yaml &&
	expect_fail 2 "entry .normcdff. is a function of the C or CUDA maths library" "$RETORT_BIN/gen" --list --all &&
	sed -i "s/^entry: .*/entry: cuLaunchKernel/" tasks/bad.yaml &&
	expect_fail 2 "entry .cuLaunchKernel. is in the CUDA driver" "$RETORT_BIN/gen" --list --all &&
	sed -i "s/^entry: .*/entry: malloc/" tasks/bad.yaml &&
	expect_fail 2 "tasks/bad.yaml:[0-9]*:[0-9]*: entry .malloc. is a function of the C library: no candidate could define it" \
		"$RETORT_BIN/gen" --list --all && rm tasks/bad.yaml
'
test_expect_success 'a bad spec stops only a selection that names it: by id, tag, variant glob or --all' '
	cd p && spec bad bad "descripton: [n]" kbtag &&
	"$RETORT_BIN/gen" --list --tasks good >list 2>err && cat err &&
	test "$(cat list)" = good &&
	grep -q "gen: warning: .tasks/bad.yaml. is not selected and has errors, so it is left out: tasks/bad.yaml:15:1: unknown key .descripton." err &&
	test "$(grep -c . err)" = 1 &&
	"$RETORT_BIN/gen" --ninja g.ninja --tasks good >sum 2>/dev/null &&
	grep -q "1 specs, 1 of 1 variants selected; 1 spec with errors left out (not selected)" sum &&
	for sel in bad "b*" kbtag "bad.f32" "good,bad"; do
		expect_fail 2 "tasks/bad.yaml:15:1: unknown key .descripton." "$RETORT_BIN/gen" --list --tasks "$sel" || return 1
	done &&
	expect_fail 2 "tasks/bad.yaml:15:1: unknown key" "$RETORT_BIN/gen" --list --all &&
	printf "id: [unclosed\n" >tasks/bad.yaml &&
	"$RETORT_BIN/gen" --list --tasks good >list 2>err && test "$(cat list)" = good &&
	grep -q "warning: .tasks/bad.yaml. is not selected" err &&
	expect_fail 2 "tasks/bad.yaml" "$RETORT_BIN/gen" --list --tasks bad &&
	rm -f tasks/bad.yaml g.ninja list err sum
'
test_expect_success 'wrong type' '
	cd p && spec bad bad "samples: [1, 2]" &&
	bad bad "tasks/bad.yaml:15:10: samples must be a single value, not a list"
'
test_expect_success 'bad expression' '
	cd p && spec bad bad && sed -i "s/bench: \[{n: 1048576}\]/bench: [{n: 1024 * (2 +}]/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:11:26: bad expression in size .1024 \* (2 +.: unexpected end of expression"
'
test_expect_success 'unknown dtype' '
	cd p && spec bad bad && sed -i "s/dtype: f32, shape: \[n\]}/dtype: f23, shape: [n]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:6:[0-9]*: unknown dtype .f23. (did you mean .f32.?)"
'
test_expect_success 'a domain that cannot be drawn: an offset on an integer, an empty scale, ties on an output' '
	cd p && spec bad bad && sed -i "s/kind: in, dtype: f32, shape: \[n\]}/kind: in, dtype: f32, shape: [n], offset: [5, -5]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:6:[0-9]*: offset of .x. must be \[lo, hi\] with lo <= hi: \[5, -5\]" &&
	spec bad bad && sed -i "s/kind: in, dtype: f32, shape: \[n\]}/kind: in, dtype: f32, shape: [n], scale: [0, 2]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:6:[0-9]*: scale of .x. must be \[lo, hi\] with lo <= hi and lo > 0: \[0, 2\]" &&
	spec bad bad && sed -i "s/{name: y, kind: out, dtype: f32, shape: \[n\]}/{name: y, kind: out, dtype: f32, shape: [n], offset: [0, 1]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:7:[0-9]*: only input tensors have an .offset. or a .scale." &&
	spec bad bad && sed -i "s/kind: in, dtype: f32, shape: \[n\]}/kind: in, dtype: i32, shape: [n], offset: [0, 1]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:6:[0-9]*: offset needs a floating dtype"
'
test_expect_success 'a rule the description states without the draw that exercises it' '
	cd p && spec bad bad && sed -i "s/^description: .*/description: Scale a vector by two; NaN must stay NaN./" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:2:14: the description states what NaN does (.NaN must stay NaN.*) but no input exercises it: give an input with special: true" &&
	spec bad bad && sed -i "s/^description: .*/description: A stable sort of x./" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:2:14: the description states a tie rule" &&
	spec bad bad && sed -i "s/^description: .*/description: The variance of x, where the mean is large./" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:2:14: the description states a large mean" &&
	spec bad bad && sed -i "s/^description: .*/description: A stable sort of x./; s/kind: in, dtype: f32, shape: \[n\]}/kind: in, dtype: f32, shape: [n], dist: [normal, ties]}/" tasks/bad.yaml &&
	"$RETORT_BIN/gen" --list --all >/dev/null && rm -f tasks/bad.yaml && rm -rf tasks/replay/bad
'
test_expect_success 'duplicate ids across files' '
	cd p && spec bad good &&
	bad bad "tasks/good.yaml:1:5: duplicate id .good. (also in tasks/bad.yaml)"
'
test_expect_success 'empty matrix' '
	cd p && spec bad bad "hints: [\"{w}\"]
matrix: {w: []}" &&
	bad bad "tasks/bad.yaml:16:13: matrix .w. must be a non-empty list of values"
'
test_expect_success 'exploding matrix is capped and says so' '
	cd p && spec bad bad "hints: [\"{a}{b}{c}{d}{e}\"]
matrix:
  a: [a0, a1, a2, a3, a4, a5, a6, a7, a8, a9]
  b: [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9]
  c: [c0, c1, c2, c3, c4, c5, c6, c7, c8, c9]
  d: [d0, d1, d2, d3, d4, d5, d6, d7, d8, d9]
  e: [e0, e1, e2, e3, e4, e5, e6, e7, e8, e9]" &&
	bad bad "matrix expands to 100000 variants, more than the cap of 20000"
'
test_expect_success 'anchors and aliases: a billion laughs is refused' '
	cd p && spec bad bad "x0: &a [l, l, l, l, l, l, l, l, l, l]
x1: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
x2: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
x3: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
x4: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
x5: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]" &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: document too large: more than 100000 nodes once aliases are expanded"
'
test_expect_success 'anchors and aliases: a long text aliased many times is refused' '
	cd p && python3 -c "import sys; sys.stdout.write(\"x0: &a \" + \"l\" * 700000 + \"\\nx1: [\" + \", \".join([\"*a\"] * 30) + \"]\\n\")" \
		>tasks/bad.yaml && test "$(wc -c <tasks/bad.yaml)" -lt 1048576 &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: document too large: aliases copy more than 16 MiB of text"
'
test_expect_success 'non-UTF-8 text' '
	cd p && spec bad bad && printf "hints: [\"caf\351\"]\n" >> tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:16:[0-9]*: not valid UTF-8 text"
'
test_expect_success 'a size that is not an integer names the variant' '
	cd p && spec bad bad "matrix: {h: [2, 3]}" &&
	sed -i "s/verify: \[{n: 1}, {n: 1000}\]/verify: [{n: \"1000 \/ {h}\"}]/" tasks/bad.yaml &&
	bad bad "size .n. = 333.333 must be a positive integer that fits its dtype (in variant .bad.h3.)"
'
test_expect_success 'a bench case past 4 GiB of tensors is refused, with where the rule is' '
	cd p && spec bad bad &&
	sed -i "s/bench: \[{n: 1048576}\]/bench: [{n: 805306368}]/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: .*this bench case moves 6 GiB of tensors (at most 4 GiB: doc/specs.md, Task spec reference, sizes)"
'
test_expect_success 'several errors are reported at once' '
	cd p && spec bad bad "shpae: 1
rounds: 0" &&
	"$RETORT_BIN/gen" --list --all 2>err; test $? = 2 &&
	grep -q "unknown key .shpae." err && grep -q "rounds. must be between 1 and 50" err &&
	rm -rf tasks/bad.yaml tasks/replay/bad
'
test_expect_success 'models.yaml: bad settings are file:line:col errors, exit 2, even a non-scalar price' '
	cat >m.yaml <<-\EOF &&
	models:
	  m1:
	    provider: anthropic
	    prices: {input: [1], output: -2, sales: 3}
	    max_tokens: many
	EOF
	"$RETORT_BIN/gen" --model-json m.json --models m.yaml --provider anthropic --model m1 2>err; test $? = 2 &&
	cat err && grep -q "m.yaml:4:[0-9]*: .input. must be a non-negative number" err &&
	grep -q "m.yaml:4:[0-9]*: .output. must be a non-negative number" err &&
	grep -q "m.yaml:4:[0-9]*: unknown key .sales." err &&
	grep -q "m.yaml:5:[0-9]*: .max_tokens. must be a non-negative number" err && test ! -e m.json
'
test_expect_success 'a list as a mapping key, then another key: an error, not a crash (in a build too)' '
	cd p && cp "$RETORT_ROOT/tests/fuzz/regress/nonscalar-key-spec.yaml" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:24:5: mapping keys must be plain names, not a list" &&
	cp "$RETORT_ROOT/tests/fuzz/regress/nonscalar-key.yaml" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:2:3: mapping keys must be plain names, not a list"
'
test_expect_success 'the fuzz findings: each is exit 0 or a file:line:col error, never a crash' '
	mkdir -p fz && for f in "$RETORT_ROOT"/tests/fuzz/regress/*; do
		cp "$f" fz/x.yaml && "$RETORT_BIN/gen" --split fz/x.yaml --all --tasks-dir fz --out fz/out 2>fz/err
		rc=$? && cat fz/err && case $rc in
		0) ;;
		2) grep -q "^fz/x.yaml:[0-9]*:[0-9]*: " fz/err || { echo "no position: $f"; exit 1; } ;;
		*) echo "exit $rc: $f"; exit 1 ;;
		esac
	done
'
if command -v clang >/dev/null 2>&1 && printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
	clang -fsanitize=fuzzer -x c -o "$T/fz-probe" - 2>/dev/null; then
	test_expect_success LONG 'the fuzz target builds and runs clean over the specs and past findings' '
		FUZZ_OUT="$T/fuzz" "$RETORT_ROOT/tests/fuzz/run.sh" --build-only >fz.log 2>&1 || { cat fz.log; exit 1; }
		grep -q "files found in $T/fuzz/seeds" fz.log && grep -q "^Done [0-9]* runs" fz.log
	'
else
	test_skip 'the fuzz target builds: no clang with -fsanitize=fuzzer'
fi
test_expect_success 'models.yaml: a list as a key is an error, not a crash' '
	printf "models:\n  ? [x]\n  : {provider: anthropic}\n  b: {provider: anthropic}\n" >mk.yaml &&
	expect_fail 2 "^mk.yaml:2:5: mapping keys must be plain names, not a list$" \
		"$RETORT_BIN/gen" --model-json mk.json --models mk.yaml --provider anthropic --model b &&
	test ! -e mk.json
'
test_expect_success 'an alias used as a duplicate key is reported where the alias is' '
	cd p && spec bad bad "x: &k id
*k : again" &&
	bad bad "tasks/bad.yaml:16:1: duplicate key .id. (first at line 1)"
'
test_expect_success 'read errors: gen: cannot read, quoted, with the reason' '
	expect_fail 2 "^gen: cannot read .nope.yaml.: No such file or directory$" \
		"$RETORT_BIN/gen" --split nope.yaml --all &&
	mkdir -p d.yaml && expect_fail 2 "^gen: cannot read .d.yaml.: Is a directory$" \
		"$RETORT_BIN/gen" --split d.yaml --all &&
	expect_fail 2 "^gen: cannot read .nomodels.yaml.: No such file or directory$" \
		"$RETORT_BIN/gen" --model-json m.json --models nomodels.yaml --provider anthropic --model x &&
	test ! -e m.json
'
test_expect_success 'an empty models.yaml is an empty file, not an empty spec' '
	: >m0.yaml &&
	expect_fail 2 "^m0.yaml: empty file: no YAML document$" \
		"$RETORT_BIN/gen" --model-json m.json --models m0.yaml --provider anthropic --model x &&
	! grep -q spec "$T/.err"
'
test_expect_success 'matrix values too long for a folder name: a spec error, not a failed write' '
	cd p && spec bad bad "hints: [\"{w}\"]
matrix: {w: [a, $(printf "%0300d" 0 | tr 0 v)]}" &&
	bad bad "tasks/bad.yaml:16:9: variant ids would be up to 304 characters, more than 200"
'
test_expect_success 'a text that grows too large once the matrix is put in points at the text' '
	cd p && spec bad bad "hints: [\"$(python3 -c "print(\"{w}\" * 30000)")\"]
matrix: {w: [$(printf "%0190d" 0 | tr 0 v)]}" &&
	bad bad "tasks/bad.yaml:15:9: text grows past 4194304 bytes once the matrix values are put in"
'
# cutshort SPEC: SPEC cut short at every line end and 4 bytes before it. Each cut
# is a spec error (exit 2), or a valid spec that lost nothing it checks (its
# reference and examples those of the whole spec, or no reference at all
# when the cut is before it: a spec without one, whose records are
# unverified), or a spec whose reference fails its checks: it does not
# build (prepare --reference) or disagrees with its examples (verify
# --expected). Prints and leaves the counts; fails on anything else.
cutshort() {
	name=$(basename "$1") && rm -rf cut && mkdir -p cut/prompts &&
	cp "$RETORT_ROOT"/tasks/prompts/*.md cut/prompts/ && cp "$1" cut/ &&
	"$RETORT_BIN/gen" --split "cut/$name" --all --tasks-dir cut --out whole >/dev/null &&
	id=$("$RETORT_BIN/gen" --list --all --tasks-dir cut | head -n 1) &&
	refat=$(grep -b "^reference:" "$1" | cut -d: -f1) && test -n "$refat" &&
	errors=0 intact=0 noref=0 unbuilt=0 wrong=0 &&
	for o in $(awk "{ o += length(\$0) + 1; print o; if (length(\$0) > 4) print o - 4 }" "$1"); do
		test "$o" -lt "$(wc -c <"$1")" || continue
		head -c "$o" "$1" >"cut/$name" && rm -rf part &&
		"$RETORT_BIN/gen" --split "cut/$name" --all --tasks-dir cut --out part >/dev/null 2>err
		case $? in
		2) errors=$((errors + 1)); continue ;;
		0) ;;
		*) cat err; echo "cut at $o: gen failed"; return 1 ;;
		esac
		what=$(python3 -c "import json, sys
w, p = (json.load(open(f)) for f in sys.argv[1:])
if not p.get(\"reference\"): print(\"noref\")
elif p[\"reference\"] == w[\"reference\"] and p[\"examples\"] == w[\"examples\"][:len(p[\"examples\"])]: print(\"intact\")
else: print(\"changed\")" "whole/v/$id/task.json" "part/v/$id/task.json") || return 1
		case $what in
		intact) intact=$((intact + 1)) ;;
		noref) test "$o" -le "$refat" || { echo "cut at $o: the reference vanished"; return 1; }
			noref=$((noref + 1)) ;;
		changed)
			if ! "$RETORT_BIN/prepare" --reference -o part/ref --src "$RETORT_ROOT/src" \
				"part/v/$id/task.json" >err 2>&1; then
				unbuilt=$((unbuilt + 1))
			elif ! "$RETORT_BIN/verify" --expected --no-bench --cache-dir cache -o part/e.json \
				"part/v/$id/task.json" part/ref >err 2>&1; then
				wrong=$((wrong + 1))
			else
				echo "cut at $o: a changed reference passed its checks"; cat err; return 1
			fi ;;
		esac
	done &&
	echo "$name: $errors spec errors; broken references: $unbuilt do not build, $wrong fail the" \
		"examples; $intact lose nothing checked; $noref end before the reference"
}
test_expect_success LONG 'the examples check: a reference that builds but disagrees with an example is refused' '
	cd p && spec bad bad "examples:
  - sizes: {n: 3}
    in: {x: [1, 2, 3]}
    out: {y: [2, 4, 6]}" && sed -i "s/y\[i\] = 2 \* x\[i\]; }$/y[i] = 2 * x[i] + (i == 2); }/" tasks/bad.yaml &&
	"$RETORT_BIN/gen" --split tasks/bad.yaml --all >/dev/null &&
	"$RETORT_BIN/prepare" --reference -o out/v/bad/reference --src src out/v/bad/task.json &&
	expect_fail 2 "bad: the reference disagrees with example 1: y\[2\] = 7, the example says 6" \
		"$RETORT_BIN/verify" --expected --no-bench --cache-dir "$T/cache" -o ex.json out/v/bad/task.json \
		out/v/bad/reference &&
	test ! -e ex.json && rm -rf tasks/bad.yaml tasks/replay/bad out/v/bad
'
test_expect_success LONG 'a real spec cut short is a spec error, a reference that fails its checks, or loses nothing' '
	cutshort "$RETORT_ROOT/tasks/relu.yaml" && test $((unbuilt + wrong)) -gt 0 && test $errors -gt 0 &&
	cutshort "$RETORT_ROOT/tasks/softmax.yaml" && test $errors -gt 0
'
test_expect_success 'after all that, the good spec is intact: its graph, its task.json' '
	cd p && ninja $GOOD >n.log && grep -q "no work to do" n.log && cmp build.ninja "$T/build.ninja.good"
'
test_expect_success 'a scalar range that is empty, or not whole for an integer scalar' '
	cd p && spec bad bad &&
	sed -i "s/  - {name: n, kind: size}/  - {name: n, kind: size}\n  - {name: a, kind: scalar, dtype: f32, value: 2, range: [3, 1]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:9:58: range of scalar .a. must be \[lo, hi) with lo < hi" &&
	spec bad bad &&
	sed -i "s/  - {name: n, kind: size}/  - {name: n, kind: size}\n  - {name: k, kind: scalar, dtype: i32, value: 2, range: [0, 2.5]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:9:58: range of scalar .k. must be .*(integers for an integer scalar)"
'
test_expect_success 'a range on an output' '
	cd p && spec bad bad && sed -i "s/dtype: f32, shape: \[n\]}$/dtype: f32, shape: [n], range: [0, 1]}/" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:7:57: only input tensors and scalars have a .range."
'
test_expect_success 'more parameters than the task ABI takes: 1024 in all, 32 scalars' '
	cd p && spec bad bad &&
	for k in $(seq 33); do echo "  - {name: s$k, kind: scalar, dtype: f32, value: 1}"; done >extra &&
	sed -i "/  - {name: n, kind: size}/r extra" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: .args. has 1 size args and 33 scalar args; the task ABI takes at most 32 of each" &&
	spec bad bad &&
	for k in $(seq 1022); do echo "  - {name: w$k, kind: in, dtype: f32, shape: [2]}"; done >extra &&
	sed -i "/  - {name: n, kind: size}/r extra" tasks/bad.yaml &&
	bad bad "tasks/bad.yaml:[0-9]*:[0-9]*: .args. has 1025 parameters; the task ABI takes at most 1024" &&
	spec bad bad &&
	for k in $(seq 1021); do echo "  - {name: w$k, kind: in, dtype: f32, shape: [2]}"; done >extra &&
	sed -i "/  - {name: n, kind: size}/r extra" tasks/bad.yaml &&
	"$RETORT_BIN/gen" --list --all >list && grep -qx bad list && rm -f tasks/bad.yaml extra list
'
test_done
