/*
 * spec.c - task specs: strict validation of one YAML file, expansion of its
 * matrix into variants, and each variant resolved into the JSON fragment
 * that every later stage reads (out/v/<id>/task.json).
 *
 * doc/specs.md's "Task spec reference" documents every key handled here.
 * Errors are "file:line:col: message"; a value that only goes wrong after
 * a {placeholder} was replaced names the variant too.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/task.h"
#include "../lib/json.h"
#include "../lib/round.h"
#include "../lib/tensor.h"
#include "../lib/util.h"
#include "yaml.h"
#include "expr.h"
#include "hidden.h"
#include "spec.h"

const char *specpromptdir;
int (*speckeeps)(const struct variant *v);

/* ---- dtypes (the table is src/lib/tensor.c's) ---- */

static const struct dtinfo *
finddtype(const char *name)
{
	int i = dtypefind(name);

	return i < 0 ? NULL : &dtinfos[i];
}


/* ---- resolving context ---- */

struct arg {
	char *name;
	int kind;             /* abi.h's ARG_IN ... ARG_SCALAR */
	const struct dtinfo *dt;
	struct ynode *shape;   /* SEQ of expressions */
	struct ynode *value;   /* scalar value expression */
	struct ynode *range;   /* SEQ [lo, hi] */
	json_t *dists;         /* array of names */
	int special;
	double affine[2][2];   /* offset [lo, hi], scale [lo, hi]: every other run's (0 0, 1 1: none) */
	/* per case */
	double dims[8];
	size_t ndim;
	double scalar;
	double lo, hi;
};

struct ctx {
	const char *path;
	struct ynode *root;
	/* matrix assignment of this variant */
	char **mkeys, **mvals;
	size_t nm;
	const char *vid;
	int errors;
	struct arg *args;
	size_t nargs;
	/* the case being evaluated: sizes by name */
	char **snames;
	double *svals;
	size_t nsizes;
	int quiet;            /* count errors, print none (drawing hidden cases) */
	double tensorbytes;   /* the last case's tensors (caseshapes) */
};

static void
err(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
err(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	c->errors++;
	if (c->quiet)
		return;
	va_start(ap, fmt);
	vdiag(c->path, n ? n->line : 0, n ? n->col : 0, fmt, ap);
	va_end(ap);
}

/* s with each {key} of the n keys replaced by its value, into b: how many
 * were replaced, or -1 when b fills first */
static int
substinto(struct buf *b, const char *s, char *const *keys, char *const *vals, size_t n)
{
	const char *p = s;
	size_t i;
	int k = 0;

	while (*p) {
		if (*p == '{') {
			for (i = 0; i < n; i++) {
				size_t kl = strlen(keys[i]);
				if (strncmp(p + 1, keys[i], kl) == 0 && p[1 + kl] == '}')
					break;
			}
			if (i < n) {
				if (bufputs(b, vals[i]) < 0)
					return -1;
				p += strlen(keys[i]) + 2;
				k++;
				continue;
			}
		}
		if (bufputc(b, *p) < 0)
			return -1;
		p++;
	}
	return k;
}

/*
 * Replace {key} for each matrix key in n's text. *changed tells whether
 * anything was replaced, so errors about the result can name the variant.
 * NULL after an error when the result would be too large.
 */
static char *
subst(struct ctx *c, const struct ynode *n, int *changed)
{
	struct buf b;
	int k;

	if (changed)
		*changed = 0;
	if (!c->nm || !strchr(n->s, '{'))
		return xstrdup(n->s);
	bufinit(&b, (size_t)YAML_MAX_BYTES * 4);
	if ((k = substinto(&b, n->s, c->mkeys, c->mvals, c->nm)) < 0) {
		err(c, n, "text grows past %zu bytes once the matrix values are put in (in variant '%s')",
		    b.max, c->vid ? c->vid : "?");
		buffree(&b);
		return NULL;
	}
	if (changed)
		*changed = k > 0;
	return bufdetach(&b);
}

char *
specsubst(const char *text, json_t *matrix)
{
	size_t n = json_object_size(matrix), i = 0;
	char **keys = xcalloc(n + 1, sizeof *keys), **vals = xcalloc(n + 1, sizeof *vals), *r = NULL;
	const char *k;
	json_t *v;
	struct buf b;

	json_object_foreach(matrix, k, v) {
		keys[i] = (char *)k;
		vals[i++] = (char *)(json_is_string(v) ? json_string_value(v) : "");
	}
	bufinit(&b, (size_t)YAML_MAX_BYTES * 4);
	if (substinto(&b, text, keys, vals, n) >= 0)
		r = bufdetach(&b);
	buffree(&b);
	free(keys), free(vals);
	return r;
}

static size_t longestid(const char *specid, const struct ynode *matrix);

/* ---- small checks ---- */

static void
checkkeys(struct ctx *c, const struct ynode *map, const char *where,
          const char *const *allowed, const char *const *required)
{
	size_t i;
	const char *const *k;

	for (i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *key = map->kid[i];
		for (k = allowed; *k; k++)
			if (strcmp(*k, key->s) == 0)
				break;
		if (!*k) {
			const char *near = closest(key->s, allowed);
			if (near)
				err(c, key, "unknown key '%s'%s%s (did you mean '%s'?)", key->s,
				    where ? " in " : "", where ? where : "", near);
			else
				err(c, key, "unknown key '%s'%s%s", key->s,
				    where ? " in " : "", where ? where : "");
		}
	}
	for (k = required; k && *k; k++)
		if (!yget(map, *k))
			err(c, map, "missing required key '%s'%s%s", *k,
			    where ? " in " : "", where ? where : "");
}

static int
isname(const char *s, int allowdash, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n > max || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || (allowdash && s[i] == '-')))
			return 0;
	return 1;
}

static const char *const ckeywords[] = {
	"auto", "bool", "break", "case", "char", "const", "continue", "default", "do",
	"double", "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int",
	"long", "register", "restrict", "return", "short", "signed", "sizeof", "static",
	"struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
	"main", "reference", "baseline", "class", "new", "delete", "template", "this",
	NULL
};

static int
iscname(const char *s)
{
	const char *const *k;

	if (!isname(s, 0, 63))
		return 0;
	for (k = ckeywords; *k; k++)
		if (strcmp(*k, s) == 0)
			return 0;
	return 1;
}

/* the C library's (ISO C, POSIX's common calls) and the CUDA libraries'
 * names, which no candidate can define as its entry point: where s is
 * one, why, else NULL */
static const char *
libraryname(const char *s)
{
	static const char *const libc[] = {
		"abort", "abs", "atexit", "atof", "atoi", "atol", "bsearch", "calloc", "div", "exit", "free", "getenv",
		"labs", "malloc", "qsort", "rand", "realloc", "srand", "strtod", "strtol", "strtoul", "system",
		"aligned_alloc", "quick_exit", "_Exit", "_exit", "memchr", "memcmp", "memcpy", "memmove", "memset",
		"strcat", "strchr", "strcmp", "strcpy", "strlen", "strncmp", "strncpy", "strstr", "strtok", "strerror",
		"printf", "fprintf", "sprintf", "snprintf", "puts", "putchar", "fopen", "fclose", "fread", "fwrite",
		"fflush", "scanf", "sscanf", "perror", "remove", "rename", "clock", "time", "signal", "raise",
		"setjmp", "longjmp", "assert", "read", "write", "open", "close", "fork", "sleep", "pipe", "kill",
		"mmap", "munmap", "dup", "dup2", "isnan", "isinf", "isfinite", "signbit", "fpclassify", "index", "rindex",
		"bzero", "bcopy", "ffs", "popen", "pclose", NULL
	};
	/* <math.h> and CUDA's math API: each also with f and l */
	static const char *const libm[] = {
		"acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh", "atanh", "cosh", "sinh", "tanh",
		"exp", "exp2", "expm1", "frexp", "ldexp", "log", "log10", "log1p", "log2", "logb", "modf", "cbrt",
		"fabs", "hypot", "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint",
		"lrint", "round", "lround", "trunc", "fmod", "remainder", "copysign", "nan", "nextafter", "fdim",
		"fmax", "fmin", "fma", "rsqrt", "exp10",
		/* CUDA's math API, declared for host and device alike */
		"normcdf", "normcdfinv", "erfinv", "erfcinv", "erfcx", "sinpi", "cospi", "sincos", "sincospi", "rcbrt",
		"rhypot", "norm", "norm3d", "norm4d", "rnorm", "rnorm3d", "rnorm4d", "j0", "j1", "jn", "y0", "y1", "yn",
		"cyl_bessel_i0", "cyl_bessel_i1", "scalbn", "scalbln", "ilogb", NULL
	};
	static const char *const prefixes[] = { "cuda", "cublas", "cudnn", "curand", "cufft", "cusparse", "cusolver",
		                                    "cutlass", "nccl", "nvrtc", "nvtx", "thrust", "__", NULL };
	int i;

	for (i = 0; libc[i]; i++)
		if (!strcmp(s, libc[i]))
			return "a function of the C library";
	for (i = 0; libm[i]; i++) {
		size_t k = strlen(libm[i]);
		if (!strncmp(s, libm[i], k) && (!s[k] || ((s[k] == 'f' || s[k] == 'l') && !s[k + 1])))
			return "a function of the C or CUDA maths library";
	}
	for (i = 0; prefixes[i]; i++)
		if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
			return "in the CUDA libraries' names";
	if (s[0] == 'c' && s[1] == 'u' && isupper((unsigned char)s[2]))
		return "in the CUDA driver's names";
	return NULL;
}

