#!/bin/sh
# t0360: hand-written specs with `reference: teacher`: the keyword and its
# slips refused, two independent references asked of the (mock) teacher,
# compared in the sandbox and the completed spec's kernel graph run (2/2),
# a wrong second reference settled by a third (2/3, either of the first
# two kept), a disagreement held back and named, a no-op second ninja, an
# edited spec re-asking only its own requests, a matrix whose variants'
# reference signatures differ (each shown; a reference that fits one of them
# held back; one written as a template of {dtype} completed), a killed run
# resumed
. "$(dirname "$0")/lib/lib.sh"
cpu_only "the kernel graph's verdicts would differ"

Q="'"
scratch_project "$T/p"
cd "$T/p" || exit 1
mkdir -p "$T/answers"
start_mock --propose-dir "$T/answers"

# tspec NAME ID: tasks/NAME.yaml, lib.sh's spec with reference: teacher
tspec() {
	spec "$1" "$2" && python3 - "tasks/$1.yaml" <<-'PY'
	import re, sys
	s = open(sys.argv[1]).read()
	s = re.sub(r"^reference: \|\n(  .*\n)+", "reference: teacher\n", s, flags=re.M)
	open(sys.argv[1], "w").write(s)
	PY
}
# answer ID N EXPR: the mock's answer to spec ID's reference request N: y[i] = EXPR
answer() {
	printf 'Reference\n```c\nvoid reference(const float *x, float *y, int n)\n{ for (int i = 0; i < n; i++) y[i] = %s; }\n```\n' \
		"$3" > "$T/answers/spec-$1-ref$2.md"
}
# mspec NAME ID: tspec over a matrix, dtype [f32, f64]: two reference signatures (float, double)
mspec() {
	tspec "$1" "$2" && sed -i 's/dtype: f32/dtype: "{dtype}"/' "tasks/$1.yaml" &&
	printf 'matrix:\n  dtype: [f32, f64]\n' >> "tasks/$1.yaml" && replay "$2.f32" "$2.f64"
}
# tanswer ID N EXPR: answer's reference as a template of {dtype}, as a hand-written spec's may be
tanswer() {
	printf 'Reference\n```c\n#define R_f32 float\n#define R_f64 double\ntypedef R_{dtype} real;\nvoid reference(const real *x, real *y, int n)\n{ for (int i = 0; i < n; i++) y[i] = %s; }\n```\n' \
		"$3" > "$T/answers/spec-$1-ref$2.md"
}
# refasked: the reference requests the mock teacher has had
refasked() { mock requests | python3 -c "import json, sys; print(sum('retort-reference' in json.dumps(r['body']) for r in json.load(sys.stdin)))"; }
# is FILE EXPR WANT: field FILE EXPR is WANT (else both said)
is() { got=$(field "$1" "$2") && test "$got" = "$3" || { echo "$2: got $got, want $3"; return 1; }; }

test_expect_success 'reference: teacher is a keyword: a slip or an origin beside it is refused, file:line:col' '
	cd p && tspec a alpha && sed -i "s/^reference: teacher/reference: teachr/" tasks/a.yaml &&
	expect_fail 2 "a.yaml:12:12: reference .teachr. is neither C code defining .void reference(...). nor the keyword .teacher. (did you mean .teacher.?)" \
		"$RETORT_BIN/gen" --list --all &&
	tspec a alpha && echo "origin: {source: mine}" >> tasks/a.yaml &&
	expect_fail 2 "a.yaml:14:9: a spec with .reference: teacher. has no .origin." "$RETORT_BIN/gen" --list --all &&
	tspec a alpha && "$RETORT_BIN/gen" --list --all > list && test ! -s list
