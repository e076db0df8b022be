/*
 * refrun.h - one case as the reference runner (refrun.c) hands it to the
 * reference's call: the generated call.c for a C reference, pycall.c (the
 * pipe to src/runtime/pyref.py) for a Python one.
 */
#ifndef RETORT_REFRUN_H
#define RETORT_REFRUN_H

#include <stdint.h>

enum { REF_MAXT = 1024, REF_MAXS = 32, REF_MAXDIMS = 8 }; /* task.h: MAXARGS, MAXSIZEARGS */

struct refcase {
	int nt, ns, nc;
	int kind[REF_MAXT];                  /* 0 in, 1 out, 2 inout */
	int dt[REF_MAXT];                    /* tensor.h dtypes */
	long long numel[REF_MAXT];
	int ndims[REF_MAXT];
	int64_t dims[REF_MAXT][REF_MAXDIMS];
	void *ptrs[REF_MAXT];                /* in the reference types */
	int64_t sizes[REF_MAXS];
	double scalars[REF_MAXS];
};

/* compute the case's outputs into its out and inout tensors */
void callreference(const struct refcase *c);
/* after the last case: 0, or -1 when the reference failed (said on stderr) */
int referencedone(void);
/* 1: each case may run in a forked child, beside others (a C reference);
 * 0: every case in the runner's own process (a Python one's interpreter) */
int referenceforks(void);

#endif