/* a scalar's text with placeholders replaced; NULL (after an error) if not a scalar */
static char *
text(struct ctx *c, const struct ynode *n, const char *what, int *changed)
{
	if (changed)
		*changed = 0;
	if (n->kind != Y_SCALAR) {
		err(c, n, "%s must be a single value, not %s", what, ykindname(n->kind));
		return NULL;
	}
	return subst(c, n, changed);
}

/* like err, naming the variant when the offending text came from the matrix */
static void
verr(struct ctx *c, const struct ynode *n, int changed, const char *msg)
{
	if (changed && c->vid)
		err(c, n, "%s (in variant '%s')", msg, c->vid);
	else
		err(c, n, "%s", msg);
}

static char *
getstr(struct ctx *c, const struct ynode *map, const char *key, int required)
{
	struct ynode *n = yget(map, key);
	char *s;

	if (!n) {
		if (required)
			err(c, map, "missing required key '%s'", key);
		return NULL;
	}
	s = text(c, n, key, NULL);
	if (s && required && !*s) {
		err(c, n, "'%s' must not be empty", key);
		free(s);
		return NULL;
	}
	return s;
}

/* a list of names or strings (a single string is a list of one) */
static json_t *
getlist(struct ctx *c, const struct ynode *map, const char *key, int names)
{
	struct ynode *n = yget(map, key);
	json_t *a = json_array();
	size_t i;

	if (!n)
		return a;
	if (n->kind == Y_SCALAR) {
		char *s = text(c, n, key, NULL);
		if (names && !isname(s, 1, 64))
			err(c, n, "'%s' is not a valid name in '%s' (letters, digits, '_', '-')", s, key);
		json_array_append_new(a, json_string(s));
		free(s);
		return a;
	}
	if (n->kind != Y_SEQ) {
		err(c, n, "'%s' must be a list, not %s", key, ykindname(n->kind));
		return a;
	}
	for (i = 0; i < n->n; i++) {
		char *s = text(c, n->kid[i], key, NULL);
		if (!s)
			continue;
		if (names && !isname(s, 1, 64))
			err(c, n->kid[i], "'%s' is not a valid name in '%s' (letters, digits, '_', '-')", s, key);
		else
			json_array_append_new(a, json_string(s));
		free(s);
	}
	return a;
}

