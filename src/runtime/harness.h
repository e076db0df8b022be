/*
 * harness.h - the harness protocol's loop (harness.c), for the two
 * programs that run it: the per-variant harness (its main() in prepare's
 * generated call.c, with callentry) and src/runtime/pyharness.py (which
 * loads the runtime as py/harness.so and passes a Python function).
 */
#ifndef RETORT_HARNESS_H
#define RETORT_HARNESS_H

#include <stdint.h>

/* fn (the entry point dlsym found) called with the tensors in argument
 * order, the size arguments and the scalars */
typedef void (*harnesscall)(void *fn, void **ptrs, const int64_t *sizes, const double *scalars);
void callentry(void *fn, void **ptrs, const int64_t *sizes, const double *scalars);

/* what the caller could not load, said in the first reply */
enum { HLOADED, HLOADERROR, HNOENTRY };

/* argv as harness.c's usage; after: NULL, or run after each call's
 * closing event, before its checks; failure, why: HLOADED, or what the
 * first reply says instead of ready. Returns the process's exit status */
int harnessmain(int argc, char **argv, harnesscall fn, void (*after)(void), int failure, const char *why);

/* a rule the caller's own guard caught during the call (pyharness.py's:
 * streams, host_compute): the call's reply is "violation RULE DETAIL" */
void harnessrefuse(const char *rule, const char *detail);
/* the CUDA context on DEVICE now, before harnessmain (which then finds it
 * made): a gated harness's answer to "ctx", pyharness.py's at its gate.
 * dv_init's result */
int harnessctx(int device);

#endif
