/*
 * propose.c - the proposal part of the graph (configure --propose=FILE):
 * per family and batch of the curriculum, a request to the teacher,
 * propose-check on each round's answer and a repair round for what
 * failed; the independent references (ref2/, ref3/); then propose-accept
 * over every check and agreement, whose accepted.json build.ninja depends
 * on. It also writes each batch's request (gen --propose-split), and the
 * edges of the `reference: teacher` specs (teacherrefedges).
 * doc/propose.md describes the graph.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/json.h"
#include "../lib/util.h"
#include "yaml.h"
#include "curriculum.h"
#include "propose.h"

/* doc/specs.md's "## Task spec reference" section, up to the next "## " heading (malloc'd), or NULL */
static char *
specformat(const char *readme)
{
	struct buf b;
	char *start, *end, *r;

	bufinit(&b, 1 << 22);
	if (readfile(readme, &b) < 0) {
		diag(readme, 0, 0, "cannot read the spec format's source (doc/specs.md)");
		buffree(&b);
		return NULL;
	}
	start = strstr(b.s, "\n## Task spec reference\n");
	if (!start) {
		diag(readme, 0, 0, "no '## Task spec reference' section: the proposals' prompt shows it");
		buffree(&b);
		return NULL;
	}
	start += strlen("\n## Task spec reference\n");
	end = strstr(start, "\n## ");
	r = end ? xstrndup(start, (size_t)(end - start)) : xstrdup(start);
	buffree(&b);
	return r;
}

/* the exemplars' text, each in a yaml block */
static char *
exemplars(const struct family *f, const char *tasksdir)
{
	struct buf b, one;
	size_t i;

	bufinit(&b, 1 << 24);
	for (i = 0; i < f->nexemplars; i++) {
		char *p = xasprintf("%s/%s.yaml", tasksdir, f->exemplars[i]);
		bufinit(&one, 1 << 20);
		if (readfile(p, &one) < 0)
			diag(p, 0, 0, "cannot read the exemplar");
		else
			bufprintf(&b, "```yaml\n%s%s```\n\n", one.s, one.n && one.s[one.n - 1] == '\n' ? "" : "\n");
		buffree(&one);
		free(p);
	}
	return bufdetach(&b);
}

static char *
joined(char **v, const char *none)
{
	struct buf b;

	bufinit(&b, 1 << 16);
	for (char **p = v; p && *p; p++)
		bufprintf(&b, "%s%s", p == v ? "" : ", ", *p);
	if (!b.n)
		bufputs(&b, none);
	return bufdetach(&b);
}

/* the request of batch k of family f */
static json_t *
batchtask(const struct curriculum *cu, const struct family *f, int k, const char *format, const char *ex,
          size_t first)
{
	int count = k == f->nbatches - 1 ? f->count - k * f->batch : f->batch;
	char *angle = curriculumangle(f, k), *dt = joined(f->dtypes, "any"), *sz = joined(f->sizes, "any");
	char id[128], n[16], marker[256];
	json_t *t;

	snprintf(id, sizeof id, "propose/%s/b%d", f->name, k);
	snprintf(n, sizeof n, "%d", count);
	snprintf(marker, sizeof marker, "<!-- retort-propose family=%s batch=%d count=%d first=%zu -->", f->name, k,
	         count, first + (size_t)k * (size_t)f->batch);
	t = json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:i,s:{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}}",
	              "version", 1, "id", id, "kind", "proposal", "prompt", "propose", "system", "propose-system",
	              "repair", "propose-repair", "family", f->name, "batch", k, "count", count, "rounds", cu->rounds,
	              "vars", "family", f->name, "covers", f->covers, "count", n, "angle", angle, "difficulty",
	              f->difficulty, "dtypes", dt, "size_classes", sz, "spec_format", format, "exemplars", ex,
	              "marker", marker);
	/* a vendor routine: the prompt says so (empty: it says nothing), and propose-check's baseline_vendor holds each proposal to it */
	json_object_set_new(json_object_get(t, "vars"), "vendor", json_string(f->vendor ? f->vendor : ""));
	if (f->vendor)
		json_object_set_new(t, "vendor", json_string(f->vendor));
	free(angle);
	free(dt);
	free(sz);
	return t;
}