/* a plain number from a scalar; 0 ok, -1 after an error */
static int
getnum(struct ctx *c, const struct ynode *map, const char *key, double lo, double hi,
       int integer, double *out)
{
	struct ynode *n = yget(map, key);
	char *s, *end;
	double v;

	if (!n)
		return 1;
	s = text(c, n, key, NULL);
	if (!s)
		return -1;
	v = strtod(s, &end);
	if (end == s || *end || !isfinite(v) || (integer && v != floor(v))) {
		err(c, n, "'%s' must be %s, not '%s'", key, integer ? "an integer" : "a number", s);
		free(s);
		return -1;
	}
	free(s);
	if (v < lo || v > hi) {
		err(c, n, "'%s' must be between %g and %g", key, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* ---- expressions against the current case ---- */

static struct arg *
findarg(struct ctx *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->nargs; i++)
		if (strcmp(c->args[i].name, name) == 0)
			return &c->args[i];
	return NULL;
}

/* the output (or inout) tensor called name, or NULL */
static struct arg *
findoutput(struct ctx *c, const char *name)
{
	struct arg *a = findarg(c, name);

	return a && (a->kind == ARG_OUT || a->kind == ARG_INOUT) ? a : NULL;
}

static int
scopelookup(void *p, const char *name, double *v)
{
	struct ctx *c = p;
	size_t i;
	struct arg *a;

	for (i = 0; i < c->nsizes; i++)
		if (strcmp(c->snames[i], name) == 0) {
			*v = c->svals[i];
			return 0;
		}
	a = findarg(c, name);
	if (a && a->kind == ARG_SCALAR && !isnan(a->scalar)) {
		*v = a->scalar;
		return 0;
	}
	return -1;
}

static int
scopetensor(void *p, const char *fn, const char *name, double *v)
{
	struct ctx *c = p;
	struct arg *a = findarg(c, name);
	double n = 1;
	size_t i;

	if (!a || a->kind == ARG_SIZE || a->kind == ARG_SCALAR || a->ndim == 0)
		return -1;
	for (i = 0; i < a->ndim; i++)
		n *= a->dims[i];
	*v = strcmp(fn, "nbytes") == 0 ? n * a->dt->size : n;
	return 0;
}

/* parse and evaluate the expression in scalar n; 0 ok, -1 after an error */
static int
evalnode(struct ctx *c, const struct ynode *n, const char *what, double *v)
{
	char msg[300], full[600];
	int changed, pos = 0;
	struct expr *e;
	struct scope sc = { scopelookup, scopetensor, c };
	char *s = text(c, n, what, &changed);

	if (!s)
		return -1;
	e = exprparse(s, msg, sizeof msg, &pos);
	if (!e) {
		struct ynode at = *n;
		if (!changed)
			at.col += pos + (n->quoted ? 1 : 0);
		snprintf(full, sizeof full, "bad expression in %s '%s': %s", what, s, msg);
		verr(c, &at, changed, full);
		free(s);
		return -1;
	}
	if (expreval(e, &sc, v, msg, sizeof msg) < 0) {
		snprintf(full, sizeof full, "%s '%s': %s", what, s, msg);
		verr(c, n, changed, full);
		exprfree(e);
		free(s);
		return -1;
	}
	exprfree(e);
	free(s);
	return 0;
}

static json_t *
jnumber(double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		return json_integer((json_int_t)v);
	return json_real(v);
}

/* ---- args ---- */

static const char *const argkeys[] = {
	"name", "kind", "dtype", "shape", "dist", "range", "special", "offset", "scale", "value", NULL
};

/* an arg's name and kind into a; -1 when the entry is skipped (no name, or no kind) */
static int
argnamekind(struct ctx *c, const struct ynode *m, struct arg *a)
{
	char *kind;
	size_t j;

	a->scalar = NAN;
	a->name = getstr(c, m, "name", 1);
	kind = getstr(c, m, "kind", 1);
	if (!a->name || !kind) {
		free(a->name);
		free(kind);
		return -1;
	}
	if (!iscname(a->name))
		err(c, yget(m, "name"), "arg name '%s' is not a usable C identifier", a->name);
	for (j = 0; j < c->nargs; j++)
		if (strcmp(c->args[j].name, a->name) == 0)
			err(c, yget(m, "name"), "duplicate arg name '%s'", a->name);
	if (argkindfind(kind) < 0) {
		const char *near = closest(kind, argkinds);
		err(c, yget(m, "kind"), "unknown arg kind '%s'%s%s%s (one of in, out, inout, size, scalar)",
		    kind, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
		free(kind);
		free(a->name);
		return -1;
	}
	a->kind = argkindfind(kind);
	free(kind);
	return 0;
}

/* an arg's dtype into a->dt (a size arg's defaults to i32) */
static void
argdtype(struct ctx *c, const struct ynode *m, struct arg *a)
{
	char *dt = NULL;
	int changed;
	size_t j;

	if (yget(m, "dtype")) {
		dt = text(c, yget(m, "dtype"), "dtype", &changed);
		if (dt && !(a->dt = finddtype(dt))) {
			char msg[300];
			const char *names[DT_COUNT + 1];
			const char *near;
			for (j = 0; j < DT_COUNT; j++)
				names[j] = dtinfos[j].name;
			names[DT_COUNT] = NULL;
			near = closest(dt, names);
			snprintf(msg, sizeof msg, "unknown dtype '%s'%s%s%s (known: %s)", dt,
			         near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "", dtypenames());
			verr(c, yget(m, "dtype"), changed, msg);
		}
		free(dt);
	}
	if (a->kind == ARG_SIZE) {
		if (!a->dt)
			a->dt = finddtype("i32");
		else if (strcmp(a->dt->name, "i32") && strcmp(a->dt->name, "i64"))
			err(c, yget(m, "dtype"), "a size arg's dtype is i32 or i64");
	} else if (!a->dt && !yget(m, "dtype")) {
		err(c, m, "arg '%s' needs a dtype", a->name);
	}
}

/* an arg's shape, value and range nodes into a, checked against its kind */
static void
argshape(struct ctx *c, const struct ynode *m, struct arg *a)
{
	a->shape = yget(m, "shape");
	a->value = yget(m, "value");
	a->range = yget(m, "range");
	if (a->kind == ARG_IN || a->kind == ARG_OUT || a->kind == ARG_INOUT) {
		if (!a->shape)
			err(c, m, "tensor arg '%s' needs a shape", a->name);
		else if (a->shape->kind != Y_SEQ || a->shape->n == 0 || a->shape->n > MAXDIMS)
			err(c, a->shape, "shape must be a list of 1 to %d dimension expressions", MAXDIMS);
		if (a->value)
			err(c, a->value, "only scalar args take a value");
	} else {
		if (a->shape)
			err(c, a->shape, "only tensor args (in, out, inout) have a shape");
		if (a->kind == ARG_SCALAR && !a->value)
			err(c, m, "scalar arg '%s' needs a value", a->name);
		if (a->kind == ARG_SIZE && a->value)
			err(c, a->value, "size args take their values from 'sizes', not 'value'");
	}
}

/* 1 when the spec gives arg a an offset (k 0) or a scale (k 1) range */
static int
hasaffine(const struct arg *a, int k)
{
	return a->affine[k][0] != k || a->affine[k][1] != k;
}

/* an input's promised offset and scale ranges: [lo, hi] of numbers, a
 * scale's above 0, on a floating tensor */
static void
affine(struct ctx *c, const struct ynode *m, struct arg *a)
{
	static const char *const keys[2] = { "offset", "scale" };
	int k, e;

	a->affine[0][0] = a->affine[0][1] = 0;
	a->affine[1][0] = a->affine[1][1] = 1;
	for (k = 0; k < 2; k++) {
		struct ynode *n = yget(m, keys[k]);
		double v[2];
		if (!n)
			continue;
		if (n->kind != Y_SEQ || n->n != 2) {
			err(c, n, "%s must be a list [lo, hi]", keys[k]);
			continue;
		}
		if (a->dt && !a->dt->isfloat) {
			err(c, n, "%s needs a floating dtype ('%s' is %s)", keys[k], a->name, a->dt->name);
			continue;
		}
		for (e = 0; e < 2; e++)
			if (evalnode(c, n->kid[e], keys[k], &v[e]) < 0)
				break;
		if (e < 2)
			continue;
		if (!(v[0] <= v[1]) || (k == 1 && !(v[0] > 0)) || !isfinite(v[1]))
			err(c, n, "%s of '%s' must be [lo, hi] with lo <= hi%s: [%g, %g]", keys[k], a->name,
			    k ? " and lo > 0" : "", v[0], v[1]);
		else
			memcpy(a->affine[k], v, sizeof v);
	}
}

/* an input tensor's dists (the defaults for its dtype when none), range and special */
static void
inputdraw(struct ctx *c, const struct ynode *m, struct arg *a)
{
	struct ynode *s = yget(m, "special");
	size_t j;

	a->dists = getlist(c, m, "dist", 1);
	if (json_array_size(a->dists) > 8)
		err(c, yget(m, "dist"), "at most 8 dists");
	for (j = 0; j < json_array_size(a->dists); j++) {
		const char *d = json_string_value(json_array_get(a->dists, j));
		if (distfind(d) < 0)
			err(c, yget(m, "dist"), "unknown dist '%s' (one of normal, uniform, heavy, randint, ties)", d);
	}
	if (a->dt && !a->dt->isfloat && json_array_size(a->dists)) {
		/* an integer tensor draws integers: of a list a matrix of dtypes shares, randint and ties */
		json_t *keep = json_array();
		for (j = 0; j < json_array_size(a->dists); j++) {
			const char *d = json_string_value(json_array_get(a->dists, j));
			if (!strcmp(d, "randint") || !strcmp(d, "ties"))
				json_array_append_new(keep, json_string(d));
		}
		if (!json_array_size(keep))
			err(c, yget(m, "dist"), "integer tensor '%s' can only use dist randint or ties", a->name);
		json_decref(a->dists);
		a->dists = keep;
	}
	if (json_array_size(a->dists) == 0) {
		if (a->dt && !a->dt->isfloat)
			json_array_append_new(a->dists, json_string("randint"));
		else {
			json_array_append_new(a->dists, json_string("normal"));
			json_array_append_new(a->dists, json_string("uniform"));
			json_array_append_new(a->dists, json_string("heavy"));
		}
	}
	if (a->range && (a->range->kind != Y_SEQ || a->range->n != 2))
		err(c, a->range, "range must be a list [lo, hi]");
	affine(c, m, a);
	if (s) {
		char *v = text(c, s, "special", NULL);
		if (v && strcmp(v, "true") && strcmp(v, "false"))
			err(c, s, "'special' must be true or false");
		a->special = v && strcmp(v, "true") == 0;
		if (a->special && a->dt && !a->dt->isfloat)
			err(c, s, "special values (NaN, Inf) need a floating dtype");
		free(v);
	}
}

/* how an arg's values are drawn: input tensors' dists, range and special; a scalar's range */
static void
argdraw(struct ctx *c, const struct ynode *m, struct arg *a)
{
	if (a->kind != ARG_IN && a->kind != ARG_INOUT) {
		if (yget(m, "dist"))
			err(c, yget(m, "dist"), "only input tensors have a 'dist'");
		if (a->range && a->kind != ARG_SCALAR)
			err(c, a->range, "only input tensors and scalars have a 'range'");
		else if (a->range && (a->range->kind != Y_SEQ || a->range->n != 2))
			err(c, a->range, "range must be a list [lo, hi]");
		if (yget(m, "special"))
			err(c, yget(m, "special"), "only input tensors have 'special'");
		if (yget(m, "offset") || yget(m, "scale"))
			err(c, yget(m, "offset") ? yget(m, "offset") : yget(m, "scale"), "only input tensors have an 'offset' "
			    "or a 'scale'");
	} else {
		inputdraw(c, m, a);
	}
}

static void
parseargs(struct ctx *c, const struct ynode *seq)
{
	size_t i, nsize = 0, nscalar = 0;

	if (seq->kind != Y_SEQ || seq->n == 0) {
		err(c, seq, "'args' must be a non-empty list of the entry point's parameters");
		return;
	}
	if (seq->n > MAXARGS) {
		err(c, seq, "'args' has %zu parameters; the task ABI takes at most %d", seq->n, MAXARGS);
		return;
	}
	c->args = xcalloc(seq->n, sizeof *c->args);
	for (i = 0; i < seq->n; i++) {
		struct ynode *m = seq->kid[i];
		struct arg *a = &c->args[c->nargs];

		if (m->kind != Y_MAP) {
			err(c, m, "each entry of 'args' must be a mapping like "
			          "{name: x, kind: in, dtype: f32, shape: [n]}");
			continue;
		}
		checkkeys(c, m, "an arg", argkeys, (const char *const[]){ "name", "kind", NULL });
		if (argnamekind(c, m, a) < 0)
			continue;
		argdtype(c, m, a);
		argshape(c, m, a);
		argdraw(c, m, a);
		c->nargs++;
	}
	for (i = 0; i < c->nargs; i++) {
		nsize += c->args[i].kind == ARG_SIZE;
		nscalar += c->args[i].kind == ARG_SCALAR;
	}
	if (nsize > MAXSIZEARGS || nscalar > MAXSIZEARGS)
		err(c, seq, "'args' has %zu size args and %zu scalar args; the task ABI takes at most %d of each",
		    nsize, nscalar, MAXSIZEARGS);
}

/*
 * Every rule the description states must have a draw that exercises it
 * (doc/specs.md, rules): a tie rule an input drawn with ties, NaN's
 * semantics an input with specials, a warning about a large mean an input
 * with an offset. A rule is found by its phrases, case aside.
 */
static void
rules(struct ctx *c, const char *desc)
{
	static const struct rule {
		const char *what, *need, *phrases[10];
	} rs[] = {
		{ "a tie rule", "an input with dist ties", { "tie rule", "breaking ties", "ties broken", "tie order",
		  "stable", "smallest c ", "lowest column index", "lower column index", "lower index", NULL } },
		{ "what NaN does", "an input with special: true", { "nan must", "nan stays", "nan propagates",
		  "propagate nan", "nan and +-inf are not", "nan and inf are not", NULL } },
		{ "a large mean", "an input with an offset", { "mean is large", "large mean", "e[x^2] - e[x]^2",
		  "e[h^2] - mean^2", NULL } },
	};
	char *low = xstrdup(desc);
	size_t i, k;

	for (i = 0; low[i]; i++)
		low[i] = (char)tolower((unsigned char)low[i]);
	for (k = 0; k < sizeof rs / sizeof rs[0]; k++) {
		const char *const *ph, *hit = NULL;
		int has = 0;
		for (ph = rs[k].phrases; *ph && !hit; ph++)
			hit = strstr(low, *ph);
		for (i = 0; hit && i < c->nargs; i++) {
			const struct arg *a = &c->args[i];
			if (!a->dists)
				continue;
			has |= k == 0 ? jhas(a->dists, "ties") : k == 1 ? a->special : hasaffine(a, 0) || hasaffine(a, 1);
		}
		if (hit && !has) {
			char at[41];
			snprintf(at, sizeof at, "%s", desc + (hit - low));
			for (i = 0; at[i]; i++)
				at[i] = at[i] == '\n' ? ' ' : at[i];
			err(c, yget(c->root, "description"), "the description states %s (\"%s\") but no input exercises "
			    "it: give %s (doc/specs.md, rules)", rs[k].what, at, rs[k].need);
		}
	}
	free(low);
}

/* the entry point's signature, from the one definition of the task ABI */
static char *
signature(struct ctx *c, const char *entry)
{
	struct abiarg *a = xcalloc(c->nargs + 1, sizeof *a);
	char *sig;
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		a[i].name = c->args[i].name;
		a[i].kind = c->args[i].kind;
		a[i].dt = (int)(c->args[i].dt - dtinfos);
	}
	sig = abisignature(a, c->nargs, entry, 0);
	free(a);
	return sig;
}

/* ---- sizes and cases ---- */

/* caps on one case: the CPU reference runs the verify sizes; every timed
 * call draws a bench case's inputs anew on the device and the harness
 * hashes its outputs, about 7 ms a GiB of inputs on an H200 beside the
 * kernel's own time, for 33-460 calls (doc/specs.md: Task spec reference, sizes) */
static const double MAX_VERIFY_BYTES = 1024.0 * 1024 * 1024;
static const double MAX_BENCH_BYTES = 4.0 * 1024 * 1024 * 1024;

/* forget the sizes of the case that was evaluated */
static void
dropsizes(struct ctx *c)
{
	free(c->snames);
	free(c->svals);
	c->snames = NULL;
	c->svals = NULL;
	c->nsizes = 0;
}

/* a sizes entry's values into c->snames/svals, as a sizes object; NULL after errors */
static json_t *
casesizes(struct ctx *c, const struct ynode *m)
{
	json_t *sizes;
	size_t i, nsize = 0;
	int e0 = c->errors;

	for (i = 0; i < c->nargs; i++)
		if (c->args[i].kind == ARG_SIZE)
			nsize++;
	c->snames = xcalloc(nsize + 1, sizeof *c->snames);
	c->svals = xcalloc(nsize + 1, sizeof *c->svals);
	c->nsizes = 0;
	sizes = json_object();
	for (i = 0; i < m->n; i += 2) {
		struct arg *a = findarg(c, m->kid[i]->s);
		if (!a || a->kind != ARG_SIZE) {
			err(c, m->kid[i], "'%s' is not a size arg (sizes name exactly the args of kind size)",
			    m->kid[i]->s);
			continue;
		}
	}
	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		struct ynode *vn;
		double v;

		if (a->kind != ARG_SIZE)
			continue;
		vn = yget(m, a->name);
		if (!vn) {
			err(c, m, "sizes entry lacks size arg '%s'", a->name);
			continue;
		}
		if (evalnode(c, vn, "size", &v) < 0)
			continue;
		if (v != floor(v) || v < 1 || v > (strcmp(a->dt->name, "i64") == 0 ? 1e15 : 2147483647.0)) {
			char msg[200];
			snprintf(msg, sizeof msg, "size '%s' = %g must be a positive integer that fits its dtype",
			         a->name, v);
			verr(c, vn, 1, msg);
			continue;
		}
		c->snames[c->nsizes] = a->name;
		c->svals[c->nsizes++] = v;
		json_object_set_new(sizes, a->name, jnumber(v));
	}
	if (c->errors > e0) {
		json_decref(sizes);
		dropsizes(c);
		return NULL;
	}
	return sizes;
}

/* the case's scalars, in order, each may use sizes and earlier scalars */
static json_t *
casescalars(struct ctx *c)
{
	json_t *scalars = json_object();
	size_t i;

	for (i = 0; i < c->nargs; i++)
		c->args[i].scalar = NAN;
	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		double v;
		if (a->kind != ARG_SCALAR || !a->value)
			continue;
		if (evalnode(c, a->value, "value", &v) < 0)
			continue;
		if (!a->dt->isfloat && v != floor(v)) {
			err(c, a->value, "integer scalar '%s' evaluates to %g", a->name, v);
			continue;
		}
		a->scalar = v;
		json_object_set_new(scalars, a->name, a->dt->isfloat ? json_real(v) : jnumber(v));
	}
	return scalars;
}

