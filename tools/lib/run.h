/*
 * run.h - what verify and bench share when they run a candidate: the
 * device the harness reports, the shared-memory layout and command of one
 * call, the inputs of one draw (regenerated from its recorded seed), and
 * small JSON and path helpers.
 */
#ifndef RETORT_RUN_H
#define RETORT_RUN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "task.h"
#include "util.h"

struct gpuinfo {
	char name[128], cc[16];
	long l2;
	int sms, driver, runtime;
};

/* parse the harness's "ready NAME|CC|L2|SMS|DRIVER|RUNTIME" */
int parseready(const char *line, struct gpuinfo *g);
json_t *gpujson(const struct gpuinfo *g);
/* CUDA errors that mean the machine, not the candidate, failed */
int lostgpu(int code);
/*
 * The harness's first reply (within 120 s): NULL when it is ready, with
 * g filled; else the verdict (timeout, crash, load_error, sandbox) and a
 * sentence for the teacher in why (a crashed child is stopped). A harness
 * that finds no GPU is the machine's failure: exit 1.
 */
struct child;
const char *harnessready(struct child *ch, struct gpuinfo *g, char *why, size_t cap);
/* the draws of one run for the teacher: "x: uniform in [-1, 1)" */
void drawtext(json_t *draws, char *out, size_t cap);
/* one call's shared memory: inputs first, then every tensor coming back */
size_t layout(const struct task *t, const struct tcase *c, size_t inoff[MAXARGS], size_t outoff[]);
/* the same with nsets input sets one after another (bench) */
size_t layoutsets(const struct task *t, const struct tcase *c, int nsets, size_t (*inoff)[MAXARGS], size_t outoff[]);
/* tensor arguments of a task */
int ntensors(const struct task *t);
/* the end of every harness and reference command: " NSIZES sizes... NSCALARS scalars..." */
void casetail(struct buf *b, const struct tcase *c);
/* the harness's "call" command for that layout */
void callline(struct buf *b, const struct task *t, const struct tcase *c, const size_t inoff[],
              const size_t outoff[]);
uint64_t seedof(json_t *draw);
/* the inputs of one run, as the reference saw them, into dst[i] (inputs only) */
void drawinto(const struct task *t, const struct tcase *c, json_t *draws, void *const dst[]);
/* the same into private copies, allocated here */
void makeinputs(const struct task *t, const struct tcase *c, json_t *draws, void *copies[]);
/* a JSON number; NaN and Inf, which JSON lacks, as strings */
json_t *jsonnum(double v);

#endif
