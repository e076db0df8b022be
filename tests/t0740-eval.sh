#!/bin/sh
# t0740: evaluating a student. metrics over records made from fixture
# round files of a known mix (tests/eval/fixtures.py: verdicts and timings
# as a GPU host writes them), every metric against values worked out by
# hand (below) and pass@k against the estimator's formula; --compare on two
# such runs with known flips; the report with both side by side; the
# held-out default selection; and, with the loopback mock as the student,
# configure --eval end to end on this machine (no GPU: built kernels are
# unverified, never correct), whose records enter no dataset.
#
# By hand, base (3 samples a task, speedups of the final = fastest correct round):
#   fast   built 2/3, correct 2/3 (rounds 1 and 2), speedups 2.5 and 1.2:
#          pass@1 2/3, pass@2 1 - C(1,2)/C(3,2) = 1, pass@3 1; fast_0 2/3,
#          fast_1 2/3, fast_1.5 1/3, fast_2 1/3; geomean sqrt(3); by round 1/3, 2/3
#   slow   built 2/3, correct 1/3 (round 1; final round 2: 0.8x): pass@1
#          1/3, pass@2 1 - C(2,2)/C(3,2) = 2/3, pass@3 1; fast_0 1/3, the
#          rest 0; geomean 0.8; by round 1/3, 1/3
#   wrong  built 1, correct 0;  broken  built 0, correct 0
#   overall (means over the 4 tasks): compile 7/12, correct 1/4, pass@1
#   1/4, pass@2 5/12, pass@3 1/2, fast 1/4, 1/6, 1/12, 1/12; geomean over
#   the 3 timed samples 2.4^(1/3); by round 1/6, 1/4; 11 samples of two
#   rounds and one of one: 34000 input and 6900 output tokens, $0.34
# (fast here is fast_samples, the share of a task's samples; geomean is
#   geomean_speedup_samples, over every timed correct sample)
# new: slow broken, wrong and broken fixed, extra only in new; correct rate
#   over the 4 common tasks 1/4 -> (2/3 + 0 + 1/3 + 1/3)/4 = 1/3.
#
# The papers' definitions, by hand, over tests/eval/fixtures.py's paper set
# (5 tasks of 4 specs, 2 samples each; speedups over eager, over
# torch.compile in parentheses):
#   mm.a   s0 2.5x (1.2x), s1 0.5x (0.3x): correct 2/2
#   mm.b   s0 0.8x at round 1, 1.6x (0.9x) at round 2: its speedup is its
#          best correct round's, 1.6x (record's final round is round 1, the
#          fastest at the first bench size); s1 wrong: correct 1/2
#   relu   s0 verify correct, bench mismatch: incorrect; s1 3.0x (2.2x)
#   fused  s0 correct, not timed; s1 compile error
#   softmax both wrong
# fast_first (KernelBench's fast_p, sample 0 of each task, over 5 tasks):
#   p=0: mm.a, mm.b, fused (untimed, but correct) = 3/5; p=1: mm.a, mm.b =
#   2/5; p=1.5: 2/5; p=2: mm.a = 1/5
# fast_best (any sample): p=0: 4/5 (relu's s1 too); p=1: 3/5; 1.5: 3/5;
#   p=2: mm.a, relu = 2/5
# fast_compile_first: p=0 3/5; p=1: mm.a (1.2) = 1/5; 1.5, 2: 0
# fast_compile_best: p=0 4/5; p=1: mm.a, relu = 2/5; 1.5, 2: relu = 1/5
# pass@1 = (1 + 1/2 + 1/2 + 1/2 + 0)/5 = 1/2; pass@2 = (1+1+1+1+0)/5 = 4/5
#   (the bench-caught sample is no correct one: relu has c = 1 of n = 2)
# geomean_speedup_first over tasks whose first sample is correct and timed:
#   sqrt(2.5 * 1.6) = 2; _best: (2.5 * 1.6 * 3.0)^(1/3) = 12^(1/3);
#   _samples: (2.5 * 0.5 * 1.6 * 3.0)^(1/4) = 6^(1/4)
# Intervals (2000 resamples of the 4 specs; the mm spec is one cluster of
#   two tasks): fast_first.2 is 1 in mm.a only, so a resample with j of 4
#   draws mm has j/(2j + 4 - j) = j/(j + 4): P(j = 0) = (3/4)^4 = 0.32, the
#   low end 0; P(j >= 3) = 13/256 = 0.051 > 0.025 > P(j = 4) = 1/256, the
#   high end 3/7 (resampling the 5 tasks instead it would be 3/5).
#   geomean_speedup_first: only spec mm has timed first samples, so every
#   resample that has a value has 2: [2, 2].
# By level with --problems 1=4 --problems 2=2 (a problem not evaluated
#   counts as failed): level 1 (mm.a, mm.b, relu, one missing) fast_first
#   p=0 2/4, p=1 2/4, p=2 1/4, compile p=1 1/4; level 2 (fused, one missing)
#   p=0 1/2, p=1 0; all 6: p=0 3/6, p=1 2/6, p=2 1/6. softmax is no
#   KernelBench problem.
. "$(dirname "$0")/lib/lib.sh"

