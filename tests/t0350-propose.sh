#!/bin/sh
# t0350: problems from the teacher (configure --propose): the curriculum's
# checks, every propose-check rule refusing its planted proposal and
# passing an honest one, one ninja from proposals to the kernel graph, a
# repair round, behavioural duplicates under other names, unique ids and
# provenance, a killed run resumed, an edited family re-asked alone,
# independent references compared (a wrong one caught, a third settling)
. "$(dirname "$0")/lib/lib.sh"
cpu_only "the kernel graph's verdicts would differ"

PLANT=$RETORT_ROOT/tests/lib/propose-plant
Q="'"
scratch_project "$T/p"
cd "$T/p" || exit 1
mkdir -p doc && cp "$RETORT_ROOT/doc/specs.md" doc/
spec a alpha
mkdir -p "$T/answers"
start_mock --propose-dir "$T/answers"

# curriculum FAMILY:COUNT...: tasks/curriculum.yaml, batches of 5, 2 rounds
curriculum() {
	{ echo "batch: 5"; echo "families:"
	  for fc; do printf '  - name: %s\n    covers: Elementwise maps of a vector (%s).\n    count: %s\n    exemplars: [a]\n' \
		"${fc%%:*}" "${fc%%:*}" "${fc#*:}"; done; } > tasks/curriculum.yaml
}
# check ANSWER.md COUNT: propose-check over one made-up round-1 answer, into check.json
check() {
	python3 -c "import json, sys; json.dump({'task': 'propose/t/b0', 'round': 1, 'status': 'answered',
'provider': 'openai', 'model': 'm', 'key': 'k', 'messages': [], 'answer': {'text': open(sys.argv[1]).read()}}, open('resp.json', 'w'))
json.dump({'id': 'propose/t/b0', 'kind': 'proposal', 'prompt': 'propose', 'system': 'propose-system', 'vars': {},
'family': 't', 'count': int(sys.argv[2]), 'rounds': 2}, open('task.json', 'w'))" "$1" "$2" &&
	shift 2 && "$RETORT_BIN/propose-check" -o check.json --cache-dir "$T/cache" --bindir "$RETORT_BIN" --src "$RETORT_ROOT/src" \
		task.json resp.json "$@"
}
# is FILE EXPR WANT: field FILE EXPR is WANT (else both said)
is() { got=$(field "$1" "$2") && test "$got" = "$3" || { echo "$2: got $got, want $3"; return 1; }; }
# asked: the proposal requests the mock teacher has had
asked() { mock requests | python3 -c "import json, sys; print(sum('retort-propose' in json.dumps(r['body']) for r in json.load(sys.stdin)))"; }
# outcomes: each proposal's id, status and failed rule, a line each
outcomes() { python3 -c "import json; [print(p.get('id'), p['status'], p.get('failed_rule')) for p in json.load(open('check.json'))['proposals']]"; }

test_expect_success 'a bad curriculum: file:line:col, did-you-mean, exit 2, nothing configured' '
	cd p && printf "batch: 3\nfamlies: []\nfamilies:\n  - name: Bad\n    count: 0\n    exemplar: [a]\n    difficulty: hardest\n    covers: x\n    vendor: \"a\\\\nb\"\n" > tasks/curriculum.yaml &&
	expect_fail 2 "curriculum.yaml:2:1: unknown key .famlies. in the curriculum (did you mean .families.?)" \
		"$RETORT_BIN/gen" --propose-split tasks/curriculum.yaml &&
	grep -q "curriculum.yaml:6:5: unknown key .exemplar. in a family (did you mean .exemplars.?)" "$T/.err" &&
	grep -q "curriculum.yaml:4:11: family name .Bad." "$T/.err" && grep -q "curriculum.yaml:5:12: .count. must be between" "$T/.err" &&
	grep -q "7:17: difficulty must be easy, medium or hard" "$T/.err" && grep -q "9:13: vendor is one line" "$T/.err" &&
	! rconfigure --provider=openai --model=m --propose=tasks/curriculum.yaml >/dev/null 2>&1 && test ! -f build.ninja
