#!/bin/sh
# t0320: query-llm under faults — what a broken answer must never become
# (cached as answered), what a request must cost (once, and never less than
# it was served for), what a message must not show (a key), and models
# without prices
. "$(dirname "$0")/lib/lib.sh"

one_variant

start_mock

# whole FILE: the response is answered and holds the mock's whole answer
whole() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); t = d['answer']['text']
assert d['status'] == 'answered' and t.startswith('I will use one thread') and t.endswith('\`\`\`\n') and 'LOST' not in t, t" "$1"
}
# ledger_total: the $ of every line in the cache's ledger
ledger_total() {
	python3 -c "import json; print(sum(json.loads(l)['cost_usd'] or 0 for l in open('$T/cache/ledger.jsonl')))"
}

# 1, 2, 3: a stream that is broken, incomplete or ends in a server error is retried
for case in "anthropic claude-sonnet-5-5:midjunk:a data line that is not JSON" \
	"openai served-model:midjunk:a data line that is not JSON" \
	"anthropic claude-sonnet-5-5:nonutf8:a data line that is not JSON" \
	"openai served-model:nonutf8:a data line that is not JSON" \
	"anthropic claude-sonnet-5-5:wrongshape:without a stop_reason" \
	"anthropic claude-sonnet-5-5:nofinish:without a stop_reason" \
	"openai served-model:nofinish:without a finish_reason" \
	"openai served-model:nodone:before \[DONE\]" \
	"anthropic claude-sonnet-5-5:nodone:before message_stop" \
	"openai served-model:errevent:error event in the stream: server_error"; do
	cfg=${case%%:*} rest=${case#*:} fault=${rest%%:*} msg=${rest#*:}
	# the quick tier: each fault once, each provider's stream parser on some
	long=
	case $cfg:$fault in "openai served-model:midjunk"|anthropic*:nonutf8|anthropic*:nofinish|anthropic*:nodone) long=LONG ;; esac
	test_expect_success $long "$cfg stream, $fault: retried, the answer whole, nothing cached from the first" '
		cd p && fresh && mock reset && model $cfg && mock script "[{\"fault\": \"$fault\"}]" &&
		q f1.json 2>err && cat err && test "$(mock count)" = 2 && grep -q "$msg.*retrying" err && whole f1.json
	'
done
test_expect_success 'openai stream, usage in the finish_reason chunk and no [DONE] (transformers serve): whole' '
	cd p && fresh && mock reset && model openai served-model && mock script "[{\"fault\": \"finishusage\"}]" &&
	q f4.json 2>err && cat err && test "$(mock count)" = 1 && ! grep -q retrying err && whole f4.json &&
	python3 -c "import json, sys; u = json.load(open(sys.argv[1]))[\"usage\"]
