// bench/gpu-call.cu - what one of bench's calls costs the harness on this
// GPU beside the kernel, primitive by primitive (device.cu's, as the
// harness's docall runs them): an input drawn by each distribution and
// dtype (the normal and heavy ones also as bench draws them, fast), the
// outputs poisoned, the input hashes before and after, the L2 flush, the
// canary check. Prints a table: milliseconds for one tensor of
// 2^28 elements, and the rate. Not a timed test: on a GPU host,
//
//   nvcc -arch=sm_90 -O2 -fmad=false -o gpu-call bench/gpu-call.cu src/runtime/device.cu && ./gpu-call
#include "gpubench.h"
#include <string.h>

#include "../src/runtime/device.h"
#include "../src/lib/draw.h"

enum { REPS = 5 };

/* the median of REPS runs of what, each synchronized, in ms */
#define TIMEIT(out, what) do { \
	double t_[REPS]; \
	for (int r_ = 0; r_ < REPS; r_++) { \
		double s_ = ms(); \
		what; \
		if (dv_sync()) exit(1); \
		t_[r_] = ms() - s_; \
	} \
	for (int a_ = 0; a_ < REPS; a_++) \
		for (int b_ = a_ + 1; b_ < REPS; b_++) \
			if (t_[b_] < t_[a_]) { double x_ = t_[a_]; t_[a_] = t_[b_]; t_[b_] = x_; } \
	out = t_[REPS / 2]; \
} while (0)

static void
line(const char *what, double m, size_t n, size_t bytes)
{
	printf("%-44s %8.3f ms %8.1f G el/s %8.1f GB/s\n", what, m, n / m / 1e6, bytes / m / 1e6);
}

int
main(void)
{
	struct dvinfo info;
	size_t n = (size_t)1 << 28;
	void *p, *flush;
	uint64_t h;
	int bad;
	double m;
	static const struct { const char *name; int dt; size_t size; } dts[] = {
		{ "f32", DT_F32, 4 }, { "f16", DT_F16, 2 }, { "bf16", DT_BF16, 2 }, { "i32", DT_I32, 4 },
	};
	static const char *const dists[] = { "normal", "uniform", "heavy", "randint", "ties" };

	setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short keeps its rows */
	if (dv_init(0, &info)) {
		fprintf(stderr, "gpu-call: no device\n");
		return 1;
	}
	if (dv_alloc(&p, n * 4 + 4096) || dv_alloc(&flush, (size_t)256 << 20))
		return 1;
	printf("# one tensor of %zu elements, median of %d\n", n, REPS);
	for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++)
		for (int d = 0; d < DIST_COUNT; d++) {
			struct rt_dist dist = { d, 0, d == DIST_RANDINT ? 0.0 : -1.0, d == DIST_RANDINT ? 1000.0 : 1.0, 0, 1, 0 };
			char what[96];
			if ((d == DIST_RANDINT) != (dts[k].dt == DT_I32))
				continue;
			TIMEIT(m, dv_draw(p, dts[k].dt, n, 12345 + (uint64_t)k, &dist));
			snprintf(what, sizeof what, "draw %s %s", dts[k].name, dists[d]);
			line(what, m, n, n * dts[k].size);
			if (d == DIST_NORMAL || d == DIST_HEAVY) { /* bench's draws */
				dist.fast = 1;
				TIMEIT(m, dv_draw(p, dts[k].dt, n, 12345 + (uint64_t)k, &dist));
				snprintf(what, sizeof what, "draw %s %s, fast (bench)", dts[k].name, dists[d]);
				line(what, m, n, n * dts[k].size);
				dist.fast = 0;
			}
			if (d == DIST_NORMAL) {
				dist.special = 1;
				TIMEIT(m, dv_draw(p, dts[k].dt, n, 777, &dist));
				snprintf(what, sizeof what, "draw %s %s, special values", dts[k].name, dists[d]);
				line(what, m, n, n * dts[k].size);
			}
		}
	{
		struct rt_dist bytes = { DIST_RANDINT, 0, 0, 256, 0, 1, 0 }; /* as the harness's poison */
		TIMEIT(m, dv_draw(p, DT_U8, n * 4, 99, &bytes));
		line("poison: random bytes, 1 GiB", m, n * 4, n * 4);
		TIMEIT(m, dv_memset(p, 0xFF, n * 4));
		line("poison: a byte, 1 GiB", m, n * 4, n * 4);
	}
	TIMEIT(m, dv_hash(p, n * 4, 3, &h));
	line("hash 1 GiB", m, n * 4, n * 4);
	TIMEIT(m, dv_memset(flush, 7, (size_t)256 << 20));
	line("L2 flush, 256 MiB", m, (size_t)256 << 20, (size_t)256 << 20);
	TIMEIT(m, dv_memset((char *)p + n * 4, 0xA5, 4096));
	TIMEIT(m, dv_check((char *)p + n * 4, 4096, 0xA5, &bad));
	line("canary check, 4 KiB", m, 4096, 4096);
	TIMEIT(m, (void)0);
	line("dv_sync alone", m, 1, 1);
	return 0;
}
