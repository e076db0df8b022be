/*
 * NAME
 *     report - one HTML page about a build's records
 *
 * SYNOPSIS
 *     report [--metrics FILE]... -o REPORT_HTML RECORD_JSON... (or @LISTFILE)
 *
 * DESCRIPTION
 *     Reads the records and writes a self-contained page: inline CSS and
 *     SVG, no scripts. It shows the counts by outcome; the pass rates per
 *     stage and round (answered, compiled, verified correct, timed); the
 *     distributions of the speedup over the baseline and of % of speed of
 *     light; tokens and $ by teacher model; the slowest correct tasks and
 *     the tasks that failed most.
 *     With --metrics FILE (metrics' output; repeatable) it also shows an
 *     evaluation's metrics, several side by side: the rates, pass@k,
 *     fast_p, the geometric-mean speedup, correct after each round,
 *     tokens and $, overall and per task.
 *
 * FILES
 *     out/report.html, or out/eval/NAME/report.html (ninja report).
 *
 * EXIT STATUS
 *     0 written; 1 cannot write; 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/dataset.md, doc/eval.md
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/util.h"

static const char usage[] = "usage: report [--metrics FILE]... -o REPORT_HTML RECORD_JSON... (or @LISTFILE)\n";

enum { BINS = 12 };

struct model {
	char name[128];
	double samples, in, out, cw, cr, usd, unpriced; /* samples of unknown cost */
};

struct taskstat {
	char name[128];
	double failures, rounds, best;  /* best: lowest speedup seen on a correct sample */
	int correct;
};

static void
esc(struct buf *b, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<': bufputs(b, "&lt;"); break;
		case '>': bufputs(b, "&gt;"); break;
		case '&': bufputs(b, "&amp;"); break;
		case '"': bufputs(b, "&quot;"); break;
		default: bufputc(b, *s);
		}
}

/* an SVG histogram of values over [lo, hi] in BINS bins (log scale when asked) */
static void
histogram(struct buf *b, const double *v, size_t n, double lo, double hi, int logscale, const char *unit)
{
	int counts[BINS] = { 0 }, max = 1, i;
	size_t k;
	const int W = 560, H = 180, pad = 30;

	for (k = 0; k < n; k++) {
		double x = logscale ? log10(fmax(v[k], 1e-9)) : v[k];
		double l = logscale ? log10(lo) : lo, h = logscale ? log10(hi) : hi;
		int bin = (int)((x - l) / (h - l) * BINS);
		bin = bin < 0 ? 0 : bin >= BINS ? BINS - 1 : bin;
		counts[bin]++;
	}
	for (i = 0; i < BINS; i++)
		if (counts[i] > max)
			max = counts[i];
	bufprintf(b, "<svg width=\"%d\" height=\"%d\" role=\"img\"><rect width=\"100%%\" height=\"100%%\" "
	          "fill=\"#fafafa\"/>", W, H + pad);
	for (i = 0; i < BINS; i++) {
		int bw = (W - 2 * pad) / BINS, bh = counts[i] * (H - pad) / max;
		double edge = logscale ? pow(10, log10(lo) + (log10(hi) - log10(lo)) * i / BINS)
		                       : lo + (hi - lo) * i / BINS;
		bufprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#4a7fb5\"/>",
		          pad + i * bw + 1, H - bh, bw - 2, bh);
		if (counts[i])
			bufprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%d</text>",
			          pad + i * bw + bw / 2, H - bh - 3, counts[i]);
		if (i % 2 == 0)
			bufprintf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" text-anchor=\"middle\">%.3g%s</text>",
			          pad + i * bw, H + 14, edge, unit);
	}
	bufputs(b, "</svg>\n");
}

static int
cmpfail(const void *a, const void *b)
{
	const struct taskstat *x = a, *y = b;

	return x->failures < y->failures ? 1 : x->failures > y->failures ? -1 : strcmp(x->name, y->name);
}

static int
cmpslow(const void *a, const void *b)
{
	const struct taskstat *x = a, *y = b;

	if (x->correct != y->correct)
		return y->correct - x->correct;
	return x->best > y->best ? 1 : x->best < y->best ? -1 : strcmp(x->name, y->name);
}

