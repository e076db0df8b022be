#!/bin/sh
# tests/consumers/real-server.sh - an evaluation against a real
# OpenAI-compatible server, not the mock: llama-cpp-python's server (PyPI)
# serving a tiny random-weights GGUF that tests/consumers/tiny_gguf.py
# writes with the gguf package. Run by hand (building llama-cpp-python
# takes long on a small machine):
#
#   python3 -m venv out/llamaenv && out/llamaenv/bin/pip install 'llama-cpp-python[server]' gguf
#   RETORT_ROOT=$PWD prove -v tests/consumers/real-server.sh      (LLAMA_ENV=DIR for another venv)
#
# (Never run to the end: building llama-cpp-python from source takes over
# an hour on 2 cores. tests/consumers/real-server-hf.sh does the same
# against transformers serve, from wheels.)
#
# It runs configure --eval with the server as the student over one small
# spec, two samples, two rounds, and checks what the wire gave: streamed
# answers (SSE) that query-llm took as answered or truncated, usage from
# the server's usage, responses cached (a second ninja asks nothing), the
# repair round asked after a round without code, and the metrics written.
# Random weights answer noise: no code, so nothing compiles, and the
# metrics say so (compile_rate 0, correct_rate 0).
. "$(dirname "$0")/../lib/lib.sh"

ENV=${LLAMA_ENV:-$RETORT_ROOT/out/llamaenv}
if ! "$ENV/bin/python" -c "import llama_cpp.server, gguf" 2>/dev/null; then
	echo "1..0 # SKIP no Python environment $ENV with llama-cpp-python[server] and gguf (see the header)"
	exit 0
fi
"$ENV/bin/python" "$RETORT_ROOT/tests/consumers/tiny_gguf.py" "$T/tiny.gguf" --ctx 65536 || exit 1
PORT=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
"$ENV/bin/python" -m llama_cpp.server --model "$T/tiny.gguf" --model_alias tiny --host 127.0.0.1 --port "$PORT" \
	--n_ctx 65536 >"$T/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$T"' EXIT
i=0
until curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; do
	i=$((i + 1)); test $i -lt 120 || { echo "Bail out! the server did not start"; cat "$T/server.log"; exit 1; }
	sleep 0.5
done
export OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1 OPENAI_API_KEY=sk-local-none

test_expect_success 'configure --eval against the real server: every edge ran, the metrics written' '
	scratch_project p && cd p && spec a alpha &&
	rconfigure --eval=real --provider=openai --model=tiny --tasks=test --samples=2 --rounds=2 >conf.log &&
	ninja >ninja.log 2>&1 && test -s out/eval/real/metrics.json
'

test_expect_success 'what the wire gave: answers, usage from the server, a repair round' '
	cd p && python3 - <<-\PY
	import json
	for s in (0, 1):
	    for r in (1, 2):
	        d = json.load(open("out/eval/real/v/alpha/s%d/r%d/response.json" % (s, r)))
	        assert d["status"] in ("answered", "truncated"), d["status"]
	        assert d["usage"]["input_tokens"] > 1000 and d["usage"]["output_tokens"] > 0, d["usage"]
	        print("s%d r%d" % (s, r), d["status"], d["usage"], "stop:", d["answer"]["stop_reason"],
	              "reasoning:", len(d["answer"].get("reasoning") or ""), "text:", len(d["answer"]["text"]))
	m = json.load(open("out/eval/real/metrics.json"))
	print(json.dumps(m["overall"], sort_keys=True))
	assert m["student"] == {"provider": "openai", "model": "tiny"}, m["student"]
	assert m["overall"]["samples"] == 2 and m["overall"]["correct_rate"] == 0, m["overall"]
	PY
'

test_expect_success 'a second ninja asks the server nothing (every answer cached)' '
	cd p && ninja -n | grep -q "no work to do"
'
test_done
