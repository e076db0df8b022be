/*
 * expr.c - the arithmetic used for shapes, sizes, scalar values and cost
 * formulas in task specs.
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/' | '%') unary)*
 *   unary   := ('-' | '+') unary | primary
 *   primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
 *
 * Functions: min(a, b), max(a, b), ceil_div(a, b), pow(a, b), sqrt(a),
 * log2(a), and numel(t), nbytes(t) whose argument names a tensor argument.
 * Values are doubles; callers that need integers check for them.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "expr.h"

enum op { E_NUM, E_VAR, E_NEG, E_ADD, E_SUB, E_MUL, E_DIV, E_MOD, E_CALL };

struct expr {
	enum op op;
	double num;
	char *name;          /* E_VAR, E_CALL */
	struct expr *a[2];   /* operands / call arguments */
	int nargs;
};

struct parser {
	const char *s;
	int pos;
	char *err;
	size_t errlen;
	int errpos;
	int failed;
	int depth;
};

static const struct {
	const char *name;
	int nargs;
	int tensorarg;
} funcs[] = {
	{ "min", 2, 0 }, { "max", 2, 0 }, { "ceil_div", 2, 0 }, { "pow", 2, 0 },
	{ "sqrt", 1, 0 }, { "log2", 1, 0 }, { "numel", 1, 1 }, { "nbytes", 1, 1 },
};

static struct expr *parseexpr(struct parser *P);

static void
fail(struct parser *P, const char *msg)
{
	if (P->failed)
		return;
	P->failed = 1;
	snprintf(P->err, P->errlen, "%s", msg);
	P->errpos = P->pos;
}

static void
skipspace(struct parser *P)
{
	while (P->s[P->pos] == ' ' || P->s[P->pos] == '\t')
		P->pos++;
}

static struct expr *
node(enum op op)
{
	struct expr *e = xcalloc(1, sizeof *e);

	e->op = op;
	return e;
}

static int
isident0(int c)
{
	return isalpha(c) || c == '_';
}

static int
isident(int c)
{
	return isalnum(c) || c == '_';
}

/* '(' expr ')', at the '(' */
static struct expr *
parseparen(struct parser *P)
{
	struct expr *e;

	P->pos++;
	e = parseexpr(P);
	skipspace(P);
	if (!P->failed && P->s[P->pos] != ')')
		fail(P, "expected ')'");
	if (!P->failed)
		P->pos++;
	P->depth--;
	return e;
}

/* a number, not run into a name */
static struct expr *
parsenumber(struct parser *P)
{
	struct expr *e;
	char *end;
	double v = strtod(P->s + P->pos, &end);

	if (end == P->s + P->pos || !isfinite(v)) {
		fail(P, "bad number");
		return NULL;
	}
	if (isident((unsigned char)*end)) {
		fail(P, "bad number");
		return NULL;
	}
	P->pos = (int)(end - P->s);
	e = node(E_NUM);
	e->num = v;
	P->depth--;
	return e;
}

/* a call's arguments, after its '(' and up to its ')', into e (funcs[f] says their kind); -1 when it failed */
static int
parsecallargs(struct parser *P, struct expr *e, size_t f)
{
	for (;;) {
		struct expr *arg;

		skipspace(P);
		if (funcs[f].tensorarg) {
			int s0 = P->pos;
			while (isident((unsigned char)P->s[P->pos]))
				P->pos++;
			if (P->pos == s0 || !isident0((unsigned char)P->s[s0])) {
				P->pos = s0;
				fail(P, "expected a tensor argument's name");
				return -1;
			}
			arg = node(E_VAR);
			arg->name = xstrndup(P->s + s0, (size_t)(P->pos - s0));
		} else {
			arg = parseexpr(P);
		}
		if (e->nargs < 2)
			e->a[e->nargs] = arg;
		else
			exprfree(arg);
		e->nargs++;
		if (P->failed)
			return -1;
		skipspace(P);
		if (P->s[P->pos] == ',') {
			P->pos++;
			continue;
		}
		if (P->s[P->pos] != ')') {
			fail(P, "expected ',' or ')'");
			return -1;
		}
		P->pos++;
		return 0;
	}
}

