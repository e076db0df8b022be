#!/bin/sh
# tests/bench/llm.sh - request throughput through ninja: a mock teacher with
# a fixed latency L answers N requests (N variants x 1 sample x 1 round)
# with the llm pool at depth C. Prints achieved throughput / (C / L), the
# goal being >= 95%, and the CPU time per request of ninja and query-llm
# together (goal <= 10 ms). Not a timed test: run it by hand after `ninja`.
#
# usage: tests/bench/llm.sh [N [C [L]]]
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-1000} c=${2:-32} l=${3:-0.2}
RETORT_ROOT=$root
. "$root/tests/lib.sh" # scratch_project, start_mock, and $T removed at exit
set -e
start_mock --latency "$l"
mock=$MOCK
scratch_project "$T/p"
cd "$T/p"
values=$(awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? ", " : "", i + 1; }')
cat > tasks/bench.yaml <<EOS
id: bench
description: Add {k} to every element.
entry: add
args:
  - {name: x, kind: in, dtype: f32, shape: [n]}
  - {name: y, kind: out, dtype: f32, shape: [n]}
  - {name: n, kind: size}
sizes:
  verify: [{n: 1000}]
  bench: [{n: 1048576}]
matrix:
  k: [$values]
EOS
./configure --with-tools="$root/out/bin" --all --provider=anthropic --model=claude-sonnet-5-5 \
	--llm-jobs="$c" --rounds=1 --cache-dir="$T/cache" >/dev/null
# no limiter: this measures the tools and the pool, not the provider's limits
sed -i 's/^  limits: {rpm: 50, tpm: 400000}/  limits: {rpm: 0, tpm: 0}/' models.yaml
ninja variants out/model.json >/dev/null
# the first round's answers alone: no compile behind them
targets=$("$root/out/bin/gen" --list --all | sed 's|.*|out/v/&/s0/r1/response.json|')
/usr/bin/time -f "%e %U %S" -o time ninja -j $((c + 4)) $targets >/dev/null
read -r wall user sys < time
# the mock shares these cores: say how much CPU it took
mockcpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' /proc/$mock/stat)
got=$(ls out/v/*/s0/r1/response.json | wc -l)
echo "retort llm benchmark: $got requests, pool depth C=$c, mock latency L=${l}s, $(nproc) cores"
awk -v m="$mockcpu" -v n="$got" -v w="$wall" -v u="$user" -v s="$sys" -v c="$c" -v l="$l" 'BEGIN {
	printf "%-40s %8.2f s\n", "wall time", w
	printf "%-40s %8.1f req/s\n", "throughput", n / w
	printf "%-40s %8.1f req/s\n", "ideal C/L", c / l
	printf "%-40s %8.1f %%\n", "throughput / (C/L)", 100 * n / w / (c / l)
	printf "%-40s %8.2f ms\n", "CPU per request (ninja + query-llm)", 1000 * (u + s) / n
	printf "%-40s %8.2f s\n", "CPU of the mock server (same cores)", m
}'
