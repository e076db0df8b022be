#!/bin/sh
# bench/charges.sh - the money under faults: whether the ledger is ever
# under what the provider billed. The mock teacher (tests/lib/mock_llm.py,
# with usage that follows the prompt and the text: --prompt-cache) bills as
# a provider would (GET /_mock/billed); tests/lib/billcheck.py sets the
# ledgers against that bill. Not a timed test: run it by hand after `ninja`
# (about five minutes).
#
# usage: bench/charges.sh [KIND...]
#
# Cells:
#   fault  every fault kind of bench/faults.sh served to query-llm's first
#          attempt, in four configurations (anthropic and openai-compatible,
#          streamed and plain)
#   kill   a query-llm killed (SIGKILL) with its request out: before the
#          first byte, and midway (a stream sent piece by piece), in the four
#          configurations; the next run settles its charge
#   batch  result lines that are not JSON (naming their request, and not),
#          both providers
#   bkill  a batch run killed while it sends, beside another build's batch
#          of the same size on the same account (its own cache); the next
#          run must adopt its own batch, not the other's (both providers,
#          three times each)
# Prints a line per cell that is not as it should be, then the table.
# Exits 1 when any cell's ledger is under the bill or a kill adopted
# another's batch.
root=$(cd "$(dirname "$0")/.." && pwd)
RETORT_ROOT=$root
RETORT_BIN=${RETORT_BIN:-$root/out/bin}
. "$root/tests/lib/lib.sh" # one_variant, start_mock, mock, and $T removed at exit

kinds=${*:-$FAULT_KINDS}

start_mock --prompt-cache 100000000 --batch-seconds 0.4
one_variant
for p in anthropic openai; do
	for s in True False; do
		name=claude-sonnet-5-5
		test $p = openai && name=gpt-test
		gpt_test "$root/models.yaml" || exit 1
		"$RETORT_BIN/gen" --model-json "$T/m-$p-$s.json" --models models.yaml --provider $p --model $name &&
		python3 -c "import json, sys; m = json.load(open(sys.argv[1])); m['limits'] = {'rpm': 0, 'tpm': 0}
m['stream'] = $s; m['timeout_s'] = 2; m['low_speed_s'] = 1; m['retry'] = {'attempts': 3, 'max_wait_s': 30}
json.dump(m, open(sys.argv[1], 'w'))" "$T/m-$p-$s.json" || exit 1
	done
done

cells=0 ok=0 bkills=0 own=0
# check CELL MODEL LEDGER...: the ledgers against the mock's bill
check() {
	name=$1 model=$2; shift 2
	cells=$((cells + 1))
	mock billed >"$T/billed.json"
	if r=$("$root/tests/lib/billcheck.py" "$model" "$T/billed.json" "$@"); then
		ok=$((ok + 1))
	else
		echo "UNDER  $name: $r"
	fi
}
# q CONFIG OUT [ARGS]: one request of the variant (the process itself: exec)
q() {
	cfg=$1 out=$2; shift 2
	exec "$RETORT_BIN/query-llm" -o "$out" --model-config "$T/m-$cfg.json" --prompts tasks/prompts \
		--cache-dir "$T/cache" --round 1 "$@" "$TASK"
}

for k in $kinds; do
	for c in anthropic-True anthropic-False openai-True openai-False; do
		rm -rf "$T/cache" "$T/r.json"
		mock reset && mock script "[{\"fault\": \"$k\"}]" || exit 1
		(q $c "$T/r.json" --sample 0 2>"$T/err")
		check "fault $k $c" "$T/m-$c.json" "$T/cache/ledger.jsonl"
	done
done

