#!/bin/sh
# tests/fuzz/run.sh - build the libFuzzer target for gen's spec reader
# (tests/fuzz/fuzz_spec.c) with clang, ASan and UBSan, and run it.
#
# usage: tests/fuzz/run.sh [--build-only] [SECONDS [LIBFUZZER-OPTION...]]
#
# From the checkout's root or anywhere: it works in the checkout. The
# target goes to out/fuzz/fuzz_spec; the corpus grows in out/fuzz/corpus,
# seeded with tasks/*.yaml, tests/fuzz/seeds/* (what the specs do not
# show: anchors, aliases, integer tensors) and tests/fuzz/regress/* (past
# findings, kept as inputs); a finding is written as out/fuzz/crash-* (or
# leak-*, timeout-*, oom-*) and the run stops. SECONDS (default 60) is the run's
# length; the machine is shared, so it runs one job under nice.
# --build-only builds the target and runs it once over the seeds.
#
# After a finding: fix it, copy the input to tests/fuzz/regress/ with a
# name that says what it was (t0100 feeds every file there to gen), and
# run again. CC (default clang) must support -fsanitize=fuzzer.
#
# Exit: 0 nothing found; otherwise libFuzzer's status (a finding) or 1
# when the target does not build.

set -u
cd "$(dirname "$0")/../.." || exit 1
build_only=no
if test "${1:-}" = --build-only; then build_only=yes; shift; fi
seconds=${1:-60}
test $# -gt 0 && shift
cc=${CC:-clang}
out=${FUZZ_OUT:-out/fuzz}
mkdir -p "$out/corpus" "$out/seeds" || exit 1

flags="-std=c11 -g -O1 -Wall -Wextra -D_GNU_SOURCE -fno-omit-frame-pointer
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all"
# shellcheck disable=SC2086 # the flags are words
$cc $flags $(pkg-config --cflags yaml-0.1 jansson) -o "$out/fuzz_spec" \
	tests/fuzz/fuzz_spec.c src/gen/yaml.c src/gen/expr.c src/gen/spec.c src/gen/hidden.c \
	src/lib/util.c src/lib/parts.c src/lib/json.c src/lib/task.c src/lib/tensor.c src/lib/round.c src/lib/sha.c \
	$(pkg-config --libs yaml-0.1 jansson) -lcrypto -lm -lpthread ||
	{ echo "fuzz: cannot build $out/fuzz_spec with $cc" >&2; exit 1; }
cp tasks/*.yaml tests/fuzz/seeds/* tests/fuzz/regress/* "$out/seeds/" || exit 1

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
if test "$build_only" = yes; then
	exec "$out/fuzz_spec" -runs=0 -artifact_prefix="$out/" "$out/seeds"
fi
exec nice -n 10 "$out/fuzz_spec" -dict=tests/fuzz/spec.dict -max_total_time="$seconds" \
	-timeout=20 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" \
	"$@" "$out/corpus" "$out/seeds"
