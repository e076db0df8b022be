/* t-expr.c - the spec expression language (src/gen/expr.c) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/gen/expr.h"
#include "../lib/tap.h"

static int
lookup(void *ctx, const char *name, double *v)
{
	(void)ctx;
	if (!strcmp(name, "n")) { *v = 1024; return 0; }
	if (!strcmp(name, "m")) { *v = 3; return 0; }
	return -1;
}

static int
tensor(void *ctx, const char *fn, const char *name, double *v)
{
	(void)ctx;
	if (strcmp(name, "x"))
		return -1;
	*v = !strcmp(fn, "numel") ? 10 : 40;
	return 0;
}

static const struct scope sc = { lookup, tensor, NULL };

static double
ev(const char *s)
{
	char err[200];
	double v = NAN;
	struct expr *e = exprparse(s, err, sizeof err, NULL);

	if (!e)
		return NAN;
	if (expreval(e, &sc, &v, err, sizeof err) < 0)
		v = NAN;
	exprfree(e);
	return v;
}

/* parse error: message and position */
static int
perr(const char *s, const char *want, int wantpos)
{
	char err[200];
	int pos = -1;
	struct expr *e = exprparse(s, err, sizeof err, &pos);

	if (e) {
		exprfree(e);
		return 0;
	}
	if (!strstr(err, want) || pos != wantpos) {
		printf("#   '%s': got '%s' at %d\n", s, err, pos);
		return 0;
	}
	return 1;
}

static int
everr(const char *s, const char *want)
{
	char err[200] = "";
	double v;
	struct expr *e = exprparse(s, err, sizeof err, NULL);
	int r;

	if (!e)
		return 0;
	r = expreval(e, &sc, &v, err, sizeof err) < 0 && strstr(err, want) != NULL;
	if (!r)
		printf("#   '%s': got '%s'\n", s, err);
	exprfree(e);
	return r;
}

int
main(void)
{
	ok(ev("42") == 42, "integer literal");
	ok(ev("1e-5") == 1e-5, "float literal with exponent");
	ok(ev("2 + 3 * 4") == 14, "* binds tighter than +");
	ok(ev("(2 + 3) * 4") == 20, "parentheses");
	ok(ev("10 - 4 - 3") == 3, "- is left-associative");
	ok(ev("-n + 1") == -1023, "unary minus");
	ok(ev("n / 4") == 256, "division");
	ok(ev("7 % 3") == 1, "modulo");
	ok(ev("2*n*n*n") == 2.0 * 1024 * 1024 * 1024, "cost formula");
	ok(ev("min(n, 7)") == 7 && ev("max(m, 7)") == 7, "min and max");
	ok(ev("ceil_div(n + 1, 256)") == 5, "ceil_div");
	ok(ev("pow(2, 10)") == 1024 && ev("sqrt(16)") == 4 && ev("log2(n)") == 10, "pow, sqrt, log2");
	ok(ev("numel(x) + nbytes(x)") == 50, "numel and nbytes of a tensor");
	ok(ev(" n\t* m ") == 3072, "white space");

	ok(perr("", "unexpected end", 0), "empty expression");
	ok(perr("n +", "unexpected end", 3), "dangling operator");
	ok(perr("n + * 2", "unexpected character", 4), "two operators");
	ok(perr("(n + 1", "expected ')'", 6), "unclosed parenthesis");
	ok(perr("n + 1)", "unbalanced ')'", 5), "extra parenthesis");
	ok(perr("foo(1)", "unknown function", 0), "unknown function");
	ok(perr("min(1)", "takes 2 arguments", 0), "wrong argument count");
	ok(perr("numel(3)", "tensor argument", 6), "numel needs a name");
	ok(perr("12abc", "bad number", 0), "number glued to a name");
	ok(perr("n $ 2", "unexpected character", 2), "stray character");
	{
		char deep[400];
		memset(deep, '(', 200);
		strcpy(deep + 200, "1");
		memset(deep + 201, ')', 198);
		deep[399] = 0;
		ok(perr(deep, "nested too deeply", 64), "deep nesting is refused, not a stack overflow");
	}

	ok(everr("q + 1", "unknown name 'q'"), "unknown name at evaluation");
	ok(everr("n / (m - 3)", "division by zero"), "division by zero");
	ok(everr("7.5 % 2", "needs integers"), "modulo of a fraction");
	ok(everr("sqrt(0 - 1)", "negative"), "sqrt of a negative");
	ok(everr("numel(y)", "not a tensor"), "numel of an unknown tensor");
	ok(everr("pow(10, 400)", "not a finite"), "overflow to infinity");
	return done_testing();
}
