#!/bin/sh
# t0330: configure --batch — a round's requests through the batch APIs of
# both providers (the loopback mock's): one batch per round within the
# providers' limits, batch prices, progress while ninja waits, the same
# cache keys as single requests, expiry and partial errors asked again,
# client errors left to the direct path, a ninja killed while it polls (or
# while it sends) resuming the same batch, and never a request paid twice
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta
# quick looks, no limiter; an OpenAI model with batch prices
sed -i 's/^  batch: {.*}/  batch: {poll_s: 0.1, poll_max_s: 0.3, attempts: 3}/; s/^  limits: {rpm: 50, tpm: 400000}/  limits: {rpm: 0, tpm: 0}/' models.yaml
gpt_test
start_mock --batch-seconds 0.4

# (a kill: ninja in a session of its own, killed with its process group, in
# which the batch edge runs, being in the console pool: as a machine that stops)
# the round-1 responses: the requests alone (no compile behind them)
R="out/v/alpha/s0/r1/response.json out/v/alpha/s1/r1/response.json out/v/beta/s0/r1/response.json out/v/beta/s1/r1/response.json"
# creates: batches made; direct: single requests
creates() { mock requests | python3 -c "import json,sys; print(sum(1 for r in json.load(sys.stdin) if r.get('method') == 'POST' and r['path'] in ('/v1/messages/batches', '/v1/batches')))"; }
direct() { mock requests | python3 -c "import json,sys; print(sum(1 for r in json.load(sys.stdin) if r['path'] in ('/v1/messages', '/v1/chat/completions')))"; }
ledger_lines() { grep -c "$1" "$T/cache/ledger.jsonl"; }
reserved() { field "$T/cache/budget.json" "d['reserved']"; }
bconf() { rconfigure --all --samples=2 --rounds=1 --batch "$@" >/dev/null; }

test_expect_success 'anthropic: the round in one batch, at batch prices, progress shown' '
	cd p && bconf --provider=anthropic --model=claude-sonnet-5-5 && grep -q "build out/batch/r1.json: batch" build.ninja &&
	mock batch_script "[{\"seconds\": 1.5}]" && ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 1 && test "$(direct)" = 0 &&
	grep -q "BATCH round 1" n.log && grep -q "msgbatch_mock1 (submitted, in_progress, attempt 1): [0-9]/4 done" n.log &&
	grep -q "batch msgbatch_mock1 ended (ended): 4 answered" n.log &&
	for f in $R; do test "$(field $f "\" \".join(map(str, (d[\"status\"], round(d[\"cost_usd\"], 6), d[\"request_id\"])))")" = "answered 0.002425 msgbatch_mock1" || exit 1; done &&
	test "$(ledger_lines "\"note\":\"batch:")" = 4 && test "$(reserved)" = "{}" &&
	test "$(field "$T/cache/budget.json" "round(d[\"spent_usd\"], 6)")" = 0.0097 &&
	test "$(field out/batch/r1.json "\"%d %s\" % (d[\"answered\"], \",\".join(d[\"batches\"]))")" = "4 msgbatch_mock1" &&
	! ls "$T/cache/batch" | grep -q "json"
'
test_expect_success 'the batch requests are whole (no stream), named by the record and the cache key, with cache_control' '
	cd p && mock requests | python3 -c "import json, sys, glob
