#!/bin/sh
# tests/consumers/real-server-hf.sh - an evaluation against a real
# OpenAI-compatible server, not the mock: Hugging Face `transformers serve`
# (FastAPI and uvicorn, from PyPI; CPU) serving a tiny random-weights
# Llama that tests/consumers/tiny_hf.py writes. Run by hand: it needs a
# venv with torch and transformers[serving], all wheels, no compiling
# (about a minute to install, given a torch; the run takes 40-80 s
# on 2 cores, most of it the prefill of ~16k-token prompts):
#
#   python3 -m venv out/hfenv && out/hfenv/bin/pip install torch 'transformers[serving]'
#   (or, to reuse a torch: a .pth file in the venv's site-packages naming
#   an environment's site-packages that has it, then pip install 'transformers[serving]')
#   RETORT_ROOT=$PWD prove -v tests/consumers/real-server-hf.sh      (HF_ENV=DIR for another venv)
#
# It runs configure --eval with the server as the student over one small
# spec, two samples, two rounds, max_tokens 256 (a models.yaml entry in
# the scratch copy), and checks what the wire gave: streamed answers (SSE:
# no [DONE], usage in the finish_reason chunk) that query-llm took as
# truncated (finish_reason length) or answered (stop), usage equal to the
# server's counts, the server's x-request-id kept, the repair round asked
# after a round without code, responses cached (a second ninja asks
# nothing), the metrics written; and that the server's FastAPI error body
# ({"detail": ...}, a 400 for a model it does not serve) fails the request
# at once with the server's message. Random weights answer noise: no code,
# so nothing compiles, and the metrics say so. It prints each request's
# latency and tokens.
#
# What this server does that the mock does not (transformers 5.24): no
# [DONE] after the last chunk, and usage always in the finish_reason
# chunk (stream_options or not); a streamed answer holds back bytes that
# are not yet UTF-8 and never sends them (256 random byte tokens stream as
# 5 characters; the same answer unstreamed is 256 U+FFFD), so a long
# answer can send nothing for long (16000 tokens: silent past a
# low_speed_s of 10, retried); errors as FastAPI's {"detail": ...} (400
# for a model it does not serve, 422 for a field it does not know), a
# plain-text 500 (messages not a list), and, by its code, an error in a
# stream as data: {"error": "..."} (a string); temperature samples only
# if the model's generation_config has do_sample (tiny_hf.py's does not:
# the samples are the same greedy answer).
. "$(dirname "$0")/../lib/lib.sh"

ENV=${HF_ENV:-$RETORT_ROOT/out/hfenv}
if ! "$ENV/bin/python" -c "import torch, transformers, fastapi, uvicorn" 2>/dev/null; then
	echo "1..0 # SKIP no Python environment $ENV with torch and transformers[serving] (see the header)"
	exit 0
fi
# serve NAME [--think]: a tiny model $T/NAME served on 127.0.0.1:$PORT
# (log $T/NAME.log, pid $SERVER), up when this returns
serve() {
	"$ENV/bin/python" "$RETORT_ROOT/tests/consumers/tiny_hf.py" "$T/$1" ${2:-} >"$T/$1.log" 2>&1 ||
		{ cat "$T/$1.log"; exit 1; }
	PORT=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
	HF_HUB_OFFLINE=1 "$ENV/bin/transformers" serve "$T/$1" --host 127.0.0.1 --port "$PORT" --device cpu \
		--log-level info >"$T/$1.log" 2>&1 &
	SERVER=$!
	i=0
	until curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; do
		i=$((i + 1)); test $i -lt 240 || { echo "Bail out! the server did not start"; cat "$T/$1.log"; exit 1; }
		sleep 0.5
	done
	export OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 OPENAI_API_KEY=sk-local-none TINY=$T/$1
}
trap 'kill $SERVER 2>/dev/null; rm -rf "$T"' EXIT
serve tiny

# the student: the served folder under the name tiny, 256 tokens an answer
student() {
	python3 - "$TINY" <<-\PY
	import sys
	s = open("models.yaml").read()
	entry = ("  tiny:\n    provider: openai\n    api_model: %s\n    max_tokens: 256\n"
	         "    temperature: 0.6\n    limits: {rpm: 0, tpm: 0}\n" % sys.argv[1])
	open("models.yaml", "w").write(s.replace("\nmodels:\n", "\nmodels:\n" + entry, 1))
	PY
}

test_expect_success 'configure --eval against the real server: every edge ran, the metrics written' '
	scratch_project p && cd p && spec a alpha && student &&
	rconfigure --eval=real --provider=openai --model=tiny --tasks=test --samples=2 --rounds=2 >conf.log &&
	ninja >ninja.log 2>&1 && test -s out/eval/real/metrics.json
'

