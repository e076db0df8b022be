#!/bin/sh
# bench/kills.sh - two reliability campaigns on the built tools.
#
# kills: a replayed build of four specs (two rounds; t0710's project) run
# once uninterrupted, then again killed N times while its tools run (in
# turn a crash of the whole build, a Ctrl-C, an OOM kill of one tool:
# tests/lib/killer.py) and resumed after each kill, R times with other
# seeds. Prints per run: kills, tools interrupted mid-run, whether the
# resumed dataset is byte-identical to the uninterrupted one, and the
# leftovers (killed tools' temporaries) found in out/ and the cache.
#
# shapes: tests/t0025-shapes.sh's cases (every tool that reads a file
# another writes, every file type: {}, a required field of the wrong
# type, one missing), all of them (LONG included): cases, and how many
# exited 2 with the field and the file named and nothing written.
#
# Not a timed test: run it by hand after `ninja && ninja test-tools`.
#
# usage: bench/kills.sh [KILLS [RUNS]]   (default 12 kills, 3 runs)
root=$(cd "$(dirname "$0")/.." && pwd)
kills=${1:-12} runs=${2:-3}
RETORT_ROOT=$root RETORT_BIN=$root/out/asan/bin
export RETORT_ROOT RETORT_BIN
. "$root/tests/lib/lib.sh" # scratch_project, spec, rconfigure; $T removed at exit
export SOURCE_DATE_EPOCH=1700000000
K="python3 $root/tests/lib/killer.py"

scratch_project "$T/p"
cd "$T/p" || exit 1
for s in a b c d; do spec $s t$s; done
replay ta tb tc td
echo "No code this time." > tasks/replay/tb/s0-r1.md
sed "s/tc_scale/tb_scale/" tasks/replay/tc/s0-r1.md > tasks/replay/tb/s0-r2.md
cp -R "$T/p" "$T/pristine"
rconfigure --all --rounds=2 --cache-dir="$T/cache-p" >/dev/null && ninja >/dev/null 2>&1 ||
	{ echo "the uninterrupted build failed"; exit 1; }
cd "$T" || exit 1

echo "## Kills during running tools, each resumed"
echo
echo "| run | seed | kills | tools interrupted mid-run | dataset byte-identical | leftovers |"
echo "|---|---|---|---|---|---|"
tk=0 ti=0 same=0 left=0
for r in $(seq 1 "$runs"); do
	seed=$((20261205 + r))
	rm -rf q "$T/cache-q" && cp -R pristine q
	(cd q && rconfigure --all --rounds=2 --cache-dir="$T/cache-q" >/dev/null &&
	 $K $seed "$kills" >k.log; ninja >n.log 2>&1) || { echo "run $r: the resumed build failed"; cat q/n.log; }
	k=$(sed -n 's/^kills: //p' q/k.log) i=$(sed -n 's/^interrupted: //p' q/k.log)
	if cmp -s p/out/dataset/SHA256SUMS q/out/dataset/SHA256SUMS &&
		cmp -s p/out/dataset/retort-dataset-00000.tar.gz q/out/dataset/retort-dataset-00000.tar.gz; then
		s=yes same=$((same + 1))
	else
		s=no
	fi
	l=$(( $($K --leftovers q/out | sed -n 's/^leftovers: //p') + $($K --leftovers "$T/cache-q" | sed -n 's/^leftovers: //p') ))
	echo "| $r | $seed | $k | $i | $s | $l |"
	tk=$((tk + k)) ti=$((ti + i)) left=$((left + l))
done
echo "| all | | $tk | $ti | $same of $runs | $left |"
echo
echo "## Valid JSON of the wrong shape (tests/t0025-shapes.sh, every case)"
echo
log=$T/shapes.log
SHAPES_LOG=$log RETORT_TEST_LONG=1 sh "$root/tests/t0025-shapes.sh" >"$T/t0025.out" 2>&1 || cat "$T/t0025.out"
echo "| tool (mode) | file | cases | exit 2, field and file named |"
echo "|---|---|---|---|"
awk '{ k = $1 " | " $2; n[k]++; if ($4 == 2) ok[k]++ } END { for (k in n) printf "| %s | %d | %d |\n", k, n[k], ok[k] + 0 }' "$log" | sort
awk '{ n++; if ($4 == 2) ok++ } END { printf "| all | | %d | %d |\n", n, ok }' "$log"
