#!/bin/sh
# t0205: the CPU reference runner (src/runtime/refrun.c) on its own, built
# with a C reference that doubles x and takes its time by case (the first
# slow, the second slower) and with four cases at once whatever the CPUs
# (REFRUN_PAR): the same bytes as one case at a time; a case that fails
# once beside others runs again alone and the run goes on to its end (no
# case after it started ahead of it); a case that fails alone ends the run
# with its status, the outputs cut where its own would begin.
. "$(dirname "$0")/lib/lib.sh"

SRC=$RETORT_ROOT/src
# the reference: y = 2x; n = 3000 sleeps 0.4 s, 4000 0.8 s; 5000 fails as
# FAIL5000 says (once: while the marker is missing; always; never)
cat >"$T/call.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "refrun.h"
void
callreference(const struct refcase *rc)
{
	const float *x = rc->ptrs[0];
	float *y = rc->ptrs[1];
	long n = (long)rc->sizes[0];
	const char *fail = getenv("FAIL5000");
	if (n == 3000)
		usleep(400000);
	if (n == 4000)
		usleep(800000);
	if (n == 5000 && fail && (!strcmp(fail, "always") || access(fail, F_OK) != 0)) {
		if (strcmp(fail, "always"))
			fclose(fopen(fail, "w"));
		abort();
	}
	for (long i = 0; i < n; i++)
		y[i] = 2 * x[i];
}
int referencedone(void) { return 0; }
int referenceforks(void) { return 1; }
EOF
sed -i 's/#include <unistd.h>/#include <string.h>\n&/' "$T/call.c"
# runner PAR: $T/ref-PAR, PAR cases at once
runner() {
	cc -std=c11 -O1 -DREFRUN_PAR="$1" -I"$SRC/runtime" -I"$SRC/lib" -o "$T/ref-$1" "$SRC/runtime/refrun.c" \
		"$SRC/lib/tensor.c" "$SRC/lib/parts.c" "$T/call.c" -lm -pthread
}
# the plan: y = 2x (f32, x uniform in [-1, 1)) for each n given
plan() {
	for n; do # x (in: f32, uniform, seed n), y (out), the size n, no scalars, their dims
		echo "case 2 0 1 $n 1 -1 1 0 $n 0 1 1 1 $n 0 0 0 0 0 0 1 1 $n 0 1 $n 1 $n"
	done
}
test_expect_success 'the runner builds with four cases at once, and with one' '
	runner 4 && runner 1
'
test_expect_success 'four at once: the same bytes as one at a time' '
	cd "$T" && plan 1 3000 4000 17 5000 6000 7000 8000 >plan &&
	./ref-1 one.bin <plan && ./ref-4 four.bin <plan && cmp one.bin four.bin &&
	test "$(stat -c %s four.bin)" = $((4 * (1 + 3000 + 4000 + 17 + 5000 + 6000 + 7000 + 8000)))
'
test_expect_success 'a case that fails once beside others runs again alone; the run ends whole, in order' '
	cd "$T" && rm -f mark && FAIL5000=$T/mark timeout 30 ./ref-4 again.bin <plan 2>again.err &&
	test -f mark && cmp one.bin again.bin
'
test_expect_success 'a case that fails alone ends the run with its status; the outputs stop where its own begin' '
	cd "$T" && { FAIL5000=always timeout 30 ./ref-4 fail.bin <plan 2>fail.err; test $? = 134; } &&
	test "$(stat -c %s fail.bin)" = $((4 * (1 + 3000 + 4000 + 17))) &&
	cmp -n $((4 * (1 + 3000 + 4000 + 17))) one.bin fail.bin
'
test_done
