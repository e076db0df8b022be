#!/bin/sh
# bench/cache.sh - the share of input tokens read from the prompt
# cache on a realistic round-2 request mix: V variants of six corpus specs
# (softmax, layer_norm, row_sum, gemv, transpose2d, conv2d), S samples each,
# asked by query-llm at C at once (the llm pool) against the mock teacher
# accounting cache reads and writes as the providers do (--prompt-cache:
# breakpoints and their 20-block lookback, the minimum cacheable length,
# entries usable once the first answer begins; OpenAI's automatic prefix
# cache), answers of realistic length (--answer-pad), round 2 after round-1
# verdicts of the usual kinds (nvcc errors, the screen, wrong results, slow).
# Prints, per round, input tokens paid in full, written to and read from
# the cache, the share read, and $ at the model's prices.
# Not a timed test: run it by hand after `ninja` (out/bin).
#
# usage: bench/cache.sh [anthropic|openai [VARIANTS_PER_SPEC [SAMPLES [C [MIN_TOKENS]]]]]
root=$(cd "$(dirname "$0")/.." && pwd)
provider=${1:-anthropic} per=${2:-2} samples=${3:-4} c=${4:-8} min=${5:-1024}
RETORT_ROOT=$root
. "$root/tests/lib/lib.sh" # scratch_project, start_mock, and $T removed at exit
set -e
start_mock --latency 1 --prompt-cache "$min" --answer-pad 4000
scratch_project "$T/p"
cd "$T/p"
sel=
for s in softmax layer_norm row_sum gemv transpose2d conv2d; do
	cp "$root/tasks/$s.yaml" tasks/
	sel="$sel,$("$root/out/bin/gen" --list --tasks "$s" | head -n "$per" | paste -sd, -)"
done
sel=${sel#,}
if test "$provider" = anthropic; then m=claude-sonnet-5-5; else m=gpt-bench; fi
cat >> models.yaml <<'EOS'
  gpt-bench:
    provider: openai
    prices: {input: 2, output: 8, cache_write: 0, cache_read: 0.5}
EOS
sed -i 's/^  limits: {rpm: 50, tpm: 400000}/  limits: {rpm: 0, tpm: 0}/' models.yaml
python3 - <<'EOS' # gpt-bench before the "*" entry, which would take it
s = open("models.yaml").read()
i, j = s.index('  "*":'), s.index("  gpt-bench:")
open("models.yaml", "w").write(s[:i] + s[j:] + s[i:j])
EOS
./configure --with-tools="$root/out/bin" --tasks="$sel" --provider="$provider" --model="$m" \
	--samples="$samples" --cache-dir="$T/cache" >/dev/null
ninja variants out/model.json >/dev/null
variants=$("$root/out/bin/gen" --list --tasks "$sel")
ask() { # ROUND: every sample's request of that round, C at once
	for v in $variants; do for s in $(seq 0 $((samples - 1))); do
		d=out/v/$v/s$s
		p=
		test "$1" = 1 || p="$d/r1/response.json $d/r1/compile.json $d/r1/verify.json $d/r1/bench.json"
		mkdir -p "$d/r$1"
		echo "-o $d/r$1/response.json --sample $s --round $1 out/v/$v/task.json${p:+ $p}"
	done; done | xargs -P "$c" -L 1 "$root/out/bin/query-llm" --model-config out/model.json \
		--prompts tasks/prompts --cache-dir "$T/cache" --arch sm_90
}
# round-1 verdicts of the usual kinds, in turn: nvcc errors, the screen, wrong results, slow
verdicts() {
	i=0
	for v in $variants; do for s in $(seq 0 $((samples - 1))); do
		d=out/v/$v/s$s/r1
		case $((i % 4)) in
		0) printf '{"status": "compile_error", "diagnostics": "cand.cu(41): error: identifier \\"blockDimx\\" is undefined\\n    int stride = blockDimx * gridDim.x;\\n                 ^\\ncand.cu(58): error: no instance of overloaded function \\"__shfl_down_sync\\" matches the argument list\\n            argument types are: (unsigned int, __half, int)\\n2 errors detected in the compilation of \\"cand.cu\\"."}\n' >"$d/compile.json"
		   echo '{"verdict": "not_built"}' >"$d/verify.json" ;;
		1) printf '{"status": "screen_failed", "violations": [{"rule": "library", "line": 3, "message": "#include <cub/cub.cuh>: CUB is a library"}, {"rule": "host_compute", "line": 77, "message": "cudaMemcpy from device to host"}]}\n' >"$d/compile.json"
		   echo '{"verdict": "not_built"}' >"$d/verify.json" ;;
		2) echo '{"status": "ok"}' >"$d/compile.json"
		   printf '{"verdict": "wrong", "feedback": "Wrong results at size rows=37, cols=4096 (input distribution normal): 12288 of 151552 elements differ. First mismatches: y[0][4095] = nan (expected 0.000244); y[1][4095] = nan (expected 0.000231); y[2][4095] = nan (expected 0.000240). The last element of each row was never written: the loop bound or the final block is off by one."}\n' >"$d/verify.json" ;;
		3) echo '{"status": "ok"}' >"$d/compile.json"
		   echo '{"verdict": "correct"}' >"$d/verify.json" ;;
		esac
		if test $((i % 4)) = 3; then
			printf '{"status": "measured", "speedup": 0.41, "feedback": "Correct. Median 1.92 ms at rows=16384, cols=4096 (quartiles 1.91-1.94 ms), 0.41x the baseline, 33%% of the memory speed of light.\\n"}\n' >"$d/bench.json"
		else
			echo '{"status": "not_verified"}' >"$d/bench.json"
		fi
		i=$((i + 1))
	done; done
}
ask 1
verdicts
ask 2
python3 - "$provider" $variants <<'EOS'
import glob, json, sys
prices = json.load(open("out/model.json")).get("prices", {})
for r in (1, 2):
    n = fin = cw = cr = usd = 0
    for f in glob.glob("out/v/*/s*/r%d/response.json" % r):
        u = json.load(open(f))["usage"]
        n += 1
        fin += u["input_tokens"]; cw += u["cache_write_tokens"]; cr += u["cache_read_tokens"]
    inp = fin + cw + cr
    usd = (fin * prices.get("input", 0) + cw * prices.get("cache_write", 0) + cr * prices.get("cache_read", 0)) / 1e6
    full = inp * prices.get("input", 0) / 1e6
    print("%s round %d: %d requests, input tokens %d: %d paid in full, %d written, %d read from the cache: "
          "%.1f%% read; input $%.4f (without the cache $%.4f)" % (sys.argv[1], r, n, inp, fin, cw, cr,
          100.0 * cr / inp if inp else 0, usd, full))
EOS
