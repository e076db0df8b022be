#!/bin/sh
# bench/gpu-throughput.sh - candidates evaluated per minute on this
# host's GPUs, with N GPU jobs against one. The GPU suite's honest kernels
# and the demo's answers (tests/gpu/run --only honest demo), each run
# COPIES times, go through verify and bench with --gpu-jobs N (every
# verify and bench leasing one of N GPUs, the harness seeing that one
# alone), then again with one; each variant's oracle check and baseline
# timing run before the clock starts (once per variant in a real build).
# Prints both rates, the rate per GPU and the scaling. On a host with one
# GPU it runs the one-GPU figure and says the multi-GPU one was not
# measured.
#
# usage: bench/gpu-throughput.sh [N [COPIES]]
#        (N: the GPUs nvidia-smi lists; COPIES: 3)
# Needs what tests/gpu/run needs (out/bin, nvcc, a GPU); writes
# out/throughput-<jobs>/ (the suite's work folders and logs).
cd "$(dirname "$0")/.." || exit 1
n=${1:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
copies=${2:-3}
test "$n" -ge 1 2>/dev/null || { echo "gpu-throughput: no GPU here (nvidia-smi lists none)" >&2; exit 2; }
rate() { sed -n 's/^GPU phase: \([0-9]*\) .* in \([0-9.]*\) s with .*: \([0-9.]*\) per minute, \([0-9.]*\) per GPU.*/\1 \2 \3 \4/p' "$1"; }
for j in $n 1; do
	test "$j" = "$n" || test "$n" != 1 || continue # one GPU: one run
	rm -rf "out/throughput-$j"
	mkdir -p "out/throughput-$j"
	echo "# $j GPU job(s), each candidate $copies times"
	tests/gpu/run "out/throughput-$j" --gpu-jobs "$j" --repeat "$copies" --only honest demo >"out/throughput-$j/log" 2>&1
	echo "# exit $?; $(grep -c ' ok ' "out/throughput-$j/log") ok, $(grep -c ' FAIL ' "out/throughput-$j/log") failed (out/throughput-$j/log)"
	set -- $(rate "out/throughput-$j/log")
	test $# = 4 || { echo "gpu-throughput: no figure in out/throughput-$j/log" >&2; exit 1; }
	echo "$j GPU job(s): $1 candidates in $2 s: $3 per minute ($4 per GPU)"
	eval "r$j=$3"
done
gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | tr '\n' ',' | sed 's/,$//')
if test "$n" = 1; then
	echo "GPUs: $gpus; multi-GPU: not measured (one GPU here)"
else
	eval "rn=\$r$n"
	echo "GPUs: $gpus; $n GPUs against one: $(awk -v a="$rn" -v b="$r1" -v n="$n" 'BEGIN { printf "%.2fx (%.0f%% of %dx)", a / b, 100 * a / b / n, n }')"
fi
