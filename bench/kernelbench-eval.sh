#!/bin/sh
# bench/kernelbench-eval.sh - KernelBench evaluated as its papers do, end
# to end on a GPU host: ./configure --eval --kernelbench over a selection
# of DIR's problems (27 by default, levels 1 to 3), a replayed student
# (tests/eval/kb-answers.py: correct, slow, wrong and broken answers), one
# ninja, and KernelBench's table: fast_0, fast_1 and fast_2 by level,
# against eager PyTorch and torch.compile, for the first sample and best
# of two. The tools come from RETORT_BIN (default out/bin, carried in);
# the host's python3 (torch with CUDA, triton) traces the problems, runs
# the references and times the baselines. Nothing is fetched: DIR may be
# a copy under out/. Logs, metrics.json and the table go to $OUT (or
# out/kb-eval); the work folder is WORK (or out/kb-eval-work). A problem gen
# refuses is dropped and named. ninja stops after LIMIT seconds (default:
# what is left of 510 s since the start) so that the whole run stays
# under 9 minutes; then the table is of the records written, and says
# so. Not a timed test. RESUME=1 goes on in the work folder a run left
# (its problems, configuration and answers kept; ninja does what is
# left), so that a run longer than one call can take two: where the
# checkout is copied anew for each call, WORK must be outside it (a WORK
# that exists and that the script did not make is refused, exit 2). The
# table ends with where ninja's time went, by the kind of edge (the edges
# that finished: ninja logs no other).
#
# usage: bench/kernelbench-eval.sh DIR [PROBLEMS]
#   DIR        a KernelBench checkout, its KernelBench folder, or a copy of
#              its level1, level2, level3 folders
#   PROBLEMS   LEVEL:NUMBER,... (default: level 1's twelve activations,
#              19-22 and 25-32, its matmul 1 and layer norm 40, level 2's
#              problems 1-10, level 3's three MLPs, 1-3)
#   env LIMIT=S (ninja's seconds), RESUME=1, RETORT_BIN=DIR, OUT=DIR, WORK=DIR
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${RETORT_BIN:-$root/out/bin}
case $bin in /*) ;; *) bin=$root/$bin ;; esac
test $# -ge 1 || { echo "usage: bench/kernelbench-eval.sh DIR [LEVEL:NUMBER,...]" >&2; exit 2; }
src=$(cd "$1" && pwd) || exit 2
test -d "$src/KernelBench/level1" && src=$src/KernelBench
pick=${2:-1:19,1:20,1:21,1:22,1:25,1:26,1:27,1:28,1:29,1:30,1:31,1:32,1:1,1:40,2:1,2:2,2:3,2:4,2:5,2:6,2:7,2:8,2:9,2:10,3:1,3:2,3:3}
res=${OUT:-$root/out/kb-eval}
work=${WORK:-$root/out/kb-eval-work}
case $work in /*) ;; *) work=$(pwd)/$work ;; esac
# a WORK of the user's is removed only where this script made it (its mark)
if test -n "${WORK:-}" && test -e "$work" && ! test -e "$work/.kb-eval-work"; then
	echo "kernelbench-eval: WORK '$work' exists and is not a work folder this script made: not used" >&2
	exit 2
fi
t0=$(date +%s)
since() { echo $(($(date +%s) - t0)); }
for t in gen metrics record query-llm compile verify bench jail; do
	test -x "$bin/$t" || { echo "kernelbench-eval: $bin/$t missing: build the tools (ninja) or set RETORT_BIN" >&2; exit 2; }
done
if ! test -e /dev/nvidiactl && ! test -e /dev/nvidia0; then
	echo "kernelbench-eval: no NVIDIA GPU here; skipped (the table needs one: nothing is correct or timed without)"
	exit 0
fi

mkdir -p "$res" || exit 1
if test "${RESUME:-0}" = 1 && test -s "$work/build.ninja" && test -s "$work/answers.txt"; then
	cd "$work" || exit 1
	echo "# resuming in $work: $(wc -l <answers.txt) problems answered"
else
	rm -rf "$work" && mkdir -p "$work/tasks" && : >"$work/.kb-eval-work" || exit 1
	(cd "$root" && tar -cf - configure build.ninja.in models.yaml rules src scripts tasks/prompts) | tar -xf - -C "$work" || exit 1
	printf 'numpy\ntorch\n' >"$work/tasks/requirements.txt"
	cd "$work" || exit 1

	# the problems chosen, copied as DIR/levelN/FILE
	n=0
	for p in $(echo "$pick" | tr , ' '); do
		l=${p%%:*} k=${p#*:}
		f=$(ls "$src/level$l" 2>/dev/null | grep "^${k}_.*\.py$" | head -n 1)
		test -n "$f" || { echo "# no problem $k in $src/level$l"; continue; }
		mkdir -p "kb/level$l" && cp "$src/level$l/$f" "kb/level$l/" && n=$((n + 1))
	done
	echo "# $n problems chosen from $src"

	# the host's Python: its own prefix where it has bin/python, else a venv that sees its packages
	prefix=$(python3 -c 'import sys, torch, triton; print(sys.prefix if torch.cuda.is_available() else "")' 2>/dev/null)
	test -n "$prefix" || { echo "kernelbench-eval: python3 here lacks torch with CUDA, or triton" >&2; exit 2; }
	if test -x "$prefix/bin/python"; then env=$prefix
	else env=$work/out/hostpy && python3 -m venv --without-pip --system-site-packages "$env" || exit 1; fi

	conf() {
		./configure --with-tools="$bin" --cache-dir="$work/cache" --eval=kernelbench --kernelbench=kb \
			--python-env="$env" --gpu-python="$env" --samples=2 --rounds=1 >configure.log 2>&1
	}
	# a spec gen refuses (a bench case too large, ...): dropped with its problem file, named, and configured again
	if ! conf; then
		for y in tasks/kb*.yaml; do
			test -e "$y" || continue # the importer wrote none: its refusals say why
			"$bin/gen" --split "$y" --all --out out/check --tasks-dir tasks >/dev/null 2>gen.err && continue
			f=$(sed -n '1s/^# imported by scripts\/import-kernelbench from \([^:]*\):.*/\1/p' "$y")
			echo "# gen refuses $y (dropped, with its problem $f): $(tail -n 1 gen.err)"
			rm -f "$y" kb/level*/"$f"
		done
		conf || {
			cat configure.log
			grep "^refused" out/kernelbench-import.txt 2>&1 | head -n 30
			echo "kernelbench-eval: configure failed (configure.log)" >&2
			cp configure.log out/kernelbench-import.txt "$res/" 2>&1
			exit 1
		}
	fi
	cat configure.log
	grep "^refused" out/kernelbench-import.txt
	echo "# configured and imported in $(since) s"

	# the student's answers, from each variant's signature
	for y in tasks/kb*.yaml; do "$bin/gen" --split "$y" --all --out out --tasks-dir tasks >/dev/null 2>&1; done
	python3 "$root/tests/eval/kb-answers.py" tasks out/v/kb*/task.json >answers.txt && cat answers.txt
	echo "# $(wc -l <answers.txt) problems answered; ninja starts at $(since) s"