/* what the records add up to */
struct tally {
	size_t nfiles, nsp, nsol, nmodels, ntasks;
	double *speed, *sol, stage[MAX_ROUNDS + 1][5]; /* per round: answers, compiled, GPU-judged, correct, timed */
	long long skipped;                             /* rounds verify skipped: no GPU */
	int maxround;
	struct model *models;
	struct taskstat *tasks;
	json_t *outcomes;
};

/* the model named name in t, added when new */
static struct model *
modelfor(struct tally *t, const char *name)
{
	struct model *m;
	size_t j;

	for (j = 0; j < t->nmodels; j++)
		if (!strcmp(t->models[j].name, name))
			return &t->models[j];
	t->models = xreallocarray(t->models, t->nmodels + 1, sizeof *t->models);
	m = &t->models[t->nmodels++];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	return m;
}

/* the variant named name in t, added when new */
static struct taskstat *
taskfor(struct tally *t, const char *name)
{
	struct taskstat *ts;
	size_t j;

	for (j = 0; j < t->ntasks; j++)
		if (!strcmp(t->tasks[j].name, name))
			return &t->tasks[j];
	t->tasks = xreallocarray(t->tasks, t->ntasks + 1, sizeof *t->tasks);
	ts = &t->tasks[t->ntasks++];
	memset(ts, 0, sizeof *ts);
	snprintf(ts->name, sizeof ts->name, "%s", name);
	ts->best = INFINITY;
	return ts;
}

/* one record's rounds into the pass rates per stage and round */
static void
tallyrounds(struct tally *t, json_t *rec)
{
	json_t *rd;
	size_t j;
	int r;

	json_array_foreach(json_object_get(rec, "rounds"), j, rd) {
		r = (int)jint(rd, "round", 0);
		if (r < 1 || r > MAX_ROUNDS)
			continue;
		if (r > t->maxround)
			t->maxround = r;
		t->stage[r][0]++;
		t->stage[r][1] += statusnamed(jstr(rd, "compile", "")) == ST_OK;
		t->stage[r][2] += gpujudged(statusnamed(jstr(rd, "verify", "")));
		t->stage[r][3] += statusnamed(jstr(rd, "verify", "")) == ST_CORRECT;
		t->stage[r][4] += statusnamed(jstr(rd, "bench", "")) == ST_MEASURED;
		t->skipped += statusnamed(jstr(rd, "verify", "")) == ST_SKIPPED;
	}
}

/* one record into t */
static void
tallyrecord(struct tally *t, json_t *rec)
{
	const char *oc = jstr(rec, "outcome", "?");
	json_t *u = json_object_get(rec, "usage"), *rd;
	struct model *m = modelfor(t, jstr(json_object_get(rec, "teacher"), "model", "?"));
	struct taskstat *ts = taskfor(t, jstr(rec, "variant", "?"));
	size_t j;

	json_object_set_new(t->outcomes, oc, json_integer(jint(t->outcomes, oc, 0) + 1));
	if (json_is_number(json_object_get(rec, "speedup")))
		t->speed[t->nsp++] = jnum(rec, "speedup", 0);
	if (json_is_number(json_object_get(rec, "sol_percent")))
		t->sol[t->nsol++] = jnum(rec, "sol_percent", 0);
	tallyrounds(t, rec);
	m->samples++;
	m->in += jnum(u, "input_tokens", 0);
	m->out += jnum(u, "output_tokens", 0);
	m->cw += jnum(u, "cache_write_tokens", 0);
	m->cr += jnum(u, "cache_read_tokens", 0);
	m->usd += jnum(rec, "cost_usd", 0);
	m->unpriced += json_is_null(json_object_get(rec, "cost_usd"));
	json_array_foreach(json_object_get(rec, "rounds"), j, rd) {
		enum status v = statusnamed(jstr(rd, "verify", ""));
		ts->rounds++;
		ts->failures += statusnamed(jstr(rd, "compile", "")) != ST_OK || (gpujudged(v) && v != ST_CORRECT);
	}
	if (outcomeof(rec) == OUTCOME_CORRECT) {
		ts->correct = 1;
		if (json_is_number(json_object_get(rec, "speedup")) && jnum(rec, "speedup", 0) < ts->best)
			ts->best = jnum(rec, "speedup", 0);
	}
}

