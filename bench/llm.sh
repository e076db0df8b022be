#!/bin/sh
# bench/llm.sh - request throughput through ninja: a mock teacher with
# a fixed latency L answers N requests (N variants x 1 sample x 1 round)
# with the llm pool at depth C, R times over (a fresh cache and fresh
# outputs each time). Prints each run and the medians: achieved throughput
# / (C / L), the goal being >= 95%, and the CPU time per request of ninja
# itself and of its commands (the shells and query-llm), the goal for the
# two together being <= 5 ms. Not a timed test: run it by hand after
# `ninja`.
#
# The mock is tests/lib/mock_fast.py (mock_llm.py's answers at little CPU),
# on the last core of its own when there are two or more (ninja and its
# commands on the others); its CPU is counted apart. BENCH_SHARE=1 lets
# ninja and its commands use every core, the mock's too (as a host without
# the mock would). BENCH_MOCK=mock_llm.py runs the suite's mock instead,
# unpinned, as the figures before mock_fast.py were taken. "edge ms" is the median request edge's wall
# time (out/.ninja_log) less L: what a request costs beyond the model's
# latency, the start and end of its process and the mock's own answer
# included.
#
# usage: bench/llm.sh [N [C [L [R]]]]
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000} c=${2:-32} l=${3:-0.2} runs=${4:-3}
RETORT_ROOT=$root
. "$root/tests/lib/lib.sh" # scratch_project, start_mock_of, and $T removed at exit
set -e
mockpy=${BENCH_MOCK:-mock_fast.py}
pin=none
if test "$mockpy" = mock_fast.py && test "$(nproc)" -ge 2 && command -v taskset >/dev/null; then
	pin=$(($(nproc) - 1))
	MOCK_PIN="taskset -c $pin"
	test "${BENCH_SHARE:-0}" = 1 || NINJA_PIN="taskset -c 0-$((pin - 1))"
fi
start_mock_of "$root/tests/$mockpy" --latency "$l"
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
"$root/out/bin/gen" --list --all | sed 's|.*|out/v/&/s0/r1/response.json|' > targets

# ticks PID FIELD: a process's CPU in clock ticks, its own (field 14, 15)
# or its reaped children's (16, 17), from /proc/PID/stat
ticks() { awk -v f="$2" '{ print $f + $(f + 1) }' "/proc/$1/stat"; }
# timed COMMAND...: runs it, its output to /dev/null; prints its wall
# seconds, its own ticks and its children's (read while it is a zombie)
timed() {
	python3 -c 'import os, subprocess, sys, time
t0 = time.time()
pid = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL).pid
os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
t1 = time.time()
f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
_, status = os.waitpid(pid, 0)
print("%.3f %d %d" % (t1 - t0, int(f[11]) + int(f[12]), int(f[13]) + int(f[14])))
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

echo "retort llm benchmark: N=$n requests, pool depth C=$c, mock latency L=${l}s, $(nproc) cores," \
	"mock $mockpy on core $pin, ninja on $(test -n "${NINJA_PIN:-}" && echo the others || echo every core)"
printf '%-4s %6s %8s %8s %9s %10s %10s %9s %8s\n' run load wall req/s "% of C/L" "ninja ms" "cmds ms" "mock ms" \
	"edge ms"
i=0
while test $i -lt "$runs"; do
	i=$((i + 1))
	# the last run's cache and answers moved aside, not deleted (the scratch
	# folder goes at exit): on ext4 without a journal, files made seconds
	# after thousands were deleted cost more (its inode allocator reads
	# past every recently deleted inode), and each run came out slower
	# than the one before it
	test ! -d "$T/cache" || python3 -c 'import glob, os, sys
for d in [sys.argv[1]] + glob.glob("out/v/*/s0"):
    os.renames(d, os.path.join(sys.argv[2], d.lstrip("/")))' "$T/cache" "$T/old/$i"
	rm -f out/llm.log
	load=$(cut -d' ' -f1 /proc/loadavg)
	m0=$(ticks "$mock" 14)
	read -r wall self kids <<EOT
$(timed ${NINJA_PIN:-} ninja -j $((c + 4)) $(cat targets))
EOT
	m1=$(ticks "$mock" 14)
	got=$(ls out/v/*/s0/r1/response.json | wc -l)
	test "$got" = "$n" || { echo "run $i: $got responses of $n" >&2; exit 1; }
	# this run's request edges' wall times (ms) from ninja's log: start,
	# end, 4 more fields; the log keeps the runs before, and an output's
	# last line is this run's
	edge=$(awk -F'\t' '$4 ~ /response\.json$/ { t[$4] = $2 - $1 } END { for (o in t) print t[o] }' out/.ninja_log |
		sort -n |
		awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	awk -v i=$i -v ld="$load" -v w="$wall" -v n="$n" -v c="$c" -v l="$l" -v e="$edge" \
	    -v hz="$(getconf CLK_TCK)" -v s="$self" -v k="$kids" -v m="$((m1 - m0))" 'BEGIN {
		printf "%-4s %6s %8.2f %8.1f %9.1f %10.2f %10.2f %9.2f %8.1f\n", i, ld, w, n / w,
		       100 * n / w / (c / l), 1000 * s / hz / n, 1000 * k / hz / n, 1000 * m / hz / n, e - 1000 * l
	}'
done | tee runs
awk -v r="$runs" '
	{ for (f = 2; f <= 9; f++) v[f, NR] = $f }
	END {
		for (f = 2; f <= 9; f++) {
			for (a = 1; a <= r; a++) x[a] = v[f, a]
			for (a = 1; a <= r; a++) for (b = a + 1; b <= r; b++) if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
			med[f] = r % 2 ? x[(r + 1) / 2] : (x[r / 2] + x[r / 2 + 1]) / 2
		}
		printf "%-4s %6s %8.2f %8.1f %9.1f %10.2f %10.2f %9.2f %8.1f\n", "med", med[2], med[3], med[4], med[5], med[6], med[7], med[8], med[9]
	}' runs
echo "ninja: its own CPU; cmds: its commands' (sh, query-llm); mock: the mock's; all per request;"
echo "load: the 1-minute load average before the run; most requests in flight at the mock:" \
	"$(python3 "$root/tests/lib/mock_llm.py" --ctl "$T/port" inflight)"
