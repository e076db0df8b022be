#!/bin/sh
# t0315: a run you can watch and a budget that holds for every model —
# the build's live status (out/status.json, query-llm --status, ninja
# status): requests in flight, answered, failed (a kill too), tokens and $;
# the summary package prints at the end; --budget-tokens stopping
# requests; --budget holding a served model priced on the command line;
# unknown prices null everywhere; usage.reasoning_tokens in records
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta
spec c gamma "hints: [\"{w}\"]
matrix: {w: [x1, x2]}"
"$RETORT_BIN/gen" --split tasks/a.yaml --all >/dev/null || { echo "Bail out! split failed"; exit 1; }
TASK=$T/p/out/v/alpha/task.json

start_mock --latency 0.05

# st FILE EXPR: a field of the status file
st() { field "$1" "$2"; }

test_expect_success 'the status: a request answered with its tokens and $, then one from the cache' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && rm -f st.json &&
	q s1.json --status st.json && "$RETORT_BIN/query-llm" --status st.json >line2 && cat line2 &&
	grep -q "^requests: 1 answered (1 asked, 0 from the cache, 0 replayed), 0 in flight, 0 failed, 0 not needed; 2000 tokens, \$0.00[0-9]*; GPU: 0 waiting, 0 running, 0 done; [0-9]*s$" line2 &&
	test "$(st st.json "d[\"cost_usd\"] == json.load(open(\"s1.json\"))[\"cost_usd\"] > 0")" = True &&
	q s2.json --status st.json && test "$(st st.json "d[\"requests\"][\"cached\"]")" = 1