b = [r for r in json.load(sys.stdin) if r.get(\"method\") == \"POST\" and r[\"path\"] == \"/v1/messages/batches\"][0][\"body\"]
rec = {r[\"custom_id\"][:16] for r in b[\"requests\"]}
assert len(rec) == 1 and all(len(r[\"custom_id\"]) == 64 and r[\"custom_id\"][16] == \"-\" for r in b[\"requests\"]), b
keys = sorted(r[\"custom_id\"][17:] for r in b[\"requests\"])
cached = sorted(f.split(\"/\")[-1][:47] for f in glob.glob(\"$T/cache/llm/*/*.json\"))
assert keys == cached, (keys, cached)
for r in b[\"requests\"]:
    p = r[\"params\"]
    assert \"stream\" not in p and p[\"system\"][0][\"cache_control\"][\"type\"] == \"ephemeral\", p
"
'
test_expect_success 'ninja cost counts the batch as paid, at batch prices' '
	cd p && ninja cost >c.log && cat c.log && grep -q "4 paid (\$0.0097)" c.log && grep -q "4 in batches" c.log &&
	grep -q "0 answered from the cache" c.log
'
test_expect_success 'a later run without --batch hits the same cache keys' '
	cd p && rconfigure --all --samples=2 --rounds=1 --provider=anthropic --model=claude-sonnet-5-5 >/dev/null &&
	! grep -q "out/batch" build.ninja && rm -rf out && n=$(mock count) && ninja $R >/dev/null && test "$(mock count)" = "$n"
'
test_expect_success 'a second ninja with --batch sends nothing' '
	cd p && bconf --provider=anthropic --model=claude-sonnet-5-5 && n=$(mock count) && ninja $R >n.log 2>&1 &&
	cat n.log && test "$(mock count)" = "$n"
'
test_expect_success 'the providers limits: max_requests splits a round into batches' '
	cd p && fresh && mock reset && sed -i "s/poll_max_s: 0.3, attempts: 3}/poll_max_s: 0.3, attempts: 3, max_requests: 3}/" models.yaml &&
	rm -rf out && ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 0 &&
	sed -i "s/, max_requests: 3}/}/" models.yaml && test "$(reserved)" = "{}"
'
test_expect_success LONG 'anthropic: an expired batch is sent again; only answers are charged' '
	cd p && fresh && mock reset && mock batch_script "[{\"expire_after\": 1}]" && rm -rf out &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 0 &&
	grep -q "1 answered (\$0.0024 at batch prices), 3 to ask again" n.log &&
	test "$(wc -l <"$T/cache/ledger.jsonl")" = 4 && test "$(reserved)" = "{}" &&
	for f in $R; do test "$(field $f "d[\"status\"]")" = answered || exit 1; done
'
test_expect_success LONG 'anthropic: server errors go into a new batch, a client error to the direct path' '
	cd p && fresh && mock reset && mock batch_script "[{\"errors\": {\"overloaded_error\": 1, \"invalid_request_error\": 1}}]" &&
	rm -rf out && ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 1 &&
	grep -q "2 answered .*, 1 to ask again, 1 left to the direct path" n.log &&
	test "$(ledger_lines "\"note\":\"batch:")" = 3 && test "$(wc -l <"$T/cache/ledger.jsonl")" = 4 &&
	for f in $R; do test "$(field $f "d[\"status\"]")" = answered || exit 1; done
'
test_expect_success LONG 'a request failing in every batch is left to the direct path after batch.attempts' '
	cd p && fresh && mock reset && mock batch_script "[{\"expire\": true}, {\"expire\": true}, {\"expire\": true}]" &&
	rm -rf out && ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 3 && test "$(direct)" = 4 &&
	grep -q "4 requests failed in 3 batches: left to the direct path" n.log && test "$(reserved)" = "{}"
'
test_expect_success 'openai: upload, batch, partial expiry and errors, at batch prices' '
	cd p && fresh && mock reset && bconf --provider=openai --model=gpt-test &&
	mock batch_script "[{\"expire_after\": 3, \"errors\": {\"overloaded_error\": 1}}]" && rm -rf out &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 0 &&
	grep -q "batch_mock1 ended (expired): 2 answered" n.log &&
	mock requests | python3 -c "import json,sys
r = json.load(sys.stdin)
up = [x for x in r if x[\"path\"] == \"/v1/files\"]
mk = [x[\"body\"] for x in r if x.get(\"method\") == \"POST\" and x[\"path\"] == \"/v1/batches\"]
assert len(up) == 2 and up[0][\"headers\"][\"content-type\"].startswith(\"multipart/form-data; boundary=\"), up
assert mk[0][\"endpoint\"] == \"/v1/chat/completions\" and mk[0][\"completion_window\"] == \"24h\" and mk[0][\"metadata\"][\"retort_batch\"], mk
assert r[0][\"headers\"][\"authorization\"] == \"Bearer sk-oai-FAKE-KEY-0123456789\"
" && for f in $R; do test "$(field $f "\"%s %g\" % (d[\"status\"], round(d[\"cost_usd\"], 6))")" = "answered 0.0017" || exit 1; done &&
	test "$(reserved)" = "{}"
'
test_expect_success LONG 'a ninja killed while it polls resumes the same batch: nothing sent or charged twice' '
	cd p && fresh && mock reset && bconf --provider=anthropic --model=claude-sonnet-5-5 &&
	mock batch_script "[{\"seconds\": 3}]" && rm -rf out &&
	{ setsid ninja $R >k.log 2>&1 & pid=$!; } && i=0 &&
	while test "$(creates)" = 0 && test $i -lt 200; do sleep 0.05; i=$((i + 1)); done && sleep 0.3 &&
	kill -9 -$pid; wait $pid; sleep 0.1;
	cat k.log && test "$(creates)" = 1 && test ! -e out/v/alpha/s0/r1/response.json &&
	ls "$T/cache/batch" | grep -q "json$" && grep -q "batch:" "$T/cache/budget.json" &&
	ninja cost >c.log && cat c.log && grep -q "batches not yet taken in" c.log && grep -q "msgbatch_mock1 (submitted" c.log &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 1 && test "$(direct)" = 0 &&
	grep -q "batch msgbatch_mock1 ended (ended): 4 answered" n.log &&
	test "$(ledger_lines "\"note\":\"batch:")" = 4 && ! grep -q unsettled "$T/cache/ledger.jsonl" && test "$(reserved)" = "{}" &&
	for f in $R; do test "$(field $f "d[\"status\"]")" = answered || exit 1; done
'
test_expect_success LONG 'killed while the batch was being sent: found among the provider batches, not sent again' '
	cd p && fresh && mock reset && mock batch_script "[{\"create_delay\": 4}]" && rm -rf out &&
	{ setsid ninja $R >k.log 2>&1 & pid=$!; } && i=0 &&
	while ! cat "$T"/cache/batch/*.json 2>/dev/null | grep -q "\"state\": \"submitting\"" && test $i -lt 400; do
		sleep 0.05; i=$((i + 1)); done && sleep 0.5 &&
	kill -9 -$pid; wait $pid; sleep 0.1;
	test "$(creates)" = 1 && cat "$T"/cache/batch/*.json && grep -q "\"state\": \"submitting\"" "$T"/cache/batch/*.json &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 1 && test "$(direct)" = 0 &&
	grep -q "was sent before its sender stopped: it is msgbatch_mock1" n.log && test "$(reserved)" = "{}" &&
	test "$(ledger_lines "\"note\":\"batch:")" = 4
'
test_expect_success LONG 'killed while sending beside another build batch of the same size: its own batch adopted and charged' '
	cd p && fresh && rm -rf "$T/other" && mock reset && rm -rf out && bconf --provider=anthropic --model=claude-sonnet-5-5 &&
	ninja out/model.json out/v/alpha/task.json out/v/beta/task.json >/dev/null && printf "%s\n" $R >rsp &&
	"$RETORT_BIN/query-llm" --batch other.json --model-config out/model.json --prompts tasks/prompts \
		--cache-dir "$T/other" @rsp 2>o.log && test "$(creates)" = 1 &&
	mock batch_script "[{\"create_delay\": 4}]" &&
	{ setsid ninja $R >k.log 2>&1 & pid=$!; } && i=0 &&
	while ! cat "$T"/cache/batch/*.json 2>/dev/null | grep -q "\"state\": \"submitting\"" && test $i -lt 400; do
		sleep 0.05; i=$((i + 1)); done && sleep 0.5 &&
	kill -9 -$pid; wait $pid; sleep 0.1;
	test "$(creates)" = 2 && grep -q "\"state\": \"submitting\"" "$T"/cache/batch/*.json &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 0 &&
	grep -q "was sent before its sender stopped: it is msgbatch_mock2" n.log && test "$(reserved)" = "{}" &&
	test "$(ledger_lines "\"note\":\"batch:")" = 4 && mock billed >billed.json &&
	"$RETORT_ROOT/tests/lib/billcheck.py" out/model.json billed.json "$T/cache/ledger.jsonl" "$T/other/ledger.jsonl"
'
test_expect_success LONG 'anthropic: result lines that are not JSON are charged their worst case and asked again' '
	cd p && fresh && mock reset && rm -rf out && bconf --provider=anthropic --model=claude-sonnet-5-5 &&
	mock batch_script "[{\"garble\": 1, \"garble_tail\": 1}]" &&
	ninja $R >n.log 2>&1 && cat n.log && test "$(creates)" = 2 && test "$(direct)" = 0 &&
	grep -q "not JSON in batch msgbatch_mock1 for .alpha.: charged its worst case, asked again" n.log &&
	grep -q "not JSON in batch msgbatch_mock1, naming none of its requests" n.log &&
	grep -q "2 answered (\$[0-9.]* at batch prices), 2 to ask again" n.log &&
	test "$(ledger_lines "\"note\":\"batch:")" = 6 && test "$(reserved)" = "{}" && mock billed >billed.json &&
	"$RETORT_ROOT/tests/lib/billcheck.py" out/model.json billed.json "$T/cache/ledger.jsonl"
'
test_expect_success LONG 'two builds sharing the cache batch the same round at once: one batch, both answered' '
	cd p && fresh && mock reset && mock batch_script "[{\"seconds\": 1}]" && rm -rf out &&
	ninja out/model.json out/v/alpha/task.json out/v/beta/task.json >/dev/null &&
	printf "%s\n" $R >rsp && for i in 1 2; do "$RETORT_BIN/query-llm" --batch st$i.json --model-config out/model.json \
		--prompts tasks/prompts --cache-dir "$T/cache" --log "$T/llm.log" @rsp 2>b$i.log & done; wait &&
	cat b1.log b2.log && test "$(creates)" = 1 && test "$(direct)" = 0 && test "$(reserved)" = "{}" &&
	test "$(ledger_lines "\"note\":\"batch:")" = 4 &&
	test "$(( $(field st1.json "d[\"answered\"]") + $(field st2.json "d[\"answered\"]") ))" = 4
'
test_expect_success 'a model with prices but no batch_prices is refused, not charged the wrong price' '
	cd p && expect_fail 2 "model .claude-mid-1. has prices but no batch_prices" sh -c "
		printf \"  claude-mid-1:\n    provider: anthropic\n    prices: {input: 1, output: 2, cache_write: 1, cache_read: 0.1}\n\" >>models.yaml &&
		./configure --with-tools=\"$RETORT_BIN\" --cache-dir=\"$T/cache\" --all --batch --provider=anthropic --model=claude-mid-1"
'
test_expect_success 'replay has no batch API' '
	cd p && expect_fail 2 "batch needs a provider with a batch API" ./configure --with-tools="$RETORT_BIN" --batch
'
test_expect_success 'the fake keys are nowhere: build.ninja, out/, cache' '
	cd p && { grep -r -l -e FAKE-KEY build.ninja out "$T/cache"; test $? = 1; }
'
test_done
