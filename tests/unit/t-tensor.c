/* t-tensor.c - dtypes, conversions, the input generator, seeds, comparison */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/lib/task.h"
#include "../../src/judge/compare.h"
#include "../../src/lib/draw.h"
#include "../../src/judge/inputs.h"
#include "../../src/lib/tensor.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

static struct targ
out(int dt)
{
	struct targ a;

	memset(&a, 0, sizeof a);
	a.kind = ARG_OUT;
	a.dt = dt;
	a.rel_norm = dtinfos[dt].rel_norm;
	a.rtol = dtinfos[dt].rtol;
	a.atol = dtinfos[dt].atol;
	return a;
}

/* f16, bf16 and fp8: known encodings */
static void
encodings(void)
{
	/* IEEE half and bfloat16, known encodings */
	is_int(ftof16(1.0f), 0x3c00, "f16 1.0");
	is_int(ftof16(-2.0f), 0xc000, "f16 -2.0");
	is_int(ftof16(65504.0f), 0x7bff, "f16 max");
	is_int(ftof16(1e-7f), 0x0002, "f16 subnormal rounds to nearest");
	is_int(ftof16(INFINITY), 0x7c00, "f16 inf");
	ok(isnan(f16tof(ftof16(NAN))), "f16 nan survives");
	is_int(ftof16(1.0f + 1.0f / 2048), 0x3c00, "f16 ties round to even (down)");
	is_int(ftof16(1.0f + 3.0f / 2048), 0x3c02, "f16 ties round to even (up)");
	ok(f16tof(0x3555) > 0.333 && f16tof(0x3555) < 0.3334, "f16 decode 1/3");
	is_int(ftobf16(1.0f), 0x3f80, "bf16 1.0");
	is_int(ftobf16(3.140625f), 0x4049, "bf16 pi-ish");
	ok(bf16tof(0x4049) == 3.140625f, "bf16 decode");
	/* fp8: e4m3 has no Inf and saturates at 448; e5m2 is IEEE-like */
	is_int(ftof8(448.0f, 0), 0x7e, "e4m3 max");
	is_int(ftof8(1000.0f, 0), 0x7e, "e4m3 saturates");
	ok(f8tof(0x7e, 0) == 448.0f && isnan(f8tof(0x7f, 0)), "e4m3 decode max and nan");
	is_int(ftof8(1.0f, 0), 0x38, "e4m3 1.0");
	is_int(ftof8(57344.0f, 1), 0x7b, "e5m2 max");
	is_int(ftof8(INFINITY, 1), 0x7c, "e5m2 inf");
	ok(f8tof(0x01, 0) == 0.001953125f, "e4m3 smallest subnormal 2^-9");
}

/* every f16 value survives a round trip */
static void
f16roundtrip(void)
{
	int bad = 0;
	for (unsigned h = 0; h < 0x10000; h++) {
		float v = f16tof((uint16_t)h);
		if (!isnan(v) && ftof16(v) != h && !(v == 0 && (ftof16(v) & 0x7fff) == 0))
			bad++;
	}
	is_int(bad, 0, "all 65536 f16 values round-trip");
}

/* f16 and bf16 stores round to nearest, ties to even, over their whole range */
static void
roundnearest(void)
{
	/*
	 * f16 and bf16 stores round to nearest, ties to even: for values at,
	 * between and around every finite encoding (midpoints too), the
	 * stored value is no farther than either neighbour, and on a tie its
	 * last bit is 0; past the largest finite value (beyond its half-ulp)
	 * comes Inf; bf16 decodes as the top half of a float
	 */
	static const int dts[2] = { DT_F16, DT_BF16 };
	int bad = 0, k;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (k = 0; k < 2; k++) {
		int dt = dts[k];
		unsigned top = dt == DT_F16 ? 0x7bff : 0x7f7f, h;
		for (h = 1; h < top; h++) {
			uint16_t lo = (uint16_t)h, hi = (uint16_t)(h + 1), got;
			double a = dtget(&lo, dt, 0), b = dtget(&hi, dt, 0);
			for (int j = 0; j < 4; j++) {
				double v, g;
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				v = j == 0 ? a : j == 1 ? (a + b) / 2 : a + (b - a) * (double)(x >> 11) * 0x1.0p-53;
				if (j == 3)
					v = -v;
				dtset(&got, dt, 0, v);
				g = fabs(dtget(&got, dt, 0));
				if (fabs(fabs(v) - g) > fabs(fabs(v) - a) || fabs(fabs(v) - g) > fabs(fabs(v) - b) ||
				    (fabs(v) - a == b - fabs(v) && (got & 1)) || (signbit(v) != 0) != (got >> 15 != 0))
					bad++;
			}
		}
	}
	is_int(bad, 0, "f16 and bf16 round to nearest even over their whole range");
	uint16_t h;
	dtset(&h, DT_F16, 0, 65519.99);
	is_int(h, 0x7bff, "f16 65519.99 rounds to 65504");
	dtset(&h, DT_F16, 0, 65520);
	is_int(h, 0x7c00, "f16 65520 rounds to Inf");
	dtset(&h, DT_BF16, 0, -3.39e38);
	is_int(h, 0xff7f, "bf16 -3.39e38 rounds to its lowest finite");
	dtset(&h, DT_BF16, 0, 1e-40);
	ok(dtget(&h, DT_BF16, 0) > 0 && dtget(&h, DT_BF16, 0) < 1.2e-38, "bf16 subnormal");
	ok(bf16tof(0x3f80) == 1.0f && bf16tof(0xc049) == -3.140625f, "bf16 decodes as a float's top half");
}

