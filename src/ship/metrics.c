/*
 * NAME
 *     metrics - an evaluation's records into its metrics; two evaluations compared
 *
 * SYNOPSIS
 *     metrics [options] -o METRICS_JSON RECORD_JSON... (or @LISTFILE)
 *     metrics --compare [options] [-o COMPARE_JSON] BASE_JSON NEW_JSON
 *     metrics --table METRICS_JSON
 *
 * DESCRIPTION
 *     The first form reads the records of an evaluation build (configure
 *     --eval: a student asked the tasks, every answer compiled, verified
 *     and timed as the dataset's are). It writes, per task (a variant)
 *     and overall, by the papers' definitions: KernelBench's fast_p, the
 *     share of tasks whose kernel is correct and faster than the
 *     baseline by more than p, of each task's first sample and of its
 *     best sample (best of k), against eager PyTorch and torch.compile;
 *     pass@k by the unbiased estimator; the geometric-mean speedup over
 *     correct kernels. Besides them: the compile, correct and unverified
 *     rates, fast_p's share of samples, the share correct by each round,
 *     usage and $, and whether the task is held out. Each overall value
 *     has a percentile bootstrap interval that resamples specs (a spec's
 *     variants are one cluster), seeded, so the same records give the
 *     same file. A correct sample is one verified correct on a GPU and
 *     not then found wrong by bench; its speedup is its fastest correct
 *     round's. Tasks of specs named kb<N>-... (scripts/import-kernelbench)
 *     are also summed up by KernelBench level (by_level), with the
 *     problems --problems names that were not evaluated counted as
 *     failed, and their table printed: fast_0, fast_1 and fast_2 by level
 *     against eager and torch.compile. Statuses are read through
 *     lib/round.h, never guessed from text.
 *     --compare reads two such files and, over the tasks both have,
 *     prints each metric's two values, their difference and a paired
 *     bootstrap interval over specs. It lists the tasks that flipped. -o
 *     writes the same as JSON. --table prints a metrics file's
 *     KernelBench table again.
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
#include "stats.h"

static const char usage[] =
	"usage: metrics [options] -o METRICS_JSON RECORD_JSON... (or @LISTFILE)\n"
	"       metrics --compare [options] [-o COMPARE_JSON] BASE_JSON NEW_JSON\n"
	"       metrics --table METRICS_JSON\n";

/* fast_p's thresholds, and their keys */
static const double fastp[] = { 0, 1, 1.5, 2 };
static const char *const fastkey[] = { "0", "1", "1.5", "2" };
enum { NFAST = 4 };

static const char *const usagekeys[] = { "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens",
                                          "reasoning_tokens" };
enum { NUSAGE = 5 };

enum { MAX_LEVEL = 16 }; /* KernelBench's levels, 1 to 4 so far */

