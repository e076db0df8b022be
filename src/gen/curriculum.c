/*
 * curriculum.c - the curriculum (tasks/curriculum.yaml): the operation
 * families the teacher proposes problems for, strictly checked like a
 * spec ("file:line:col: message", did-you-mean on near-miss keys). A
 * family has ceil(count / batch) batches: each is its own request, with
 * a distinct angle (curriculumangle), so batches are independent edges.
 * doc/propose.md (The curriculum) gives every key and its range.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/tensor.h"
#include "../lib/util.h"
#include "yaml.h"
#include "curriculum.h"

static const char *const topkeys[] = { "batch", "rounds", "families", NULL };
static const char *const famkeys[] = { "name", "covers", "count", "batch", "dtypes", "sizes",
                                       "difficulty", "exemplars", "angles", "vendor", NULL };
static const char *const sizeclasses[] = { "tiny", "small", "medium", "large", "huge", NULL };
static const char *const difficulties[] = { "easy", "medium", "hard", NULL };

struct cctx {
	const char *path;
	int errors;
};

static void
cerr(struct cctx *c, const struct ynode *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
cerr(struct cctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(c->path, n ? n->line : 0, n ? n->col : 0, fmt, ap);
	va_end(ap);
	c->errors++;
}

static void
keys(struct cctx *c, const struct ynode *map, const char *where, const char *const *allowed)
{
	size_t i;
	const char *const *k;

	for (i = 0; i + 1 < map->n; i += 2) {
		const struct ynode *key = map->kid[i];
		const char *near;
		for (k = allowed; *k && strcmp(*k, key->s); k++)
			;
		if (*k)
			continue;
		near = closest(key->s, allowed);
		cerr(c, key, "unknown key '%s' in %s%s%s%s", key->s, where, near ? " (did you mean '" : "",
		     near ? near : "", near ? "'?)" : "");
	}
}

/* the integer at key (absent: *v unchanged) in [lo, hi] */
static void
getint(struct cctx *c, const struct ynode *map, const char *key, long lo, long hi, int *v)
{
	const struct ynode *n = yget(map, key);
	char *end;
	long x;

	if (!n)
		return;
	if (n->kind != Y_SCALAR || n->quoted || (x = strtol(n->s, &end, 10), *end) || !*n->s) {
		cerr(c, n, "'%s' must be an integer", key);
		return;
	}
	if (x < lo || x > hi) {
		cerr(c, n, "'%s' must be between %ld and %ld: %ld", key, lo, hi, x);
		return;
	}
	*v = (int)x;
}

static char *
gettext(struct cctx *c, const struct ynode *map, const char *key, int required)
{
	const struct ynode *n = yget(map, key);

	if (!n) {
		if (required)
			cerr(c, map, "missing required key '%s'", key);
		return NULL;
	}
	if (n->kind != Y_SCALAR || !*n->s) {
		cerr(c, n, "'%s' must be a non-empty text", key);
		return NULL;
	}
	return xstrdup(n->s);
}

/* a list of scalars, each one of allowed (NULL: any name) or a known dtype (dtypes) */
static char **
getnames(struct cctx *c, const struct ynode *map, const char *key, const char *const *allowed, int dtypes,
         size_t *count)
{
	const struct ynode *n = yget(map, key);
	char **v;
	size_t i;

	*count = 0;
	v = xcalloc(1, sizeof *v);
	if (!n)
		return v;
	if (n->kind != Y_SEQ) {
		cerr(c, n, "'%s' must be a list, not %s", key, ykindname(n->kind));
		return v;
	}
	for (i = 0; i < n->n; i++) {
		const struct ynode *s = n->kid[i];
		const char *const *k;
		if (s->kind != Y_SCALAR || !*s->s) {
			cerr(c, s, "'%s' lists names, not %s", key, ykindname(s->kind));
			continue;
		}
		for (k = allowed; k && *k && strcmp(*k, s->s); k++)
			;
		if ((allowed && !*k) || (dtypes && dtypefind(s->s) < 0) ||
		    (!allowed && !dtypes && strspn(s->s, "abcdefghijklmnopqrstuvwxyz0123456789_-") != strlen(s->s))) {
			const char *near = allowed ? closest(s->s, allowed) : NULL;
			cerr(c, s, "'%s' is not %s%s%s%s", s->s, dtypes ? "a known dtype" : allowed ? "one of the "
			     "allowed values" : "a spec file name (tasks/NAME.yaml)", near ? " (did you mean '" : "",
			     near ? near : "", near ? "'?)" : "");
			continue;
		}
		v = xreallocarray(v, *count + 2, sizeof *v);
		v[(*count)++] = xstrdup(s->s);
		v[*count] = NULL;
	}
	return v;
}