int
proposesplit(const char *curriculum, const char *tasksdir, const char *outdir, const char *readme)
{
	struct curriculum cu;
	char *format;
	size_t i, first = 0;
	int k, r = 0;

	if (curriculumload(curriculum, tasksdir, &cu) < 0 || !(format = specformat(readme))) {
		curriculumfree(&cu);
		return EXIT_USAGE;
	}
	for (i = 0; i < cu.nf && !r; i++) {
		char *ex = exemplars(&cu.f[i], tasksdir);
		for (k = 0; k < cu.f[i].nbatches && !r; k++) {
			json_t *t = batchtask(&cu, &cu.f[i], k, format, ex, first);
			char *path = xasprintf("%s/propose/%s/b%d/task.json", outdir, cu.f[i].name, k);
			if (jwrite(path, t) < 0) {
				warn("cannot write '%s':", path);
				r = EXIT_RETRY;
			}
			free(path);
			json_decref(t);
		}
		free(ex);
		first += (size_t)cu.f[i].count;
	}
	free(format);
	curriculumfree(&cu);
	return r;
}

/*
 * --batch: per stage (each round, then the second and the third
 * references) its request edges' inputs and responses, for the stage's
 * batch edge (out/batch/propose-<stage>.json, query-llm --batch), which
 * every request edge of the stage waits for, order-only, as gen.c's
 * rounds do.
 */
enum { MAXSTAGES = 24 };
static struct {
	int on;
	struct buf in[MAXSTAGES], out[MAXSTAGES], templates[MAXSTAGES];
	char name[MAXSTAGES][16];
} apib;

/* the request edge OUT (of stage, named name) over inputs with templates */
static void
queryedge(struct buf *b, const char *d, const char *out, const char *inputs, const char *templates, int r, int stage,
          const char *name)
{
	bufprintf(b, "build %s: query %s | $bindir/query-llm %s/model.json %s", out, inputs, d, templates);
	if (apib.on && stage < MAXSTAGES) {
		bufprintf(b, " || %s/batch/propose-%s.json", d, name);
		if (!apib.in[stage].s) {
			bufinit(&apib.in[stage], (size_t)1 << 32);
			bufinit(&apib.out[stage], (size_t)1 << 32);
			bufinit(&apib.templates[stage], 1 << 12);
			bufputs(&apib.templates[stage], templates);
			snprintf(apib.name[stage], sizeof apib.name[stage], "%s", name);
		}
		bufprintf(&apib.in[stage], " $\n    %s", inputs);
		bufprintf(&apib.out[stage], " $\n    %s", out);
	}
	bufprintf(b, "\n  s = 0\n  r = %d\n", r);
}

/* --batch: each stage's batch edge */
static void
apibatchedges(struct buf *b, const char *d)
{
	int i;

	for (i = 0; i < MAXSTAGES; i++) {
		if (!apib.in[i].s)
			continue;
		bufprintf(b, "build %s/batch/propose-%s.json: batch%s | $bindir/query-llm %s/model.json %s\n"
		          "  r = %s (proposals)\n  responses =%s\n", d, apib.name[i], apib.in[i].s, d, apib.templates[i].s,
		          apib.name[i], apib.out[i].s);
		buffree(&apib.in[i]), buffree(&apib.out[i]), buffree(&apib.templates[i]);
	}
}

/* a batch's independent references: the second of every proposal that
 * passed, compared with its own (ref2/agree.json); a third where those
 * two disagree (agree.json: the batch's agreement) */
static void
refedges(struct buf *b, const struct curriculum *cu, const struct family *f, int k, const char *d,
         const char *tasksdir)
{
	char base[512];
	int r;

	if (snprintf(base, sizeof base, "%s/propose/%s/b%d", d, f->name, k) >= (int)sizeof base - 64)
		die(EXIT_USAGE, "--out '%s': too long a path for the proposals' files", d);
	bufprintf(b, "build %s/ref2/task.json: propref %s/task.json", base, base);
	for (r = 1; r <= cu->rounds; r++)
		bufprintf(b, " %s/r%d/check.json", base, r);
	bufprintf(b, " | $bindir/propose-check\n  n = 2\n");
	bufprintf(b, "build %s/ref3/task.json: propref %s/task.json %s/ref2/agree.json | $bindir/propose-check\n"
	          "  n = 3\n", base, base, base);
	for (r = 2; r <= 3; r++) {
		char out[600], in[600], tpl[1100], name[16];
		snprintf(out, sizeof out, "%s/ref%d/response.json", base, r);
		snprintf(in, sizeof in, "%s/ref%d/task.json", base, r);
		snprintf(tpl, sizeof tpl, "%s/prompts/propose-reference-system.md %s/prompts/propose-reference.md", tasksdir,
		         tasksdir);
		snprintf(name, sizeof name, "ref%d", r);
		queryedge(b, d, out, in, tpl, 1, cu->rounds + r - 1, name);
		bufprintf(b, "build %s/%s: propagree %s/ref%d/task.json %s/ref%d/response.json%s%s%s | "
		          "$bindir/propose-check $bindir/prepare %s/runtime/refrun.o src/runtime/refrun.h "
		          "src/lib/tensor.h src/lib/draw.h src/lib/dtype.h\n", base, r == 2 ? "ref2/agree.json" : "agree.json", base, r,
		          base, r, r == 3 ? " " : "", r == 3 ? base : "", r == 3 ? "/ref2/agree.json" : "", d);
	}
}

