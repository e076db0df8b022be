#!/bin/sh
# t9000: the GPU suite (tests/gpu/run) when this machine has a GPU;
# skipped, visibly, on CPU-only machines such as CI
. "$(dirname "$0")/lib/lib.sh"
if ! test -e /dev/nvidiactl && ! test -e /dev/nvidia0; then
	echo "1..0 # SKIP no CUDA device: the GPU suite runs with tests/gpu/run on a GPU host"
	exit 0
fi
test_expect_success 'tests/gpu/run: honest kernels accepted, every cheat rejected' '
	RETORT_BIN="$RETORT_ROOT/out/bin" "$RETORT_ROOT/tests/gpu/run" "$T/gpu"
'
test_done