/* the page's head, the counts by outcome and the pass rates per stage and round */
static void
pagestages(struct buf *b, const struct tally *t)
{
	const char *k;
	json_t *v;
	int r;

	bufputs(b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>retort report</title><style>"
	        "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:1100px}"
	        "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 9px;"
	        "text-align:right}th{background:#eef}td:first-child,th:first-child{text-align:left}"
	        "h2{margin-top:1.6em;border-bottom:1px solid #ddd}.grid{display:flex;gap:2em;flex-wrap:wrap}"
	        "</style></head><body>\n<h1>retort report</h1>\n");
	bufprintf(b, "<p>%zu samples.", t->nfiles);
	json_object_foreach(t->outcomes, k, v) {
		bufputc(b, ' ');
		esc(b, k); /* the records' text: no markup of theirs reaches the page */
		bufprintf(b, ": %" JSON_INTEGER_FORMAT ".", json_integer_value(v));
	}
	bufputs(b, "</p>\n<h2>Pass rate per stage and round</h2>\n<table><tr><th>round</th><th>answers</th>"
	        "<th>compiled</th><th>verified on a GPU</th><th>correct</th><th>timed</th></tr>\n");
	for (r = 1; r <= t->maxround; r++) {
		const double *s = t->stage[r];
		double n = s[0] ? s[0] : 1;
		bufprintf(b, "<tr><td>%d</td><td>%.0f</td><td>%.0f (%.0f%%)</td><td>%.0f</td><td>%.0f (%.0f%% of "
		          "verified)</td><td>%.0f</td></tr>\n", r, s[0], s[1], 100 * s[1] / n, s[2], s[3],
		          s[2] ? 100 * s[3] / s[2] : 0, s[4]);
	}
	bufputs(b, "</table>\n");
	if (t->skipped) {
		char *why = nogpuwhy(t->skipped);
		double judged = 0;
		for (r = 1; r <= t->maxround; r++)
			judged += t->stage[r][2];
		if (judged) /* some ran on a GPU (records from another host): not none */
			bufprintf(b, "<p><b>Why %lld round%s not verified:</b> ", t->skipped,
			          t->skipped == 1 ? " was" : "s were");
		else
			bufputs(b, "<p><b>Why none was verified:</b> ");
		esc(b, why);
		bufputs(b, ".</p>\n");
		free(why);
	}
}

/* the speedup and speed-of-light histograms, and the cost by model */
static void
pagespeedcost(struct buf *b, const struct tally *t)
{
	size_t i;

	bufputs(b, "<div class=\"grid\"><div><h2>Speedup over the baseline</h2>\n");
	if (t->nsp)
		histogram(b, t->speed, t->nsp, 0.1, 10, 1, "x");
	else
		bufputs(b, "<p>No timed correct samples (no GPU, or no baselines).</p>\n");
	bufputs(b, "</div><div><h2>% of speed of light</h2>\n");
	if (t->nsol)
		histogram(b, t->sol, t->nsol, 0, 100, 0, "%");
	else
		bufputs(b, "<p>No timed correct samples.</p>\n");
	bufputs(b, "</div></div>\n<h2>Cost by model</h2>\n<table><tr><th>model</th><th>samples</th><th>input</th>"
	        "<th>output</th><th>cache write</th><th>cache read</th><th>USD</th></tr>\n");
	for (i = 0; i < t->nmodels; i++) {
		const struct model *m = &t->models[i];
		bufputs(b, "<tr><td>");
		esc(b, m->name);
		bufprintf(b, "</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.0f</td><td>", m->samples,
		          m->in, m->out, m->cw, m->cr);
		if (m->unpriced)
			bufprintf(b, "%.4f + price unknown for %.0f samples</td></tr>\n", m->usd, m->unpriced);
		else
			bufprintf(b, "%.4f</td></tr>\n", m->usd);
	}
	bufputs(b, "</table>\n");
}