/* one batch's rounds: ask, check; from round 2 with the previous round's check */
static void
batchedges(struct buf *b, const struct curriculum *cu, const struct family *f, int k, const char *d,
           const char *tasksdir, struct buf *checks)
{
	int r;

	for (r = 1; r <= cu->rounds; r++) {
		char out[600], in[1900], tpl[1700], name[16];
		int n = snprintf(in, sizeof in, "%s/propose/%s/b%d/task.json", d, f->name, k);
		if (n < 0 || (size_t)n >= sizeof in / 3 ||
		    snprintf(out, sizeof out, "%s/propose/%s/b%d/r%d/response.json", d, f->name, k, r) >= (int)sizeof out)
			die(EXIT_USAGE, "--out '%s': too long a path for the proposals' files", d);
		if (r > 1)
			snprintf(in + n, sizeof in - (size_t)n, " %s/propose/%s/b%d/r%d/response.json "
			         "%s/propose/%s/b%d/r%d/check.json", d, f->name, k, r - 1, d, f->name, k, r - 1);
		snprintf(tpl, sizeof tpl, "%s/prompts/propose-system.md %s/prompts/propose.md%s%s%s", tasksdir, tasksdir,
		         r > 1 ? " " : "", r > 1 ? tasksdir : "", r > 1 ? "/prompts/propose-repair.md" : "");
		snprintf(name, sizeof name, "r%d", r);
		queryedge(b, d, out, in, tpl, r, r, name);
		bufprintf(b, "build %s/propose/%s/b%d/r%d/check.json: propcheck %s/propose/%s/b%d/task.json "
		          "%s/propose/%s/b%d/r%d/response.json", d, f->name, k, r, d, f->name, k, d, f->name, k, r);
		if (r > 1)
			bufprintf(b, " %s/propose/%s/b%d/r%d/check.json", d, f->name, k, r - 1);
		bufprintf(b, " | $bindir/propose-check $bindir/prepare $bindir/verify %s/runtime/refrun.o "
		          "src/runtime/refrun.h src/lib/tensor.h src/lib/draw.h src/lib/dtype.h\n", d);
		bufprintf(checks, " $\n    %s/propose/%s/b%d/r%d/check.json", d, f->name, k, r);
	}
	refedges(b, cu, f, k, d, tasksdir);
	bufprintf(checks, " $\n    %s/propose/%s/b%d/agree.json", d, f->name, k);
}

int
proposeedges(struct buf *b, const char *curriculum, const char *tasksdir, const char *outdir, const char *readme,
             char *const *corpus, int batch)
{
	struct curriculum cu;
	struct buf checks;
	size_t i, j;
	int k, any = 0;

	if (curriculumload(curriculum, tasksdir, &cu) < 0)
		return -1;
	if (cu.rounds + 2 >= MAXSTAGES - 2) /* the last two: the teacher references' */
		batch = 0;
	apib.on = batch;
	bufprintf(b, "# ---- proposals: %zu families, %zu problems, from %s ----\n", cu.nf, cu.total, curriculum);
	for (i = 0; i < cu.nf; i++)
		for (k = 0; k < cu.f[i].nbatches; k++) {
			bufprintf(b, "%s%s/propose/%s/b%d/task.json", any ? " $\n    " : "build ", outdir, cu.f[i].name, k);
			any = 1;
		}
	bufprintf(b, ": propsplit %s | $gen %s", curriculum, readme);
	for (i = 0; i < cu.nf; i++)
		for (j = 0; j < cu.f[i].nexemplars; j++)
			bufprintf(b, " %s/%s.yaml", tasksdir, cu.f[i].exemplars[j]);
	bufputs(b, "\n");
	bufinit(&checks, (size_t)1 << 32);
	for (i = 0; i < cu.nf; i++)
		for (k = 0; k < cu.f[i].nbatches; k++)
			batchedges(b, &cu, &cu.f[i], k, outdir, tasksdir, &checks);
	apibatchedges(b, outdir);
	/* the hand-written specs' fingerprints and MinHashes: no proposal may be their twin */
	bufprintf(b, "build %s/propose/corpus.json: propcorpus", outdir);
	for (i = 0; corpus[i]; i++)
		bufprintf(b, " $\n    %s", corpus[i]);
	bufprintf(b, " | $bindir/propose-check $bindir/prepare %s/runtime/refrun.o\n", outdir);
	bufprintf(b, "build %s/propose/accepted.json | %s/propose/report.json: propaccept%s | %s/propose/corpus.json "
	          "$bindir/propose-accept\nbuild propose: phony %s/propose/accepted.json\n\n", outdir, outdir, checks.s,
	          outdir, outdir);
	buffree(&checks);
	curriculumfree(&cu);
	return 0;
}

