#!/bin/sh
# bench/gpu-tree.sh - a tree to carry to a GPU host: COMMIT (default HEAD)
# from git archive into out/hHASH, configured, with the tools the GPU
# suite runs built there (gen, prepare, compile, verify, bench and jail:
# they link only libc and libm, and the host lacks libyaml, libarchive
# and jansson) and the build's objects removed; and
# the suite's KernelBench test problems imported here, into its kbpre
# (the tracing needs only the CPU; the GPU host then skips it:
# bench/gpu-campaign.sh --kernelbench uses it). The import's torch is
# the tests' (tests/lib/pyenv, out/refenv-kernelbench); without it the
# tree has no kbpre and the GPU host imports the problems itself. Prints
# the tree's path, for the device's carry. Not a timed test.
#
# usage: bench/gpu-tree.sh [COMMIT]
# exit: 0 made; 1 a step failed; 2 bad usage
cd "$(dirname "$0")/.." || exit 1
test $# -le 1 || { echo "usage: bench/gpu-tree.sh [COMMIT]" >&2; exit 2; }
hash=$(git rev-parse --short "${1:-HEAD}^{commit}") || exit 2
tree=out/h$hash
rm -rf "$tree" && mkdir -p "$tree" || exit 1
git archive -o "$tree.tar" "$hash" && tar -x -C "$tree" -f "$tree.tar" && rm -f "$tree.tar" || exit 1
echo "$hash" >"$tree/COMMIT"
(cd "$tree" && ./configure >configure.log 2>&1 &&
	ninja out/bin/gen out/bin/prepare out/bin/compile out/bin/verify out/bin/bench out/bin/jail \
		>ninja.log 2>&1 && rm -rf out/obj) ||
	{ echo "bench/gpu-tree.sh: the tools did not build in '$tree' (its configure.log, ninja.log)" >&2; exit 1; }
if py=$(tests/lib/pyenv tests/kernelbench/requirements.txt out/refenv-kernelbench 2>/dev/null); then
	(cd "$tree" && python3 scripts/import-kernelbench --python "$py" --out kbpre \
		tests/kernelbench/level1 tests/kernelbench/level2 >import.log 2>&1) ||
		{ echo "bench/gpu-tree.sh: the KernelBench test problems did not import (its import.log)" >&2; exit 1; }
else
	echo "bench/gpu-tree.sh: no torch here (tests/lib/pyenv): the GPU host imports the KernelBench test problems" >&2
fi
echo "$tree"