/* integer stores saturate and round */
static void
intstores(void)
{
	unsigned char raw[64];

	/* integer stores saturate and round */
	dtset(raw, DT_I8, 0, 300);
	dtset(raw, DT_I8, 1, -2.5);
	is_int(((int8_t *)raw)[0], 127, "i8 saturates");
	is_int(((int8_t *)raw)[1], -2, "i8 rounds to nearest even");
}

/* the generator is deterministic and respects ranges */
static void
fillrange(void)
{
	float x[1000], y[1000];
	int inrange = 1, differ = 0;
	tensorfill(x, DT_F32, 1000, &(struct rt_dist){ DIST_UNIFORM, 0, -3, 5, 0, 1, 0 }, 42);
	tensorfill(y, DT_F32, 1000, &(struct rt_dist){ DIST_UNIFORM, 0, -3, 5, 0, 1, 0 }, 42);
	ok(memcmp(x, y, sizeof x) == 0, "same seed, same inputs");
	tensorfill(y, DT_F32, 1000, &(struct rt_dist){ DIST_UNIFORM, 0, -3, 5, 0, 1, 0 }, 43);
	for (int i = 0; i < 1000; i++) {
		inrange &= x[i] >= -3 && x[i] < 5;
		differ += x[i] != y[i];
	}
	ok(inrange, "uniform stays in [lo, hi)");
	ok(differ > 990, "another seed, other inputs");
}

/* randint covers its range and no more */
static void
fillrandint(void)
{
	int32_t idx[10000];
	int inrange = 1, seen0 = 0, seen9 = 0;
	tensorfill(idx, DT_I32, 10000, &(struct rt_dist){ DIST_RANDINT, 0, 0, 10, 0, 1, 0 }, 7);
	for (int i = 0; i < 10000; i++) {
		inrange &= idx[i] >= 0 && idx[i] < 10;
		seen0 |= idx[i] == 0;
		seen9 |= idx[i] == 9;
	}
	ok(inrange && seen0 && seen9, "randint covers [0, 10) and no more");
}

/* normal draws have mean 0 and variance 1; special ones hold about 1% NaN and Inf */
static void
filldists(void)
{
	double x[100000], mean = 0, var = 0;
	int nans = 0;
	tensorfill(x, DT_F64, 100000, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 0 }, 9);
	for (int i = 0; i < 100000; i++)
		mean += x[i] / 100000;
	for (int i = 0; i < 100000; i++)
		var += (x[i] - mean) * (x[i] - mean) / 100000;
	ok(fabs(mean) < 0.02 && fabs(var - 1) < 0.02, "normal: mean %.4f, variance %.4f", mean, var);
	tensorfill(x, DT_F64, 100000, &(struct rt_dist){ DIST_HEAVY, 1, 0, 0, 0, 1, 0 }, 9);
	for (int i = 0; i < 100000; i++)
		nans += !isfinite(x[i]);
	ok(nans > 500 && nans < 1500, "special: about 1%% NaN and Inf (%d)", nans);
}

/* bench's fast draws: normal to float precision (mean 0, variance 1, no
 * value past 5.8, not the exact draw's values), heavy finite and clipped,
 * specials as the exact draw's; uniform, randint and ties exactly the
 * exact draw's, and f64 inputs drawn exactly */
static void
fillfast(void)
{
	static float x[100000], y[100000];
	static double e[20000], f[20000];
	double mean = 0, var = 0, most = 0;
	int nans = 0, bounded = 1, differ = 0;

	tensorfill(x, DT_F32, 100000, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 1 }, 9);
	tensorfill(y, DT_F32, 100000, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 0 }, 9);
	for (int i = 0; i < 100000; i++) {
		mean += x[i] / 100000.0;
		most = fmax(most, fabs(x[i]));
		differ += x[i] != y[i];
	}
	for (int i = 0; i < 100000; i++)
		var += (x[i] - mean) * (x[i] - mean) / 100000;
	ok(fabs(mean) < 0.02 && fabs(var - 1) < 0.02 && most > 3.5 && most < 5.8 && differ > 99000,
	   "fast normal: mean %.4f, variance %.4f, largest %.3f, %d of 100000 unlike the exact draw's", mean, var, most,
	   differ);
	tensorfill(x, DT_F32, 100000, &(struct rt_dist){ DIST_HEAVY, 0, 0, 0, 0, 1, 1 }, 9);
	for (int i = 0; i < 100000; i++)
		bounded &= isfinite(x[i]) && fabs(x[i]) <= 1e4;
	tensorfill(x, DT_F32, 100000, &(struct rt_dist){ DIST_HEAVY, 1, 0, 0, 0, 1, 1 }, 9);
	for (int i = 0; i < 100000; i++)
		nans += !isfinite(x[i]);
	ok(bounded && nans > 500 && nans < 1500, "fast heavy: finite within 1e4; special about 1%% NaN and Inf (%d)", nans);
	{ /* the parallel fill and draw.h's rt_draw draw what the serial fill does */
		size_t n = 1000003;
		float *a = xmalloc(n * 4), *b = xmalloc(n * 4), c[64];
		struct rt_dist d = { DIST_HEAVY, 1, 0, 0, 0.25, 3, 1 };
		int same = 1;
		tensorfill(a, DT_F32, n, &d, 78);
		tensorfillpar(b, DT_F32, n, &d, 78);
		for (size_t i = 0; i < 64; i++) {
			rt_draw(c, DT_F32, i, 78, d);
			same &= memcmp(&c[i], &a[i], 4) == 0;
		}
		ok(memcmp(a, b, n * 4) == 0 && same, "fast: tensorfillpar and rt_draw match tensorfill");
		free(a);
		free(b);
	}
	for (int d = DIST_NORMAL, same = 1; d < DIST_COUNT; d++, same = 1) {
		int dt = d == DIST_NORMAL || d == DIST_HEAVY ? DT_F64 : DT_F32;
		if (dt == DT_F64) {
			tensorfill(e, DT_F64, 20000, &(struct rt_dist){ d, 1, -3, 5, 0.5, 2, 1 }, 4);
			tensorfill(f, DT_F64, 20000, &(struct rt_dist){ d, 1, -3, 5, 0.5, 2, 0 }, 4);
		} else {
			tensorfill(x, DT_F32, 20000, &(struct rt_dist){ d, 1, -3, 5, 0.5, 2, 1 }, 4);
			tensorfill(y, DT_F32, 20000, &(struct rt_dist){ d, 1, -3, 5, 0.5, 2, 0 }, 4);
		}
		for (int i = 0; i < 20000; i++)
			same &= dt == DT_F64 ? memcmp(&e[i], &f[i], 8) == 0 : memcmp(&x[i], &y[i], 4) == 0;
		ok(same, "fast %s, %s: the exact draw's values", distnames[d], dt == DT_F64 ? "f64" : "f32");
	}
}