/* the case's tensor shapes (into each arg's dims), within the caps on one case (m's) */
static json_t *
caseshapes(struct ctx *c, const struct ynode *m, int bench)
{
	json_t *shapes = json_object();
	double total = 0;
	size_t i, j;

	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		json_t *dims;
		double numel = 1;

		a->ndim = 0;
		if (a->kind == ARG_SIZE || a->kind == ARG_SCALAR || !a->shape || a->shape->kind != Y_SEQ)
			continue;
		dims = json_array();
		for (j = 0; j < a->shape->n && j < 8; j++) {
			double v;
			if (evalnode(c, a->shape->kid[j], "shape", &v) < 0)
				break;
			if (v != floor(v) || v < 1) {
				char msg[200];
				snprintf(msg, sizeof msg, "dimension %zu of '%s' is %g, not a positive integer",
				         j, a->name, v);
				verr(c, a->shape->kid[j], 1, msg);
				break;
			}
			a->dims[a->ndim++] = v;
			numel *= v;
			json_array_append_new(dims, jnumber(v));
		}
		if (a->ndim != a->shape->n) {
			a->ndim = 0;
			json_decref(dims);
			continue;
		}
		if (numel > 17179869184.0)
			err(c, a->shape, "tensor '%s' has %g elements (at most 2^34)", a->name, numel);
		total += numel * a->dt->size;
		json_object_set_new(shapes, a->name, dims);
	}
	c->tensorbytes = total;
	if (total > (bench ? MAX_BENCH_BYTES : MAX_VERIFY_BYTES))
		err(c, m, "this %s case moves %.3g GiB of tensors (at most %g GiB: doc/specs.md, Task spec reference, sizes)",
		    bench ? "bench" : "verify", total / (1 << 30),
		    (bench ? MAX_BENCH_BYTES : MAX_VERIFY_BYTES) / (1 << 30));
	return shapes;
}

/* the case's ranges of input distributions, and of scalars drawn anew each run */
static json_t *
caseranges(struct ctx *c)
{
	json_t *ranges = json_object();
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		double lo, hi;
		if (a->kind == ARG_SCALAR && a->dt && a->range && a->range->kind == Y_SEQ && a->range->n == 2) {
			if (evalnode(c, a->range->kid[0], "range", &lo) < 0 || evalnode(c, a->range->kid[1], "range", &hi) < 0)
				continue;
			if (!(lo < hi) || (!a->dt->isfloat && (lo != floor(lo) || hi != floor(hi))))
				err(c, a->range, "range of scalar '%s' must be [lo, hi) with lo < hi (integers for an integer "
				    "scalar): [%g, %g)", a->name, lo, hi);
			else
				json_object_set_new(ranges, a->name, json_pack("[oo]", jnumber(lo), jnumber(hi)));
			continue;
		}
		if ((a->kind != ARG_IN && a->kind != ARG_INOUT) || !a->dt)
			continue;
		if (a->range && a->range->kind == Y_SEQ && a->range->n == 2) {
			if (evalnode(c, a->range->kid[0], "range", &lo) < 0 ||
			    evalnode(c, a->range->kid[1], "range", &hi) < 0)
				continue;
			if (!(lo < hi)) {
				err(c, a->range, "range of '%s' is empty: [%g, %g)", a->name, lo, hi);
				continue;
			}
		} else if (a->dt->isfloat) {
			lo = -1, hi = 1;
		} else {
			lo = a->dt->lo, hi = a->dt->hi;
		}
		json_object_set_new(ranges, a->name, json_pack("[oo]", jnumber(lo), jnumber(hi)));
	}
	return ranges;
}

/* the case's flops and bytes (the spec's cost, bytes by default the tensors' own) into cs */
static void
casecost(struct ctx *c, json_t *cs)
{
	struct ynode *cost = yget(c->root, "cost");
	double flops = 0, bytes = 0;
	struct ynode *fn = cost ? yget(cost, "flops") : NULL;
	struct ynode *bn = cost ? yget(cost, "bytes") : NULL;
	size_t i;

	if (fn && evalnode(c, fn, "flops", &flops) == 0 && flops < 0)
		err(c, fn, "flops must not be negative");
	if (bn) {
		if (evalnode(c, bn, "bytes", &bytes) == 0 && bytes < 0)
			err(c, bn, "bytes must not be negative");
	} else {
		/* default: every input read once, every output written once */
		for (i = 0; i < c->nargs; i++) {
			struct arg *a = &c->args[i];
			double v;
			if (a->ndim == 0 || scopetensor(c, "nbytes", a->name, &v) < 0)
				continue;
			bytes += a->kind == ARG_INOUT ? 2 * v : v;
		}
	}
	json_object_set_new(cs, "flops", jnumber(flops));
	json_object_set_new(cs, "bytes", jnumber(bytes));
}

/* the case object of the sizes in c->snames/svals (sizes, as an object;
 * m where errors point), the sizes then dropped; NULL after errors */
static json_t *
caseof(struct ctx *c, json_t *sizes, const struct ynode *m, int bench)
{
	int e0 = c->errors;
	json_t *scalars = casescalars(c), *shapes = caseshapes(c, m, bench), *cs;

	cs = json_pack("{s:o,s:o,s:o,s:o}", "sizes", sizes, "scalars", scalars, "shapes", shapes, "ranges",
	               caseranges(c));
	casecost(c, cs);
	dropsizes(c);
	if (c->errors > e0) {
		json_decref(cs);
		return NULL;
	}
	return cs;
}

/* evaluate one sizes entry into a case object; NULL after errors */
static json_t *
evalcase(struct ctx *c, const struct ynode *m, int bench)
{
	json_t *sizes;

	if (m->kind != Y_MAP) {
		err(c, m, "each sizes entry must be a mapping of size args to values, like {n: 1024}");
		return NULL;
	}
	if (!(sizes = casesizes(c, m)))
		return NULL;
	return caseof(c, sizes, m, bench);
}

static json_t *
evalcases(struct ctx *c, const struct ynode *sizes, const char *key, int bench)
{
	struct ynode *n = yget(sizes, key);
	json_t *arr = json_array();
	size_t i;

	if (!n) {
		err(c, sizes, "sizes needs '%s': a list of {size arg: value} entries", key);
		return arr;
	}
	if (n->kind == Y_MAP) {
		json_t *cs = evalcase(c, n, bench);
		if (cs)
			json_array_append_new(arr, cs);
		return arr;
	}
	if (n->kind != Y_SEQ || n->n == 0) {
		err(c, n, "sizes '%s' must be a non-empty list of {size arg: value} entries", key);
		return arr;
	}
	if (n->n > 32)
		err(c, n, "at most 32 %s sizes", key);
	for (i = 0; i < n->n && i < 32; i++) {
		json_t *cs = evalcase(c, n->kid[i], bench);
		if (cs)
			json_array_append_new(arr, cs);
	}
	return arr;
}

