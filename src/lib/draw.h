/*
 * draw.h - the input generator, the dtype encoders and decoders and the
 * output check's element rule, as one piece of code for the CPU and the
 * GPU: the CPU reference (refrun.c, through tensor.c) and the harness on
 * the device (device.cu) must draw the same inputs bit for bit. So it
 * uses only integer arithmetic and correctly rounded IEEE double
 * operations, never a fused multiply-add (save bench's fast draws,
 * rt_fastvalue, which nothing draws again elsewhere). Element i of a
 * tensor drawn from seed s depends on (s, i) alone, and the output hash
 * is the same whatever order its words are added in. doc/verification.md (The draw)
 * says how.
 */
#ifndef RETORT_DRAW_H
#define RETORT_DRAW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "dtype.h"

#ifdef __CUDACC__
#define RT_HD __host__ __device__ static inline
#else
#define RT_HD static inline
#include <math.h>
#endif


/* ---- correctly rounded double arithmetic, never fused ---- */

#if defined(__CUDA_ARCH__)
RT_HD double rt_add(double a, double b) { return __dadd_rn(a, b); }
RT_HD double rt_sub(double a, double b) { return __dsub_rn(a, b); }
RT_HD double rt_mul(double a, double b) { return __dmul_rn(a, b); }
RT_HD double rt_div(double a, double b) { return __ddiv_rn(a, b); }
RT_HD double rt_sqrt(double a) { return __dsqrt_rn(a); }
#else
RT_HD double rt_add(double a, double b) { return a + b; }
RT_HD double rt_sub(double a, double b) { return a - b; }
RT_HD double rt_mul(double a, double b) { return a * b; }
RT_HD double rt_div(double a, double b) { return a / b; }
RT_HD double rt_sqrt(double a) { return sqrt(a); }
#endif

RT_HD uint64_t
rt_bits(double v)
{
	uint64_t b;

	memcpy(&b, &v, sizeof b);
	return b;
}

RT_HD double
rt_frombits(uint64_t b)
{
	double v;

	memcpy(&v, &b, sizeof v);
	return v;
}

/* log(x) for a finite normal x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)),
 * log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172 (to 1e-19) */
