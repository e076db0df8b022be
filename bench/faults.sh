#!/bin/sh
# bench/faults.sh - the fault matrix: every fault kind of the mock
# teacher (tests/lib/mock_llm.py) served to query-llm's first attempt, in four
# configurations (anthropic and openai-compatible, streamed and plain), and
# what came of it, next to what doc/teacher.md's retry rules say should. Not a timed
# test: run it by hand after `ninja` (about two and a half minutes).
#
# usage: bench/faults.sh [KIND...]
#
# A cell is "retried" (a second request answered), "answered" (the first
# one did: the fault does not apply to that configuration), "fails at once"
# (exit 1 after one request) or what else happened (exit N, n requests);
# a cell that is not what doc/teacher.md says is marked "MISMATCH", and one where
# the answer written is not the mock's whole answer or the key shows in
# stderr, "BAD ANSWER" or "KEY LEAKED". Exits 1 when any cell is marked.
root=$(cd "$(dirname "$0")/.." && pwd)
RETORT_ROOT=$root
RETORT_BIN=${RETORT_BIN:-$root/out/bin}
. "$root/tests/lib/lib.sh" # one_variant, start_mock, mock, and $T removed at exit

kinds=${*:-$FAULT_KINDS}
streamonly=" truncstream errevent midjunk nodone "
atonce=" 503noretry quota credit 401echo 400 401 402 403 404 413 422 "

start_mock
one_variant

# expected KIND STREAM: what doc/teacher.md's rules say
expected() {
	case " $kinds_at_once " in *" $1 "*) echo "fails at once"; return;; esac
	if test "$1" = slow || { test "$2" = False && case "$streamonly" in *" $1 "*) true;; *) false;; esac; }; then
		echo answered
	else
		echo retried
	fi
}
kinds_at_once=$atonce

# cell PROVIDER MODEL STREAM KIND: one run, and its outcome
cell() {
	rm -rf "$T/cache" "$T/r.json"
	mock reset && mock script "[{\"fault\": \"$4\"}]" || return 1
	"$RETORT_BIN/query-llm" -o "$T/r.json" --model-config "$T/m-$1-$3.json" --prompts tasks/prompts \
		--cache-dir "$T/cache" --sample 0 --round 1 "$TASK" 2>"$T/err"
	rc=$? n=$(mock count)
	if test $rc = 0 && test "$n" = 1; then out=answered
	elif test $rc = 0 && test "$n" = 2; then out=retried
	elif test $rc = 1 && test "$n" = 1; then out="fails at once"
	else out="exit $rc, $n requests"; fi
	want=$(expected "$4" "$3")
	test "$out" = "$want" || out="$out MISMATCH"
	if test $rc = 0 && ! python3 -c "import json, sys; t = json.load(open(sys.argv[1]))['answer']['text']
sys.exit(not (t.startswith('I will use one thread') and t.endswith('\`\`\`\n') and 'LOST' not in t))" "$T/r.json"; then
		out="$out BAD ANSWER"
	fi
	grep -q FAKE-KEY "$T/err" && out="$out KEY LEAKED"
	echo "$out"
}

for p in anthropic openai; do
	for s in True False; do
		name=claude-sonnet-5-5
		test $p = openai && name=served-model
		"$RETORT_BIN/gen" --model-json "$T/m-$p-$s.json" --models "$root/models.yaml" --provider $p --model $name &&
		python3 -c "import json, sys; m = json.load(open(sys.argv[1])); m['limits'] = {'rpm': 0, 'tpm': 0}
m['stream'] = $s; m['timeout_s'] = 2; m['low_speed_s'] = 1; m['retry'] = {'attempts': 3, 'max_wait_s': 30}
json.dump(m, open(sys.argv[1], 'w'))" "$T/m-$p-$s.json" || exit 1
	done
done

printf "%-12s %-26s %-26s %-26s %-26s\n" fault "anthropic stream" "anthropic plain" "openai stream" "openai plain"
bad=0 cells=0
for k in $kinds; do
	row=$(printf "%-12s" "$k")
	for c in "anthropic True" "anthropic False" "openai True" "openai False"; do
		set -- $c
		o=$(cell $1 x $2 "$k")
		cells=$((cells + 1))
		case "$o" in *MISMATCH*|*BAD*|*LEAKED*) bad=$((bad + 1));; esac
		row="$row $(printf "%-26s" "$o")"
	done
	echo "$row"
done
echo "$cells cells, $bad not as documented"
test $bad = 0
