/*
 * NAME
 *     metrics - an evaluation's records into its metrics; two evaluations compared
 *
 * SYNOPSIS
 *     metrics [options] -o METRICS_JSON RECORD_JSON... (or @LISTFILE)
 *     metrics --compare [options] [-o COMPARE_JSON] BASE_JSON NEW_JSON
 *
 * DESCRIPTION
 *     The first form reads the records of an evaluation build (configure
 *     --eval: a student asked the tasks, every answer compiled, verified
 *     and timed as the dataset's are). It writes, per task (a variant)
 *     and overall: the compile, correct and unverified rates, pass@k,
 *     KernelBench's fast_p, the geometric-mean speedup, the share correct
 *     by each round, usage and $, and whether the task is held out.
 *     A correct sample is one verified correct on a GPU; its speedup is
 *     bench's for its final round. Overall rates are means over tasks.
 *     Statuses are read through lib/round.h, never guessed from text.
 *     --compare reads two such files and, over the tasks both have,
 *     prints each metric's two values, their difference and a bootstrap
 *     confidence interval over tasks, seeded, so the same files give the
 *     same interval. It lists the tasks that flipped. -o writes the same
 *     as JSON.
 *
 * FILES
 *     out/eval/NAME/metrics.json (ninja eval).
 *
 * EXIT STATUS
 *     0 written; 1 cannot write; 2 bad usage or input (records of two
 *     students in one evaluation among them).
 *
 * SEE ALSO
 *     doc/eval.md
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: metrics [options] -o METRICS_JSON RECORD_JSON... (or @LISTFILE)\n"
	"       metrics --compare [options] [-o COMPARE_JSON] BASE_JSON NEW_JSON\n";

/* fast_p's thresholds, and their keys */
static const double fastp[] = { 0, 1, 1.5, 2 };
static const char *const fastkey[] = { "0", "1", "1.5", "2" };
enum { NFAST = 4 };

static const char *const usagekeys[] = { "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens",
                                          "reasoning_tokens" };
enum { NUSAGE = 5 };

struct sample {
	int index;
	int built, correct, unverified;
	int correctround;  /* the first correct round, 0 if none */
	double speedup;    /* the final round's measured speedup, 0 if none */
	const char *outcome;  /* outcomename's */
};

struct task {
	char *variant, *spec;
	struct sample *s;
	size_t n;
	json_int_t usage[NUSAGE];
	double usd;
	size_t unpriced;
};

struct eval {
	struct task *t;
	size_t nt;
	int rounds;           /* the most rounds a record has */
	char provider[128], model[256];
};

/* a record's round status, refused when it is no stage's */
static enum status
roundstatus(const json_t *round, const char *key, const char *path)
{
	const char *name = jstr(round, key, "");
	enum status s = statusnamed(name);

	if (s == ST_UNKNOWN)
		die(EXIT_USAGE, "%s: round %d: no %s status is named '%s'", path, (int)jint(round, "round", 0), key, name);
	return s;
}

/* what one record came to */
static void
readsample(const json_t *r, const char *path, struct sample *s, int *rounds)
{
	const json_t *rd;
	json_int_t final = jint(r, "final_round", 0);
	size_t k;

	memset(s, 0, sizeof *s);
	if (json_array_size(json_object_get(r, "rounds")) > MAX_ROUNDS)
		die(EXIT_USAGE, "%s: more than %d rounds", path, MAX_ROUNDS);
	s->index = (int)jint(r, "sample", 0);
	s->outcome = outcomename(outcomeof(r));
	s->unverified = outcomeof(r) == OUTCOME_UNVERIFIED;
	json_array_foreach(json_object_get(r, "rounds"), k, rd) {
		json_int_t j = jint(rd, "round", 0);
		enum status c = roundstatus(rd, "compile", path), v = roundstatus(rd, "verify", path);
		enum status b = roundstatus(rd, "bench", path);
		if (j < 1 || j > MAX_ROUNDS)
			die(EXIT_USAGE, "%s: a round numbered %" JSON_INTEGER_FORMAT, path, j);
		if (c == ST_OK)
			s->built = 1;
		if (v != ST_CORRECT)
			continue;
		s->correct = 1;
		if (!s->correctround || j < s->correctround)
			s->correctround = (int)j;
		if (j == final && b == ST_MEASURED && jnum(rd, "speedup", 0) > 0)
			s->speedup = jnum(rd, "speedup", 0);
	}
	if (json_array_size(json_object_get(r, "rounds")) > (size_t)*rounds)
		*rounds = (int)json_array_size(json_object_get(r, "rounds"));
}

