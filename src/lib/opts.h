/*
 * opts.h - a tool's command line, from one table: the parser and the
 * usage text read the same rows, so each option is listed once. optparse
 * walks argv once: a row's name takes the next argument as its value
 * (any kind but OPT_FLAG), the last of a repeated option wins (OPT_LIST
 * keeps them all), the rest are the inputs, and with lists "@FILE" stands
 * for FILE's lines. There is no "--opt=value" and no "--". -h or --help
 * prints the usage and exits 0; what it refuses exits 2 (EXIT_USAGE).
 * doc/hacking.md (Options) has an example.
 */
#ifndef RETORT_OPTS_H
#define RETORT_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util.h"

enum optkind {
	OPT_FLAG, /* int *: set to 1; takes no value */
	OPT_STR,  /* const char **: the value */
	OPT_INT,  /* int *: an integer in [lo, hi] */
	OPT_NUM,  /* double *: a number in [lo, hi] */
	OPT_SIZE, /* size_t *: a number in [lo, hi] (2.5e8 reads too), its integer part */
	OPT_LIST, /* struct optlist *: every value, in order (a repeatable option) */
};

struct opt {
	const char *name; /* its one spelling: "-o", "--gpus" */
	const char *meta; /* the value's name in the usage ("N"); NULL for OPT_FLAG */
	enum optkind kind;
	void *to;         /* where the value goes (enum optkind says as what) */
	double lo, hi;    /* OPT_INT, OPT_NUM, OPT_SIZE: the range */
	const char *help; /* one line for the usage */
};

/* strings in order, v[n] NULL (v itself NULL while empty); optfree frees them */
struct optlist {
	char **v;
	size_t n;
	int listed; /* inputs: how many "@FILE" arguments were read into it */
};

/* maxin for a tool without a limit on its inputs */
#define OPT_ANY SIZE_MAX

struct optspec {
	const char *synopsis;  /* "usage: tool ...\n", a line a form, each ending in '\n' */
	const struct opt *opt; /* the rows, ended by one whose name is NULL */
	size_t maxin;          /* the most inputs (0: none; OPT_ANY) */
	int lists;             /* "@FILE" inputs stand for FILE's lines */
};

/* argv into the rows' places and the inputs into *in (see above) */
void optparse(const struct optspec *s, int argc, char **argv, struct optlist *in);
/* the synopsis, then "options:" and a line a row with its help, -h last */
void optusage(const struct optspec *s, FILE *f);
/* "tool: msg" and the synopsis on stderr, exit 2: a usage error found later */
NORETURN void optdie(const struct optspec *s, const char *fmt, ...) PRINTF_LIKE(2, 3);
void optfree(struct optlist *l);

/* s as an integer in [lo, hi], or exit 2 naming what (an option, a path) */
int intarg(const char *s, const char *what, int lo, int hi);

#endif
