/*
 * NAME
 *     gen - expand YAML task specs into retort's Ninja graph
 *
 * SYNOPSIS
 *     gen [options] --ninja FILE
 *     gen [options] --list
 *     gen [options] --split SPEC
 *     gen --models FILE --provider P --model M [--price-in USD --price-out USD] --model-json FILE
 *     gen --propose-split CURRICULUM
 *
 * DESCRIPTION
 *     Reads every tasks/NAME.yaml in sorted order (the curriculum is no
 *     spec), validates each strictly, expands each spec's matrix into
 *     variants, and selects variants with --tasks.
 *     --ninja writes the task graph: each selected variant's edges, its
 *     samples' request, compile and evaluate edges per round and language,
 *     their records, and the dataset or (--eval) an evaluation's metrics.
 *     configure puts it after the static part of build.ninja. Comment
 *     lines in it tell configure what else build.ninja depends on.
 *     With --models, --provider and --model the request edges ask that
 *     teacher; --price-in and --price-out price it (configure's), and
 *     --budget is refused for a model without prices; --batch adds a
 *     batch edge per round. --propose adds the
 *     proposal graph (propose.c), and `reference: teacher` specs get the
 *     edges that ask for their references.
 *     --split writes one spec's task.json files, --model-json the
 *     resolved model, --propose-split the proposal batches' requests;
 *     each leaves unchanged files alone (restat). --list prints the
 *     selected variant ids. Every variant is validated whole, but only
 *     the ones --split writes get their hidden cases drawn (hidden.h),
 *     the costly part of a variant.
 *
 * FILES
 *     tasks/NAME.yaml, models.yaml, tasks/curriculum.yaml; the graph,
 *     out/v/<id>/task.json, out/model.json, out/propose/.../task.json.
 *
 * EXIT STATUS
 *     0 written; 1 cannot write; 2 bad usage or a bad spec, reported as
 *     "file:line:col: message", with nothing written.
 *
 * SEE ALSO
 *     doc/pipeline.md, doc/specs.md
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/skill.h"
#include "../lib/util.h"
#include "yaml.h"
#include "spec.h"
#include "models.h"
#include "curriculum.h"
#include "propose.h"

static const char usage[] =
	"usage: gen [options] --ninja FILE\n"
	"       gen [options] --list\n"
	"       gen [options] --split SPEC\n"
	"       gen --models FILE --provider P --model M [--price-in USD --price-out USD] --model-json FILE\n"
	"       gen --propose-split CURRICULUM\n";

struct opts {
	const char *tasksdir, *outdir, *globs;
	int all, samples, rounds;
	const char *models, *provider, *model;
	int batch;      /* --batch: each round's requests go through the provider's batch API */
	const char *lang; /* --lang: the candidate languages of specs without lang: */
	int langs;
	const char *evaldir; /* --eval DIR: an evaluation build, its samples under DIR */
	int heldout;         /* --held-out: only the tasks package's test split holds out */
	const char *skill;   /* --skill FILE: the student's skill, an input of every request */
	const char *propose; /* --propose CURRICULUM: the proposal graph and its accepted specs */
	const char *proposesplit;
	/* what to do: one of them */
	const char *ninja, *split, *modeljson;
	int list;
	double pricein, priceout; /* --price-in, --price-out: USD per million tokens (-1: not given) */
	double budget;            /* --budget USD: refused for a model without prices */
};

/*
 * With --batch, per round: the inputs of every request edge of the round
 * and their outputs, for the round's batch edge (written after the rounds).
 */
static struct {
	struct buf in[MAX_ROUNDS + 1], out[MAX_ROUNDS + 1];
	int rounds;
} batches;

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sorted paths DIR/NAME for names ending in suffix; NULL-terminated */
static char **
listdir(const char *dir, const char *suffix, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	if (!d)
		die(EXIT_USAGE, "cannot open folder '%s':", dir);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !endswith(e->d_name, suffix) || !strcmp(e->d_name, "curriculum.yaml"))
			continue; /* the curriculum is no spec (configure --propose reads it) */
		v = xreallocarray(v, n + 2, sizeof *v);
		v[n++] = xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (v)
		qsort(v, n, sizeof *v, cmpstr);
	else
		v = xcalloc(1, sizeof *v);
	v[n] = NULL;
	*count = n;
	return v;
}

/* with --propose: the accepted specs too (propose-accept writes them), when there are any yet */
static char **
withaccepted(const struct opts *o, char **files, size_t *nfiles)
{
	char *dir = xasprintf("%s/propose/specs", o->outdir), **more;
	size_t n, i;

	if (access(dir, F_OK) != 0) {
		free(dir);
		return files;
	}
	more = listdir(dir, ".yaml", &n);
	files = xreallocarray(files, *nfiles + n + 1, sizeof *files);
	for (i = 0; i < n; i++)
		files[(*nfiles)++] = more[i];
	files[*nfiles] = NULL;
	free(more);
	free(dir);
	return files;
}

static void
freelist(char **v)
{
	char **p;

	for (p = v; *p; p++)
		free(*p);
	free(v);
}

/* paths go into build.ninja unescaped: refuse characters that need escaping */
static int
plainpath(const char *s)
{
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+")
	       == strlen(s);
}

struct all {
	struct specfile *sf;
	size_t nsf;
	char **teacher;       /* the spec files with reference: teacher (src/gen/propose.c asks for their references) */
	size_t nteacher;
	size_t nvariants, nselected;
	size_t npython;       /* selected variants with a Python reference */
	size_t npybaseline;   /* and with a Python baseline */
	size_t ntriton;       /* selected variants with Triton samples */
	size_t nchecked;      /* proposals whose baselines are checked (OUT/propose/baselines.json) */
	size_t nheld;         /* and of them held back: their baselines disagreed, or their references were refused */
	size_t nbad;          /* spec files with errors that the selection does not name: left out */
};

/*
 * A spec file's messages, held until the selection is known: a bad spec
 * the selection names fails the build (exit 2), one it does not name is
 * left out with a warning (doc/specs.md, Bad specs).
 */
static struct buf *held;

static void
holdmsg(const char *msg)
{
	bufputs(held, msg);
	bufputs(held, "\n");
}

struct badspec {
	struct variant names; /* as far as the file can be read (specnames) */
	char *msgs;
};

/* a variant's languages: its spec's lang:, else --lang */
static int
langsof(const struct opts *o, const struct variant *v)
{
	return v->langs ? v->langs : o->langs;
}

static int
cmpvariant(const void *a, const void *b)
{
	return strcmp((*(struct variant *const *)a)->id, (*(struct variant *const *)b)->id);
}

