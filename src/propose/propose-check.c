/*
 * NAME
 *     propose-check - check one round of a proposal batch's answer, rule by rule
 *
 * SYNOPSIS
 *     propose-check [options] -o CHECK_JSON TASK_JSON RESPONSE_JSON [PREVIOUS_CHECK_JSON]
 *     propose-check --corpus [options] -o CORPUS_JSON @SPECS
 *     propose-check --ask-reference N -o REFTASK_JSON TASK_JSON (@CHECKS | FIRST_AGREE_JSON)
 *     propose-check --ask-reference N --spec -o REFTASK_JSON SPEC [FIRST_AGREE_JSON]
 *     propose-check --agree [options] -o AGREE_JSON REFTASK_JSON RESPONSE_JSON [FIRST_AGREE_JSON]
 *
 * DESCRIPTION
 *     Reads a proposal batch's request (TASK_JSON) and the round's answer
 *     (RESPONSE_JSON): one ```yaml block a proposal. In a repair round
 *     the blocks stand for the proposals PREVIOUS_CHECK_JSON lists as
 *     failed. Each proposal goes through the rules in order; the first
 *     that fails ends its checks and is what the teacher is told. The
 *     spec rules use gen's own parser. The reference is untrusted C: it
 *     is built and run in the sandbox (prepare --reference, verify
 *     --expected) and probed on a canonical input for its behavioural
 *     fingerprint. Each proposal that parses also gets its text's MinHash.
 *     CHECK_JSON records every rule's result, the fingerprints, what is
 *     still failing and the next round's feedback.
 *     --corpus fingerprints the hand-written specs. --ask-reference
 *     writes the request for an independent reference (of a batch's
 *     passed proposals, or with --spec of a `reference: teacher` spec).
 *     --agree builds those references in the sandbox and compares them
 *     with the first on the same secret inputs.
 *
 * FILES
 *     out/propose/<family>/b<k>/r<r>/check.json, b<k>/ref2/, ref3/,
 *     agree.json; out/propose/corpus.json; out/teacherref/NAME/.
 *
 * EXIT STATUS
 *     0 written, whatever the proposals were; 1 infrastructure (a tool
 *     could not run, the disk); 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/propose.md
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../gen/yaml.h"
#include "../gen/expr.h"
#include "../gen/spec.h"
#include "../lib/task.h"
#include "../judge/compare.h"
#include "../judge/inputs.h"
#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../jail/sandbox.h"
#include "../lib/sha.h"
#include "../lib/tensor.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: propose-check [options] -o CHECK_JSON TASK_JSON RESPONSE_JSON [PREVIOUS_CHECK_JSON]\n"
	"       propose-check --corpus [options] -o CORPUS_JSON @SPECS\n"
	"       propose-check --ask-reference N -o REFTASK_JSON TASK_JSON (@CHECKS | FIRST_AGREE_JSON)\n"
	"       propose-check --ask-reference N --spec -o REFTASK_JSON SPEC [FIRST_AGREE_JSON]\n"
	"       propose-check --agree [options] -o AGREE_JSON REFTASK_JSON RESPONSE_JSON [FIRST_AGREE_JSON]\n";

enum { MAX_SPEC = 64 << 10, MAX_VARIANTS = 16, MAX_VERIFY = 16, PROBE_SIZE = 8, MAX_BLOCKS = 64 };
enum { MINHASH_K = 64, MINHASH_SHINGLE = 5 };
static const double MAX_CASE_BYTES = 64.0 * (1 << 20), PROBE_MAX_NUMEL = 1 << 20;
static const uint64_t PROBE_SEED = 0x70726f6265ULL;

struct opts {
	const char *out, *cachedir, *cc, *bindir, *src, *promptdir, *runner;
	const char *first; /* --first-response: a teacher-reference spec's reference 1 */
	double cpumax;
	int refseconds; /* --ref-seconds: verify --expected's, a reference's wall clock */
	int askref; /* --ask-reference N */
	int spec;   /* --spec: the batch is one hand-written spec (reference: teacher) */
};

/* one proposal's checks */
struct prop {
	json_t *rules;       /* [{rule, ok, message}] */
	const char *failed;  /* the first rule that failed, or NULL */
	struct buf diags;    /* the parser's messages */
};

static struct prop *cur; /* for the diagnostics sink */

static void
sink(const char *msg)
{
	bufprintf(&cur->diags, "%s\n", msg);
}

/* record rule's outcome; 0 when it passed */
static int
rule(struct prop *p, const char *name, int ok, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
rule(struct prop *p, const char *name, int ok, const char *fmt, ...)
{
	char msg[4096] = "";
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(msg, sizeof msg, fmt, ap);
		va_end(ap);
	}
	json_array_append_new(p->rules, json_pack("{s:s,s:b,s:s}", "rule", name, "ok", ok, "message", msg));
	if (!ok && !p->failed)
		p->failed = name;
	return ok ? 0 : -1;
}

/* ------------------------------------------------------------ the text */

/* the ```TAG blocks of text (yaml, c), at most max (malloc'd, NULL-terminated) */
static char **
fenced(const char *text, const char *tag, size_t max, size_t *n)
{
	char **v = xcalloc(max + 1, sizeof *v), open[16];
	const char *p = text;

	*n = 0;
	snprintf(open, sizeof open, "```%s", tag);
	while (*n < max && (p = strstr(p, open))) {
		const char *body = strchr(p, '\n'), *end;
		if (isalnum((unsigned char)p[strlen(open)]) || p[strlen(open)] == '+') { /* ```cpp, ```c++: not ```c */
			p += strlen(open);
			continue;
		}
		if (!body)
			break;
		body++;
		end = strncmp(body, "```", 3) == 0 ? body : strstr(body, "\n```");
		if (!end)
			end = body + strlen(body);
		else if (end != body)
			end++;
		v[(*n)++] = xstrndup(body, (size_t)(end - body));
		p = *end ? end + 3 : end;
	}
	return v;
}

/* the library a vendor routine's line names by its first word (cuBLAS: cublas), or NULL */
static const char *
vendorlib(const char *vendor)
{
	static const char *const libs[] = { "cublasLt", "cublas", "cudnn", "curand", "cufft", NULL };
	size_t n = strcspn(vendor, " \t(,");
	const char *const *l;

	for (l = libs; *l; l++)
		if (strlen(*l) == n && !strncasecmp(vendor, *l, n))
			return *l;
	return NULL;
}

/* whether a baseline's libs link the vendor routine's library (any library, when the line names none) */
static int
vendorlinked(const char *vendor, const json_t *libs)
{
	const char *want = vendorlib(vendor);
	json_t *v;
	size_t i;

	json_array_foreach(libs, i, v)
		if (!want || !strncmp(json_string_value(v), want, strlen(want))) /* cublas: cublasLt too */
			return 1;
	return 0;
}

/* the bounded fields, on the parsed text */
static int
bounded(struct prop *p, const struct ydoc *doc, const char *text, const struct task *t, const char *vendor)
{
	static const char *const overrides[] = { "prompt", "origin", "samples", "rounds", NULL };
	const char *const *k, *name;
	json_t *task = t->json, *tol, *v, *e;
	size_t i;

	if (rule(p, "no_allow", !yget(doc->root, "allow"), yget(doc->root, "allow") ? "a proposal cannot set "
	         "'allow': the static screen's rules hold for every proposed task" : NULL) < 0)
		return -1;
	for (k = overrides; *k && !yget(doc->root, *k); k++)
		;
	if (rule(p, "no_overrides", !*k, *k ? "a proposal cannot set '%s': the build decides it" : NULL, *k) < 0)
		return -1;
	tol = json_object_get(task, "tolerance");
	for (int j = 0; j < t->nargs; j++) {
		const struct targ *a = &t->args[j];
		json_object_foreach(json_object_get(tol, a->name), name, v) {
			double def = deftol(&dtinfos[a->dt], name);
			if (json_number_value(v) > def * (1 + 1e-9))
				return rule(p, "tolerance", 0, "%s of '%s' is %g, looser than the %s default %g: a "
				            "proposal may tighten tolerances, not loosen them", name, a->name,
				            json_number_value(v), dtinfos[a->dt].name, def);
		}
	}
	json_array_foreach(json_object_get(task, "examples"), i, e)
		if (jnum(e, "tolerance", 1e-4) > 1e-4 * (1 + 1e-9))
			return rule(p, "tolerance", 0, "example %zu's tolerance %g is looser than the default 1e-4",
			            i + 1, jnum(e, "tolerance", 1e-4));
	rule(p, "tolerance", 1, NULL);
	json_array_foreach(json_object_get(json_object_get(task, "baseline"), "libs"), i, v) {
		static const char *const vendor[] = { "cublas", "cublasLt", "cudnn", "curand", "cufft", NULL };
		for (k = vendor; *k && strcmp(*k, json_string_value(v)); k++)
			;
		if (!*k)
			return rule(p, "baseline_libs", 0, "baseline library '%s' is not a vendor library",
			            json_string_value(v));
	}
	if (json_object_get(json_object_get(task, "baseline"), "python"))
		return rule(p, "baseline_libs", 0, "a proposal's baseline is CUDA C (`baseline: {code, libs}`), "
		            "calling a vendor library where one fits; not Python");
	rule(p, "baseline_libs", 1, NULL);
	if (vendor && !vendorlinked(vendor, json_object_get(json_object_get(task, "baseline"), "libs")))
		return rule(p, "baseline_vendor", 0, "this family's problems have a vendor routine (%s): give each a "
		            "`baseline: {code, libs}` in CUDA C that calls it, `libs` naming its library (%s)", vendor,
		            vendorlib(vendor) ? vendorlib(vendor) : "cublas, cudnn, ...");
	rule(p, "baseline_vendor", 1, NULL);
	if (strstr(text, "{{") || strstr(text, "}}"))
		return rule(p, "text_is_data", 0, "'{{' or '}}' in the spec: template syntax is not allowed in "
		            "proposals (their text is shown to later requests as data)");
	return rule(p, "text_is_data", 1, NULL);
}