'
test_expect_success LONG 'the status: a request in flight' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && mock script "[{\"delay\": 4}]" && rm -f st.json &&
	{ q s1.json --status st.json & } && pid=$! && i=0 &&
	until test -f st.json && test "$(st st.json "len(d[\"in_flight\"])")" = 1; do
		i=$((i + 1)); test $i -lt 200 || exit 1; sleep 0.05; done &&
	"$RETORT_BIN/query-llm" --status st.json >line1 && cat line1 &&
	grep -q "^requests: 0 answered (0 asked, 0 from the cache, 0 replayed), 1 in flight, 0 failed" line1 &&
	wait $pid && test "$(st st.json "[len(d[\"in_flight\"]), d[\"requests\"][\"asked\"]]")" = "[0, 1]"
'
test_expect_success LONG 'the status: a failed request, and one killed in flight, count as failed' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && rm -f st.json &&
	mock script "[{\"status\": 400, \"body\": {\"type\": \"error\", \"error\": {\"type\": \"invalid_request_error\", \"message\": \"no\"}}}]" &&
	expect_fail 1 "HTTP 400" q f1.json --status st.json &&
	test "$(st st.json "[d[\"requests\"][\"failed\"], len(d[\"in_flight\"])]")" = "[1, 0]" &&
	mock script "[{\"delay\": 8}]" &&
	{ "$RETORT_BIN/query-llm" -o f2.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" \
		--sample 1 --round 1 --status st.json "$TASK" & } && pid=$! && i=0 &&
	until test "$(st st.json "len(d[\"in_flight\"])")" = 1; do i=$((i + 1)); test $i -lt 300 || exit 1; sleep 0.05; done &&
	kill -9 $pid; wait $pid; "$RETORT_BIN/query-llm" --status st.json >line && cat line &&
	grep -q ", 0 in flight, 2 failed," line
'
test_expect_success '--budget-tokens: a request that could take the tokens past it is not sent' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 &&
	expect_fail 1 "token budget reached: 0 tokens used and 0 reserved of 100; this request could take [0-9]* (raise it with ./configure --budget-tokens=N)" \
		q t1.json --budget-tokens 100 && test "$(mock count)" = 0 &&
	q t1.json --budget-tokens 1000000 && test "$(st "$T/cache/budget.json" "d[\"spent_tokens\"]")" = 2000.0 &&
	est=$(sed -n "s/.*this request could take \([0-9]*\) .*/\1/p" "$T/.err") &&
	expect_fail 1 "token budget reached: 2000 tokens used" q t2.json --sample 1 --budget-tokens $((est + 1999)) &&
	q t2.json --sample 1 --budget-tokens $((est + 2001)) && test "$(mock count)" = 2 &&
	test "$(st "$T/cache/budget.json" "d[\"spent_tokens\"]")" = 4000.0
'

# a run of served-model requests through ninja: openai, the "*" entry
served() { rconfigure --all --provider=openai --model=served-model --samples=2 --rounds=1 "$@"; }

test_expect_success LONG 'a mock run: the summary at the end, ninja status, prices unknown everywhere' '
	cd p && fresh && mock reset && rm -rf out && served --llm-jobs=4 >/dev/null &&
	ninja -j 8 >n.log 2>&1; cat n.log && test "$(mock count)" = 8 &&
	grep -q "^dataset: out/dataset, 1 archive listed in SHA256SUMS: default train [0-9]*, trajectories [0-9]*, unverified [0-9]*, test [0-9]*; sft_final train [0-9]*, unverified [0-9]*, test [0-9]*$" n.log &&
	grep -q "^outcomes of 8 samples: [0-9]* correct, [0-9]* incorrect, [0-9]* unverified, [0-9]* no_code$" n.log &&
	grep -q "^rounds: 8; compile: .*; verify: " n.log &&
	grep -q "^teacher: 8 answers in the records, 11200 tokens, \$ unknown (the model has no prices)$" n.log &&
	grep -q "^this run: requests: 8 answered (8 asked, 0 from the cache, 0 replayed), 0 in flight, 0 failed, 0 not needed; 11200 tokens, \$ unknown (the model has no prices); GPU: " n.log &&
	if ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
		grep -q "^why: no GPU ran them: verify says .skipped: no CUDA device. for the [1-9][0-9]* rounds that built" n.log; fi &&
	ninja status >s.log && cat s.log && grep -q "^requests: 8 answered (8 asked" s.log &&
	python3 - <<-\EOS &&
	import json, glob
	recs = [json.load(open(p)) for p in glob.glob("out/v/*/s*/record.json")]
	assert len(recs) == 8 and all(r["cost_usd"] is None for r in recs), [r["cost_usd"] for r in recs]
	assert all(r["usage"]["reasoning_tokens"] == 50 for r in recs), [r["usage"] for r in recs]
	EOS
	python3 -c "import json, sys; c = [json.loads(l)[\"cost_usd\"] for l in open(sys.argv[1])]; assert c == [None] * 8, c" "$T/cache/ledger.jsonl" &&
	ninja cost >c.log && cat c.log && grep -q "served-model  *8 .* price unknown$" c.log &&
	ninja >n2.log && grep -q "no work to do" n2.log &&
	rm -rf out/dataset && ninja >n3.log && grep -q "^this run: no request edge ran$" n3.log
'
test_expect_success LONG 'a served model priced on the command line: --budget stops its requests' '
	cd p && fresh && mock reset && rm -rf out && served --llm-jobs=1 --price-in=1000 --price-out=1000 --budget=20 >/dev/null &&
	! ninja -j 4 >n.log 2>&1 && cat n.log && grep -q "budget reached: \$[0-9.]* spent and \$0.0000 reserved of \$20.00" n.log &&
	n=$(mock count) && test "$n" -ge 1 && test "$n" -lt 8 &&
	python3 -c "import json, sys; c = [json.loads(l)[\"cost_usd\"] for l in open(sys.argv[1])]; assert len(c) == $n and all(x > 0 for x in c) and sum(c) <= 20, c" "$T/cache/ledger.jsonl" &&
	"$RETORT_BIN/query-llm" --status out/status.json >line && cat line && grep -q "($n asked, .*, [1-9][0-9]* failed" line
'
test_expect_success LONG '--budget-tokens stops a served model without prices through ninja' '
	cd p && fresh && mock reset && rm -rf out && served --llm-jobs=1 --budget-tokens=1 >/dev/null &&
	! ninja -j 4 >n.log 2>&1 && test "$(mock count)" = 0 &&
	est=$(sed -n "s/.*this request could take \([0-9]*\) .*/\1/p" n.log | sort -n | tail -n 1) && test -n "$est" &&
	served --llm-jobs=1 --budget-tokens=$((est + 2000)) >/dev/null &&
	! ninja -j 4 >n.log 2>&1 && cat n.log && grep -q "token budget reached: [0-9]* tokens used" n.log &&
	n=$(mock count) && test "$n" -ge 1 && test "$n" -lt 8 &&
	test "$(st "$T/cache/budget.json" "d[\"spent_tokens\"] <= $est + 2000")" = True &&
	served --llm-jobs=1 >/dev/null && ninja -j 4 >/dev/null && test "$(mock count)" = 8
'
test_done
