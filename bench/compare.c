/*
 * bench/compare.c - the CPU comparison's speed (src/judge/compare.c,
 * as verify runs it on a kernel's outputs against expected.bin): for each
 * float dtype, N outputs within the tolerances of float references (fp8's
 * wide enough for its rounding; for each integer dtype, N equal to
 * theirs), the
 * best of five compares' wall time per element on all CPUs (compare's own
 * threads). Prints a table with the verdict's figures, which a change to
 * the loop must leave as they were. Not a timed test: by hand (libc and
 * libm only: bench/gpu-campaign.sh --setup builds it so on a GPU host),
 *
 *   cc -std=c11 -O2 -D_GNU_SOURCE -ffp-contract=off -o compare-bench bench/compare.c \
 *      src/judge/compare.c src/lib/parts.c src/lib/tensor.c src/lib/util.c -lm -lpthread
 *   ./compare-bench [N]        (default 2^26)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/judge/compare.h"
#include "../src/lib/tensor.h"
#include "../src/lib/util.h"

int
main(int argc, char **argv)
{
	const int dts[] = { DT_F32, DT_BF16, DT_F16, DT_F8E4M3, DT_F8E5M2, DT_I8, DT_U8, DT_I16, DT_I32, DT_I64 };
	int64_t n = argc > 1 ? atoll(argv[1]) : (int64_t)1 << 26, i;
	unsigned char *got, *want;
	uint64_t s = 1;

	if (n < 1)
		return 2;
	got = xcalloc((size_t)n, 8);
	want = xcalloc((size_t)n, 8);
	printf("%-8s %10s %8s %6s %22s %22s\n", "dtype", "n", "ns/elem", "bad", "relnorm", "maxrel");
	for (size_t d = 0; d < sizeof dts / sizeof dts[0]; d++) {
		struct targ a;
		struct cmpres r;
		double best = 1e9;
		for (i = 0; i < n; i++) { /* want in [-5, 5), got within 1e-4 relative of it, in the dtype */
			double u, v;
			float f;
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			u = (double)(s >> 11) / 9007199254740992.0;
			v = (u - 0.5) * 10;
			f = (float)v;
			if (!dtinfos[dts[d]].isfloat) { /* integers: the reference holds the dtype, equal values */
				dtset(want, dts[d], (size_t)i, v * 20);
				dtset(got, dts[d], (size_t)i, v * 20);
				continue;
			}
			memcpy(want + i * 4, &f, 4);
			dtset(got, dts[d], (size_t)i, v * (1 + 1e-4 * (u - 0.5)));
		}
		memset(&a, 0, sizeof a);
		a.dt = dts[d];
		/* a tolerance the dtype's rounding passes: fp8's 3 or 2 bits of mantissa */
		a.rtol = a.rel_norm = dts[d] == DT_F8E4M3 ? 0.07 : dts[d] == DT_F8E5M2 ? 0.13 : 1e-2;
		a.atol = 1e-3;
		for (int k = 0; k < 5; k++) {
			double t0 = now();
			compare(got, dts[d], want, WANT_REF, n, &a, 1, &r);
			if (now() - t0 < best)
				best = now() - t0;
		}
		printf("%-8s %10lld %8.3f %6lld %22.17g %22.17g\n", dtinfos[dts[d]].name, (long long)n, best * 1e9 / (double)n,
		       (long long)r.bad, r.relnorm, r.maxrel);
	}
	free(got);
	free(want);
	return 0;
}
