/*
 * task.h - what verify and bench need from a task variant: its arguments
 * and size cases from task.json, the secret from which input seeds are
 * derived, and the comparison of outputs with expected values (inputs are
 * drawn by run.c's makeinputs and tensor.c).
 */
#ifndef RETORT_TASK_H
#define RETORT_TASK_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

enum { ARG_IN, ARG_OUT, ARG_INOUT, ARG_SIZE, ARG_SCALAR };
enum { MAXARGS = 32, MAXDIMS = 8 };

struct targ {
	char name[64];
	int kind;
	int dt;                      /* tensor.h dtype */
	int ndists, dists[4], special;
	double rel_norm, rtol, atol; /* outputs: tolerances */
};

struct tcase {
	int nsizes, nscalars;
	int64_t sizes[MAXARGS];      /* size args, in order */
	double scalars[MAXARGS];     /* scalar args, in order */
	int64_t numel[MAXARGS];      /* per arg; 0 for sizes and scalars */
	int64_t dims[MAXARGS][MAXDIMS];
	int ndims[MAXARGS];
	double lo[MAXARGS], hi[MAXARGS];
	double flops, bytes;
	char label[256];             /* "rows=37, cols=4096" */
};

struct task {
	json_t *json;
	const char *id, *entry;
	int nargs;
	struct targ args[MAXARGS];
	int nverify, nbench;
	struct tcase *verify, *bench;
};

int taskload(const char *path, struct task *t, char *err, size_t errlen);
void taskfree(struct task *t);
/* a case from its task.json object (used for examples too) */
int caseload(const struct task *t, json_t *c, struct tcase *out, char *err, size_t errlen);

static inline int
istensor(const struct targ *a)
{
	return a->kind == ARG_IN || a->kind == ARG_OUT || a->kind == ARG_INOUT;
}

/* bytes of tensor i in case c, in its dtype */
size_t tbytes(const struct task *t, const struct tcase *c, int i);

/*
 * The per-cache secret (CACHE/secret: 32 random bytes, made once) and the
 * seeds derived from it: sha256(secret, variant, what, case, run, arg).
 */
int secretload(const char *cachedir, unsigned char key[32], char *err, size_t errlen);
uint64_t deriveseed(const unsigned char key[32], const char *variant, const char *what, int c,
                    int run, int arg);

/* how one input tensor of one run is drawn */
struct draw {
	int dist, special;
	double lo, hi;
	uint64_t seed;
};

/*
 * Comparing one output with expected values (in the reference type):
 * NaN and Inf must match exactly; every other element must be within
 * atol + rtol * |want|; the relative L2 error over finite elements within
 * rel_norm. An element still holding the poison (NaN) where a finite
 * value is expected counts as unwritten.
 */
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

void compare(const void *got, int dt, const void *want, int64_t n, const struct targ *a,
             struct cmpres *r);
/* the relative L2 test compare() applies, to num = sum (got - want)^2 and
 * den = sum want^2 over the finite pairs (den 0: sqrt(num) within atol + rel_norm) */
int normok(double num, double den, const struct targ *a);
/* one element against its reference value: the test compare() applies */
int elemok(double got, double want, int dt, const struct targ *a);
/* element i of a reference output (floating types narrower than f64 are
 * stored as float there; the rest as their dtype) */
double refvalue(const void *buf, int dt, size_t i);
/* "[3, 17]" for a flat index into dims */
void coords(int64_t index, const int64_t *dims, int ndims, char *out, size_t cap);

#endif
