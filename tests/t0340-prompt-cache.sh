#!/bin/sh
# t0340: the prompt cache — breakpoints where the shared prefixes end (the
# system prompt, the task, the conversation), the system prompt long enough
# to be cached on its own, the first request of a prefix sent alone so that
# its siblings read what it wrote, round 2 reading round 1's prefix; against
# the mock's cache accounting (tests/lib/mock_llm.py --prompt-cache)
. "$(dirname "$0")/lib/lib.sh"

one_variant

start_mock --latency 0.4 --prompt-cache 1024 --answer-pad 2000

last() { mock requests | python3 -c "import json,sys; r = json.load(sys.stdin)[-1]; print(eval(sys.argv[1]))" "$1"; }
usage() { field "$1" "\"%d %d %d\" % (d[\"usage\"][\"input_tokens\"], d[\"usage\"][\"cache_write_tokens\"], d[\"usage\"][\"cache_read_tokens\"])"; }
# qs OUT SAMPLE [ARGS]: a round-1 request of another sample
qs() { out=$1 s=$2; shift 2; "$RETORT_BIN/query-llm" -o "$out" --model-config m.json --prompts tasks/prompts \
	--cache-dir "$T/cache" --sample "$s" --round 1 "$@" "$TASK"; }

test_expect_success 'the system prompt alone is past the 1,024-token minimum (4 bytes a token)' '
	cd p && model anthropic claude-sonnet-5-5 && q r1.json && test "$(last "len(r[\"body\"][\"system\"][0][\"text\"]) // 4")" -ge 2048
'
test_expect_success 'breakpoints: the system prompt and the task; the cache key does not see them' '
	cd p && test "$(last "[b.get(\"cache_control\") for b in r[\"body\"][\"system\"]]")" = "[{'"'"'type'"'"': '"'"'ephemeral'"'"'}]" &&
	test "$(last "r[\"body\"][\"messages\"][0][\"content\"][0][\"cache_control\"][\"type\"]")" = ephemeral &&
	test "$(last "len(r[\"body\"][\"messages\"])")" = 1 &&
	grep -q "\"content\": \"# Task: alpha" r1.json
'
test_expect_success 'the first request writes its whole prefix: nothing is paid in full' '
	cd p && set -- $(usage r1.json) && test "$1" = 0 && test "$2" -gt 2000 && test "$3" = 0
'
test_expect_success 'other samples, later: they read the prefix' '
	cd p && qs s1.json 1 && set -- $(usage s1.json) && echo "$*" && test "$3" -gt 2000 && test "$2" -lt 600
'
test_expect_success 'siblings asked at once: one goes first, the others read what it wrote' '
	cd p && model anthropic claude-opus-4-8 && (qs o1.json 1 & qs o2.json 2 & qs o3.json 3 & wait) &&
	reads=0 && for f in o1.json o2.json o3.json; do set -- $(usage $f); echo "$f: $*"; test "$3" -gt 2000 && reads=$((reads + 1)); done;
	test "$reads" = 2
'
test_expect_success 'without the wait (cache_warm_s 0) siblings sent at once all write' '
	cd p && model anthropic claude-haiku-4-5 "m[\"cache_warm_s\"] = 0" && (qs h1.json 1 & qs h2.json 2 & wait) &&
	for f in h1.json h2.json; do set -- $(usage $f); echo "$f: $*"; test "$3" = 0 || exit 1; done
'
test_expect_success 'round 2 reads the task prefix of round 1 and marks its own end for round 3' '
	cd p && model anthropic claude-sonnet-5-5 && mkdir -p r1dir && cp r1.json r1dir/response.json &&
	printf "{\"status\": \"compile_error\", \"diagnostics\": \"cand.cu(3): error: expected a semicolon\"}\n" >r1dir/compile.json &&
	"$RETORT_BIN/query-llm" -o r2.json --model-config m.json --prompts tasks/prompts --cache-dir "$T/cache" \
		--sample 0 --round 2 "$TASK" r1dir/response.json r1dir/compile.json &&
	test "$(last "r[\"body\"][\"messages\"][-1][\"content\"][-1][\"cache_control\"][\"type\"]")" = ephemeral &&
	test "$(last "[\"cache_control\" in b for m in r[\"body\"][\"messages\"][1:-1] for b in m[\"content\"]]")" = "[False, False]" &&
	set -- $(usage r2.json) && echo "$*" && test "$1" = 0 && test "$3" -ge "$(field r1.json "d[\"usage\"][\"cache_write_tokens\"]")"
'
test_expect_success 'openai-compatible: the same long prefix is read by automatic caching' '
	cd p && model openai served-model && (qs a1.json 1 && qs a2.json 2) && set -- $(usage a2.json) && echo "$*" &&
	test "$3" -ge 2048 && test "$1" -lt 1000
'
test_done