struct sample {
	int index;
	int built, correct, unverified;
	int caught;        /* a round verify passed that bench then found wrong */
	int correctround;  /* the first correct round, 0 if none */
	double speedup;    /* the fastest correct round's measured speedup, 0 if none */
	double speedupc;   /* that round's speedup over torch.compile, 0 if none */
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
	int named;            /* provider and model are the first record's */
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

/* what one record came to: correct where a round passed verify and bench did not find it wrong */
static void
readsample(const json_t *r, const char *path, struct sample *s, int *rounds)
{
	const json_t *rd;
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
		if (benchcaught(b)) {
			s->caught = 1;
			continue;
		}
		s->correct = 1;
		if (!s->correctround || j < s->correctround)
			s->correctround = (int)j;
		if (b == ST_MEASURED && jnum(rd, "speedup", 0) > s->speedup) {
			s->speedup = jnum(rd, "speedup", 0);
			s->speedupc = jnum(rd, "speedup_compile", 0) > 0 ? jnum(rd, "speedup_compile", 0) : 0;
		}
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

	if (!E->named) {
		snprintf(E->provider, sizeof E->provider, "%s", p);
		snprintf(E->model, sizeof E->model, "%s", m);
		E->named = 1;
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

/* ---- a task's metrics ---- */

static json_t *
numornull(double v)
{
	return isnan(v) || v <= 0 ? json_null() : json_real(v);
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
		json_array_append_new(a, json_pack("{s:i,s:b,s:b,s:b,s:o,s:o,s:o,s:s}", "sample", s->index, "built", s->built,
		                      "correct", s->correct, "bench_caught", s->caught, "correct_round",
		                      s->correctround ? json_integer(s->correctround) : json_null(), "speedup",
		                      numornull(s->speedup), "speedup_compile", numornull(s->speedupc), "outcome", s->outcome));
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

/* fast_p over eager (compile 0) or torch.compile (1): correct, and for p > 0 a speedup above p */
static int
fast(const struct sample *s, int compile, int p)
{
	return s->correct && (p == 0 || (compile ? s->speedupc : s->speedup) > fastp[p]);
}

/* {p: 1 or 0}: fast_p of the first sample (best 0) or of any sample (best 1) */
static json_t *
fastjson(const struct task *t, int compile, int best)
{
	json_t *j = json_object();
	size_t i;
	int p, hit;

	for (p = 0; p < NFAST; p++) {
		for (hit = 0, i = 0; i < (best ? t->n : 1); i++)
			hit |= fast(&t->s[i], compile, p);
		json_object_set_new(j, fastkey[p], json_integer(hit));
	}
	return j;
}

/* the speedup of the first sample (best 0) or the best sample's, over eager or torch.compile; 0 if none */
static double
speedupof(const struct task *t, int compile, int best)
{
	double v = 0;
	size_t i;

	for (i = 0; i < (best ? t->n : 1); i++)
		if (t->s[i].correct && (compile ? t->s[i].speedupc : t->s[i].speedup) > v)
			v = compile ? t->s[i].speedupc : t->s[i].speedup;
	return v;
}

/* one task's metrics (its samples sorted by index: the first is s[0]) */
static json_t *
taskjson(const struct eval *E, const struct task *t)
{
	json_t *j, *pass = json_object(), *share = json_object(), *by = json_array();
	size_t built = 0, correct = 0, unverified = 0, caught = 0, untimed = 0, timed = 0, by_[MAX_ROUNDS + 1] = { 0 };
	double n = (double)t->n, logsum = 0;
	size_t i, k;
	int p, r;

	for (i = 0; i < t->n; i++) {
		const struct sample *s = &t->s[i];
		built += s->built;
		correct += s->correct;
		unverified += s->unverified;
		caught += s->caught;
		for (r = s->correctround; s->correct && r <= MAX_ROUNDS; r++)
			by_[r]++;
		if (s->correct && s->speedup > 0) {
			timed++;
			logsum += log(s->speedup);
		} else if (s->correct) {
			untimed++;
		}
	}
	for (k = 1; k <= t->n; k++) {
		char key[32];
		snprintf(key, sizeof key, "%zu", k);
		json_object_set_new(pass, key, json_real(passatk(t->n, correct, k)));
	}
	for (p = 0; p < NFAST; p++) {
		size_t c = 0;
		for (i = 0; i < t->n; i++)
			c += (size_t)fast(&t->s[i], 0, p);
		json_object_set_new(share, fastkey[p], json_real((double)c / n));
	}
	for (r = 1; r <= E->rounds; r++)
		json_array_append_new(by, json_real((double)by_[r] / n));
	j = usagejson(t->usage, t->usd, t->unpriced);
	json_object_update_new(j, json_pack("{s:s,s:b,s:I,s:f,s:f,s:f,s:I,s:I,s:o}", "task", t->spec, "held_out",
	                       heldout(t->spec, HELDOUT_FRACTION), "samples", (json_int_t)t->n, "compile_rate",
	                       (double)built / n, "correct_rate", (double)correct / n, "unverified_rate",
	                       (double)unverified / n, "bench_caught", (json_int_t)caught, "untimed_correct",
	                       (json_int_t)untimed, "pass_at", pass));
	json_object_update_new(j, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "fast_first",
	                       fastjson(t, 0, 0), "fast_best", fastjson(t, 0, 1), "fast_compile_first", fastjson(t, 1, 0),
	                       "fast_compile_best", fastjson(t, 1, 1), "fast_samples", share, "speedup_first",
	                       numornull(speedupof(t, 0, 0)), "speedup_best", numornull(speedupof(t, 0, 1)),
	                       "speedup_compile_first", numornull(speedupof(t, 1, 0)), "speedup_compile_best",
	                       numornull(speedupof(t, 1, 1)), "geomean_speedup_samples",
	                       timed ? json_real(exp(logsum / (double)timed)) : json_null(), "correct_after_round", by,
	                       "samples_detail", samplesjson(t)));
	return j;
}

/* ---- the metrics over tasks, with their intervals ---- */

/* how a task's object gives a metric's part: a value (a mean over tasks), a speedup or the samples' speedups (geomeans) */
enum mkind { M_MEAN, M_GEO, M_SAMPLES };

/* a metric over tasks: written as out (out.sub), read from each task's key (key.sub) */
struct mdef {
	char out[48], key[48], sub[16];
	enum mkind kind;
};

static const char *const fastfamily[] = { "fast_first", "fast_best", "fast_compile_first", "fast_compile_best",
	                                  "fast_samples" };

static void
adddef(struct mdef *d, size_t *n, enum mkind kind, const char *out, const char *key, const char *sub)
{
	snprintf(d[*n].out, sizeof d[*n].out, "%s", out);
	snprintf(d[*n].key, sizeof d[*n].key, "%s", key);
	snprintf(d[*n].sub, sizeof d[*n].sub, "%s", sub);
	d[*n].kind = kind;
	++*n;
}

/* the metrics over tasks, pass@k up to k (the fewest samples of a task); malloc'd, *n of them */
static struct mdef *
mdefs(size_t k, size_t *n)
{
	struct mdef *d = xcalloc(8 + k + NFAST * 5, sizeof *d);
	size_t i;
	int p;

	*n = 0;
	adddef(d, n, M_MEAN, "compile_rate", "compile_rate", "");
	adddef(d, n, M_MEAN, "correct_rate", "correct_rate", "");
	adddef(d, n, M_MEAN, "unverified_rate", "unverified_rate", "");
	for (i = 1; i <= k; i++) {
		char key[16];
		snprintf(key, sizeof key, "%zu", i);
		adddef(d, n, M_MEAN, "pass_at", "pass_at", key);
	}
	for (i = 0; i < 5; i++)
		for (p = 0; p < NFAST; p++)
			adddef(d, n, M_MEAN, fastfamily[i], fastfamily[i], fastkey[p]);
	adddef(d, n, M_GEO, "geomean_speedup_first", "speedup_first", "");
	adddef(d, n, M_GEO, "geomean_speedup_best", "speedup_best", "");
	adddef(d, n, M_GEO, "geomean_speedup_compile_first", "speedup_compile_first", "");
	adddef(d, n, M_SAMPLES, "geomean_speedup_samples", "samples_detail", "");
	return d;
}

/* a task's part of metric d: num and den (see stats.h) */
static void
term(const json_t *task, const struct mdef *d, double *num, double *den)
{
	const json_t *v = json_object_get(task, d->key), *s;
	size_t i;

	*num = *den = 0;
	if (d->kind == M_MEAN) {
		*num = json_number_value(*d->sub ? json_object_get(v, d->sub) : v);
		*den = 1;
	} else if (d->kind == M_GEO) {
		if (json_number_value(v) > 0) {
			*num = log(json_number_value(v));
			*den = 1;
		}
	} else {
		json_array_foreach(v, i, s)
			if (jbool(s, "correct", 0) && jnum(s, "speedup", 0) > 0) {
				*num += log(jnum(s, "speedup", 0));
				*den += 1;
			}
	}
}

/* tasks grouped by spec: the clusters the bootstrap resamples */
struct groups {
	const json_t **a, **b;  /* the tasks' objects (b: the other run's, paired, or NULL) */
	size_t n;
	size_t *spec;           /* the cluster of each task */
	size_t nspec;
	size_t pad;             /* problems not evaluated, a cluster each, counted as failed */
};

static void
cluster(struct groups *g)
{
	size_t i, j;

	g->spec = xcalloc(g->n + 1, sizeof *g->spec);
	g->nspec = 0;
	for (i = 0; i < g->n; i++) {
		for (j = 0; j < i && strcmp(jstr(g->a[j], "task", ""), jstr(g->a[i], "task", "")); j++)
			;
		g->spec[i] = j < i ? g->spec[j] : g->nspec++;
	}
}

/* metric d's clusters: run 0 from g->a, run 1 from g->b; the unevaluated problems after them */
static struct cluster *
clusters(const struct groups *g, const struct mdef *d, size_t *n)
{
	struct cluster *c = xcalloc(g->nspec + g->pad + 1, sizeof *c);
	size_t i;

	for (i = 0; i < g->n; i++) {
		double num, den;
		term(g->a[i], d, &num, &den);
		c[g->spec[i]].num[0] += num;
		c[g->spec[i]].den[0] += den;
		if (g->b) {
			term(g->b[i], d, &num, &den);
			c[g->spec[i]].num[1] += num;
			c[g->spec[i]].den[1] += den;
		}
	}
	for (i = 0; i < g->pad; i++) /* failed: a mean's 0 of 1; no kernel to a geomean */
		c[g->nspec + i].den[0] = c[g->nspec + i].den[1] = d->kind == M_MEAN;
	*n = g->nspec + g->pad;
	return c;
}

static json_t *
valueornull(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *
cijson(int ok, const double ci[2])
{
	return ok < 0 ? json_null() : json_pack("[f,f]", ci[0], ci[1]);
}

/* into[name] (or into[name][sub]) = v */
static void
put(json_t *into, const char *name, const char *sub, json_t *v)
{
	json_t *o;

	if (!*sub) {
		json_object_set_new(into, name, v);
		return;
	}
	if (!(o = json_object_get(into, name)))
		json_object_set_new(into, name, o = json_object());
	json_object_set_new(o, sub, v);
}

/* every metric over g's tasks into into: its value as out (out.sub), its interval as out_ci */
static void
summarize(const struct groups *g, const struct mdef *d, size_t nd, const struct boot *b, json_t *into)
{
	size_t i, n;

	for (i = 0; i < nd; i++) {
		struct cluster *c = clusters(g, &d[i], &n);
		struct boot bb = *b;
		char ciname[64];
		double ci[2];
		int ok;
		bb.geo = d[i].kind != M_MEAN;
		bb.paired = 0;
		ok = bootci(&bb, c, n, ci);
		snprintf(ciname, sizeof ciname, "%s_ci", d[i].out);
		put(into, d[i].out, d[i].sub, valueornull(clusterstat(c, NULL, n, 0, bb.geo)));
		put(into, ciname, d[i].sub, cijson(ok, ci));
		free(c);
	}
}

/* the sum over g's tasks of an integer member */
static json_int_t
tasksum(const struct groups *g, const char *key)
{
	json_int_t n = 0;
	size_t i;

	for (i = 0; i < g->n; i++)
		n += jint(g->a[i], key, 0);
	return n;
}

/* the tasks of g with a member that is a number (timed ones), or with a sample a GPU judged */
static json_int_t
taskswith(const struct groups *g, const char *key)
{
	json_int_t n = 0;
	size_t i, k;
	json_t *s;

	for (i = 0; i < g->n; i++) {
		int hit = 0;
		if (*key)
			hit = json_is_number(json_object_get(g->a[i], key));
		else
			json_array_foreach(json_object_get(g->a[i], "samples_detail"), k, s)
				hit |= !strcmp(jstr(s, "outcome", ""), "correct") || !strcmp(jstr(s, "outcome", ""), "incorrect");
		n += hit;
	}
	return n;
}

/* the fewest samples a task of g has (in either run) */
static size_t
fewest(const struct groups *g)
{
	size_t i, n = SIZE_MAX;

	for (i = 0; i < g->n; i++) {
		size_t k = (size_t)jint(g->a[i], "samples", 0), l = g->b ? (size_t)jint(g->b[i], "samples", 0) : k;
		n = k < n ? k : n;
		n = l < n ? l : n;
	}
	return n == SIZE_MAX ? 0 : n;
}

/* a group's summary: its counts, then every metric and interval */
static json_t *
groupjson(struct groups *g, const struct boot *b)
{
	json_t *j;
	struct mdef *d;
	size_t nd;

	cluster(g);
	d = mdefs(fewest(g), &nd);
	j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "problems", (json_int_t)(g->n + g->pad), "tasks",
	              (json_int_t)g->n, "not_evaluated", (json_int_t)g->pad, "specs", (json_int_t)g->nspec, "gpu_judged",
	              taskswith(g, ""), "timed", taskswith(g, "speedup_best"), "compile_timed",
	              taskswith(g, "speedup_compile_best"), "untimed_correct", tasksum(g, "untimed_correct"),
	              "bench_caught", tasksum(g, "bench_caught"));
	summarize(g, d, nd, b, j);
	free(d);
	free(g->spec);
	g->spec = NULL;
	return j;
}

/* the KernelBench level of a spec the importer named kb<N>-..., 0 for none */
static int
kblevel(const char *spec)
{
	int level = 0, end = 0;

	if (sscanf(spec, "kb%d-%n", &level, &end) != 1 || !end || level < 1 || level >= MAX_LEVEL)
		return 0;
	return level;
}

/* --problems LEVEL=N: each level's problem count, evaluated or not */
static void
problems(const struct optlist *l, size_t *count)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		int level = 0, n = 0, end = 0;
		if (sscanf(l->v[i], "%d=%d%n", &level, &n, &end) != 2 || l->v[i][end] || level < 1 || level >= MAX_LEVEL ||
		    n < 0)
			die(EXIT_USAGE, "--problems takes LEVEL=N (a KernelBench level from 1 and a count): '%s'", l->v[i]);
		count[level] = (size_t)n;
	}
}

/* the KernelBench levels' summaries, and all of them together; NULL when no task is an imported problem */
static json_t *
bylevel(const json_t *tasks, const size_t *count, const struct boot *b)
{
	struct groups g;
	json_t *j = json_object(), *t;
	const char *name;
	size_t all = 0, pad = 0;
	int l;

	memset(&g, 0, sizeof g);
	g.a = xcalloc(json_object_size(tasks) + 1, sizeof *g.a);
	for (l = 0; l < MAX_LEVEL; l++) {
		size_t n = 0;
		json_object_foreach((json_t *)tasks, name, t)
			if (kblevel(jstr(t, "task", "")) == l && (g.a[n] = t))
				n++;
		if (!l || (!n && !count[l]))
			continue;
		if (count[l] && count[l] < n)
			die(EXIT_USAGE, "--problems %d=%zu: level %d has %zu tasks evaluated", l, count[l], l, n);
		g.n = n;
		g.pad = count[l] ? count[l] - n : 0;
		all += n;
		pad += g.pad;
		char key[16];
		snprintf(key, sizeof key, "%d", l);
		json_object_set_new(j, key, groupjson(&g, b));
	}
	if (all || pad) {
		size_t n = 0;
		json_object_foreach((json_t *)tasks, name, t)
			if (kblevel(jstr(t, "task", "")) && (g.a[n] = t))
				n++;
		g.n = n;
		g.pad = pad;
		json_object_set_new(j, "all", groupjson(&g, b));
	}
	free(g.a);
	if (!json_object_size(j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

/* ---- the table ---- */

static void
cell(const json_t *o, const char *key, const char *p)
{
	char name[64];
	json_t *v = json_object_get(json_object_get(o, key), p), *c;

	snprintf(name, sizeof name, "%s_ci", key);
	c = json_object_get(json_object_get(o, name), p);
	if (!json_is_number(v))
		printf("  %-19s", "-");
	else if (json_is_array(c))
		printf("  %.3f [%.3f,%.3f]", json_number_value(v), json_number_value(json_array_get(c, 0)),
		       json_number_value(json_array_get(c, 1)));
	else
		printf("  %-19.3f", json_number_value(v));
}

/* one table: a row per level (or the one group), fast_0, fast_1 and fast_2 against eager and torch.compile */
static void
table(const json_t *rows, const char *which, const char *title)
{
	const char *name;
	json_t *o;

	printf("\n%s\n%-6s %8s %9s  %-19s  %-19s  %-19s  %-19s  %s\n", title, "level", "problems", "evaluated",
	       "fast_0", "fast_1 eager", "fast_2 eager", "fast_1 compile", "fast_2 compile");
	json_object_foreach((json_t *)rows, name, o) {
		char eager[48], comp[48];
		snprintf(eager, sizeof eager, "fast_%s", which);
		snprintf(comp, sizeof comp, "fast_compile_%s", which);
		printf("%-6s %8d %9d", name, (int)jint(o, "problems", 0), (int)jint(o, "tasks", 0));
		cell(o, eager, "0");
		cell(o, eager, "1");
		cell(o, eager, "2");
		cell(o, comp, "1");
		cell(o, comp, "2");
		printf("\n");
	}
}

/* KernelBench's table from a metrics file's object: by level, or the whole evaluation */
static void
printtable(const json_t *m, const struct boot *b)
{
	const json_t *levels = json_object_get(m, "by_level"), *o = json_object_get(m, "overall");
	json_t *rows = levels ? json_incref((json_t *)levels) : json_pack("{s:O}", "all", o);
	const json_t *all = levels ? json_object_get(levels, "all") : o;
	size_t most = 0, i;
	const char *name;
	json_t *t;

	json_object_foreach(json_object_get(m, "tasks"), name, t)
		most = (size_t)jint(t, "samples", 0) > most ? (size_t)jint(t, "samples", 0) : most;
	table(rows, "first", "KernelBench's fast_p: each problem's first sample correct and faster than the baseline by "
	      "more than p");
	if (most > 1)
		table(rows, "best", "fast_p, best of k: any of each problem's samples");
	printf("(%d%% bootstrap intervals over specs, %d resamples, seed %d; ", (int)lround(b->level * 100),
	       b->resamples, (int)b->seed);
	printf("%d of %d problems timed, %d against torch.compile", (int)jint(all, "timed", 0),
	       (int)jint(all, "problems", 0), (int)jint(all, "compile_timed", 0));
	i = (size_t)jint(all, "gpu_judged", 0);
	if (!i)
		printf("; no sample ran on a GPU: nothing is correct or timed here, the GPU fills these columns");
	printf(")\n");
	json_decref(rows);
}

/* ---- an evaluation ---- */

static int
evaluate(const char *out, char *const *files, size_t nfiles, const size_t *count, const struct boot *b)
{
	struct eval E;
	struct groups g;
	json_t *tasks = json_object(), *m, *o, *by = json_array(), *late = json_array(), *levels;
	json_int_t u[NUSAGE] = { 0 };
	size_t i, unpriced = 0, samples = 0;
	double usd = 0;
	int r, k;

	memset(&E, 0, sizeof E);
	for (i = 0; i < nfiles; i++)
		readrecord(&E, files[i]);
	if (!E.nt)
		die(EXIT_USAGE, "no records to evaluate");
	qsort(E.t, E.nt, sizeof *E.t, cmptask);
	memset(&g, 0, sizeof g);
	g.a = xcalloc(E.nt, sizeof *g.a);
	for (i = 0; i < E.nt; i++) {
		json_t *tj;
		qsort(E.t[i].s, E.t[i].n, sizeof *E.t[i].s, cmpsample);
		json_object_set_new(tasks, E.t[i].variant, tj = taskjson(&E, &E.t[i]));
		g.a[g.n++] = tj;
		samples += E.t[i].n;
		usd += E.t[i].usd;
		unpriced += E.t[i].unpriced;
		for (k = 0; k < NUSAGE; k++)
			u[k] += E.t[i].usage[k];
		if (!heldout(E.t[i].spec, HELDOUT_FRACTION))
			json_array_append_new(late, json_string(E.t[i].variant));
	}
	for (r = 0; r < E.rounds; r++) {
		double sum = 0;
		for (i = 0; i < g.n; i++)
			sum += json_number_value(json_array_get(json_object_get(g.a[i], "correct_after_round"), (size_t)r));
		json_array_append_new(by, json_real(sum / (double)g.n));
	}
	o = groupjson(&g, b);
	json_object_update_new(o, usagejson(u, usd, unpriced));
	json_object_update_new(o, json_pack("{s:I,s:o,s:o,s:{s:s,s:I,s:f,s:I}}", "samples", (json_int_t)samples,
	                       "correct_after_round", by, "not_held_out", late, "intervals", "method",
	                       "percentile bootstrap over specs (a spec's variants resampled together)", "resamples",
	                       (json_int_t)b->resamples, "level", b->level, "seed", (json_int_t)b->seed));
	m = json_pack("{s:{s:s,s:s},s:o,s:o}", "student", "provider", E.provider, "model", E.model, "overall", o,
	              "tasks", tasks);
	if ((levels = bylevel(tasks, count, b)))
		json_object_set_new(m, "by_level", levels);
	if (jwrite(out, m) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	if (levels)
		printtable(m, b);
	json_decref(m);
	for (i = 0; i < E.nt; i++) {
		free(E.t[i].s);
		free(E.t[i].variant);
		free(E.t[i].spec);
	}
	free(E.t);
	free(g.a);
	return 0;
}

/* ---- --compare ---- */

/* the metric's name in the comparison: its path in metrics.json */
static const char *
metricname(const struct mdef *d, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", d->out, *d->sub ? "." : "", d->sub);
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

	printf("%-34s %10s %10s %10s  %s\n", "metric", "base", "new", "diff", "interval");
	json_object_foreach(json_object_get(c, "metrics"), name, m) {
		json_t *ci = json_object_get(m, "ci");
		static const char *const col[] = { "base", "new", "diff" };
		int k;
		printf("%-34s", name);
		for (k = 0; k < 3; k++)
			if (!json_is_number(json_object_get(m, col[k])))
				printf(" %10s", "-");
			else
				printf(k == 2 ? " %+10.4f" : " %10.4f", jnum(m, col[k], 0));
		if (json_is_array(ci))
			printf("  [%+.4f, %+.4f]", json_number_value(json_array_get(ci, 0)),
			       json_number_value(json_array_get(ci, 1)));
		printf("\n");
	}
	printf("(%d%% paired bootstrap interval over %d specs (%d tasks), %d resamples, seed %d)\n",
	       (int)lround(jnum(c, "level", 0) * 100), (int)jint(c, "specs", 0), (int)jint(c, "tasks", 0),
	       (int)jint(c, "resamples", 0), (int)jint(c, "seed", 0));
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

static int
compare(const struct boot *b, const char *out, const char *apath, const char *bpath)
{
	json_t *A = schemaload(apath, schema_metrics_json), *B = schemaload(bpath, schema_metrics_json), *ta, *tb, *t;
	json_t *ms = json_object(), *c;
	json_t *fixed = json_array(), *broken = json_array();
	struct groups g;
	struct mdef *d;
	const char *name;
	char nbuf[80];
	size_t nd, i, n;

	ta = json_object_get(A, "tasks");
	tb = json_object_get(B, "tasks");
	memset(&g, 0, sizeof g);
	g.a = xcalloc(json_object_size(ta) + 1, sizeof *g.a);
	g.b = xcalloc(json_object_size(ta) + 1, sizeof *g.b);
	json_object_foreach(ta, name, t) {
		json_t *u = json_object_get(tb, name);
		if (!u)
			continue;
		g.a[g.n] = t;
		g.b[g.n++] = u;
		if (jnum(t, "correct_rate", 0) == 0 && jnum(u, "correct_rate", 0) > 0)
			json_array_append_new(fixed, json_string(name));
		if (jnum(t, "correct_rate", 0) > 0 && jnum(u, "correct_rate", 0) == 0)
			json_array_append_new(broken, json_string(name));
	}
	if (!g.n)
		die(EXIT_USAGE, "'%s' and '%s' have no task in common", apath, bpath);
	cluster(&g);
	d = mdefs(fewest(&g), &nd);
	for (i = 0; i < nd; i++) {
		struct cluster *cl = clusters(&g, &d[i], &n);
		struct boot bb = *b;
		double ci[2], x, y;
		int ok;
		bb.geo = d[i].kind != M_MEAN;
		bb.paired = 1;
		ok = bootci(&bb, cl, n, ci);
		x = clusterstat(cl, NULL, n, 0, bb.geo);
		y = clusterstat(cl, NULL, n, 1, bb.geo);
		json_object_set_new(ms, metricname(&d[i], nbuf, sizeof nbuf), json_pack("{s:o,s:o,s:o,s:o}", "base",
		                    valueornull(x), "new", valueornull(y), "diff", valueornull(y - x), "ci", cijson(ok, ci)));
		free(cl);
	}
	c = json_pack("{s:o,s:I,s:I,s:f,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "metrics", ms, "tasks", (json_int_t)g.n,
	              "specs", (json_int_t)g.nspec, "level", b->level, "resamples", (json_int_t)b->resamples, "seed",
	              (json_int_t)b->seed, "fixed", fixed, "broken", broken, "only_base", onlyin(ta, tb), "only_new",
	              onlyin(tb, ta), "base", json_deep_copy(json_object_get(A, "student")), "new",
	              json_deep_copy(json_object_get(B, "student")));
	printcompare(c);
	if (out && jwrite(out, c) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	json_decref(c);
	json_decref(A);
	json_decref(B);
	free(d);
	free(g.spec);
	free(g.a);
	free(g.b);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	int cmp = 0, tab = 0, seed = 1, r;
	struct boot b = { 2000, 0.95, 1, STAT_MEAN, 0 };
	struct optlist in, probs = { 0 };
	size_t count[MAX_LEVEL] = { 0 };
	struct opt opt[] = {
		{ "-o", "FILE", OPT_STR, &out, 0, 0, "the output: METRICS_JSON (or, with --compare, COMPARE_JSON)" },
		{ "--compare", NULL, OPT_FLAG, &cmp, 0, 0, "compare two metrics files: BASE_JSON NEW_JSON" },
		{ "--table", NULL, OPT_FLAG, &tab, 0, 0, "print a metrics file's KernelBench table: METRICS_JSON" },
		{ "--problems", "LEVEL=N", OPT_LIST, &probs, 0, 0,
		  "KernelBench level LEVEL has N problems; those not evaluated count as failed (repeatable)" },
		{ "--resamples", "N", OPT_INT, &b.resamples, 100, 1000000, "bootstrap resamples (default 2000)" },
		{ "--level", "L", OPT_NUM, &b.level, 0.5, 0.999, "the intervals' level (default 0.95)" },
		{ "--seed", "N", OPT_INT, &seed, 0, 2147483647, "the resampling's seed (default 1)" },
		{ 0 }
	};
	const struct optspec spec = { usage, opt, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (cmp && tab)
		optdie(&spec, "--compare and --table are two forms");
	if (cmp && in.n != 2)
		optdie(&spec, "--compare needs two metrics files, BASE_JSON NEW_JSON");
	if (tab && in.n != 1)
		optdie(&spec, "--table needs one metrics file");
	if (!cmp && !tab && (!out || !in.n))
		optdie(&spec, "need -o and records");
	problems(&probs, count);
	b.seed = (uint64_t)seed;
	if (tab) {
		json_t *m = schemaload(in.v[0], schema_metrics_json);
		json_t *iv = json_object_get(json_object_get(m, "overall"), "intervals");
		b.resamples = (int)jint(iv, "resamples", b.resamples);
		b.level = jnum(iv, "level", b.level);
		b.seed = (uint64_t)jint(iv, "seed", (json_int_t)b.seed);
		printtable(m, &b);
		json_decref(m);
		r = 0;
	} else {
		r = cmp ? compare(&b, out, in.v[0], in.v[1]) : evaluate(out, in.v, in.n, count, &b);
	}
	optfree(&in);
	optfree(&probs);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(EXIT_RETRY, "cannot write to standard output:");
	return r;
}