/* the task of a variant, added when new */
static struct task *
taskof(struct eval *E, const char *variant, const char *spec)
{
	size_t i;

	for (i = 0; i < E->nt; i++)
		if (!strcmp(E->t[i].variant, variant))
			return &E->t[i];
	E->t = xreallocarray(E->t, E->nt + 1, sizeof *E->t);
	memset(&E->t[E->nt], 0, sizeof *E->t);
	E->t[E->nt].variant = xstrdup(variant);
	E->t[E->nt].spec = xstrdup(spec);
	return &E->t[E->nt++];
}

/* the student: every record must have the same */
static void
student(struct eval *E, const json_t *r, const char *path)
{
	const json_t *t = json_object_get(r, "teacher");
	const char *p = jstr(t, "provider", ""), *m = jstr(t, "model", "");

	if (!E->provider[0] && !E->model[0]) {
		snprintf(E->provider, sizeof E->provider, "%s", p);
		snprintf(E->model, sizeof E->model, "%s", m);
	} else if (strcmp(E->provider, p) || strcmp(E->model, m)) {
		die(EXIT_USAGE, "%s: records of two students in one evaluation (%s/%s and %s/%s)", path,
		    E->provider, E->model, p, m);
	}
}

static void
readrecord(struct eval *E, const char *path)
{
	char err[600];
	json_t *r = jmustload(path), *cost;
	struct task *t;
	size_t i;
	int k;

	if (schemacheck(r, schema_record, err, sizeof err) < 0)
		die(EXIT_USAGE, "not a record of this dataset's fields (lib/schema.c): %s: '%s'", err, path);
	student(E, r, path);
	t = taskof(E, jstr(r, "variant", ""), jstr(r, "task", ""));
	for (i = 0; i < t->n; i++)
		if (t->s[i].index == jint(r, "sample", 0))
			die(EXIT_USAGE, "%s: sample %d of '%s' twice", path, t->s[i].index, t->variant);
	t->s = xreallocarray(t->s, t->n + 1, sizeof *t->s);
	readsample(r, path, &t->s[t->n++], &E->rounds);
	for (k = 0; k < NUSAGE; k++)
		t->usage[k] += jint(json_object_get(r, "usage"), usagekeys[k], 0);
	cost = json_object_get(r, "cost_usd");
	if (json_is_number(cost))
		t->usd += json_number_value(cost);
	else
		t->unpriced++;
	json_decref(r);
}

/* 1 - C(n-c, k) / C(n, k), as a product (no factorials to overflow) */
static double
passatk(size_t n, size_t c, size_t k)
{
	double p = 1;
	size_t i;

	if (n - c < k)
		return 1;
	for (i = n - c + 1; i <= n; i++)
		p *= 1 - (double)k / (double)i;
	return 1 - p;
}

/* a task's counts */
struct counts {
	size_t built, correct, unverified, fast[NFAST], by[MAX_ROUNDS + 1], timed;
	double logsum;
};

static void
count(const struct task *t, struct counts *c)
{
	size_t i;
	int p, r;

	memset(c, 0, sizeof *c);
	for (i = 0; i < t->n; i++) {
		const struct sample *s = &t->s[i];
		c->built += s->built;
		c->correct += s->correct;
		c->unverified += s->unverified;
		for (r = s->correctround; s->correct && r <= MAX_ROUNDS; r++)
			c->by[r]++;
		if (!s->correct || s->speedup <= 0)
			continue;
		c->timed++;
		c->logsum += log(s->speedup);
		for (p = 0; p < NFAST; p++)
			c->fast[p] += s->speedup > fastp[p];
	}
}

static json_t *
geomean(double logsum, size_t n)
{
	return n ? json_real(exp(logsum / (double)n)) : json_null();
}

static json_t *
usagejson(const json_int_t *u, double usd, size_t unpriced)
{
	json_t *j = json_object();
	int k;

	for (k = 0; k < NUSAGE; k++)
		json_object_set_new(j, usagekeys[k], json_integer(u[k]));
	return json_pack("{s:o,s:o,s:I}", "usage", j, "cost_usd", unpriced ? json_null() : json_real(usd),
	                 "unpriced", (json_int_t)unpriced);
}