/* a metric of each run in a row: key (and sub, a member of key's object, or index into key's array) */
static void
evalrow(struct buf *b, const char *label, json_t **runs, size_t n, const char *task, const char *key,
        const char *sub, int index)
{
	size_t i;

	bufputs(b, "<tr><td>");
	esc(b, label);
	bufputs(b, "</td>");
	for (i = 0; i < n; i++) {
		json_t *o = task ? json_object_get(json_object_get(runs[i], "tasks"), task) : json_object_get(runs[i], "overall");
		json_t *v = json_object_get(o, key);
		if (sub)
			v = json_object_get(v, sub);
		else if (index >= 0)
			v = json_array_get(v, (size_t)index);
		if (json_is_integer(v))
			bufprintf(b, "<td>%lld</td>", (long long)json_integer_value(v));
		else if (json_is_number(v))
			bufprintf(b, "<td>%.4f</td>", json_number_value(v));
		else
			bufputs(b, "<td>-</td>");
	}
	bufputs(b, "</tr>\n");
}

/* the header of a table with a column per run */
static void
evalhead(struct buf *b, const char *first, json_t **runs, char *const *paths, size_t n)
{
	size_t i;

	bufprintf(b, "<table><tr><th>%s</th>", first);
	for (i = 0; i < n; i++) {
		json_t *st = json_object_get(runs[i], "student");
		bufputs(b, "<th>");
		esc(b, jstr(st, "provider", "?"));
		bufputs(b, " / ");
		esc(b, jstr(st, "model", "?"));
		bufputs(b, "<br><small>");
		esc(b, paths[i]);
		bufputs(b, "</small></th>");
	}
	bufputs(b, "</tr>\n");
}

/* the evaluations' metrics (metrics), side by side */
static void
pageeval(struct buf *b, const struct optlist *metrics)
{
	static const char *const fast[] = { "0", "1", "1.5", "2" };
	static const char *const family[][2] = { { "fast_first", "first sample" }, { "fast_best", "best of k" },
		                                  { "fast_compile_first", "first sample, over torch.compile" } };
	json_t **runs = xcalloc(metrics->n + 1, sizeof *runs), *v;
	const char *name, *k;
	char label[64];
	size_t i, r, f;

	if (!metrics->n) {
		free(runs);
		return;
	}
	for (i = 0; i < metrics->n; i++)
		runs[i] = schemaload(metrics->v[i], schema_metrics_json);
	bufputs(b, "<h2>Evaluation</h2>\n");
	evalhead(b, "metric", runs, metrics->v, metrics->n);
	evalrow(b, "tasks", runs, metrics->n, NULL, "tasks", NULL, -1);
	evalrow(b, "samples", runs, metrics->n, NULL, "samples", NULL, -1);
	evalrow(b, "compile rate", runs, metrics->n, NULL, "compile_rate", NULL, -1);
	evalrow(b, "correct rate", runs, metrics->n, NULL, "correct_rate", NULL, -1);
	evalrow(b, "unverified rate (no GPU)", runs, metrics->n, NULL, "unverified_rate", NULL, -1);
	json_object_foreach(json_object_get(json_object_get(runs[0], "overall"), "pass_at"), k, v) {
		snprintf(label, sizeof label, "pass@%s", k);
		evalrow(b, label, runs, metrics->n, NULL, "pass_at", k, -1);
	}
	for (f = 0; f < 3; f++)
		for (i = 0; i < 4; i++) {
			snprintf(label, sizeof label, "fast_%s (%s)", fast[i], family[f][1]);
			evalrow(b, label, runs, metrics->n, NULL, family[f][0], fast[i], -1);
		}
	evalrow(b, "geomean speedup (first sample, correct)", runs, metrics->n, NULL, "geomean_speedup_first", NULL, -1);
	evalrow(b, "geomean speedup (correct samples)", runs, metrics->n, NULL, "geomean_speedup_samples", NULL, -1);
	for (r = 0; r < json_array_size(json_object_get(json_object_get(runs[0], "overall"), "correct_after_round")); r++) {
		snprintf(label, sizeof label, "correct after round %zu", r + 1);
		evalrow(b, label, runs, metrics->n, NULL, "correct_after_round", NULL, (int)r);
	}
	evalrow(b, "input tokens", runs, metrics->n, NULL, "usage", "input_tokens", -1);
	evalrow(b, "output tokens", runs, metrics->n, NULL, "usage", "output_tokens", -1);
	evalrow(b, "USD", runs, metrics->n, NULL, "cost_usd", NULL, -1);
	bufputs(b, "</table>\n<h2>Evaluation by task (correct rate, fast_1 of the first sample)</h2>\n");
	evalhead(b, "task", runs, metrics->v, metrics->n);
	for (i = 0; i < metrics->n; i++)
		json_object_foreach(json_object_get(runs[i], "tasks"), name, v) {
			size_t j;
			for (j = 0; j < i && !json_object_get(json_object_get(runs[j], "tasks"), name); j++)
				;
			if (j < i) /* an earlier run's row has it */
				continue;
			evalrow(b, name, runs, metrics->n, name, "correct_rate", NULL, -1);
			evalrow(b, "fast_1", runs, metrics->n, name, "fast_first", "1", -1);
		}
	bufputs(b, "</table>\n");
	for (i = 0; i < metrics->n; i++)
		json_decref(runs[i]);
	free(runs);
}

