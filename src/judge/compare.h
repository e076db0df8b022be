/*
 * compare.h - is an output right? One output against its expected values
 * (from the CPU reference, in the reference's types, or from the GPU
 * oracle, in the output's own dtype), every element, on all CPUs. The
 * rule for one element is draw.h's rt_elembad, which the device's compare
 * applies too: NaN and Inf exactly, every other element within atol +
 * rtol * |want|, atol at least rtol times a tenth of the expected values'
 * RMS; the relative L2 error over finite elements within rel_norm.
 * Against the GPU oracle the tolerances are doubled. doc/verification.md
 * (The output check) says why.
 */
#ifndef RETORT_COMPARE_H
#define RETORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/task.h"

struct mismatch {
	int64_t index;
	double got, want;
};

struct cmpres {
	int64_t n, bad, unwritten, nonfinite;
	double maxabs, maxrel, relnorm;
	int nfirst;
	struct mismatch first[5];
	int pass;
};

/* how the expected values are stored: the reference's type (float for
 * floating dtypes narrower than f64), or the output's dtype */
enum { WANT_REF, WANT_DTYPE };
/* outputs checked against the GPU oracle (the spec's baseline, whose float
 * sums are no double reference): twice the tolerances */
enum { ORACLE_SCALE = 2 };

/* got (dtype dt) against want; scale multiplies the tolerances */
void compare(const void *got, int dt, const void *want, int wantas, int64_t n, const struct targ *a,
             double scale, struct cmpres *r);
/* the tolerances compare applies (a's scaled, atol's floor) into out */
void comparetols(const void *want, int dt, int wantas, int64_t n, const struct targ *a, double scale,
                 struct targ *out);
/* the same from the elements of want that atol's floor reads (every
 * comparestep(n)-th from the first, as the device can gather them: proto.h
 * hsample), count of them in sample */
int64_t comparestep(int64_t n);
void comparetolssampled(const void *sample, int dt, int wantas, int64_t count, const struct targ *a, double scale,
                        struct targ *out);
/* a check made elsewhere (on the device: proto.h's hcompare), from its
 * count of wrong elements and its sums of squares over the finite pairs
 * ((got - want)^2 and want^2), judged against tols (comparetols'): what
 * compare would say but the details (maxima, the first mismatches) */
struct cmpsums; /* draw.h's */
void comparefrom(int64_t n, const struct cmpsums *s, const struct targ *tols, struct cmpres *r);
/* element i of a reference output (floating types narrower than f64 are
 * stored as float there; the rest as their dtype) */
double refvalue(const void *buf, int dt, size_t i);
/* "[3, 17]" for a flat index into dims */
void coords(int64_t index, const int64_t *dims, int ndims, char *out, size_t cap);

#endif
