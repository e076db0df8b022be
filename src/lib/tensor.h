/*
 * tensor.h - dtypes, conversions, and the deterministic input generator
 * that the CPU reference and the harness share (they must agree bit for
 * bit; the generator itself is draw.h, written once for the CPU and the
 * GPU). Plain C, libc, libm and threads only (no util.c: it is copied
 * beside the reference's runner, and linked into the trusted programs
 * that run on bare GPU hosts).
 */
#ifndef RETORT_TENSOR_H
#define RETORT_TENSOR_H

#include <stddef.h>
#include <stdint.h>

#include "dtype.h"


struct dtinfo {
	const char *name;     /* as specs write it */
	const char *ctype;    /* in the entry point's signature */
	const char *header;   /* the header that declares ctype, or NULL */
	const char *reftype;  /* in the CPU reference's signature */
	int size;             /* bytes per element */
	int isfloat;
	double rel_norm, rtol, atol; /* default tolerances for outputs */
	double lo, hi;        /* default randint range [lo, hi) */
};

extern const struct dtinfo dtinfos[DT_COUNT];

/* the dtype named name, or -1 */
int dtypefind(const char *name);
/* every dtype's name, in the table's order: "f64, f32, ..." */
const char *dtypenames(void);
/* the tolerances' names as specs and task.json write them, in dtinfo's
 * order (rel_norm, rtol, atol), then NULL */
extern const char *const tolnames[4];
/* the default tolerance name (of tolnames) for an output of dtype d: the
 * one place a default applies; -1 for another name */
double deftol(const struct dtinfo *d, const char *name);

/* element i of buf (of dtype dt) as a double */
double dtget(const void *buf, int dt, size_t i);
/* store v into element i, rounding to nearest even (saturating for ints) */
void dtset(void *buf, int dt, size_t i, double v);
/* the bytes of the reference type of dt (float, double or the integer) */
int refsize(int dt);
/* widen n elements of dtype dt into the reference type */
void toref(const void *src, int dt, void *dst, size_t n);

/* IEEE half, bfloat16 and the two fp8 formats */
float f16tof(uint16_t h);
/* every f16's value, by its bits (the table f16tof reads) */
const float *f16values(void);
uint16_t ftof16(float f);
float bf16tof(uint16_t h);
uint16_t ftobf16(float f);
float f8tof(uint8_t v, int e5m2);
uint8_t ftof8(float f, int e5m2);

extern const char *const distnames[DIST_COUNT];
int distfind(const char *name);

/*
 * Fill n elements of dtype dt from seed as d says: normal (mean 0, sd 1),
 * uniform in [lo, hi), heavy (Student-t, 2 degrees of freedom, clipped to
 * +-1e4), randint in [lo, hi), ties (16 values evenly over [lo, hi)); each value
 * times d->scale plus d->off. With special, about 1% of the elements
 * become NaN, +Inf or -Inf (floating dtypes only). The values are
 * draw.h's: the same bits as the harness draws on the device.
 */
void tensorfill(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed);
/* the same values, drawn on all CPUs */
void tensorfillpar(void *buf, int dt, size_t n, const struct rt_dist *d, uint64_t seed);
/* the same values on all CPUs, widened into the reference type (toref) as
 * they are drawn: ref holds n elements of refsize(dt) bytes */
void tensorfillref(void *ref, int dt, size_t n, const struct rt_dist *d, uint64_t seed);
/* n elements of dt's reference type as an output is before the reference
 * writes it: NaN (integers: 0), so that one it never writes shows; on all CPUs */
void tensorunwritten(void *ref, int dt, size_t n);

#endif
