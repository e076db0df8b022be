#!/bin/sh
# t0025: files of valid JSON but the wrong shape, given to each tool that
# reads them (compile, verify, bench, report, propose-check in each mode, propose-accept,
# query-llm's previous-round files): for each file type a {}, a required
# field of the wrong type and a required field missing; exit 2, the field
# and the file named, nothing written. The tables are lib/schema.c's.
# SHAPES_LOG=FILE appends "tool file case status" per case (bench/campaign).
. "$(dirname "$0")/lib/lib.sh"

one_variant
spec b beta && "$RETORT_BIN/gen" --split tasks/b.yaml --all >/dev/null
export TASK

# a valid file of each type, the one field its wrong cases are about
mkdir -p "$T/good"
cat >"$T/good/response.json" <<'EOF'
{"status": "answered", "task": "alpha", "round": 1, "messages": [{"role": "user", "content": "x"}], "answer": {"text": "no code"}}
EOF
cat >"$T/good/compile.json" <<'EOF'
{"status": "no_code", "reason": "the answer has no fenced code block"}
EOF
cat >"$T/good/verify.json" <<'EOF'
{"verdict": "skipped: no CUDA device"}
EOF
cat >"$T/good/bench.json" <<'EOF'
{"status": "skipped: no CUDA device", "speedup": null}
EOF
cat >"$T/good/proposal.json" <<'EOF'
{"kind": "proposal", "id": "propose/t/b0", "prompt": "propose", "system": "propose-system", "vars": {}, "family": "t", "count": 1, "rounds": 2}
EOF
cat >"$T/good/reftask.json" <<'EOF'
{"kind": "proposal", "id": "propose/t/b0/ref2", "prompt": "propose-reference", "system": "propose-reference-system", "vars": {}, "family": "t", "batch_task": "propose/t/b0", "batch": 0, "reference": 2, "problems": []}
EOF
cat >"$T/good/check.json" <<'EOF'
{"version": 1, "task": "propose/t/b0", "family": "t", "round": 1, "status": "checked", "finished": false, "feedback": "fix it", "proposals": [{"index": 0, "status": "failed"}], "failed": [0]}
EOF
cat >"$T/good/agree.json" <<'EOF'
{"version": 1, "task": "propose/t/b0", "family": "t", "references": 2, "finished": true, "problems": [{"key": "000000", "index": 0, "status": "agreed"}]}
EOF
cat >"$T/good/metrics.json" <<'EOF'
{"student": {"provider": "replay", "model": "m"}, "overall": {"tasks": 1, "samples": 1, "compile_rate": 1, "correct_rate": 0, "unverified_rate": 1, "pass_at": {}, "fast": {}, "correct_after_round": []}, "tasks": {}}
EOF

# bad TYPE CASE DEST: DEST is the valid TYPE file broken as CASE says
# (empty: {}; wrong: the field's type changed; missing: the field removed);
# the field's name in $want
bad() {
	python3 - "$T/good/$1.json" "$2" "$3" <<'EOF'
import json, sys
src, case, dest = sys.argv[1:]
d = json.load(open(src))
# the field each type's wrong and missing cases break, and what it gets instead
field = {"response": ("status", 3), "compile": ("status", ["ok"]), "verify": ("verdict", 1),
         "bench": ("status", {}), "proposal": ("prompt", 7), "reftask": ("problems", {}),
         "check": ("failed", "0"), "agree": ("finished", "yes"), "metrics": ("overall", [])}
name = sys.argv[1].rsplit("/", 1)[1][:-5]
k, v = field[name]
if case == "empty":
    d = {}
elif case == "wrong":
    d[k] = v
else:
    del d[k]
json.dump(d, open(dest, "w"))
EOF
}
# want TYPE CASE: the message's pattern for the file type's case
want() {
	case $1:$2 in
	response:empty | response:missing | compile:empty | compile:missing | bench:empty | bench:missing) echo "no .status. field (a string)" ;;
	response:wrong) echo "field .status. is not a string" ;;
	compile:wrong | bench:wrong) echo "field .status. is not a string" ;;
	verify:empty | verify:missing) echo "no .verdict. field (a string)" ;;
	verify:wrong) echo "field .verdict. is not a string" ;;
	proposal:empty | reftask:empty) echo "no .kind. field (a string)" ;;
	proposal:wrong) echo "field .prompt. is not a string" ;;
	proposal:missing) echo "no .prompt. field (a string)" ;;
	reftask:wrong) echo "field .problems. is not an array" ;;
	reftask:missing) echo "no .problems. field (an array)" ;;
	check:empty | agree:empty) echo "no .task. field (a string)" ;;
	check:wrong) echo "field .failed. is not an array" ;;
	check:missing) echo "no .failed. field (an array)" ;;
	agree:wrong) echo "field .finished. is not a boolean" ;;
	agree:missing) echo "no .finished. field (a boolean)" ;;
	metrics:empty) echo "no .student. field (an object)" ;;
	metrics:wrong) echo "field .overall. is not an object" ;;
	metrics:missing) echo "no .overall. field (an object)" ;;
	esac
}
# shapes TOOL TYPE FILE CMD...: for each case, FILE broken, CMD exits 2
# naming the field and FILE, and writes no out.json (nor out.html)
shapes() {
	tool=$1 type=$2 file=$3
	shift 3
	for c in empty wrong missing; do
		rm -f out.json out.html && mkdir -p "$(dirname "$file")" && bad "$type" $c "$file" || return 1
		expect_fail 2 "$(want "$type" $c): .$file." "$@" >/dev/null; r=$?
		test ! -e out.json && test ! -e out.html || { echo "$tool wrote its output for $type $c"; r=1; }
		test -z "${SHAPES_LOG:-}" || echo "$tool $type $c $(test $r = 0 && echo 2 || echo other)" >>"$SHAPES_LOG"
		test $r = 0 || { echo "$tool, $type, $c: not refused as it should be"; return 1; }
	done
}
PC="$RETORT_BIN/propose-check --cache-dir $T/cache"
PA="$RETORT_BIN/propose-accept"