static json_t *
samplesjson(const struct task *t)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct sample *s = &t->s[i];
		json_array_append_new(a, json_pack("{s:i,s:b,s:b,s:o,s:o,s:s}", "sample", s->index, "built", s->built,
		                      "correct", s->correct, "correct_round",
		                      s->correctround ? json_integer(s->correctround) : json_null(), "speedup",
		                      s->speedup > 0 ? json_real(s->speedup) : json_null(), "outcome", s->outcome));
	}
	return a;
}

static int
cmpsample(const void *a, const void *b)
{
	return ((const struct sample *)a)->index - ((const struct sample *)b)->index;
}

static int
cmptask(const void *a, const void *b)
{
	return strcmp(((const struct task *)a)->variant, ((const struct task *)b)->variant);
}

/* one task's metrics */
static json_t *
taskjson(const struct eval *E, const struct task *t)
{
	struct counts c;
	json_t *j, *pass = json_object(), *fast = json_object(), *by = json_array();
	double n = (double)t->n;
	size_t k;
	int p, r;

	count(t, &c);
	for (k = 1; k <= t->n; k++) {
		char key[32];
		snprintf(key, sizeof key, "%zu", k);
		json_object_set_new(pass, key, json_real(passatk(t->n, c.correct, k)));
	}
	for (p = 0; p < NFAST; p++)
		json_object_set_new(fast, fastkey[p], json_real((double)c.fast[p] / n));
	for (r = 1; r <= E->rounds; r++)
		json_array_append_new(by, json_real((double)c.by[r] / n));
	j = usagejson(t->usage, t->usd, t->unpriced);
	json_object_update_new(j, json_pack("{s:s,s:b,s:I,s:f,s:f,s:f,s:o,s:o,s:o,s:o,s:o}", "task", t->spec,
	                       "held_out", heldout(t->spec, HELDOUT_FRACTION), "samples", (json_int_t)t->n,
	                       "compile_rate", (double)c.built / n, "correct_rate", (double)c.correct / n,
	                       "unverified_rate", (double)c.unverified / n, "pass_at", pass, "fast", fast,
	                       "geomean_speedup", geomean(c.logsum, c.timed), "correct_after_round", by,
	                       "samples_detail", samplesjson(t)));
	return j;
}

/* the mean over tasks of the member key of each task's object (or of its sub-object) */
static double
taskmean(const json_t *tasks, const char *key, const char *sub)
{
	const char *name;
	json_t *t;
	double sum = 0;

	json_object_foreach((json_t *)tasks, name, t) {
		json_t *v = sub ? json_object_get(json_object_get(t, key), sub) : json_object_get(t, key);
		sum += json_number_value(v);
	}
	return json_object_size(tasks) ? sum / (double)json_object_size(tasks) : 0;
}

/* the overall metrics, from the tasks' */
static json_t *
overall(const struct eval *E, const json_t *tasks)
{
	json_t *o, *pass = json_object(), *fast = json_object(), *by = json_array(), *late = json_array();
	json_int_t u[NUSAGE] = { 0 };
	size_t i, minn = SIZE_MAX, samples = 0, timed = 0, unpriced = 0;
	double logsum = 0, usd = 0;
	int p, r, k;

	for (i = 0; i < E->nt; i++) {
		struct counts c;
		count(&E->t[i], &c);
		timed += c.timed;
		logsum += c.logsum;
		samples += E->t[i].n;
		minn = E->t[i].n < minn ? E->t[i].n : minn;
		usd += E->t[i].usd;
		unpriced += E->t[i].unpriced;
		for (k = 0; k < NUSAGE; k++)
			u[k] += E->t[i].usage[k];
		if (!heldout(E->t[i].spec, HELDOUT_FRACTION))
			json_array_append_new(late, json_string(E->t[i].variant));
	}
	for (i = 1; i <= minn && minn != SIZE_MAX; i++) {
		char key[32];
		snprintf(key, sizeof key, "%zu", i);
		json_object_set_new(pass, key, json_real(taskmean(tasks, "pass_at", key)));
	}
	for (p = 0; p < NFAST; p++)
		json_object_set_new(fast, fastkey[p], json_real(taskmean(tasks, "fast", fastkey[p])));
	for (r = 0; r < E->rounds; r++) {
		const char *name;
		json_t *t;
		double sum = 0;
		json_object_foreach((json_t *)tasks, name, t)
			sum += json_number_value(json_array_get(json_object_get(t, "correct_after_round"), r));
		json_array_append_new(by, json_real(sum / (double)E->nt));
	}
	o = usagejson(u, usd, unpriced);
	json_object_update_new(o, json_pack("{s:I,s:I,s:f,s:f,s:f,s:o,s:o,s:o,s:o,s:o}", "tasks", (json_int_t)E->nt,
	                       "samples", (json_int_t)samples, "compile_rate", taskmean(tasks, "compile_rate", NULL),
	                       "correct_rate", taskmean(tasks, "correct_rate", NULL), "unverified_rate",
	                       taskmean(tasks, "unverified_rate", NULL), "pass_at", pass, "fast", fast,
	                       "geomean_speedup", geomean(logsum, timed), "correct_after_round", by, "not_held_out", late));
	return o;
}