/* ties: 16 values evenly over the range; an offset and a scale map every
 * value of the plain draw, exactly as draw.h's two operations round */
static void
fillaffine(void)
{
	static double x[20000], y[20000];
	double seen[16];
	int nseen = 0, even = 1, same = 1;

	tensorfill(x, DT_F64, 20000, &(struct rt_dist){ DIST_TIES, 0, -1, 1, 0, 1, 0 }, 5);
	for (int i = 0; i < 20000; i++) {
		int k;
		even &= x[i] >= -1 && x[i] < 1 && x[i] * 8 == floor(x[i] * 8);
		for (k = 0; k < nseen && seen[k] != x[i]; k++)
			;
		if (k == nseen && nseen < 16)
			seen[nseen++] = x[i];
	}
	ok(even && nseen == 16, "ties: 16 values, multiples of 1/8 in [-1, 1) (%d)", nseen);
	tensorfill(x, DT_F64, 20000, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 0 }, 6);
	tensorfill(y, DT_F64, 20000, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 300, 2.5, 0 }, 6);
	for (int i = 0; i < 20000; i++)
		same &= y[i] == 300 + 2.5 * x[i];
	ok(same, "offset 300, scale 2.5: every value is 300 + 2.5 v of the plain draw");
}

/* the parallel fill draws what the serial one does */
static void
fillpar(void)
{
	/* chunked streams: the parallel fill draws the same values */
	size_t n = 1000003;
	float *a = xmalloc(n * 4), *b = xmalloc(n * 4);
	tensorfill(a, DT_F32, n, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 0 }, 77);
	tensorfillpar(b, DT_F32, n, &(struct rt_dist){ DIST_NORMAL, 0, 0, 0, 0, 1, 0 }, 77);
	ok(memcmp(a, b, n * 4) == 0, "tensorfillpar matches tensorfill");
	free(a);
	free(b);
	/* drawn into the reference type: the draw, then toref */
	for (int dt = 0; dt < DT_COUNT; dt++) {
		struct rt_dist d = { DIST_UNIFORM, 1, -4, 4, 0.5, 3, 0 };
		unsigned char *raw = xmalloc(n * 8), *want = xmalloc(n * 8), *got = xmalloc(n * 8);
		tensorfill(raw, dt, n, &d, 91);
		toref(raw, dt, want, n);
		tensorfillref(got, dt, n, &d, 91);
		ok(memcmp(want, got, n * (size_t)refsize(dt)) == 0, "tensorfillref %s: the draw widened", dtinfos[dt].name);
		free(raw);
		free(want);
		free(got);
	}
	/* an unwritten output: NaN, integers 0, every element (the threads' slices) */
	{
		double *f64 = xmalloc(n * 8);
		float *f32 = xmalloc(n * 4);
		int64_t *i64 = xmalloc(n * 8);
		size_t k, bad = 0;
		memset(i64, 0x5a, n * 8);
		tensorunwritten(f64, DT_F64, n);
		tensorunwritten(f32, DT_F16, n);
		tensorunwritten(i64, DT_I64, n);
		for (k = 0; k < n; k++)
			bad += !isnan(f64[k]) || !isnan(f32[k]) || i64[k] != 0;
		ok(bad == 0, "tensorunwritten: NaN (f64, f16 as float), 0 (i64) in all %zu elements", n);
		free(f64);
		free(f32);
		free(i64);
	}
}

/* the draw is pinned: the device's harness and the CPU reference agree
 * on it only while both draw these bits, and each dtype and distribution,
 * with specials, an offset and a scale, takes the parallel fill's own
 * loops (tensor.c) as the per-element rt_draw does */
