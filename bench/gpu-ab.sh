#!/bin/sh
# bench/gpu-ab.sh - two builds of the tools against each other on a GPU
# host: the GPU suite (tests/gpu/run) over the same answers with each
# build's tree, alternated A, B, B, A (or A, B with --pairs 1), each run
# printing its per-candidate phases and issue 42's cost table; each run
# gets an even share of the time left. A build is
# a tree (git archive of a commit, its short hash in COMMIT) with its
# tools built in out/bin, carried to the host. A run is not
# started once SECONDS (default 500) have passed since the first. Full
# outputs go to $OUT (or out/ab); each run's variants and cache in its
# work folder (their expected outputs, tens of GB) are removed once its
# summary is printed, unless --keep. Not a timed test.
#
# usage: bench/gpu-ab.sh [--pairs 1|2] [--seconds N] [--keep] TREE_A TREE_B SUITE_ARG...
#   e.g. bench/gpu-ab.sh out/gpuold out/gpunew --only gpuscale relu
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out/ab}
pairs=2 budget=500 keep=0
while :; do
	case ${1:-} in
	--pairs) pairs=$2; shift 2 ;;
	--seconds) budget=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	*) break ;;
	esac
done
test $# -ge 2 || { echo "usage: bench/gpu-ab.sh [--pairs 1|2] [--seconds N] [--keep] TREE_A TREE_B SUITE_ARG..." >&2; exit 2; }
a=$(cd "$1" && pwd) || exit 2
b=$(cd "$2" && pwd) || exit 2
shift 2
mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1 # the runs are made from each tree's root
order="$a $b"
test "$pairs" = 2 && order="$a $b $b $a"
start=$(date +%s) i=0 rc=0
for tree in $order; do
	i=$((i + 1))
	name=$(basename "$tree").$i
	left=$((budget - ($(date +%s) - start)))
	test $left -gt 30 || { echo "== $name: not run (time is up)"; continue; }
	runs=$(($(echo $order | wc -w) - i + 1))
	(cd "$tree" && RETORT_BIN=out/bin RETORT_GPU_SUITE_SECONDS=$((left / runs)) tests/gpu/run "$out/$name" "$@") \
		>"$out/$name.txt" 2>&1 || rc=1
	echo "== $name ($(cat "$tree/COMMIT" 2>/dev/null || echo "$tree")), $(($(date +%s) - start)) s"
	sed -n '/^where the GPU time went/,/^GPU held per candidate/p' "$out/$name.txt" | cut -c1-160
	sed -n '/^| measure/,/^| candidates/p' "$out/$name.txt"
	grep -E "FAIL|ERROR|cheats rejected" "$out/$name.txt" | head -8
	test $keep = 1 || rm -rf "${out:?}/$name/out" "${out:?}/$name/cache"
done
exit $rc