/* the most failed and the slowest correct variants (t's tasks sorted in place) */
static void
pagetasks(struct buf *b, struct tally *t)
{
	size_t i;

	bufputs(b, "<div class=\"grid\"><div><h2>Most failed tasks</h2>\n<table><tr><th>variant</th>"
	        "<th>failed rounds</th><th>rounds</th></tr>\n");
	qsort(t->tasks, t->ntasks, sizeof *t->tasks, cmpfail);
	for (i = 0; i < t->ntasks && i < 15; i++) {
		bufputs(b, "<tr><td>");
		esc(b, t->tasks[i].name);
		bufprintf(b, "</td><td>%.0f</td><td>%.0f</td></tr>\n", t->tasks[i].failures, t->tasks[i].rounds);
	}
	bufputs(b, "</table></div><div><h2>Slowest correct tasks</h2>\n<table><tr><th>variant</th><th>speedup</th></tr>\n");
	qsort(t->tasks, t->ntasks, sizeof *t->tasks, cmpslow);
	for (i = 0; i < t->ntasks && i < 15 && t->tasks[i].correct; i++) {
		bufputs(b, "<tr><td>");
		esc(b, t->tasks[i].name);
		if (isfinite(t->tasks[i].best))
			bufprintf(b, "</td><td>%.2fx</td></tr>\n", t->tasks[i].best);
		else
			bufputs(b, "</td><td>-</td></tr>\n");
	}
	bufputs(b, "</table></div></div>\n</body></html>\n");
}

/* the page about the records (files, nfiles of them) written to out */
static int
report(const char *out, char *const *files, size_t nfiles, const struct optlist *metrics)
{
	struct tally t;
	struct buf b;
	size_t i;

	memset(&t, 0, sizeof t);
	t.nfiles = nfiles;
	t.outcomes = json_object();
	t.speed = xcalloc(nfiles + 1, sizeof *t.speed);
	t.sol = xcalloc(nfiles + 1, sizeof *t.sol);
	for (i = 0; i < nfiles; i++) {
		char err[512];
		json_t *rec = jload(files[i], err, sizeof err);
		if (!rec)
			die(EXIT_USAGE, "%s", err);
		if (schemacheck(rec, schema_record, err, sizeof err) < 0)
			die(EXIT_USAGE, "not a record of this dataset's fields (lib/schema.c): %s: '%s'", err, files[i]);
		tallyrecord(&t, rec);
		json_decref(rec);
	}
	bufinit(&b, (size_t)1 << 30);
	pagestages(&b, &t);
	pagespeedcost(&b, &t);
	pageeval(&b, metrics);
	pagetasks(&b, &t);
	if (writefile(out, b.s, b.n) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	buffree(&b);
	free(t.speed);
	free(t.sol);
	free(t.models);
	free(t.tasks);
	json_decref(t.outcomes);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *out = NULL;
	struct optlist in, metrics = { 0 };
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &out, 0, 0, "the output, REPORT_HTML" },
		{ "--metrics", "FILE", OPT_LIST, &metrics, 0, 0, "an evaluation's metrics (metrics; repeatable: "
		  "side by side)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!out)
		optdie(&spec, "need -o REPORT_HTML");
	r = report(out, in.v, in.n, &metrics);
	optfree(&in);
	optfree(&metrics);
	return r;
}