/* ---- examples: small hand-computed cases that test the reference ---- */

static json_t *
examplevalues(struct ctx *c, const struct ynode *list, const char *name, double numel)
{
	json_t *arr = json_array();
	size_t i;

	if (!list || list->kind != Y_SEQ) {
		err(c, list, "the values of '%s' must be a flat list (row-major)", name);
		return arr;
	}
	if ((double)list->n != numel)
		err(c, list, "'%s' needs %.0f values for this example's sizes, not %zu", name, numel, list->n);
	for (i = 0; i < list->n; i++) {
		const struct ynode *n = list->kid[i];
		char *end;
		double v;
		if (n->kind != Y_SCALAR) {
			err(c, n, "example values are numbers, not %s", ykindname(n->kind));
			continue;
		}
		if (!strcmp(n->s, ".nan") || !strcmp(n->s, ".NaN") || !strcmp(n->s, "nan")) {
			json_array_append_new(arr, json_string("nan"));
			continue;
		}
		if (!strcmp(n->s, ".inf") || !strcmp(n->s, "inf") || !strcmp(n->s, "-.inf") || !strcmp(n->s, "-inf")) {
			json_array_append_new(arr, json_string(n->s[0] == '-' ? "-inf" : "inf"));
			continue;
		}
		v = strtod(n->s, &end);
		if (end == n->s || *end || !isfinite(v))
			err(c, n, "'%s' is not a number", n->s);
		else
			json_array_append_new(arr, jnumber(v));
	}
	return arr;
}