/* a variant with Triton samples needs prompts/triton's system, repair and its prompt's template */
static int
tritontemplates(const struct opts *o, const struct variant *v)
{
	const char *names[] = { "system", "repair", v->prompt };
	int i, r = 0;

	for (i = 0; i < 3; i++) {
		char *t = xasprintf("%s/prompts/triton/%s.md", o->tasksdir, names[i]);
		if (access(t, F_OK) != 0) {
			diag(v->file, 0, 0, "lang triton needs the template '%s' (the Triton prompts live in "
			     "%s/prompts/triton)", t, o->tasksdir);
			r = -1;
		}
		free(t);
	}
	return r;
}

/*
 * A spec with `reference: teacher` (tasks/NAME.yaml) is not in the kernel
 * graph itself: its completed spec is, OUT/teacherref/specs/NAME.yaml
 * (propose-accept --teacher-references writes it once the teacher's
 * independent references agreed), or nothing while there is none. Into
 * sf: the completed spec, or nothing (0); -1 after diagnostics.
 */
static int
teacherspec(const struct opts *o, struct all *A, const char *path, struct specfile *sf)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *done = xasprintf("%s/teacherref/specs/%s", o->outdir, base);
	int r = 0;

	A->teacher = xreallocarray(A->teacher, A->nteacher + 2, sizeof *A->teacher);
	A->teacher[A->nteacher++] = xstrdup(path);
	A->teacher[A->nteacher] = NULL;
	specfree(sf);
	memset(sf, 0, sizeof *sf);
	if (access(done, F_OK) == 0) {
		r = specload(done, sf);
		if (r == 0 && sf->nv && sf->v[0].teacherref) {
			diag(done, 0, 0, "a completed spec still says 'reference: teacher'");
			r = -1;
		}
	}
	free(done);
	return r < 0 ? -1 : sf->nv ? 1 : 0;
}

/* a proposal's first selected variant when its baseline is to be checked against its reference, else NULL */
static struct variant *
baselinecheck(const struct specfile *sf)
{
	size_t j;

	for (j = 0; j < sf->nv; j++)
		if (sf->v[j].selected)
			return sf->v[j].proposed && sf->v[j].hasbaseline && sf->v[j].hasref ? &sf->v[j] : NULL;
	return NULL;
}

/*
 * With --propose: a proposal's baseline is the teacher's, and must agree
 * with its reference (propose-accept --baselines, from its first selected
 * variant's oracle.json, into OUT/propose/baselines.json). One found
 * disagreeing, or whose reference was refused there, is held back: that
 * variant keeps the edges of its check (v->held), its other variants are
 * not selected, and none gets samples.
 */
static void
holdbaselines(const struct opts *o, struct all *A)
{
	char *path = xasprintf("%s/propose/baselines.json", o->outdir), err[600];
	json_t *bl = access(path, F_OK) == 0 ? jload(path, err, sizeof err) : NULL, *held = json_object(), *e;
	size_t i, j;

	if (access(path, F_OK) == 0 && !bl)
		die(EXIT_USAGE, "%s: remove it and run ninja again (propose-accept --baselines writes it anew)", err);
	json_array_foreach(json_object_get(bl, "specs"), i, e)
		if (!strcmp(jstr(e, "status", ""), "disagreed") || !strcmp(jstr(e, "status", ""), "refused"))
			json_object_set_new(held, jstr(e, "spec", ""), json_true());
	for (i = 0; i < A->nsf; i++) {
		struct variant *v = baselinecheck(&A->sf[i]);
		if (!v)
			continue;
		A->nchecked++;
		if (!json_object_get(held, v->spec))
			continue;
		A->nheld++;
		v->held = 1;
		for (j = 0; j < A->sf[i].nv; j++)
			A->sf[i].v[j].selected &= &A->sf[i].v[j] == v;
	}
	json_decref(held);
	json_decref(bl);
	free(path);
}

/* 1 when o selects v: --all or --tasks, and --held-out */
static int
selects(const struct opts *o, const struct variant *v)
{
	return (o->all || variantmatch(v, o->globs)) && (!o->heldout || heldout(v->spec, HELDOUT_FRACTION));
}

/* --split: the options whose selection it writes (speckeeps keeps those) */
static const struct opts *splitting;

/* speckeeps: only --split reads a variant's JSON, and only a selected one's */
static int
keeps(const struct variant *v)
{
	return splitting && selects(splitting, v);
}

/* load specs (all of them, or only `one`); 0 or -1 after diagnostics */
static int
loadall(const struct opts *o, const char *one, struct all *A)
{
	char **files;
	size_t nfiles, i, j, k;
	struct variant **byid;
	struct badspec *bads;
	size_t nbads = 0;
	int bad = 0;

	memset(A, 0, sizeof *A);
	if (one) {
		files = xcalloc(2, sizeof *files);
		files[0] = xstrdup(one);
		nfiles = 1;
	} else {
		files = listdir(o->tasksdir, ".yaml", &nfiles);
		if (o->propose)
			files = withaccepted(o, files, &nfiles);
	}
	A->sf = xcalloc(nfiles + 1, sizeof *A->sf);
	bads = xcalloc(nfiles + 1, sizeof *bads);
	for (i = 0; i < nfiles; i++) {
		struct buf msgs;
		int r;

		bufinit(&msgs, 1 << 20);
		held = &msgs;
		diagsink = holdmsg;
		diagreset(); /* each file's messages its own: deduplicated and capped per file */
		r = plainpath(files[i]) ? specload(files[i], &A->sf[A->nsf]) : -1;
		if (!plainpath(files[i]))
			diag(files[i], 0, 0, "spec file names may use only letters, digits and '_-.+'");
		if (r < 0) {
			specnames(files[i], &bads[nbads].names);
			specfree(&A->sf[A->nsf]);
		}
		diagsink = NULL;
		held = NULL;
		if (r < 0) {
			bads[nbads++].msgs = bufdetach(&msgs);
			continue;
		}
		fputs(msgs.s ? msgs.s : "", stderr);
		buffree(&msgs);
		if (!one && A->sf[A->nsf].nv && A->sf[A->nsf].v[0].teacherref) {
			int t = teacherspec(o, A, files[i], &A->sf[A->nsf]);
			bad |= t < 0;
			if (t <= 0)
				continue; /* no reference yet: held out of the kernel graph */
		}
		A->nvariants += A->sf[A->nsf].nv;
		A->nsf++;
		if (A->nvariants > TOTAL_MAX_VARIANTS) {
			diag(files[i], 0, 0, "more than %d variants in all: the build would be too large",
			     TOTAL_MAX_VARIANTS);
			bad = 1;
			break;
		}
	}
	freelist(files);
	/* a bad spec fails the build where the selection names it; elsewhere it is left out */
	for (i = 0; i < nbads; i++) {
		const struct variant *n = &bads[i].names;
		if (one || o->all || o->propose || (specnamed(n, o->globs) && (!o->heldout || heldout(n->spec, HELDOUT_FRACTION)))) {
			fputs(bads[i].msgs, stderr);
			bad = 1;
		} else {
			char *nl = strchr(bads[i].msgs, '\n');
			if (nl)
				*nl = 0;
			warn("warning: '%s' is not selected and has errors, so it is left out: %s", n->file, bads[i].msgs);
			A->nbad++;
		}
		specnamesfree(&bads[i].names);
		free(bads[i].msgs);
	}
	free(bads);
	if (bad)
		return -1;
	/* spec ids and variant ids are unique across files */
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < i; j++)
			if (A->sf[i].nv && A->sf[j].nv && strcmp(A->sf[i].v[0].spec, A->sf[j].v[0].spec) == 0) {
				diag(A->sf[i].path, A->sf[i].idline, A->sf[i].idcol,
				     "duplicate id '%s' (also in %s)", A->sf[i].v[0].spec, A->sf[j].path);
				bad = 1;
			}
	byid = xcalloc(A->nvariants + 1, sizeof *byid);
	for (i = k = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++)
			byid[k++] = &A->sf[i].v[j];
	qsort(byid, k, sizeof *byid, cmpvariant);
	for (i = 1; i < k; i++)
		if (strcmp(byid[i]->id, byid[i - 1]->id) == 0) {
			diag(byid[i]->file, 0, 0, "duplicate variant id '%s' (also from %s)",
			     byid[i]->id, byid[i - 1]->file);
			bad = 1;
		}
	free(byid);
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++) {
			struct variant *v = &A->sf[i].v[j];
			v->selected = selects(o, v);
		}
	if (!bad && o->propose)
		holdbaselines(o, A);
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++) {
			const struct variant *v = &A->sf[i].v[j];
			A->nselected += v->selected && !v->held;
			A->npython += v->selected && v->pyref; /* a held one's check runs its reference */
			A->npybaseline += v->selected && v->pybaseline;
			A->ntriton += v->selected && !v->held && (langsof(o, v) & LANG_TRITON);
			if (v->selected && !v->held && (langsof(o, v) & LANG_TRITON) && !o->split)
				bad |= tritontemplates(o, v) < 0;
		}
	return bad ? -1 : 0;
}

