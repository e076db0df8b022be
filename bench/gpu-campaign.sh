#!/bin/sh
# bench/gpu-campaign.sh - issue 21's GPU figures in one call on a GPU
# host: bench/gpu-overlap.cu (what another process's context start
# and end cost a timed kernel, and themselves), then the GPU suite over
# the 32 honest CUDA kernels and the cheat corpus (tests/gpu/run: the
# per-candidate breakdown table), with the tools in RETORT_BIN (default
# out/bin, carried in). Full outputs go to $OUT (or out/campaign); the
# tables are printed last. Not a timed test.
#
# usage: bench/gpu-campaign.sh [--no-probe] [--no-cheats]
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out/campaign}
mkdir -p "$out"
probe=1 cheats=cheat
for a; do
	case $a in
	--no-probe) probe=0 ;;
	--no-cheats) cheats= ;;
	*) echo "usage: bench/gpu-campaign.sh [--no-probe] [--no-cheats]" >&2; exit 2 ;;
	esac
done
honest=$(for f in tests/kernels/honest/*.cu; do basename "$f" .cu; done)
if test $probe = 1; then
	nvcc -arch=sm_90 -O2 -o "$out/gpu-overlap" bench/gpu-overlap.cu -lcuda &&
		timeout 240 "$out/gpu-overlap" >"$out/overlap.txt" 2>&1
	echo "== gpu-overlap (exit $?)"
	cat "$out/overlap.txt"
fi
# shellcheck disable=SC2086
tests/gpu/run "$out/suite" --only $honest $cheats >"$out/suite.txt" 2>&1
rc=$?
echo "== tests/gpu/run (exit $rc), bins ${RETORT_BIN:-out/bin}"
sed -n '/^per candidate/,$p' "$out/suite.txt" | grep -v "^\s*$" | head -80
grep -E "rejected|accepted|FAIL|expectation" "$out/suite.txt" | tail -8
exit $rc