static json_t *
examples(struct ctx *c)
{
	struct ynode *ex = yget(c->root, "examples");
	json_t *arr = json_array();
	size_t i, j;

	if (!ex)
		return arr;
	if (ex->kind != Y_SEQ) {
		err(c, ex, "'examples' must be a list of {sizes, in, out} cases");
		return arr;
	}
	for (i = 0; i < ex->n; i++) {
		struct ynode *e = ex->kid[i], *sz, *in, *out;
		json_t *cs, *o, *ins, *outs;
		if (e->kind != Y_MAP) {
			err(c, e, "each example is a mapping {sizes: {...}, in: {...}, out: {...}}");
			continue;
		}
		checkkeys(c, e, "an example", (const char *const[]){ "sizes", "in", "out", "tolerance", NULL },
		          (const char *const[]){ "sizes", "in", "out", NULL });
		sz = yget(e, "sizes");
		in = yget(e, "in");
		out = yget(e, "out");
		if (!sz || !in || !out || in->kind != Y_MAP || out->kind != Y_MAP)
			continue;
		if (!(cs = evalcase(c, sz, 0)))
			continue;
		ins = json_object();
		outs = json_object();
		for (j = 0; j < c->nargs; j++) {
			struct arg *a = &c->args[j];
			json_t *shape = json_object_get(json_object_get(cs, "shapes"), a->name), *d;
			double numel = 1;
			size_t k;
			if (a->kind == ARG_SIZE || a->kind == ARG_SCALAR)
				continue;
			json_array_foreach(shape, k, d)
				numel *= (double)json_integer_value(d);
			if (a->kind == ARG_IN || a->kind == ARG_INOUT) {
				if (!yget(in, a->name))
					err(c, in, "example input lacks '%s'", a->name);
				else
					json_object_set_new(ins, a->name, examplevalues(c, yget(in, a->name), a->name, numel));
			}
			if (a->kind == ARG_OUT || a->kind == ARG_INOUT) {
				if (!yget(out, a->name))
					err(c, out, "example output lacks '%s'", a->name);
				else
					json_object_set_new(outs, a->name, examplevalues(c, yget(out, a->name), a->name, numel));
			}
		}
		for (j = 0; j + 1 < in->n; j += 2) {
			struct arg *a = findarg(c, in->kid[j]->s);
			if (!a || (a->kind != ARG_IN && a->kind != ARG_INOUT))
				err(c, in->kid[j], "'%s' is not an input tensor", in->kid[j]->s);
		}
		for (j = 0; j + 1 < out->n; j += 2) {
			if (!findoutput(c, out->kid[j]->s))
				err(c, out->kid[j], "'%s' is not an output tensor", out->kid[j]->s);
		}
		o = json_pack("{s:o,s:o,s:o,s:f}", "case", cs, "in", ins, "out", outs, "tolerance", 1e-4);
		if (yget(e, "tolerance")) {
			double t = 1e-4;
			getnum(c, e, "tolerance", 0, 1, 0, &t);
			json_object_set_new(o, "tolerance", json_real(t));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

/* ---- one variant ---- */

static const char *const topkeys[] = {
	"id", "description", "tags", "entry", "args", "sizes", "reference", "baseline",
	"tolerance", "cost", "prompt", "hints", "samples", "rounds", "target_speedup",
	"allow", "examples", "matrix", "origin", "lang", NULL
};
static const char *const topreq[] = { "id", "description", "entry", "args", "sizes", NULL };

static json_t *
tolerances(struct ctx *c)
{
	struct ynode *t = yget(c->root, "tolerance");
	json_t *out = json_object();
	size_t i, j;

	if (t && t->kind != Y_MAP) {
		err(c, t, "'tolerance' must be a mapping: {rtol: .., atol: .., rel_norm: ..} "
		          "or one such mapping per output name");
		t = NULL;
	}
	/* keys are tolerance names (for all outputs), output names or dtype names */
	if (t)
		for (i = 0; i + 1 < t->n; i += 2) {
			const char *k = t->kid[i]->s;
			int istol = 0;
			for (j = 0; tolnames[j]; j++)
				istol |= strcmp(tolnames[j], k) == 0;
			if (istol)
				continue;
			if (!findoutput(c, k) && !finddtype(k)) {
				const char *near = closest(k, tolnames);
				err(c, t->kid[i], "unknown key '%s' in tolerance%s%s%s (rel_norm, rtol, atol, an output's name "
				    "or a dtype)", k, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
				continue;
			}
			if (t->kid[i + 1]->kind != Y_MAP) {
				err(c, t->kid[i + 1], "tolerance for '%s' must be a mapping {rtol: .., atol: ..}", k);
				continue;
			}
			checkkeys(c, t->kid[i + 1], "a tolerance", tolnames, NULL);
		}
	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		struct ynode *own, *bydt;
		double v[3];

		if ((a->kind != ARG_OUT && a->kind != ARG_INOUT) || !a->dt)
			continue;
		own = t ? yget(t, a->name) : NULL;
		/* an output called like a dtype: the key is the output's */
		bydt = t && !findoutput(c, a->dt->name) ? yget(t, a->dt->name) : NULL;
		for (j = 0; j < 3; j++) { /* the dtype's default, the spec's, its dtype's, the output's own */
			v[j] = deftol(a->dt, tolnames[j]);
			if (t)
				getnum(c, t, tolnames[j], 0, 1e6, 0, &v[j]);
			if (bydt && bydt->kind == Y_MAP)
				getnum(c, bydt, tolnames[j], 0, 1e6, 0, &v[j]);
			if (own && own->kind == Y_MAP)
				getnum(c, own, tolnames[j], 0, 1e6, 0, &v[j]);
		}
		json_object_set_new(out, a->name, json_pack("{s:f,s:f,s:f}",
		                    "rel_norm", v[0], "rtol", v[1], "atol", v[2]));
	}
	return out;
}

static json_t *
argsjson(struct ctx *c)
{
	json_t *arr = json_array();
	size_t i, j;

	for (i = 0; i < c->nargs; i++) {
		struct arg *a = &c->args[i];
		json_t *o = json_pack("{s:s,s:s,s:s}", "name", a->name, "kind", argkinds[a->kind],
		                      "dtype", a->dt ? a->dt->name : "?");
		if (a->shape && a->shape->kind == Y_SEQ) {
			json_t *sh = json_array();
			for (j = 0; j < a->shape->n; j++) {
				char *s = text(c, a->shape->kid[j], "shape", NULL);
				json_array_append_new(sh, json_string(s ? s : "?"));
				free(s);
			}
			json_object_set_new(o, "shape", sh);
		}
		if (a->dists) {
			json_object_set(o, "dists", a->dists);
			json_object_set_new(o, "special", json_boolean(a->special));
			for (int k = 0; k < 2; k++)
				if (hasaffine(a, k))
					json_object_set_new(o, k ? "scale" : "offset", json_pack("[oo]", jnumber(a->affine[k][0]),
					                    jnumber(a->affine[k][1])));
		}
		json_array_append_new(arr, o);
	}
	return arr;
}

static void
freeargs(struct ctx *c)
{
	size_t i;

	for (i = 0; i < c->nargs; i++) {
		free(c->args[i].name);
		json_decref(c->args[i].dists);
	}
	free(c->args);
	c->args = NULL;
	c->nargs = 0;
}

/* the spec's prompt template name (default "generate"), checked against tasks/prompts */
static char *
promptname(struct ctx *c)
{
	char *prompt = getstr(c, c->root, "prompt", 0);

	if (!prompt)
		prompt = xstrdup("generate");
	if (!isname(prompt, 1, 64))
		err(c, yget(c->root, "prompt"), "prompt names a template in tasks/prompts: "
		    "letters, digits, '_', '-' (got '%s')", prompt);
	else if (specpromptdir) {
		char *t = xasprintf("%s/%s.md", specpromptdir, prompt);
		if (access(t, R_OK) < 0)
			verr(c, yget(c->root, "prompt") ? yget(c->root, "prompt") : c->root, 1,
			     yget(c->root, "prompt") ? "prompt template not found in tasks/prompts"
			                             : "default prompt template tasks/prompts/generate.md not found");
		free(t);
	}
	return prompt;
}

/* the screen rules (compile's static screen) this task may break: 'allow' */
static json_t *
allowjson(struct ctx *c)
{
	static const char *const screenrules[] = { "library", "host_compute", "timing",
	                                           "streams", "threads", "asm", NULL };
	json_t *allow = getlist(c, c->root, "allow", 1);
	size_t i;

	for (i = 0; i < json_array_size(allow); i++) {
		const char *r = json_string_value(json_array_get(allow, i));
		const char *const *k;
		for (k = screenrules; *k && strcmp(*k, r); k++)
			;
		if (!*k)
			err(c, yget(c->root, "allow"), "'%s' cannot be allowed (one of library, host_compute, "
			    "timing, streams, threads, asm)", r);
	}
	return allow;
}

/* this variant's matrix assignment, as an object */
static json_t *
matrixjson(struct ctx *c)
{
	json_t *mx = json_object();
	size_t i;

	for (i = 0; i < c->nm; i++)
		json_object_set_new(mx, c->mkeys[i], json_string(c->mvals[i]));
	return mx;
}

/* hiddenask's eval: the case of these sizes (the size args' order), NULL
 * when the spec refuses it or its tensors take more than maxbytes */
static json_t *
hiddeneval(void *p, const double *vals, double maxbytes)
{
	struct ctx *c = p;
	json_t *cs, *sizes = json_object();
	size_t i;
	int e0 = c->errors;

	c->quiet = 1;
	c->snames = xcalloc(c->nargs + 1, sizeof *c->snames);
	c->svals = xcalloc(c->nargs + 1, sizeof *c->svals);
	for (i = 0; i < c->nargs; i++)
		if (c->args[i].kind == ARG_SIZE) {
			c->snames[c->nsizes] = c->args[i].name;
			c->svals[c->nsizes] = vals[c->nsizes];
			json_object_set_new(sizes, c->args[i].name, jnumber(vals[c->nsizes]));
			c->nsizes++;
		}
	cs = caseof(c, sizes, c->root, 1);
	c->quiet = 0;
	if (!cs || c->tensorbytes > maxbytes) {
		c->errors = e0;
		json_decref(cs);
		return NULL;
	}
	return cs;
}

/* the hidden cases of the listed ones, the small ones' pool in *pool (hidden.h) */
static json_t *
hidden(struct ctx *c, json_t *verify, json_t *bench, json_t **pool)
{
	const char *names[MAXARGS];
	struct hiddenask q = { c->vid, names, 0, verify, bench, hiddeneval, c };
	size_t i;

	for (i = 0; i < c->nargs; i++)
		if (c->args[i].kind == ARG_SIZE)
			names[q.n++] = c->args[i].name;
	return hiddencases(&q, pool);
}

/* the verify and bench cases into j's "cases", when the spec had no
 * errors since e0 (the hidden ones come later: sethidden) */
static void
setcases(struct ctx *c, json_t *j, int e0)
{
	struct ynode *sizes = yget(c->root, "sizes");
	json_t *cases;

	if (sizes && sizes->kind != Y_MAP) {
		err(c, sizes, "'sizes' must be a mapping with 'verify' and 'bench' lists");
		sizes = NULL;
	}
	if (sizes && c->errors == e0) {
		checkkeys(c, sizes, "sizes", (const char *const[]){ "verify", "bench", NULL }, NULL);
		json_t *verify = evalcases(c, sizes, "verify", 0), *bench = evalcases(c, sizes, "bench", 1);
		cases = json_pack("{s:o,s:o}", "verify", verify, "bench", bench);
		json_object_set_new(j, "cases", cases);
	}
}

/* the hidden cases and the pool into j's "cases", drawn from the domain of
 * its verify and bench cases (hidden.h): the costly part of a variant, so
 * only for a valid one whose JSON is kept */
static void
sethidden(struct ctx *c, json_t *j)
{
	json_t *cases = json_object_get(j, "cases"), *pool;

	if (!cases)
		return;
	json_object_set_new(cases, "hidden",
	                    hidden(c, json_object_get(cases, "verify"), json_object_get(cases, "bench"), &pool));
	json_object_set_new(cases, "pool", pool);
}

/* reference code of one language, checked: C defines void reference(...),
 * Python def reference(...); NULL after an error */
static char *
referencecode(struct ctx *c, const struct ynode *map, const char *key, int python)
{
	char *ref = getstr(c, map, key, 1);

	if (ref && strlen(ref) > 256 * 1024)
		err(c, yget(map, key), "reference is longer than 256 KiB");
	if (ref && !python && !strstr(ref, "reference"))
		err(c, yget(map, key), "reference must define 'void reference(...)'");
	if (ref && python && !strstr(ref, "def reference("))
		err(c, yget(map, key), "a Python reference must define 'def reference(...)'");
	return ref;
}

/* the spec's reference into j: reference (the code, or null) and
 * reference_language (c, python, or null); a mapping {python: CODE} is a
 * Python reference, a plain text one in C */
static void
setreference(struct ctx *c, json_t *j)
{
	struct ynode *n = yget(c->root, "reference");
	const char *lang = NULL;
	char *ref = NULL;

	if (n && n->kind == Y_MAP) {
		checkkeys(c, n, "reference", (const char *const[]){ "python", NULL },
		          (const char *const[]){ "python", NULL });
		if (yget(n, "python") && (ref = referencecode(c, n, "python", 1)))
			lang = "python";
	} else if (n && n->kind == Y_SCALAR && !n->quoted && n->s && !strpbrk(n->s, " \t\n(;{")) {
		/* one plain word: the keyword teacher (gen asks the teacher for the reference), or a slip */
		if (strcmp(n->s, "teacher"))
			err(c, n, "reference '%s' is neither C code defining 'void reference(...)' nor the keyword "
			    "'teacher'%s", n->s, closest(n->s, (const char *const[]){ "teacher", NULL }) ?
			    " (did you mean 'teacher'?)" : "");
		else if (yget(c->root, "origin"))
			err(c, yget(c->root, "origin"), "a spec with 'reference: teacher' has no 'origin': the build "
			    "writes it (the references' provenance)");
		json_object_set_new(j, "reference_source", json_string("teacher"));
	} else if (n && (ref = referencecode(c, c->root, "reference", 0))) {
		lang = "c";
	}
	json_object_set_new(j, "reference", ref ? json_string(ref) : json_null());
	json_object_set_new(j, "reference_language", lang ? json_string(lang) : json_null());
	free(ref);
}

/* where the spec came from, when it was imported or proposed: origin
 * {source, file, level, problem; family, model, provider, request, round,
 * checks, references; scaled_size, scaled_from, scaled_factor: a bench
 * size the importer divided to fit the caps}; JSON null without one */
static json_t *
originjson(struct ctx *c)
{
	struct ynode *n = yget(c->root, "origin");
	static const char *const keys[] = { "source", "file", "level", "problem", "family", "model", "provider",
	                                     "request", "round", "checks", "references", "scaled_size",
	                                     "scaled_from", "scaled_factor", NULL };
	json_t *o;

	if (!n)
		return json_null();
	if (n->kind != Y_MAP) {
		err(c, n, "'origin' must be a mapping {source: NAME, file: PATH, level: N, problem: N}");
		return json_null();
	}
	checkkeys(c, n, "origin", keys, (const char *const[]){ "source", NULL });
	o = json_object();
	for (const char *const *k = keys; *k; k++) {
		double num;
		char *s;
		if (!yget(n, *k))
			continue;
		if (!strcmp(*k, "level") || !strcmp(*k, "problem") || !strcmp(*k, "round") ||
		    !strcmp(*k, "scaled_from") || !strcmp(*k, "scaled_factor")) {
			if (getnum(c, n, *k, 0, 1e9, 1, &num) == 0)
				json_object_set_new(o, *k, json_integer((json_int_t)num));
		} else if ((s = getstr(c, n, *k, 1))) {
			json_object_set_new(o, *k, json_string(s));
			free(s);
		}
	}
	return o;
}

/* the spec's baseline {code, libs}, checked; JSON null without one, NULL when it is no mapping */
static json_t *
baselinejson(struct ctx *c)
{
	static const char *const libs[] = { "cublas", "cublasLt", "cudnn", "curand", "cufft", NULL };
	struct ynode *n = yget(c->root, "baseline");
	json_t *l, *b;
	char *code;
	size_t i;

	if (!n)
		return json_null();
	if (n->kind != Y_MAP) {
		err(c, n, "'baseline' must be a mapping {code: ..., libs: [...]}");
		return NULL;
	}
	if (yget(n, "python")) {
		/* PyTorch on the GPU: baseline(...) over the entry point's arguments as torch tensors */
		checkkeys(c, n, "baseline", (const char *const[]){ "python", NULL }, (const char *const[]){ "python", NULL });
		code = getstr(c, n, "python", 1);
		if (code && !strstr(code, "def baseline"))
			err(c, yget(n, "python"), "a Python baseline must define baseline(...)");
		b = json_pack("{s:s}", "python", code ? code : "");
		free(code);
		return b;
	}
	checkkeys(c, n, "baseline", (const char *const[]){ "code", "libs", NULL },
	          (const char *const[]){ "code", NULL });
	code = getstr(c, n, "code", 1);
	l = getlist(c, n, "libs", 1);
	for (i = 0; i < json_array_size(l); i++) {
		const char *s = json_string_value(json_array_get(l, i));
		const char *const *k;
		for (k = libs; *k && strcmp(*k, s); k++)
			;
		if (!*k)
			err(c, yget(n, "libs"), "unknown baseline lib '%s' (cublas, cublasLt, cudnn, curand, cufft)", s);
	}
	if (code && !strstr(code, "baseline"))
		err(c, yget(n, "code"), "baseline code must define extern \"C\" void baseline(...)");
	b = json_pack("{s:s,s:o}", "code", code ? code : "", "libs", l);
	free(code);
	return b;
}

/* samples, rounds and target_speedup into v and j */
static void
setnumbers(struct ctx *c, struct variant *v, json_t *j)
{
	double num = 0;

	if (getnum(c, c->root, "samples", 1, 1000, 1, &num) == 0)
		v->samples = (int)num;
	json_object_set_new(j, "samples", v->samples ? json_integer(v->samples) : json_null());
	if (getnum(c, c->root, "rounds", 1, MAX_ROUNDS, 1, &num) == 0)
		v->rounds = (int)num;
	json_object_set_new(j, "rounds", v->rounds ? json_integer(v->rounds) : json_null());
	num = 1.0;
	getnum(c, c->root, "target_speedup", 0.001, 1000, 0, &num);
	json_object_set_new(j, "target_speedup", json_real(num));
}

/* the spec's lang: (cuda, triton or both) into v->langs; task.json says it only when the spec does */
static void
setlangs(struct ctx *c, struct variant *v, json_t *j)
{
	json_t *l, *x;
	size_t i;

	if (!yget(c->root, "lang"))
		return;
	l = getlist(c, c->root, "lang", 1);
	json_array_foreach(l, i, x) {
		int b = langnamed(json_string_value(x));
		if (!b)
			err(c, yget(c->root, "lang"), "lang lists the candidate languages: cuda, triton (got '%s')",
			    json_string_value(x));
		v->langs |= b;
	}
	if (!json_array_size(l))
		err(c, yget(c->root, "lang"), "lang lists at least one language: cuda, triton");
	json_object_set_new(j, "lang", l);
}

/* resolve the variant selected by c->mkeys/mvals into v; 0 or -1 */
static int
resolve(struct ctx *c, struct variant *v, const char *specid)
{
	json_t *j, *tags, *hints, *b;
	struct ynode *n;
	char *desc, *entry, *prompt;
	int e0 = c->errors;
	size_t i, nout = 0;

	memset(v, 0, sizeof *v);
	desc = getstr(c, c->root, "description", 1);
	entry = getstr(c, c->root, "entry", 1);
	if (entry && !iscname(entry))
		verr(c, yget(c->root, "entry"), 1, "entry must be a C identifier (and not a keyword or "
		     "main, reference, baseline)");
	else if (entry && libraryname(entry)) {
		char *m = xasprintf("entry '%s' is %s: no candidate could define it (name the operation)", entry,
		                    libraryname(entry));
		verr(c, yget(c->root, "entry"), 1, m);
		free(m);
	}
	tags = getlist(c, c->root, "tags", 1);
	hints = getlist(c, c->root, "hints", 0);
	prompt = promptname(c);
	if ((n = yget(c->root, "args")))
		parseargs(c, n);
	if (desc)
		rules(c, desc);
	for (i = 0; i < c->nargs; i++)
		nout += c->args[i].kind == ARG_OUT || c->args[i].kind == ARG_INOUT;
	if (c->nargs && !nout)
		err(c, yget(c->root, "args"), "args need at least one output (kind out or inout)");

	j = json_object();
	json_object_set_new(j, "version", json_integer(1));
	json_object_set_new(j, "id", json_string(c->vid));
	json_object_set_new(j, "spec", json_string(specid));
	json_object_set_new(j, "file", json_string(c->path));
	json_object_set_new(j, "description", json_string(desc ? desc : ""));
	json_object_set_new(j, "entry", json_string(entry ? entry : ""));
	json_object_set(j, "tags", tags);
	json_object_set_new(j, "hints", hints);
	json_object_set_new(j, "allow", allowjson(c));
	json_object_set_new(j, "prompt", json_string(prompt));
	json_object_set_new(j, "matrix", matrixjson(c));
	if (c->errors == e0) {
		char *sig = signature(c, entry);
		json_object_set_new(j, "signature", json_string(sig));
		free(sig);
	}
	json_object_set_new(j, "args", argsjson(c));
	setcases(c, j, e0);
	json_object_set_new(j, "tolerance", tolerances(c));
	if (c->errors == e0)
		json_object_set_new(j, "examples", examples(c));
	else
		json_object_set_new(j, "examples", json_array());
	if (json_array_size(json_object_get(j, "examples")) && !yget(c->root, "reference"))
		err(c, yget(c->root, "examples"), "examples test the reference: this spec has none");

	setreference(c, j);
	json_object_set_new(j, "origin", originjson(c));
	if (!strcmp(jstr(json_object_get(j, "origin"), "source", ""), "teacher")) {
		/* a proposed spec (propose-accept wrote its origin): --tasks selects it as proposed, or by family */
		json_array_append_new(tags, json_string("proposed"));
		if (json_is_string(json_object_get(json_object_get(j, "origin"), "family")))
			json_array_append(tags, json_object_get(json_object_get(j, "origin"), "family"));
	}
	if ((b = baselinejson(c)))
		json_object_set_new(j, "baseline", b);
	if ((n = yget(c->root, "cost"))) {
		if (n->kind != Y_MAP)
			err(c, n, "'cost' must be a mapping {flops: expr, bytes: expr}");
		else
			checkkeys(c, n, "cost", (const char *const[]){ "flops", "bytes", NULL }, NULL);
	}
	setnumbers(c, v, j);
	setlangs(c, v, j);

	v->hasref = json_is_string(json_object_get(j, "reference"));
	v->proposed = !strcmp(jstr(json_object_get(j, "origin"), "source", ""), "teacher");
	v->teacherref = json_object_get(j, "reference_source") != NULL;
	v->pyref = !strcmp(jstr(j, "reference_language", ""), "python");
	v->hasbaseline = json_is_object(json_object_get(j, "baseline"));
	v->pybaseline = v->hasbaseline && json_object_get(json_object_get(j, "baseline"), "python") != NULL;
	v->id = xstrdup(c->vid);
	v->spec = xstrdup(specid);
	v->file = xstrdup(c->path);
	v->prompt = prompt;
	v->ntags = json_array_size(tags);
	v->tags = xcalloc(v->ntags + 1, sizeof *v->tags);
	for (i = 0; i < v->ntags; i++)
		v->tags[i] = xstrdup(json_string_value(json_array_get(tags, i)));
	json_decref(tags);
	if (c->errors == e0 && (!speckeeps || speckeeps(v))) {
		sethidden(c, j); /* the spec's args are still parsed */
		v->json = j;
	} else
		json_decref(j);
	free(desc);
	free(entry);
	freeargs(c);
	return c->errors > e0 ? -1 : 0;
}

static void
freevariant(struct variant *v)
{
	size_t i;

	free(v->id);
	free(v->spec);
	free(v->file);
	free(v->prompt);
	for (i = 0; i < v->ntags; i++)
		free(v->tags[i]);
	free(v->tags);
	json_decref(v->json);
}

/* ---- the file ---- */

/* 1 when the scalar text s uses {key} */
static int
uses(const struct ydoc *doc, const char *key)
{
	size_t i, kl = strlen(key);

	for (i = 0; i < doc->nall; i++) {
		const char *p = doc->all[i]->s;
		if (doc->all[i]->kind != Y_SCALAR)
			continue;
		while (p && (p = strchr(p, '{'))) {
			if (strncmp(p + 1, key, kl) == 0 && p[1 + kl] == '}')
				return 1;
			p++;
		}
	}
	return 0;
}

/* the spec's id (its line and column into sf); "?" when it has none or a bad one */
static char *
specidof(struct ctx *c, const struct ynode *root, struct specfile *sf)
{
	struct ynode *idn = yget(root, "id");
	char *specid = NULL;

	if (idn) {
		if (idn->kind != Y_SCALAR || !isname(idn->s, 1, 64) || !islower((unsigned char)idn->s[0]))
			err(c, idn, "id must start with a lowercase letter and use only letters, digits, "
			    "'_' and '-' (at most 64)");
		else {
			specid = xstrdup(idn->s);
			sf->idline = idn->line;
			sf->idcol = idn->col;
		}
	}
	if (!specid)
		specid = xstrdup("?"); /* keep checking; the file fails anyway */
	return specid;
}

/* one matrix key's values: plain names or integers, none twice */
static void
matrixvalues(struct ctx *c, const struct ynode *vals)
{
	size_t j, l;

	for (j = 0; j < vals->n; j++)
		if (vals->kid[j]->kind != Y_SCALAR || !*vals->kid[j]->s ||
		    strspn(vals->kid[j]->s,
		        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != vals->kid[j]->len)
			err(c, vals->kid[j], "matrix values must be plain names or integers "
			    "(letters, digits, '_', '-'), they become part of variant ids");
	for (j = 0; j < vals->n; j++)
		for (l = 0; l < j; l++)
			if (vals->kid[j]->kind == Y_SCALAR && vals->kid[l]->kind == Y_SCALAR &&
			    strcmp(vals->kid[j]->s, vals->kid[l]->s) == 0)
				err(c, vals->kid[j], "duplicate matrix value '%s'", vals->kid[j]->s);
}

/*
 * Check the matrix and set up its expansion: the keys into c->mkeys (and
 * room in c->mvals), each key's count of values into len, and the
 * number of variants into *total. 0, or -1 after errors.
 */
static int
matrixsetup(struct ctx *c, const struct ydoc *doc, const struct ynode *matrix, const char *specid,
            size_t *len, double *total)
{
	size_t i, nkeys = matrix->n / 2;
	int e0 = c->errors;

	for (i = 0; i < nkeys; i++) {
		struct ynode *k = matrix->kid[2 * i], *vals = matrix->kid[2 * i + 1];
		if (!isname(k->s, 0, 32))
			err(c, k, "matrix key '%s' must be an identifier", k->s);
		else if (!uses(doc, k->s))
			err(c, k, "matrix key '%s' is never used as {%s}: its variants would all be the same",
			    k->s, k->s);
		if (vals->kind != Y_SEQ || vals->n == 0) {
			err(c, vals, "matrix '%s' must be a non-empty list of values", k->s);
			continue;
		}
		matrixvalues(c, vals);
		c->mkeys[i] = k->s;
		len[i] = vals->n;
		*total *= (double)vals->n;
	}
	c->nm = nkeys;
	if (c->errors == e0 && longestid(specid, matrix) > VARIANT_ID_MAX)
		err(c, matrix, "variant ids would be up to %zu characters, more than %d "
		    "(they name folders): shorten the matrix values", longestid(specid, matrix),
		    VARIANT_ID_MAX);
	if (*total > MATRIX_MAX_VARIANTS)
		err(c, matrix, "matrix expands to %.0f variants, more than the cap of %d: "
		    "drop values or split the spec", *total, MATRIX_MAX_VARIANTS);
	return c->errors > e0 ? -1 : 0;
}

/* the id of the variant idx selects (its values into c->mvals): spec.key1val.val2... */
static void
variantid(struct ctx *c, const struct ynode *matrix, const char *specid, size_t nkeys, const size_t *idx,
          struct buf *id)
{
	size_t k;

	bufinit(id, 4096);
	bufputs(id, specid);
	for (k = 0; k < nkeys; k++) {
		struct ynode *val = matrix->kid[2 * k + 1]->kid[idx[k]];
		c->mvals[k] = val->s;
		bufputc(id, '.');
		if (!val->quoted && isdigit((unsigned char)val->s[0]))
			bufputs(id, c->mkeys[k]);
		bufputs(id, val->s);
	}
}

/* resolve every variant of the matrix into sf (nkeys keys of len values each; none: the one variant) */
static void
expand(struct ctx *c, struct specfile *sf, const struct ynode *matrix, const char *specid, size_t nkeys,
       const size_t *len, double total)
{
	size_t *idx = xcalloc(nkeys, sizeof *idx);

	sf->v = xcalloc((size_t)total, sizeof *sf->v);
	for (;;) {
		struct buf id;
		size_t k;

		variantid(c, matrix, specid, nkeys, idx, &id);
		c->vid = id.s;
		if (resolve(c, &sf->v[sf->nv], specid) < 0)
			freevariant(&sf->v[sf->nv]);
		else
			sf->nv++;
		buffree(&id);
		/* next combination (odometer, last key fastest) */
		for (k = nkeys; k > 0; k--) {
			if (++idx[k - 1] < len[k - 1])
				break;
			idx[k - 1] = 0;
		}
		if (k == 0 || diagcount() > 100)
			break;
	}
	free(idx);
}

int
specload(const char *path, struct specfile *sf)
{
	struct ydoc doc;
	struct ctx c;
	struct ynode *root, *matrix;
	char *specid = NULL;
	size_t nkeys = 0, *len = NULL;
	double total = 1;
	int r = -1;

	memset(sf, 0, sizeof *sf);
	memset(&c, 0, sizeof c);
	sf->path = xstrdup(path);
	sf->idline = sf->idcol = 0;
	c.path = sf->path;
	if (yloadfile(path, &doc) < 0) {
		yfree(&doc);
		return -1;
	}
	root = doc.root;
	c.root = root;
	if (!root || root->kind != Y_MAP) {
		diag(path, root ? root->line : 0, root ? root->col : 0,
		     "a task spec is a mapping of keys (id, description, entry, args, sizes, ...)");
		goto out;
	}
	checkkeys(&c, root, NULL, topkeys, topreq);
	specid = specidof(&c, root, sf);

	/* the matrix: keys in file order, the first varying slowest */
	matrix = yget(root, "matrix");
	if (matrix) {
		if (matrix->kind != Y_MAP || matrix->n == 0) {
			err(&c, matrix, "'matrix' must be a non-empty mapping of name: [values]");
			goto out;
		}
		nkeys = matrix->n / 2;
		c.mkeys = xcalloc(nkeys, sizeof *c.mkeys);
		c.mvals = xcalloc(nkeys, sizeof *c.mvals);
		len = xcalloc(nkeys, sizeof *len);
		if (matrixsetup(&c, &doc, matrix, specid, len, &total) < 0)
			goto out;
	}
	expand(&c, sf, matrix, specid, nkeys, len, total);
	r = 0;
out:
	if (c.errors)
		r = -1;
	free(specid);
	free(c.mkeys);
	free(c.mvals);
	free(len);
	yfree(&doc);
	return r;
}

/* the longest variant id a (checked) matrix gives: spec.key1val.val2... */
static size_t
longestid(const char *specid, const struct ynode *matrix)
{
	size_t n = strlen(specid), i, j;

	for (i = 0; i + 1 < matrix->n; i += 2) {
		const struct ynode *vals = matrix->kid[i + 1];
		size_t most = 0;
		for (j = 0; j < vals->n; j++) {
			const struct ynode *v = vals->kid[j];
			size_t l = v->len;
			if (!v->quoted && isdigit((unsigned char)v->s[0]))
				l += strlen(matrix->kid[i]->s);
			if (l > most)
				most = l;
		}
		n += 1 + most;
	}
	return n;
}

void
specfree(struct specfile *sf)
{
	size_t i;

	for (i = 0; i < sf->nv; i++)
		freevariant(&sf->v[i]);
	free(sf->v);
	free(sf->path);
	memset(sf, 0, sizeof *sf);
}

void
specnames(const char *path, struct variant *v)
{
	struct ydoc doc;
	const struct ynode *idn, *tags;
	const char *base = strrchr(path, '/');
	size_t i;

	memset(v, 0, sizeof *v);
	v->file = xstrdup(path);
	base = base ? base + 1 : path;
	v->spec = xstrdup(base);
	if (strlen(v->spec) > 5 && !strcmp(v->spec + strlen(v->spec) - 5, ".yaml"))
		v->spec[strlen(v->spec) - 5] = 0;
	if (yloadfile(path, &doc) == 0 && doc.root && doc.root->kind == Y_MAP) {
		if ((idn = yget(doc.root, "id")) && idn->kind == Y_SCALAR && *idn->s) {
			free(v->spec);
			v->spec = xstrdup(idn->s);
		}
		tags = yget(doc.root, "tags");
		if (tags && tags->kind == Y_SCALAR) {
			v->tags = xcalloc(2, sizeof *v->tags);
			v->tags[v->ntags++] = xstrdup(tags->s);
		} else if (tags && tags->kind == Y_SEQ) {
			v->tags = xcalloc(tags->n + 1, sizeof *v->tags);
			for (i = 0; i < tags->n; i++)
				if (tags->kid[i]->kind == Y_SCALAR)
					v->tags[v->ntags++] = xstrdup(tags->kid[i]->s);
		}
	}
	yfree(&doc);
	v->id = xstrdup(v->spec);
}

int
specnamed(const struct variant *v, const char *globs)
{
	char *copy = xstrdup(globs), *save = NULL, *g, *dot;
	int hit = variantmatch(v, globs);

	/* a glob over variant ids (spec.key1val...) names the spec by what precedes its first '.' */
	for (g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save)) {
		while (*g == ' ')
			g++;
		if ((dot = strchr(g, '.'))) {
			*dot = 0;
			hit = *g && fnmatch(g, v->spec, 0) == 0;
		}
	}
	free(copy);
	return hit;
}

void
specnamesfree(struct variant *v)
{
	freevariant(v);
	memset(v, 0, sizeof *v);
}

int
variantmatch(const struct variant *v, const char *globs)
{
	char *copy = xstrdup(globs), *save = NULL, *g;
	int hit = 0;
	size_t i;

	for (g = strtok_r(copy, ",", &save); g && !hit; g = strtok_r(NULL, ",", &save)) {
		while (*g == ' ')
			g++;
		if (!*g)
			continue;
		if (fnmatch(g, v->id, 0) == 0 || fnmatch(g, v->spec, 0) == 0)
			hit = 1;
		for (i = 0; i < v->ntags && !hit; i++)
			if (fnmatch(g, v->tags[i], 0) == 0)
				hit = 1;
	}
	free(copy);
	return hit;
}