/* the call of the function e names (it started at start), at its '(' */
static struct expr *
parsecall(struct parser *P, struct expr *e, int start)
{
	size_t i;

	e->op = E_CALL;
	for (i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
		if (strcmp(funcs[i].name, e->name) == 0)
			break;
	if (i == sizeof funcs / sizeof funcs[0]) {
		P->pos = start;
		fail(P, "unknown function (known: min, max, ceil_div, pow, sqrt, log2, numel, nbytes)");
		return e;
	}
	P->pos++;
	if (parsecallargs(P, e, i) < 0)
		return e;
	if (e->nargs != funcs[i].nargs) {
		P->pos = start;
		fail(P, funcs[i].nargs == 1 ? "function takes 1 argument"
		                            : "function takes 2 arguments");
	}
	P->depth--;
	return e;
}

/* a name: a variable, or a function's call */
static struct expr *
parsename(struct parser *P, int start)
{
	struct expr *e;

	while (isident((unsigned char)P->s[P->pos]))
		P->pos++;
	e = node(E_VAR);
	e->name = xstrndup(P->s + start, (size_t)(P->pos - start));
	skipspace(P);
	if (P->s[P->pos] != '(') {
		P->depth--;
		return e;
	}
	return parsecall(P, e, start);
}

static struct expr *
parseprimary(struct parser *P)
{
	int start;

	skipspace(P);
	start = P->pos;
	if (++P->depth > 64) {
		fail(P, "expression nested too deeply");
		return NULL;
	}
	if (P->s[P->pos] == '(')
		return parseparen(P);
	if (isdigit((unsigned char)P->s[P->pos]) || P->s[P->pos] == '.')
		return parsenumber(P);
	if (isident0((unsigned char)P->s[P->pos]))
		return parsename(P, start);
	if (P->s[P->pos] == 0)
		fail(P, "unexpected end of expression");
	else
		fail(P, "unexpected character");
	return NULL;
}

static struct expr *
parseunary(struct parser *P)
{
	skipspace(P);
	if (P->s[P->pos] == '-' || P->s[P->pos] == '+') {
		int neg = P->s[P->pos] == '-';
		struct expr *e;

		P->pos++;
		if (++P->depth > 64) {
			fail(P, "expression nested too deeply");
			return NULL;
		}
		e = parseunary(P);
		P->depth--;
		if (!neg)
			return e;
		{
			struct expr *n = node(E_NEG);
			n->a[0] = e;
			return n;
		}
	}
	return parseprimary(P);
}

static struct expr *
parseterm(struct parser *P)
{
	struct expr *l = parseunary(P);

	while (!P->failed) {
		enum op op;
		struct expr *n;

		skipspace(P);
		switch (P->s[P->pos]) {
		case '*': op = E_MUL; break;
		case '/': op = E_DIV; break;
		case '%': op = E_MOD; break;
		default: return l;
		}
		n = node(op);
		P->pos++;
		n->a[0] = l;
		n->a[1] = parseunary(P);
		l = n;
	}
	return l;
}

static struct expr *
parseexpr(struct parser *P)
{
	struct expr *l = parseterm(P);

	while (!P->failed) {
		enum op op;
		struct expr *n;

		skipspace(P);
		switch (P->s[P->pos]) {
		case '+': op = E_ADD; break;
		case '-': op = E_SUB; break;
		default: return l;
		}
		n = node(op);
		P->pos++;
		n->a[0] = l;
		n->a[1] = parseterm(P);
		l = n;
	}
	return l;
}

struct expr *
exprparse(const char *s, char *err, size_t errlen, int *errpos)
{
	struct parser P = { s, 0, err, errlen, 0, 0, 0 };
	struct expr *e;

	e = parseexpr(&P);
	skipspace(&P);
	if (!P.failed && P.s[P.pos] != 0)
		fail(&P, P.s[P.pos] == ')' ? "unbalanced ')'" : "unexpected character");
	if (P.failed) {
		exprfree(e);
		if (errpos)
			*errpos = P.errpos;
		return NULL;
	}
	return e;
}

void
exprfree(struct expr *e)
{
	if (!e)
		return;
	exprfree(e->a[0]);
	exprfree(e->a[1]);
	free(e->name);
	free(e);
}

int
expreval(const struct expr *e, const struct scope *sc, double *v, char *err, size_t errlen)
{
	double a = 0, b = 0;

	switch (e->op) {
	case E_NUM:
		*v = e->num;
		return 0;
	case E_VAR:
		if (!sc || !sc->lookup || sc->lookup(sc->ctx, e->name, v) < 0) {
			snprintf(err, errlen, "unknown name '%s'", e->name);
			return -1;
		}
		return 0;
	case E_CALL:
		if (strcmp(e->name, "numel") == 0 || strcmp(e->name, "nbytes") == 0) {
			if (!sc || !sc->tensor || sc->tensor(sc->ctx, e->name, e->a[0]->name, v) < 0) {
				snprintf(err, errlen, "%s(%s): '%s' is not a tensor argument",
				         e->name, e->a[0]->name, e->a[0]->name);
				return -1;
			}
			return 0;
		}
		break;
	default:
		break;
	}
	if (e->a[0] && expreval(e->a[0], sc, &a, err, errlen) < 0)
		return -1;
	if (e->a[1] && expreval(e->a[1], sc, &b, err, errlen) < 0)
		return -1;
	switch (e->op) {
	case E_NEG: *v = -a; break;
	case E_ADD: *v = a + b; break;
	case E_SUB: *v = a - b; break;
	case E_MUL: *v = a * b; break;
	case E_DIV:
		if (b == 0) {
			snprintf(err, errlen, "division by zero");
			return -1;
		}
		*v = a / b;
		break;
	case E_MOD:
		if (a != floor(a) || b != floor(b) || b == 0) {
			snprintf(err, errlen, "'%%' needs integers and a non-zero divisor");
			return -1;
		}
		*v = fmod(a, b);
		break;
	case E_CALL:
		if (strcmp(e->name, "min") == 0)
			*v = a < b ? a : b;
		else if (strcmp(e->name, "max") == 0)
			*v = a > b ? a : b;
		else if (strcmp(e->name, "ceil_div") == 0) {
			if (b == 0) {
				snprintf(err, errlen, "ceil_div by zero");
				return -1;
			}
			*v = ceil(a / b);
		} else if (strcmp(e->name, "pow") == 0)
			*v = pow(a, b);
		else if (strcmp(e->name, "sqrt") == 0) {
			if (a < 0) {
				snprintf(err, errlen, "sqrt of a negative number");
				return -1;
			}
			*v = sqrt(a);
		} else if (strcmp(e->name, "log2") == 0) {
			if (a <= 0) {
				snprintf(err, errlen, "log2 of a non-positive number");
				return -1;
			}
			*v = log2(a);
		}
		break;
	default:
		break;
	}
	if (!isfinite(*v)) {
		snprintf(err, errlen, "result is not a finite number");
		return -1;
	}
	return 0;
}