static int
evaluate(const char *out, char *const *files, size_t nfiles)
{
	struct eval E;
	json_t *tasks = json_object(), *m;
	size_t i;

	memset(&E, 0, sizeof E);
	for (i = 0; i < nfiles; i++)
		readrecord(&E, files[i]);
	if (!E.nt)
		die(EXIT_USAGE, "no records to evaluate");
	qsort(E.t, E.nt, sizeof *E.t, cmptask);
	for (i = 0; i < E.nt; i++) {
		qsort(E.t[i].s, E.t[i].n, sizeof *E.t[i].s, cmpsample);
		json_object_set_new(tasks, E.t[i].variant, taskjson(&E, &E.t[i]));
	}
	m = json_pack("{s:{s:s,s:s},s:o,s:o}", "student", "provider", E.provider, "model", E.model, "overall",
	              overall(&E, tasks), "tasks", tasks);
	if (jwrite(out, m) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	json_decref(m);
	for (i = 0; i < E.nt; i++) {
		free(E.t[i].s);
		free(E.t[i].variant);
		free(E.t[i].spec);
	}
	free(E.t);
	return 0;
}

/* ---- --compare ---- */

/* a compared metric: how to read it from a task's object */
struct metric {
	const char *name, *key, *sub;  /* sub: a member of key's object; key NULL: geomean_speedup */
};

/* splitmix64: a small generator whose sequence is the same everywhere */
static uint64_t
next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

/* per task of both runs: the metric's value in each; for geomean_speedup the log sum and count */
struct pair {
	double a, b, la, lb, na, nb;
};

static void
timedsum(const json_t *task, double *logsum, double *n)
{
	json_t *s;
	size_t i;

	*logsum = *n = 0;
	json_array_foreach(json_object_get(task, "samples_detail"), i, s)
		if (jbool(s, "correct", 0) && jnum(s, "speedup", 0) > 0) {
			*logsum += log(jnum(s, "speedup", 0));
			*n += 1;
		}
}

static double
value(const json_t *task, const struct metric *m)
{
	const json_t *v = json_object_get(task, m->key);

	return json_number_value(m->sub ? json_object_get(v, m->sub) : v);
}

/* one run's value (side 0 base, 1 new) over the tasks idx[0..n); NAN for a geomean without timings */
static double
side(const struct pair *p, const size_t *idx, size_t n, int geo, int new)
{
	double sum = 0, count = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct pair *q = &p[idx[i]];
		sum += geo ? (new ? q->lb : q->la) : (new ? q->b : q->a);
		count += geo ? (new ? q->nb : q->na) : 1;
	}
	if (count == 0)
		return NAN;
	return geo ? exp(sum / count) : sum / count;
}

/* new - base over the tasks idx[0..n) */
static double
diff(const struct pair *p, const size_t *idx, size_t n, int geo)
{
	return side(p, idx, n, geo, 1) - side(p, idx, n, geo, 0);
}