static void
fillgolden(void)
{
	static const struct { int dist; double lo, hi; } ds[] = {
		{ DIST_NORMAL, 0, 0 }, { DIST_UNIFORM, -3, 5 }, { DIST_HEAVY, 0, 0 }, { DIST_RANDINT, -7, 1000 },
		{ DIST_TIES, -1, 1 },
	};
	static const uint64_t want[] = {
		0x737abf1f1f782852ull, 0x5e4f9d2f44dcff0full, 0xa5e7d8e601754b9bull, 0x590a5a80229dcbb4ull,
		0x165e0b0667324afaull, 0x343fe5286e2b82e6ull, 0xfa272b5af731282bull, 0x32e8429cdf3cce53ull,
		0x5f1e3a539a1a1264ull, 0xd253afb117e66b75ull, 0x89c8fd4f0bf357feull, 0xf047d022dd99b183ull,
		0x1a785cc60eb86c2aull, 0xcfc6fd118513334ull, 0x10a7d19e924f32d9ull, 0xce52fca274706ddaull,
		0x5f14d2afa8e2cc0ull, 0x543c992527df7fdeull, 0xb12a3888002deaa5ull, 0xe0e04b2eb8d824eaull,
		0x2135816064a86feaull, 0x1cc0a7ed60b52218ull, 0x15de6b5656d9e974ull, 0x68fd171eb962fadbull,
		0xa76237c0472e502bull, 0x69ea414dd84fc698ull, 0x75f798852c7b0583ull, 0xc087d7e8d37cbd26ull,
		0xd5c66e6f757f7275ull, 0xd4bdc20fc40ce86eull, 0xe37ae5a53723aad1ull, 0xef3fe11833fe4f84ull,
		0x9aeb79115c67ec37ull, 0xf39b856a930ddee1ull, 0xe72919832882e018ull, 0xcfc6fd118513334ull,
		0xd74e1b40ba7d3f80ull, 0xce52fca274706ddaull, 0xe5d8ea1ba325e946ull, 0x4e0436b441b50247ull,
		0xb66df540eb1afa5eull, 0x5845a7955c299e12ull, 0xc7fe0da00fe03e12ull, 0x9319f8a772982a55ull,
		0x165397fb7ffbcf12ull, 0x564abc21cb218957ull, 0xacb01352fb2ca8bull, 0x14ac67683fb78fafull,
		0x900bf4d1e61c18d4ull, 0x44f41289ca6151f0ull, 0x8b7c5d7baf7de6faull, 0x96da3719d0000810ull,
		0xa83354dd7c35c9b8ull, 0xc0fdfea24844dc4cull, 0xa531f6cfba8d25f4ull, 0xfe11ded46b7e8bbull,
		0xa6695d3a05e56ae8ull, 0x88a8daeb46740f98ull, 0xadff8192bdae585eull, 0x8b17ae62172d80c8ull,
		0xb5d3849876b89a0full, 0xb6af87fcd5a16086ull, 0x10cf9421b980a209ull, 0xc2dac0456af51430ull,
		0x8f7f422f3b81677eull, 0x4abe97e4e55abe32ull, 0x1803129f80144b4eull, 0xd3e4c857d66d3ea9ull,
		0x6bdb3c795abd4a49ull, 0x9aa9ce7d8dc491d2ull, 0x6862028d7f3b0e72ull, 0x4b2d8a1b3c1143fdull,
		0x632ce835f65c7db1ull, 0x8360748fdffa719bull, 0x73b76c03cb3837d6ull, 0xb779729a5d871d11ull,
		0xdaee8d83391686aull, 0x175fa88fd6cce80full, 0xd2a59c06a42d20a1ull, 0xcfc6fd118513334ull,
		0x89cf56818dcc9a50ull, 0xce52fca274706ddaull, 0x96e5dd06dee071d6ull, 0xbf85e03273500fe3ull,
		0xe13aec412bcc0a20ull, 0x164a9db69ab33733ull, 0xb85510929e8dba21ull, 0xd632f65000336786ull,
		0xa83933f5185ac076ull, 0x6ab01df534a1811aull, 0xbef7635c8b7a5657ull, 0x1021fb1fe7eb6f66ull,
		0x1c698f10bb262dc9ull, 0x48f65a001e039bfbull, 0x3be3fc7cc7769b38ull, 0x1d51a1af477d58d2ull,
		0x4b9bab3b4827d017ull, 0x1e3a9038e593708full, 0xe4239b7766fccab0ull, 0x69cb53c99280b0f2ull,
		0xabe015141cb5cf10ull, 0xcfc6fd118513334ull, 0x298c0587bde0ab9aull, 0xce52fca274706ddaull,
		0xd985fdcd4a951cf0ull, 0x8abeb5fd37271828ull, 0x588354d881db72f0ull, 0xf4737afb384cad8dull,
		0x8e573b6f70970222ull, 0x16d0a952773d7325ull,
	};
	size_t n = 300007;
	int k = 0, bad = 0;

	for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++)
		for (int dt = 0; dt < DT_COUNT; dt++)
			for (int v = 0; v < 2; v++) {
				struct rt_dist d = { ds[i].dist, v, ds[i].lo, ds[i].hi, v ? 300 : 0, v ? 2.5 : 1, 0 };
				size_t bytes = n * (size_t)dtinfos[dt].size;
				unsigned char *a = xmalloc(bytes), *b = xmalloc(bytes);
				int same = 1;
				d.special = d.special && dtinfos[dt].isfloat;
				for (size_t e = 0; e < n; e++)
					rt_draw(a, dt, e, 1234 + (uint64_t)k, d);
				tensorfillpar(b, dt, n, &d, 1234 + (uint64_t)k);
				same = memcmp(a, b, bytes) == 0;
				if (!same || k >= (int)(sizeof want / sizeof want[0]) || rt_hash(a, bytes, 0) != want[k]) {
					printf("# draw %d (dist %d, %s%s): %s, hash %#llxull\n", k, ds[i].dist, dtinfos[dt].name,
					       v ? ", specials, offset 300, scale 2.5" : "", same ? "same fills" : "the fills differ",
					       (unsigned long long)rt_hash(a, bytes, 0));
					bad++;
				}
				k++;
				free(a);
				free(b);
			}
	ok(!bad, "%d draws (5 distributions, every dtype, with and without specials and an affine map) pinned", k);
}

