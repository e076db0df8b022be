#!/bin/sh
# t0310: requests through ninja — the llm pool, incremental reruns, offline
# rebuilds from the cache, `ninja cost`, secrets, and the request bodies
# validated against the providers' official OpenAPI specs
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta
spec c gamma "hints: [\"{w}\"]
matrix: {w: [x1, x2]}"

start_mock --latency 0.3

test_expect_success 'every variant and sample is asked once, within the llm pool' '
	cd p && rconfigure --all --provider=anthropic --model=claude-sonnet-5-5 --samples=2 --llm-jobs=3 >/dev/null &&
	ninja -j 16 >n.log && echo "asked $(mock count), at most $(mock inflight) at once" && test "$(mock count)" = 8 && test "$(mock inflight)" -le 3 &&
	test "$(mock inflight)" -ge 2 &&
	for v in alpha beta gamma.x1 gamma.x2; do for s in 0 1; do
		test -f out/v/$v/s$s/r1/response.json || exit 1; done; done
'
test_expect_success 'a second ninja asks nothing' '
	cd p && ninja >n.log && grep -q "no work to do" n.log && test "$(mock count)" = 8
'
test_expect_success 'editing one spec re-asks only its requests' '
	cd p && sed -i "s/Scale a vector by two (beta)/Scale a vector by three (beta)/" tasks/b.yaml &&
	ninja >n.log && ran n.log > ran.log && cat ran.log && test "$(mock count)" = 10 &&
	! grep "^ASK" ran.log | grep -v -q beta
'
test_expect_success LONG 'editing the system template re-asks everything; reverting hits the cache' '
	cd p && cp tasks/prompts/system.md sys.bak && echo "Prefer clarity." >> tasks/prompts/system.md &&
	ninja >/dev/null && test "$(mock count)" = 18 &&
	cp sys.bak tasks/prompts/system.md && ninja >/dev/null && test "$(mock count)" = 18
'
test_expect_success LONG 'offline: rm -rf out and rebuild from the cache alone, same bytes' '
	cd p && mkdir keep && cp out/v/beta/s1/r1/response.json keep/ && n=$(mock count) &&
	rconfigure --all --provider=anthropic --model=claude-sonnet-5-5 --samples=2 --offline >/dev/null &&
	rm -rf out && env -u ANTHROPIC_API_KEY ninja >/dev/null && test "$(mock count)" = "$n" &&
	cmp keep/response.json out/v/beta/s1/r1/response.json
'
test_expect_success 'offline: a new request is an error naming the task, and the build stops' '
	cd p && rconfigure --all --provider=anthropic --model=claude-sonnet-5-5 --samples=2 --offline >/dev/null &&
	spec d delta && ! ninja >n.log 2>&1 && cat n.log &&
	grep -q "offline: no cached response for .delta. sample 0 round 1" n.log && rm tasks/d.yaml && ninja >/dev/null
'
test_expect_success LONG 'ninja check rebuilds from the cache when --cache-dir was given relative' '
	cd p && ./configure --with-tools="$RETORT_BIN" --cache-dir=../cache --all --provider=anthropic \
		--model=claude-sonnet-5-5 --samples=2 --offline >/dev/null && n=$(mock count) &&
	env -u ANTHROPIC_API_KEY ninja >/dev/null && { ninja check >c.log 2>&1; r=$?; cat c.log; test $r = 0; } &&
	grep -q "the same" c.log && test "$(mock count)" = "$n"
'
test_expect_success 'ninja cost prints tokens and $ by model' '
	cd p && ninja cost >c.log && cat c.log && grep -q "claude-sonnet-5-5  *8 " c.log &&
	grep -q "paid" c.log
'
test_expect_success 'openai-compatible through ninja' '
	cd p && mock reset && rconfigure --all --provider=openai --model=served-model >/dev/null &&
	ninja >/dev/null && test "$(mock count)" = 4 &&
	test "$(mock requests | python3 -c "import json,sys; print(json.load(sys.stdin)[0][\"path\"])")" = /v1/chat/completions
'
# same PROVIDER MODEL: every variant's round-1 answer through query-llm from
# the suite's mock and from tests/lib/mock_fast.py (the LLM benchmark's), with
# and without streaming; the responses are the same but for latency_s (and
# a plain answer's request_id, which counts requests)
same() {
	rconfigure --all --provider="$1" --model="$2" >/dev/null && ninja out/model.json >/dev/null &&
	for stream in true false; do
		d=$T/same-$1-$stream && mkdir -p "$d/old" "$d/new" "$d/mock" &&
		python3 -c "import json, sys; m = json.load(open(\"out/model.json\")); m[\"stream\"] = sys.argv[1] == \"true\"
json.dump(m, open(sys.argv[2], \"w\"))" $stream "$d/model.json" &&
		askall "$d/old" "$d/model.json" &&
		(T=$d/mock && start_mock_of "$RETORT_ROOT/tests/lib/mock_fast.py" && askall "$d/new" "$d/model.json") &&
		for v in alpha beta gamma.x1; do
			python3 -c "import json, sys
def norm(p):
    r = json.load(open(p))
    r.pop(\"latency_s\", None)
    if sys.argv[3] == \"false\":
        r.pop(\"request_id\", None)
    return r
a, b = norm(sys.argv[1]), norm(sys.argv[2])
sys.exit(0 if a == b else \"differ: %s\\n%s\" % (a, b))" "$d/old/$v.json" "$d/new/$v.json" $stream || return 1
		done || return 1
	done
}
# askall DIR MODEL_JSON: the round-1 requests of alpha, beta and gamma.x1, a cache of their own
askall() {
	for v in alpha beta gamma.x1; do
		"$RETORT_BIN/query-llm" -o "$1/$v.json" --model-config "$2" --prompts tasks/prompts \
			--cache-dir "$1/cache" --arch sm_90 --budget 0 --sample 0 --round 1 out/v/$v/task.json || return 1
	done
}
test_expect_success LONG 'tests/lib/mock_fast.py answers as the suite'"'"'s mock: both APIs, streamed and plain' '
	cd p && same anthropic claude-sonnet-5-5 && same openai served-model &&
	test -s "$T/same-openai-true/new/alpha.json"
'
test_expect_success 'the fake keys are nowhere: build.ninja, config.status, out/, cache' '
	cd p && { grep -r -l -e FAKE-KEY build.ninja config.status out "$T/cache"; test $? = 1; } # 1: read, nothing found
'
if PY=$("$RETORT_ROOT/tests/lib/pyenv" 2>/dev/null); then
	test_expect_success LONG 'request bodies are valid under the official OpenAPI specs' '
		cd p && mock requests > openai.json && mock reset &&
		rconfigure --all --provider=anthropic --model=claude-sonnet-4-6 >/dev/null && rm -rf "$T/cache" &&
		ninja >/dev/null && rconfigure --all --provider=anthropic --model=claude-sonnet-5-5 >/dev/null &&
		rm -rf "$T/cache" && ninja >/dev/null && mock requests > anthropic.json &&
		grep -q adaptive anthropic.json && grep -q budget_tokens anthropic.json &&
		"$PY" "$RETORT_ROOT/tests/lib/validate_requests.py" openai.json &&
		"$PY" "$RETORT_ROOT/tests/lib/validate_requests.py" anthropic.json
	'
else
	test_skip 'request bodies against the OpenAPI specs: cannot install tests/lib/requirements.txt from PyPI'
fi
test_done