static void
freeall(struct all *A)
{
	size_t i;

	for (i = 0; i < A->nsf; i++)
		specfree(&A->sf[i]);
	free(A->sf);
	for (i = 0; i < A->nteacher; i++)
		free(A->teacher[i]);
	free(A->teacher);
}

/* the summary's note of the bad specs left out */
static const char *
badnote(const struct all *A)
{
	static char note[80];

	snprintf(note, sizeof note, "; %zu spec%s with errors left out (not selected)", A->nbad, A->nbad == 1 ? "" : "s");
	return note;
}

/* where the samples go: out, or an evaluation's folder (--eval) */
static const char *
sampleroot(const struct opts *o)
{
	return o->evaldir ? o->evaldir : o->outdir;
}

/* the folder of one round: out/v/<id>/s<sample>/r<round>, out/v/<id>/triton/s<sample>/r<round> (round.h) */
static void
rounddir(struct buf *b, const struct opts *o, const struct variant *v, int lang, int s, int r)
{
	bufprintf(b, "%s/v/%s/%ss%d/r%d", sampleroot(o), v->id, lang == LANG_TRITON ? "triton/" : "", s, r);
}


/*
 * Inputs that many edges share (a tool, its fixed sources, the prompt
 * templates) stand on those edges as one file, OUT/inputs/NAME, a stamp
 * that rules/stages.ninja's inputs edge touches whenever one of them is
 * newer: a change to any of them still re-runs every edge that names the
 * stamp, and the graph holds one path on each edge where it held up to
 * six (issue 21: at 10,000 variants, the paths ninja parses are a good
 * part of a no-op build). A phony node would not do: a restat edge whose
 * output did not change records the newest mtime of its inputs as found
 * on disk (ninja 1.11), where a phony node has none, and so would run again
 * on every build.
 */
static struct {
	struct buf edges; /* the stamps' edges, written after the stages */
	char **names;
	size_t n;
} groups;

/* " OUT/inputs/NAME" on b; on its first use, the stamp's edge, of INPUTS */
static void
inputgroup(struct buf *b, const struct opts *o, const char *name, const char *inputs)
{
	size_t i;

	bufprintf(b, " %s/inputs/%s", o->outdir, name);
	for (i = 0; i < groups.n; i++)
		if (!strcmp(groups.names[i], name))
			return;
	if (!groups.edges.s)
		bufinit(&groups.edges, (size_t)1 << 30);
	groups.names = xreallocarray(groups.names, groups.n + 1, sizeof *groups.names);
	groups.names[groups.n++] = xstrdup(name);
	bufprintf(&groups.edges, "build %s/inputs/%s: inputs %s\n", o->outdir, name, inputs);
}

/* the groups' edges on b, and the registry emptied */
static void
groupedges(struct buf *b)
{
	size_t i;

	if (!groups.n)
		return;
	bufprintf(b, "\n%s", groups.edges.s); /* (rules/stages.ninja's inputs rule says what they are) */
	for (i = 0; i < groups.n; i++)
		free(groups.names[i]);
	free(groups.names);
	buffree(&groups.edges);
	memset(&groups, 0, sizeof groups);
}

/* the edges of one variant that do not depend on a candidate */
static void
variantedges(struct buf *b, const struct opts *o, const struct variant *v)
{
	const char *d = o->outdir, *id = v->id;
	char *in = xasprintf("$bindir/prepare %s/runtime/harness.o", d);

	bufprintf(b, "build %s/v/%s/harness: harness %s/v/%s/task.json |", d, id, d, id);
	inputgroup(b, o, "harness", in);
	bufputc(b, '\n');
	free(in);
	if (v->hasref) {
		/* a Python reference: the runner too, and the packages its environment holds */
		char *ri = xasprintf("$bindir/prepare %s/runtime/refrun.o src/runtime/refrun.h src/lib/tensor.h "
		                     "src/lib/draw.h src/lib/dtype.h%s", d, v->pyref ? " src/runtime/pycall.c src/runtime/pyref.py" : "");
		bufprintf(b, "build %s/v/%s/reference: reference %s/v/%s/task.json |", d, id, d, id);
		inputgroup(b, o, v->pyref ? "reference-python" : "reference", ri);
		free(ri);
		bufputc(b, '\n');
		bufprintf(b, "build %s/v/%s/expected.json | %s/v/%s/expected.bin: expected %s/v/%s/task.json "
		          "%s/v/%s/reference | $bindir/verify", d, id, d, id, d, id, d, id);
		if (v->pyref)
			bufprintf(b, " %s/requirements.txt", o->tasksdir);
		bufputc(b, '\n');
	}
	if (v->hasbaseline) {
		const char *bl = v->pybaseline ? "baseline.py" : "baseline.so";
		char py[4096] = "";
		if (v->pybaseline) /* what a Python entry point runs through, beside the per-variant harness */
			snprintf(py, sizeof py, " %s/runtime/py/harness.so %s/runtime/py/harness.py", d, d);
		bufprintf(b, "build %s/v/%s/%s: baseline %s/v/%s/task.json | $bindir/prepare\n", d, id, bl, d, id);
		if (v->hasref) {
			bufprintf(b, "build %s/v/%s/oracle.json | %s/v/%s/oracle.bin: oracle %s/v/%s/task.json %s/v/%s/harness "
			          "%s/v/%s/expected.json %s/v/%s/%s | %s/v/%s/expected.bin $bindir/verify%s\n", d, id, d, id,
			          d, id, d, id, d, id, d, id, bl, d, id, py);
			bufprintf(b, "build %s/v/%s/baseline.json: benchbase %s/v/%s/task.json %s/v/%s/harness "
			          "%s/v/%s/oracle.json %s/v/%s/%s | $bindir/bench%s\n", d, id, d, id, d, id, d, id, d, id, bl, py);
		}
	}
}