'
test_expect_success 'a curriculum nested past 64 levels: file:line:col, exit 2, nothing leaked (the sanitizer build)' '
	cd p && printf "batch: 3\nfamilies:\n  - name: a\n    covers: x\n    count: 1\n    exemplars: %s\n" \
		"$(printf "[%.0s" $(seq 80))a$(printf "]%.0s" $(seq 80))" >deep.yaml &&
	expect_fail 2 "deep.yaml:6:[0-9]*: nesting deeper than 64 levels" "$RETORT_BIN/gen" --propose-split deep.yaml
'
test_expect_success 'each rule refuses its planted proposal; honest ones pass every rule' '
	cd p && "$PLANT" a.md honest size schema caps no_allow no_overrides tolerance tighter:1 baseline_libs \
		text_is_data reference_c examples_present reference_builds examples degenerate reference_runs \
		deterministic depends_on_inputs depends_on_scalars empty &&
	check a.md 30 && outcomes > got && cat got &&
	cat > want <<-EOS &&
	p0_ginkgo passed None
	None failed size
	None failed schema
	p0_ginkgo failed caps
	p0_ginkgo failed no_allow
	p0_ginkgo failed no_overrides
	p0_ginkgo failed tolerance
	p1_alder passed None
	None failed schema
	p0_ginkgo failed text_is_data
	p0_ginkgo failed reference_c
	p0_ginkgo failed examples_present
	p0_ginkgo failed reference_builds
	p0_ginkgo failed examples
	p0_ginkgo failed degenerate
	p0_ginkgo failed reference_runs
	p0_ginkgo failed deterministic
	p0_ginkgo failed depends_on_inputs
	p0_ginkgo failed depends_on_scalars
	None empty None
	EOS
	diff want got &&
	field check.json "[r[\"rule\"] for r in d[\"proposals\"][0][\"rules\"]]" > rulelist && cat rulelist &&
	for r in size schema caps no_allow no_overrides tolerance baseline_libs text_is_data reference_c examples_present \
		reference_builds examples degenerate reference_runs cpu_time deterministic depends_on_inputs depends_on_scalars; do
		grep -q "$r" rulelist || { echo "no rule $r"; exit 1; }; done &&
	test "$(field check.json "all(r[\"ok\"] for r in d[\"proposals\"][0][\"rules\"])")" = True &&
	test "$(field check.json "d[\"failed\"]")" = "[1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]" &&
	grep -q "unknown baseline lib .libfoo." check.json && grep -q "unknown key .colour." check.json &&
	grep -q "a proposal cannot set .allow." check.json && grep -q "rtol of .y. is 0.5, looser than the f32 default" check.json &&
	grep -q "changing input .z. (every size 8) changes no output" check.json &&
	grep -q "changing scalar .alpha. (every size 8) changes no output" check.json &&
	grep -q "Proposal 3 (p0_ginkgo): rule .caps. failed" check.json && ! grep -q "work-" check.json
'
test_expect_success 'the CPU time window refuses a reference past --cpu-max' '
	cd p && "$PLANT" b.md honest && check b.md 1 --cpu-max 0.001 && outcomes | tee got && grep -q "failed cpu_time" got
'
test_expect_success LONG 'a reference that sleeps, spins or forks: refused (reference_runs) at --ref-seconds, nothing left running but zombies the end of its PID namespace reaps' '
	cd p && "$PLANT" h.md sleeps spins forks && check h.md 3 --ref-seconds 2 && outcomes | tee got &&
	test "$(grep -c "failed reference_runs" got)" = 3 &&
	test "$(field check.json "sum(\"ran past 2 s of wall clock\" in r[\"message\"] for p in d[\"proposals\"] for r in p[\"rules\"])")" = 3 &&
	! pgrep -x -r R,S,D,T reference
'
test_expect_success LONG 'a text near-duplicate under renamed arguments: caught by its text' '
	cd p && "$PLANT" n.md honest:0 renamed:0 && check n.md 2 && outcomes | tee got &&
	test "$(grep -c " passed " got)" = 2 && mkdir -p nspecs && echo check.json >n.rsp &&
	mkdir -p nacc && "$RETORT_BIN/propose-accept" -o nacc/accepted.json --specs nspecs @n.rsp >/dev/null &&
	is nacc/report.json "[(x[\"id\"], x[\"duplicates\"], x[\"by\"]) for x in d[\"duplicates\"]]" \
		"[(${Q}renamed0_ginkgo$Q, ${Q}p0_ginkgo$Q, ${Q}text$Q)]"
'
test_expect_success LONG 'a repair round gets the failures (as nvcc errors go back) and its answers are checked again' '
	cd p && "$PLANT" r1.md honest:0 no_allow:1 && check r1.md 2 && mv check.json r1.json &&
	"$PLANT" r2.md honest:1 && python3 -c "import json; json.dump({\"task\": \"propose/t/b0\", \"round\": 2, \"status\": \"answered\",
\"messages\": [], \"answer\": {\"text\": open(\"r2.md\").read()}}, open(\"resp.json\", \"w\"))" &&
	"$RETORT_BIN/propose-check" -o check.json --cache-dir "$T/cache" --bindir "$RETORT_BIN" --src "$RETORT_ROOT/src" task.json resp.json r1.json &&
	outcomes | tee got && test "$(cat got)" = "p1_alder passed None" && test "$(field check.json "d[\"proposals\"][0][\"index\"]")" = 1 &&
	test "$(field check.json "d[\"finished\"]")" = True
'
test_expect_success 'one ninja: proposals, checks, a repair round, accepted specs, then the kernel graph over them' '
	cd p && curriculum scale:6 other:2 &&
	"$PLANT" "$T/answers/scale-b0-r1.md" honest:0 no_allow:1 twin:0 near:0 corpus &&
	"$PLANT" "$T/answers/scale-b0-r2.md" honest:1 &&
	"$PLANT" "$T/answers/other-b0-r1.md" honest:7 && sed -i "s/p7_[a-z]*/alpha/g" "$T/answers/other-b0-r1.md" &&
	rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --rounds=1 \
		--tasks=alpha_2,p1_alder >c.log && cat c.log && ninja >n.log 2>&1; r=$?; tail -5 n.log; test $r = 0 &&
	ls out/propose/specs > specs && cat specs &&
	test "$(asked)" = 4 && test -f out/propose/scale/b0/r2/response.json &&
	grep -q "rule .no_allow. failed" out/propose/scale/b0/r2/response.json &&
	is out/propose/report.json "[d[\"families\"][\"scale\"][k] for k in (\"proposed\", \"accepted\", \"duplicates\",
		\"near_duplicates\", \"corpus_twins\", \"invalid\")]" "[6, 3, 1, 1, 1, 0]" &&
	is out/propose/report.json "[(x[\"id\"], x[\"duplicates\"], x[\"by\"]) for x in d[\"duplicates\"]]" \
		"[(${Q}twin0_ginkgo$Q, ${Q}p0_ginkgo$Q, ${Q}fingerprint$Q), (${Q}near0_ginkgo$Q, ${Q}p0_ginkgo$Q, ${Q}text$Q), (${Q}doubling$Q, ${Q}corpus:alpha$Q, ${Q}fingerprint$Q)]" &&
	grep -qx alpha_2.yaml specs && ! grep -q twin specs && test -f out/v/alpha_2/s0/record.json &&
	test -f out/v/p1_alder/s0/record.json && test -f out/dataset/SHA256SUMS
'
test_expect_success 'provenance: origin in the accepted spec and its task.json; tagged proposed and by family' '
	cd p && grep -A7 "^origin:" out/propose/specs/p1_alder.yaml &&
	is out/v/p1_alder/task.json "\" \".join([d[\"origin\"][\"source\"], d[\"origin\"][\"model\"], str(d[\"origin\"][\"round\"]),
		d[\"origin\"][\"family\"]] + d[\"tags\"])" "teacher served-model 2 scale mock proposed scale" &&
	test "$(field out/v/p1_alder/task.json "len(d[\"origin\"][\"request\"])")" = 64 &&
	test "$(field out/v/p1_alder/s0/record.json "d[\"origin\"] + \" \" + d[\"reference_language\"]")" = "teacher c"
'
test_expect_success 'a second ninja is a no-op' '
	cd p && ninja >n.log && cat n.log && grep -q "no work to do" n.log && test "$(asked)" = 4
'
test_expect_success 'editing one family re-asks only its batches' '
	cd p && sed -i "s/(other)/(other, edited)/" tasks/curriculum.yaml && ninja >n.log 2>&1 && ran n.log > ran.log &&
	grep "^ASK" ran.log && test "$(asked)" = 5 && ! grep "^ASK out/propose/" ran.log | grep -v -q "propose/other/" &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'a killed proposal run resumes: nothing answered is asked again' '
	cd p && mock reset && curriculum scale:6 other:2 many:6 && rm -f "$T/answers"/* &&
	rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --tasks=none-of-them >/dev/null &&
	mock script "[{\"delay\": 2}, {\"delay\": 2}]" || exit 1
	setsid ninja -j 4 >k.log 2>&1 &
	npid=$!
	i=0; while test "$(asked)" -lt 2 && test $i -lt 200; do sleep 0.05; i=$((i + 1)); done &&
	kill -KILL -"$npid" && echo "asked $(asked) when ninja was killed" && test ! -f out/propose/many/b0/r1/check.json &&
	sleep 3 && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 && echo "asked $(asked) in all" &&
	test "$(asked)" = 2 && test "$(ls out/propose/many | wc -l)" = 2 &&
	test "$(field out/propose/report.json "d[\"families\"][\"many\"][\"passed\"]")" = 6 &&
	ninja >n.log && grep -q "no work to do" n.log
'
# refs OUT G:SHIFT...: a reference answer, problem G's function off by SHIFT, a ```c block each
refs() {
	python3 - "$RETORT_ROOT/tests/lib" "$@" <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[1])
	import mock_propose as mp
	with open(sys.argv[2], "w") as f:
	    for gs in sys.argv[3:]:
	        g, d = int(gs.split(":")[0]), float(gs.split(":")[1])
	        op, a, b = mp.function(g)
	        f.write("Reference %d\n```c\n#include <math.h>\nvoid reference(const float *x, float *y, float alpha, int n)\n"
	                "{ for (int i = 0; i < n; i++) y[i] = alpha * %s + %.17g; }\n```\n\n" % (g, mp.OPS[op][1], b + d))
	PY
}
# refasked: the reference requests the mock teacher has had
refasked() { mock requests | python3 -c "import json, sys; print(sum('retort-reference' in json.dumps(r['body']) for r in json.load(sys.stdin)))"; }
test_expect_success LONG 'independent references: a wrong second one settled by a third (2/3), disagreements held back, nothing asked for none' '
	cd p && mock reset && rm -f "$T/answers"/* && curriculum refs:4 bad:1 &&
	"$PLANT" "$T/answers/refs-b0-r1.md" honest:20 honest:21 honest:22 honest:23 &&
	"$PLANT" "$T/answers/bad-b0-r1.md" no_allow:30 &&
	refs "$T/answers/refs-b0-ref2.md" 20:0.5 21:0.5 22:0 23:0.5 && refs "$T/answers/refs-b0-ref3.md" 20:0 21:0.5 23:1 &&
	rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --rounds=1 --tasks=none-of-them \
		>/dev/null && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	test "$(refasked)" = 2 && is out/propose/bad/b0/ref2/response.json "d[\"status\"]" done &&
	is out/propose/refs/b0/ref2/agree.json "[(p[\"id\"][:3], p[\"status\"]) for p in d[\"problems\"]]" \
		"[(${Q}p20$Q, ${Q}disagreed$Q), (${Q}p21$Q, ${Q}disagreed$Q), (${Q}p22$Q, ${Q}agreed$Q), (${Q}p23$Q, ${Q}disagreed$Q)]" &&
	grep -q "elements differ" out/propose/refs/b0/ref2/agree.json &&
	grep -q "The signature: .void reference(const float\* x, float\* y, float alpha, int n)" out/propose/refs/b0/ref2/task.json &&
	is out/propose/refs/b0/ref2/task.json "\"reference:\" in d[\"vars\"][\"problems\"]" False &&
	is out/propose/refs/b0/agree.json "sorted((p[\"id\"][:3], p[\"status\"], p.get(\"agreement\")) for p in d[\"problems\"])" \
		"[(${Q}p20$Q, ${Q}agreed$Q, ${Q}2/3$Q), (${Q}p21$Q, ${Q}rejected$Q, None), (${Q}p22$Q, ${Q}agreed$Q, ${Q}2/2$Q), (${Q}p23$Q, ${Q}rejected$Q, None)]" &&
	is out/propose/report.json "[d[\"families\"][\"refs\"][k] for k in (\"passed\", \"references_disagree\", \"accepted\")]" "[4, 2, 2]" &&
	is out/propose/report.json "[(x[\"id\"][:3], x[\"why\"][:14], len(x[\"comparisons\"])) for x in d[\"references_disagree\"]]" \
		"[(${Q}p21$Q, ${Q}references 2 a$Q, 3), (${Q}p23$Q, ${Q}no two of the $Q, 3)]" &&
	grep -q "references: \"2/3\"" out/propose/specs/p20_*.yaml && grep -q "references: \"2/2\"" out/propose/specs/p22_*.yaml &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG '--batch: each stage'"'"'s requests (the rounds, the references) in one batch of the provider'"'"'s, none one by one' '
	cd p && mock reset && rm -f "$T/answers"/* && curriculum bat:6 &&
	sed -i "s/^  batch: {.*}/  batch: {poll_s: 0.1, poll_max_s: 0.3, attempts: 3}/" models.yaml &&
	gpt_test &&
	rconfigure --provider=openai --model=gpt-test --propose=tasks/curriculum.yaml --rounds=1 --tasks=none-of-them --batch \
		>/dev/null && grep -q "^build out/batch/propose-r1.json: batch" build.ninja &&
	grep -q "^build out/batch/propose-ref2.json: batch" build.ninja &&
	ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	creates=$(mock requests | python3 -c "import json, sys; print(sum(r.get(\"method\") == \"POST\" and r[\"path\"] == \"/v1/batches\" for r in json.load(sys.stdin)))") &&
	direct=$(mock requests | python3 -c "import json, sys; print(sum(r[\"path\"] == \"/v1/chat/completions\" for r in json.load(sys.stdin)))") &&
	echo "batches $creates, direct $direct" && test "$creates" = 2 && test "$direct" = 0 &&
	is out/batch/propose-r1.json "d[\"answered\"]" 2 && is out/batch/propose-ref2.json "d[\"answered\"]" 2 &&
	is out/propose/report.json "d[\"families\"][\"bat\"][\"accepted\"]" 6 &&
	grep -q "references: \"2/2\"" out/propose/specs/p*_*.yaml &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'a family that names a vendor routine: the request says so, and a proposal without a baseline naming its library fails baseline_vendor' '
	cd p && mock reset && rm -f "$T/answers"/* && curriculum vend:3 plain:1 &&
	sed -i "/name: vend/,/exemplars/ s/^    exemplars: \[a\]/    exemplars: [a]\n    vendor: cuBLAS cublasSaxpy/" tasks/curriculum.yaml &&
	grep -q "vendor: cuBLAS cublasSaxpy" tasks/curriculum.yaml &&
	"$PLANT" "$T/answers/vend-b0-r1.md" baseline:50 vendorbaseline:51 wrongvendor:53 && "$PLANT" "$T/answers/plain-b0-r1.md" honest:52 &&
	rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --rounds=1 --tasks=none-of-them \
		>/dev/null && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	is out/propose/vend/b0/r1/check.json "[(p[\"id\"][:3], p[\"status\"], p.get(\"failed_rule\")) for p in d[\"proposals\"]]" \
		"[(${Q}p50$Q, ${Q}failed$Q, ${Q}baseline_vendor$Q), (${Q}p51$Q, ${Q}passed$Q, None), (${Q}p53$Q, ${Q}failed$Q, ${Q}baseline_vendor$Q)]" &&
	grep -q "vendor routine (cuBLAS cublasSaxpy).*naming its library (cublas)" out/propose/vend/b0/r1/check.json &&
	mock requests | python3 -c "import json, sys; b = [json.dumps(r[\"body\"]) for r in json.load(sys.stdin) if \"retort-propose\" in json.dumps(r[\"body\"])]
v = [x for x in b if \"family=vend\" in x]; p = [x for x in b if \"family=plain\" in x]
print(len(v), len(p)); assert v and p
assert all(\"vendor routine: cuBLAS cublasSaxpy\" in x for x in v) and not any(\"vendor routine:\" in x for x in p)" &&
	is out/propose/report.json "d[\"families\"][\"vend\"][\"accepted\"]" 1
'
# p4X: the accepted spec file of mock problem 4X
p4() { ls out/propose/specs/p4$1_*.yaml | sed 's@.*/@@; s@\.yaml$@@'; }
# counts CHECKED AGREED DISAGREED REFUSED UNCHECKED: family bl's in out/propose/baselines.json
counts() { is out/propose/baselines.json "\" \".join(str(d[\"families\"][\"bl\"][k]) for k in (\"checked\", \"agreed\", \"disagreed\", \"refused\", \"unchecked\"))" "$*"; }
test_expect_success LONG 'a proposal'"'"'s baseline checked against its reference first: unchecked without a GPU, kept (a reference that fails only at a bench size too: no bench size runs without a GPU); one that disagrees held back, named, counted, out of the kernel graph, the build going on' '
	cd p && mock reset && rm -f "$T/answers"/* && curriculum bl:3 &&
	"$PLANT" "$T/answers/bl-b0-r1.md" baseline:40 wrongbaseline:41 benchcrash:43 &&
	rconfigure --provider=openai --model=served-model --propose=tasks/curriculum.yaml --rounds=1 --tasks="p4*" \
		>/dev/null && ninja >n.log 2>&1; r=$?; tail -3 n.log; test $r = 0 &&
	good=$(p4 0) && bad=$(p4 1) && crash=$(p4 3) && echo "$good $bad $crash" &&
	! grep -q "held back .$crash." n.log &&
	grep -q "^# proposal baselines: 3 specs" build.ninja && grep -q "^    \$gen .*out/propose/baselines.json" build.ninja &&
	counts 0 0 0 0 3 &&
	is out/propose/baselines.json "[(x[\"spec\"], x[\"variant\"], x[\"status\"]) for x in d[\"specs\"]]" \
		"[($Q$good$Q, $Q$good$Q, ${Q}unchecked$Q), ($Q$bad$Q, $Q$bad$Q, ${Q}unchecked$Q), ($Q$crash$Q, $Q$crash$Q, ${Q}unchecked$Q)]" &&
	is out/v/$crash/expected.json "d[\"bench_sizes\"]" False &&
	test -f out/v/$good/s0/record.json && test -f out/v/$bad/s0/record.json && test -f out/v/$crash/s0/record.json &&
	ninja >n.log && grep -q "no work to do" n.log &&
	python3 -c "import json, sys; p = sys.argv[1]; d = json.load(open(p)); d.update(verdict=\"mismatch\",
feedback=\"y[0] = 0.5 (want 0)\"); json.dump(d, open(p, \"w\"))" out/v/$bad/oracle.json &&
	ninja >n.log 2>&1; r=$?; cat n.log; test $r = 0 &&
	grep -q "held back .$bad. (rule baseline_agreement): its baseline (the teacher.s) is not correct against its reference on $bad: mismatch: y\[0\] = 0.5" n.log &&
	counts 1 0 1 0 2 &&
	! grep -q "^build out/v/$bad/s0" build.ninja && grep -q "^build out/v/$bad/oracle.json" build.ninja &&
	grep -q "^build out/v/$good/s0/r1/response.json" build.ninja &&
	mkdir ds && tar -xzf out/dataset/*.tar.gz -C ds && grep -rq "$good" ds && ! grep -rq "$bad" ds &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success LONG 'propose-accept --baselines on verify --baseline'"'"'s verdicts (the fake device): a right baseline agrees, a wrong one disagrees' '
	mkdir fk && cd fk && fake_gpu && fake_runtime && fake_variant fakescale fakescale &&
	sed "s/+ 1.0f/+ 1.5f/" "$FAKE/baseline.c" >wrong.c && d=out/v/fakescale && mkdir w && cp $d/task.json w/ &&
	cc -shared -fPIC -o w/baseline.so wrong.c &&
	"$RETORT_BIN/verify" --baseline --lock-dir gpu -o w/oracle.json w/task.json $d/harness $d/expected.json w/baseline.so &&
	is w/oracle.json "d[\"verdict\"]" mismatch &&
	"$RETORT_BIN/propose-accept" --baselines -o bl.json $d/oracle.json w/oracle.json 2>err && cat err &&
	is bl.json "[x[\"status\"] for x in d[\"specs\"]]" "[${Q}agreed$Q, ${Q}disagreed$Q]" &&
	grep -q "held back .fakescale. (rule baseline_agreement)" err &&
	expect_fail 2 "alone" "$RETORT_BIN/propose-accept" --baselines -o bl.json --specs x $d/oracle.json
'
test_done