fi

jobs=$(( $(getconf _NPROCESSORS_ONLN) + 8 ))
limit=${LIMIT:-$((510 - $(since)))}
test "$limit" -ge 60 || limit=60
timeout "$limit" ninja -k 0 -j "$jobs" >>ninja.log 2>&1
rc=$?
echo "# ninja exit $rc at $(since) s"
m=out/eval/kernelbench/metrics.json
if test $rc != 0 || ! test -s "$m"; then
	tail -n 30 ninja.log
	find out/eval/kernelbench/v -name record.json | sort >records.txt
	echo "# ninja did not finish: the table of the $(wc -l <records.txt) records written (PARTIAL)"
	flags=$(sed -n "s/^kb_problems='\(.*\)'/\1/p" config.status | sed 's/\([0-9]*=[0-9]*\)/--problems \1/g')
	# shellcheck disable=SC2086
	test -s records.txt && "$bin/metrics" -o partial.json $flags @records.txt >/dev/null && m=partial.json
fi
test -s "$m" && "$bin/metrics" --table "$m" | tee table.txt
python3 - "$m" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
print("\n%-44s %-8s %-8s %9s %9s" % ("problem", "s0", "s1", "x eager", "x comp"))
for name, t in sorted(m["tasks"].items()):
    d = t["samples_detail"]
    f = lambda v: "-" if v is None else "%.2f" % v
    print("%-44s %-8s %-8s %9s %9s" % (name[:44], d[0]["outcome"][:8], d[1]["outcome"][:8] if len(d) > 1 else "",
                                       f(t["speedup_best"]), f(t["speedup_compile_best"])))
PY
# where ninja's time went (this run and those it resumed; builddir is out): the finished edges' seconds by the kind of output
awk -F'\t' 'NR > 1 && !seen[$1 FS $2 FS $5]++ {
	k = $4; sub(/.*\//, "", k); sub(/\.[a-z]+$/, "", k); s[k] += ($2 - $1) / 1000; n[k]++
} END { for (k in s) printf "%-16s %4d edges %8.1f s\n", k, n[k], s[k] }' out/.ninja_log | sort -k4 -rn | head -n 10 | tee edges.txt
cp configure.log ninja.log answers.txt edges.txt out/kernelbench-import.txt "$m" "$res/" 2>/dev/null
test -f table.txt && cp table.txt "$res/"
echo "# done in $(since) s; logs and metrics in $res"
test $rc = 0