/* the files of one round, for the next round's request */
static void
roundinputs(struct buf *b, const struct opts *o, const struct variant *v, int lang, int s, int r, int checked)
{
	static const char *const files[] = { "response.json", "compile.json", "verify.json", "bench.json" };
	int k;

	for (k = 0; k < (checked ? 4 : 2); k++) {
		bufputc(b, ' ');
		rounddir(b, o, v, lang, s, r);
		bufprintf(b, "/%s", files[k]);
	}
}

/*
 * A request edge of round r waits for the round's batch edge (order-only:
 * the batch fills the cache, the edge then finds its answer there), and
 * its inputs and output join that edge's.
 */
static void
batchround(struct buf *b, const struct opts *o, const struct variant *v, int lang, int s, int r, int checked)
{
	const char *tdir = lang == LANG_TRITON ? "triton/" : "";

	struct buf *in = &batches.in[r], *out = &batches.out[r];

	bufprintf(b, " || %s/batch/r%d.json", o->outdir, r);
	if (!in->s) {
		bufinit(in, (size_t)1 << 34);
		bufinit(out, (size_t)1 << 34);
		if (r > 1)
			bufprintf(in, " %s/prompts/repair.md", o->tasksdir);
	}
	if (r > batches.rounds)
		batches.rounds = r;
	if (r == 1 && s == 0) /* a variant's task and prompt, once per language (its samples share them) */
		bufprintf(in, " $\n    %s/v/%s/task.json %s/prompts/%s%s.md", o->outdir, v->id, o->tasksdir, tdir, v->prompt);
	if (r > 1 && s == 0 && lang == LANG_TRITON)
		bufprintf(in, " %s/prompts/triton/repair.md", o->tasksdir);
	if (r > 1) {
		bufputs(in, " $\n   ");
		roundinputs(in, o, v, lang, s, r - 1, checked);
	}
	bufputs(out, " $\n    ");
	rounddir(out, o, v, lang, s, r);
	bufputs(out, "/response.json");
}

/* the batch edge of each round: every request of the round, in as few batches as the provider takes */
static void
batchedges(struct buf *b, const struct opts *o)
{
	int r;

	for (r = 1; r <= batches.rounds; r++) {
		if (!batches.in[r].s)
			continue;
		bufprintf(b, "build %s/batch/r%d.json: batch%s | $bindir/query-llm %s/model.json %s/prompts/system.md\n"
		          "  r = %d\n  responses =%s\n", o->outdir, r, batches.in[r].s, o->outdir, o->tasksdir, r,
		          batches.out[r].s);
		buffree(&batches.in[r]);
		buffree(&batches.out[r]);
	}
}

/*
 * What every request edge of a language, a template and a round (the
 * first, or a repair) has: query-llm, the model's settings, the templates,
 * and the student's skill (--skill). Template names are letters, digits,
 * '_' and '-': a group's name is "ask/TEMPLATE" ("triton/ask/TEMPLATE",
 * as the samples' folders are) and, for a repair, "+repair" after it.
 */
static void
askgroup(struct buf *b, const struct opts *o, const struct variant *v, int lang, int r)
{
	const char *t = o->tasksdir, *tdir = lang == LANG_TRITON ? "triton/" : "";
	char *name = xasprintf("%sask/%s%s", tdir, v->prompt, r > 1 ? "+repair" : "");
	struct buf in;

	bufinit(&in, (size_t)1 << 20);
	bufprintf(&in, "$bindir/query-llm %s/model.json %s/prompts/%ssystem.md %s/prompts/%s%s.md", o->outdir, t,
	          tdir, t, tdir, v->prompt);
	if (r > 1)
		bufprintf(&in, " %s/prompts/%srepair.md", t, tdir);
	if (o->skill)
		bufprintf(&in, " %s", o->skill);
	inputgroup(b, o, name, in.s);
	buffree(&in);
	free(name);
}

/*
 * The edges of one sample, per round: ask (from round 2 with the previous
 * round's verdicts), compile, and, where the variant has a reference,
 * verify and bench. Rounds after the first need those verdicts. A Triton
 * sample (lang LANG_TRITON) asks with the templates of prompts/triton, and
 * verify and bench run its cand.py through the Python harness (round.h).
 */
static void
sampleedges(struct buf *b, const struct opts *o, const struct variant *v, int lang, int s, int rounds,
            struct buf *targets)
{
	const char *d = o->outdir, *id = v->id, *tdir = lang == LANG_TRITON ? "triton/" : "";
	int r, triton = lang == LANG_TRITON, checked = v->hasref;
	/* what verify and bench run: cand.so, or a Triton candidate's cand.py through the Python harness */
	char *cand = triton ? xasprintf("cand.py %s/runtime/py/harness.so %s/runtime/py/harness.py", d, d) : xstrdup("cand.so");

