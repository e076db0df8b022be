/*
 * verify - does a candidate compute the task's function on inputs it could
 * not predict?
 *
 * usage: verify --expected [--cache-dir DIR] -o EXPECTED_JSON TASK_JSON REFERENCE
 *        verify [options] -o VERIFY_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON
 *
 * --expected (once per task variant, not per candidate): checks the spec's
 * CPU reference against the spec's hand-computed examples, then runs it
 * on inputs drawn from seeds derived from a secret in the cache dir (three
 * runs per verify size, cycling the input distributions; NaN and Inf in
 * one run where the spec allows them) and, when affordable, on the first
 * of the bench input sets (sampled output elements only). Writes EXPECTED_JSON (the draws:
 * distribution, range, seed per input) and the outputs next to it
 * (expected.bin). A task whose outputs are near-constant, so that writing
 * a constant or zeros would pass, is refused with exit 2.
 *
 * Candidate mode: runs the candidate (cand.so beside COMPILE_JSON) through
 * the per-variant HARNESS in a sandbox (see tools/lib/sandbox.h), one
 * fresh CUDA context, on every draw: inputs generated here from the
 * recorded seeds and handed over in shared memory, outputs poisoned with
 * NaN, a canary after every tensor, the whole device synchronized after
 * the call. The child never sees expected values or seeds. Outputs are
 * compared here with per-dtype tolerances (NaN and Inf strictly, every
 * element written), inputs must come back unchanged. Writes VERIFY_JSON:
 * the verdict (correct, mismatch, crash, timeout, out_of_bounds,
 * inputs_modified, load_error, sandbox (the harness's replies tampered
 * with), memcheck (compute-sanitizer's memcheck or racecheck found errors),
 * not_built, done, or "skipped: no CUDA device"), per-run errors, the first mismatches, the feedback
 * the next round shows the teacher, and timings (seconds in all, gpu_seconds with the GPU held,
 * start_seconds of those to start the harness and its CUDA context).
 *
 * options:
 *   --cache-dir DIR    where the secret lives (--expected)
 *   --no-bench         --expected without the bench sizes (checking specs)
 *   --gpus N           GPU slots (one flock each in --lock-dir; default 1)
 *   --lock-dir DIR     default out/gpu
 *   --timeout S        per call (default 30)
 *   --sanitize         also run compute-sanitizer memcheck and racecheck on
 *                      the spec's first verify size, when compute-sanitizer is found
 *   -h, --help
 *
 * Exit: 0 written (whatever the candidate did); 1 infrastructure (the GPU
 * is gone, cannot write); 2 bad usage or input, a reference that fails its
 * examples, a degenerate task.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/run.h"
#include "lib/sandbox.h"
#include "lib/task.h"
#include "lib/tensor.h"
#include "lib/util.h"

static const char usage[] =
	"usage: verify --expected [--cache-dir DIR] [--no-bench] -o EXPECTED_JSON TASK_JSON REFERENCE\n"
	"       verify [--gpus N] [--lock-dir DIR] [--timeout S] [--sanitize]\n"
	"              -o VERIFY_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON\n";

enum {
	RUNS_PER_CASE = 3,
	BENCH_SETS = 3,
	SAMPLES = 65536,          /* sampled output elements per bench set */
};
static const double REF_BENCH_MAX_FLOPS = 1e9;  /* the CPU reference runs bench sizes up to this */
static const double REF_BENCH_MAX_BYTES = 4e9;

struct opts {
	const char *out, *cachedir, *lockdir;
	int gpus, timeout, sanitize, nobench;
};

/* ---------------------------------------------------------- the reference */

/* run the reference program on plan, outputs into outfile; 0, or -1 with
 * what went wrong appended to log */