static json_t *
numornull(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static int
cmpdouble(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct cmpopts {
	int resamples;
	double level;
	uint64_t seed;
};

/* the metric compared: base, new, difference, its bootstrap interval (null when no resample has one) */
static json_t *
compareone(const struct cmpopts *o, const struct pair *p, size_t n, int geo)
{
	size_t *all = xcalloc(n, sizeof *all), *idx = xcalloc(n, sizeof *idx), i, got = 0;
	double *d = xcalloc((size_t)o->resamples, sizeof *d);
	uint64_t x = o->seed;
	json_t *j;
	int b;

	for (i = 0; i < n; i++)
		all[i] = i;
	for (b = 0; b < o->resamples; b++) {
		double v;
		for (i = 0; i < n; i++)
			idx[i] = (size_t)((double)(next(&x) >> 11) * 0x1p-53 * (double)n);
		v = diff(p, idx, n, geo);
		if (!isnan(v))
			d[got++] = v;
	}
	qsort(d, got, sizeof *d, cmpdouble);
	j = json_pack("{s:o,s:o,s:o}", "base", numornull(side(p, all, n, geo, 0)), "new",
	              numornull(side(p, all, n, geo, 1)), "diff", numornull(diff(p, all, n, geo)));
	if (got) {
		size_t lo = (size_t)floor((1 - o->level) / 2 * (double)(got - 1));
		size_t hi = (size_t)ceil((1 + o->level) / 2 * (double)(got - 1));
		json_object_set_new(j, "ci", json_pack("[f,f]", d[lo], d[hi]));
	} else {
		json_object_set_new(j, "ci", json_null());
	}
	free(all);
	free(idx);
	free(d);
	return j;
}

/* the fewest samples a task of both runs has in either */
static size_t
fewest(const json_t *ta, const json_t *tb)
{
	const char *name;
	json_t *a, *b;
	size_t n = SIZE_MAX;

	json_object_foreach((json_t *)ta, name, a)
		if ((b = json_object_get(tb, name))) {
			size_t k = (size_t)jint(a, "samples", 0), l = (size_t)jint(b, "samples", 0);
			n = k < n ? k : n;
			n = l < n ? l : n;
		}
	return n == SIZE_MAX ? 0 : n;
}

/* the metrics compared over the common tasks: pass_at up to the fewest samples of one */
static size_t
metrics(const json_t *ta, const json_t *tb, struct metric *m, char keys[][16], size_t max)
{
	static const struct metric fixed[] = {
		{ "compile_rate", "compile_rate", NULL }, { "correct_rate", "correct_rate", NULL },
		{ "fast_0", "fast", "0" }, { "fast_1", "fast", "1" }, { "fast_1.5", "fast", "1.5" }, { "fast_2", "fast", "2" },
	};
	size_t n = 0, k, i, most = fewest(ta, tb);

	for (i = 0; i < sizeof fixed / sizeof *fixed && n < max; i++)
		m[n++] = fixed[i];
	for (k = 1; k <= most && n + 1 < max; k++) {
		snprintf(keys[n], sizeof keys[n], "%zu", k);
		m[n].key = "pass_at";
		m[n].sub = keys[n];
		m[n].name = NULL; /* "pass@k", named when printed */
		n++;
	}
	m[n++] = (struct metric){ "geomean_speedup", NULL, NULL };
	return n;
}

static const char *
metricname(const struct metric *m, char *buf, size_t len)
{
	if (m->name)
		return m->name;
	snprintf(buf, len, "pass@%s", m->sub);
	return buf;
}

/* the tasks of one run the other lacks */
static json_t *
onlyin(const json_t *x, const json_t *y)
{
	json_t *a = json_array(), *t;
	const char *name;

	json_object_foreach((json_t *)x, name, t)
		if (!json_object_get(y, name))
			json_array_append_new(a, json_string(name));
	return a;
}

static void
printcompare(const json_t *c)
{
	const char *name;
	json_t *m, *t;
	size_t i;

	printf("%-16s %10s %10s %10s  %s\n", "metric", "base", "new", "diff", "interval");
	json_object_foreach(json_object_get(c, "metrics"), name, m) {
		json_t *ci = json_object_get(m, "ci");
		printf("%-16s %10.4f %10.4f %+10.4f", name, jnum(m, "base", NAN), jnum(m, "new", NAN), jnum(m, "diff", NAN));
		if (ci)
			printf("  [%+.4f, %+.4f]", json_number_value(json_array_get(ci, 0)),
			       json_number_value(json_array_get(ci, 1)));
		printf("\n");
	}
	printf("(%d%% bootstrap interval over %d tasks, %d resamples, seed %d)\n", (int)lround(jnum(c, "level", 0) * 100),
	       (int)jint(c, "tasks", 0), (int)jint(c, "resamples", 0), (int)jint(c, "seed", 0));
	for (i = 0; i < 4; i++) {
		static const char *const keys[] = { "fixed", "broken", "only_base", "only_new" };
		json_t *a = json_object_get(c, keys[i]);
		size_t k;
		printf("%s: %zu", keys[i], json_array_size(a));
		json_array_foreach(a, k, t)
			printf("%s%s", k ? ", " : " (", json_string_value(t));
		printf("%s\n", json_array_size(a) ? ")" : "");
	}
}

/* the tasks both runs have, paired, for metric m */
static size_t
pairs(const json_t *ta, const json_t *tb, const struct metric *m, struct pair *p, json_t *fixed, json_t *broken)
{
	const char *name;
	json_t *a;
	size_t n = 0;

	json_object_foreach((json_t *)ta, name, a) {
		json_t *b = json_object_get(tb, name);
		if (!b)
			continue;
		memset(&p[n], 0, sizeof p[n]);
		if (m->key) {
			p[n].a = value(a, m);
			p[n].b = value(b, m);
		} else {
			timedsum(a, &p[n].la, &p[n].na);
			timedsum(b, &p[n].lb, &p[n].nb);
		}
		if (fixed && jnum(a, "correct_rate", 0) == 0 && jnum(b, "correct_rate", 0) > 0)
			json_array_append_new(fixed, json_string(name));
		if (broken && jnum(a, "correct_rate", 0) > 0 && jnum(b, "correct_rate", 0) == 0)
			json_array_append_new(broken, json_string(name));
		n++;
	}
	return n;
}

static int
compare(const struct cmpopts *o, const char *out, const char *apath, const char *bpath)
{
	json_t *A = schemaload(apath, schema_metrics_json), *B = schemaload(bpath, schema_metrics_json), *ta, *tb;
	json_t *ms = json_object(), *c;
	json_t *fixed = json_array(), *broken = json_array();
	struct metric m[64];
	char keys[64][16], nbuf[32];
	struct pair *p;
	size_t nm, i, n = 0;

	ta = json_object_get(A, "tasks");
	tb = json_object_get(B, "tasks");
	p = xcalloc(json_object_size(ta) + 1, sizeof *p);
	nm = metrics(ta, tb, m, keys, sizeof m / sizeof *m);
	for (i = 0; i < nm; i++) {
		n = pairs(ta, tb, &m[i], p, i ? NULL : fixed, i ? NULL : broken);
		if (!n)
			die(EXIT_USAGE, "'%s' and '%s' have no task in common", apath, bpath);
		json_object_set_new(ms, metricname(&m[i], nbuf, sizeof nbuf), compareone(o, p, n, m[i].key == NULL));
	}
	c = json_pack("{s:o,s:I,s:f,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "metrics", ms, "tasks", (json_int_t)n, "level",
	              o->level, "resamples", (json_int_t)o->resamples, "seed", (json_int_t)o->seed, "fixed", fixed,
	              "broken", broken, "only_base", onlyin(ta, tb), "only_new", onlyin(tb, ta), "base",
	              json_deep_copy(json_object_get(A, "student")), "new", json_deep_copy(json_object_get(B, "student")));
	printcompare(c);
	if (out && jwrite(out, c) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	json_decref(c);
	json_decref(A);
	json_decref(B);
	free(p);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	int cmp = 0, seed = 1, r;
	struct cmpopts co = { 2000, 0.95, 1 };
	struct optlist in;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &out, 0, 0, "the output: METRICS_JSON (or, with --compare, COMPARE_JSON)" },
		{ "--compare", NULL, OPT_FLAG, &cmp, 0, 0, "compare two metrics files: BASE_JSON NEW_JSON" },
		{ "--resamples", "N", OPT_INT, &co.resamples, 100, 1000000, "--compare: bootstrap resamples (default 2000)" },
		{ "--level", "L", OPT_NUM, &co.level, 0.5, 0.999, "--compare: the interval's level (default 0.95)" },
		{ "--seed", "N", OPT_INT, &seed, 0, 2147483647, "--compare: the resampling's seed (default 1)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (cmp && in.n != 2)
		optdie(&spec, "--compare needs two metrics files, BASE_JSON NEW_JSON");
	if (!cmp && (!out || !in.n))
		optdie(&spec, "need -o and records");
	co.seed = (uint64_t)seed;
	r = cmp ? compare(&co, out, in.v[0], in.v[1]) : evaluate(out, in.v, in.n);
	optfree(&in);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(EXIT_RETRY, "cannot write to standard output:");
	return r;
}