	if (!v->hasref)
		rounds = 1;
	for (r = 1; r <= rounds; r++) {
		char *replay;

		bufputs(b, "build ");
		rounddir(b, o, v, lang, s, r);
		bufprintf(b, "/response.json: query %s/v/%s/task.json", d, id);
		if (r > 1)
			roundinputs(b, o, v, lang, s, r - 1, checked);
		bufputs(b, " |");
		askgroup(b, o, v, lang, r);
		replay = xasprintf("%s/replay/%s/%ss%d-r%d.md", o->tasksdir, id, tdir, s, r);
		if (o->provider && !strcmp(o->provider, "replay") && access(replay, F_OK) == 0)
			bufprintf(b, " %s", replay);
		free(replay);
		if (o->batch)
			batchround(b, o, v, lang, s, r, checked);
		bufprintf(b, "\n  s = %d\n  r = %d\n", s, r);
		if (triton) /* a flag and its escaped space (rules/stages.ninja reads ${langflag}$in) */
			bufputs(b, "  langflag = --lang triton$ \n");

		bufputs(b, "build ");
		rounddir(b, o, v, lang, s, r);
		bufputs(b, "/compile.json | ");
		rounddir(b, o, v, lang, s, r);
		bufprintf(b, "/%s: compile %s/v/%s/task.json ", triton ? "cand.py" : "cand.so", d, id);
		rounddir(b, o, v, lang, s, r);
		bufprintf(b, "/response.json | $bindir/compile%s\n", triton
		          ? " src/runtime/tritonscreen.py src/runtime/tritonaot.py\n"
		            "  langflag = --lang triton --triton-env $triton_env --runtime src/runtime$ " : "");

		if (checked) { /* verify, then bench in the same harness (verify --bench) */
			bufputs(b, "build ");
			rounddir(b, o, v, lang, s, r);
			bufputs(b, "/verify.json ");
			rounddir(b, o, v, lang, s, r);
			bufprintf(b, "/bench.json: evaluate %s/v/%s/task.json ", d, id);
			rounddir(b, o, v, lang, s, r);
			bufprintf(b, "/compile.json %s/v/%s/harness %s/v/%s/expected.json %s/gpu/calibration.json", d, id, d,
			          id, d);
			if (v->hasbaseline)
				bufprintf(b, " %s/v/%s/oracle.json %s/v/%s/baseline.json", d, id, d, id);
			bufputs(b, " | ");
			rounddir(b, o, v, lang, s, r);
			bufprintf(b, "/%s %s/v/%s/expected.bin %s/v/%s/reference", cand, d, id, d, id);
			if (v->hasbaseline) /* the oracle's outputs, beside oracle.json; the baseline bench's oracle runs */
				bufprintf(b, " %s/v/%s/oracle.bin %s/v/%s/%s", d, id, d, id, v->pybaseline ? "baseline.py" : "baseline.so");
			bufputs(b, " $bindir/verify $bindir/bench\n");
		}
	}
	/* the sample's record, from every round */
	bufprintf(b, "build %s/v/%s/%ss%d/record.json: record %s/v/%s/task.json", sampleroot(o), id, tdir, s, d, id);
	for (r = 1; r <= rounds; r++)
		roundinputs(b, o, v, lang, s, r, checked);
	bufputs(b, " | $bindir/record\n");
	bufprintf(targets, " $\n    %s/v/%s/%ss%d/record.json", sampleroot(o), id, tdir, s);
	free(cand);
}

/* the dataset, from every record (a response file: there are many), the report on them, the skill from them */
static void
datasetedges(struct buf *b, const struct opts *o, const char *records)
{
	bufprintf(b, "\nbuild %s/dataset/SHA256SUMS: package%s | $bindir/package\n", o->outdir, records);
	bufprintf(b, "build dataset: phony %s/dataset/SHA256SUMS\n", o->outdir);
	bufputs(b, "\nbuild all: phony variants dataset\ndefault all\n"
	        "build check: reproduce | dataset $bindir/package\n");
	bufprintf(b, "build %s/report.html: report%s | $bindir/report\nbuild report: phony %s/report.html\n",
	          o->outdir, records, o->outdir);
	bufprintf(b, "build %s/skill/SKILL.md | %s/skill/response.json: distill%s | $bindir/query-llm %s/model.json "
	          "%s/prompts/system.md %s/prompts/skill.md\nbuild skill: phony %s/skill/SKILL.md\n", o->outdir, o->outdir,
	          records, o->outdir, o->tasksdir, o->tasksdir, o->outdir);
}

/*
 * An evaluation: no dataset (a student's answers never enter one), the
 * metrics of its records instead, and the report on both.
 */
static void
evaledges(struct buf *b, const struct opts *o, const char *records)
{
	const char *e = o->evaldir;

	bufprintf(b, "\nbuild %s/metrics.json: metrics%s | $bindir/metrics\n", e, records);
	bufprintf(b, "build eval: phony %s/metrics.json\n", e);
	bufputs(b, "\nbuild all: phony variants eval\ndefault all\n");
	bufprintf(b, "build %s/report.html: report%s | %s/metrics.json $bindir/report\n"
	          "  metrics = --metrics %s/metrics.json$ \nbuild report: phony %s/report.html\n", e, records, e, e, e);
}

/* the proposals' baselines against their references: OUT/propose/baselines.json, from each first variant's oracle */
static void
baselineedge(struct buf *b, const struct opts *o, const struct all *A)
{
	struct buf tasks;
	size_t i;

	bufinit(&tasks, (size_t)1 << 30);
	bufprintf(b, "\n# the proposals' baselines, each against its reference (build.ninja depends on it)\n"
	          "build %s/propose/baselines.json: propbaselines", o->outdir);
	for (i = 0; i < A->nsf; i++) {
		const struct variant *v = baselinecheck(&A->sf[i]);
		if (!v)
			continue;
		bufprintf(b, " $\n    %s/v/%s/oracle.json", o->outdir, v->id);
		bufprintf(&tasks, " %s/v/%s/task.json", o->outdir, v->id);
	}
	bufprintf(b, " |%s $bindir/propose-accept\nbuild baselines: phony %s/propose/baselines.json\n", tasks.s,
	          o->outdir);
	buffree(&tasks);
}

/* up to 4 distinct names in list (n of them so far), "..." after */
static void
addname(struct buf *b, const char **list, size_t *n, const char *name)
{
	size_t i;

	for (i = 0; i < *n && i < 4; i++)
		if (!strcmp(list[i], name))
			return;
	if (*n < 4)
		list[*n] = name;
	else if (*n > 4)
		return;
	bufprintf(b, "%s%s", *n ? ", " : "", *n < 4 ? name : "...");
	++*n;
}

/* the closest spec id, tag or variant id to a term that matches nothing, or NULL */
static const char *
nearestname(const struct all *A, const char *term)
{
	const char **names;
	const char *near;
	size_t i, j, k, n = 0, cap = 1;

	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++)
			cap += 2 + A->sf[i].v[j].ntags;
	names = xcalloc(cap, sizeof *names);
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++) {
			const struct variant *v = &A->sf[i].v[j];
			names[n++] = v->spec;
			names[n++] = v->id;
			for (k = 0; k < v->ntags; k++)
				names[n++] = v->tags[k];
		}
	names[n] = NULL;
	near = closest(term, names);
	free(names);
	return near;
}

/*
 * How --tasks matched, a line per comma-separated term ("select: ..."):
 * the variants it selected by spec id, by variant id and by tag (naming
 * the tags and their specs), or that it matched nothing, with the closest
 * name. Returns the number of terms that matched no variant.
 */
