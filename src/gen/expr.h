/* expr.h - the size expression language (expr.c) */
#ifndef RETORT_EXPR_H
#define RETORT_EXPR_H

#include <stddef.h>


/*
 * Arithmetic over named parameters: numbers, identifiers, + - * / %,
 * parentheses, and the functions min, max, ceil_div, pow, sqrt, log2,
 * numel(tensor), nbytes(tensor).
 */
struct expr;

/* how identifiers and tensor functions get their values */
struct scope {
	/* 0 found, -1 unknown */
	int (*lookup)(void *ctx, const char *name, double *v);
	/* fn is "numel" or "nbytes"; 0 found, -1 unknown tensor */
	int (*tensor)(void *ctx, const char *fn, const char *name, double *v);
	void *ctx;
};

/* NULL on error, with a message in err and the byte offset in *errpos */
struct expr *exprparse(const char *s, char *err, size_t errlen, int *errpos);
/* 0 ok, -1 with a message in err */
int expreval(const struct expr *e, const struct scope *sc, double *v,
             char *err, size_t errlen);
void exprfree(struct expr *e);

#endif