static int
runreference(const char *reference, const char *plan, const char *outfile, int seconds, struct buf *log)
{
	char *argv[] = { (char *)reference, (char *)outfile, NULL };
	struct runlimits lim = { seconds, 0, 0 }; /* its outputs can be large */
	struct run r;
	int rc = 0;

	if (runcapture(argv, NULL, plan, &lim, log->max, &r) < 0) {
		bufprintf(log, "[cannot run the reference: %s]\n", strerror(errno));
		return -1;
	}
	bufput(log, r.log.s, r.log.n);
	if (r.timedout)
		bufprintf(log, "\n[the reference ran longer than %d s]\n", seconds);
	else if (r.status > 128)
		bufprintf(log, "\n[the reference was killed by signal %d (%s)]\n", r.status - 128,
		          strsignal(r.status - 128));
	else if (r.status != 0)
		bufprintf(log, "\n[the reference exited with status %d]\n", r.status);
	rc = r.timedout || r.status != 0 ? -1 : 0;
	buffree(&r.log);
	return rc;
}

/* one value of an example as text the reference's scanf reads */
static void
putvalue(struct buf *b, json_t *v)
{
	if (json_is_string(v))
		bufprintf(b, " %s", json_string_value(v));
	else if (json_is_integer(v))
		bufprintf(b, " %" JSON_INTEGER_FORMAT, json_integer_value(v));
	else
		bufprintf(b, " %.17g", json_number_value(v));
}

/*
 * One case's line of a plan: inputs drawn (draws, per arg) or given
 * (example values, by name).
 */
static void
planline(struct buf *plan, const struct task *t, const struct tcase *c, const struct draw *draws,
         json_t *given)
{
	int i;

	bufprintf(plan, "case %d", ntensors(t));
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (!istensor(a))
			continue;
		if (a->kind == ARG_OUT) {
			bufprintf(plan, " 1 %d %lld 0 0 0 0 0", a->dt, (long long)c->numel[i]);
		} else if (given) {
			json_t *v;
			size_t k;
			bufprintf(plan, " %d %d %lld -1 0 0 0 0", a->kind, a->dt, (long long)c->numel[i]);
			json_array_foreach(json_object_get(given, a->name), k, v)
				putvalue(plan, v);
		} else {
			const struct draw *d = &draws[i];
			bufprintf(plan, " %d %d %lld %d %.17g %.17g %d %llu", a->kind, a->dt, (long long)c->numel[i],
			          d->dist, d->lo, d->hi, d->special, (unsigned long long)d->seed);
		}
	}
	casetail(plan, c);
	bufputc(plan, '\n');
}

/* bytes the reference writes for one case: its outputs in reference types */
static size_t
refoutbytes(const struct task *t, const struct tcase *c)
{
	size_t n = 0;
	int i;

	for (i = 0; i < t->nargs; i++)
		if (t->args[i].kind == ARG_OUT || t->args[i].kind == ARG_INOUT)
			n += (size_t)c->numel[i] * (size_t)refsize(t->args[i].dt);
	return n;
}

/* a private temporary file next to path */
static char *
tmpnext(const char *path, const char *tag)
{
	return xasprintf("%s.%s.%ld", path, tag, (long)getpid());
}

/* the spec's hand-computed examples must hold for its reference */
static void
examples(const struct task *t, const char *reference, const char *outpath)
{
	json_t *ex, *e;
	size_t k;
	char err[512];

	ex = json_object_get(t->json, "examples");
	json_array_foreach(ex, k, e) {
		struct tcase c;
		struct buf plan, log, got;
		char *tmp = tmpnext(outpath, "example");
		size_t off = 0;
		int i;

		if (caseload(t, json_object_get(e, "case"), &c, err, sizeof err) < 0)
			die(EXIT_USAGE, "%s: example %zu: %s", t->id, k + 1, err);
		bufinit(&plan, 1 << 26);
		bufinit(&log, 1 << 16);
		planline(&plan, t, &c, NULL, json_object_get(e, "in"));
		if (runreference(reference, plan.s, tmp, 60, &log) < 0)
			die(EXIT_USAGE, "%s: the reference failed on example %zu:\n%s", t->id, k + 1, log.s);
		bufinit(&got, (size_t)1 << 30);
		if (readfile(tmp, &got) < 0 || got.n != refoutbytes(t, &c))
			die(EXIT_USAGE, "%s: the reference wrote %zu bytes for example %zu, not %zu", t->id, got.n,
			    k + 1, refoutbytes(t, &c));
		unlink(tmp);
		for (i = 0; i < t->nargs; i++) {
			const struct targ *a = &t->args[i];
			json_t *want = json_object_get(json_object_get(e, "out"), a->name), *w;
			double tol = jnum(e, "tolerance", 1e-4);
			size_t j;
			if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
				continue;
			json_array_foreach(want, j, w) {
				double g = refvalue(got.s + off, a->dt, j);
				double x = json_is_string(w) ? strtod(json_string_value(w), NULL) : json_number_value(w);
				int ok = isnan(x) ? isnan(g) : isinf(x) ? g == x : fabs(g - x) <= tol * (1 + fabs(x));
				if (!ok)
					die(EXIT_USAGE, "%s: the reference disagrees with example %zu: %s[%zu] = %.9g, the "
					    "example says %.9g", t->id, k + 1, a->name, j, g, x);
			}
			off += (size_t)c.numel[i] * (size_t)refsize(a->dt);
		}
		buffree(&plan);
		buffree(&log);
		buffree(&got);
		free(tmp);
	}
}