static size_t
selectnote(const struct opts *o, const struct all *A, struct buf *b)
{
	char *copy = xstrdup(o->globs), *save = NULL, *g;
	size_t none = 0;

	for (g = strtok_r(copy, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		size_t cnt[3] = { 0, 0, 0 }, nn[3] = { 0, 0, 0 }, ntag = 0, i, j, k, any = 0;
		const char *names[3][5], *tags[5];
		struct buf nb[3], tb;
		static const char *const how[] = { "spec", "variant", "tag" };
		int w, first = 1;

		while (*g == ' ')
			g++;
		if (!*g)
			continue;
		for (w = 0; w < 3; w++)
			bufinit(&nb[w], 1 << 16);
		bufinit(&tb, 1 << 16);
		for (i = 0; i < A->nsf; i++)
			for (j = 0; j < A->sf[i].nv; j++) {
				const struct variant *v = &A->sf[i].v[j];
				const char *tag = NULL;
				if (fnmatch(g, v->spec, 0) == 0)
					w = 0;
				else if (fnmatch(g, v->id, 0) == 0)
					w = 1;
				else {
					for (k = 0; k < v->ntags && !tag; k++)
						if (fnmatch(g, v->tags[k], 0) == 0)
							tag = v->tags[k];
					if (!tag)
						continue;
					w = 2;
				}
				any++;
				if (!v->selected || v->held)
					continue;
				cnt[w]++;
				addname(&nb[w], names[w], &nn[w], w == 1 ? v->id : v->spec);
				if (tag)
					addname(&tb, tags, &ntag, tag);
			}
		bufprintf(b, "select: '%s':", g);
		for (w = 0; w < 3; w++) {
			if (!cnt[w])
				continue;
			if (w == 2)
				bufprintf(b, "%s tag %s (%zu variant%s of %s)", first ? "" : ";", tb.s, cnt[w],
				          cnt[w] == 1 ? "" : "s", nb[w].s);
			else
				bufprintf(b, "%s %s %s (%zu variant%s)", first ? "" : ";", how[w], nb[w].s, cnt[w],
				          cnt[w] == 1 ? "" : "s");
			first = 0;
		}
		if (!any) {
			const char *near = nearestname(A, g);
			bufprintf(b, " matches nothing%s%s%s", near ? " (did you mean '" : "", near ? near : "",
			          near ? "'?)" : "");
			none++;
		} else if (first) {
			bufputs(b, " no variant left (held out or held back)");
		}
		bufputc(b, '\n');
		for (w = 0; w < 3; w++)
			buffree(&nb[w]);
		buffree(&tb);
	}
	free(copy);
	return none;
}

/* the summary's note on the held-back proposals (static) */
static const char *
heldnote(const struct opts *o, const struct all *A)
{
	static char note[4400];

	snprintf(note, sizeof note, "; %zu of %zu proposals held back: their baselines disagree with their "
	         "references, or their references failed (%s/propose/baselines.json)", A->nheld, A->nchecked, o->outdir);
	return note;
}

/* write the task graph to path */
static int
writeninja(const struct opts *o, const struct all *A, const char *path)
{
	struct buf b, responses; /* responses: the records */
	size_t i, j;
	int r, s;

	bufinit(&b, (size_t)1 << 34);
	bufinit(&responses, (size_t)1 << 34);
	bufprintf(&b, "# ---- task graph: written by gen from %s/*.yaml; do not edit ----\n"
	          "# %zu specs, %zu of %zu variants selected\n",
	          o->tasksdir, A->nsf, A->nselected, A->nvariants);
	/* configure reads this line: their environment must be ready */
	if (A->npython)
		bufprintf(&b, "# python references: %zu variants\n", A->npython);
	if (A->npybaseline) /* and this one: the GPU's Python environment must be found */
		bufprintf(&b, "# python baselines: %zu variants\n", A->npybaseline);
	if (A->ntriton)
		bufprintf(&b, "# triton candidates: %zu variants\n", A->ntriton);
	if (A->nteacher && o->models) /* and this one: OUT/teacherref/accepted.json is among the regeneration's inputs */
		bufprintf(&b, "# teacher references: %zu specs\n", A->nteacher);
	if (A->nchecked && o->models) /* and this one: OUT/propose/baselines.json is */
		bufprintf(&b, "# proposal baselines: %zu specs\n", A->nchecked);
	bufputc(&b, '\n');
	if (o->models)
		bufprintf(&b, "build %s/model.json: model %s | $gen\n\n", o->outdir, o->models);
	if (o->propose) {
		char **corpus = xcalloc(A->nsf + 1, sizeof *corpus), *mine = xasprintf("%s/propose/specs/", o->outdir);
		for (i = j = 0; i < A->nsf; i++) /* the hand-written ones: not those proposals made */
			if (strncmp(A->sf[i].path, mine, strlen(mine)))
				corpus[j++] = A->sf[i].path;
		r = proposeedges(&b, o->propose, o->tasksdir, o->outdir, "doc/specs.md", corpus, o->batch);
		free(corpus);
		free(mine);
		if (r < 0) {
			buffree(&b);
			buffree(&responses);
			return -2;
		}
	}
	if (A->nteacher && o->models)
		teacherrefedges(&b, A->teacher, o->tasksdir, o->outdir, o->batch);
	/* the GPU's measured ceilings, once per build */
	bufprintf(&b, "build %s/runtime/harness.o | %s/runtime/harness.o.list %s/runtime/py/harness.so "
	          "%s/runtime/py/harness.py: runtime | src/runtime/harness.c src/runtime/harness.h "
	          "src/runtime/lockdown.c src/runtime/lockdown.h src/runtime/guard.c src/runtime/guard.h "
	          "src/runtime/launches.c src/runtime/launches.h src/runtime/device.cu src/runtime/device.h "
	          "src/lib/tensor.c src/lib/tensor.h src/lib/parts.c src/lib/parts.h src/lib/draw.h src/lib/dtype.h "
	          "src/lib/fdpass.h src/runtime/pyharness.py $bindir/prepare\n", o->outdir,
	          o->outdir, o->outdir, o->outdir);
	bufprintf(&b, "build %s/runtime/refrun.o: refrunner | src/runtime/refrun.c src/runtime/refrun.h "
	          "src/lib/tensor.c src/lib/tensor.h src/lib/parts.c src/lib/parts.h src/lib/draw.h src/lib/dtype.h "
	          "$bindir/prepare\n", o->outdir);
	bufprintf(&b, "build %s/gpu/calibrate: calibrator src/runtime/calibrate.cu\n"
	          "build %s/gpu/calibration.json: calibrate %s/gpu/calibrate | $bindir/bench\n\n",
	          o->outdir, o->outdir, o->outdir);

	/* per spec file: the variant fragments (restat: only changed ones move) */
	for (i = 0; i < A->nsf; i++) {
		int any = 0;
		for (j = 0; j < A->sf[i].nv; j++) {
			if (!A->sf[i].v[j].selected)
				continue;
			bufprintf(&b, "%s%s/v/%s/task.json", any ? " $\n    " : "build ", o->outdir,
			          A->sf[i].v[j].id);
			any = 1;
		}
		if (any)
			bufprintf(&b, ": split %s | $gen\n", A->sf[i].path);
	}
	bufputs(&b, "\n");

	/* per variant, sample and round: the stages */
	if (o->models)
		for (i = 0; i < A->nsf; i++)
			for (j = 0; j < A->sf[i].nv; j++) {
				const struct variant *v = &A->sf[i].v[j];
				int samples = v->samples ? v->samples : o->samples;
				int rounds = v->rounds ? v->rounds : o->rounds;
				if (!v->selected)
					continue;
				variantedges(&b, o, v);
				if (v->held) /* its baseline disagreed with its reference: no samples */
					continue;
				if (langsof(o, v) & LANG_CUDA)
					for (s = 0; s < samples; s++)
						sampleedges(&b, o, v, LANG_CUDA, s, rounds, &responses);
				if (langsof(o, v) & LANG_TRITON)
					for (s = 0; s < samples; s++)
						sampleedges(&b, o, v, LANG_TRITON, s, rounds, &responses);
			}

	if (A->nchecked && o->models)
		baselineedge(&b, o, A);
	batchedges(&b, o);
	groupedges(&b);
	bufputs(&b, "\nbuild variants: phony");
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++)
			if (A->sf[i].v[j].selected && !A->sf[i].v[j].held)
				bufprintf(&b, " $\n    %s/v/%s/task.json", o->outdir, A->sf[i].v[j].id);
	bufprintf(&b, "\nbuild records: phony%s\n", responses.s);
	if (o->evaldir)
		evaledges(&b, o, responses.s);
	else
		datasetedges(&b, o, responses.s);
	bufputs(&b, "build cost: cost | $bindir/query-llm\n");
	bufputs(&b, "build status: status | $bindir/query-llm\n");
	r = writefile(path, b.s, b.n);
	if (r < 0)
		warn("cannot write '%s':", path);
	buffree(&b);
	buffree(&responses);
	return r < 0 ? -1 : 0;
}

