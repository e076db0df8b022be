/* opts.c - see opts.h */
#include "opts.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* the longest "NAME META" a usage lines up */
enum { MAXLEFT = 40 };

int
intarg(const char *s, const char *what, int lo, int hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		die(EXIT_USAGE, "%s must be an integer from %d to %d: '%s'", what, lo, hi, s);
	return (int)v;
}

static double
numarg(const char *s, const char *what, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !(v >= lo && v <= hi))
		die(EXIT_USAGE, "%s must be a number from %g to %g: '%s'", what, lo, hi, s);
	return v;
}

static void
add(struct optlist *l, const char *s)
{
	l->v = xreallocarray(l->v, l->n + 2, sizeof *l->v);
	l->v[l->n++] = xstrdup(s);
	l->v[l->n] = NULL;
}

/* an input: itself, or with lists an "@FILE"'s lines */
static void
input(const struct optspec *s, const char *arg, struct optlist *in)
{
	struct buf b;
	char *line, *save = NULL;

	if (!s->lists || arg[0] != '@') {
		if (in->n >= s->maxin) {
			if (s->maxin == 0)
				optdie(s, "takes no inputs: '%s'", arg);
			optdie(s, "too many inputs (at most %zu): '%s'", s->maxin, arg);
		}
		add(in, arg);
		return;
	}
	bufinit(&b, (size_t)1 << 30);
	if (readfile(arg + 1, &b) < 0)
		die(EXIT_USAGE, "cannot read '%s':", arg + 1);
	for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (in->n >= s->maxin)
			optdie(s, "too many inputs (at most %zu): '%s' in '%s'", s->maxin, line, arg + 1);
		add(in, line);
	}
	in->listed++;
	buffree(&b);
}

/* the row's value from val */
static void
store(const struct opt *o, const char *val)
{
	switch (o->kind) {
	case OPT_FLAG:
		*(int *)o->to = 1;
		break;
	case OPT_STR:
		*(const char **)o->to = val;
		break;
	case OPT_INT:
		*(int *)o->to = intarg(val, o->name, (int)o->lo, (int)o->hi);
		break;
	case OPT_NUM:
		*(double *)o->to = numarg(val, o->name, o->lo, o->hi);
		break;
	case OPT_SIZE:
		*(size_t *)o->to = (size_t)numarg(val, o->name, o->lo, o->hi);
		break;
	case OPT_LIST:
		add(o->to, val);
		break;
	}
}

void
optparse(const struct optspec *s, int argc, char **argv, struct optlist *in)
{
	const struct opt *o;
	int i;

	memset(in, 0, sizeof *in);
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			optusage(s, stdout);
			if (fflush(stdout) || ferror(stdout))
				die(EXIT_RETRY, "cannot write the usage:");
			exit(EXIT_OK);
		}
		for (o = s->opt; o->name && strcmp(o->name, a); o++)
			;
		if (o->name && o->kind != OPT_FLAG && i + 1 >= argc)
			optdie(s, "%s needs a value (%s)", a, o->meta ? o->meta : "VALUE");
		if (o->name)
			store(o, o->kind == OPT_FLAG ? NULL : argv[++i]);
		else if (a[0] == '-' && a[1])
			optdie(s, "unknown option: '%s'", a);
		else
			input(s, a, in);
	}
}

void
optusage(const struct optspec *s, FILE *f)
{
	const struct opt *o;
	int w = (int)strlen("-h, --help");
	char left[MAXLEFT + 1];

	for (o = s->opt; o->name; o++) {
		int n = snprintf(left, sizeof left, "%s%s%s", o->name, o->meta ? " " : "", o->meta ? o->meta : "");
		if (n > w)
			w = n > MAXLEFT ? MAXLEFT : n;
	}
	fputs(s->synopsis, f);
	fputs("\noptions:\n", f);
	for (o = s->opt; o->name; o++) {
		snprintf(left, sizeof left, "%s%s%s", o->name, o->meta ? " " : "", o->meta ? o->meta : "");
		fprintf(f, "  %-*s  %s\n", w, left, o->help);
	}
	fprintf(f, "  %-*s  %s\n", w, "-h, --help", "this text");
}

void
optdie(const struct optspec *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	fputs(s->synopsis, stderr);
	exit(EXIT_USAGE);
}

void
optfree(struct optlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