if test "${KILLS:-1}" = 1; then
# killq CONFIG PATTERN: query-llm killed once what it would owe says PATTERN; the next run settles it
killq() {
	(q $1 "$T/k.json" --sample 0 2>/dev/null) & pid=$!
	i=0; while ! cat "$T"/cache/inflight/*.json 2>/dev/null | grep -q "$2" && test $i -lt 400; do
		sleep 0.05; i=$((i + 1)); done
	sleep 0.2; kill -9 $pid; wait $pid 2>/dev/null
	(q $1 "$T/k2.json" --sample 1 2>/dev/null)
}
for c in anthropic-True anthropic-False openai-True openai-False; do
	case $c in
	*True) first="its prompt" mid="stream received" step='{"drip": 0.2}';;
	*) first="worst case" mid="worst case" step='{"delay": 2}';; # a plain answer comes whole, at its end
	esac
	rm -rf "$T/cache"; mock reset && mock script '[{"delay": 2}]' || exit 1
	killq $c "$first"; sleep 2
	check "kill before the first byte $c" "$T/m-$c.json" "$T/cache/ledger.jsonl"
	rm -rf "$T/cache"; mock reset && mock script "[$step]" || exit 1
	killq $c "$mid"; sleep 3
	check "kill midway $c" "$T/m-$c.json" "$T/cache/ledger.jsonl"
done
fi

# the batches: a project of two variants, two samples each (four requests a round)
spec b beta
sed -i 's/^  batch: {.*}/  batch: {poll_s: 0.1, poll_max_s: 0.3, attempts: 3}/' models.yaml
R="out/v/alpha/s0/r1/response.json out/v/alpha/s1/r1/response.json out/v/beta/s0/r1/response.json out/v/beta/s1/r1/response.json"
printf "%s\n" $R >rsp
# bq CACHE STATE: the round's batch run
bq() { exec "$RETORT_BIN/query-llm" --batch "$2" --model-config out/model.json --prompts tasks/prompts --cache-dir "$1" @rsp; }
for p in anthropic openai; do
	name=claude-sonnet-5-5
	test $p = openai && name=gpt-test
	rm -rf "$T/cache" out && rconfigure --all --samples=2 --rounds=1 --batch --provider=$p --model=$name >/dev/null &&
	ninja out/model.json out/v/alpha/task.json out/v/beta/task.json >/dev/null || exit 1
	for g in garble garble_tail; do
		rm -rf "$T/cache"; mock reset && mock batch_script "[{\"$g\": 2}]" || exit 1
		(bq "$T/cache" "$T/st.json" 2>/dev/null)
		check "batch $g $p" out/model.json "$T/cache/ledger.jsonl"
	done
	for n in 1 2 3; do
		rm -rf "$T/cache" "$T/other"; mock reset || exit 1
		(bq "$T/other" "$T/o.json" 2>/dev/null)
		mock batch_script '[{"create_delay": 2}]'
		(bq "$T/cache" "$T/st.json" 2>/dev/null) & pid=$!
		i=0; while ! cat "$T"/cache/batch/*.json 2>/dev/null | grep -q '"state": "submitting"' && test $i -lt 400; do
			sleep 0.05; i=$((i + 1)); done
		sleep 0.5; kill -9 $pid; wait $pid 2>/dev/null
		mine=$(mock batches | python3 -c "import json, sys; print(json.load(sys.stdin)[-1]['id'])")
		(bq "$T/cache" "$T/st.json" 2>"$T/err")
		bkills=$((bkills + 1))
		if grep -q "was sent before its sender stopped: it is $mine," "$T/err"; then
			own=$((own + 1))
		else
			echo "OTHER  batch kill $p $n (its own: $mine): $(grep "sender stopped\|never reached" "$T/err")"
		fi
		check "batch kill $p $n" out/model.json "$T/cache/ledger.jsonl" "$T/other/ledger.jsonl"
	done
done

printf "%-36s %s\n" "cells run" "$cells" "ledger never under what was billed" "$ok of $cells" \
	"batch kills (while sending)" "$bkills" "own batch adopted" "$own of $bkills"
test "$ok" = "$cells" && test "$own" = "$bkills"