'
test_expect_success 'two independent references agree (2/2): the completed spec, and its kernel graph runs' '
	cd p && tspec a alpha && spec b beta && answer alpha 1 "2 * x[i]" && answer alpha 2 "x[i] + x[i]" &&
	rconfigure --provider=openai --model=served-model --tasks=alpha,beta >c.log && cat c.log &&
	grep -q "^# teacher references: 1 specs" build.ninja && grep -q "^    \$gen .*out/teacherref/accepted.json" build.ninja &&
	ninja >n.log 2>&1; r=$?; tail -5 n.log; test $r = 0 &&
	test "$(refasked)" = 2 &&
	grep -q "retort-reference spec=alpha n=1" out/teacherref/a/ref1/task.json &&
	grep -q "The signature: .void reference(const float\* x, float\* y, int n)" out/teacherref/a/ref2/task.json &&
	is out/teacherref/a/ref2/task.json "\"reference:\" in d[\"vars\"][\"problems\"]" False &&
	is out/teacherref/a/ref2/agree.json "[(p[\"status\"], p[\"agreement\"]) for p in d[\"problems\"]]" "[(${Q}agreed$Q, ${Q}2/2$Q)]" &&
	grep -q "^  references: \"2/2\"" out/teacherref/specs/a.yaml && grep -q "^  source: teacher-reference" out/teacherref/specs/a.yaml &&
	grep -q "y\[i\] = 2 \* x\[i\]" out/teacherref/specs/a.yaml &&
	is out/teacherref/accepted.json "[(s[\"file\"], s[\"status\"], s[\"references\"]) for s in d[\"specs\"]]" \
		"[(${Q}tasks/a.yaml$Q, ${Q}completed$Q, ${Q}2/2$Q)]" &&
	is out/v/alpha/task.json "(d[\"origin\"][\"source\"], d[\"origin\"][\"references\"], d[\"origin\"][\"file\"])" \
		"(${Q}teacher-reference$Q, ${Q}2/2$Q, ${Q}tasks/a.yaml$Q)" &&
	test -f out/v/alpha/expected.json && test -f out/v/alpha/s0/record.json && test -f out/v/beta/s0/record.json &&
	is out/v/alpha/s0/record.json "d[\"origin\"]" teacher-reference && test -f out/dataset/SHA256SUMS &&
	mkdir x && tar -xzf out/dataset/*.tar.gz -C x && grep -q "^| config | split | hand-written | kernelbench | teacher | teacher-reference | other |" x/README.md &&
	grep -q "teacher-reference. ones are hand-written problems" x/README.md &&
	test "$(field x/manifest.json "sum(v[\"rows_by_origin\"][\"teacher-reference\"] for v in d[\"lengths\"][\"default\"].values())")" -ge 1
'
test_expect_success 'a second ninja is a no-op' '
	cd p && ninja >n.log && cat n.log && grep -q "no work to do" n.log && test "$(refasked)" = 2
'
test_expect_success 'a wrong reference settled by a third (2/3): the first kept, or the second when the first is wrong' '
	cd p && tspec c gamma && tspec d delta &&
	answer gamma 1 "2 * x[i]" && answer gamma 2 "3 * x[i]" && answer gamma 3 "x[i] * 2" &&
	answer delta 1 "2 * x[i] + 1" && answer delta 2 "2 * x[i]" && answer delta 3 "x[i] * 2" &&
	ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 && test "$(refasked)" = 8 &&
	is out/teacherref/c/agree.json "[(p[\"status\"], p[\"agreement\"]) for p in d[\"problems\"]]" "[(${Q}agreed$Q, ${Q}2/3$Q)]" &&
	grep -q "elements differ" out/teacherref/c/ref2/agree.json &&
	grep -q "y\[i\] = 2 \* x\[i\];" out/teacherref/specs/c.yaml && grep -q "y\[i\] = 2 \* x\[i\];" out/teacherref/specs/d.yaml &&
	grep -q "^  references: \"2/3\"" out/teacherref/specs/d.yaml &&
	"$RETORT_BIN/gen" --list --all > list && grep -qx gamma list && grep -qx delta list &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'no two agree: the spec is held back, named, with every comparison; no kernel graph for it' '
	cd p && tspec e eps && answer eps 1 "2 * x[i]" && answer eps 2 "3 * x[i]" && answer eps 3 "4 * x[i]" &&
	ninja >n.log 2>&1; r=$?; cat n.log; test $r = 0 &&
	grep -q "propose-accept: tasks/e.yaml: held back: .*no two of the three references agree.*out/teacherref/e/agree.json" n.log &&
	is out/teacherref/accepted.json "[(s[\"file\"], s[\"status\"], len(s.get(\"comparisons\", []))) for s in d[\"specs\"] if s[\"status\"] != \"completed\"]" \
		"[(${Q}tasks/e.yaml$Q, ${Q}held$Q, 3)]" &&
	test ! -f out/teacherref/specs/e.yaml && "$RETORT_BIN/gen" --list --all > list && ! grep -q eps list &&
	grep -qx gamma list &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'two references that agree and both miss the spec'"'"'s examples: held back, the rule named' '
	cd p && spec h eta "examples:
  - sizes: {n: 2}
    in: {x: [1, 2]}
    out: {y: [2, 4]}" && sed -i "/^reference: |/,/^  {/d" tasks/h.yaml && sed -i "s/^examples:/reference: teacher\nexamples:/" tasks/h.yaml &&
	cat tasks/h.yaml && answer eta 1 "3 * x[i]" && answer eta 2 "x[i] * 3" &&
	ninja >n.log 2>&1; r=$?; cat n.log; test $r = 0 &&
	grep -q "propose-accept: tasks/h.yaml: held back: .*the kept one fails rule .examples." n.log &&
	test ! -f out/teacherref/specs/h.yaml && test "$(refasked)" = 13 &&
	answer eta 1 "2 * x[i]" && answer eta 2 "x[i] + x[i]" && sed -i "s/^description: .*/description: Double a vector (eta)./" tasks/h.yaml &&
	ninja >n.log 2>&1; r=$?; tail -2 n.log; test $r = 0 && test -f out/teacherref/specs/h.yaml &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'editing one spec re-asks only its own requests, and its kernel graph gets the edit' '
	cd p && sed -i "s/^description: .*/description: Scale a vector by two, doubling each element (alpha)./" tasks/a.yaml &&
	ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 && ran n.log > ran.log &&
	grep "^ASK out/teacherref/" ran.log > asks && cat asks && test "$(refasked)" = 17 &&
	grep -q "teacherref/a/ref1/" asks && grep -q "teacherref/a/ref2/" asks && ! grep -v -q "teacherref/a/" asks &&
	grep -q "doubling each element" out/teacherref/specs/a.yaml && grep -q "doubling each element" out/v/alpha/task.json &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'a matrix of two reference signatures: the request shows both, and a reference for float alone is held back, f64 named' '
	cd p && mspec k kappa && answer kappa 1 "2 * x[i]" && answer kappa 2 "x[i] + x[i]" &&
	ninja >n.log 2>&1; r=$?; cat n.log; test $r = 0 &&
	grep -q "The signatures: .* 2 different reference signatures.*must compile with each of them" out/teacherref/k/ref1/task.json &&
	grep -q "void reference(const float\* x, float\* y, int n). for dtype f32 (1 variant: kappa.f32)" out/teacherref/k/ref2/task.json &&
	grep -q "void reference(const double\* x, double\* y, int n). for dtype f64 (1 variant: kappa.f64)" out/teacherref/k/ref2/task.json &&
	grep -q "typedef R_{dtype} real;" out/teacherref/k/ref1/task.json &&
	grep -q "propose-accept: tasks/k.yaml: held back: .*passes its checks for variant .kappa.f32., but fails rule .reference_builds. for variant .kappa.f64., whose reference signature is .void reference(const double\* x, double\* y, int n)." n.log &&
	is out/teacherref/k/ref2/agree.json "[(s[\"variant\"], s[\"signature\"]) for s in d[\"problems\"][0][\"signatures_checked\"]]" \
		"[(${Q}kappa.f32$Q, ${Q}void reference(const float* x, float* y, int n)$Q), (${Q}kappa.f64$Q, ${Q}void reference(const double* x, double* y, int n)$Q)]" &&
	is out/teacherref/accepted.json "[s[\"status\"] for s in d[\"specs\"] if s[\"file\"] == \"tasks/k.yaml\"]" "[${Q}held$Q]" &&
	test ! -f out/teacherref/specs/k.yaml && "$RETORT_BIN/gen" --list --all > list && ! grep -q kappa list &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'a reference written as a template of {dtype} builds for both signatures: completed, both variants in the kernel graph' '
	cd p && mspec m mu && tanswer mu 1 "2 * x[i]" && tanswer mu 2 "x[i] + x[i]" &&
	ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	is out/teacherref/m/ref2/agree.json "[(p[\"status\"], [s[\"variant\"] for s in p[\"signatures_checked\"]]) for p in d[\"problems\"]]" \
		"[(${Q}agreed$Q, [${Q}mu.f32$Q, ${Q}mu.f64$Q])]" &&
	grep -q "^  typedef R_{dtype} real;" out/teacherref/specs/m.yaml &&
	"$RETORT_BIN/gen" --list --all > list && grep -qx mu.f32 list && grep -qx mu.f64 list &&
	rconfigure --provider=openai --model=served-model --tasks=alpha,beta,mu >c.log && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	is out/v/mu.f64/task.json "\"typedef R_f64 real;\" in d[\"reference\"]" True &&
	test -f out/v/mu.f32/expected.json && test -f out/v/mu.f64/expected.json &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'one signature, a template that differs beyond the types: the variant whose code does not build is checked, and holds the spec back' '
	cd p && tspec n nu && sed -i "s/^description: Scale a vector by two (nu)./description: Scale a vector by two (nu, in mode {k})./" tasks/n.yaml &&
	printf "matrix:\n  k: [1, 2]\n" >> tasks/n.yaml && replay nu.k1 nu.k2 &&
	for r in 1 2; do
		printf "Reference\n\`\`\`c\n#define SCALE_1 2 *\nvoid reference(const float *x, float *y, int n)\n{ for (int i = 0; i < n; i++) y[i] = SCALE_{k} x[i]; }\n\`\`\`\n" \
			> "$T/answers/spec-nu-ref$r.md" || exit 1
	done &&
	ninja >n.log 2>&1; r=$?; cat n.log; test $r = 0 &&
	is out/teacherref/n/ref2/agree.json "[(s[\"variant\"], s[\"signature\"]) for s in d[\"problems\"][0][\"signatures_checked\"]]" \
		"[(${Q}nu.k1$Q, ${Q}void reference(const float* x, float* y, int n)$Q), (${Q}nu.k2$Q, ${Q}void reference(const float* x, float* y, int n)$Q)]" &&
	grep -q "propose-accept: tasks/n.yaml: held back: .*passes its checks for variant .nu.k1., but fails rule .reference_builds. for variant .nu.k2." n.log &&
	test ! -f out/teacherref/specs/n.yaml && ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'a killed run resumes: nothing answered is asked again' '
	cd p && mock reset && tspec f phi && answer phi 1 "2 * x[i]" && answer phi 2 "x[i] * 2" &&
	tspec g chi && answer chi 1 "2 * x[i]" && answer chi 2 "x[i] * 2" &&
	mock script "[{\"delay\": 2}, {\"delay\": 2}]" || exit 1
	setsid ninja -j 4 >k.log 2>&1 &
	npid=$!
	i=0; while test "$(refasked)" -lt 2 && test $i -lt 200; do sleep 0.05; i=$((i + 1)); done &&
	kill -KILL -"$npid" && echo "asked $(refasked) when ninja was killed" && test ! -f out/teacherref/specs/f.yaml &&
	sleep 3 && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 && echo "asked $(refasked) in all" &&
	test "$(refasked)" = 4 && test -f out/teacherref/specs/f.yaml && test -f out/teacherref/specs/g.yaml &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_done