static int
split(const struct opts *o, const struct all *A)
{
	size_t i, j;
	int r = 0;

	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++) {
			struct variant *v = &A->sf[i].v[j];
			char *path;
			if (!v->selected)
				continue;
			path = xasprintf("%s/v/%s/task.json", o->outdir, v->id);
			if (jwrite(path, v->json) < 0) {
				warn("cannot write '%s':", path);
				r = -1;
			}
			free(path);
		}
	return r;
}

/* a skill is never evaluated on a task it was distilled from: 0, or -1 naming them */
static int
skillcheck(const struct opts *o, const struct all *A)
{
	struct skill sk;
	char err[600];
	size_t i, j;
	int bad = 0;

	if (!plainpath(o->skill) || skillload(o->skill, &sk, err, sizeof err) < 0) {
		warn("%s", plainpath(o->skill) ? err : "--skill: the path may use only letters, digits and '_-./+'");
		return -1;
	}
	for (i = 0; i < A->nsf; i++)
		for (j = 0; j < A->sf[i].nv; j++)
			if (A->sf[i].v[j].selected && skillfrom(&sk, A->sf[i].v[j].spec) && !bad++)
				warn("--skill: '%s' was distilled from task '%s', which this evaluation asks: evaluate it "
				     "on tasks it did not see (the held-out ones: configure --eval without --tasks)",
				     o->skill, A->sf[i].v[j].spec);
	skillfree(&sk);
	return bad ? -1 : 0;
}

/* the graph, the list, the split or the resolved model, as o says; the exit status */
static int
run(const struct opts *o)
{
	char *modelnote = NULL; /* an unlisted model: what it gets */
	struct all A;
	struct buf sel;         /* how --tasks matched (selectnote) */
	int r;

	if (o->models) {
		json_t *m;
		if (modelresolve(o->models, o->provider, o->model, &m, &modelnote) < 0)
			return EXIT_USAGE;
		if (o->pricein >= 0) {
			modelprices(m, o->pricein, o->priceout);
			free(modelnote);
			modelnote = o->pricein == 0 && o->priceout == 0 ?
			            xasprintf("model %s: free (--price-in=0 --price-out=0)", o->model) :
			            xasprintf("model %s: priced from the command line: $%g in, $%g out per million tokens",
			                      o->model, o->pricein, o->priceout);
		}
		if (o->budget > 0 && !json_object_get(m, "prices") && strcmp(o->provider, "replay")) {
			warn("--budget needs prices, and model '%s' has none (%s): its cost would be unknown and the "
			     "budget never reached. Give them with --price-in=USD --price-out=USD (per million tokens), "
			     "or in an entry of %s; declare a free server with --price-in=0 --price-out=0; or cap the "
			     "tokens instead with --budget-tokens=N", o->model,
			     jbool(m, "listed", 1) ? "its entry in models.yaml gives none" : "it is not in models.yaml",
			     o->models);
			json_decref(m);
			free(modelnote);
			return EXIT_USAGE;
		}
		if (o->batch && json_object_get(m, "prices") && !json_object_get(m, "batch_prices")) {
			warn("--batch: model '%s' has prices but no batch_prices in %s: add the provider's batch "
			     "rates there, or configure without --batch", o->model, o->models);
			json_decref(m);
			free(modelnote);
			return EXIT_USAGE;
		}
		if (o->modeljson) {
			r = jwrite(o->modeljson, m) < 0 ? EXIT_RETRY : 0;
			if (r)
				warn("cannot write '%s':", o->modeljson);
			json_decref(m);
			free(modelnote);
			return r;
		}
		json_decref(m);
	}
	{
		static char promptdir[4096];
		snprintf(promptdir, sizeof promptdir, "%s/prompts", o->tasksdir);
		specpromptdir = promptdir;
	}

	if (o->proposesplit) {
		free(modelnote);
		return proposesplit(o->proposesplit, o->tasksdir, o->outdir, "doc/specs.md");
	}
	splitting = o->split ? o : NULL;
	speckeeps = keeps;
	r = loadall(o, o->split, &A);
	if (r < 0) {
		freeall(&A);
		free(modelnote);
		return EXIT_USAGE;
	}
	if (o->skill && skillcheck(o, &A) < 0) {
		freeall(&A);
		free(modelnote);
		return EXIT_USAGE;
	}
	bufinit(&sel, 1 << 20);
	if (!o->all && o->globs)
		selectnote(o, &A, &sel);
	if (!o->all && A.nselected == 0 && !o->split && !o->propose && !A.nteacher) {
		/* proposals: none accepted yet; teacher references: none agreed yet */
		char *line = sel.s, *nl;
		warn("--tasks '%s' selects none of the %zu variants", o->globs, A.nvariants);
		for (; (nl = strchr(line, '\n')); line = nl + 1) /* each term: "select: " off */
			warn("%.*s", (int)(nl - line - 8), line + 8);
		buffree(&sel);
		freeall(&A);
		free(modelnote);
		return EXIT_USAGE;
	}
	if (o->list) {
		size_t a, b;
		for (a = 0; a < A.nsf; a++)
			for (b = 0; b < A.sf[a].nv; b++)
				if (A.sf[a].v[b].selected && !A.sf[a].v[b].held)
					printf("%s\n", A.sf[a].v[b].id);
	} else if (o->ninja) {
		int w = writeninja(o, &A, o->ninja);
		if (w < 0)
			r = w == -2 ? EXIT_USAGE : EXIT_RETRY;
		else
			printf("%zu specs, %zu of %zu variants selected%s%s\n%s%s%s", A.nsf, A.nselected, A.nvariants,
			       A.nheld ? heldnote(o, &A) : "", A.nbad ? badnote(&A) : "", modelnote ? modelnote : "",
			       modelnote ? "\n" : "", sel.s);
	} else {
		if (split(o, &A) < 0)
			r = EXIT_RETRY;
	}
	buffree(&sel);
	freeall(&A);
	free(modelnote);
	return r;
}