/* draw.h's own logarithm and cosine: close to libm's */
static void
drawmath(void)
{
	/* draw.h's own logarithm and cosine: close to libm's (they need not be equal, only portable) */
	double worst = 0;
	for (int i = 1; i <= 100000; i++) {
		double x = (double)i / 100000, l = log(x), c = cos(2 * M_PI * x);
		worst = fmax(worst, fmax(fabs(rt_log(x) - l) / fmax(1, fabs(l)), fabs(rt_cos2pi(x < 1 ? x : 0) - (x < 1 ? c : 1))));
	}
	ok(worst < 1e-14, "rt_log and rt_cos2pi agree with libm (worst %.3g)", worst);
}

/* the output hash: an order-free sum, and the tail's bytes count */
static void
outputhash(void)
{
	unsigned char b[20] = { 1, 2, 3 };
	uint64_t h = rt_hash(b, sizeof b, 0);
	b[19] = 1;
	ok(rt_hash(b, sizeof b, 0) != h, "the hash sees the last byte");
	ok(rt_hash(b, sizeof b, 1) != rt_hash(b, sizeof b, 0), "and the tensor it belongs to");
}

/* a run's inputs: distributions cycle, scalars with a range are drawn */
static void
runs(void)
{
	struct task t;
	struct tcase c;
	struct runin in0, in1;
	unsigned char k[32] = { 1 };
	memset(&t, 0, sizeof t);
	memset(&c, 0, sizeof c);
	t.id = "x";
	t.nargs = 2;
	t.args[0].kind = ARG_IN;
	t.args[0].dt = DT_F32;
	t.args[0].ndists = 2;
	t.args[0].dists[0] = DIST_NORMAL;
	t.args[0].dists[1] = DIST_UNIFORM;
	t.args[1].kind = ARG_SCALAR;
	t.args[1].dt = DT_F32;
	c.nscalars = 1;
	c.scalars[0] = 1.0;
	c.lo[1] = 0.5;
	c.hi[1] = 2;
	runinputs(&t, &c, k, "verify", 0, 0, 0, &in0);
	runinputs(&t, &c, k, "verify", 0, 1, 0, &in1);
	ok(in0.scalars[0] >= 0.5 && in0.scalars[0] < 2 && in0.scalars[0] != in1.scalars[0] &&
	   (double)(float)in0.scalars[0] == in0.scalars[0], "a scalar with a range is drawn in it, anew each run, as "
	   "its float holds it (%g, %g)", in0.scalars[0], in1.scalars[0]);
	ok(in0.d[0].dist == DIST_NORMAL && in1.d[0].dist == DIST_UNIFORM && in0.d[0].seed != in1.d[0].seed,
	   "runs cycle the distributions, each with its own seed");
	c.lo[1] = c.hi[1] = 0;
	runinputs(&t, &c, k, "verify", 0, 0, 0, &in0);
	ok(in0.scalars[0] == 1.0, "without a range a scalar is the spec's value");
	t.args[0].off[0] = -300, t.args[0].off[1] = 300;
	t.args[0].scale[0] = t.args[0].scale[1] = 1;
	runinputs(&t, &c, k, "verify", 0, 0, 0, &in0);
	runinputs(&t, &c, k, "verify", 0, 1, 0, &in1);
	ok(in0.d[0].off == 0 && in0.d[0].scale == 1 && in1.d[0].off >= -300 && in1.d[0].off < 300 &&
	   in1.d[0].off != 0 && in1.d[0].scale == 1, "the spec's offset on every other run (%g)", in1.d[0].off);
	ok(in0.poison == 0 && in1.poison == 1 && in0.pseed != in1.pseed, "the poison takes turns, seeded per run");
}

/* seeds from the secret */
static void
seeds(void)
{
	char dir[] = "/tmp/t-tensor.XXXXXX";
	unsigned char k1[32], k2[32];
	char err[256], cmd[128];
	need(mkdtemp(dir) != NULL, "make a scratch folder");
	ok(secretload(dir, k1, err, sizeof err) == 0, "a secret is made");
	ok(secretload(dir, k2, err, sizeof err) == 0 && !memcmp(k1, k2, 32), "and kept");
	ok(deriveseed(k1, "a", "verify", 0, 0, 0) == deriveseed(k2, "a", "verify", 0, 0, 0), "seeds are deterministic");
	ok(deriveseed(k1, "a", "verify", 0, 0, 0) != deriveseed(k1, "a", "verify", 0, 1, 0), "runs differ");
	ok(deriveseed(k1, "a", "verify", 1, 0, 0) != deriveseed(k1, "b", "verify", 1, 0, 0), "variants differ");
	k2[0] ^= 1;
	ok(deriveseed(k1, "a", "verify", 0, 0, 0) != deriveseed(k2, "a", "verify", 0, 0, 0), "another secret, other seeds");
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove the scratch files\n");
}

/* the comparator: tolerances, NaN and Inf */
static void
comparebasics(void)
{
	struct targ a = out(DT_F32);
	struct cmpres r;

	/* the comparator */
	float want[4] = { 1, 2, 3, 4 }, got[4] = { 1, 2, 3, 4 };
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(r.pass && r.bad == 0, "equal outputs pass");
	got[2] = 3.0001f;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(r.pass, "within rtol passes");
	got[2] = 3.1f;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(!r.pass && r.bad == 1 && r.first[0].index == 2, "outside rtol fails at the right index");
	got[2] = NAN;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(!r.pass && r.unwritten == 1, "NaN where a value is expected: unwritten");
	want[2] = NAN;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(r.pass, "NaN expected and NaN got pass");
	got[2] = 1;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(!r.pass && r.nonfinite == 1, "a number where NaN is expected fails");
	want[2] = INFINITY;
	got[2] = -INFINITY;
	compare(got, DT_F32, want, WANT_REF, 4, &a, 1, &r);
	ok(!r.pass, "Inf signs must match");
}

