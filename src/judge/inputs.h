/*
 * inputs.h - what a run's inputs are: the seeds, from a secret the
 * candidate never sees, and the draw of each input tensor and randomized
 * scalar (the harness and the CPU reference draw the values themselves,
 * with draw.h, from what is described here).
 *
 * Verify's runs take their seeds from the per-cache secret (CACHE/secret:
 * 32 random bytes, made once), so the CPU reference's outputs can be
 * computed once per variant: sha256(secret, variant, what, case, run,
 * arg). Bench's calls take theirs from a key drawn fresh for every bench
 * run, so no two timed calls of any run see the same inputs.
 */
#ifndef RETORT_INPUTS_H
#define RETORT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../lib/dtype.h"
#include "../lib/task.h"

int secretload(const char *cachedir, unsigned char key[32], char *err, size_t errlen);
uint64_t deriveseed(const unsigned char key[32], const char *variant, const char *what, int c, int run, int arg);

/* how one input tensor of one run is drawn */
struct draw {
	int dist, special;
	double lo, hi;
	double off, scale;     /* every value times scale plus off */
	uint64_t seed;
};

/* one run's inputs: a draw per input arg (others zero), a value per
 * scalar; and what its outputs hold before the call (dtype.h's poison
 * class, random bytes from pseed); fast: drawn to float precision on the
 * device (draw.h rt_fastvalue: bench's, which nothing draws again) */
struct runin {
	struct draw d[MAXARGS];
	double scalars[MAXARGS];
	int poison;
	uint64_t pseed;
	int fast;
};
extern const char *const poisonnames[POISON_COUNT];

/*
 * Run k of case c: input i gets distribution k mod its dists, its range,
 * specials when special (and its spec allows them), and seed
 * deriveseed(key, variant, what, case, k, i); on odd k an offset and a
 * scale drawn from the spec's (where it has them). A scalar with a range
 * its value drawn from the seed of its own index, rounded to its type.
 * The outputs' poison is class (case + k) mod POISON_COUNT.
 */
void runinputs(const struct task *t, const struct tcase *c, const unsigned char key[32], const char *what,
               int ci, int k, int special, struct runin *in);
/* the same, as expected.json records it, and back */
/* " DIST LO HI SPECIAL SEED OFF SCALE": a draw as the harness and the reference's runner read it */
void drawput(struct buf *b, const struct draw *d);
json_t *runjson(const struct task *t, const struct runin *in);
int runfromjson(const struct task *t, const struct tcase *c, json_t *j, struct runin *in);
/* the draws of one run for the teacher: "x: uniform in [-1, 1), alpha = 0.75"
 * (scalars only where they are drawn) */
void runtext(const struct task *t, const struct tcase *c, const struct runin *in, char *out, size_t cap);

/* one case's line of a reference's plan (src/runtime/refrun.c reads it):
 * inputs drawn (in), or given (given: example values by input name); the
 * scalars in's, or the case's when in is NULL */
void planline(struct buf *plan, const struct task *t, const struct tcase *c, const struct runin *in, json_t *given);

#endif