/* --lang's comma-separated names as LANG_ bits (exit 2 on another name) */
static int
parselangs(const char *list)
{
	char *copy = xstrdup(list), *t, *save = NULL;
	int langs = 0, b;

	for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!(b = langnamed(t)))
			die(EXIT_USAGE, "--lang lists cuda and/or triton: '%s'", t);
		langs |= b;
	}
	free(copy);
	if (!langs)
		die(EXIT_USAGE, "--lang lists cuda and/or triton: '%s'", list);
	return langs;
}

int
main(int argc, char **argv)
{
	struct opts o = { "tasks", "out", "demo", 0, 1, 3, NULL, NULL, NULL, 0, "cuda", 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0,
	                  -1, -1, 0 };
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "--ninja", "FILE", OPT_STR, &o.ninja, 0, 0, "write the task graph to FILE and print a summary" },
		{ "--list", NULL, OPT_FLAG, &o.list, 0, 0, "print the selected variant ids, one per line" },
		{ "--split", "SPEC", OPT_STR, &o.split, 0, 0, "write OUT/v/<id>/task.json for SPEC's selected variants" },
		{ "--model-json", "FILE", OPT_STR, &o.modeljson, 0, 0, "resolve --provider and --model in --models into FILE" },
		{ "--tasks", "GLOBS", OPT_STR, &o.globs, 0, 0, "comma-separated globs over variant ids, spec ids and tags "
		  "(default: demo)" },
		{ "--all", NULL, OPT_FLAG, &o.all, 0, 0, "select every variant" },
		{ "--tasks-dir", "DIR", OPT_STR, &o.tasksdir, 0, 0, "the specs (default: tasks); templates in DIR/prompts" },
		{ "--out", "DIR", OPT_STR, &o.outdir, 0, 0, "the output folder (default: out)" },
		{ "--samples", "N", OPT_INT, &o.samples, 1, 1000, "samples per variant unless a spec says (default 1)" },
		{ "--rounds", "N", OPT_INT, &o.rounds, 1, MAX_ROUNDS, "rounds per sample unless a spec says (default 3)" },
		{ "--models", "FILE", OPT_STR, &o.models, 0, 0, "the models file (models.yaml), with --provider and --model" },
		{ "--provider", "P", OPT_STR, &o.provider, 0, 0, "the teacher's provider" },
		{ "--model", "M", OPT_STR, &o.model, 0, 0, "the teacher model" },
		{ "--price-in", "USD", OPT_NUM, &o.pricein, 0, 1e6, "with --price-out: the model's prices per million "
		  "tokens in and out (0 and 0: a free server), over models.yaml's" },
		{ "--price-out", "USD", OPT_NUM, &o.priceout, 0, 1e6, "see --price-in" },
		{ "--budget", "USD", OPT_NUM, &o.budget, 0, 1e12, "refuse a budget for a model without prices (exit 2)" },
		{ "--batch", NULL, OPT_FLAG, &o.batch, 0, 0, "--ninja: a batch edge per round (query-llm --batch)" },
		{ "--lang", "L,...", OPT_STR, &o.lang, 0, 0, "the candidate languages, cuda and/or triton, of specs "
		  "without lang: (default cuda)" },
		{ "--eval", "DIR", OPT_STR, &o.evaldir, 0, 0, "--ninja: an evaluation: samples under DIR, its metrics "
		  "instead of a dataset" },
		{ "--held-out", NULL, OPT_FLAG, &o.heldout, 0, 0, "select only the held-out tasks (package's test split)" },
		{ "--skill", "FILE", OPT_STR, &o.skill, 0, 0, "--ninja: the student's skill, an input of every request; "
		  "refused on a task it names as its source" },
		{ "--propose", "CURRICULUM", OPT_STR, &o.propose, 0, 0, "--ninja: the proposal graph, and the specs it accepted" },
		{ "--propose-split", "CURRICULUM", OPT_STR, &o.proposesplit, 0, 0, "write each proposal batch's request "
		  "(OUT/propose/<family>/b<k>/task.json)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 0, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!!o.ninja + o.list + !!o.split + !!o.modeljson + !!o.proposesplit != 1)
		optdie(&spec, "say what to do: one of --ninja FILE, --list, --split SPEC, --model-json FILE or "
		       "--propose-split CURRICULUM");
	if (o.models && (!o.provider || !o.model))
		die(EXIT_USAGE, "--models needs --provider and --model");
	if ((o.pricein >= 0) != (o.priceout >= 0))
		die(EXIT_USAGE, "--price-in and --price-out go together (USD per million tokens)");
	if (o.pricein >= 0 && !o.models)
		die(EXIT_USAGE, "--price-in and --price-out need --models, --provider and --model");
	if (o.modeljson && !o.models)
		die(EXIT_USAGE, "--model-json needs --models, --provider and --model");
	if (o.batch && (!o.provider || (strcmp(o.provider, "anthropic") && strcmp(o.provider, "openai"))))
		die(EXIT_USAGE, "--batch is for the providers with a batch API: anthropic or openai");
	o.langs = parselangs(o.lang);
	r = run(&o);
	if (fflush(stdout) != 0 || ferror(stdout))
		die(EXIT_RETRY, "cannot write to standard output:");
	if (r != 0)
		unmake(); /* a full disk: no empty v/<id>/ folders left */
	return r;
}