/*
 * The specs with `reference: teacher` (seed step 2 for hand-written specs):
 * per spec file tasks/NAME.yaml, in OUT/teacherref/NAME/, two independent
 * requests for its reference (ref1/, ref2/: propose-check --ask-reference
 * 1 and 2 --spec, the spec without its reference and the reference's
 * signature (each distinct one of its variants'), as a proposal's second
 * reference is asked), compared in the sandbox (ref2/agree.json: the first
 * variant; the kept one checked on a variant of every signature), a third
 * where they disagree (ref3/, agree.json);
 * then propose-accept --teacher-references over every spec and agreement:
 * the completed specs (OUT/teacherref/specs/NAME.yaml, gen's in place of
 * tasks/NAME.yaml) and OUT/teacherref/accepted.json, which build.ninja
 * depends on (configure reads the graph's "# teacher references:" line).
 * With --batch, the first two requests of every spec are one stage
 * (propose-tref.json), the thirds another (propose-tref3.json).
 */
void
teacherrefedges(struct buf *b, char *const *specs, const char *tasksdir, const char *outdir, int batch)
{
	char tpl[1100];
	struct buf pairs, done;
	size_t i;

	apib.on = batch;
	snprintf(tpl, sizeof tpl, "%s/prompts/propose-reference-system.md %s/prompts/propose-reference.md", tasksdir,
	         tasksdir);
	bufinit(&pairs, (size_t)1 << 28);
	bufinit(&done, (size_t)1 << 28);
	bufputs(b, "# ---- teacher references: the specs with reference: teacher ----\n");
	for (i = 0; specs[i]; i++) {
		const char *p = specs[i], *name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		char base[700], out[800], in[800];
		int n;
		if (snprintf(base, sizeof base, "%s/teacherref/%.*s", outdir, (int)(strlen(name) - 5), name) >=
		    (int)sizeof base - 64)
			die(EXIT_USAGE, "--out '%s': too long a path for the teacher references' files", outdir);
		bufprintf(b, "build %s/ref1/task.json: specref %s | $bindir/propose-check\n  n = 1\n", base, p);
		bufprintf(b, "build %s/ref2/task.json: specref %s | $bindir/propose-check\n  n = 2\n", base, p);
		bufprintf(b, "build %s/ref3/task.json: specref %s %s/ref2/agree.json | $bindir/propose-check\n  n = 3\n",
		          base, p, base);
		for (n = 1; n <= 3; n++) {
			snprintf(out, sizeof out, "%s/ref%d/response.json", base, n);
			snprintf(in, sizeof in, "%s/ref%d/task.json", base, n);
			queryedge(b, outdir, out, in, tpl, 1, n < 3 ? MAXSTAGES - 2 : MAXSTAGES - 1, n < 3 ? "tref" : "tref3");
		}
		bufprintf(b, "build %s/ref2/agree.json: propagree %s/ref2/task.json %s/ref2/response.json | "
		          "%s/ref1/response.json $bindir/propose-check $bindir/prepare %s/runtime/refrun.o "
		          "src/runtime/refrun.h src/lib/tensor.h src/lib/draw.h src/lib/dtype.h\n  flags = --first-response "
		          "%s/ref1/response.json\n", base, base, base, base, outdir, base);
		bufprintf(b, "build %s/agree.json: propagree %s/ref3/task.json %s/ref3/response.json %s/ref2/agree.json | "
		          "$bindir/propose-check $bindir/prepare %s/runtime/refrun.o src/runtime/refrun.h "
		          "src/lib/tensor.h src/lib/draw.h src/lib/dtype.h\n", base, base, base, base, outdir);
		bufprintf(&pairs, " $\n    %s %s/agree.json", p, base);
		snprintf(out, sizeof out, "%s/teacherref/specs/%s", outdir, name);
		if (access(out, F_OK) == 0) /* the completed ones gen found: the edge writes them */
			bufprintf(&done, " %s", out);
	}
	apibatchedges(b, outdir);
	bufprintf(b, "build %s/teacherref/accepted.json%s%s: refaccept%s | $bindir/propose-accept\n"
	          "build teacherref: phony %s/teacherref/accepted.json\n\n", outdir, done.n ? " |" : "",
	          done.n ? done.s : "", pairs.s, outdir);
	buffree(&pairs);
	buffree(&done);
}