test_expect_success 'what the wire gave: answers, usage and request ids from the server, a repair round' '
	cd p && python3 - >"$T/figures" <<-\PY
	import json, re
	for s in (0, 1):
	    for r in (1, 2):
	        d = json.load(open("out/eval/real/v/alpha/s%d/r%d/response.json" % (s, r)))
	        a, u = d["answer"], d["usage"]
	        print("s%d r%d" % (s, r), d["status"], "stop:", a["stop_reason"], "latency: %.1f s" % d["latency_s"],
	              "in:", u["input_tokens"], "out:", u["output_tokens"], "text:", len(a["text"]),
	              "reasoning:", len(a["reasoning"]))
	        want = {"length": "truncated", "stop": "answered"}[a["stop_reason"]]
	        assert d["status"] == want, (d["status"], a["stop_reason"])
	        assert u["input_tokens"] > 1000 and 0 < u["output_tokens"] <= 256, u
	        assert a["reasoning"] == "" and u["reasoning_tokens"] == 0, (a["reasoning"], u)
	        assert re.fullmatch("[0-9a-f-]{36}", d["request_id"]), d["request_id"]
	        if r == 2:
	            assert [m["role"] for m in d["messages"]] == ["user", "assistant", "user", "assistant"], d["messages"]
	            assert d["messages"][1]["content"] == first, d["messages"]
	            assert u["input_tokens"] > first_in, (u, first_in)
	        first, first_in = a["text"], u["input_tokens"]
	m = json.load(open("out/eval/real/metrics.json"))
	print(json.dumps(m["overall"], sort_keys=True))
	assert m["student"] == {"provider": "openai", "model": "tiny"}, m["student"]
	o = m["overall"]
	assert o["samples"] == 2 and o["compile_rate"] == 0 and o["correct_rate"] == 0, o
	PY
'

test_expect_success 'the framing query-llm took: no [DONE], usage in the finish_reason chunk' '
	curl -sSN "$OPENAI_BASE_URL/chat/completions" -H "content-type: application/json" -d "{\"model\": \"$TINY\",
		\"messages\": [{\"role\": \"user\", \"content\": \"hi\"}], \"max_tokens\": 4, \"stream\": true,
		\"stream_options\": {\"include_usage\": true}}" >sse && cat sse && ! grep -q "DONE" sse &&
	tail -n 2 sse | grep "\"finish_reason\":\"length\"" | grep -q "\"usage\":{\"completion_tokens\":4"
'

test_expect_success 'a second ninja asks the server nothing (every answer cached)' '
	cd p && n=$(grep -c "POST /v1/chat/completions" "$T/tiny.log") &&
	ninja -n | grep -q "no work to do" && ninja >/dev/null &&
	test "$(grep -c "POST /v1/chat/completions" "$T/tiny.log")" = "$n"
'

test_expect_success 'the server.s FastAPI error body: a 400 fails at once, with its detail' '
	cd p && sed "s|\"api_model\": *\"[^\"]*\"|\"api_model\": \"not-served\"|" out/model.json >other.json &&
	grep -q not-served other.json &&
	expect_fail 1 "refused the request for .alpha.: HTTP 400: Server is pinned to" "$RETORT_BIN/query-llm" -o bad.json --model-config other.json \
		--prompts tasks/prompts --cache-dir "$T/cache" --sample 0 --round 1 out/v/alpha/task.json &&
	test "$(grep -c "POST /v1/chat/completions.* 400 " "$T/tiny.log")" = 1 && test ! -e bad.json
'
kill $SERVER && wait $SERVER 2>/dev/null
serve think --think

test_expect_success 'a thinking model (Qwen3, "<think>" opened): reasoning_content is the reasoning' '
	cd p && sed "s|\"api_model\": *\"[^\"]*\"|\"api_model\": \"$TINY\"|" out/model.json >think.json &&
	"$RETORT_BIN/query-llm" -o think-r1.json --model-config think.json --prompts tasks/prompts \
		--cache-dir "$T/cache" --sample 0 --round 1 out/v/alpha/task.json &&
	python3 - >>"$T/figures" <<-\PY
	import json
	d = json.load(open("think-r1.json"))
	a, u = d["answer"], d["usage"]
	print("think", d["status"], "stop:", a["stop_reason"], "latency: %.1f s" % d["latency_s"], "in:", u["input_tokens"],
	      "out:", u["output_tokens"], "text:", len(a["text"]), "reasoning:", len(a["reasoning"]))
	assert d["status"] == "truncated" and a["text"] == "" and a["reasoning"].startswith("\n"), a
	assert 0 < u["output_tokens"] <= 256 and u["reasoning_tokens"] == 0, u  # no completion_tokens_details
	PY
'
sed 's/^/# /' "$T/figures" 2>/dev/null
test_done