/* ---------------------------------------------------------- the tools */

/* the wall clock of a trusted tool's run: past it, this machine failed */
enum { TOOL_SECONDS = 1800 };

/* run a trusted tool (prepare, verify) outside the sandbox; its exit status, its messages in log */
static int
tool(char **argv, struct buf *log, double *cpu)
{
	struct runlimits lim = { TOOL_SECONDS, 0, 0, NULL };
	struct rusage r0, r1;
	struct run r;

	getrusage(RUSAGE_CHILDREN, &r0);
	if (runcapture(argv, NULL, NULL, &lim, 1 << 16, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s':", argv[0]);
	getrusage(RUSAGE_CHILDREN, &r1);
	if (cpu)
		*cpu = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec + r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
		       (double)(r1.ru_utime.tv_usec - r0.ru_utime.tv_usec + r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) / 1e6;
	bufput(log, r.log.s, r.log.n);
	buffree(&r.log);
	if (r.timedout)
		die(EXIT_RETRY, "'%s' ran past %d s", argv[0], TOOL_SECONDS);
	if (r.status == 1 || r.status > 2)
		die(EXIT_RETRY, "'%s' failed (status %d):\n%s", argv[0], r.status, log->s ? log->s : "");
	return r.status;
}

/* prepare --reference of task into ref (with --runner, when given), as tool() runs it */
static int
buildref(const struct opts *o, const char *task, const char *ref, struct buf *log)
{
	char *prep = xasprintf("%s/prepare", o->bindir);
	char *argv[] = { prep, "--reference", "-o", (char *)ref, "--cc", (char *)o->cc, "--src", (char *)o->src,
	                 (char *)task, o->runner ? "--runner" : NULL, (char *)o->runner, NULL };
	int st = tool(argv, log, NULL);

	free(prep);
	return st;
}

/* the reference built and verify --expected's checks: examples, degenerate, the runs, the CPU time */
static int
referencechecks(const struct opts *o, struct prop *p, const char *dir, double *cpu)
{
	char *task = xasprintf("%s/task.json", dir), *ref = xasprintf("%s/reference", dir);
	char *exp = xasprintf("%s/expected.json", dir), *ver = xasprintf("%s/verify", o->bindir);
	char secs[16];
	char *a2[] = { ver, "--expected", "--no-bench", "--ref-seconds", secs, "--cache-dir", (char *)o->cachedir, "-o", exp,
	               task, ref, NULL };
	struct buf log;
	int rc = -1, st;

	/* within tool()'s TOOL_SECONDS: verify records the reference's verdict
	 * before this one's limit would end it */
	snprintf(secs, sizeof secs, "%d", o->refseconds);

	bufinit(&log, 1 << 17);
	st = buildref(o, task, ref, &log); /* before log.s is read: it grows */
	if (rule(p, "reference_builds", st == 0, "%s", log.s ? log.s : "") < 0)
		goto out;
	bufreset(&log);
	st = tool(a2, &log, cpu);
	if (st != 0 && log.s && strstr(log.s, "example"))
		rule(p, "examples", 0, "%s", log.s);
	else if (st != 0 && log.s && strstr(log.s, "degenerate task"))
		rule(p, "examples", 1, NULL), rule(p, "degenerate", 0, "%s", log.s);
	else if (st != 0)
		rule(p, "examples", 1, NULL), rule(p, "degenerate", 1, NULL), rule(p, "reference_runs", 0, "%s",
		     log.s ? log.s : "");
	else if (rule(p, "examples", 1, NULL), rule(p, "degenerate", 1, NULL), rule(p, "reference_runs", 1, NULL),
	         *cpu > o->cpumax)
		rule(p, "cpu_time", 0, "the reference took %.1f CPU seconds on the verify sizes, more than %.0f: make "
		     "the verify sizes smaller", *cpu, o->cpumax);
	else
		rc = rule(p, "cpu_time", 1, "%.3f s", *cpu);
out:
	buffree(&log);
	free(task), free(ref), free(exp), free(ver);
	return rc;
}

/* ---------------------------------------------------------- the probe */

struct sizescope {
	const struct task *t;
	const struct tcase *c;
};

static int
lookup(void *ctx, const char *name, double *v)
{
	const struct sizescope *s = ctx;
	int i, k = 0;

	for (i = 0; i < s->t->nargs; i++)
		if (s->t->args[i].kind == ARG_SIZE) {
			if (!strcmp(s->t->args[i].name, name)) {
				*v = (double)s->c->sizes[k];
				return 0;
			}
			k++;
		}
	return -1;
}

static int
notensor(void *ctx, const char *fn, const char *name, double *v)
{
	(void)ctx, (void)fn, (void)name, (void)v;
	return -1;
}

/* the canonical probe case: every size PROBE_SIZE, shapes from the spec's expressions; 0, or -1 */
static int
canonical(const struct task *t, struct tcase *c)
{
	struct sizescope sc = { t, c };
	struct scope scope = { lookup, notensor, &sc };
	int i, k;

	for (i = 0; i < c->nsizes; i++)
		c->sizes[i] = PROBE_SIZE;
	for (i = 0; i < t->nargs; i++) {
		const json_t *sh = t->args[i].shape;
		json_t *d;
		size_t j;
		if (!istensor(&t->args[i]))
			continue;
		c->numel[i] = 1;
		json_array_foreach(sh, j, d) {
			char err[256];
			int pos;
			double v;
			struct expr *e = exprparse(json_is_string(d) ? json_string_value(d) : "0", err, sizeof err, &pos);
			k = !e || expreval(e, &scope, &v, err, sizeof err) < 0 || !(v >= 1) || v != floor(v);
			exprfree(e);
			if (k)
				return -1;
			c->dims[i][j] = (int64_t)v;
			c->numel[i] *= (int64_t)v;
		}
		if ((double)c->numel[i] > PROBE_MAX_NUMEL)
			return -1;
	}
	snprintf(c->label, sizeof c->label, "every size %d", PROBE_SIZE);
	return 0;
}

/* the probe's plan: the base case, then, in argument order, one per input tensor and scalar changed */
static void
probeplan(const struct task *t, const struct tcase *c, struct buf *plan, int *ncases)
{
	static const unsigned char zero[32];
	struct runin base, in;
	struct tcase pc;
	int i, s = 0;

	runinputs(t, c, zero, "probe", 0, 0, 0, &base);
	for (i = 0; i < t->nargs; i++)
		base.d[i].seed = PROBE_SEED + (uint64_t)i;
	for (i = 0; i < c->nscalars; i++)
		base.scalars[i] = c->scalars[i];
	planline(plan, t, c, &base, NULL);
	*ncases = 1;
	for (i = 0; i < t->nargs; i++) {
		double v;
		in = base;
		pc = *c;
		if (isinput(&t->args[i])) {
			in.d[i].seed += 7777;
		} else if (t->args[i].kind == ARG_SCALAR) {
			v = base.scalars[s];
			in.scalars[s] = dtinfos[t->args[i].dt].isfloat ? (v != 0 ? v * 0.5 : 0.5) : v > 1 ? v - 1 : v + 1;
			pc.scalars[s] = in.scalars[s];
			s++;
		} else {
			continue;
		}
		planline(plan, t, &pc, &in, NULL);
		++*ncases;
	}
}

/* run the reference on plan in the sandbox, in dir; its output file's bytes into out; 0 or -1 (log) */
static int
sandboxrun(const char *dir, const char *plan, size_t outbytes, struct buf *out, struct buf *log)
{
	struct jail j;
	struct runlimits lim = { 60, 0, 0, &j };
	struct run r;
	char *bin = xasprintf("%s/reference", dir), *file = xasprintf("%s/probe.bin", dir), *argv[3];
	int rc = -1;

	memset(&j, 0, sizeof j);
	j.work = dir;
	/* as verify --expected's: its outputs' file on the disk, the rest in a tmpfs */
	lim.filemb = (long)(outbytes >> 20) + 64;
	j.diskmb = JAIL_REF_DISKMB;
	j.keep[0] = "probe.bin";
	argv[0] = jailpath(&j, "reference");
	argv[1] = "probe.bin";
	argv[2] = NULL;
	unlink(file);
	if (runcapture(argv, dir, plan, &lim, 1 << 16, &r) < 0)
		die(EXIT_RETRY, "cannot run the reference in '%s':", dir);
	bufput(log, r.log.s, r.log.n);
	if (r.timedout)
		bufprintf(log, "[the reference ran longer than 60 s on the plan]");
	else if (r.diskfull)
		bufprintf(log, "[the reference wrote more than %d MiB besides its outputs on the plan (its disk budget)]",
		          JAIL_REF_DISKMB);
	else if (r.status)
		bufprintf(log, "[the reference exited with status %d on the plan]", r.status);
	else if (readfile(file, out) < 0 || out->n != outbytes)
		bufprintf(log, "[the reference wrote %zu bytes on the plan, not %zu]", out->n, outbytes);
	else
		rc = 0;
	buffree(&r.log);
	free(argv[0]);
	free(bin);
	free(file);
	return rc;
}

/* the signature's class: kind, dtype and rank of each argument */
static void
classkey(const struct task *t, const struct tcase *c, struct buf *b)
{
	int i;

	for (i = 0; i < t->nargs; i++)
		bufprintf(b, "%s%s:%s:%d", i ? "," : "", argkinds[t->args[i].kind],
		          t->args[i].kind == ARG_SIZE ? "-" : dtinfos[t->args[i].dt].name, c->ndims[i]);
}

/* the rounded outputs of the base case (the first outbytes of data) */
static void
fingerprint(const struct task *t, const struct tcase *c, const char *data, const char *key, char hex[65])
{
	struct buf b;
	size_t off = 0, j;
	int i;

	bufinit(&b, (size_t)1 << 30);
	bufprintf(&b, "%s\n", key);
	for (i = 0; i < t->nargs; i++) {
		if (!isoutput(&t->args[i]))
			continue;
		for (j = 0; j < (size_t)c->numel[i]; j++)
			bufprintf(&b, "%.3g ", refvalue(data + off, t->args[i].dt, j) + 0.0);
		off += (size_t)c->numel[i] * (size_t)refsize(t->args[i].dt);
		bufputc(&b, '\n');
	}
	sha256hex(b.s, b.n, hex);
	buffree(&b);
}

/* deterministic, depends on every input and scalar; the fingerprint into rec */
static void
probe(struct prop *p, const char *dir, json_t *rec)
{
	struct task t;
	struct tcase c;
	struct buf plan, a, b, log, key;
	char err[512], hex[65], *task = xasprintf("%s/task.json", dir);
	size_t per;
	int n, i, ci;

	if (taskload(task, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	free(task);
	if (caseload(&t, json_array_get(json_object_get(json_object_get(t.json, "cases"), "verify"), 0), &c, err,
	             sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	json_object_set_new(rec, "probe", json_string(canonical(&t, &c) == 0 ? "canonical" : "first verify size"));
	if (strcmp(jstr(rec, "probe", ""), "canonical"))
		caseload(&t, json_array_get(json_object_get(json_object_get(t.json, "cases"), "verify"), 0), &c, err,
		         sizeof err);
	bufinit(&plan, 1 << 26), bufinit(&a, (size_t)1 << 31), bufinit(&b, (size_t)1 << 31), bufinit(&log, 1 << 16);
	bufinit(&key, 1 << 14);
	probeplan(&t, &c, &plan, &n);
	per = refoutbytes(&t, &c);
	if (sandboxrun(dir, plan.s, per * (size_t)n, &a, &log) < 0 || sandboxrun(dir, plan.s, per * (size_t)n, &b, &log) < 0) {
		rule(p, "deterministic", 0, "the reference failed on the probe input (%s): %s", c.label, log.s);
		goto out;
	}
	if (rule(p, "deterministic", memcmp(a.s, b.s, a.n) == 0, memcmp(a.s, b.s, a.n) ? "two runs of the "
	         "reference on the same inputs (%s) gave different outputs: it must not read uninitialized "
	         "memory, clocks or random numbers" : NULL, c.label) < 0)
		goto out;
	for (i = 0, ci = 1; i < t.nargs; i++) { /* the plan's cases, in its order */
		int changed;
		if (!isinput(&t.args[i]) && t.args[i].kind != ARG_SCALAR)
			continue;
		changed = memcmp(a.s, a.s + per * (size_t)ci, per) != 0;
		ci++;
		if (!changed) {
			rule(p, t.args[i].kind == ARG_SCALAR ? "depends_on_scalars" : "depends_on_inputs", 0,
			     "changing %s '%s' (%s) changes no output: every input and parameter must matter",
			     t.args[i].kind == ARG_SCALAR ? "scalar" : "input", t.args[i].name, c.label);
			goto out;
		}
	}
	rule(p, "depends_on_inputs", 1, NULL);
	rule(p, "depends_on_scalars", 1, NULL);
	classkey(&t, &c, &key);
	fingerprint(&t, &c, a.s, key.s, hex);
	json_object_set_new(rec, "fingerprint", json_string(hex));
	json_object_set_new(rec, "fingerprint_key", json_string(key.s));
out:
	buffree(&plan), buffree(&a), buffree(&b), buffree(&log), buffree(&key);
	taskfree(&t);
}

/* ------------------------------------------------------- the text's MinHash */

/* splitmix64: the hash functions' constants */
static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* word w's hash (FNV-1a, lowercased), or its argument's place where it is
 * one of the names: a renamed argument leaves the text's shingles as they
 * were */
static uint64_t
wordhash(const char *w, size_t n, const struct task *t)
{
	uint64_t h = 1469598103934665603ULL;
	size_t i;

	for (i = 0; i < (size_t)t->nargs; i++)
		if (strlen(t->args[i].name) == n && !strncmp(t->args[i].name, w, n))
			return mix(0xa11a5ULL + i);
	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)tolower((unsigned char)w[i])) * 1099511628211ULL;
	return h;
}

/*
 * The MinHash signature of a text (MINHASH_K 32-bit minima, as hex): its
 * words (lowercased letters, digits and _; an argument's name stands for
 * its place among t's args), in shingles of MINHASH_SHINGLE
 * words (FNV-1a), each hashed MINHASH_K ways.
 */
static json_t *
minhash(const char *text, const struct task *t)
{
	uint64_t words[MINHASH_SHINGLE] = { 0 }, a[MINHASH_K];
	uint32_t sig[MINHASH_K];
	char hex[MINHASH_K * 8 + 1];
	const char *p = text;
	size_t nw = 0, i;

	for (i = 0; i < MINHASH_K; i++)
		sig[i] = UINT32_MAX, a[i] = mix(i) | 1;
	for (;;) {
		uint64_t h, sh = 1469598103934665603ULL;
		const char *w;
		while (*p && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		if (!*p && nw >= MINHASH_SHINGLE)
			break;
		for (w = p; *p && (isalnum((unsigned char)*p) || *p == '_'); p++)
			;
		h = wordhash(w, (size_t)(p - w), t);
		memmove(words, words + 1, sizeof words - sizeof words[0]);
		words[MINHASH_SHINGLE - 1] = h;
		if (++nw < MINHASH_SHINGLE && *p)
			continue;
		for (i = 0; i < MINHASH_SHINGLE; i++)
			sh = (sh ^ words[i]) * 1099511628211ULL;
		for (i = 0; i < MINHASH_K; i++) {
			uint32_t v = (uint32_t)((sh * a[i] + mix(i + MINHASH_K)) >> 32);
			if (v < sig[i])
				sig[i] = v;
		}
		if (!*p)
			break;
	}
	for (i = 0; i < MINHASH_K; i++)
		snprintf(hex + 8 * i, 9, "%08x", sig[i]);
	return json_string(hex);
}

/* a variant's text for the MinHash: its description and reference */
static json_t *
textsig(const struct task *t)
{
	char *text = xasprintf("%s\n%s", jstr(t->json, "description", ""), jstr(t->json, "reference", ""));
	json_t *r = minhash(text, t);

	free(text);
	return r;
}


/* ------------------------------------------------------- a proposal */

/* the caps on what one proposal expands to */
static int
caps(struct prop *p, const struct specfile *sf)
{
	struct task t;
	char err[512], *path;
	int i, r;

	if (sf->nv > MAX_VARIANTS)
		return rule(p, "caps", 0, "%zu variants: a proposal may expand to at most %d", sf->nv, MAX_VARIANTS);
	path = xasprintf("%s.caps.json", sf->path);
	if (jwrite(path, sf->v[0].json) < 0)
		die(EXIT_RETRY, "cannot write '%s':", path);
	r = taskload(path, &t, err, sizeof err);
	unlink(path);
	free(path);
	if (r < 0)
		return rule(p, "caps", 0, "%s", err);
	r = t.nverify <= MAX_VERIFY ? 0 : -1;
	for (i = 0; i < t.nverify && !r; i++)
		if ((double)casebytes(&t, &t.verify[i]) > MAX_CASE_BYTES)
			r = i + 1;
	if (r < 0)
		rule(p, "caps", 0, "%d verify sizes, more than %d", t.nverify, MAX_VERIFY);
	else if (r)
		rule(p, "caps", 0, "verify size %d moves %.0f MiB, more than %.0f: the CPU reference runs there", r,
		     (double)casebytes(&t, &t.verify[r - 1]) / (1 << 20), MAX_CASE_BYTES / (1 << 20));
	else
		rule(p, "caps", 1, NULL);
	taskfree(&t);
	return r ? -1 : 0;
}

/* the rules' messages with the proposal's folder left out ("spec:12:3: ..."): the record's bytes are the same every run */
static void
unpath(json_t *rules, const char *dir)
{
	json_t *r;
	size_t i, dl = strlen(dir);

	json_array_foreach(rules, i, r) {
		const char *m = jstr(r, "message", ""), *q;
		struct buf b;
		if (!strstr(m, dir))
			continue;
		bufinit(&b, 1 << 20);
		while ((q = strstr(m, dir))) {
			bufput(&b, m, (size_t)(q - m));
			bufputs(&b, "spec");
			m = q + dl;
			if (!strncmp(m, "/spec.yaml", 10))
				m += 10;
		}
		bufputs(&b, m);
		json_object_set_new(r, "message", json_string(b.s));
		buffree(&b);
	}
}

/* every rule over one proposal's text, in its folder dir (vendor: its family's vendor routine, or NULL); its record */
static json_t *
checkone(const struct opts *o, const char *text, const char *dir, const char *vendor)
{
	struct prop p = { json_array(), NULL, { 0 } };
	struct specfile sf = { 0 };
	struct ydoc doc = { 0 };
	struct task t = { 0 };
	char err[1024], *path = xasprintf("%s/spec.yaml", dir), *task = xasprintf("%s/task.json", dir);
	json_t *rec = json_object(), *v;
	double cpu = 0;

	bufinit(&p.diags, 1 << 16);
	cur = &p;
	if (rule(&p, "size", strlen(text) <= MAX_SPEC, "%zu bytes, more than %d", strlen(text), MAX_SPEC) < 0)
		goto done;
	if (mkdirp(dir) < 0 || writefile(path, text, strlen(text)) < 0)
		die(EXIT_RETRY, "cannot write '%s':", path);
	diagreset();
	if (specload(path, &sf) < 0 || sf.nv == 0) {
		rule(&p, "schema", 0, "%s", p.diags.s ? p.diags.s : "no variant");
		goto done;
	}
	if (taskfrom(&t, sf.v[0].json, "the proposal", err, sizeof err) < 0) {
		rule(&p, "schema", 0, "%s", err);
		goto done;
	}
	rule(&p, "schema", 1, NULL);
	json_object_set_new(rec, "id", json_string(sf.v[0].spec));
	json_object_set_new(rec, "id_line", json_integer(sf.idline));
	json_object_set_new(rec, "id_col", json_integer(sf.idcol));
	json_object_set_new(rec, "minhash", textsig(&t));
	if (caps(&p, &sf) < 0 || yloadfile(path, &doc) < 0)
		goto done;
	v = sf.v[0].json;
	if (bounded(&p, &doc, text, &t, vendor) < 0)
		goto done;
	if (rule(&p, "reference_c", json_is_string(json_object_get(v, "reference")) &&
	         !strcmp(jstr(v, "reference_language", "c"), "c"), "a proposal's reference is C: "
	         "`reference: |` with `void reference(...)`") < 0 ||
	    rule(&p, "examples_present", json_array_size(json_object_get(v, "examples")) > 0,
	         "no examples: give at least one small hand-computed case the reference must reproduce") < 0)
		goto done;
	if (jwrite(task, v) < 0)
		die(EXIT_RETRY, "cannot write '%s':", task);
	if (referencechecks(o, &p, dir, &cpu) == 0)
		probe(&p, dir, rec);
	json_object_set_new(rec, "cpu_seconds", json_real(round(cpu * 1000) / 1000));
done:
	if (doc.root)
		yfree(&doc);
	taskfree(&t);
	specfree(&sf); /* filled either way */
	unpath(p.rules, dir);
	json_object_set_new(rec, "rules", p.rules);
	json_object_set_new(rec, "status", json_string(p.failed ? "failed" : "passed"));
	if (p.failed)
		json_object_set_new(rec, "failed_rule", json_string(p.failed));
	buffree(&p.diags);
	free(path);
	free(task);
	cur = NULL;
	return rec;
}

/* the message of the rule that failed, for the teacher */
static void
feedbackline(struct buf *fb, json_t *rec, int k)
{
	json_t *r;
	size_t i;

	json_array_foreach(json_object_get(rec, "rules"), i, r)
		if (!jbool(r, "ok", 1)) {
			bufprintf(fb, "- Proposal %d (%s): rule `%s` failed:\n\n```\n%.6000s\n```\n\n", k,
			          jstr(rec, "id", "no id"), jstr(r, "rule", ""), jstr(r, "message", ""));
			return;
		}
}

static int
check(const struct opts *o, const char *taskpath, const char *resppath, const char *prevpath)
{
	json_t *task = schemaload(taskpath, schema_proposal_json), *resp = schemaload(resppath, schema_response_json);
	json_t *prev = prevpath ? schemaload(prevpath, schema_check_json) : NULL;
	json_t *out, *props = json_array(), *failed = json_array(), *map;
	int round = (int)jint(resp, "round", 1), rounds = (int)jint(task, "rounds", 1);
	size_t nb, i, max;
	char **blocks, *work;
	struct buf fb;

	out = json_pack("{s:i,s:s,s:s,s:i,s:s?,s:s?,s:s?}", "version", 1, "task", jstr(task, "id", "?"), "family",
	                jstr(task, "family", "?"), "round", round, "provider", jstr(resp, "provider", NULL),
	                "model", jstr(resp, "model", NULL), "key", jstr(resp, "key", NULL));
	if (statusof(resp, STAGE_ANSWER) == ST_DONE || !json_is_object(json_object_get(resp, "answer"))) {
		json_object_set_new(out, "status", json_string("done"));
		json_object_set_new(out, "finished", json_true());
		json_object_set_new(out, "feedback", json_string(""));
		json_object_set_new(out, "proposals", props);
		json_object_set_new(out, "failed", failed);
		goto write;
	}
	map = prev ? json_object_get(prev, "failed") : NULL;
	max = map ? json_array_size(map) : (size_t)jint(task, "count", 1);
	blocks = fenced(jstr(json_object_get(resp, "answer"), "text", ""), "yaml", max < MAX_BLOCKS ? max : MAX_BLOCKS, &nb);
	if (mkparent(o->out) < 0 || !(work = tempdir(o->out, "work")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	bufinit(&fb, 1 << 22);
	for (i = 0; i < nb; i++) {
		int index = map ? (int)json_integer_value(json_array_get(map, i)) : (int)i;
		char *dir = xasprintf("%s/p%zu", work, i);
		json_t *rec;
		if (strspn(blocks[i], " \t\n") < strlen(blocks[i])) {
			rec = checkone(o, blocks[i], dir, json_string_value(json_object_get(task, "vendor")));
		} else {
			rec = json_pack("{s:s,s:[]}", "status", "empty", "rules");
		}
		json_object_set_new(rec, "index", json_integer(index));
		json_object_set_new(rec, "round", json_integer(round));
		json_object_set_new(rec, "spec", json_string(blocks[i]));
		if (!strcmp(jstr(rec, "status", ""), "failed")) {
			json_array_append_new(failed, json_integer(index));
			feedbackline(&fb, rec, (int)json_array_size(failed));
		}
		json_array_append_new(props, rec);
		free(dir);
		free(blocks[i]);
	}
	free(blocks);
	tempdone(work);
	free(work);
	json_object_set_new(out, "status", json_string("checked"));
	{ /* a measurement: this process's own CPU, the reference runs (its children) left out */
		struct rusage ru;
		getrusage(RUSAGE_SELF, &ru);
		double self = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
		              (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
		json_object_set_new(out, "check_cpu_seconds", json_real(floor(self * 1000 + 0.5) / 1000));
	}
	json_object_set_new(out, "finished", json_boolean(json_array_size(failed) == 0 || round >= rounds));
	json_object_set_new(out, "feedback", json_string(fb.s ? fb.s : ""));
	json_object_set_new(out, "proposals", props);
	json_object_set_new(out, "failed", failed);
	buffree(&fb);
write:
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(out);
	json_decref(task);
	json_decref(resp);
	json_decref(prev);
	return 0;
}

/* --corpus: each spec's MinHash and, for a C reference, its fingerprint (its first variant's) */
static int
corpus(const struct opts *o, char **paths, size_t n)
{
	json_t *specs = json_array(), *out;
	char err[1024], *work;
	size_t i;

	if (mkparent(o->out) < 0 || !(work = tempdir(o->out, "work")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	for (i = 0; i < n; i++) {
		struct specfile sf = { 0 };
		struct task t;
		struct prop p = { json_array(), NULL, { 0 } };
		char *dir = xasprintf("%s/s%zu", work, i), *task = xasprintf("%s/task.json", dir);
		char *ref = xasprintf("%s/reference", dir);
		json_t *rec;
		struct buf log;

		bufinit(&p.diags, 1 << 16);
		cur = &p;
		diagreset();
		if (specload(paths[i], &sf) < 0 || !sf.nv)
			die(EXIT_USAGE, "%s: not a valid spec:\n%s", paths[i], p.diags.s ? p.diags.s : "");
		if (taskfrom(&t, sf.v[0].json, paths[i], err, sizeof err) < 0)
			die(EXIT_USAGE, "%s", err);
		rec = json_pack("{s:s,s:s,s:o}", "id", sf.v[0].spec, "file", paths[i], "minhash", textsig(&t));
		taskfree(&t);
		bufinit(&log, 1 << 17);
		if (!sf.v[0].pyref && sf.v[0].hasref && (mkdirp(dir) < 0 || jwrite(task, sf.v[0].json) < 0))
			die(EXIT_RETRY, "cannot write '%s':", task);
		if (!sf.v[0].pyref && sf.v[0].hasref && buildref(o, task, ref, &log) == 0)
			probe(&p, dir, rec);
		json_array_append_new(specs, rec);
		buffree(&log);
		buffree(&p.diags);
		json_decref(p.rules);
		specfree(&sf);
		free(dir), free(task), free(ref);
	}
	cur = NULL;
	tempdone(work);
	free(work);
	out = json_pack("{s:i,s:o}", "version", 1, "specs", specs);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(out);
	return 0;
}

/* ------------------------------------ independent references (--ask-reference, --agree) */

enum { AGREE_MAX_BYTES = 256 << 20 };

/* the spec's text without its reference and baseline (top-level keys and
 * the indented or blank lines below them): what another author sees */
static char *
withoutreference(const char *text)
{
	struct buf b;
	const char *p = text;
	int drop = 0;

	bufinit(&b, 1 << 20);
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p + 1) : strlen(p);
		if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r' && *p != '#')
			drop = !strncmp(p, "reference:", 10) || !strncmp(p, "reference_language:", 19) ||
			       !strncmp(p, "baseline:", 9);
		if (!drop)
			bufput(&b, p, n);
		p += n;
	}
	return bufdetach(&b);
}

/* the spec's variants (its text written to dir/spec.yaml): their resolved
 * JSON, in the matrix's order; NULL when the text is no valid spec */
static json_t *
specvariants(const char *text, const char *dir)
{
	struct specfile sf = { 0 };
	struct prop p = { json_array(), NULL, { 0 } };
	char *path = xasprintf("%s/spec.yaml", dir);
	json_t *vars = NULL;
	size_t i;

	bufinit(&p.diags, 1 << 16);
	cur = &p;
	if (mkdirp(dir) < 0 || writefile(path, text, strlen(text)) < 0)
		die(EXIT_RETRY, "cannot write '%s':", path);
	diagreset();
	if (specload(path, &sf) == 0 && sf.nv > 0) {
		vars = json_array();
		for (i = 0; i < sf.nv; i++)
			json_array_append(vars, sf.v[i].json);
	}
	specfree(&sf);
	cur = NULL;
	buffree(&p.diags);
	json_decref(p.rules);
	free(path);
	return vars;
}

/* variant v's task: written to dir/task.json (scratch: not fsync'd) and loaded into t; 0, or -1 with why in err */
static int
varianttask(json_t *v, const char *dir, struct task *t, char *err, size_t cap)
{
	char *tp = xasprintf("%s/task.json", dir);
	int rc;

	if (mkdirp(dir) < 0 || jreplace(tp, v) < 0)
		die(EXIT_RETRY, "cannot write '%s':", tp);
	rc = taskload(tp, t, err, cap);
	free(tp);
	return rc;
}

/* the spec's first variant in dir (spec.yaml, task.json): its JSON and
 * its task; 0, or -1 when the text is no valid spec */
static int
specvariant(const char *text, const char *dir, json_t **json, struct task *t)
{
	json_t *vars = specvariants(text, dir);
	char err[512];
	int rc = -1;

	if (vars && (rc = varianttask(json_array_get(vars, 0), dir, t, err, sizeof err)) == 0)
		*json = json_incref(json_array_get(vars, 0));
	json_decref(vars);
	return rc;
}

/* the distinct reference signatures of the first max variants of vars
 * (all when max is 0; each loaded in dir): [{signature, variants: [their
 * indices in vars]}], in the variants' order */
static json_t *
signatures(json_t *vars, const char *dir, size_t max)
{
	json_t *groups = json_array(), *v, *g = NULL;
	size_t i, k;

	json_array_foreach(vars, i, v) {
		struct task t;
		struct abiarg a[MAXARGS];
		char err[512], *sig;
		if (max && i >= max)
			break;
		if (varianttask(v, dir, &t, err, sizeof err) < 0)
			die(EXIT_USAGE, "variant '%s' is not a task: %s", jstr(v, "id", "?"), err);
		sig = abisignature(a, taskabi(&t, a), "reference", 1);
		taskfree(&t);
		json_array_foreach(groups, k, g)
			if (!strcmp(jstr(g, "signature", ""), sig))
				break;
		if (k == json_array_size(groups))
			json_array_append_new(groups, g = json_pack("{s:s,s:[]}", "signature", sig, "variants"));
		json_array_append_new(json_object_get(g, "variants"), json_integer((json_int_t)i));
		free(sig);
	}
	return groups;
}

/* the variant code is built for: its {KEY}s replaced by the variant's
 * matrix values, as gen does a spec's own reference (malloc'd) */
static char *
variantcode(const char *code, json_t *v)
{
	char *s = specsubst(code, json_object_get(v, "matrix"));

	return s ? s : xstrdup(code);
}

/* the distinct values of matrix key of the variants ix (indices in vars; all when NULL), in order */
static json_t *
keyvalues(json_t *vars, json_t *ix, const char *key)
{
	json_t *vals = json_array(), *v, *w;
	size_t i, k, n = ix ? json_array_size(ix) : json_array_size(vars);

	for (i = 0; i < n; i++) {
		const char *s;
		v = json_array_get(vars, ix ? (size_t)json_integer_value(json_array_get(ix, i)) : i);
		s = jstr(json_object_get(v, "matrix"), key, "");
		json_array_foreach(vals, k, w)
			if (!strcmp(json_string_value(w), s))
				break;
		if (k == json_array_size(vals))
			json_array_append_new(vals, json_string(s));
	}
	return vals;
}

/* what signature group g is for: the matrix values its variants take
 * where those are not all the spec's, then (some of) their ids */
static void
groupwhat(struct buf *b, json_t *vars, json_t *g)
{
	json_t *mx = json_object_get(json_array_get(vars, 0), "matrix"), *ix = json_object_get(g, "variants"), *w;
	const char *key;
	json_t *val;
	size_t i, n = json_array_size(ix);
	int said = 0;

	json_object_foreach(mx, key, val) {
		json_t *in = keyvalues(vars, ix, key), *all = keyvalues(vars, NULL, key);
		if (json_array_size(in) < json_array_size(all)) {
			bufprintf(b, "%s%s ", said++ ? "; " : "for ", key);
			json_array_foreach(in, i, w)
				bufprintf(b, "%s%s", i ? ", " : "", json_string_value(w));
		}
		json_decref(in), json_decref(all);
	}
	bufprintf(b, "%s(%zu variant%s: ", said ? " " : "for ", n, n == 1 ? "" : "s");
	for (i = 0; i < n && i < 4; i++)
		bufprintf(b, "%s%s", i ? ", " : "", jstr(json_array_get(vars, (size_t)json_integer_value(
		          json_array_get(ix, i))), "id", "?"));
	bufputs(b, n > 4 ? ", ...)" : ")");
}

/* the first matrix key whose values are all dtypes and tell the groups apart, or NULL */
static const char *
dtypekey(json_t *vars, json_t *groups)
{
	json_t *mx = json_object_get(json_array_get(vars, 0), "matrix"), *val, *w, *g;
	const char *key;
	size_t i, k;

	json_object_foreach(mx, key, val) {
		json_t *all = keyvalues(vars, NULL, key);
		int dtypes = 1, apart = 0;
		json_array_foreach(all, i, w)
			dtypes &= dtypefind(json_string_value(w)) >= 0;
		json_array_foreach(groups, k, g) {
			json_t *in = keyvalues(vars, json_object_get(g, "variants"), key);
			apart |= json_array_size(in) < json_array_size(all);
			json_decref(in);
		}
		json_decref(all);
		if (dtypes && apart)
			return key;
	}
	return NULL;
}

/* a teacher-reference spec whose variants' reference signatures differ:
 * each signature with what it is for, and how one reference fits them
 * all (the spec's text is a template, as a hand-written reference's is) */
static void
signaturestext(struct buf *b, json_t *vars, json_t *groups)
{
	json_t *mx = json_object_get(json_array_get(vars, 0), "matrix"), *g, *all, *w;
	const char *key = dtypekey(vars, groups), *k;
	size_t i;
	int n = 0;

	bufprintf(b, "The signatures: the spec's matrix gives its variants %zu different reference signatures, and "
	          "the one reference you write is built for every variant, so it must compile with each of them:\n\n",
	          json_array_size(groups));
	json_array_foreach(groups, i, g) {
		bufprintf(b, "- `%s` ", jstr(g, "signature", ""));
		groupwhat(b, vars, g);
		bufputs(b, "\n");
	}
	bufputs(b, "\nAs in a hand-written spec, the reference is a template: each ");
	json_object_foreach(mx, k, w)
		bufprintf(b, "%s`{%s}`", n++ ? " or " : "", k);
	bufputs(b, " in it is replaced by the variant's value of that matrix key before it is built");
	if (!key) {
		bufputs(b, ".\n\n");
		return;
	}
	bufputs(b, ", for example:\n\n");
	all = keyvalues(vars, NULL, key);
	json_array_foreach(all, i, w) {
		const char *d = json_string_value(w);
		bufprintf(b, "    #define R_%s %s\n", d, dtinfos[dtypefind(d)].reftype);
	}
	bufprintf(b, "    typedef R_{%s} real;\n\nand `real` where the signatures' types differ.\n\n", key);
	json_decref(all);
}

/* each proposal's last record in the round checks, keyed by its index, in index order */
static json_t *
lastrecords(char **checks, size_t n)
{
	json_t *last = json_object(), *p;
	size_t i, k;

	for (i = 0; i < n; i++) {
		json_t *ck = schemaload(checks[i], schema_check_json);
		json_array_foreach(json_object_get(ck, "proposals"), k, p) {
			char key[32];
			snprintf(key, sizeof key, "%06" JSON_INTEGER_FORMAT, jint(p, "index", 0));
			json_object_set(last, key, p);
		}
		json_decref(ck);
	}
	return last;
}

/* one problem as the reference request shows it: its id, the reference's
 * signature (a teacher-reference spec's: each distinct one of its
 * variants'), the spec without its reference */
static void
problemtext(struct buf *b, int k, const char *spec, const char *dir, int teacher)
{
	json_t *vars = specvariants(spec, dir), *groups;
	char *bare = withoutreference(spec);

	if (!vars) /* it passed its checks: here it parses as it did there */
		die(EXIT_USAGE, "problem %d no longer parses as a spec (are the prompts, --prompts, where they were?)", k);
	groups = signatures(vars, dir, teacher ? 0 : 1);
	bufprintf(b, "## Problem %d\n\n", k);
	if (json_array_size(groups) > 1)
		signaturestext(b, vars, groups);
	else
		bufprintf(b, "The signature: `%s`\n\n", jstr(json_array_get(groups, 0), "signature", ""));
	bufprintf(b, "```yaml\n%s%s```\n\n", bare, *bare && bare[strlen(bare) - 1] != '\n' ? "\n" : "");
	json_decref(groups);
	json_decref(vars);
	free(bare);
}

/* --spec: the hand-written spec at path as a batch of one: its request's
 * identity (teacherref/NAME, NAME its file's name), and into *src its one
 * problem, as a proposal that passed its checks */
static json_t *
specbatch(const char *path, const char *dir, json_t **src)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct buf text;
	struct task t;
	json_t *j = NULL, *task;

	bufinit(&text, 1 << 20);
	if (readfile(path, &text) < 0)
		die(EXIT_USAGE, "cannot read '%s':", path);
	if (specvariant(text.s, dir, &j, &t) < 0)
		die(EXIT_USAGE, "%s: not a valid spec (gen says why)", path);
	task = json_pack("{s:s+#,s:s,s:i,s:s}", "id", "teacherref/", base, (int)(endswith(base, ".yaml") ?
	                 strlen(base) - 5 : strlen(base)), "family", "hand-written", "batch", 0, "spec", jstr(j, "spec", "?"));
	*src = json_pack("{s:{s:s,s:i,s:s,s:s}}", "000000", "status", "passed", "index", 0, "id", jstr(j, "spec", "?"),
	                 "spec", text.s);
	taskfree(&t);
	json_decref(j);
	buffree(&text);
	return task;
}

/*
 * --ask-reference N: the request for reference N (2: of every proposal
 * that passed its checks; 3: of those --agree found its two references
 * disagreeing on): FILES are the batch's round checks (check.json) for 2,
 * the first agreement (agree.json) for 3.
 */
static int
askreference(const struct opts *o, const char *taskpath, char **files, size_t nf)
{
	json_t *task, *problems = json_array(), *p, *src = NULL, *out, *vars;
	struct buf text;
	const char *key;
	char *work, n[16], marker[256], suffix[16];
	size_t i;

	if (mkparent(o->out) < 0 || !(work = tempdir(o->out, "work")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	if (o->spec) {
		char *d = xasprintf("%s/spec", work);
		task = specbatch(taskpath, d, &src);
		free(d);
	} else {
		task = schemaload(taskpath, schema_proposal_json);
	}
	if (o->askref < 3) {
		if (!o->spec)
			src = lastrecords(files, nf);
	} else {
		json_decref(src);
		json_t *ag = schemaload(files[0], schema_agree_json);
		src = json_object();
		json_array_foreach(json_object_get(ag, "problems"), i, p)
			json_object_set(src, jstr(p, "key", "?"), p);
		json_decref(ag);
	}
	bufinit(&text, 1 << 24);
	json_object_foreach(src, key, p) {
		const char *want = o->askref < 3 ? "passed" : "disagreed";
		char *dir;
		if (strcmp(jstr(p, "status", ""), want))
			continue;
		dir = xasprintf("%s/p%zu", work, json_array_size(problems));
		problemtext(&text, (int)json_array_size(problems) + 1, jstr(p, "spec", ""), dir, o->spec);
		json_array_append_new(problems, json_pack("{s:s,s:I,s:s,s:s,s:s*,s:s?,s:O*}", "key", key, "index",
		                      jint(p, "index", 0), "id", jstr(p, "id", "?"), "spec", jstr(p, "spec", ""), "ref1",
		                      jstr(p, "ref1", NULL), "ref2", jstr(p, "ref2", NULL), "keys", json_object_get(p, "keys")));
		free(dir);
	}
	tempdone(work);
	free(work);
	snprintf(n, sizeof n, "%zu", json_array_size(problems));
	if (o->spec) /* the two first requests differ in n alone: independent, each its own cache key */
		snprintf(marker, sizeof marker, "<!-- retort-reference spec=%s n=%d count=%s -->", jstr(task, "spec", "?"),
		         o->askref, n);
	else
		snprintf(marker, sizeof marker, "<!-- retort-reference family=%s batch=%" JSON_INTEGER_FORMAT
		         " n=%d count=%s -->", jstr(task, "family", "?"), jint(task, "batch", 0), o->askref, n);
	snprintf(suffix, sizeof suffix, "/ref%d", o->askref);
	vars = json_pack("{s:s,s:s,s:s,s:s}", "family", jstr(task, "family", "?"), "count", n, "marker", marker,
	                 "problems", text.s ? text.s : "");
	out = json_pack("{s:i,s:s+,s:s,s:s,s:s,s:s,s:s,s:I,s:i,s:i,s:b,s:o,s:o}", "version", 1, "id",
	                jstr(task, "id", "?"), suffix, "batch_task", jstr(task, "id", "?"),
	                "kind", "proposal", "prompt", "propose-reference", "system", "propose-reference-system",
	                "family", jstr(task, "family", "?"), "batch", jint(task, "batch", 0), "reference", o->askref,
	                "rounds", 1, "nothing", json_array_size(problems) == 0, "vars", vars, "problems", problems);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	buffree(&text);
	json_decref(out);
	json_decref(src);
	json_decref(task);
	return 0;
}

/* every verify case, three runs each (the input distributions cycled),
 * from the secret, up to AGREE_MAX_BYTES of outputs: the plan, its output bytes */
static size_t
agreeplan(const struct opts *o, struct task *t, struct buf *plan, struct tcase **cases, int *nruns)
{
	unsigned char key[32];
	char err[512];
	size_t total = 0;
	int ci, k;

	if (secretload(o->cachedir, key, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	*cases = xcalloc((size_t)t->nverify * 3 + 1, sizeof **cases);
	*nruns = 0;
	for (ci = 0; ci < t->nverify; ci++) {
		size_t per = refoutbytes(t, &t->verify[ci]);
		if (ci && total + 3 * per > AGREE_MAX_BYTES)
			break;
		for (k = 0; k < 3; k++) {
			struct runin in;
			runinputs(t, &t->verify[ci], key, "agree", ci, k, 0, &in);
			planline(plan, t, &t->verify[ci], &in, NULL);
			(*cases)[(*nruns)++] = t->verify[ci];
			total += per;
		}
	}
	return total;
}

/* reference code built in dir (task.json with it) and run on plan: its outputs, or -1 with why in log */
static int
runreference(const struct opts *o, json_t *task, const char *code, const char *dir, const char *plan, size_t bytes,
             struct buf *out, struct buf *log)
{
	char *tp = xasprintf("%s/task.json", dir), *ref = xasprintf("%s/reference", dir);
	json_t *j = json_deep_copy(task);
	int rc = -1;

	json_object_set_new(j, "reference", json_string(code));
	if (mkdirp(dir) < 0 || jwrite(tp, j) < 0)
		die(EXIT_RETRY, "cannot write '%s':", tp);
	if (!*code)
		bufputs(log, "no reference was written");
	else if (buildref(o, tp, ref, log) != 0)
		bufputs(log, "\n[it does not build]");
	else
		rc = sandboxrun(dir, plan, bytes, out, log);
	json_decref(j);
	free(tp), free(ref);
	return rc;
}

/* do two references' outputs agree (b judged against a, the spec's
 * tolerances)? 1, or 0 with the first disagreement in msg */
static int
agreeing(const struct task *t, const struct tcase *cases, int nruns, const char *a, const char *b, char *msg,
         size_t cap)
{
	size_t off = 0;
	int r, i;

	for (r = 0; r < nruns; r++)
		for (i = 0; i < t->nargs; i++) {
			const struct targ *g = &t->args[i];
			struct cmpres res;
			int dt = dtinfos[g->dt].isfloat && g->dt != DT_F64 ? DT_F32 : g->dt; /* the reference's type */
			size_t n = (size_t)cases[r].numel[i];
			if (!isoutput(g))
				continue;
			compare(b + off, dt, a + off, WANT_REF, (int64_t)n, g, 1, &res);
			off += n * (size_t)refsize(g->dt);
			if (!res.pass) {
				snprintf(msg, cap, "at %s (run %d), output '%s': %" PRId64 " of %" PRId64 " elements differ, "
				         "relative L2 %.3g, max abs %.3g", cases[r].label, r % 3 + 1, g->name, res.bad, res.n,
				         res.relnorm, res.maxabs);
				return 0;
			}
		}
	return 1;
}

/* the verdict over the references' comparisons: pairs (1,2), then with a third (1,3), (2,3).
 * A proposal's own reference (1) is the one kept: it must be among those agreeing. A
 * teacher-reference spec's are alike: any two agreeing settle it, the first of them kept
 * (rec's reference and request). */
static void
verdict3(json_t *rec, int n, int ok0, const int *agree, int teacher, const char *const *codes, json_t *keys)
{
	const char *st, *why = NULL, *k = NULL;
	int kept = -1;

	if (teacher) {
		if (agree[0] || (n == 3 && agree[1]))
			kept = 0;
		else if (n == 3 && agree[2])
			kept = 1;
		st = kept >= 0 ? "agreed" : n == 2 ? "disagreed" : "rejected";
		k = kept < 0 ? NULL : n == 2 ? "2/2" : "2/3";
		why = kept < 0 && n == 3 ? "no two of the three references agree" : NULL;
		if (kept >= 0) {
			json_object_set_new(rec, "reference", json_string(codes[kept]));
			json_object_set(rec, "request", json_array_get(keys, (size_t)kept));
		}
	} else if (!ok0)
		st = "rejected", why = "the proposal's own reference failed on the agreement's inputs";
	else if (n == 2)
		st = agree[0] ? "agreed" : "disagreed", k = agree[0] ? "2/2" : NULL;
	else if (agree[1])
		st = "agreed", k = "2/3";
	else if (agree[2])
		st = "rejected", why = "references 2 and 3 agree with each other and not with the proposal's: its "
		                      "description and examples read as another function";
	else
		st = "rejected", why = "no two of the three references agree";
	json_object_set_new(rec, "status", json_string(st));
	if (k)
		json_object_set_new(rec, "agreement", json_string(k));
	if (why)
		json_object_set_new(rec, "why", json_string(why));
}

/* the kept reference code (a template, as a spec's own) through verify
 * --expected for variant v, in d: its rules */
static json_t *
keptone(const struct opts *o, const char *code, json_t *v, const char *d)
{
	struct prop p = { json_array(), NULL, { 0 } };
	char *tp = xasprintf("%s/task.json", d), *ref = variantcode(code, v);
	json_t *j = json_deep_copy(v);
	double cpu = 0;

	json_object_set_new(j, "reference", json_string(ref));
	json_object_set_new(j, "reference_language", json_string("c"));
	if (mkdirp(d) < 0 || jwrite(tp, j) < 0)
		die(EXIT_RETRY, "cannot write '%s':", tp);
	referencechecks(o, &p, d, &cpu);
	unpath(p.rules, d);
	json_decref(j);
	free(tp), free(ref);
	return p.rules;
}

/* the first of rules that failed, or NULL */
static json_t *
failedrule(json_t *rules)
{
	json_t *r;
	size_t i;

	json_array_foreach(rules, i, r)
		if (!jbool(r, "ok", 1))
			return r;
	return NULL;
}

/* rec rejected: the kept reference failed rule r for variant v (signature
 * sig) of a spec whose first variant first passed (NULL: v is the first) */
static void
keptfailed(json_t *rec, json_t *r, const char *first, const char *v, const char *sig)
{
	char *why = first ? xasprintf("the references agree and the kept one passes its checks for variant '%s', but "
	                              "fails rule '%s' for variant '%s', whose reference signature is `%s`: %.2000s",
	                              first, jstr(r, "rule", ""), v, sig, jstr(r, "message", ""))
	                  : xasprintf("the references agree, but the kept one fails rule '%s': %.2000s",
	                              jstr(r, "rule", ""), jstr(r, "message", ""));

	json_object_set_new(rec, "status", json_string("rejected"));
	json_object_set_new(rec, "why", json_string(why));
	json_object_del(rec, "agreement");
	free(why);
}

/* signatures()'s groups split further by the code each variant builds
 * (the template expanded for it): one check per distinct signature and
 * code, so a template that differs beyond the types is checked wherever it
 * does */
static json_t *
codegroups(json_t *groups, json_t *vars, const char *code)
{
	json_t *out = json_array(), *g, *ix;
	size_t i, k;

	json_array_foreach(groups, i, g) {
		json_t *seen = json_object(); /* code: its group in out */
		json_array_foreach(json_object_get(g, "variants"), k, ix) {
			char *c = variantcode(code, json_array_get(vars, (size_t)json_integer_value(ix)));
			json_t *o = json_object_get(seen, c);
			if (!o) {
				json_array_append_new(out, o = json_pack("{s:s,s:[]}", "signature", jstr(g, "signature", ""),
				                                         "variants"));
				json_object_set(seen, c, o);
			}
			json_array_append(json_object_get(o, "variants"), ix);
			free(c);
		}
		json_decref(seen);
	}
	return out;
}

/* a teacher-reference spec's kept reference through verify --expected, as
 * a spec's own is checked in the kernel graph (its examples, degenerate
 * outputs, the verify runs), for the first of the spec's variants vars and
 * then one of every other reference signature and expanded code they have
 * (the kept one must build for all: signatures_checked): a reference the references agree on
 * but the spec's examples refute, or that does not fit another variant's
 * types, holds the spec back here, not the kernel graph */
static void
keptchecks(const struct opts *o, json_t *rec, json_t *vars, const char *dir)
{
	char *sd = xasprintf("%s/signatures", dir);
	const char *code = jstr(rec, "reference", "");
	json_t *sigs = signatures(vars, sd, 0), *groups = codegroups(sigs, vars, code), *done = json_array(), *g;
	size_t i;

	json_array_foreach(groups, i, g) {
		size_t first = (size_t)json_integer_value(json_array_get(json_object_get(g, "variants"), 0));
		json_t *v = json_array_get(vars, first);
		const char *id = jstr(v, "id", "?"), *sig = jstr(g, "signature", "");
		char *d = i ? xasprintf("%s/kept%zu", dir, i + 1) : xasprintf("%s/kept", dir);
		json_t *rules = keptone(o, code, v, d), *bad = failedrule(rules);
		json_t *e = json_pack("{s:s,s:s}", "variant", id, "signature", sig);
		if (bad)
			keptfailed(rec, bad, i ? jstr(json_array_get(vars, 0), "id", "?") : NULL, id, sig);
		json_object_set_new(i ? e : rec, "checks", rules);
		json_array_append_new(done, e);
		free(d);
		if (bad)
			break;
	}
	json_object_set_new(rec, "signatures_checked", done);
	json_decref(groups);
	json_decref(sigs);
	free(sd);
}

/* one problem's references (1: the proposal's; 2; 3 when asked), run on
 * the same inputs (the first variant's) and compared; a teacher-reference
 * spec's are templates, each built as its first variant's reference */
static json_t *
judgeproblem(const struct opts *o, json_t *prob, const char *code, int n, const char *dir)
{
	static const int pairs[3][2] = { { 0, 1 }, { 0, 2 }, { 1, 2 } };
	json_t *rec = json_pack("{s:s,s:I,s:s,s:s,s:s}", "key", jstr(prob, "key", "?"), "index", jint(prob, "index", 0),
	                        "id", jstr(prob, "id", "?"), "spec", jstr(prob, "spec", ""), "ref2",
	                        n == 2 ? code : jstr(prob, "ref2", "")), *task, *cmp = json_array(), *vars;
	struct task t;
	struct tcase *cases;
	struct buf plan, out[3], log[3];
	const char *codes[3];
	char err[512], *built[3] = { NULL, NULL, NULL };
	int ok[3], agree[3] = { 0 }, nruns, i, teacher = json_is_string(json_object_get(prob, "ref1"));
	size_t bytes;

	if (n == 3)
		json_object_set_new(rec, "ref3", json_string(code));
	if (teacher) {
		json_object_set_new(rec, "ref1", json_string(jstr(prob, "ref1", "")));
		json_object_set(rec, "keys", json_object_get(prob, "keys"));
	}
	vars = specvariants(jstr(prob, "spec", ""), dir);
	task = json_array_get(vars, 0);
	if (!vars || varianttask(task, dir, &t, err, sizeof err) < 0) {
		json_object_set_new(rec, "status", json_string("rejected"));
		json_object_set_new(rec, "why", json_string("the spec does not parse"));
		json_decref(cmp);
		json_decref(vars);
		return rec;
	}
	codes[0] = teacher ? jstr(prob, "ref1", "") : jstr(task, "reference", "");
	codes[1] = jstr(rec, "ref2", "");
	codes[2] = code;
	bufinit(&plan, 1 << 26);
	bytes = agreeplan(o, &t, &plan, &cases, &nruns);
	for (i = 0; i < n; i++) {
		char *d = xasprintf("%s/r%d", dir, i + 1);
		built[i] = teacher ? variantcode(codes[i], task) : xstrdup(codes[i]);
		bufinit(&out[i], (size_t)1 << 31), bufinit(&log[i], 1 << 16);
		ok[i] = runreference(o, task, built[i], d, plan.s, bytes, &out[i], &log[i]) == 0;
		free(d);
	}
	for (i = 0; i < (n == 3 ? 3 : 1); i++) {
		int a = pairs[i][0], b = pairs[i][1];
		char msg[1024] = "";
		if (!ok[a] || !ok[b])
			snprintf(msg, sizeof msg, "reference %d failed: %.900s", ok[a] ? b + 1 : a + 1,
			         log[ok[a] ? b : a].s ? log[ok[a] ? b : a].s : "");
		else
			agree[i] = agreeing(&t, cases, nruns, out[a].s, out[b].s, msg, sizeof msg);
		json_array_append_new(cmp, json_pack("{s:i,s:i,s:b,s:s}", "a", a + 1, "b", b + 1, "agree", agree[i],
		                                     "message", msg));
	}
	json_object_set_new(rec, "comparisons", cmp);
	json_object_set_new(rec, "runs", json_integer(nruns));
	verdict3(rec, n, ok[0], agree, teacher, codes, json_object_get(rec, "keys"));
	if (teacher && !strcmp(jstr(rec, "status", ""), "agreed"))
		keptchecks(o, rec, vars, dir);
	for (i = 0; i < n; i++)
		buffree(&out[i]), buffree(&log[i]), free(built[i]);
	buffree(&plan);
	free(cases);
	taskfree(&t);
	json_decref(vars);
	return rec;
}

/* --first-response: each problem's reference 1 (ref1), the answer's ```c
 * blocks in order, and the two requests' keys (keys) */
static void
firstanswers(const char *path, json_t *problems, json_t *resp)
{
	json_t *first = schemaload(path, schema_response_json), *ans = json_object_get(first, "answer"), *p;
	size_t i, nb = 0, np = json_array_size(problems);
	char **codes = NULL;

	if (np && statusof(first, STAGE_ANSWER) != ST_DONE && json_is_object(ans))
		codes = fenced(jstr(ans, "text", ""), "c", np < MAX_BLOCKS ? np : MAX_BLOCKS, &nb);
	json_array_foreach(problems, i, p) {
		json_object_set_new(p, "ref1", json_string(i < nb ? codes[i] : ""));
		json_object_set_new(p, "keys", json_pack("[s,s]", jstr(first, "key", ""), jstr(resp, "key", "")));
	}
	for (i = 0; i < nb; i++)
		free(codes[i]);
	free(codes);
	json_decref(first);
}

/*
 * --agree: the references of REFTASK_JSON's problems (the answer's ```c
 * blocks, in order) against the proposals' own; a first agreement's
 * settled problems carried over from PREVIOUS_AGREE_JSON
 */
static int
agree(const struct opts *o, const char *reftaskpath, const char *resppath, const char *prevpath)
{
	json_t *rt = schemaload(reftaskpath, schema_reftask_json), *resp = schemaload(resppath, schema_response_json);
	json_t *prev = prevpath ? schemaload(prevpath, schema_agree_json) : NULL;
	json_t *problems = json_array(), *p, *out, *ans = json_object_get(resp, "answer");
	int n = (int)jint(rt, "reference", 2), left = 0;
	size_t i, nb = 0, np = json_array_size(json_object_get(rt, "problems"));
	char **codes = NULL, *work;

	json_array_foreach(prev ? json_object_get(prev, "problems") : NULL, i, p)
		if (strcmp(jstr(p, "status", ""), "disagreed"))
			json_array_append(problems, p);
	if (np && statusof(resp, STAGE_ANSWER) != ST_DONE && json_is_object(ans))
		codes = fenced(jstr(ans, "text", ""), "c", np < MAX_BLOCKS ? np : MAX_BLOCKS, &nb);
	if (mkparent(o->out) < 0 || !(work = tempdir(o->out, "work")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	if (o->first) /* a teacher-reference spec: reference 1 is the first request's answer */
		firstanswers(o->first, json_object_get(rt, "problems"), resp);
	json_array_foreach(json_object_get(rt, "problems"), i, p) {
		char *dir = xasprintf("%s/p%zu", work, i);
		json_t *rec = judgeproblem(o, p, i < nb ? codes[i] : "", n, dir);
		if (json_object_get(rec, "keys") && n == 3) /* the third request's key beside the first two */
			json_array_append_new(json_object_get(rec, "keys"), json_string(jstr(resp, "key", "")));
		left += !strcmp(jstr(rec, "status", ""), "disagreed");
		json_array_append_new(problems, rec);
		free(dir);
	}
	tempdone(work);
	free(work);
	for (i = 0; i < nb; i++)
		free(codes[i]);
	free(codes);
	out = json_pack("{s:i,s:s,s:s,s:i,s:s?,s:s?,s:s?,s:b,s:o}", "version", 1, "task", jstr(rt, "batch_task", "?"),
	                "family", jstr(rt, "family", "?"), "references", n, "provider", jstr(resp, "provider", NULL),
	                "model", jstr(resp, "model", NULL), "key", jstr(resp, "key", NULL), "finished",
	                left == 0 || n >= 3, "problems", problems);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(out);
	json_decref(rt);
	json_decref(resp);
	json_decref(prev);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, "cc", "out/bin", "src", "tasks/prompts", NULL, NULL, 30, 120, 0, 0 };
	int corp = 0, agr = 0;
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the check record to write (atomically)" },
		{ "--cache-dir", "DIR", OPT_STR, &o.cachedir, 0, 0, "where the secret lives (verify --expected)" },
		{ "--cc", "CC", OPT_STR, &o.cc, 0, 0, "the C compiler for the reference (default cc)" },
		{ "--bindir", "DIR", OPT_STR, &o.bindir, 0, 0, "where prepare and verify are (default out/bin)" },
		{ "--src", "DIR", OPT_STR, &o.src, 0, 0, "retort's src/ (the reference runner's source; default src)" },
		{ "--runner", "OBJECT", OPT_STR, &o.runner, 0, 0, "the reference runner's object (prepare --refrunner; "
		  "else prepare builds it for each reference)" },
		{ "--prompts", "DIR", OPT_STR, &o.promptdir, 0, 0, "the prompt templates (default tasks/prompts)" },
		{ "--corpus", NULL, OPT_FLAG, &corp, 0, 0, "the inputs are specs: each one's MinHash and fingerprint "
		  "(what propose-accept checks proposals against)" },
		{ "--cpu-max", "S", OPT_NUM, &o.cpumax, 0.001, 3600, "CPU seconds the reference may take on the verify "
		  "sizes (default 30)" },
		{ "--ref-seconds", "S", OPT_INT, &o.refseconds, 1, TOOL_SECONDS - 300, "the reference's wall clock on its "
		  "examples and verify sizes together (default 120); past it the proposal fails reference_runs" },
		{ "--ask-reference", "N", OPT_INT, &o.askref, 1, 3, "write the request for independent reference N: "
		  "-o REFTASK_JSON TASK_JSON @CHECKS (2) or FIRST_AGREE_JSON (3)" },
		{ "--agree", NULL, OPT_FLAG, &agr, 0, 0, "compare the independent references with the proposals': "
		  "-o AGREE_JSON REFTASK_JSON RESPONSE_JSON [FIRST_AGREE_JSON]" },
		{ "--spec", NULL, OPT_FLAG, &o.spec, 0, 0, "--ask-reference: TASK_JSON is a hand-written spec with "
		  "'reference: teacher' (N 1 or 2 from it alone, 3 from the first agreement)" },
		{ "--first-response", "FILE", OPT_STR, &o.first, 0, 0, "--agree: reference 1 is this answer's (a "
		  "'reference: teacher' spec's), not the spec's own" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!o.out)
		optdie(&spec, "need -o FILE");
	if (o.askref && !o.spec && (o.askref < 2 || in.n < 2))
		optdie(&spec, "--ask-reference %d: need TASK_JSON and %s", o.askref, o.askref == 3 ? "the first agreement" :
		       "the round checks (N is 2 or 3)");
	if (o.askref && o.spec && (o.askref == 3 ? in.n != 2 : in.n != 1))
		optdie(&spec, "--ask-reference %d --spec: need SPEC%s", o.askref, o.askref == 3 ? " and the first agreement" :
		       " alone");
	if ((o.spec && !o.askref) || (o.first && !agr))
		optdie(&spec, "--spec goes with --ask-reference, --first-response with --agree");
	if (!corp && !o.askref && (!o.cachedir || in.n < 2 || in.n > 3))
		optdie(&spec, "need --cache-dir DIR, TASK_JSON, RESPONSE_JSON and at most a previous %s",
		       agr ? "agreement" : "check");
	specpromptdir = o.promptdir;
	diagsink = sink;
	if (corp)
		r = corpus(&o, in.v, in.n);
	else if (o.askref)
		r = askreference(&o, in.v[0], in.v + 1, in.n - 1);
	else if (agr)
		r = agree(&o, in.v[0], in.v[1], in.n > 2 ? in.v[2] : NULL);
	else
		r = check(&o, in.v[0], in.v[1], in.n > 2 ? in.v[2] : NULL);
	optfree(&in);
	return r;
}