/* a narrow float output of dtype dt: +-Inf against a float reference
 * past its range (past, beyond its largest finite) passes; +Inf against
 * inside (a value within it) does not */
static void
overflows(int dt, float past, float inside)
{
	struct targ a = out(DT_F32);
	struct cmpres r;
	float want[2] = { past, -1e6f };
	unsigned char got[4];

	dtset(got, dt, 0, INFINITY);
	dtset(got, dt, 1, -INFINITY);
	compare(got, dt, want, WANT_REF, 2, &a, 1, &r);
	ok(r.pass, "%s overflow to +-inf matches a reference past the range", dtinfos[dt].name);
	want[0] = inside;
	compare(got, dt, want, WANT_REF, 2, &a, 1, &r);
	ok(!r.pass && r.nonfinite == 1, "%s: but inf for a value in range does not", dtinfos[dt].name);
}

/* f16 outputs (and e5m2's): past 65504 the reference rounds to inf */
static void
comparef16(void)
{
	struct targ a = out(DT_F32);
	struct cmpres r;
	float want[1] = { 1e6 };
	uint16_t got[1];

	overflows(DT_F16, 70000, 65000);
	overflows(DT_F8E5M2, 1e5f, 1e4f); /* past 57344 */
	dtset(got, DT_F16, 0, 65504);
	compare(got, DT_F16, want, WANT_REF, 1, &a, 1, &r);
	ok(!r.pass, "past f16's range the answer is Inf, not its largest finite");
}

/* against the GPU oracle: twice the tolerances, and the outputs' scale near zero */
static void
compareoracle(void)
{
	struct targ a = out(DT_F32);
	struct cmpres r;

	/* against the GPU oracle: expected values in the output's dtype, and twice the tolerances */
	float want[100], got[100];
	for (int i = 0; i < 100; i++)
		want[i] = got[i] = (float)(i + 1);
	got[50] = 51 * 1.0015f;
	compare(got, DT_F32, want, WANT_DTYPE, 100, &a, 1, &r);
	ok(!r.pass, "0.15%% off fails the f32 tolerance");
	compare(got, DT_F32, want, WANT_DTYPE, 100, &a, 2, &r);
	ok(r.pass, "and passes twice it (an oracle's own error allowed for)");
	/* a long float sum near zero: judged on the outputs' scale (atol at
	 * least rtol x RMS / 10 = 5.8e-3 here), not its own */
	got[50] = want[50];
	want[3] = 0.0096f;
	got[3] = 0.0102f;
	compare(got, DT_F32, want, WANT_DTYPE, 100, &a, 1, &r);
	ok(r.pass, "a near-zero element 6%% off passes: 6e-4 is far below the outputs' scale");
	got[3] = 0.0196f;
	compare(got, DT_F32, want, WANT_DTYPE, 100, &a, 1, &r);
	ok(!r.pass && r.bad == 1, "one 0.01 off fails: past the floor");
}

/* every element, on all CPUs: the first mismatches are the lowest indexes */
static void
comparethreaded(void)
{
	struct targ a = out(DT_F32);
	struct cmpres r;

	/* every element, on all CPUs: the first mismatches are the lowest indexes */
	size_t n = (1 << 22) + 5;
	float *w = xmalloc(n * 4), *g = xmalloc(n * 4);
	for (size_t i = 0; i < n; i++)
		w[i] = g[i] = (float)(i % 1000);
	g[n - 1] = NAN;
	g[n / 2] = -5;
	g[7] = 1e9f;
	compare(g, DT_F32, w, WANT_REF, (int64_t)n, &a, 1, &r);
	ok(!r.pass && r.bad == 3 && r.unwritten == 1 && r.first[0].index == 7 && r.first[1].index == (int64_t)n / 2 &&
	   r.first[2].index == (int64_t)n - 1, "threaded compare: %lld wrong, first at %lld, %lld, %lld",
	   (long long)r.bad, (long long)r.first[0].index, (long long)r.first[1].index, (long long)r.first[2].index);
	free(w);
	free(g);
}

/* relative L2: 1% noise on every element fails f32, passes bf16 */
static void
comparerelnorm(void)
{
	struct targ a = out(DT_F32);
	struct cmpres r;

	/* relative L2: 1% noise on every element fails f32, passes bf16 */
	float want[1000], got[1000];
	uint16_t gb[1000];
	struct targ b = out(DT_BF16);
	for (int i = 0; i < 1000; i++) {
		want[i] = 1.0f + (float)i / 1000;
		got[i] = want[i] * (i & 1 ? 1.002f : 0.998f);
		gb[i] = ftobf16(got[i]);
	}
	compare(got, DT_F32, want, WANT_REF, 1000, &a, 1, &r);
	ok(!r.pass && r.relnorm > 1e-3, "f32 rejects 0.2%% error (rel L2 %.2g)", r.relnorm);
	compare(gb, DT_BF16, want, WANT_REF, 1000, &b, 1, &r);
	ok(r.pass, "bf16 accepts it (rel L2 %.2g)", r.relnorm);
}