/* the angles: free lines of text */
static char **
getlines(struct cctx *c, const struct ynode *map, const char *key, size_t *count)
{
	const struct ynode *n = yget(map, key);
	char **v = xcalloc(1, sizeof *v);
	size_t i;

	*count = 0;
	if (!n)
		return v;
	if (n->kind != Y_SEQ) {
		cerr(c, n, "'%s' must be a list of lines", key);
		return v;
	}
	for (i = 0; i < n->n; i++) {
		if (n->kid[i]->kind != Y_SCALAR || !*n->kid[i]->s || strchr(n->kid[i]->s, '\n')) {
			cerr(c, n->kid[i], "each of '%s' is one line of text", key);
			continue;
		}
		v = xreallocarray(v, *count + 2, sizeof *v);
		v[(*count)++] = xstrdup(n->kid[i]->s);
		v[*count] = NULL;
	}
	return v;
}

static int
famname(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 40 && islower((unsigned char)s[0]) &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static void
family(struct cctx *c, const struct ynode *m, int batch, const char *tasksdir, struct family *f)
{
	char *diff;
	size_t i;

	memset(f, 0, sizeof *f);
	f->line = m->line, f->col = m->col;
	keys(c, m, "a family", famkeys);
	f->name = gettext(c, m, "name", 1);
	if (f->name && !famname(f->name))
		cerr(c, yget(m, "name"), "family name '%s': a lowercase letter, then letters, digits and '_' "
		     "(at most 40)", f->name);
	f->covers = gettext(c, m, "covers", 1);
	if (!yget(m, "count"))
		cerr(c, m, "missing required key 'count'");
	getint(c, m, "count", 1, 100000, &f->count);
	f->batch = batch;
	getint(c, m, "batch", 1, 50, &f->batch);
	f->dtypes = getnames(c, m, "dtypes", NULL, 1, &f->ndtypes);
	f->sizes = getnames(c, m, "sizes", sizeclasses, 0, &f->nsizes);
	f->exemplars = getnames(c, m, "exemplars", NULL, 0, &f->nexemplars);
	f->angles = getlines(c, m, "angles", &f->nangles);
	f->vendor = gettext(c, m, "vendor", 0);
	if (f->vendor && (!*f->vendor || strchr(f->vendor, '\n') || strlen(f->vendor) > 200))
		cerr(c, yget(m, "vendor"), "vendor is one line of at most 200 characters: the routine the family's "
		     "baselines call");
	diff = gettext(c, m, "difficulty", 0);
	f->difficulty = xstrdup(diff ? diff : "medium");
	for (i = 0; diff && difficulties[i] && strcmp(difficulties[i], diff); i++)
		;
	if (diff && !difficulties[i])
		cerr(c, yget(m, "difficulty"), "difficulty must be easy, medium or hard: '%s'", diff);
	free(diff);
	for (i = 0; i < f->nexemplars; i++) {
		char *p = xasprintf("%s/%s.yaml", tasksdir, f->exemplars[i]);
		if (access(p, R_OK) != 0)
			cerr(c, yget(m, "exemplars")->kid[i], "exemplar '%s': no spec file %s", f->exemplars[i], p);
		free(p);
	}
	f->nbatches = f->count ? (f->count + f->batch - 1) / f->batch : 0;
}

int
curriculumload(const char *path, const char *tasksdir, struct curriculum *cu)
{
	struct cctx c = { path, 0 };
	struct ydoc doc;
	const struct ynode *fam;
	size_t i, j, total = 0;

	memset(cu, 0, sizeof *cu);
	cu->path = xstrdup(path);
	cu->batch = 20, cu->rounds = 2;
	if (yloadfile(path, &doc) < 0)
		return -1;
	if (doc.root->kind != Y_MAP) {
		cerr(&c, doc.root, "a curriculum is a mapping {batch, rounds, families}");
		yfree(&doc);
		return -1;
	}
	keys(&c, doc.root, "the curriculum", topkeys);
	getint(&c, doc.root, "batch", 1, 50, &cu->batch);
	getint(&c, doc.root, "rounds", 1, 4, &cu->rounds);
	fam = yget(doc.root, "families");
	if (!fam || fam->kind != Y_SEQ || fam->n == 0)
		cerr(&c, fam ? fam : doc.root, "'families' must be a non-empty list of families");
	else {
		cu->f = xcalloc(fam->n, sizeof *cu->f);
		for (i = 0; i < fam->n; i++) {
			if (fam->kid[i]->kind != Y_MAP) {
				cerr(&c, fam->kid[i], "a family is a mapping {name, covers, count, ...}");
				continue;
			}
			family(&c, fam->kid[i], cu->batch, tasksdir, &cu->f[cu->nf]);
			total += (size_t)cu->f[cu->nf].count;
			for (j = 0; j < cu->nf; j++)
				if (cu->f[cu->nf].name && cu->f[j].name && !strcmp(cu->f[j].name, cu->f[cu->nf].name))
					cerr(&c, yget(fam->kid[i], "name"), "duplicate family '%s' (also at line %d)",
					     cu->f[j].name, cu->f[j].line);
			cu->nf++;
		}
	}
	if (total > CURRICULUM_MAX_PROBLEMS)
		cerr(&c, fam, "the families ask for %zu problems in all, more than %d", total, CURRICULUM_MAX_PROBLEMS);
	cu->total = total;
	yfree(&doc);
	return c.errors ? -1 : 0;
}

static void
freev(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

void
curriculumfree(struct curriculum *cu)
{
	size_t i;

	for (i = 0; i < cu->nf; i++) {
		struct family *f = &cu->f[i];
		free(f->name);
		free(f->covers);
		free(f->difficulty);
		free(f->vendor);
		freev(f->dtypes);
		freev(f->sizes);
		freev(f->exemplars);
		freev(f->angles);
	}
	free(cu->f);
	free(cu->path);
	memset(cu, 0, sizeof *cu);
}

/*
 * Batch k's angle (malloc'd): its own focus, so that no two batches of a
 * family ask for the same thing: the family's angle k mod n (when it has
 * angles), the dtype and size class k picks, and its place among the
 * family's batches.
 */
char *
curriculumangle(const struct family *f, int k)
{
	struct buf b;

	bufinit(&b, 1 << 16);
	if (f->nangles)
		bufprintf(&b, "%s. ", f->angles[(size_t)k % f->nangles]);
	if (f->ndtypes)
		bufprintf(&b, "Lead with %s data. ", f->dtypes[(size_t)k % f->ndtypes]);
	if (f->nsizes)
		bufprintf(&b, "Favour %s problem sizes. ", f->sizes[(size_t)(k / (f->ndtypes ? f->ndtypes : 1)) % f->nsizes]);
	bufprintf(&b, "This is batch %d of %d of the family: choose variations that other batches are unlikely "
	          "to choose (vary the operation, its parameters, layouts, fusions and edge cases).", k + 1,
	          f->nbatches);
	return bufdetach(&b);
}