/* the draws of one input tensor: distributions cycle over runs */
static struct draw
drawfor(const struct targ *a, const struct tcase *c, int i, int k, uint64_t seed, int special)
{
	struct draw d;

	d.dist = a->dists[k % a->ndists];
	d.lo = c->lo[i];
	d.hi = c->hi[i];
	d.special = special && a->special;
	d.seed = seed;
	if (d.dist == DIST_RANDINT && !dtinfos[a->dt].isfloat && d.hi - d.lo < 1)
		d.hi = d.lo + 1;
	return d;
}

static json_t *
drawsjson(const struct task *t, const struct draw *d)
{
	json_t *arr = json_array();
	char seed[24];
	int i;

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (a->kind != ARG_IN && a->kind != ARG_INOUT)
			continue;
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)d[i].seed);
		json_array_append_new(arr, json_pack("{s:s,s:s,s:f,s:f,s:b,s:s}", "name", a->name,
		                      "dist", distnames[d[i].dist], "lo", d[i].lo, "hi", d[i].hi,
		                      "special", d[i].special, "seed", seed));
	}
	return arr;
}

/*
 * A task is degenerate when writing a constant passes: for each output of
 * the largest verify case, the comparator is asked whether the mean,
 * written everywhere, would be accepted.
 */
static void
degenerate(const struct task *t, const struct tcase *c, const char *data)
{
	size_t off = 0;
	int i;

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		size_t n = (size_t)c->numel[i], j, finite = 0;
		double mean = 0;
		struct cmpres res;
		void *constant;
		if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
			continue;
		for (j = 0; j < n; j++) {
			double v = refvalue(data + off, a->dt, j);
			if (isfinite(v))
				mean += (v - mean) / (double)++finite;
		}
		constant = xmalloc(n * (size_t)dtinfos[a->dt].size);
		for (j = 0; j < n; j++)
			dtset(constant, a->dt, j, mean);
		compare(constant, a->dt, data + off, (int64_t)n, a, &res);
		free(constant);
		off += n * (size_t)refsize(a->dt);
		if (finite >= 16 && res.pass)
			die(EXIT_USAGE, "%s: degenerate task: writing the constant %g into every element of output "
			    "'%s' at %s passes the comparison; change the sizes, inputs or tolerances so that the "
			    "output varies", t->id, mean, a->name, c->label);
	}
}