RT_HD double
rt_log(double x)
{
	uint64_t b = rt_bits(x);
	int e = (int)((b >> 52) & 0x7ff) - 1023;
	double m = rt_frombits((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull), s, s2, p;
	int big = m > 1.4142135623730951;

	m = big ? rt_mul(m, 0.5) : m; /* selects, not branches: a CPU's vector lanes take them (tensor.c) */
	e += big;
	s = rt_div(rt_sub(m, 1.0), rt_add(m, 1.0));
	s2 = rt_mul(s, s);
	p = 0.047619047619047616;                       /* 1/21 */
	p = rt_add(0.052631578947368418, rt_mul(s2, p)); /* 1/19 */
	p = rt_add(0.058823529411764705, rt_mul(s2, p)); /* 1/17 */
	p = rt_add(0.066666666666666666, rt_mul(s2, p)); /* 1/15 */
	p = rt_add(0.076923076923076927, rt_mul(s2, p)); /* 1/13 */
	p = rt_add(0.090909090909090912, rt_mul(s2, p)); /* 1/11 */
	p = rt_add(0.1111111111111111, rt_mul(s2, p));   /* 1/9 */
	p = rt_add(0.14285714285714285, rt_mul(s2, p));  /* 1/7 */
	p = rt_add(0.20000000000000001, rt_mul(s2, p));  /* 1/5 */
	p = rt_add(0.33333333333333331, rt_mul(s2, p));  /* 1/3 */
	/* 2s + 2s s^2 p + e ln 2 (ln 2 split in two for the sum's accuracy) */
	return rt_add(rt_mul((double)e, 0.69314718036912382),
	              rt_add(rt_mul((double)e, 1.9082149292705877e-10),
	                     rt_add(rt_mul(2.0, s), rt_mul(rt_mul(2.0, s), rt_mul(s2, p)))));
}

/* cos(r) and sin(r) for |r| <= pi/4, Taylor series to 1e-17 */
RT_HD double
rt_cosseries(double r)
{
	double r2 = rt_mul(r, r), p = -1.1470745597729725e-11; /* -1/14! */

	p = rt_add(2.08767569878681e-09, rt_mul(r2, p));      /* 1/12! */
	p = rt_add(-2.7557319223985888e-07, rt_mul(r2, p));   /* -1/10! */
	p = rt_add(2.4801587301587302e-05, rt_mul(r2, p));    /* 1/8! */
	p = rt_add(-0.0013888888888888889, rt_mul(r2, p));    /* -1/6! */
	p = rt_add(0.041666666666666664, rt_mul(r2, p));      /* 1/4! */
	p = rt_add(-0.5, rt_mul(r2, p));
	return rt_add(1.0, rt_mul(r2, p));
}

RT_HD double
rt_sinseries(double r)
{
	double r2 = rt_mul(r, r), p = 7.6471637318198164e-13; /* 1/15! */

	p = rt_add(-1.6059043836821613e-10, rt_mul(r2, p));   /* -1/13! */
	p = rt_add(2.505210838544172e-08, rt_mul(r2, p));     /* 1/11! */
	p = rt_add(-2.7557319223985893e-06, rt_mul(r2, p));   /* -1/9! */
	p = rt_add(0.00019841269841269841, rt_mul(r2, p));    /* 1/7! */
	p = rt_add(-0.0083333333333333332, rt_mul(r2, p));    /* -1/5! */
	p = rt_add(0.16666666666666666, rt_mul(r2, p));       /* 1/3! */
	return rt_sub(r, rt_mul(rt_mul(r, r2), p));
}

/* cos(2 pi v) for v in [0, 1) */
RT_HD double
rt_cos2pi(double v)
{
	const double twopi = 6.2831853071795862;
	double x = v > 0.5 ? rt_sub(1.0, v) : v; /* cos is even: x in [0, 0.5] */
	int neg = x > 0.25;                        /* cos(2 pi x) = -cos(2 pi (0.5 - x)) */
	double c, s;

	x = neg ? rt_sub(0.5, x) : x;
	/* both series, then a select (as in rt_log) */
	c = rt_cosseries(rt_mul(twopi, x));
	s = rt_sinseries(rt_mul(twopi, rt_sub(0.25, x)));
	return rt_mul(neg ? -1.0 : 1.0, x <= 0.125 ? c : s);
}

/* ---- the generator ---- */

RT_HD uint64_t
rt_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* the k-th (0..3) 64-bit word of element i of stream seed */
RT_HD uint64_t
rt_word(uint64_t seed, uint64_t i, unsigned k)
{
	return rt_mix(seed + (4 * i + k + 1) * 0x9e3779b97f4a7c15ull);
}

/* a word as a double in [0, 1) */
RT_HD double
rt_unit(uint64_t w)
{
	return rt_mul((double)(w >> 11), 1.1102230246251565e-16); /* 2^-53 */
}

/* a standard normal from words 0 and 1 (Box-Muller; 1 - u keeps the log finite) */
RT_HD double
rt_normal(uint64_t seed, uint64_t i)
{
	double u = rt_unit(rt_word(seed, i, 0)), v = rt_unit(rt_word(seed, i, 1));

	return rt_mul(rt_sqrt(rt_mul(-2.0, rt_log(rt_sub(1.0, u)))), rt_cos2pi(v));
}

/* v, or with special about 1% of the elements NaN, +Inf or -Inf (word 3) */
RT_HD double
rt_special(uint64_t seed, uint64_t i, double v)
{
	uint64_t w = rt_word(seed, i, 3);

	if (rt_unit(w) < 0.01) {
		unsigned which = (unsigned)(((w & 0x7ff) * 3) >> 11);
		v = which == 0 ? rt_frombits(0x7ff8000000000000ull)
		  : which == 1 ? rt_frombits(0x7ff0000000000000ull) : rt_frombits(0xfff0000000000000ull);
	}
	return v;
}

/*
 * The value of element i: normal (mean 0, sd 1), uniform in [lo, hi),
 * heavy (Student-t with 2 degrees of freedom, clipped to +-1e4), randint
 * in [lo, hi), ties (one of 16 values evenly over [lo, hi): lo, lo + (hi -
 * lo) / 16, ...). With special, about 1% become NaN, +Inf or -Inf (the
 * caller passes special only for floating dtypes).
 */
RT_HD double
rt_value(uint64_t seed, uint64_t i, int dist, double lo, double hi, int special)
{
	double v;

	switch (dist) {
	case DIST_UNIFORM:
		v = rt_add(lo, rt_mul(rt_unit(rt_word(seed, i, 0)), rt_sub(hi, lo)));
		break;
	case DIST_HEAVY:
		v = rt_div(rt_normal(seed, i), rt_sqrt(-rt_log(rt_sub(1.0, rt_unit(rt_word(seed, i, 2))))));
		v = v > 1e4 ? 1e4 : v < -1e4 ? -1e4 : v;
		break;
	case DIST_RANDINT:
		v = floor(rt_add(lo, rt_mul(rt_unit(rt_word(seed, i, 0)), rt_sub(hi, lo))));
		if (v >= hi)
			v = rt_sub(hi, 1.0);
		break;
	case DIST_TIES: /* 16 values evenly over [lo, hi): equal ones are common */
		v = rt_add(lo, rt_mul(rt_sub(hi, lo), rt_mul(floor(rt_mul(rt_unit(rt_word(seed, i, 0)), 16.0)), 0.0625)));
		break;
	default:
		v = rt_normal(seed, i);
		break;
	}
	return special ? rt_special(seed, i, v) : v;
}

/* ---- fast draws: bench's, to float precision ---- */

/* a float in (0, 1) from a word's top 23 bits: (k + 1/2) 2^-23, exact */
RT_HD float
rt_fastunit(uint64_t w)
{
	return ((float)(w >> 41) + 0.5f) * 1.1920929e-7f;
}

/* the GPU's approximate log and cosine (the C library's on the CPU) */
#if defined(__CUDA_ARCH__)
#define RT_FASTLOGF __logf
#define RT_FASTCOSF __cosf
#else
#define RT_FASTLOGF logf
#define RT_FASTCOSF cosf
#endif

/* ln u for u in (0, 1), at most -2^-24 (an approximate log's error near
 * u = 1 could make it 0, or more) */
RT_HD float
rt_fastlog(float u)
{
	return fminf(RT_FASTLOGF(u), -5.9604645e-8f);
}

/* a standard normal from word 0, to float precision: Box-Muller on its
 * top 23 bits and its low 24 (|v| below 5.8), in single precision with
 * the approximate log and cosine (on an H100, 2^28 f32 values in 0.95 ms
 * against rt_normal's 2.83: bench/RESULTS.md) */
RT_HD float
rt_fastnormal(uint64_t seed, uint64_t i)
{
	uint64_t w = rt_word(seed, i, 0);
	float u = rt_fastunit(w), a = (float)(w & 0xffffff) * 3.7450703e-7f - 3.1415927f; /* 2 pi 2^-24 */

	return sqrtf(-2.0f * rt_fastlog(u)) * RT_FASTCOSF(a);
}

/* whether d draws dtype dt fast: not f64, whose fast values' low 29 bits
 * would be zero (bench's calls told from verify's by one element, and a
 * kernel whose cost follows its inputs' precision timed on easy ones) */
RT_HD int
rt_fastdraw(struct rt_dist d, int dt)
{
	return d.fast && dt != DT_F64;
}

/*
 * rt_value's distributions, the normal and the heavy one drawn to float
 * precision (rt_fastnormal; the others are cheap already, and exact).
 * Only bench draws these (rt_fastdraw says for which dtypes): its
 * inputs are drawn and checked on one device, never again on the CPU, so
 * they need not match another machine's bit for bit.
 */
RT_HD double
rt_fastvalue(uint64_t seed, uint64_t i, int dist, double lo, double hi, int special)
{
	float z;
	double v;

	if (dist == DIST_UNIFORM || dist == DIST_RANDINT || dist == DIST_TIES)
		return rt_value(seed, i, dist, lo, hi, special);
	z = rt_fastnormal(seed, i);
	if (dist == DIST_HEAVY) { /* |z| below 5.8 / 2^-12 before the clip */
		z = z / sqrtf(-rt_fastlog(rt_fastunit(rt_word(seed, i, 2))));
		z = z > 1e4f ? 1e4f : z < -1e4f ? -1e4f : z;
	}
	v = z;
	return special ? rt_special(seed, i, v) : v;
}

/* ---- small floats: one encoder and decoder for f16, bf16 and fp8 ---- */

struct rt_fmt {
	int ebits, mbits;
	int hasinf;  /* IEEE-like: the top exponent is Inf/NaN; else only all-ones is NaN */
};

RT_HD struct rt_fmt
rt_fmtof(int dt)
{
	struct rt_fmt f16 = { 5, 10, 1 }, bf16 = { 8, 7, 1 }, e4m3 = { 4, 3, 0 }, e5m2 = { 5, 2, 1 };

	return dt == DT_F16 ? f16 : dt == DT_BF16 ? bf16 : dt == DT_F8E4M3 ? e4m3 : e5m2;
}

RT_HD double
rt_smalldec(unsigned bits, struct rt_fmt f)
{
	unsigned sign = bits >> (f.ebits + f.mbits) & 1;
	unsigned e = bits >> f.mbits & ((1u << f.ebits) - 1);
	unsigned m = bits & ((1u << f.mbits) - 1);
	unsigned emax = (1u << f.ebits) - 1;
	int bias = (1 << (f.ebits - 1)) - 1;
	double v;

	if (f.hasinf && e == emax)
		v = m ? rt_frombits(0x7ff8000000000000ull) : rt_frombits(0x7ff0000000000000ull);
	else if (!f.hasinf && e == emax && m == (1u << f.mbits) - 1)
		v = rt_frombits(0x7ff8000000000000ull);
	else if (e == 0)
		v = ldexp((double)m, 1 - bias - f.mbits);
	else
		v = ldexp(rt_add(1.0, rt_div((double)m, (double)(1u << f.mbits))), (int)e - bias);
	return sign ? -v : v;
}

/* round to nearest even; finite values past the largest: Inf where the
 * format has it (as __float2half_rn), else the largest (e4m3 saturates) */
RT_HD unsigned
rt_smallenc(double v, struct rt_fmt f)
{
	uint64_t b = rt_bits(v);
	unsigned sign = (unsigned)(b >> 63), e, q;
	unsigned emax = (1u << f.ebits) - 1;
	unsigned mmax = (1u << f.mbits) - 1;
	unsigned topexp = f.hasinf ? emax - 1 : emax;           /* largest finite exponent */
	unsigned topman = f.hasinf ? mmax : mmax - 1;            /* and mantissa */
	int bias = (1 << (f.ebits - 1)) - 1, ex;
	double a = rt_frombits(b & ~(1ull << 63)), m;

	if ((b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0x000fffffffffffffull))
		return (emax << f.mbits) | mmax; /* a quiet NaN (all ones) */
	sign <<= f.ebits + f.mbits;
	if ((b & ~(1ull << 63)) == 0x7ff0000000000000ull) /* Inf */
		return f.hasinf ? sign | (emax << f.mbits) : sign | (emax << f.mbits) | mmax;
	if (a == 0)
		return sign;
	ex = ilogb(a);
	if (ex < 1 - bias) { /* subnormal */
		q = (unsigned)nearbyint(ldexp(a, bias - 1 + f.mbits));
		return sign | q; /* q == mmax + 1 rolls into the smallest normal */
	}
	m = rt_sub(ldexp(a, -ex), 1.0);
	q = (unsigned)nearbyint(ldexp(m, f.mbits));
	if (q > mmax) {
		q = 0;
		ex++;
	}
	e = (unsigned)(ex + bias);
	if (e > topexp || (e == topexp && q > topman)) /* past the range: round to nearest */
		return f.hasinf ? sign | (emax << f.mbits) : sign | (topexp << f.mbits) | topman;
	return sign | (e << f.mbits) | q;
}

/*
 * The same rounding for f16 and bf16 on the hot paths: a value whose
 * result is normal is rounded on its double bits (add half an ulp minus
 * one, plus the kept lowest bit: ties go to even; a carry moves into the
 * exponent, and past the top that is Inf); the rest takes rt_smallenc.
 */
RT_HD unsigned
rt_ieeeenc(double v, struct rt_fmt f)
{
	int bias = (1 << (f.ebits - 1)) - 1, shift = 52 - f.mbits, e;
	unsigned emax = (1u << f.ebits) - 1, r;
	uint64_t b = rt_bits(v), a;

	a = b & ~(1ull << 63);
	e = (int)(a >> 52) - 1023;
	if (e < 1 - bias || e > bias) /* zero, subnormal, past the range, Inf, NaN */
		return rt_smallenc(v, f);
	a += (1ull << (shift - 1)) - 1 + (a >> shift & 1);
	r = (unsigned)((a >> shift) - ((uint64_t)(1023 - bias) << f.mbits));
	if (r >> f.mbits >= emax)
		r = emax << f.mbits;
	return (unsigned)(b >> 63) << (f.ebits + f.mbits) | r;
}

RT_HD double
rt_clampround(double v, double lo, double hi)
{
	v = nearbyint(v);
	return v < lo ? lo : v > hi ? hi : v;
}

/* store v into element i of buf, of dtype dt, rounding to nearest even
 * (integers saturate) */
RT_HD void
rt_store(void *buf, int dt, size_t i, double v)
{
	char *p = (char *)buf;

	switch (dt) {
	case DT_F64: ((double *)p)[i] = v; break;
	case DT_F32: ((float *)p)[i] = (float)v; break;
	case DT_F16: ((uint16_t *)p)[i] = (uint16_t)rt_ieeeenc(v, rt_fmtof(DT_F16)); break;
	case DT_BF16: ((uint16_t *)p)[i] = (uint16_t)rt_ieeeenc(v, rt_fmtof(DT_BF16)); break;
	case DT_F8E4M3: ((uint8_t *)p)[i] = (uint8_t)rt_smallenc(v, rt_fmtof(DT_F8E4M3)); break;
	case DT_F8E5M2: ((uint8_t *)p)[i] = (uint8_t)rt_smallenc(v, rt_fmtof(DT_F8E5M2)); break;
	case DT_I8: ((int8_t *)p)[i] = (int8_t)rt_clampround(v, -128, 127); break;
	case DT_U8: ((uint8_t *)p)[i] = (uint8_t)rt_clampround(v, 0, 255); break;
	case DT_I16: ((int16_t *)p)[i] = (int16_t)rt_clampround(v, -32768, 32767); break;
	case DT_I32: ((int32_t *)p)[i] = (int32_t)rt_clampround(v, -2147483648.0, 2147483647.0); break;
	case DT_I64: ((int64_t *)p)[i] = (int64_t)rt_clampround(v, -9.2e18, 9.2e18); break;
	}
}

/* element i of a tensor drawn as d says (fast: rt_fastvalue; scaled,
 * then offset, where d asks: two correctly rounded operations, no fused
 * multiply-add), stored */
RT_HD void
rt_draw(void *buf, int dt, size_t i, uint64_t seed, struct rt_dist d)
{
	double v = rt_fastdraw(d, dt) ? rt_fastvalue(seed, i, d.dist, d.lo, d.hi, d.special)
	                              : rt_value(seed, i, d.dist, d.lo, d.hi, d.special);

	if (d.scale != 1.0 || d.off != 0.0)
		v = rt_add(d.off, rt_mul(d.scale, v));
	rt_store(buf, dt, i, v);
}

/* element i of buf, of dtype dt, as a double (exact: every dtype's values are doubles) */
RT_HD double
rt_load(const void *buf, int dt, size_t i)
{
	const char *p = (const char *)buf;

	switch (dt) {
	case DT_F64: return ((const double *)p)[i];
	case DT_F32: return ((const float *)p)[i];
	case DT_F16: return rt_smalldec(((const uint16_t *)p)[i], rt_fmtof(DT_F16));
	case DT_BF16: return rt_smalldec(((const uint16_t *)p)[i], rt_fmtof(DT_BF16));
	case DT_F8E4M3: return rt_smalldec(((const uint8_t *)p)[i], rt_fmtof(DT_F8E4M3));
	case DT_F8E5M2: return rt_smalldec(((const uint8_t *)p)[i], rt_fmtof(DT_F8E5M2));
	case DT_I8: return ((const int8_t *)p)[i];
	case DT_U8: return ((const uint8_t *)p)[i];
	case DT_I16: return ((const int16_t *)p)[i];
	case DT_I32: return ((const int32_t *)p)[i];
	case DT_I64: return (double)((const int64_t *)p)[i];
	}
	return rt_frombits(0x7ff8000000000000ull);
}

/* ---- the output check's rule for one element (compare.c, and the device's compare) ---- */

/* an i64 output's element g as the rule reads it against want's w: as a
 * double, except where the two differ but round to the same double (past
 * 2^53): then one step of w's double toward g, so that the rule sees them
 * differ */
RT_HD double
rt_i64got(int64_t g, int64_t w)
{
	double gd = (double)g;

	return g != w && gd == (double)w ? nextafter(gd, g > w ? HUGE_VAL : -HUGE_VAL) : gd;
}

/* element i of an i64 buffer, its own bits (unaligned: outputs of
 * several dtypes share a buffer) */
RT_HD int64_t
rt_i64at(const void *buf, size_t i)
{
	int64_t v;

	memcpy(&v, (const unsigned char *)buf + i * sizeof v, sizeof v);
	return v;
}

/* element i of got, of dtype dt, as the rule reads it against want */
RT_HD double
rt_loadgot(const void *got, const void *want, int dt, size_t i)
{
	if (dt == DT_I64)
		return rt_i64got(rt_i64at(got, i), rt_i64at(want, i));
	return rt_load(got, dt, i);
}

/* what the rule counts over many elements (compare.h's comparefrom reads
 * it; the device's compare fills it): the wrong elements, and over the
 * finite pairs the sums of (got - want)^2 and want^2 */
struct cmpsums {
	unsigned long long bad;
	double num, den;
};

/* 1 when got g is wrong for want w: NaN and Inf must match exactly, every
 * other value be within atol + rtol |w| */
RT_HD int
rt_elembad(double g, double w, double atol, double rtol)
{
	if (isfinite(w) && isfinite(g))
		return !(fabs(rt_sub(g, w)) <= rt_add(atol, rt_mul(rtol, fabs(w))));
	return isnan(w) ? !isnan(g) : g != w;
}

/* ---- the output hash ---- */

/* word i's share of the hash (a tail shorter than 8 bytes is zero-padded) */
RT_HD uint64_t
rt_hashword(uint64_t i, uint64_t w)
{
	return rt_mix(w ^ rt_mix(i + 0x9e3779b97f4a7c15ull));
}

/* the share of n bytes that are words first, first + 1, ... of a tensor
 * (salt: which tensor); a part of a tensor hashes on its own thread */
RT_HD uint64_t
rt_hashpart(const void *p, size_t n, uint64_t salt, uint64_t first)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0, w;
	size_t i;

	for (i = 0; 8 * i + 8 <= n; i++) {
		memcpy(&w, b + 8 * i, 8);
		h += rt_hashword((salt << 40) + first + i, w);
	}
	if (8 * i < n) {
		w = 0;
		for (size_t k = 0; 8 * i + k < n; k++)
			w |= (uint64_t)b[8 * i + k] << (8 * k);
		h += rt_hashword((salt << 40) + first + i, w);
	}
	return h;
}

/* the hash of n bytes, word indexes offset by salt << 40 (the device's, on one CPU thread) */
RT_HD uint64_t
rt_hash(const void *p, size_t n, uint64_t salt)
{
	return rt_hashpart(p, n, salt, 0);
}

#endif
