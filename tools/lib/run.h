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
/* path's folder joined with name */
char *sibling(const char *path, const char *name);
/* the draws of one run for the teacher: "x: uniform in [-1, 1)" */
void drawtext(json_t *draws, char *out, size_t cap);
/* one call's shared memory: inputs first, then every tensor coming back */
size_t layout(const struct task *t, const struct tcase *c, size_t inoff[], size_t outoff[]);
/* the harness's "call" command for that layout */
void callline(struct buf *b, const struct task *t, const struct tcase *c, const size_t inoff[],
              const size_t outoff[]);
uint64_t seedof(json_t *draw);
/* the inputs of one run, as the reference saw them (private copies) */
void makeinputs(const struct task *t, const struct tcase *c, json_t *draws, void *copies[]);
/* a JSON number; NaN and Inf, which JSON lacks, as strings */
json_t *jsonnum(double v);

#endif
