#!/bin/sh
# bench/prep.sh - a variant's CPU preparation, cold and from the build
# cache: for the first N variants of tasks/ (default 20), prepare's
# harness, reference and baseline and verify --expected, each timed,
# first into one out folder with an empty cache dir, then into a second
# out folder with the same cache dir (what an edit of the specs' prompts
# or a second project costs). Prints the median and most per step, and
# per variant (the four steps together). Not a timed test: run it by hand
# after ninja (a CUDA toolkit is needed, no GPU).
#
# usage: bench/prep.sh [N [ARCH]]   (default 20, sm_90a)
#   env PYENV=DIR: the Python references' environment (default out/refenv;
#   without one, variants with a Python reference are left out)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
arch=${2:-sm_90a}
bin=$root/out/bin
pyenv=${PYENV:-$root/out/refenv}
test -x "$pyenv/bin/python" || pyenv=
T=$(mktemp -d "${TMPDIR:-/tmp}/retort-prep.XXXXXX")
trap 'rm -rf "$T"' EXIT
chmod 755 "$T" # the jailed compilers enter it
cd "$T" || exit 1
# timed RUN STEP VARIANT COMMAND...: a line "RUN STEP VARIANT WALL" in $T/times
timed() {
	run=$1 step=$2 v=$3
	shift 3
	/usr/bin/time -f "%e" -o "$T/t" "$@" >/dev/null 2>"$T/err" || { cat "$T/err" >&2; exit 1; }
	echo "$run $step $v $(cat "$T/t")" >> "$T/times"
}
for spec in "$root"/tasks/*.yaml; do
	"$bin/gen" --split "$spec" --all --out "$T/split" --tasks-dir "$root/tasks" >/dev/null 2>&1 || continue
done
vs=$(cd "$T/split/v" && for v in *; do
	grep -q '"reference_language": "python"' "$v/task.json" && test -z "$pyenv" && continue
	echo "$v"
done | head -n "$n")
"$bin/prepare" --runtime --arch "$arch" --src "$root/src" -o rt/harness.o >/dev/null 2>&1 || exit 1
"$bin/prepare" --refrunner --src "$root/src" -o rt/refrun.o >/dev/null 2>&1 || exit 1
for run in cold cached; do
	for v in $vs; do
		d=$run/v/$v
		mkdir -p "$d" && cp "$T/split/v/$v/task.json" "$d/"
		timed $run harness "$v" "$bin/prepare" --harness --object rt/harness.o --cache-dir cache -o "$d/harness" \
			"$d/task.json"
		timed $run reference "$v" "$bin/prepare" --reference --runner rt/refrun.o --src "$root/src" \
			--cache-dir cache -o "$d/reference" "$d/task.json"
		timed $run expected "$v" "$bin/verify" --expected --cache-dir cache ${pyenv:+--python-env "$pyenv"} \
			-o "$d/expected.json" "$d/task.json" "$d/reference"
		if grep -q '"baseline"' "$d/task.json"; then
			timed $run baseline "$v" "$bin/prepare" --baseline --arch "$arch" --cache-dir cache \
				-o "$d/baseline.so" "$d/task.json"
		fi
	done
done
echo "a variant's CPU preparation: $(echo "$vs" | wc -l) variants of tasks/, $(nproc) cores, $arch, one at a time"
python3 - "$T/times" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(list)
per = collections.defaultdict(float)
for line in open(sys.argv[1]):
    run, step, v, wall = line.split()
    t[run, step].append(float(wall))
    per[run, v] += float(wall)
print("%-10s %-8s %9s %9s %4s" % ("step", "", "median", "most", "n"))
for step in ("harness", "reference", "expected", "baseline", "variant"):
    for run in ("cold", "cached"):
        w = t[run, step] if step != "variant" else [s for (r, _), s in per.items() if r == run]
        if w:
            print("%-10s %-8s %8.2fs %8.2fs %4d" % (step, run, statistics.median(w), max(w), len(w)))
PY