/* compare's decoding tables read every bit pattern of the narrow dtypes as dtget does */
static void
comparetables(void)
{
	struct cmpres r;

	/* compare decodes blocks of elements by tables (the narrow floats)
	 * or casts (the bytes): every bit pattern reads as dtget reads it,
	 * across block edges */
	static const int dts[] = { DT_F16, DT_BF16, DT_F8E4M3, DT_F8E5M2, DT_I8, DT_U8, DT_I16 };
	for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
		int dt = dts[k], size = dtinfos[dt].size, n = size == 2 ? 65536 : 256, same = 1;
		long long bad;
		unsigned char *g = xmalloc((size_t)n * 2 * size), *w = xmalloc((size_t)n * 2 * size);
		struct targ t = out(dt);
		t.atol = t.rtol = t.rel_norm = 0; /* exact */
		for (int i = 0; i < 2 * n; i++) { /* the patterns, then again: a mismatch past the first block */
			uint16_t v = (uint16_t)(i % n);
			memcpy(g + (size_t)i * size, &v, (size_t)size);
			memcpy(w + (size_t)i * size, &v, (size_t)size);
		}
		{
			float *f = xmalloc((size_t)n * 2 * sizeof *f); /* what dtget reads, as the reference stores it */
			for (int i = 0; i < 2 * n; i++)
				f[i] = (float)dtget(g, dt, (size_t)i);
			/* the reference stores integers as their dtype */
			compare(g, dt, dtinfos[dt].isfloat ? (void *)f : (void *)w, WANT_REF, 2 * n, &t, 1, &r);
			same = r.bad == 0;
			free(f);
		}
		for (int i = 0; i < 2 * n; i++) { /* every element wrong: its first five as dtget reads them */
			uint16_t v = (uint16_t)((i + 1) % n);
			memcpy(w + (size_t)i * size, &v, (size_t)size);
		}
		compare(g, dt, w, WANT_DTYPE, 2 * n, &t, 1, &r);
		for (int j = 0; j < r.nfirst; j++) {
			double gv = dtget(g, dt, (size_t)r.first[j].index), wv = dtget(w, dt, (size_t)r.first[j].index);
			same &= (isnan(gv) ? isnan(r.first[j].got) : gv == r.first[j].got) &&
			        (isnan(wv) ? isnan(r.first[j].want) : wv == r.first[j].want);
		}
		same &= r.nfirst == 5 && r.bad > n;
		bad = r.bad;
		{ /* and against the reference's values (the one-pass loops): the same wrong ones */
			float *f = xmalloc((size_t)n * 2 * sizeof *f);
			for (int i = 0; i < 2 * n; i++)
				f[i] = (float)dtget(w, dt, (size_t)i);
			compare(g, dt, dtinfos[dt].isfloat ? (void *)f : (void *)w, WANT_REF, 2 * n, &t, 1, &r);
			for (int j = 0; j < r.nfirst; j++) {
				double gv = dtget(g, dt, (size_t)r.first[j].index), wv = dtget(w, dt, (size_t)r.first[j].index);
				same &= (isnan(gv) ? isnan(r.first[j].got) : gv == r.first[j].got) &&
				        (isnan(wv) ? isnan(r.first[j].want) : wv == r.first[j].want);
			}
			same &= r.nfirst == 5 && r.bad == bad;
			free(f);
		}
		if (!dtinfos[dt].isfloat) { /* within 1 of the next pattern but where the sign wraps (127 to -128, 255 to 0) */
			struct targ one = t;
			int64_t wrap = dt == DT_U8 ? 255 : dt == DT_I8 ? 127 : 32767;
			one.atol = 1;
			compare(g, dt, w, WANT_REF, 2 * n, &one, 1, &r);
			same &= r.bad == 2 && r.nfirst == 2 && r.first[0].index == wrap && r.first[1].index == wrap + n;
		}
		ok(same, "%s: all %d bit patterns decode as dtget does (%lld of %d wrong when shifted)",
		   dtinfos[dt].name, n, bad, 2 * n);
		free(g);
		free(w);
	}
}

/* the wide integers' block decode at an unaligned base, their extremes
 * among the values: each wrong element reads as dtget reads it */
static void
compareints(void)
{
	static const int dts[] = { DT_I32, DT_I64 };
	static const int64_t vals[] = { INT64_MIN, INT64_MAX, INT32_MIN, INT32_MAX, -1, 0, 1, 123456789 };
	enum { N = 5000 };

	for (size_t k = 0; k < sizeof dts / sizeof dts[0]; k++) {
		int dt = dts[k], size = dtinfos[dt].size, same = 1;
		unsigned char *gb = xmalloc((size_t)N * size + 1), *wb = xmalloc((size_t)N * size + 1);
		unsigned char *g = gb + 1, *w = wb + 1; /* not aligned to the element */
		struct targ t = out(dt);
		struct cmpres r;
		t.atol = t.rtol = t.rel_norm = 0;
		for (size_t i = 0; i < N; i++) {
			int64_t v = vals[i % 8];
			if (size == 4)
				v = (int32_t)v;
			memcpy(g + i * size, &v, (size_t)size);
			memcpy(w + i * size, &v, (size_t)size);
		}
		compare(g, dt, w, WANT_REF, N, &t, 1, &r);
		same &= r.bad == 0;
		for (size_t i = 0; i < N; i++) { /* the next value's bits: every element wrong */
			int64_t v = vals[(i + 1) % 8];
			if (size == 4)
				v = (int32_t)v;
			memcpy(w + i * size, &v, (size_t)size);
		}
		for (int want = WANT_REF; want <= WANT_DTYPE; want++) { /* the reference's values and the oracle's */
			compare(g, dt, w, want, N, &t, 1, &r);
			for (int j = 0; j < r.nfirst; j++)
				same &= dtget(g, dt, (size_t)r.first[j].index) == r.first[j].got &&
				        dtget(w, dt, (size_t)r.first[j].index) == r.first[j].want;
			same &= r.nfirst == 5 && r.bad > N / 2;
		}
		ok(same, "%s: extremes at an unaligned base decode as dtget does (%lld of %d wrong when shifted)",
		   dtinfos[dt].name, (long long)r.bad, N);
		free(gb);
		free(wb);
	}
}

