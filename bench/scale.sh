#!/bin/sh
# bench/scale.sh - how the graph scales: 10,000 task variants
# (5 specs x 2,000 matrix variants), 1 sample, 3 rounds.
#
# Prints gen time, the size of build.ninja, ninja -n time, a full build and
# a no-op build (with every stage command swapped for `touch $out`, as this
# measures Ninja and the graph, not the tools), and peak RSS of each.
# Not a timed test: run it by hand, after `ninja` has built out/bin.
#
# usage: bench/scale.sh [VARIANTS_PER_SPEC]
root=$(cd "$(dirname "$0")/.." && pwd)
per=${1:-2000}
RETORT_ROOT=$root
. "$root/tests/lib/lib.sh" # scratch_project, and $T removed at exit
set -e
scratch_project "$T/p"
cd "$T/p"
# measure the graph, not the tools: every stage command becomes `touch $out`
# (a replaced command's continuation lines, ending in '$', go with it; the
# implicit outputs, cand.so, expected.bin and the runtime's, are touched too)
awk -v touch='for o in $out; do touch $$o && case $$o in */compile.json) touch $${o%/*}/cand.so ;; */expected.json) touch $${o%/*}/expected.bin ;; */runtime/harness.o) mkdir -p $${o%/*}/py && touch $$o.list $${o%/*}/py/harness.so $${o%/*}/py/harness.py ;; esac; done' 'skip { skip = / \$$/; next }
     /^rule / { r = $2 }
     /^  command = / && r != "regen" && r != "split" { print "  command = " touch; skip = / \$$/; next }
     { print }' \
	"$root/rules/stages.ninja" > rules/stages.ninja

values=$(awk -v n="$per" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? ", " : "", 64 + i; }')
for s in 1 2 3 4 5; do
	cat > tasks/s$s.yaml <<EOS
id: s$s
description: Scale a vector (spec $s, n = {n}).
tags: [bench]
entry: s${s}_scale
args:
  - {name: x, kind: in, dtype: f32, shape: [n]}
  - {name: y, kind: out, dtype: f32, shape: [n]}
  - {name: n, kind: size}
sizes:
  verify: [{n: 1}, {n: "{n}"}]
  bench: [{n: "{n} * 1024"}]
reference: |
  void reference(const float *x, float *y, int n)
  { for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }
cost: {flops: n}
matrix:
  n: [$values]
EOS
done

measure() { # LABEL CMD...: wall seconds and peak RSS (MB) of CMD
	label=$1; shift
	/usr/bin/time -f "%e %M" -o "$T/time" "$@" >"$T/cmd.log" 2>&1 || { cat "$T/cmd.log"; exit 1; }
	read -r secs kb < "$T/time"
	printf '%-34s %8.2f s %8.1f MB\n' "$label" "$secs" "$(echo "$kb / 1024" | bc -l)"
}

./configure --with-tools="$root/out/bin" --all --samples=1 --rounds=3 --cache-dir="$T/cache" >/dev/null
variants=$("$root/out/bin/gen" --list --all | wc -l)
edges=$(ninja -t commands all 2>/dev/null | wc -l)
echo "retort scale benchmark: $variants variants, $edges commands, $(nproc) cores"
measure "gen --ninja (validate + graph)" "$root/out/bin/gen" --ninja "$T/graph.ninja" --all --samples 1 --rounds 3 \
	--models models.yaml --provider replay --model demo
printf '%-34s %8.1f MB\n' "build.ninja size" "$(echo "$(wc -c < build.ninja) / 1048576" | bc -l)"
measure "ninja -n (from scratch)" ninja -n
measure "ninja (full build, touch stages)" ninja
measure "ninja (no-op)" ninja
measure "ninja -n (no-op)" ninja -n
grep -q "no work to do" "$T/cmd.log" || { echo "the no-op build did work:"; head -n 20 "$T/cmd.log"; exit 1; }
