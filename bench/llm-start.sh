#!/bin/sh
# bench/llm-start.sh - the CPU of one query-llm process, by request
# kind: --help (its start alone), a cache hit with its output already
# there, and a miss (a fresh cache) answered at once by the mock teacher
# (tests/lib/mock_fast.py, no latency). Each kind R times, interleaved (and
# the binaries with each other, when given several: a build before and
# after a change, under the same load), the CPU of each run (user and
# system, from wait4) in ms; prints the median and the least of each and
# the load average before. What bench/llm.sh's "cmds ms" is made of,
# less the shell. Not a timed test: run it by hand after `ninja`.
#
# usage: bench/llm-start.sh [R [QUERY_LLM...]] (default 40, out/bin's)
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-40}
test $# -gt 1 && shift || set -- "$root/out/bin/query-llm"
RETORT_ROOT=$root
. "$root/tests/lib/lib.sh" # scratch_project, start_mock_of, and $T removed at exit
set -e
here=$(pwd)
start_mock_of "$root/tests/lib/mock_fast.py" --latency 0
scratch_project "$T/p"
cd "$T/p"
cat > tasks/bench.yaml <<EOS
id: bench
description: Add one to every element.
entry: add
args:
  - {name: x, kind: in, dtype: f32, shape: [n]}
  - {name: y, kind: out, dtype: f32, shape: [n]}
  - {name: n, kind: size}
sizes:
  verify: [{n: 1000}]
  bench: [{n: 1048576}]
EOS
./configure --with-tools="$root/out/bin" --all --provider=anthropic --model=claude-sonnet-5-5 \
	--rounds=1 --cache-dir="$T/cache" >/dev/null
sed -i 's/^  limits: {rpm: 50, tpm: 400000}/  limits: {rpm: 0, tpm: 0}/' models.yaml
ninja variants out/model.json >/dev/null
out=out/v/bench/s0/r1/response.json
# the edge's own command line, its arguments
args=$(ninja -t commands "$out" | tail -n 1 | sed 's|^\(exec \)\{0,1\}[^ ]*/query-llm ||')
echo "retort query-llm start benchmark: $runs runs of each, load $(cut -d' ' -f1 /proc/loadavg)"
python3 - "$runs" "$T/cache" "$out" "$args" "$here" "$@" <<'EOF'
import os, shlex, shutil, statistics, subprocess, sys
runs, cache, out, args = int(sys.argv[1]), sys.argv[2], sys.argv[3], shlex.split(sys.argv[4])
bins = [os.path.join(sys.argv[5], b) for b in sys.argv[6:]]  # as named where the script was started

def cpu(argv):
    """ms of CPU of argv run to its end, its output to /dev/null"""
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: %s" % " ".join(argv))
    return 1000 * (ru.ru_utime + ru.ru_stime)

kinds = ("--help", "hit", "miss")
ms = {(b, k): [] for b in bins for k in kinds}
for _ in range(runs):
    for b in bins:
        ms[b, "--help"].append(cpu([b, "--help"]))
        shutil.rmtree(cache, ignore_errors=True)
        if os.path.exists(out):
            os.unlink(out)
        ms[b, "miss"].append(cpu([b] + args))
        ms[b, "hit"].append(cpu([b] + args))
print("%-7s %9s %9s  %s" % ("kind", "median ms", "least ms", "query-llm"))
for b in bins:
    for k in kinds:
        print("%-7s %9.2f %9.2f  %s" % (k, statistics.median(ms[b, k]), min(ms[b, k]), b))
EOF