M=$RETORT_BIN/metrics
fixtures() { python3 "$RETORT_ROOT/tests/eval/fixtures.py" "$@"; }

test_expect_success 'metrics over the fixture records' '
	fixtures base base && records base && "$M" -o base.json @base/records &&
	fixtures new new && records new && "$M" -o new.json @new/records
'

test_expect_success 'every metric is the hand-computed value' '
	python3 - <<-\PY
	import json, math
	m = json.load(open("base.json"))
	def near(got, want, what):
	    assert got is not None and abs(got - want) < 1e-12, (what, got, want)
	t = m["tasks"]
	want = {
	    "fast": dict(compile_rate=2/3, correct_rate=2/3, pass_at={"1": 2/3, "2": 1, "3": 1},
	                 fast_samples={"0": 2/3, "1": 2/3, "1.5": 1/3, "2": 1/3}, geomean_speedup_samples=math.sqrt(3),
	                 correct_after_round=[1/3, 2/3]),
	    "slow": dict(compile_rate=2/3, correct_rate=1/3, pass_at={"1": 1/3, "2": 2/3, "3": 1},
	                 fast_samples={"0": 1/3, "1": 0, "1.5": 0, "2": 0}, geomean_speedup_samples=0.8,
	                 correct_after_round=[1/3, 1/3]),
	    "wrong": dict(compile_rate=1, correct_rate=0, pass_at={"1": 0, "2": 0, "3": 0},
	                  fast_samples={"0": 0, "1": 0, "1.5": 0, "2": 0}, geomean_speedup_samples=None, correct_after_round=[0, 0]),
	    "broken": dict(compile_rate=0, correct_rate=0, pass_at={"1": 0, "2": 0, "3": 0},
	                   fast_samples={"0": 0, "1": 0, "1.5": 0, "2": 0}, geomean_speedup_samples=None, correct_after_round=[0, 0]),
	}
	want["overall"] = dict(compile_rate=7/12, correct_rate=1/4, pass_at={"1": 1/4, "2": 5/12, "3": 1/2},
	                       fast_samples={"0": 1/4, "1": 1/6, "1.5": 1/12, "2": 1/12}, geomean_speedup_samples=2.4 ** (1/3),
	                       correct_after_round=[1/6, 1/4])
	assert sorted(t) == ["broken", "fast", "slow", "wrong"], sorted(t)
	for name, w in want.items():
	    got = m["overall"] if name == "overall" else t[name]
	    for k, v in w.items():
	        if isinstance(v, dict):
	            assert sorted(got[k]) == sorted(v), (name, k, got[k])
	            for kk in v:
	                near(got[k][kk], v[kk], (name, k, kk))
	        elif isinstance(v, list):
	            assert len(got[k]) == len(v), (name, k, got[k])
	            for i, x in enumerate(v):
	                near(got[k][i], x, (name, k, i))
	        elif v is None:
	            assert got[k] is None, (name, k, got[k])
	        else:
	            near(got[k], v, (name, k))
	        assert got["unverified_rate"] == 0, got
	o = m["overall"]
	assert (o["tasks"], o["samples"]) == (4, 12), o
	assert o["usage"]["input_tokens"] == 34000 and o["usage"]["output_tokens"] == 6900, o["usage"]
	near(o["cost_usd"], 0.34, "cost")
	assert m["student"] == {"provider": "anthropic", "model": "claude-fixture"}, m["student"]
	d = {s["sample"]: s for s in t["slow"]["samples_detail"]}
	assert d[0]["correct_round"] == 1 and abs(d[0]["speedup"] - 0.8) < 1e-12, d[0]
	assert d[2]["outcome"] == "no_code" and not d[2]["built"], d[2]
	PY
'

test_expect_success 'a degenerate task kept (an imported problem): its correct kernel is flagged for review' '
	fixtures deg paper && d=deg/kb1-1-mm.a/s0 &&
	python3 -c "import json, sys; p = sys.argv[1]; v = json.load(open(p)); v[\"degenerate\"] = \"a constant passes\"
