#!/bin/sh
# tests/bench/compile.sh - compile wall time per candidate over the honest
# kernels (tests/kernels/honest: realistic 50-150 line kernels), through
# retort's compile (extraction, screen, nvcc, no build cache), and nvcc
# alone with other flag choices on the same sources; then the demo's
# hand-written answers in tasks/replay that build. Prints the median and
# range per configuration. Not a timed test: run it by hand after ninja.
#
# usage: tests/bench/compile.sh [ARCH]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
arch=${1:-sm_90}
bin=$root/out/bin
T=$(mktemp -d "${TMPDIR:-/tmp}/retort-compile.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0
# the honest kernels, then the demo's replay answers (those that build)
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
	rm -rf "$T/c"
	"$bin/compile" --arch "$arch" --cache-dir "$T/c" -o "$T/cj/compile.json" "$T/out/v/$v/task.json" "$T/r.json" \
		>/dev/null 2>&1 && grep -q '"status": "ok"' "$T/cj/compile.json" || continue
	for cudart in shared static; do
		rm -rf "$T/c"
		/usr/bin/time -f %e -o "$T/t" "$bin/compile" --arch "$arch" --cudart $cudart --cache-dir "$T/c" \
			-o "$T/cj/compile.json" "$T/out/v/$v/task.json" "$T/r.json" >/dev/null 2>&1
		st=$(python3 -c "import json; print(json.load(open('$T/cj/compile.json'))['status'])" 2>/dev/null)
		echo "retort-compile-$cudart $(cat "$T/t") $st" >> "$T/times"
	done
	cu=$(ls "$T"/c/build/*/*/cand.cu | head -n 1)
	for flags in "-O3 -lineinfo -cudart shared" "-O3 -cudart shared" "-O2 -cudart shared" "-O3 -lineinfo -cudart shared -Xptxas -O2"; do
		/usr/bin/time -f %e -o "$T/t" nvcc -arch="$arch" -std=c++17 -shared -Xcompiler -fPIC $flags -o "$T/x.so" "$cu" >/dev/null 2>&1
		echo "nvcc[$flags] $(cat "$T/t") ok" | tr ' ' '_' | sed 's/_\([0-9.]*\)_ok$/ \1 ok/' >> "$T/times"
	done
	n=$((n + 1))
done
echo "compile wall time per candidate: $n kernels, $(nproc) cores, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), -arch=$arch"
python3 - "$T/times" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
bad = collections.Counter()
for line in open(sys.argv[1]):
    name, secs, st = line.split()
    t[name].append(float(secs))
    if st != "ok":
        bad[name] += 1
print("%-52s %8s %8s %8s %s" % ("configuration", "median", "min", "max", "not ok"))
for name, v in t.items():
    print("%-52s %7.2fs %7.2fs %7.2fs %d" % (name.replace("_", " "), statistics.median(v), min(v), max(v), bad[name]))
PY
