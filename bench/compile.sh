#!/bin/sh
# bench/compile.sh - compile's wall and CPU time per candidate over
# the honest kernels (tests/kernels/honest: realistic 50-150 line kernels)
# and the demo's hand-written answers that build (tasks/replay), with no
# build cache: retort's compile (extraction, the screen, nvcc in the
# sandbox, the object check) and nvcc alone with the build's flags on the
# same source. With several compile binaries (a build before and after a
# change) each runs on every kernel in turn, interleaved. Prints the
# median, least and most of each. Not a timed test: run it by hand after
# ninja.
#
# usage: bench/compile.sh [ARCH [COMPILE...]]   (default sm_90a, out/bin/compile)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-sm_90a}
test $# -gt 1 && shift || set -- "$root/out/bin/compile"
bin=$root/out/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/retort-compile.XXXXXX")
trap 'rm -rf "$T"' EXIT
flags="-arch=$arch -O3 -lineinfo -Xptxas -v -std=c++17 -shared -Xcompiler -fPIC -cudart shared --threads 2"
# timed NAME COMMAND...: a line "NAME WALL CPU" in $T/times (its output and
# status left out: the untimed run before it said whether it builds)
timed() {
	name=$1
	shift
	/usr/bin/time -f "%e %U %S" -o "$T/t" "$@" >/dev/null 2>&1
	awk -v n="$name" '{ print n, $1, $2 + $3 }' "$T/t" >> "$T/times"
}
n=0
for k in "$root"/tests/kernels/honest/*.cu "$root"/tasks/replay/*/s*-r*.md; do
	case $k in
	*.md) v=$(basename "$(dirname "$k")") ;;
	*) v=$(head -n 1 "$k" | sed 's|^// *||; s|[: ].*||') ;;
	esac
	base=${v%%.*}
	spec=$root/tasks/$base.yaml
	test -f "$spec" || spec=$root/tests/kernels/tasks/$base.yaml
	test -f "$T/out/v/$v/task.json" ||
		"$bin/gen" --split "$spec" --all --out "$T/out" --tasks-dir "$(dirname "$spec")" 2>/dev/null || continue
	test -f "$T/out/v/$v/task.json" || continue
	python3 -c "
import json, sys
t = open(sys.argv[1]).read()
if sys.argv[1].endswith('.cu'):
    t = '\`\`\`cuda\n' + t + '\n\`\`\`\n'
json.dump({'status': 'answered', 'answer': {'text': t}}, open(sys.argv[2], 'w'))" "$k" "$T/r.json"
	# untimed: answers that do not build are left out, and the files nvcc
	# reads are warm for the timed runs that follow
	"$1" --arch "$arch" -o "$T/cj/compile.json" "$T/out/v/$v/task.json" "$T/r.json" \
		>/dev/null 2>&1 && grep -q '"status": "ok"' "$T/cj/compile.json" || continue
	python3 -c "import json, sys; open(sys.argv[2], 'w').write(json.load(open(sys.argv[1]))['source'])" \
		"$T/cj/compile.json" "$T/cand.cu"
	i=0
	for c in "$@"; do
		i=$((i + 1))
		timed "compile[$i]" "$c" --arch "$arch" -o "$T/cj/compile.json" "$T/out/v/$v/task.json" "$T/r.json"
	done
	# shellcheck disable=SC2086
	(cd "$T" && timed "nvcc-alone" nvcc $flags -o x.so cand.cu)
	n=$((n + 1))
done
echo "compile wall and CPU time per candidate: $n kernels, $(nproc) cores, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), -arch=$arch"
i=0
for c in "$@"; do i=$((i + 1)); echo "compile[$i]: $c"; done
python3 - "$T/times" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(lambda: ([], []))
for line in open(sys.argv[1]):
    name, wall, cpu = line.split()
    t[name][0].append(float(wall))
    t[name][1].append(float(cpu))
print("%-12s %10s %10s %10s %10s" % ("", "wall med", "wall min", "wall max", "CPU med"))
for name, (w, c) in t.items():
    print("%-12s %9.2fs %9.2fs %9.2fs %9.2fs" % (name, statistics.median(w), min(w), max(w), statistics.median(c)))
PY
