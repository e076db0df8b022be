/*
 * launches.h - the Python harness's launch check at the driver: which
 * kernels a Triton candidate's call launched, however it reached the
 * CUDA driver (Triton's launcher, torch, a library). CUPTI's callback API
 * sees every launch call; one between launchbegin and launchend whose
 * kernel is not allowed, and any graph or host-function launch, is kept
 * for launchviolation (rule launches), which the harness turns into the
 * call's "violation" reply. pyharness.py arms it for a candidate; a C
 * harness never does.
 * doc/verification.md (Python entry points) says what is allowed.
 */
#ifndef RETORT_LAUNCHES_H
#define RETORT_LAUNCHES_H

#include <stddef.h>

/* load CUPTI from cupti (a library path), initialise the CUDA driver and
 * subscribe to every launch call: before the harness's gate (no context,
 * nothing on the device; a subscription takes a while). 0, or -1 with
 * launchstatus saying why */
int launchwatch(const char *cupti);
/* the kernels a call may launch: one fnmatch(3) pattern a line (the
 * candidate's kernels by name, torch's fill kernels) */
void launchallow(const char *patterns);
/* the candidate's call begins and ends */
void launchbegin(void);
void launchend(void);
/* the host's CLOCK_MONOTONIC ms at the call's first launch, 0 where the
 * check saw none (not armed, or nothing launched) */
double launchfirst(void);
/* 1 with the rule and what was launched, once per call */
int launchviolation(char *rule, size_t rcap, char *detail, size_t dcap);
/* "driver (CUPTI N, K of M launch calls)", or "none: why" */
const char *launchstatus(void);

#endif