static int
expected(const struct opts *o, const char *taskpath, const char *reference)
{
	struct task t;
	unsigned char key[32];
	char err[512], *binpath, *bintmp;
	json_t *out, *runs, *benches;
	struct buf bin;
	int c, r, i, largest = -1;
	double largestbytes = -1;

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	if (!o->cachedir)
		die(EXIT_USAGE, "--expected needs --cache-dir (where the secret lives)");
	if (secretload(o->cachedir, key, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	examples(&t, reference, o->out);

	binpath = sibling(o->out, "expected.bin");
	bintmp = tmpnext(o->out, "bin");
	bufinit(&bin, (size_t)1 << 34);
	runs = json_array();
	/* verify cases: one reference process for all of them */
	{
		struct buf plan, log;
		bufinit(&plan, (size_t)1 << 28);
		bufinit(&log, 1 << 16);
		for (c = 0; c < t.nverify; c++) {
			struct tcase *cs = &t.verify[c];
			if (refoutbytes(&t, cs) > largestbytes) {
				largestbytes = (double)refoutbytes(&t, cs);
				largest = c;
			}
			for (r = 0; r < RUNS_PER_CASE; r++) {
				struct draw d[MAXARGS];
				memset(d, 0, sizeof d);
				for (i = 0; i < t.nargs; i++)
					if (t.args[i].kind == ARG_IN || t.args[i].kind == ARG_INOUT)
						d[i] = drawfor(&t.args[i], cs, i, c + r, deriveseed(key, t.id, "verify", c, r, i),
						               r == RUNS_PER_CASE - 1);
				planline(&plan, &t, cs, d, NULL);
				json_array_append_new(runs, json_pack("{s:i,s:i,s:s,s:o}", "case", c, "run", r,
				                      "label", cs->label, "draws", drawsjson(&t, d)));
			}
		}
		if (runreference(reference, plan.s, bintmp, 1800, &log) < 0)
			die(EXIT_USAGE, "%s: the reference failed:\n%s", t.id, log.s);
		if (readfile(bintmp, &bin) < 0)
			die(EXIT_RETRY, "cannot read '%s':", bintmp);
		unlink(bintmp);
		buffree(&plan);
		buffree(&log);
	}
	{
		size_t off = 0, want = 0;
		for (c = 0; c < t.nverify; c++)
			want += RUNS_PER_CASE * refoutbytes(&t, &t.verify[c]);
		if (bin.n != want)
			die(EXIT_USAGE, "%s: the reference wrote %zu bytes, not the %zu its outputs take", t.id, bin.n, want);
		for (c = 0; c < t.nverify; c++) {
			if (c == largest)
				degenerate(&t, &t.verify[c], bin.s + off);
			off += RUNS_PER_CASE * refoutbytes(&t, &t.verify[c]);
		}
	}
	/* bench cases: input seeds always; sampled expected outputs when affordable */
	benches = json_array();
	for (c = 0; c < (o->nobench ? 0 : t.nbench); c++) {
		struct tcase *cs = &t.bench[c];
		json_t *sets = json_array();
		int affordable = cs->flops <= REF_BENCH_MAX_FLOPS && cs->bytes <= REF_BENCH_MAX_BYTES &&
		                 (double)refoutbytes(&t, cs) <= REF_BENCH_MAX_BYTES;
		for (r = 0; r < BENCH_SETS; r++) {
			struct draw d[MAXARGS];
			json_t *set;
			memset(d, 0, sizeof d);
			for (i = 0; i < t.nargs; i++)
				if (t.args[i].kind == ARG_IN || t.args[i].kind == ARG_INOUT)
					d[i] = drawfor(&t.args[i], cs, i, r, deriveseed(key, t.id, "bench", c, r, i), 0);
			set = json_pack("{s:o}", "draws", drawsjson(&t, d));
			if (affordable && r == 0) { /* the first set is checked against the reference */
				struct buf plan, log, full;
				size_t off = 0;
				struct rng g;
				bufinit(&plan, 1 << 16);
				bufinit(&log, 1 << 16);
				bufinit(&full, (size_t)1 << 34);
				planline(&plan, &t, cs, d, NULL);
				if (runreference(reference, plan.s, bintmp, 1800, &log) < 0)
					die(EXIT_USAGE, "%s: the reference failed at bench size %s:\n%s", t.id, cs->label, log.s);
				if (readfile(bintmp, &full) < 0)
					die(EXIT_RETRY, "cannot read '%s':", bintmp);
				unlink(bintmp);
				rnginit(&g, deriveseed(key, t.id, "samples", c, r, 0));
				json_object_set_new(set, "offset", json_integer((json_int_t)bin.n));
				for (i = 0; i < t.nargs; i++) {
					const struct targ *a = &t.args[i];
					size_t n = (size_t)cs->numel[i], m = n < SAMPLES ? n : SAMPLES, k;
					if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
						continue;
					for (k = 0; k < m; k++) {
						int64_t idx = n <= SAMPLES ? (int64_t)k : (int64_t)(rngnext(&g) % n);
						double v = refvalue(full.s + off, a->dt, (size_t)idx);
						bufput(&bin, &idx, sizeof idx);
						bufput(&bin, &v, sizeof v);
					}
					off += n * (size_t)refsize(a->dt);
				}
				json_object_set_new(set, "samples", json_integer(SAMPLES));
				buffree(&plan);
				buffree(&log);
				buffree(&full);
			}
			json_array_append_new(sets, set);
		}
		json_array_append_new(benches, json_pack("{s:i,s:s,s:b,s:o}", "case", c, "label", cs->label,
		                      "checked", affordable, "sets", sets));
	}
	if (writefile(binpath, bin.s, bin.n) < 0)
		die(EXIT_RETRY, "cannot write '%s':", binpath);
	out = json_pack("{s:i,s:s,s:s,s:i,s:o,s:o}", "version", 1, "task", t.id, "bin", "expected.bin",
	                "runs_per_case", RUNS_PER_CASE, "verify", runs, "bench", benches);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(out);
	buffree(&bin);
	free(binpath);
	free(bintmp);
	taskfree(&t);
	return 0;
}

/* ------------------------------------------------------- the candidate */

struct result {
	json_t *rec;           /* verify.json */
	struct buf feedback;
	const char *verdict;
};

static void
verdict(struct result *res, const char *v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
verdict(struct result *res, const char *v, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	res->verdict = v;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	bufputs(&res->feedback, msg);
}

/* check one finished call; returns 0 when it passed */
static int
checkcall(const struct task *t, const struct tcase *c, struct child *ch, const size_t outoff[],
          void *inputs[], const char *want, json_t *draws, json_t *runrec, struct result *res)
{
	char dt[512];
	int i, bad = 0;
	json_t *outs = json_object();

	drawtext(draws, dt, sizeof dt);
	json_object_set_new(runrec, "outputs", outs);
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (a->kind == ARG_IN && memcmp(ch->shm + outoff[i], inputs[i], tbytes(t, c, i)) != 0) {
			verdict(res, "inputs_modified", "The kernel changed its input '%s' (at %s, inputs %s). Inputs "
			        "are const: leave them as they are.\n", a->name, c->label, dt);
			return -1;
		}
	}
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		struct cmpres r;
		int k;
		if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
			continue;
		compare(ch->shm + outoff[i], a->dt, want, c->numel[i], a, &r);
		want += (size_t)c->numel[i] * (size_t)refsize(a->dt);
		{
			json_t *first = json_array();
			for (k = 0; k < r.nfirst; k++) {
				char at[128];
				coords(r.first[k].index, c->dims[i], c->ndims[i], at, sizeof at);
				json_array_append_new(first, json_pack("{s:s,s:o,s:o}", "at", at, "got",
				                      jsonnum(r.first[k].got), "expected", jsonnum(r.first[k].want)));
			}
			json_object_set_new(outs, a->name, json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:b,s:o}", "elements",
			                    (json_int_t)r.n, "wrong", (json_int_t)r.bad, "unwritten", (json_int_t)r.unwritten,
			                    "rel_l2", jsonnum(r.relnorm), "max_abs", jsonnum(r.maxabs),
			                    "max_rel", jsonnum(r.maxrel), "pass", r.pass, "first", first));
		}
		if (r.pass)
			continue;
		if (!bad) {
			char buf[2048];
			size_t len = 0;
			len += (size_t)snprintf(buf + len, sizeof buf - len, "Wrong results at %s (inputs %s): output "
			                        "'%s' has %lld of %lld elements wrong; relative L2 error %.3g (allowed %g), "
			                        "max abs error %.3g.", c->label, dt, a->name, (long long)r.bad, (long long)r.n,
			                        r.relnorm, a->rel_norm, r.maxabs);
			if (r.unwritten)
				len += (size_t)snprintf(buf + len, sizeof buf - len, " %lld elements were never written (they "
				                        "still hold the NaN the harness filled them with).", (long long)r.unwritten);
			for (k = 0; k < r.nfirst && k < 3 && len < sizeof buf; k++) {
				char at[128];
				coords(r.first[k].index, c->dims[i], c->ndims[i], at, sizeof at);
				len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %s%s = %.7g, expected %.7g",
				                        k ? ";" : " First:", a->name, at, r.first[k].got, r.first[k].want);
			}
			verdict(res, "mismatch", "%s.\n", buf);
		}
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* a run's inputs drawn, copied into the child's shared memory (inputs[]
 * keeps them, to check afterwards) and the call sent; -1: the child is gone */
