#!/bin/sh
# bench/triton-compile.sh - what compile --lang triton costs per
# candidate: the demo's hand-written Triton answers (tasks/replay/*/triton)
# and the Triton screen's honest examples (tests/screen-triton, compiled
# for relu's task: they take relu's arguments), through retort's compile
# (extraction, the screen and the ahead-of-time compile, each in the
# sandbox), REPS times each. Prints per candidate its status, the whole
# compile's median wall time, the screen's alone (the same answer with a
# violation appended, so that compile stops after the screen), and each
# kernel's triton.compile seconds as the record gives them (the first
# run's: Triton's cache lives in the build folder, so every run is
# cold). Not a timed test: run it by hand after ninja, with the Triton
# environment made (./configure --lang=triton --install-deps).
#
# usage: bench/triton-compile.sh [REPS [TRITON_ENV]]
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
reps=${1:-3}
env=${2:-$root/out/tritonenv}
bin=$root/out/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/retort-tcompile.XXXXXX")
trap 'rm -rf "$T"' EXIT
test -x "$env/bin/python" || { echo "no Triton environment in $env" >&2; exit 2; }
"$bin/gen" --split "$root/tasks/relu.yaml" --all --out "$T/out" >/dev/null &&
	"$bin/gen" --split "$root/tasks/row_max.yaml" --all --out "$T/out" >/dev/null || exit 1
# one answer file: its response.json ($2: append a violation), compiled once; prints the wall time
run() {
	python3 -c "
import json, sys
t = open(sys.argv[1]).read()
if sys.argv[1].endswith('.py'):
    t = '\`\`\`python\n' + t.replace('def run(', 'def relu_forward(') + '\`\`\`\n'
if sys.argv[3] == 'screen':
    t = t.replace('\n\`\`\`\n', '\nimport os\n\`\`\`\n')
json.dump({'status': 'answered', 'lang': 'triton', 'answer': {'text': t}}, open(sys.argv[2], 'w'))" "$1" "$T/r.json" "$2"
	t0=$(date +%s.%N)
	"$bin/compile" --lang triton --triton-env "$env" --runtime "$root/src/runtime" -o "$T/c/compile.json" \
		"$T/out/v/$3/task.json" "$T/r.json" >/dev/null 2>&1 || return 1
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-34s %-14s %9s %9s  %s\n' candidate status compile_s screen_s "kernels (triton.compile s, registers)"
for k in "$root"/tasks/replay/*/triton/s*-r*.md "$root"/tests/screen-triton/honest-*.py; do
	case $k in
	*.md) v=$(basename "$(dirname "$(dirname "$k")")") name=$v/$(basename "$k" .md) ;;
	*) v=relu name=screen-triton/$(basename "$k" .py) ;;
	esac
	all= scr=
	i=0
	while test $i -lt "$reps"; do
		all="$all $(run "$k" "" "$v")" || continue 2
		test $i = 0 && cp "$T/c/compile.json" "$T/first.json"
		scr="$scr $(run "$k" screen "$v")" || continue 2
		i=$((i + 1))
	done
	python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ks = ', '.join('%s%s %.2f s %d regs' % (r['kernel'], '' if r['config'] is None else '[%d]' % r['config'], r['seconds'],
               r['registers']) for r in d.get('resources', []))
ks += ''.join('; %s jit: %s' % (j['kernel'], j['reason']) for j in d.get('jit', []))
print('%-34s %-14s %9s %9s  %s' % (sys.argv[2], d['status'], sys.argv[3], sys.argv[4], ks))" "$T/first.json" "$name" \
		"$(printf '%s\n' $all | median)" "$(printf '%s\n' $scr | median)"
done