test_expect_success 'compile: a response.json of the wrong shape' '
	cd p && shapes compile response r1/response.json "$RETORT_BIN/compile" -o out.json "$TASK" r1/response.json
'
test_expect_success 'verify and bench: a compile.json and a verify.json of the wrong shape' '
	cd p && cp "$T/good/compile.json" compile.json && cp "$T/good/verify.json" verify.json &&
	echo "{\"runs\": []}" >expected.json && echo "{\"gpu\": null}" >calibration.json && : >harness &&
	shapes verify compile t/compile.json "$RETORT_BIN/verify" -o out.json "$TASK" t/compile.json harness expected.json &&
	shapes bench compile t/compile.json "$RETORT_BIN/bench" -o out.json "$TASK" verify.json t/compile.json harness \
		calibration.json &&
	shapes bench verify t/verify.json "$RETORT_BIN/bench" -o out.json "$TASK" t/verify.json compile.json harness \
		calibration.json
'
test_expect_success LONG 'report: a record and a metrics.json of the wrong shape' '
	cd p && shapes report metrics m/metrics.json "$RETORT_BIN/report" -o out.html --metrics m/metrics.json &&
	n=0 && for c in "{}" "{\"id\": 1}" "{\"id\": \"alpha/s0\"}"; do
		n=$((n + 1)) &&
		echo "$c" >rec.json &&
		expect_fail 2 "not a record of this dataset.s fields (lib/schema.c): [a-z]*: \(missing\|not a string\): .rec.json." \
			"$RETORT_BIN/report" -o out.html rec.json >/dev/null && test ! -e out.html || return 1
		test -z "${SHAPES_LOG:-}" || echo "report record $n 2" >>"$SHAPES_LOG"
	done
'
test_expect_success LONG 'propose-check: its request, the answer and the previous check, each of the wrong shape' '
	cd p && cp "$T/good/proposal.json" task.json && cp "$T/good/response.json" resp.json &&
	shapes propose-check proposal t/task.json $PC -o out.json t/task.json resp.json &&
	shapes propose-check response t/resp.json $PC -o out.json task.json t/resp.json &&
	shapes propose-check check t/check.json $PC -o out.json task.json resp.json t/check.json
'
test_expect_success LONG 'propose-check --ask-reference (and --spec), --agree: each file of the wrong shape' '
	cd p && cp "$T/good/proposal.json" task.json && cp "$T/good/response.json" resp.json &&
	cp "$T/good/reftask.json" reftask.json && echo t/check.json >checks &&
	shapes propose-check-ask proposal t/task.json $PC --ask-reference 2 -o out.json t/task.json @checks &&
	shapes propose-check-ask check t/check.json $PC --ask-reference 2 -o out.json task.json @checks &&
	shapes propose-check-ask agree t/agree.json $PC --ask-reference 3 -o out.json task.json t/agree.json &&
	shapes propose-check-spec agree t/agree.json $PC --ask-reference 3 --spec -o out.json tasks/b.yaml t/agree.json &&
	shapes propose-check-agree reftask t/reftask.json $PC --agree -o out.json t/reftask.json resp.json &&
	shapes propose-check-agree response t/resp.json $PC --agree -o out.json reftask.json t/resp.json &&
	shapes propose-check-agree agree t/agree.json $PC --agree -o out.json reftask.json resp.json t/agree.json &&
	shapes propose-check-agree response t/first.json $PC --agree --first-response t/first.json -o out.json \
		reftask.json resp.json
'
test_expect_success LONG 'propose-accept: a check.json and an agree.json of the wrong shape' '
	cd p && mkdir -p specs && echo t/check.json >checks && echo t/agree.json >agrees &&
	printf "tasks/b.yaml\nt/agree.json\n" >pairs &&
	shapes propose-accept check t/check.json $PA -o out.json --specs specs @checks &&
	shapes propose-accept agree t/agree.json $PA -o out.json --specs specs @agrees &&
	shapes propose-accept-teacher agree t/agree.json $PA --teacher-references -o out.json --specs specs @pairs
'
test_expect_success LONG 'query-llm: previous-round files of the wrong shape; nothing asked' '
	cd p && model anthropic claude-sonnet-5-5 && mkdir -p r1 &&
	for f in response compile verify bench; do cp "$T/good/$f.json" r1/$f.json; done &&
	mkdir -p pt && cp "$T/good/proposal.json" pt/task.json && cp "$T/good/response.json" pr1.json &&
	for f in response compile verify bench; do
		shapes query-llm $f r1/$f.json "$RETORT_BIN/query-llm" -o out.json --model-config m.json --prompts tasks/prompts \
			--cache-dir "$T/cache" --sample 0 --round 2 "$TASK" r1/response.json r1/compile.json r1/verify.json \
			r1/bench.json && cp "$T/good/$f.json" r1/$f.json || return 1
	done &&
	mkdir -p pr && cp pr1.json pr/response.json &&
	shapes query-llm check pr/check.json "$RETORT_BIN/query-llm" -o out.json --model-config m.json \
		--prompts tasks/prompts --cache-dir "$T/cache" --sample 0 --round 2 pt/task.json pr/response.json pr/check.json
'
test_done