assert (u[\"input_tokens\"], u[\"output_tokens\"], u[\"cache_read_tokens\"]) == (800, 200, 400), u" f4.json
'
test_expect_success 'a plain answer without a stop reason is retried' '
	cd p && fresh && mock reset && model openai served-model "m[\"stream\"] = False" &&
	mock script "[{\"fault\": \"nofinish\"}]" && q f2.json 2>err && cat err && test "$(mock count)" = 2 &&
	grep -q "response has no finish_reason" err && whole f2.json
'
test_expect_success 'a FastAPI error body (transformers serve): its detail is the message, at once' '
	cd p && fresh && mock reset && model openai served-model &&
	mock script "[{\"status\": 400, \"body\": {\"detail\": \"Server is pinned to m; requested x.\"}},
		{\"status\": 422, \"body\": {\"detail\": [{\"loc\": [\"body\"], \"msg\": \"Field required\"}]}}]" &&
	expect_fail 1 "refused the request for .alpha.: HTTP 400: Server is pinned to m; requested x\. (request-id" \
		q d1.json && ! grep -q detail "$T/.err" &&
	expect_fail 1 "refused the request for .alpha.: HTTP 422: Field required" q d1.json &&
	test "$(mock count)" = 2 && test ! -e d1.json
'
test_expect_success 'openai stream: a client-side error event still fails at once' '
	cd p && fresh && mock reset && model openai served-model &&
	mock script "[{\"stream_error\": \"invalid_request_error\"}]" &&
	expect_fail 1 "refused the request.*invalid_request_error" q f3.json && test "$(mock count)" = 1 &&
	test ! -e f3.json && ! ls "$T/cache/llm" 2>/dev/null | grep -q .
'

# 4: a replay answer that is not UTF-8
test_expect_success 'replay: an answer that is not UTF-8 is bad input, naming the file' '
	cd p && "$RETORT_BIN/gen" --model-json rp.json --models "$RETORT_ROOT/models.yaml" --provider replay --model demo &&
	mkdir -p bad/alpha && printf "Here it is \377\376 bad bytes\n" >bad/alpha/s0-r1.md &&
	expect_fail 2 "query-llm: answer is not valid UTF-8: .bad/alpha/s0-r1.md." \
		"$RETORT_BIN/query-llm" -o rp1.json --model-config rp.json --prompts tasks/prompts \
		--cache-dir "$T/cache" --replay-dir bad "$TASK" && test ! -e rp1.json
'

# 5: one key, many askers
test_expect_success 'eight processes asking one key pay once' '
	cd p && fresh && rm -f "$T/llm.log" && mock reset && model anthropic claude-sonnet-5-5 && mock script "[{\"delay\": 0.5}]" &&
	for i in 1 2 3 4 5 6 7 8; do q k$i.json 2>/dev/null & done; wait &&
	test "$(mock count)" = 1 && for i in 2 3 4 5 6 7 8; do cmp k1.json k$i.json || exit 1; done &&
	test "$(grep -c "\"source\":\"network\"" "$T/llm.log")" = 1 && test "$(wc -l <"$T/cache/ledger.jsonl")" = 1
'

# 6: money: what was served is charged
# killq OUT PATTERN: a query-llm in the background, killed (SIGKILL) once
# what it would owe if killed (CACHE/inflight) says PATTERN
killq() {
	{ "$RETORT_BIN/query-llm" -o "$1" --model-config m.json --prompts tasks/prompts \
		--cache-dir "$T/cache" "$TASK" 2>/dev/null & pid=$!; } &&
	i=0; while ! cat "$T"/cache/inflight/*.json 2>/dev/null | grep -q "$2" && test $i -lt 400; do
		sleep 0.05; i=$((i + 1)); done &&
	sleep 0.2 && kill -9 $pid; wait $pid; test ! -e "$1" && grep -q "\"usd\"" "$T/cache/budget.json"
}
# billed: the ledger is not under what the mock billed
billed() { mock billed >billed.json && "$RETORT_ROOT/tests/lib/billcheck.py" m.json billed.json "$T/cache/ledger.jsonl"; }
test_expect_success LONG 'a plain request killed in flight is charged its worst case by the next run' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"stream\"] = False" &&
	mock script "[{\"delay\": 3}]" && killq kill.json "worst case" &&
	q kill2.json --sample 1 2>err && cat err && grep -q "charging \$0.3[0-9]* for the request of a query-llm that was killed (.*its worst case)" err &&
	grep -q "\"note\":\"unsettled: a plain request: its worst case\"" "$T/cache/ledger.jsonl" &&
	python3 -c "import sys; assert float(sys.argv[1]) >= 2 * 0.00485, sys.argv[1]" "$(ledger_total)" &&
	test "$(field "$T/cache/budget.json" "d[\"reserved\"]")" = "{}" && sleep 3 && billed && ! ls "$T/cache/inflight" | grep -q .
'
test_expect_success LONG 'a stream killed before its first byte is charged its prompt, not its worst case' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && mock script "[{\"delay\": 2}]" &&
	killq kill.json "its prompt" &&
	q kill2.json --sample 1 2>err && cat err && grep -q "charging \$0.00[0-9]* for the request of a query-llm that was killed (.*: its prompt)" err &&
	grep -q "\"note\":\"unsettled: a stream not yet answered: its prompt\"" "$T/cache/ledger.jsonl" &&
	test "$(field "$T/cache/budget.json" "d[\"reserved\"]")" = "{}" && sleep 2 && billed
'
test_expect_success 'a stream killed midway is charged what it received and a margin, not its worst case' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && mock script "[{\"drip\": 0.3}]" &&
	killq kill.json "stream received" &&
	q kill2.json --sample 1 2>err && cat err && grep -q "charging \$0.0[0-9]* for the request of a query-llm that was killed (.*the part of the stream received)" err &&
	test "$(field "$T/cache/budget.json" "d[\"reserved\"]")" = "{}" && billed
'
for c in "True:its prompt:0.00" "False:its worst case:0.3"; do
	test_expect_success LONG "a timeout before the first byte (stream $c): charged, retried" '
		cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"stream\"] = ${c%%:*}
m[\"timeout_s\"] = 2
m[\"low_speed_s\"] = 1" && mock script "[{\"fault\": \"timeout\"}]" && q t1.json 2>err && cat err &&
		test "$(mock count)" = 2 && whole t1.json && cost=${c##*:} &&
		grep -q "\"cost_usd\":$cost[0-9]*,.*\"note\":\"estimated\"" "$T/cache/ledger.jsonl" && billed
	'
done
test_expect_success 'a budget.json that does not parse (a crash) stops the request unsent, saying so' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && q b1.json && mock reset &&
	printf "{\n \"reserved\": {" > "$T/cache/budget.json" &&
	expect_fail 1 "the budget is damaged, its spending unknown, so nothing is sent: .*budget.json:" \
		q b2.json --sample 1 && test "$(mock count)" = 0 && test ! -e b2.json &&
	printf "[]\n" > "$T/cache/budget.json" &&
	expect_fail 1 "the budget is damaged, its spending unknown, so nothing is sent: .[^ ]*budget.json. is no JSON object (ledger.jsonl" \
		q b2.json --sample 1 && test "$(mock count)" = 0 && test ! -e b2.json &&
	rm "$T/cache/budget.json" && q b2.json --sample 1 && test "$(mock count)" = 1
'
test_expect_success 'a request refused at once is not charged; an unusable answer is, by estimate' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && mock script "[{\"status\": 401}]" &&
	expect_fail 1 "refused" q m1.json && test ! -e "$T/cache/ledger.jsonl" &&
	test "$(field "$T/cache/budget.json" "d[\"reserved\"], d[\"spent_usd\"]")" = "({}, 0.0)" &&
	mock script "[{\"truncate\": true}]" && q m2.json 2>/dev/null &&
	grep -q "\"note\":\"estimated\"" "$T/cache/ledger.jsonl" &&
	python3 -c "import sys; assert float(sys.argv[1]) > 0.00485, sys.argv[1]" "$(ledger_total)"
'
test_expect_success 'a request that gives up after retries charges what its served attempts could cost' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"retry\"][\"attempts\"] = 2" &&
	mock script "[{\"truncate\": true}, {\"status\": 500}]" && expect_fail 1 "giving up" q m3.json &&
	test "$(wc -l <"$T/cache/ledger.jsonl")" = 1 && grep -q "\"note\":\"estimated\"" "$T/cache/ledger.jsonl" &&
	test "$(field "$T/cache/budget.json" "d[\"reserved\"]")" = "{}"
'
test_expect_success 'a priced answer that says nothing of usage is charged an estimate' '
	cd p && fresh && mock reset && model openai served-model "m[\"stream_usage\"] = False
m[\"prices\"] = {\"input\": 1, \"output\": 10, \"cache_write\": 0, \"cache_read\": 0}" &&
	q m4.json 2>err && cat err && grep -q "says nothing of usage" err &&
	grep -q "\"note\":\"estimated\"" "$T/cache/ledger.jsonl" &&
	python3 -c "import sys; assert float(sys.argv[1]) > 0, sys.argv[1]" "$(ledger_total)"
'

# 7: secrets
for cfg in "anthropic claude-sonnet-5-5" "openai served-model"; do
	test_expect_success "$cfg: a server echoing the key shows it nowhere" '
		cd p && fresh && mock reset && model $cfg && mock script "[{\"fault\": \"401echo\"}]" &&
		expect_fail 1 "Incorrect API key provided: .*\[redacted\]" q s1.json && ! grep -q FAKE-KEY "$T/.err"
	'
done
test_expect_success 'a key of no known shape is redacted by its value; key shapes in messages too' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 &&
	mock script "[{\"fault\": \"401echo\"}, {\"status\": 401, \"body\": {\"error\": {\"type\": \"x\",
		\"message\": \"not sk-proj-abcdefgh12345678 nor Bearer tok.en-1\"}}}]" &&
	(export ANTHROPIC_API_KEY=plain0secret0value && expect_fail 1 "provided: \[redacted\]" q s2.json) &&
	! grep -q plain0secret0value "$T/.err" &&
	expect_fail 1 "not \[redacted\] nor Bearer \[redacted\]" q s3.json && ! grep -q "abcdefgh\|tok.en" "$T/.err"
'
test_expect_success 'two keys, one the start of the other: an answer holding the longer keeps none of it' '
	cd p && fresh && mock reset && model openai served-model &&
	mock script "[{\"text\": \"your key is plain0secret0value, I think\"}]" &&
	(export ANTHROPIC_API_KEY=plain0secret0 OPENAI_API_KEY=plain0secret0value && q s5.json) &&
	grep -q "your key is \[redacted\], I think" s5.json &&
	{ grep -r -l -e secret0 "$T/cache" s5.json "$T/llm.log"; test $? = 1; }
'
test_expect_success 'an answer holding the key is stored without it' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 &&
	mock script "[{\"text\": \"your key is sk-ant-FAKE-KEY-0123456789, I think\"}]" && q s4.json &&
	grep -q "your key is \[redacted\], I think" s4.json &&
	{ grep -r -l -e FAKE-KEY "$T/cache" s4.json "$T/llm.log"; test $? = 1; }
'

# 8: a model without prices
test_expect_success 'no prices: tokens recorded, cost null, the report says price unknown' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"name\"] = m[\"api_model\"] = \"claude-next-1\"
del m[\"prices\"]
m[\"listed\"] = False" && q u1.json && test "$(field u1.json "d[\"cost_usd\"]")" = None &&
	test "$(field u1.json "d[\"usage\"][\"input_tokens\"]")" = 1000 &&
	mkdir -p urep/a urep/b && cp u1.json urep/a/response.json &&
	"$RETORT_BIN/query-llm" --report urep --log "$T/llm.log" >urep.txt && cat urep.txt &&
	grep -q "claude-next-1  *1  *1000  *200  *300  *500 price unknown" urep.txt &&
	grep -q "paid (\$[0-9.]*, and [1-9][0-9]* of unknown price)" urep.txt
'
test_expect_success 'no prices: --budget refuses to start, naming the entry to add' '
	cd p && n=$(mock count) &&
	expect_fail 2 "query-llm: --budget needs prices: model .claude-next-1. is not in models.yaml (configure --price-in and --price-out, or add it under models: with prices: {input, output}; or cap the tokens with --budget-tokens)" \
		q u2.json --budget 5 --sample 3 && test "$(mock count)" = "$n" && test ! -e u2.json
'
test_expect_success 'a served model (the "*" entry) has unknown prices: cost null, never $0' '
	cd p && fresh && mock reset && model openai served-model && test "$(field m.json "\"prices\" in d")" = False &&
	q n1.json --log n.log && test "$(field n1.json "d[\"cost_usd\"]")" = None &&
	test "$(python3 -c "import json; print([json.loads(l)[\"cost_usd\"] for l in open(\"$T/cache/ledger.jsonl\")])")" = "[None]" &&
	mkdir -p nrep/a && cp n1.json nrep/a/response.json &&
	"$RETORT_BIN/query-llm" --report nrep --log n.log >nrep.txt && cat nrep.txt &&
	grep -q "served-model  *1 .* price unknown$" nrep.txt && grep -q "paid (\$0.0000, and 1 of unknown price)" nrep.txt
'
test_expect_success 'prices of zero (a server declared free) stay $0' '
	cd p && fresh && mock reset && model openai served-model "m[\"prices\"] = {\"input\": 0, \"output\": 0, \"cache_write\": 0, \"cache_read\": 0}" &&
	q z1.json &&
	test "$(field z1.json "d[\"cost_usd\"]")" = 0.0 && mkdir -p zrep/a && cp z1.json zrep/a/response.json &&
	"$RETORT_BIN/query-llm" --report zrep >zrep.txt && cat zrep.txt &&
	grep -q "served-model  *1 .* 0.0000$" zrep.txt
'
test_done