static int
sendrun(struct child *ch, const struct task *t, const struct tcase *cs, json_t *draws, void *inputs[],
        size_t inoff[], size_t outoff[])
{
	struct buf cmd;
	int i, r;

	layout(t, cs, inoff, outoff);
	makeinputs(t, cs, draws, inputs);
	for (i = 0; i < t->nargs; i++)
		if (inputs[i])
			memcpy(ch->shm + inoff[i], inputs[i], tbytes(t, cs, i));
	bufinit(&cmd, 1 << 16);
	callline(&cmd, t, cs, inoff, outoff);
	r = childsend(ch, "%s", cmd.s);
	buffree(&cmd);
	return r;
}

static int
candidate(const struct opts *o, const char *taskpath, const char *compilepath, const char *harness,
          const char *exppath)
{
	struct task t;
	struct result res;
	struct child ch;
	struct gpuinfo gpu;
	char err[1024], line[8192], *sopath, *binpath;
	json_t *comp, *exp, *runs, *run;
	struct buf bin;
	size_t k, shmbytes = 0, inoff[MAXARGS], outoff[MAXARGS], maxbytes = 0;
	int lockfd = -1, device = 0, started = 0, c;
	double t0 = now(), tlock = 0;

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	comp = jmustload(compilepath);
	memset(&res, 0, sizeof res);
	bufinit(&res.feedback, 1 << 20);
	res.rec = json_object();
	res.verdict = "correct";
	memset(&gpu, 0, sizeof gpu);

	if (!strcmp(jstr(comp, "status", ""), "done")) {
		res.verdict = "done";
		goto write;
	}
	if (strcmp(jstr(comp, "status", ""), "ok")) {
		res.verdict = "not_built";
		json_object_set_new(res.rec, "reason", json_string(jstr(comp, "status", "?")));
		goto write;
	}
	if (!hasgpu()) {
		res.verdict = "skipped: no CUDA device";
		goto write;
	}
	exp = jmustload(exppath);
	binpath = sibling(exppath, "expected.bin");
	bufinit(&bin, (size_t)1 << 34);
	if (readfile(binpath, &bin) < 0)
		die(EXIT_USAGE, "cannot read '%s':", binpath);
	free(binpath);
	for (c = 0; c < t.nverify; c++) {
		size_t need = layout(&t, &t.verify[c], inoff, outoff), b = 0;
		int i;
		if (need > shmbytes)
			shmbytes = need;
		for (i = 0; i < t.nargs; i++)
			if (istensor(&t.args[i]))
				b += tbytes(&t, &t.verify[c], i);
		if (b > maxbytes)
			maxbytes = b;
	}
	sopath = sibling(compilepath, "cand.so");
	lockfd = gpulock(o->lockdir, o->gpus, &device);
	if (lockfd < 0)
		die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o->lockdir);
	tlock = now();
	if (childshm(&ch, shmbytes, err, sizeof err) < 0 ||
	    childstart(&ch, harness, sopath, t.entry, device, o->timeout * 4 + 60, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	started = 1;
	json_object_set_new(res.rec, "isolation", json_string(ch.isolation));
	{
		char why[2048];
		const char *v = harnessready(&ch, &gpu, why, sizeof why);
		if (v) {
			verdict(&res, v, "%s\n", why);
			goto stop;
		}
	}
	json_object_set_new(res.rec, "gpu", gpujson(&gpu));
	/* leave the candidate room for its tensors and some workspace, no more */
	childsend(&ch, "fence %zu", (size_t)4 * maxbytes + ((size_t)2 << 30));
	if (childread(&ch, line, sizeof line, 60) < 0 || strncmp(line, "ok", 2)) {
		verdict(&res, "sandbox", "The harness did not answer as expected: '%.200s'\n", line);
		goto stop;
	}
	json_object_set_new(res.rec, "start_seconds", json_real(now() - tlock));

	runs = json_array();
	json_object_set_new(res.rec, "runs", runs);
	{
		size_t off = 0;
		json_array_foreach(json_object_get(exp, "verify"), k, run) {
			int ci = (int)jint(run, "case", -1), i;
			struct tcase *cs;
			void *inputs[MAXARGS] = { 0 };
			json_t *rr;
			double host = 0;
			int threads = 0, rc;
			char dt[512];

			if (ci < 0 || ci >= t.nverify)
				die(EXIT_USAGE, "%s: expected.json names case %d of %d", exppath, ci, t.nverify);
			cs = &t.verify[ci];
			drawtext(json_object_get(run, "draws"), dt, sizeof dt);
			rr = json_pack("{s:s,s:s}", "case", cs->label, "inputs", dt);
			json_array_append_new(runs, rr);
			if (sendrun(&ch, &t, cs, json_object_get(run, "draws"), inputs, inoff, outoff) < 0)
				rc = -2;
			else
				rc = childread(&ch, line, sizeof line, o->timeout);
			if (rc == -1) {
				verdict(&res, "timeout", "The call at %s did not finish within %d s (an endless loop, a "
				        "deadlock, or far too slow).\n", cs->label, o->timeout);
			} else if (rc == -2) {
				char what[128], out[1024];
				int st = childstop(&ch);
				started = 0;
				describestatus(st, what, sizeof what);
				childoutput(&ch, out, sizeof out);
				verdict(&res, "crash", "The process running the kernel %s during the call at %s. Its output "
				        "ended with:\n%s\n", what, cs->label, out);
			} else if (!strncmp(line, "cuda ", 5)) {
				int code = atoi(line + 5);
				if (lostgpu(code))
					die(EXIT_RETRY, "the GPU failed: %s", line);
				verdict(&res, "crash", "The call at %s failed with CUDA error %s (inputs %s).\n", cs->label,
				        line + 5, dt);
			} else if (!strncmp(line, "canary ", 7)) {
				int ti = atoi(line + 7), n = 0;
				for (i = 0; i < t.nargs; i++)
					if (istensor(&t.args[i]) && n++ == ti)
						break;
				verdict(&res, "out_of_bounds", "The kernel wrote past the end of '%s' at %s: the guard bytes "
				        "after it were changed. Check the bounds of every store.\n",
				        i < t.nargs ? t.args[i].name : "?", cs->label);
			} else if (sscanf(line, "ok %lf %d", &host, &threads) == 2) {
				json_object_set_new(rr, "host_ms", json_real(host));
				if (threads > 0)
					json_object_set_new(rr, "threads_created", json_integer(threads));
				if (checkcall(&t, cs, &ch, outoff, inputs, bin.s + off, json_object_get(run, "draws"), rr, &res) == 0)
					json_object_set_new(rr, "pass", json_true());
			} else if (!strncmp(line, "error", 5)) {
				die(EXIT_RETRY, "the harness rejected a command: %s", line);
			} else {
				verdict(&res, "sandbox", "The harness's reply was tampered with: '%.200s'\n", line);
			}
			for (i = 0; i < t.nargs; i++)
				free(inputs[i]);
			off += refoutbytes(&t, cs);
			if (strcmp(res.verdict, "correct"))
				break;
		}
	}
	if (!strcmp(res.verdict, "correct") && o->sanitize) {
		/* compute-sanitizer on the first verify case: memcheck, then racecheck */
		static const char *const tools[] = { "memcheck", "racecheck" };
		char *cs = findprog("compute-sanitizer");
		if (!cs) {
			json_object_set_new(res.rec, "sanitizer", json_string("not found"));
		} else {
			size_t ti;
			json_t *san = json_object();
			json_object_set_new(res.rec, "sanitizer", san);
			childstop(&ch);
			started = 0;
			for (ti = 0; ti < 2 && !strcmp(res.verdict, "correct"); ti++) {
				const char *w[] = { cs, "--tool", tools[ti], "--error-exitcode", "86", "--print-limit", "5", NULL };
				struct tcase *small = &t.verify[0];
				json_t *r0 = json_array_get(json_object_get(exp, "verify"), 0);
				void *inputs[MAXARGS] = { 0 };
				int i, st;
				char out[4096];
				if (childshm(&ch, shmbytes, err, sizeof err) < 0 ||
				    childstartwrapped(&ch, w, harness, sopath, t.entry, device, o->timeout * 20 + 120, err,
				                      sizeof err) < 0)
					die(EXIT_RETRY, "%s", err);
				if (childread(&ch, line, sizeof line, 300) < 0 || strncmp(line, "ready", 5)) {
					childstop(&ch);
					json_object_set_new(san, tools[ti], json_string("could not start"));
					continue;
				}
				sendrun(&ch, &t, small, json_object_get(r0, "draws"), inputs, inoff, outoff);
				for (i = 0; i < t.nargs; i++)
					free(inputs[i]);
				childread(&ch, line, sizeof line, o->timeout * 20 + 60);
				st = childstop(&ch);
				childoutput(&ch, out, sizeof out);
				if (WIFEXITED(st) && WEXITSTATUS(st) == 86) {
					verdict(&res, "memcheck", "compute-sanitizer %s found errors at %s:\n%s\n", tools[ti],
					        small->label, out);
					json_object_set_new(san, tools[ti], json_string("errors"));
				} else {
					json_object_set_new(san, tools[ti], json_string("clean"));
				}
			}
		}
		free(cs);
	}
stop:
	if (started)
		childstop(&ch);
	buffree(&bin);
	json_decref(exp);
	free(sopath);
write:
	if (lockfd >= 0) {
		json_object_set_new(res.rec, "gpu_seconds", json_real(now() - tlock));
		close(lockfd);
	}
	json_object_set_new(res.rec, "verdict", json_string(res.verdict));
	json_object_set_new(res.rec, "feedback", json_string(res.feedback.s));
	if (verdictran(res.verdict))
		json_object_set_new(res.rec, "seconds", json_real(now() - t0));
	if (jwrite(o->out, res.rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(res.rec);
	buffree(&res.feedback);
	json_decref(comp);
	taskfree(&t);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, "out/gpu", 1, 30, 0, 0 };
	const char *in[4] = { NULL, NULL, NULL, NULL };
	int i, nin = 0, exp = 0;

	setprogname(argv[0]);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
#define VAL argval(argc, argv, &i, usage)
		if (arghelp(s, usage)) return 0;
		else if (!strcmp(s, "-o")) o.out = VAL;
		else if (!strcmp(s, "--cache-dir")) o.cachedir = VAL;
		else if (!strcmp(s, "--lock-dir")) o.lockdir = VAL;
		else if (!strcmp(s, "--gpus")) o.gpus = intarg(VAL, s, 1, 1024);
		else if (!strcmp(s, "--timeout")) o.timeout = intarg(VAL, s, 1, 86400);
		else if (!strcmp(s, "--sanitize")) o.sanitize = 1;
		else if (!strcmp(s, "--no-bench")) o.nobench = 1;
		else if (!strcmp(s, "--expected")) exp = 1;
		else arginput(s, in, &nin, 4, usage);
#undef VAL
	}
	if (!o.out)
		die(EXIT_USAGE, "need -o\n%s", usage);
	if (exp) {
		if (nin != 2)
			die(EXIT_USAGE, "--expected needs TASK_JSON and REFERENCE\n%s", usage);
		return expected(&o, in[0], in[1]);
	}
	if (nin != 4)
		die(EXIT_USAGE, "need TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON\n%s", usage);
	return candidate(&o, in[0], in[1], in[2], in[3]);
}