json.dump(v, open(p, \"w\"))" $d/r1/verify.json &&
	"$RETORT_BIN/record" -o $d/record.json deg/kb1-1-mm.a/task.json $d/r*/*.json &&
	test "$(field $d/record.json "d[\"outcome\"]")" = correct &&
	field $d/record.json "d[\"review\"]" | grep -q "the task is degenerate.*a constant passes"
'
test_expect_success 'pass@k is 1 - C(n-c,k)/C(n,k) for every task and k' '
	python3 - <<-\PY
	import json, math
	for f in ("base.json", "new.json"):
	    for name, t in json.load(open(f))["tasks"].items():
	        n = t["samples"]
	        c = sum(s["correct"] for s in t["samples_detail"])
	        assert sorted(t["pass_at"], key=int) == [str(k) for k in range(1, n + 1)], t["pass_at"]
	        for k in range(1, n + 1):
	            want = 1 - math.comb(n - c, k) / math.comb(n, k)
	            assert abs(t["pass_at"][str(k)] - want) < 1e-12, (f, name, k, t["pass_at"][str(k)], want)
	PY
'

test_expect_success 'the papers. definitions and the intervals over specs, by hand' '
	fixtures paper paper && records paper &&
	test "$(field paper/kb1-2-relu/s0/record.json "d[\"outcome\"] + str(d[\"verified_on_gpu\"])")" = incorrectFalse &&
	"$M" -o paper.json --problems 1=4 --problems 2=2 @paper/records >table.txt && cat table.txt &&
	python3 - <<-\PY &&
	import json, math
	m = json.load(open("paper.json"))
	o, t = m["overall"], m["tasks"]
	def near(got, want, what):
	    assert got is not None and abs(got - want) < 1e-12, (what, got, want)
	def each(got, want, what):
	    assert sorted(got) == sorted(want), (what, got)
	    for k in want:
	        near(got[k], want[k], (what, k))
	assert (o["tasks"], o["specs"], o["samples"], o["bench_caught"], o["untimed_correct"]) == (5, 4, 10, 1, 1), o
	each(o["fast_first"], {"0": 3/5, "1": 2/5, "1.5": 2/5, "2": 1/5}, "fast_first")
	each(o["fast_best"], {"0": 4/5, "1": 3/5, "1.5": 3/5, "2": 2/5}, "fast_best")
	each(o["fast_compile_first"], {"0": 3/5, "1": 1/5, "1.5": 0, "2": 0}, "fast_compile_first")
	each(o["fast_compile_best"], {"0": 4/5, "1": 2/5, "1.5": 1/5, "2": 1/5}, "fast_compile_best")
	each(o["pass_at"], {"1": 1/2, "2": 4/5}, "pass_at")
	near(o["correct_rate"], 1/2, "correct_rate")
	near(o["geomean_speedup_first"], 2, "geomean first")
	near(o["geomean_speedup_best"], 12 ** (1/3), "geomean best")
	near(o["geomean_speedup_samples"], 6 ** 0.25, "geomean samples")
	near(t["kb1-1-mm.b"]["speedup_first"], 1.6, "the best correct round")
	assert t["kb1-2-relu"]["fast_first"] == {"0": 0, "1": 0, "1.5": 0, "2": 0}, t["kb1-2-relu"]
	assert t["kb1-2-relu"]["samples_detail"][0]["bench_caught"] and t["kb1-2-relu"]["bench_caught"] == 1
	assert t["kb2-1-fused"]["fast_first"]["0"] == 1 and t["kb2-1-fused"]["speedup_first"] is None
	near(o["fast_first_ci"]["2"][0], 0, "fast_first.2 low")
	near(o["fast_first_ci"]["2"][1], 3/7, "fast_first.2 high: specs resampled, not tasks")
	assert o["geomean_speedup_first_ci"] == [2.0, 2.0], o["geomean_speedup_first_ci"]
	for key, v in o.items():
	    if key.endswith("_ci") and isinstance(v, dict):
	        for p, ci in v.items():
	            val = o[key[:-3]][p]
	            assert ci[0] - 1e-12 <= val <= ci[1] + 1e-12, (key, p, ci, val)
	assert o["intervals"]["resamples"] == 2000 and o["intervals"]["seed"] == 1, o["intervals"]
	L = m["by_level"]
	assert sorted(L) == ["1", "2", "all"], sorted(L)
	assert [(L[k]["problems"], L[k]["tasks"], L[k]["not_evaluated"]) for k in ("1", "2", "all")] == [(4, 3, 1), (2, 1, 1), (6, 4, 2)], L
	each(L["1"]["fast_first"], {"0": 2/4, "1": 2/4, "1.5": 2/4, "2": 1/4}, "level 1")
	near(L["1"]["fast_compile_first"]["1"], 1/4, "level 1 compile")
	each(L["2"]["fast_first"], {"0": 1/2, "1": 0, "1.5": 0, "2": 0}, "level 2")
	each(L["all"]["fast_first"], {"0": 3/6, "1": 2/6, "1.5": 2/6, "2": 1/6}, "all levels")
	PY
	grep -q "^level  *problems  *evaluated  *fast_0  *fast_1 eager  *fast_2 eager  *fast_1 compile  *fast_2 compile" table.txt &&
	grep -q "^1  *4  *3  *0.500 \[0.000,1.000\]  *0.500 .*  *0.250 .*  *0.250 " table.txt &&
	grep -q "^all  *6  *4  *0.500 " table.txt && grep -q "best of k" table.txt &&
	"$M" --table paper.json >again.txt && cmp table.txt again.txt &&
	"$M" -o paper2.json --problems 1=4 --problems 2=2 @paper/records >/dev/null && cmp paper.json paper2.json &&
	expect_fail 2 "level 1 has 3 tasks evaluated" "$M" -o bad.json --problems 1=2 @paper/records &&
	expect_fail 2 "takes LEVEL=N" "$M" -o bad.json --problems one=2 @paper/records
'

test_expect_success 'the same records in another order give the same bytes' '
	sort -r base/records >rev && "$M" -o again.json @rev && cmp base.json again.json
'

test_expect_success 'a status no stage writes, two students, a sample twice: bad input' '
	mkdir bad && cp base/fast/s0/record.json bad/a.json &&
	python3 -c "import json; r = json.load(open(\"bad/a.json\")); r[\"rounds\"][0][\"verify\"] = \"corect\"; json.dump(r, open(\"bad/b.json\", \"w\"))" &&
	expect_fail 2 "no verify status is named .corect." "$M" -o bad/m.json bad/b.json &&
	python3 -c "import json; r = json.load(open(\"bad/a.json\")); r[\"teacher\"][\"model\"] = \"other\"; r[\"sample\"] = 7; json.dump(r, open(\"bad/c.json\", \"w\"))" &&
	expect_fail 2 "two students" "$M" -o bad/m.json bad/a.json bad/c.json &&
	python3 -c "import json; r = json.load(open(\"bad/a.json\")); r[\"teacher\"] = {\"provider\": \"\", \"model\": \"\"}; r[\"sample\"] = 8; json.dump(r, open(\"bad/d.json\", \"w\"))" &&
	expect_fail 2 "two students" "$M" -o bad/m.json bad/d.json bad/a.json &&
	expect_fail 2 "sample 0 of .fast. twice" "$M" -o bad/m.json bad/a.json bad/a.json &&
	test ! -e bad/m.json
'

test_expect_success 'compare: the difference, its interval and the flipped tasks' '
	"$M" --compare -o cmp.json base.json new.json >cmp.txt && cat cmp.txt &&
	python3 - <<-\PY &&
	import json
	c = json.load(open("cmp.json"))
	assert c["fixed"] == ["broken", "wrong"] and c["broken"] == ["slow"], (c["fixed"], c["broken"])
	assert c["only_new"] == ["extra"] and c["only_base"] == [] and c["tasks"] == 4, c
	m = c["metrics"]["correct_rate"]
	assert abs(m["base"] - 1/4) < 1e-12 and abs(m["new"] - 1/3) < 1e-12 and abs(m["diff"] - 1/12) < 1e-12, m
	for name, m in c["metrics"].items():
	    if m["diff"] is None:  # no torch.compile timing in either: no value, no interval
	        assert name == "geomean_speedup_compile_first" and m["ci"] is None, (name, m)
	        continue
	    assert m["ci"][0] <= m["diff"] + 1e-12 and m["diff"] <= m["ci"][1] + 1e-12, (name, m)
	fast = ["%s.%s" % (f, p) for f in ("fast_first", "fast_best", "fast_compile_first", "fast_compile_best", "fast_samples")
	        for p in ("0", "1", "1.5", "2")]
	assert sorted(c["metrics"]) == sorted(["compile_rate", "correct_rate", "unverified_rate", "pass_at.1", "pass_at.2",
	                                       "pass_at.3", "geomean_speedup_first", "geomean_speedup_best",
	                                       "geomean_speedup_compile_first", "geomean_speedup_samples"] + fast), c["metrics"]
	assert c["specs"] == 4, c["specs"]
	# geomean over the common tasks timed samples: base 2.5, 1.2, 0.8; new 2.5, 1.2, 1.1, 3.0
	g = c["metrics"]["geomean_speedup_samples"]
	assert abs(g["base"] - 2.4 ** (1/3)) < 1e-12 and abs(g["new"] - 9.9 ** 0.25) < 1e-12, g
	PY
	grep -q "^fixed: 2 (broken, wrong)" cmp.txt && grep -q "^broken: 1 (slow)" cmp.txt
'

test_expect_success 'compare is deterministic for a seed, and the seed is the resampling; wrong shapes refused' '
	"$M" --compare -o cmp2.json base.json new.json >/dev/null && cmp cmp.json cmp2.json &&
	"$M" --compare --seed 7 -o cmp3.json base.json new.json >/dev/null && ! cmp -s cmp.json cmp3.json &&
	python3 -c "import json; m = json.load(open(\"new.json\")); m[\"tasks\"] = {\"other\": m[\"tasks\"][\"extra\"]}; json.dump(m, open(\"other.json\", \"w\"))" &&
	expect_fail 2 "no task in common" "$M" --compare base.json other.json &&
	python3 -c "import json; m = json.load(open(\"new.json\")); del m[\"student\"]; json.dump(m, open(\"nostudent.json\", \"w\"))" &&
	expect_fail 2 "no .student. field (an object): .nostudent.json." "$M" --compare base.json nostudent.json &&
	python3 -c "import json; m = json.load(open(\"new.json\")); m[\"tasks\"][\"extra\"] = 5; json.dump(m, open(\"notask.json\", \"w\"))" &&
	expect_fail 2 "field .tasks.extra. is not an object: .notask.json." "$M" --compare base.json notask.json &&
	python3 -c "import json; m = json.load(open(\"new.json\")); del m[\"tasks\"][\"slow\"][\"task\"]; json.dump(m, open(\"nospec.json\", \"w\"))" &&
	expect_fail 2 "no .tasks.slow.task. field (a string): .nospec.json." "$M" --compare base.json nospec.json &&
	expect_fail 2 "no .tasks.slow.task. field" "$RETORT_BIN/report" -o r.html --metrics nospec.json @base/records &&
	expect_fail 2 "needs two metrics files" "$M" --compare base.json
'

test_expect_success 'the report shows both evaluations side by side' '
	"$RETORT_BIN/report" -o r.html --metrics base.json --metrics new.json @base/records &&
	grep -q "<h2>Evaluation</h2>" r.html && grep -q "base.json" r.html && grep -q "new.json" r.html &&
	grep -q "<tr><td>correct rate</td><td>0.2500</td><td>0.4667</td></tr>" r.html &&
	grep -q "<tr><td>extra</td><td>-</td><td>1.0000</td></tr>" r.html
'

test_expect_success LONG 'the held-out selection is the test split: sha256 of the task id below 0.1' '
	(cd "$RETORT_ROOT" && "$RETORT_BIN/gen" --list --all --held-out) >held &&
	(cd "$RETORT_ROOT" && "$RETORT_BIN/gen" --list --all) >all &&
	test -s held && python3 - <<-\PY
	import hashlib, json, subprocess
	held = open("held").read().split()
	want = [v for v in open("all").read().split()
	        if int(hashlib.sha256(v.split(".")[0].encode()).hexdigest()[:8], 16) / 2 ** 32 < 0.1]
	assert held == want, (len(held), len(want))
	PY
'

start_mock

# ---- the skill request: the mock as the teacher, fixture trajectories ----
test_expect_success 'a skill request from the train trajectories alone, its answer into SKILL.md' '
	python3 "$RETORT_ROOT/tests/consumers/fixtures.py" tr gpu &&
	PYTHONPATH="$RETORT_ROOT/tests/consumers" python3 -c "from fixtures import put, rounds, task
put(\"tr/cross_entropy/task.json\", task(\"cross_entropy\", \"cross_entropy_scale\"))
rounds(\"tr\", \"cross_entropy\", 0, [dict(kind=\"correct\", ms=0.1, speedup=1.5)], \"cross_entropy_scale\")" &&
	records tr && model anthropic claude-sonnet-5-5 && mock reset >/dev/null &&
	"$RETORT_BIN/query-llm" --distill SKILL.md -o skill.json --model-config m.json --prompts "$RETORT_ROOT/tasks/prompts" \
		--cache-dir "$T/cache" --log llm.log @tr/records &&
	test "$(mock count)" = 1 && mock requests >req.json && python3 - <<-\PY &&
	import json
	body = json.load(open("req.json"))[0]["body"]
	text = body["messages"][0]["content"][0]["text"] if isinstance(body["messages"][0]["content"], list) else body["messages"][0]["content"]
	assert text.startswith("# Task: write a skill\n\nBelow are 9 verified trajectories"), text[:200]
	train = ["axpy (sample 0)", "axpy (sample 1)", "gelu (sample 1)", "relu2 (sample 1)", "scale.f16 (sample 0)",
	         "scale.f32 (sample 0)", "scale.f32 (sample 1)", "silu (sample 0)", "silu (sample 1)"]
	heads = [l[3:] for l in text.splitlines() if l.startswith("## ")]
	assert heads == train, heads  # sorted by id; flagged, wrong, no-code and held-out records left out
	assert "Round 1: compile ok, verify mismatch, bench not_verified." in text
	assert "Feedback: Wrong results at n=1000" in text and "```cuda" in text
	assert "cross_entropy" not in text
	PY
	head -n 1 SKILL.md >first && echo "<!-- retort-skill sources: axpy gelu relu2 scale silu -->" >want && cmp first want &&
	python3 -c "import json; a = json.load(open(\"skill.json\"))[\"answer\"][\"text\"]; assert open(\"SKILL.md\").read().split(\"\\n\", 1)[1] == a + \"\\n\"" &&
	cp SKILL.md SKILL.1 && "$RETORT_BIN/query-llm" --distill SKILL.md -o skill.json --model-config m.json \
		--prompts "$RETORT_ROOT/tasks/prompts" --cache-dir "$T/cache" --log llm.log @tr/records &&
	test "$(mock count)" = 1 && cmp SKILL.md SKILL.1 && tail -n 1 llm.log | grep -q "\"cache\""
'

test_expect_success 'a skill from no train record: refused' '
	sed -n "/scale.f16\/s1/p" tr/records >none &&
	expect_fail 2 "no verified trajectory to distil a skill from" "$RETORT_BIN/query-llm" --distill S.md \
		-o s.json --model-config m.json --prompts "$RETORT_ROOT/tasks/prompts" --cache-dir "$T/cache" @none &&
	test ! -e S.md &&
	"$RETORT_BIN/query-llm" --distill S.md --skip-untrained -o s.json --model-config m.json \
		--prompts "$RETORT_ROOT/tasks/prompts" --cache-dir "$T/cache" @none 2>err &&
	grep -q "^query-llm: no skill made: none of the 1 records is of the train split" err &&
	test ! -e S.md && test ! -e s.json
'

# ---- end to end, the mock as the student ----
cpu_only "the end-to-end run asserts the no-GPU path (unverified, not correct)"
BAD='```cuda
extern "C" void beta_scale(const float* x, float* y, int n) { this does not compile; }
```'
test_expect_success 'configure --eval: the student asked, every stage run, the metrics written' '
	scratch_project p && cd p && spec a alpha && spec b beta &&
	python3 -c "import json, sys; print(json.dumps([{\"match\": \"beta_scale\", \"text\": sys.argv[1]}] * 3))" "$BAD" >steps &&
	mock script "$(cat steps)" >/dev/null &&
	rconfigure --eval=mock --provider=openai --model=mock-student --tasks=test --samples=2 --rounds=2 >conf.log &&
	grep -q "evaluation openai / mock-student as the student: out/eval/mock/metrics.json" conf.log &&
	ninja >ninja.log 2>&1 && test -s out/eval/mock/metrics.json && test ! -e out/dataset &&
	grep -q "skipped: no CUDA device" out/eval/mock/v/alpha/s0/r1/verify.json
'

test_expect_success 'no GPU: built kernels are unverified, none correct; the compile mix as asked' '
	cd p && python3 - <<-\PY
	import json
	m = json.load(open("out/eval/mock/metrics.json"))
	o, t = m["overall"], m["tasks"]
	assert m["student"] == {"provider": "openai", "model": "mock-student"}, m["student"]
	assert t["alpha"]["compile_rate"] == 1 and t["alpha"]["unverified_rate"] == 1, t["alpha"]
	# both beta samples failed round 1, and one of their round 2s: one of two built
	assert t["beta"]["compile_rate"] == 0.5 and t["beta"]["unverified_rate"] == 0.5, t["beta"]
	assert o["correct_rate"] == 0 and o["pass_at"] == {"1": 0, "2": 0} and o["geomean_speedup_first"] is None, o
	assert all(v == 0 for f in ("fast_first", "fast_best", "fast_samples") for v in o[f].values()), o
	assert "by_level" not in m, m.keys()  # no KernelBench problem: no table
	assert o["compile_rate"] == 0.75 and o["unverified_rate"] == 0.75 and o["samples"] == 4, o
	recs = [json.load(open("out/eval/mock/v/%s/s%d/record.json" % (v, s))) for v in ("alpha", "beta") for s in (0, 1)]
	assert o["usage"]["input_tokens"] == sum(r["usage"]["input_tokens"] for r in recs) > 0, o
	# a served model (the "*" entry of models.yaml) has no prices: its cost is unknown, not $0
	assert o["cost_usd"] is None and o["unpriced"] == 4 and all(r["cost_usd"] is None for r in recs), o
	assert o["not_held_out"] == ["alpha", "beta"], o  # neither is a test-split task: asked by --tasks
	PY
'

test_expect_success 'the report over a GPU host.s record and this one.s: not "none was verified"' '
	"$RETORT_BIN/report" -o mixed.html base/fast/s0/record.json p/out/eval/mock/v/alpha/s0/record.json &&
	grep -q "Why 1 round was not verified:</b> no GPU ran them" mixed.html &&
	! grep -q "Why none was verified" mixed.html &&
	"$RETORT_BIN/report" -o cpu.html p/out/eval/mock/v/alpha/s0/record.json && grep -q "Why none was verified:" cpu.html
'

# configure --kernelbench over a KernelBench-shaped folder of the test problems
# (tests/kernelbench: level1's matmul, relu and dropout, which the importer
# refuses, and level2's linear), answered by tests/eval/kb-answers.py's
# replayed student: no GPU here, so nothing is correct and the table says so;
# the importer's listing (out/kernelbench-import.txt) replaced only whole,
# only when its bytes change
if KBPY=$("$RETORT_ROOT/tests/lib/pyenv" tests/kernelbench/requirements.txt out/refenv-kernelbench 2>"$T/pyenv.err"); then
	KBENV=${KBPY%/bin/python}
	test_expect_success LONG 'configure --kernelbench: levels imported and asked, the refused one failed, the table printed' '
		KB=$RETORT_ROOT/tests/kernelbench && scratch_project k && cd k && mkdir -p kb/level1 kb/level2 &&
		cp "$KB/level1/1_Matmul_rect.py" "$KB/level1/2_Relu_plain.py" "$KB/level1/7_Dropout_train.py" kb/level1/ &&
		cp "$KB/level2/1_Linear_ReLU_Scale.py" kb/level2/ && cp "$KB/requirements.txt" tasks/requirements.txt &&
		{ rconfigure --kernelbench=kb --python-env="$KBENV" --samples=2 --rounds=1 >conf.log 2>&1; r=$?; cat conf.log; } &&
		test $r = 0 &&
		grep -q "3 imported, 1 refused" conf.log && grep -q "KernelBench 1=3 2=1 problems" conf.log &&
		grep -q "evaluation replay / demo as the student: out/eval/kernelbench/metrics.json" conf.log &&
		grep -q "^refused .*7_Dropout_train.py" out/kernelbench-import.txt &&
		for s in kb1-1-matmul-rect kb1-2-relu-plain kb2-1-linear-relu-scale; do
			"$RETORT_BIN/gen" --split tasks/$s.yaml --all --out out >/dev/null || exit 1
		done &&
		python3 "$RETORT_ROOT/tests/eval/kb-answers.py" tasks out/v/*/task.json >answers.txt && cat answers.txt &&
		grep -q "^kb1-2-relu-plain  *activation" answers.txt && grep -q "^kb1-1-matmul-rect  *zeros, broken" answers.txt &&
		ninja >ninja.log 2>&1; cat ninja.log &&
		grep -q "^level  *problems  *evaluated  *fast_0" ninja.log && grep -q "^1  *3  *2  *0.000 " ninja.log &&
		grep -q "^2  *1  *1  *0.000 " ninja.log && grep -q "^all  *4  *3  *0.000 " ninja.log &&
		grep -q "no sample ran on a GPU" ninja.log &&
		python3 -c "import json; m = json.load(open(\"out/eval/kernelbench/metrics.json\")); L = m[\"by_level\"]; o = m[\"overall\"]; assert (L[\"1\"][\"problems\"], L[\"1\"][\"not_evaluated\"], L[\"all\"][\"problems\"]) == (3, 1, 4), L; assert o[\"tasks\"] == 3 and o[\"compile_rate\"] > 0 and o[\"unverified_rate\"] > 0, o"
	'
	test_expect_success LONG 'configure --kernelbench --tasks: a level counts its problems only where taken whole' '
		cd k && rconfigure --kernelbench=kb --python-env="$KBENV" --tasks=kernelbench-level1 >conf2.log 2>&1 &&
		grep -q "KernelBench 1=3 problems" conf2.log && grep -q "^metrics_flags = *--problems 1=3 *$" build.ninja &&
		listed=$(stat -c %y out/kernelbench-import.txt) &&
		rconfigure --kernelbench=kb --python-env="$KBENV" --tasks="kb1-2-*" >conf3.log 2>&1 &&
		grep -q "takes no level whole" conf3.log && grep -q "^metrics_flags = *$" build.ninja &&
		test "$(stat -c %y out/kernelbench-import.txt)" = "$listed"
	'
	# (a folder where the importer writes a spec: it fails after the first)
	test_expect_success LONG 'configure --kernelbench, the import failing: the last listing kept whole, no temporary file' '
		cd k && cp out/kernelbench-import.txt listed.txt && rm tasks/kb1-2-relu-plain.yaml && mkdir tasks/kb1-2-relu-plain.yaml &&
		{ rconfigure --kernelbench=kb --python-env="$KBENV" >conf4.log 2>&1; r=$?; rmdir tasks/kb1-2-relu-plain.yaml; cat conf4.log; } &&
		test $r = 1 && grep -q "scripts/import-kernelbench failed (out/kernelbench-import.err)" conf4.log &&
		grep -q "cannot write .tasks/kb1-2-relu-plain.yaml.: Is a directory" out/kernelbench-import.err &&
		cmp listed.txt out/kernelbench-import.txt && test -z "$(ls out | grep tmp)"
	'
else
	test_skip "no Python environment with torch for the importer: $(tail -n 1 "$T/pyenv.err")"
fi

test_expect_success 'ninja report shows the metrics; a second ninja has nothing to do' '
	cd p && ninja report >/dev/null && grep -q "<h2>Evaluation</h2>" out/eval/mock/report.html &&
	grep -q "mock-student" out/eval/mock/report.html && ninja -n | grep -q "no work to do"
'

test_expect_success '--skill: refused on a task it was distilled from' '
	cd p && printf "<!-- retort-skill sources: gamma alpha -->\n# Skill\nUse float4 loads.\n" >SKILL.md &&
	expect_fail 2 "distilled from task .alpha., which this evaluation asks" \
		rconfigure --eval=skilled --provider=openai --model=mock-student --tasks=test --skill=SKILL.md &&
	expect_fail 2 "is for an evaluation" rconfigure --tasks=test --skill=SKILL.md
'

test_expect_success '--skill: the guide in the student.s system prompt, new cache keys, results apart' '
	cd p && printf "<!-- retort-skill sources: gamma -->\n# Skill\nUse float4 loads.\n" >SKILL.md &&
	mock reset >/dev/null &&
	rconfigure --eval=skilled --provider=openai --model=mock-student --tasks=test --samples=1 --rounds=1 \
		--skill=SKILL.md >conf2.log && grep -q "with the skill .*SKILL.md in its system prompt" conf2.log &&
	ninja >ninja3.log 2>&1 && test -s out/eval/skilled/metrics.json && test -s out/eval/mock/metrics.json &&
	mock requests >reqs.json && python3 - <<-\PY &&
	import json
	reqs = json.load(open("reqs.json"))
	assert reqs, "no request reached the student"
	for r in reqs:
	    system = r["body"]["messages"][0]["content"]
	    assert system.endswith("\n\n# A skill for these tasks\n\n# Skill\nUse float4 loads.\n"), system[-200:]
	    assert "retort-skill" not in system
	a = json.load(open("out/eval/mock/v/alpha/s0/r1/response.json"))["key"]
	b = json.load(open("out/eval/skilled/v/alpha/s0/r1/response.json"))["key"]
	assert a != b, a
	PY
	"$RETORT_BIN/metrics" --compare out/eval/mock/metrics.json out/eval/skilled/metrics.json >cmp.txt &&
	grep -q "^correct_rate  *0.0000  *0.0000  *+0.0000" cmp.txt
'

test_expect_success LONG 'no evaluation record enters a dataset: package refuses them, a training build has none' '
	cd p && expect_fail 2 "an evaluation.s record never enters the dataset" \
		"$RETORT_BIN/package" -o out/x out/eval/mock/v/alpha/s0/record.json &&
	test ! -e out/x &&
	rconfigure --tasks=test --samples=1 --rounds=1 >/dev/null && ninja >ninja2.log 2>&1 &&
	mkdir x && tar -xzf out/dataset/retort-dataset-00000.tar.gz -C x &&
	! grep -rl "mock-student" x && grep -q "\"replay\"" x/data/trajectories-00000.jsonl &&
	ninja skill >skill.log 2>&1 && ! grep -q FAILED skill.log &&
	grep -q "query-llm: no skill made: none of the [0-9]* records is of the train split" skill.log &&
	test ! -e out/skill/SKILL.md &&
	test "$(cat x/data/*.jsonl x/data/sft_final/*.jsonl 2>/dev/null | wc -l)" -ge 2 &&
	test -s out/eval/mock/metrics.json
'
test_done
