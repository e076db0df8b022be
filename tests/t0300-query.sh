#!/bin/sh
# t0300: query-llm against a loopback mock teacher — both wire formats,
# streaming, the cache, offline mode, retries and failures, budget, limiter,
# secrets
. "$(dirname "$0")/lib/lib.sh"

one_variant

start_mock

last() { mock requests | python3 -c "import json,sys; r = json.load(sys.stdin)[-1]; print(eval(sys.argv[1]))" "$1"; }

test_expect_success 'anthropic: streamed request and response' '
	cd p && mock reset && model anthropic claude-sonnet-5-5 && q r1.json &&
	test "$(last "r[\"path\"]")" = /v1/messages &&
	test "$(last "r[\"headers\"][\"x-api-key\"]")" = sk-ant-FAKE-KEY-0123456789 &&
	test "$(last "r[\"headers\"][\"anthropic-version\"]")" = 2023-06-01 &&
	test "$(last "r[\"body\"][\"stream\"]")" = True &&
	test "$(last "r[\"body\"][\"thinking\"]")" = "{'"'"'type'"'"': '"'"'adaptive'"'"'}" &&
	test "$(last "r[\"body\"][\"system\"][0][\"cache_control\"][\"type\"]")" = ephemeral &&
	test "$(field r1.json "d[\"status\"]")" = answered &&
	test "$(field r1.json "d[\"answer\"][\"reasoning\"]")" = "Let me think about coalescing." &&
	test "$(field r1.json "d[\"answer\"][\"blocks\"][0][\"signature\"]")" = c2lnbmF0dXJl &&
	grep -q "extern" r1.json &&
	test "$(field r1.json "d[\"usage\"][\"cache_read_tokens\"]")" = 500 &&
	test "$(field r1.json "round(d[\"cost_usd\"], 6)")" = 0.00485 &&
	test "$(field r1.json "d[\"request_id\"]")" = req_mock_stream
'
test_expect_success 'the prompt lists the checked and timed sizes, says unlisted ones are checked too, and names none' '
	cd p && last "str(r[\"body\"][\"messages\"])" >prompt.txt &&
	grep -q "checked at: n=" prompt.txt && grep -q "sizes not listed here" prompt.txt &&
	python3 "$RETORT_ROOT/tests/lib/hidden-unlisted.py" "$TASK" prompt.txt
'
test_expect_success 'anthropic: plain JSON when stream is off' '
	cd p && model anthropic claude-sonnet-4-6 "m[\"stream\"] = False" && q r2.json &&
	test "$(last "r[\"body\"].get(\"stream\")")" = None &&
	test "$(last "r[\"body\"][\"thinking\"][\"budget_tokens\"]")" = 16000 &&
	test "$(field r2.json "d[\"answer\"][\"blocks\"][1][\"type\"]")" = text &&
	test "$(field r2.json "d[\"usage\"][\"input_tokens\"]")" = 1000
'
test_expect_success 'openai-compatible: streamed, reasoning_content, usage chunk' '
	cd p && model openai my-local-model && q r3.json &&
	test "$(last "r[\"path\"]")" = /v1/chat/completions &&
	test "$(last "r[\"headers\"][\"authorization\"]")" = "Bearer sk-oai-FAKE-KEY-0123456789" &&
	test "$(last "r[\"body\"][\"messages\"][0][\"role\"]")" = system &&
	test "$(last "r[\"body\"][\"max_tokens\"]")" = 16000 &&
	test "$(last "r[\"body\"][\"stream_options\"][\"include_usage\"]")" = True &&
	test "$(field r3.json "d[\"answer\"][\"reasoning\"]")" = "Thinking about coalescing." &&
	test "$(field r3.json "d[\"usage\"][\"cache_read_tokens\"]")" = 400 &&
	test "$(field r3.json "d[\"usage\"][\"input_tokens\"]")" = 800
'
test_expect_success 'openai-compatible: plain JSON after blank keep-alive lines' '
	cd p && model openai other-model "m[\"stream\"] = False" &&
	mock script "[{\"blank_lines\": true}]" && q r4.json &&
	test "$(field r4.json "d[\"status\"]")" = answered && grep -q "extern" r4.json
'
test_expect_success LONG 'an answer holding U+0000, in each API and mode: taken once, each NUL as U+FFFD, not retried' '
	cd p && for conf in "anthropic claude-sonnet-5-5" "anthropic claude-sonnet-4-6 m[\"stream\"]=False" \
		"openai my-local-model" "openai other-model m[\"stream\"]=False"; do
		set -- $conf && model "$1" "$2" "${3:-}" && mock reset &&
		mock script "[{\"text\": \"one\\u0000two\\n\\n\\u0060\\u0060\\u0060cuda\\nint x;\\n\\u0060\\u0060\\u0060\\n\"}]" &&
		q nul.json --sample 7 2>err && test "$(mock count)" = 1 && test "$(field nul.json "d[\"status\"]")" = answered &&
		test "$(field nul.json "d[\"answer\"][\"text\"].startswith(\"one\\ufffdtwo\")")" = True || return 1
	done
'
test_expect_success 'a task.json of the wrong shape: exit 2, the field named, nothing asked' '
	cd p && model anthropic claude-sonnet-5-5 && mock reset && mkdir -p empty prop && echo "{}" >empty/task.json &&
	echo "{\"kind\": \"proposal\", \"id\": \"propose/x/b0\", \"prompt\": \"propose\"}" >prop/task.json &&
	for t in empty prop; do
		"$RETORT_BIN/query-llm" -o e.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" \
			--sample 9 --round 1 $t/task.json 2>$t.err; echo $? >$t.rc; cat $t.err
	done &&
	test "$(cat empty.rc) $(cat prop.rc)" = "2 2" &&
	grep -q "not a variant.s task.json: empty/task.json: not a task.json of version 1" empty.err &&
	grep -q "a proposal request: no .system. field (a string): .prop/task.json." prop.err &&
	test "$(mock count)" = 0 && test ! -e e.json
'
test_expect_success 'a cache hit makes no request and gives the same bytes' '
	cd p && model anthropic claude-sonnet-5-5 && n=$(mock count) &&
	q r1b.json && test "$(mock count)" = "$n" && cmp r1.json r1b.json &&
	tail -n 1 "$T/llm.log" | grep -q "\"source\":\"cache\""
'
test_expect_success 'another sample is another key' '
	cd p && n=$(mock count) && "$RETORT_BIN/query-llm" -o s1.json --model-config m.json \
		--prompts tasks/prompts --cache-dir "$T/cache" --sample 1 --round 1 "$TASK" &&
	test "$(mock count)" = $((n + 1)) && test "$(field s1.json "d[\"key\"]")" != "$(field r1.json "d[\"key\"]")"
'
test_expect_success 'offline: a miss is an error naming the task and the key' '
	cd p && model anthropic claude-opus-4-8 && n=$(mock count) &&
	expect_fail 1 "offline: no cached response for .alpha. sample 0 round 1 (key [0-9a-f]\{64\})" q off.json --offline &&
	test ! -e off.json && test "$(mock count)" = "$n"
'
test_expect_success 'offline: a hit works without a key' '
	cd p && model anthropic claude-sonnet-5-5 && env -u ANTHROPIC_API_KEY "$RETORT_BIN/query-llm" -o off2.json \
		--model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" --offline "$TASK" &&
	cmp off2.json r1.json
'
test_expect_success 'reverting a prompt edit hits the old entry' '
	cd p && cp tasks/prompts/system.md sys.bak && echo "Be brief." >> tasks/prompts/system.md &&
	n=$(mock count) && q e1.json && test "$(mock count)" = $((n + 1)) &&
	cp sys.bak tasks/prompts/system.md && q e2.json && test "$(mock count)" = $((n + 1)) && cmp e2.json r1.json
'

# retries: each case clears the cache so that a request is made
test_expect_success 'round 2 after a compile timeout tells the teacher so' '
	cd p && mock reset && model anthropic claude-sonnet-5-5 && mkdir -p r1dir &&
	cp r1.json r1dir/response.json &&
	printf "{\"status\": \"timeout\", \"reason\": \"nvcc ran longer than 120 s\"}\n" >r1dir/compile.json &&
	"$RETORT_BIN/query-llm" -o r2t.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" \
		--sample 0 --round 2 "$TASK" r1dir/response.json r1dir/compile.json &&
	last "r[\"body\"][\"messages\"][-1][\"content\"]" >msg &&
	grep -q "took too long (nvcc ran longer than 120 s)" msg
'
test_expect_success '429 with retry-after is retried after the wait' '
	cd p && fresh && mock reset && mock script "[{\"status\": 429, \"headers\": {\"retry-after\": \"1\"},
		\"body\": {\"type\": \"error\", \"error\": {\"type\": \"rate_limit_error\", \"message\": \"slow down\"}}}]" &&
	q t1.json 2>err && cat err && test "$(mock count)" = 2 && grep -q "retrying in 1.0 s" err &&
	python3 -c "import json; r = json.loads(open(\"/dev/stdin\").read()); assert r[1][\"time\"] - r[0][\"time\"] >= 0.95" <<EOF
$(mock requests)
EOF
'
test_expect_success LONG 'retry-after-ms and an HTTP-date retry-after are honoured' '
	cd p && fresh && mock reset && mock script "[{\"status\": 429, \"headers\": {\"retry-after-ms\": \"300\"}},
		{\"status\": 503, \"headers\": {\"retry-after\": \"$(date -u -R -d "+2 seconds" | sed "s/+0000/GMT/")\"}}]" &&
	q t2.json 2>err && cat err && test "$(mock count)" = 3 && grep -q "retrying in 0.3 s" err
'
for case in "529:{\"status\": 529, \"body\": {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}}" \
	"500:{\"status\": 500}" "a connection reset:{\"reset\": true}" "malformed JSON:{\"malformed\": true}" \
	"a truncated stream:{\"truncate\": true}" "an error event after HTTP 200:{\"stream_error\": \"overloaded_error\"}" \
	"408:{\"status\": 408}" "409:{\"status\": 409}"; do
	name=${case%%:*} step=${case#*:}
	long=; case $name in 500|"malformed JSON"|408|409) long=LONG ;; esac # (the quick tier: one of a kind)
	test_expect_success $long "$name is retried, and no half record is written" '
		cd p && fresh && mock reset && mock script "[$step]" && q t3.json 2>err && cat err &&
		test "$(mock count)" = 2 && test "$(field t3.json "d[\"status\"]")" = answered &&
		grep -q "retrying" err
	'
done
test_expect_success LONG 'a slow response times out and is retried' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"timeout_s\"] = 1" &&
	mock script "[{\"delay\": 3}]" && q t4.json 2>err && cat err && test "$(mock count)" = 2 &&
	grep -q -i "timeout\|timed out" err
'
for case in "401:{\"status\": 401, \"body\": {\"type\": \"error\", \"error\": {\"type\": \"authentication_error\", \"message\": \"invalid x-api-key\"}}}:invalid x-api-key" \
	"400:{\"status\": 400, \"body\": {\"type\": \"error\", \"error\": {\"type\": \"invalid_request_error\", \"message\": \"prompt is too long\"}}}:prompt is too long" \
	"403:{\"status\": 403}:HTTP 403" "404:{\"status\": 404}:HTTP 404" "413:{\"status\": 413, \"body\": \"<html>Request Entity Too Large</html>\"}:Request Entity Too Large" \
	"out-of-quota 429:{\"status\": 429, \"body\": {\"error\": {\"type\": \"insufficient_quota\", \"message\": \"You exceeded your current quota\"}}}:exceeded your current quota" \
	"x-should-retry false:{\"status\": 500, \"headers\": {\"x-should-retry\": \"false\"}}:HTTP 500" \
	"a non-retryable stream error:{\"stream_error\": \"invalid_request_error\"}:invalid_request_error"; do
	name=${case%%:*} rest=${case#*:} step=${rest%:*} msg=${rest##*:}
	long=; case $name in 400|403|404) long=LONG ;; esac # (the quick tier: 401 with its message, 413 with a page)
	test_expect_success $long "$name fails at once with the provider's message, writing nothing" '
		cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && mock script "[$step]" &&
		expect_fail 1 "$msg" q t5.json && test "$(mock count)" = 1 && test ! -e t5.json &&
		! ls "$T/cache/llm" 2>/dev/null | grep -q .
	'
done
test_expect_success LONG 'retries stop at retry.attempts' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 "m[\"retry\"][\"attempts\"] = 3" &&
	mock script "[{\"status\": 500}, {\"status\": 500}, {\"status\": 500}, {\"status\": 500}]" &&
	expect_fail 1 "giving up on .alpha. after 3 attempts: HTTP 500" q t6.json &&
	test "$(mock count)" = 3 && test ! -e t6.json
'
test_expect_success 'x-should-retry true makes a 400 retryable' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 &&
	mock script "[{\"status\": 400, \"headers\": {\"x-should-retry\": \"true\"}}]" && q t7.json 2>/dev/null &&
	test "$(mock count)" = 2
'
test_expect_success 'a missing key is a clear error, not a request' '
	cd p && fresh && mock reset && env -u ANTHROPIC_API_KEY sh -c "
		\"$RETORT_BIN/query-llm\" -o k.json --model-config m.json --prompts tasks/prompts --cache-dir \"$T/cache\" \"$TASK\"" 2>err;
	test $? = 1 && grep -q "ANTHROPIC_API_KEY is not set" err && test "$(mock count)" = 0
'
test_expect_success 'budget: requests stop with a clear error once it is reached' '
	cd p && fresh && mock reset && model anthropic claude-sonnet-5-5 && q b1.json --budget 1 &&
	test -s "$T/cache/ledger.jsonl" &&
	expect_fail 1 "budget reached: \$0.00[0-9]* spent and \$0.0000 reserved of \$0.01" \
		"$RETORT_BIN/query-llm" -o b2.json --model-config m.json --prompts tasks/prompts \
		--cache-dir "$T/cache" --sample 5 --budget 0.01 "$TASK" &&
	test ! -e b2.json && test "$(mock count)" = 1
'
test_expect_success LONG 'limiter: concurrent processes share requests per minute' '
	cd p && fresh && mkdir -p "$T/cache" && mock reset && model anthropic claude-sonnet-5-5 "m[\"limits\"] = {\"rpm\": 120, \"tpm\": 0}" &&
	python3 -c "import json, time; json.dump({\"claude-sonnet-5-5\": {\"t\": time.time(), \"req\": 0, \"tok\": 0}}, open(\"$T/cache/limits.json\", \"w\"))" &&
	for s in 1 2 3 4; do "$RETORT_BIN/query-llm" -o l$s.json --model-config m.json --prompts tasks/prompts \
		--cache-dir "$T/cache" --sample $s "$TASK" & done; wait &&
	test "$(mock count)" = 4 &&
	mock requests | python3 -c "import json,sys; t = sorted(r[\"time\"] for r in json.load(sys.stdin)); \
		gaps = [b - a for a, b in zip(t, t[1:])]; print(gaps); assert t[-1] - t[0] >= 1.3, gaps"
'
test_expect_success 'two processes writing the same key is harmless' '
	cd p && fresh && mock reset && mock script "[{\"delay\": 0.5}, {\"delay\": 0.5}]" &&
	(q c1.json & q c2.json & wait) &&
	test "$(field c1.json "d[\"status\"]")" = answered && test "$(field c2.json "d[\"status\"]")" = answered &&
	python3 -c "import json, glob; [json.load(open(f)) for f in glob.glob(\"$T/cache/llm/*/*.json\")]" &&
	! ls "$T"/cache/llm/*/ | grep -q tmp
'
test_expect_success 'the fake keys appear nowhere on disk' '
	cd p && { grep -r -l -e FAKE-KEY "$T/cache" "$T/p" "$T/llm.log"; test $? = 1; } # 1: read, and nothing found
'
test_expect_success 'cost report: tokens and $ by model, paid vs cached' '
	cd p && mkdir -p rep/a rep/b && cp r1.json rep/a/response.json && cp r3.json rep/b/response.json &&
	"$RETORT_BIN/query-llm" --report rep --log "$T/llm.log" >rep.txt && cat rep.txt &&
	grep -q "claude-sonnet-5-5  *1  *1000  *200  *300  *500  *0.004[89]" rep.txt &&
	grep -q "my-local-model  *1 .* price unknown$" rep.txt &&
	grep -q "paid (\$[0-9.]*, and [1-9][0-9]* of unknown price), [0-9]* answered from the cache" rep.txt
'
test_done