/* i64 outputs wrong only past 2^53, where the two round to the same
 * double: wrong to compare (the reference's values and the oracle's,
 * the fused loop and the blocks) and to the device's rule */
static void
comparei64big(void)
{
	static const int64_t pairs[][2] = {
		{ (1ll << 53) + 1, 1ll << 53 }, { INT64_MAX, INT64_MAX - 1 }, { -(1ll << 53) - 1, -(1ll << 53) },
		{ (1ll << 62) + 3, (1ll << 62) + 2 }, { 1ll << 53, 1ll << 53 }, { INT64_MIN, INT64_MIN }, { 7, 7 },
	};
	enum { N = 7 * 1000, WRONG = 4 * 1000 };
	int64_t *g = xmalloc(N * sizeof *g), *w = xmalloc(N * sizeof *w);
	struct targ t = out(DT_I64);
	struct cmpres r;
	int good = 1;
	unsigned long long devbad = 0;

	t.atol = t.rtol = t.rel_norm = 0;
	for (int i = 0; i < N; i++) {
		g[i] = pairs[i % 7][0];
		w[i] = pairs[i % 7][1];
		devbad += (unsigned long long)rt_elembad(rt_loadgot(g, w, DT_I64, (size_t)i), rt_load(w, DT_I64, (size_t)i),
		                                         0, 0);
	}
	for (int want = WANT_REF; want <= WANT_DTYPE; want++) {
		compare(g, DT_I64, w, want, N, &t, 1, &r);
		good &= r.bad == WRONG && !r.pass && r.nfirst == 5 && r.first[0].index == 0;
	}
	ok(good && devbad == WRONG, "i64: %lld of %d wrong past 2^53 (the device's rule: %llu)", (long long)r.bad, N,
	   devbad);
	free(g);
	free(w);
}

/* the device's check says what compare says, every dtype */
static void
comparedevice(void)
{
	/* the device's check (rt_loadgot, rt_elembad and the sums, then
	 * comparefrom) says what compare says, every dtype, against the
	 * oracle: twice the tolerances, with the floor; NaN, Inf, wrong and
	 * borderline elements in */
	for (int dt = 0; dt < DT_COUNT; dt++) {
		enum { N = 50000 };
		int sz = dtinfos[dt].size, agree = 1, decoded = 1;
		unsigned char *g = xmalloc((size_t)N * sz), *w = xmalloc((size_t)N * sz);
		struct targ b = out(dt), tols;
		struct cmpres host, dev;
		for (int pass = 0; pass < 2; pass++) {
			uint64_t bad = 0;
			double num = 0, den = 0;
			for (size_t i = 0; i < N; i++) {
				double v = rt_value(7, i, DIST_NORMAL, 0, 1, dtinfos[dt].isfloat) * 10;
				dtset(w, dt, i, v);
				/* near the tolerance, either side; the second pass a few far off */
				dtset(g, dt, i, pass && i % 9973 == 5 ? -v - 100
				      : v * (1 + (i % 50 ? 0 : (double)(int)(i % 150 / 50 - 1) * 1.8 * b.rtol)));
			}
			comparetols(w, dt, WANT_DTYPE, N, &b, ORACLE_SCALE, &tols);
			for (size_t i = 0; i < N; i++) {
				double gv = rt_loadgot(g, w, dt, i), wv = rt_load(w, dt, i);
				decoded &= (isnan(gv) && isnan(dtget(g, dt, i))) || gv == dtget(g, dt, i);
				if (isfinite(gv) && isfinite(wv)) {
					num += (gv - wv) * (gv - wv);
					den += wv * wv;
				}
				bad += (uint64_t)rt_elembad(gv, wv, tols.atol, tols.rtol);
			}
			comparefrom(N, &(struct cmpsums){ bad, num, den }, &tols, &dev);
			compare(g, dt, w, WANT_DTYPE, N, &b, ORACLE_SCALE, &host);
			/* the second pass must fail (the test is not vacuous) */
			agree &= dev.pass == host.pass && dev.bad == host.bad && (!pass || !host.pass) &&
			         fabs(dev.relnorm - host.relnorm) <= 1e-12 * (1 + host.relnorm);
		}
		ok(agree && decoded, "%s: the device's check says what compare says (rt_loadgot decodes as dtget)",
		   dtinfos[dt].name);
		free(g);
		free(w);
	}
}

/* a flat index as coordinates */
static void
coordstext(void)
{
	char s[64];
	int64_t dims[3] = { 4, 5, 6 };
	coords(5 * 6 * 2 + 6 * 3 + 4, dims, 3, s, sizeof s);
	is_str(s, "[2, 3, 4]", "flat index to coordinates");
}

int
main(void)
{
	setprogname("t-tensor");
	encodings();
	f16roundtrip();
	roundnearest();
	intstores();
	fillrange();
	fillrandint();
	filldists();
	fillfast();
	fillaffine();
	fillpar();
	fillgolden();
	drawmath();
	outputhash();
	runs();
	seeds();
	comparebasics();
	comparef16();
	compareoracle();
	comparethreaded();
	comparerelnorm();
	comparetables();
	compareints();
	comparei64big();
	comparedevice();
	coordstext();
	return done_testing();
}
