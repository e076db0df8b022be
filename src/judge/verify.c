/*
 * NAME
 *     verify - check a candidate's outputs against the reference
 *
 * SYNOPSIS
 *     verify --expected [options] -o EXPECTED_JSON TASK_JSON REFERENCE
 *     verify [options] -o VERIFY_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON [ORACLE_JSON]
 *     verify --bench [options] -o VERIFY_JSON BENCH_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON
 *            CALIBRATION_JSON [ORACLE_JSON BASELINE_JSON]
 *     verify --baseline [options] -o ORACLE_JSON TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO
 *
 * DESCRIPTION
 *     --expected runs the spec's CPU reference once per variant, in the
 *     sandbox: on the spec's examples, then on inputs drawn from seeds
 *     derived from the cache dir's secret, at every verify size and at
 *     the bench sizes it can afford, within --ref-seconds of wall clock
 *     all together. It writes those runs and outputs; with --no-bench
 *     (configure found no GPU) none at the bench sizes, and expected.json
 *     says so (bench_sizes false), which a verify on a GPU refuses.
 *     Its outputs are kept in the build cache, under the key of all they
 *     come from: the same task and reference again is a link or a copy.
 *     The candidate form first draws the candidate's small hidden
 *     cases from task.json's pool (seeded by the secret and the
 *     candidate's hash; with --cache-dir) and has the CPU reference
 *     (REFERENCE beside EXPECTED_JSON, in the sandbox) compute those the
 *     cache dir lacks, before it takes the GPU.
 *     The candidate form runs cand.so or cand.py (beside COMPILE_JSON)
 *     through the harness in the sandbox, every run in order, in one CUDA
 *     context. The child draws the inputs on the device and never sees
 *     the expected values. Every element of every output is compared
 *     here with the spec's tolerances; a bench size the reference could
 *     not afford is compared with the baseline's outputs (ORACLE_JSON).
 *     VERIFY_JSON gets the verdict, the first mismatches, the feedback
 *     for the next round and the timings.
 *     --bench then execs bench and hands it a correct candidate's
 *     harness and GPU lease. --baseline checks the spec's baseline the
 *     same way: found correct, it is the oracle of those bench sizes.
 *
 * FILES
 *     expected.json, expected.bin, oracle.json, oracle.bin (owner-only),
 *     verify.json; CACHE/secret; CACHE/pool/SHA.bin, the pool cases'
 *     expected outputs (owner-only); CACHE/expected/, --expected's kept
 *     outputs; the GPU lock files in --lock-dir.
 *
 * EXIT STATUS
 *     0 written, whatever the candidate did; 1 infrastructure (the GPU
 *     lost, cannot write); 2 bad usage or input: a reference that fails
 *     its examples, a degenerate hand-written task, a refused reference.
 *
 * SEE ALSO
 *     doc/verification.md
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../lib/task.h"
#include "../lib/buildcache.h"
#include "compare.h"
#include "../lib/draw.h"
#include "inputs.h"
#include "../lib/json.h"
#include "../lib/opts.h"
#include "proto.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/sha.h"
#include "../lib/status.h"
#include "../jail/sandbox.h"
#include "../lib/tensor.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: verify --expected [options] -o EXPECTED_JSON TASK_JSON REFERENCE\n"
	"       verify [options] -o VERIFY_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON [ORACLE_JSON]\n"
	"       verify --bench [options] -o VERIFY_JSON BENCH_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON\n"
	"              CALIBRATION_JSON [ORACLE_JSON BASELINE_JSON]\n"
	"       verify --baseline [options] -o ORACLE_JSON TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO\n";

enum { RUNS_PER_CASE = 3 };
/* how long a harness on deck may take to make its CUDA context before the
 * lease is taken all the same (it goes on in the lease then) */
enum { CTX_SECONDS = 20 };
/* a reference's address space, MiB: the largest case the CPU runs (4 GiB
 * of tensors, twice that widened to float) with room; Python's float64
 * copies and torch's mappings need more (doc/verification.md) */
enum { REF_C_MEMMB = 16384, REF_PY_MEMMB = 32768 };
/* what the CPU reference runs at a bench size */
static const double REF_BENCH_MAX_FLOPS = 1e10, REF_BENCH_MAX_OUT = 1073741824.0, REF_BENCH_MAX_BYTES = 4294967296.0;

struct opts {
	const char *out, *cachedir, *lockdir;
	int gpus, timeout, sanitize, nobench, baseline;
	int bench;            /* --bench: bench runs next, in the same harness */
	char *const *benchin; /* its BENCH_JSON, then TASK_JSON, CALIBRATION_JSON, BASELINE_JSON or NULL */
	const char *pyenv;    /* --python-env: a Python reference's environment */
	const char *gpupython, *pyharness; /* Python entry points' (proto.h hpython) */
	int refseconds;       /* --ref-seconds: the reference's wall clock, all its runs together */
	const char *status;   /* --status FILE: the build's live status (lib/status.h) */
};

/* ---------------------------------------------------------- the reference */

/* --expected: the output and task of this run, for refuse() */
static const char *refusing_out;
static const struct task *refusing_task;
/* --expected: when the reference's wall clock (--ref-seconds, its runs
 * together) runs out, and that budget */
static double refdeadline;
static int refbudget;

/*
 * The reference failed its checks (its examples, a degenerate task, a
 * failed run): a hand-written spec's error, exit 2; a proposal's (the
 * teacher's, taskproposed) is data: EXPECTED_JSON says refused and why,
 * and the oracle check and the candidates' verify read that.
 */
static void
refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void
refuse(const char *fmt, ...)
{
	char msg[8192], *bin;
	va_list ap;
	json_t *j;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!refusing_task || !taskproposed(refusing_task))
		die(EXIT_USAGE, "%s", msg);
	warn("%s (a proposal: its variant is refused, and its oracle check says so)", msg);
	bin = sibling(refusing_out, "expected.bin");
	j = json_pack("{s:i,s:s,s:s}", "version", 2, "task", refusing_task->id, "refused", msg);
	if (writefilemode(bin, "", 0, 0600) < 0 || jwrite(refusing_out, j) < 0) /* no outputs: none to read */
		die(EXIT_RETRY, "cannot write '%s':", refusing_out);
	exit(0);
}

/*
 * Run the reference program on plan in the sandbox, in work (a copy of the
 * program goes there, once, and it writes OUTFILE there); 0, or -1 with
 * what went wrong appended to log.
 */
static int
runreference(const char *reference, const char *venv, const char *work, const char *plan, const char *outfile,
             double outbytes, int seconds, struct buf *log)
{
	struct jail j;
	struct runlimits lim = { seconds, 0, 0, &j };
	struct run r;
	char *copy = xasprintf("%s/reference", work), *argv[3];
	int rc = -1, left = (int)ceil(refdeadline - now());

	if (left < lim.seconds) /* what is left of the budget, at least a second */
		lim.seconds = left > 1 ? left : 1;

	/* a full disk is the host's failure, not the reference's (exit 1) */
	if (nospace(work, outbytes + NOSPACE_MIN))
		die(EXIT_RETRY, "not enough space in '%s': the reference's outputs take %.1f MiB, which needs %.1f MiB "
		    "free, and %.1f MiB are", work, outbytes / (1 << 20), (outbytes + NOSPACE_MIN) / (1 << 20),
		    diskfree(work) / (1 << 20));
	memset(&j, 0, sizeof j);
	j.work = work;
	/* its outputs' file on the disk, no larger than they need and 64 MiB;
	 * all else it writes in a tmpfs of JAIL_REF_DISKMB (sandbox.h) */
	lim.filemb = (long)(outbytes / (1 << 20)) + 64;
	lim.memmb = venv ? REF_PY_MEMMB : REF_C_MEMMB;
	j.diskmb = JAIL_REF_DISKMB;
	j.keep[0] = outfile;
	/* a Python reference: the environment at JAILVENV, its interpreter's prefix read-only */
	if (venv && jailvenv(&j, venv) < 0)
		die(EXIT_USAGE, "the Python reference's environment '%s' has no bin/python: run ./configure", venv);
	if (access(copy, F_OK) != 0 && copytemp(reference, copy, 0755) < 0) {
		bufprintf(log, "[cannot copy the reference '%s': %s]\n", reference, strerror(errno));
		goto out;
	}
	argv[0] = jailpath(&j, "reference");
	argv[1] = (char *)outfile;
	argv[2] = NULL;
	if (runcapture(argv, work, plan, &lim, log->max, &r) < 0) {
		bufprintf(log, "[cannot run the reference: %s]\n", strerror(errno));
		free(argv[0]);
		jailfreepaths(&j);
		free((char *)j.venv);
		goto out;
	}
	free(argv[0]);
	jailfreepaths(&j);
	free((char *)j.venv);
	j.venv = NULL;
	bufput(log, r.log.s, r.log.n);
	if (r.timedout && lim.seconds < seconds)
		bufprintf(log, "\n[the reference ran past %d s of wall clock, its runs together (--ref-seconds): "
		          "it sleeps, spins or waits on a process it started, or the verify sizes are too large]\n", refbudget);
	else if (r.timedout)
		bufprintf(log, "\n[the reference ran longer than %d s]\n", seconds);
	else if (r.status > 128 && r.status != 128 + SIGXFSZ)
		bufprintf(log, "\n[the reference was killed by signal %d (%s)]\n", r.status - 128, strsignal(r.status - 128));
	else if (r.status != 0 && r.status != 128 + SIGXFSZ)
		bufprintf(log, "\n[the reference exited with status %d]\n", r.status);
	if (r.diskfull)
		bufprintf(log, "\n[the reference wrote more than %d MiB besides its outputs (its disk budget, /work and /tmp "
		          "together)]\n", JAIL_REF_DISKMB);
	{
		/* past RLIMIT_FSIZE it is killed, or, the first process of its PID
		 * namespace (which ignores the signal), its writes fail */
		char *p = xasprintf("%s/%s", work, outfile);
		struct stat st;
		if (r.status == 128 + SIGXFSZ || (stat(p, &st) == 0 && st.st_size >= (off_t)lim.filemb << 20)) {
			bufprintf(log, "\n[the reference wrote more than %ld MiB into one file (its outputs take %.1f MiB)]\n",
			          lim.filemb, outbytes / (1 << 20));
			r.status = r.status ? r.status : 128 + SIGXFSZ;
		}
		free(p);
	}
	rc = r.timedout || r.status != 0 || r.diskfull ? -1 : 0;
	buffree(&r.log);
	if (rc < 0 && nospace(work, 0))
		die(EXIT_RETRY, "the disk filled while the reference ran in '%s'", work);
out:
	free(copy);
	return rc;
}

/* the spec's hand-computed examples must hold for its reference */
static void
examples(const struct task *t, const char *reference, const char *venv, const char *work)
{
	json_t *e;
	size_t k;
	char err[512], *out = xasprintf("%s/example.bin", work);

	json_array_foreach(json_object_get(t->json, "examples"), k, e) {
		struct tcase c;
		struct buf plan, log, got;
		size_t off = 0;
		int i;

		if (caseload(t, json_object_get(e, "case"), &c, err, sizeof err) < 0)
			refuse("%s: example %zu: %s", t->id, k + 1, err);
		bufinit(&plan, 1 << 26);
		bufinit(&log, 1 << 16);
		planline(&plan, t, &c, NULL, json_object_get(e, "in"));
		if (runreference(reference, venv, work, plan.s, "example.bin", (double)refoutbytes(t, &c), 60, &log) < 0)
			refuse("%s: the reference failed on example %zu:\n%s", t->id, k + 1, log.s);
		bufinit(&got, (size_t)1 << 30);
		if (readfile(out, &got) < 0 || got.n != refoutbytes(t, &c))
			refuse("%s: the reference wrote %zu bytes for example %zu, not %zu", t->id, got.n,
			    k + 1, refoutbytes(t, &c));
		for (i = 0; i < t->nargs; i++) {
			const struct targ *a = &t->args[i];
			json_t *want = json_object_get(json_object_get(e, "out"), a->name), *w;
			double tol = jnum(e, "tolerance", 1e-4);
			size_t j;
			if (!isoutput(a))
				continue;
			if (json_array_size(want) > (size_t)c.numel[i])
				refuse("%s: example %zu gives %zu values of '%s', which has %lld", t->id, k + 1,
				    json_array_size(want), a->name, (long long)c.numel[i]);
			json_array_foreach(want, j, w) {
				double g = refvalue(got.s + off, a->dt, j);
				double x = json_is_string(w) ? strtod(json_string_value(w), NULL) : json_number_value(w);
				int ok = isnan(x) ? isnan(g) : isinf(x) ? g == x : fabs(g - x) <= tol * (1 + fabs(x));
				if (!ok)
					refuse("%s: the reference disagrees with example %zu: %s[%zu] = %.9g, the "
					    "example says %.9g", t->id, k + 1, a->name, j, g, x);
			}
			off += (size_t)c.numel[i] * (size_t)refsize(a->dt);
		}
		buffree(&plan);
		buffree(&log);
		buffree(&got);
	}
	free(out);
}

/* an imported problem's degenerate outputs (expected.json's degenerate), else NULL */
static char *degenerate_why;

/*
 * A degenerate task: a hand-written or proposed spec's error (refuse). An
 * imported problem (origin source kernelbench) is the benchmark's as it
 * is, near-constant outputs and all (KernelBench's level2/9 is a ReLU of
 * a mostly negative tail): it is kept, and expected.json and every
 * candidate's verify.json say `degenerate` and why.
 */
/* an imported problem's degenerate outputs, kept: said (again on a cache hit) */
static void
keptwarn(const char *why)
{
	warn("%s (an imported problem: kept, and said in expected.json and every verify.json)", why);
}

static void
degenerated(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
degenerated(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!refusing_task || strcmp(jstr(json_object_get(refusing_task->json, "origin"), "source", ""), "kernelbench"))
		refuse("%s", msg);
	keptwarn(msg);
	if (!degenerate_why)
		degenerate_why = xstrdup(msg);
}

/* one output of one run: its finite values, their mean, and whether that
 * mean written everywhere passes the comparison */
struct constcheck {
	size_t finite;
	double mean;
	int pass;
};

static void
constcheck(const struct targ *a, const char *data, size_t n, struct constcheck *cc)
{
	struct cmpres res;
	void *constant;
	size_t j;

	cc->finite = 0;
	cc->mean = 0;
	for (j = 0; j < n; j++) {
		double v = refvalue(data, a->dt, j);
		if (isfinite(v))
			cc->mean += (v - cc->mean) / (double)++cc->finite;
	}
	constant = xmalloc(n * (size_t)dtinfos[a->dt].size + 1);
	for (j = 0; j < n; j++)
		dtset(constant, a->dt, j, cc->mean);
	compare(constant, a->dt, data, WANT_REF, (int64_t)n, a, 1, &res);
	free(constant);
	cc->pass = cc->finite >= 16 && res.pass;
}

/* a listed (verify) run's case, or NULL for any other run */
static const struct tcase *
listedcase(const struct task *t, json_t *run)
{
	if (strcmp(jstr(run, "set", ""), "verify") || !json_object_get(run, "offset"))
		return NULL;
	return &t->verify[jint(run, "case", 0)];
}

/* output i of run (of case c) read from outbin into b (made here: the
 * caller frees it); its elements */
static size_t
readoutput(const struct task *t, const struct tcase *c, json_t *run, int i, const char *outbin, struct buf *b)
{
	size_t n = (size_t)c->numel[i], off = 0, bytes = n * (size_t)refsize(t->args[i].dt);

	for (int o = 0; o < i; o++)
		if (isoutput(&t->args[o]))
			off += (size_t)c->numel[o] * (size_t)refsize(t->args[o].dt);
	bufinit(b, bytes + 1);
	if (readrange(outbin, (off_t)(jint(run, "offset", 0) + (json_int_t)off), bytes, b) < 0)
		die(errno == EFBIG ? EXIT_USAGE : EXIT_RETRY, "cannot read '%s':", outbin);
	return n;
}

/*
 * A task is degenerate when writing a constant passes every listed run:
 * for each output, each verify run where it has 16 elements or more is
 * asked whether its mean, written everywhere, would be accepted; where
 * every one says yes the task is refused (a smaller output is
 * constantsmall's). So is one whose outputs are mostly not finite on every listed
 * run (fewer than 16 finite values; none, for an output of fewer than 16
 * elements, a scalar among them): writing NaN would pass. One run whose
 * output happens to be constant (a ReLU of a negative tail at one draw)
 * does not make the task degenerate when another listed run varies: a
 * constant kernel fails there. Hidden cases are not asked: they are
 * drawn, not chosen, and an unlucky shape is no fault of the spec.
 * largest: the run named in the message.
 */
static void
degenerate(const struct task *t, json_t *runs, const char *outbin, int largest)
{
	int i;

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		json_t *run;
		size_t k, nruns = 0, nbig = 0, nconst = 0, nnan = 0;
		struct constcheck big = { 0, 0, 0 };
		const struct tcase *bc = NULL;

		if (!isoutput(a))
			continue;
		json_array_foreach(runs, k, run) {
			const struct tcase *c = listedcase(t, run);
			struct constcheck cc;
			struct buf b;
			size_t n;
			if (!c)
				continue;
			n = readoutput(t, c, run, i, outbin, &b);
			constcheck(a, b.s, n, &cc);
			buffree(&b);
			nruns++;
			nbig += n >= 16; /* a smaller output always equals its mean: constantsmall's */
			nconst += cc.pass;
			nnan += cc.finite < (n < 16 ? 1 : 16);
			if ((int)k == largest || !bc) {
				big = cc;
				bc = c;
			}
		}
		if (!nruns)
			continue;
		if (nnan == nruns)
			degenerated("%s: degenerate task: output '%s' at %s has %zu finite values of %lld, so a kernel that "
			    "writes NaN or Inf everywhere passes; change the sizes or inputs so that the output is finite",
			    t->id, a->name, bc->label, big.finite, (long long)bc->numel[i]);
		if (nbig && nconst == nbig)
			degenerated("%s: degenerate task: writing the constant %g into every element of output "
			    "'%s' at %s passes the comparison (and each verify run's own mean passes at its run, all %zu); "
			    "change the sizes, inputs or tolerances so that the output varies", t->id, big.mean, a->name,
			    bc->label, nbig);
	}
}

/*
 * A small output (fewer than 16 elements: a scalar loss) that holds the
 * same values on every verify run is degenerate too: the runs draw other
 * inputs, so a kernel that writes those constants passes (the check above
 * cannot see it: a scalar always equals its mean).
 */
static void
constantsmall(const struct task *t, json_t *runs, const char *outbin)
{
	int i;

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		double first[16];
		size_t k, j, n0 = 0, nruns = 0;
		int same = 1;
		json_t *run;

		if (!isoutput(a))
			continue;
		json_array_foreach(runs, k, run) {
			const struct tcase *c = listedcase(t, run);
			size_t n;
			struct buf b;
			if (!c)
				continue;
			n = (size_t)c->numel[i];
			if (n >= 16 || (nruns && n != n0)) {
				nruns = 0;
				break;
			}
			readoutput(t, c, run, i, outbin, &b);
			for (j = 0; j < n; j++) {
				double v = refvalue(b.s, a->dt, j);
				if (!nruns)
					first[j] = v;
				else if (v != first[j] && !(isnan(v) && isnan(first[j])))
					same = 0;
			}
			buffree(&b);
			n0 = n;
			nruns++;
		}
		if (nruns >= 2 && same)
			degenerated("%s: degenerate task: output '%s' (%zu element%s) holds the same value%s on all %zu verify runs, "
			    "whose inputs differ, so a kernel that writes %s passes; change the inputs or sizes so that the "
			    "output follows them", t->id, a->name, n0, n0 == 1 ? "" : "s", n0 == 1 ? "" : "s", nruns,
			    n0 == 1 ? "that constant" : "those constants");
	}
}

static int
affordable(const struct task *t, const struct tcase *c)
{
	return c->flops <= REF_BENCH_MAX_FLOPS && (double)casebytes(t, c) <= REF_BENCH_MAX_BYTES &&
	       (double)refoutbytes(t, c) <= REF_BENCH_MAX_OUT;
}

/* every run: its JSON in runs, its plan line when the reference computes it */
static void
planruns(const struct opts *o, const struct task *t, const unsigned char key[32], json_t *runs, struct buf *plan,
         size_t *binbytes, int *largest)
{
	double most = -1, verifymax = 0;
	int set, c, r, n;

	for (c = 0; c < t->nverify; c++)
		if ((double)casebytes(t, &t->verify[c]) > verifymax)
			verifymax = (double)casebytes(t, &t->verify[c]);

	for (set = 0; set < (o->nobench ? SET_BENCH : SET_COUNT); set++) {
		const struct tcase *all = taskcases(t, set, &n);
		for (c = 0; c < n; c++) {
			const struct tcase *cs = &all[c];
			int cpu = set == SET_VERIFY || affordable(t, cs), nr = set == SET_VERIFY ? RUNS_PER_CASE : 1;
			if (set == SET_HIDDEN && o->nobench && (double)casebytes(t, cs) > verifymax)
				continue; /* --no-bench: none larger than the verify sizes either */
			if (set == SET_VERIFY && (double)refoutbytes(t, cs) > most) {
				most = (double)refoutbytes(t, cs);
				*largest = (int)json_array_size(runs);
			}
			for (r = 0; r < nr; r++) {
				/* a hidden case is run k = its index: the dists, offsets and poisons take turns over them,
				 * and specials come every other one the CPU checks, and the last (the large ragged one) */
				int k = set == SET_HIDDEN ? c : r;
				int special = set == SET_VERIFY ? r == nr - 1 : set == SET_HIDDEN && cpu && (c % 2 || c == n - 1);
				struct runin in;
				json_t *run, *where;
				runinputs(t, cs, key, casesets[set], c, k, special, &in);
				run = runjson(t, &in);
				where = json_pack("{s:s,s:i,s:i,s:s,s:s}", "set", casesets[set], "case", c, "run", r,
				                  "label", cs->label, "oracle", cpu ? "reference" : "gpu");
				json_object_update(run, where);
				json_decref(where);
				if (cpu) {
					json_object_set_new(run, "offset", json_integer((json_int_t)*binbytes));
					planline(plan, t, cs, &in, NULL);
					*binbytes += refoutbytes(t, cs);
				}
				json_array_append_new(runs, run);
			}
		}
	}
}

/* the first n bytes of work/from appended to fd; -1 on a read or write error */
static int
appendprefix(const char *work, const char *from, size_t n, int fd)
{
	char *p = xasprintf("%s/%s", work, from), buf[1 << 16];
	int in = open(p, O_RDONLY | O_CLOEXEC), r = in < 0 ? -1 : 0;

	while (r == 0 && n > 0) {
		ssize_t got = read(in, buf, n < sizeof buf ? n : sizeof buf);
		if (got <= 0 || write(fd, buf, (size_t)got) != got)
			r = -1;
		else
			n -= (size_t)got;
	}
	if (in >= 0)
		close(in);
	free(p);
	return r;
}

/* a failure the reference's budget explains (memory, time), not its code */
static int
pastbudget(const char *log)
{
	static const char *const signs[] = { "emory", "alloc", "ran longer than", "ran past", "killed by signal", NULL };
	const char *const *k;

	for (k = signs; *k; k++)
		if (strstr(log, *k))
			return 1;
	return 0;
}

/*
 * The reference on every run the CPU computes (plan: their lines, in the
 * runs' order), its outputs into work/expected.bin; returns their bytes
 * and sets each such run's offset. A listed run that fails is the
 * reference's failure (refuse). A hidden or bench run past the listed
 * ones that fails for its budget (memory, the time limit: a torch
 * convolution's intermediates at a large shape) is taken off the CPU:
 * its oracle becomes the GPU's, `cpu_dropped` says why, and the reference
 * runs on from the run after it. The runner writes each case whole
 * (refrun.c flushes per case), so the file's size says which one failed.
 */
static size_t
cpuruns(const struct task *t, const char *reference, const char *venv, const char *work, json_t *runs,
        const char *plan, struct buf *log)
{
	size_t n = 0, k, i, start = 0, total = 0, *idx, *bytes;
	const char **line;
	char *acc = xasprintf("%s/expected.bin", work), *seg;
	json_t *run;
	int fd;

	idx = xcalloc(json_array_size(runs) + 1, sizeof *idx);
	bytes = xcalloc(json_array_size(runs) + 1, sizeof *bytes);
	line = xcalloc(json_array_size(runs) + 2, sizeof *line);
	json_array_foreach(runs, k, run)
		if (json_object_get(run, "offset")) {
			int set = 0, nc;
			while (set < SET_COUNT && strcmp(casesets[set], jstr(run, "set", "")))
				set++;
			bytes[n] = refoutbytes(t, &taskcases(t, set, &nc)[jint(run, "case", 0)]);
			idx[n++] = k;
		}
	for (i = 0, line[0] = plan; i < n; i++) {
		const char *nl = strchr(line[i], '\n');
		line[i + 1] = nl ? nl + 1 : line[i] + strlen(line[i]);
	}
	/* the segments' outputs land in seg.bin; what they finished, here */
	if ((fd = open(acc, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0)
		die(EXIT_RETRY, "cannot write '%s':", acc);
	while (start < n) {
		size_t want = 0, done = 0, have = 0, got;
		char *text = xstrndup(line[start], (size_t)(line[n] - line[start]));
		struct stat st;
		int rc;
		for (i = start; i < n; i++)
			want += bytes[i];
		log->n = 0;
		if (log->s)
			log->s[0] = 0;
		rc = now() < refdeadline ? runreference(reference, venv, work, text, "seg.bin", (double)want, 1800, log) : -1;
		if (rc < 0 && now() >= refdeadline && !log->n)
			bufprintf(log, "[the reference ran past its time budget, --ref-seconds %d]\n", refbudget);
		free(text);
		seg = xasprintf("%s/seg.bin", work);
		got = stat(seg, &st) == 0 ? (size_t)st.st_size : 0;
		free(seg);
		while (start + done < n && have + bytes[start + done] <= got)
			have += bytes[start + done++];
		if (rc == 0 && (done != n - start || got != want))
			refuse("%s: the reference wrote %zu bytes, not the %zu its outputs take", t->id, got, want);
		if (rc == 0 && start == 0) {
			/* every run in one go: its file is expected.bin, not copied (the
			 * jail made it, a regular file the reference could only write;
			 * expected() makes it ours and owner-only) */
			seg = xasprintf("%s/seg.bin", work);
			close(fd);
			if (rename(seg, acc) < 0 || (fd = open(acc, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
				die(EXIT_RETRY, "cannot write '%s':", acc);
			free(seg);
		} else if (appendprefix(work, "seg.bin", have, fd) < 0)
			die(EXIT_RETRY, "cannot write '%s':", acc);
		for (i = start; i < start + done; i++, total += bytes[i - 1])
			json_object_set_new(json_array_get(runs, idx[i]), "offset", json_integer((json_int_t)total));
		if (rc == 0)
			break;
		start += done;
		run = json_array_get(runs, idx[start]);
		if (!strcmp(jstr(run, "set", ""), "verify") || !pastbudget(log->s ? log->s : ""))
			refuse("%s: the reference failed at %s:\n%s", t->id, jstr(run, "label", "?"), log->s ? log->s : "");
		/* past its budget here: this run, and every later one once the time is out, to the GPU */
		for (i = start; i < n && (i == start || now() >= refdeadline); i++) {
			json_t *r = json_array_get(runs, idx[i]);
			const char *end = log->s ? log->s + log->n : "";
			const char *tail = log->n > 300 ? end - 300 : log->s ? log->s : "";
			warn("%s: the reference failed at %s %s, past its budget: checked by the GPU oracle instead", t->id,
			     jstr(r, "set", ""), jstr(r, "label", "?"));
			json_object_del(r, "offset");
			json_object_set_new(r, "oracle", json_string("gpu"));
			json_object_set_new(r, "cpu_dropped", json_string(tail));
			start = i + 1;
		}
	}
	if (fsync(fd) < 0 || close(fd) < 0)
		die(EXIT_RETRY, "cannot write '%s':", acc);
	free(idx);
	free(bytes);
	free(line);
	free(acc);
	return total;
}

/*
 * --expected's outputs are kept in the build cache (buildcache.h, area
 * "expected") under the key of what they come from: verify's own build,
 * the task but for what only the teacher reads, the reference
 * program's bytes, the secret, --no-bench and --ref-seconds, and for a
 * Python reference its interpreter's version and the packages it sees, with
 * their versions (by the paths of sys.path under sys.prefix from there: one
 * environment's copy in another project is the same). expected.bin
 * is linked, not copied, where the file system allows.
 */
static const char *const teacheronly[] = { "prompt", "description", "hints", "rounds", "samples",
                                           "target_speedup", "tags", "file" };

/* a package's metadata folder: NAME-VERSION.dist-info or .egg-info */
static int
pkgmeta(const struct dirent *e)
{
	const char *dot = strrchr(e->d_name, '.');

	return dot && dot != e->d_name && (!strcmp(dot, ".dist-info") || !strcmp(dot, ".egg-info"));
}

/* the packages a Python environment's interpreter sees, wherever they are
 * (its own, a system's it inherits), into h: its version, then each folder
 * of its sys.path (those under sys.prefix from there) with the package
 * metadata names in it, which carry the versions. The interpreter runs
 * here, unjailed: it is the project's environment, made by configure, and
 * runs none of the task's code */
static void
keyenv(struct sha *h, const char *venv)
{
	static const char script[] = "import sys\nprint(sys.version.replace('\\n', ' '))\nprint(sys.prefix)\n"
	                             "for p in sys.path:\n    print(p)";
	char *py = xasprintf("%s/bin/python", venv), *argv[] = { py, "-I", "-c", (char *)script, NULL };
	char *version, *prefix, *path, *save = NULL;
	struct runlimits lim = { 60, 4096, 1, NULL };
	struct run r;
	size_t np;

	if (runcapture(argv, NULL, NULL, &lim, 1 << 16, &r) < 0 || r.status != 0 || !r.log.s ||
	    !(version = strtok_r(r.log.s, "\n", &save)) || !(prefix = strtok_r(NULL, "\n", &save)))
		die(EXIT_RETRY, "cannot run '%s' (the Python reference's environment)", py);
	shaaddfield(h, version);
	np = strlen(prefix);
	while ((path = strtok_r(NULL, "\n", &save))) {
		struct dirent **names;
		int i, n;
		shaaddfield(h, !strncmp(path, prefix, np) && (!path[np] || path[np] == '/') ? path + np : path);
		for (i = 0, n = scandir(path, &names, pkgmeta, alphasort); i < n; i++) {
			shaaddfield(h, names[i]->d_name);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
	}
	buffree(&r.log);
	free(py);
}

static void
expectedkey(const struct opts *o, const struct task *t, const char *reference, const unsigned char secret[32],
            const char *venv, char key[65])
{
	json_t *j = json_deep_copy(t->json);
	char *text, n[64];
	struct sha h;
	size_t i;

	for (i = 0; i < sizeof teacheronly / sizeof teacheronly[0]; i++)
		json_object_del(j, teacheronly[i]);
	text = jdumps(j, JFLAGS_LINE);
	shainit(&h);
	cacheself(&h);
	shaaddfield(&h, text);
	cachekeyfile(&h, reference);
	shaadd(&h, secret, 32);
	snprintf(n, sizeof n, "nobench %d seconds %d", o->nobench, o->refseconds);
	shaaddfield(&h, n);
	if (venv)
		keyenv(&h, venv);
	shahex(&h, key);
	free(text);
	json_decref(j);
}

/* some run's outputs were left to the GPU's oracle: the reference ran out
 * of time or memory here, which another run may not */
static int
dropped(json_t *runs)
{
	size_t i;
	json_t *r;

	json_array_foreach(runs, i, r)
		if (json_object_get(r, "cpu_dropped"))
			return 1;
	return 0;
}

/* the cached outputs of key into place (1), or 0 */
static int
expectedhit(const struct opts *o, const char *key, const char *work)
{
	char *json = xasprintf("%s/expected.json", work), *bin = xasprintf("%s/expected.bin", work);
	char *binpath = sibling(o->out, "expected.bin");
	struct cachefile f[] = { { "expected.json", json, 0 }, { "expected.bin", bin, 1 } };
	int hit = cacheget(o->cachedir, "expected", key, f, 2);

	if (hit) {
		char err[512];
		json_t *j;
		int moved;
		tempadd(binpath); /* until expected.json is in place: no new expected.bin without it */
		if (chmod(bin, 0600) < 0 || (moved = movefile(bin, binpath)) < 0 || movefile(json, o->out) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		/* a new file here to ninja, though the cache made it long ago */
		if (moved == 1 && utimensat(AT_FDCWD, binpath, NULL, 0) < 0)
			die(EXIT_RETRY, "cannot write '%s':", binpath);
		tempkeep(binpath);
		if ((j = jload(o->out, err, sizeof err)) && json_is_string(json_object_get(j, "degenerate")))
			keptwarn(jstr(j, "degenerate", ""));
		json_decref(j);
	}
	free(json);
	free(bin);
	free(binpath);
	return hit;
}

static int
expected(const struct opts *o, const char *taskpath, const char *reference)
{
	struct task t;
	unsigned char key[32];
	char err[512], *binpath, *work, *outbin;
	const char *venv = NULL;
	json_t *out, *runs = json_array();
	struct buf plan, log;
	size_t want = 0;
	int largest = -1;
	char ckey[65];

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	if (!o->cachedir)
		die(EXIT_USAGE, "--expected needs --cache-dir (where the secret lives)");
	if (secretload(o->cachedir, key, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	/* a folder of our own next to the output, removed on every way out */
	if (mkparent(o->out) < 0 || !(work = tempdir(o->out, "work")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	if (taskpython(&t)) {
		if (!o->pyenv)
			die(EXIT_USAGE, "%s: a Python reference needs --python-env DIR (the environment ./configure made)", t.id);
		venv = o->pyenv;
	}
	refusing_out = o->out, refusing_task = &t;
	refbudget = o->refseconds;
	refdeadline = now() + refbudget;
	if (filesize(reference) == 0) { /* prepare --reference: a proposal's that did not build */
		char *lp = xasprintf("%s.log", reference);
		struct buf lg;
		bufinit(&lg, 1 << 20);
		if (readfile(lp, &lg) < 0)
			bufputs(&lg, "(no log)");
		refuse("%s: the reference does not build:\n%.4000s", t.id, lg.s ? lg.s : "");
	}
	expectedkey(o, &t, reference, key, venv, ckey);
	if (expectedhit(o, ckey, work)) {
		tempdone(work);
		json_decref(runs);
		free(work);
		taskfree(&t);
		return 0;
	}
	examples(&t, reference, venv, work);

	bufinit(&plan, (size_t)1 << 28);
	bufinit(&log, 1 << 16);
	planruns(o, &t, key, runs, &plan, &want, &largest);
	want = cpuruns(&t, reference, venv, work, runs, plan.s, &log);
	outbin = xasprintf("%s/expected.bin", work);
	{
		struct stat st;
		if (stat(outbin, &st) < 0)
			die(EXIT_RETRY, "cannot read '%s':", outbin);
		if ((size_t)st.st_size != want)
			refuse("%s: the reference wrote %lld bytes, not the %zu its outputs take", t.id,
			    (long long)st.st_size, want);
	}
	degenerate(&t, runs, outbin, largest);
	constantsmall(&t, runs, outbin);

	/* the answers: for the owner's eyes only (the jailed reference wrote
	 * them as the sandbox's uid, which must not read them) */
	binpath = sibling(o->out, "expected.bin");
	tempadd(binpath); /* until expected.json is written: no new expected.bin without it */
	if (chown(outbin, getuid(), getgid()) < 0 || chmod(outbin, 0600) < 0 || movefile(outbin, binpath) < 0)
		die(EXIT_RETRY, "cannot write '%s':", binpath);
	out = json_pack("{s:i,s:s,s:o,s:s,s:b}", "version", 2, "task", t.id, "runs", runs, "reference_language",
	                venv ? "python" : "c", "bench_sizes", !o->nobench);
	if (degenerate_why)
		json_object_set_new(out, "degenerate", json_string(degenerate_why));
	if (venv) /* pyref.py widens floating inputs to float64 and computes there */
		json_object_set_new(out, "reference_precision", json_string("float64"));
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	tempkeep(binpath);
	if (!dropped(runs)) { /* what the reference could not afford here: not for good */
		struct cachefile f[] = { { "expected.json", o->out, 0 }, { "expected.bin", binpath, 1 } };
		cacheput(o->cachedir, "expected", ckey, f, 2);
	}
	tempdone(work);
	json_decref(out);
	buffree(&plan);
	buffree(&log);
	free(binpath);
	free(outbin);
	free(work);
	taskfree(&t);
	return 0;
}

/* ------------------------------------------------------- the candidate */

struct result {
	json_t *rec;           /* verify.json */
	struct buf feedback;
	enum status verdict;
	double phase[5];       /* seconds: cases set up, calls, fetches, comparisons, the oracle */
};

static void
verdict(struct result *res, enum status v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
verdict(struct result *res, enum status v, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	res->verdict = v;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	bufputs(&res->feedback, msg);
}

/* one run as verify sees it: where its case is, its inputs, its record */
struct vrun {
	json_t *json, *rec;
	const struct tcase *c;
	struct runin in;
	int gpu;              /* checked against the GPU oracle */
	char text[512];       /* its inputs, for the teacher */
	long long oracleat;   /* where oracle.bin holds the oracle's outputs (-1: nowhere) */
	long long poolat;     /* a pool case's: where its expected outputs are in the pool's (-1: not one) */
};

/* a finished call's outputs, fetched to the harness's shared memory at
 * its case's offsets, as judged: where the next run's command goes
 * before they are (candidateruns), copies of both in this process, out
 * of reach of the candidate's code, which runs meanwhile */
struct outputs {
	const unsigned char *shm;
	size_t off[MAXARGS];
	unsigned char *copy;        /* malloc'd, PIPE_COPY_MAX bytes, or NULL */
};
/* the most output bytes a run may have for the next run's command to go
 * before it is judged: their copy is work in the lease as well */
enum { PIPE_COPY_MAX = 32 << 20 };

/* element i of an output buffer buf of dtype dt, which compare read as v,
 * for the feedback: a float to 7 digits, an integer in full (20000001 is
 * not 2.000000e+07; an i64 past 2^53 from its own bits, not v) */
static void
valuetext(char *s, size_t n, const void *buf, int dt, int64_t i, double v)
{
	if (dt == DT_I64)
		snprintf(s, n, "%" PRId64, rt_i64at(buf, (size_t)i));
	else
		snprintf(s, n, "%.*g", dtinfos[dt].isfloat ? 7 : 17, v);
}

/* the same for the record: a JSON number (an i64 an integer, exact) */
static json_t *
valuejson(const void *buf, int dt, int64_t i, double v)
{
	return dt == DT_I64 ? json_integer((json_int_t)rt_i64at(buf, (size_t)i)) : jsonnum(v);
}

/*
 * Every output of a finished call (in h's shared memory) against what was
 * expected: want holds them one after another in the reference's types
 * (WANT_REF) or as the harness lays them out (WANT_DTYPE, from the
 * oracle). 0 when all passed.
 */
static int
checkrun(const struct task *t, struct vrun *v, const struct outputs *got, const char *want, int wantas, double scale,
         const char *against, struct result *res)
{
	const struct tcase *c = v->c;
	json_t *outs = json_object();
	int i, k, bad = 0;
	size_t roff = 0;

	json_object_set_new(v->rec, "outputs", outs);
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		struct cmpres r;
		json_t *first;
		if (!isoutput(a))
			continue;
		const unsigned char *gbuf = got->shm + got->off[i];
		const char *wbuf = want + (wantas == WANT_REF ? roff : got->off[i]);
		first = json_array();
		compare(gbuf, a->dt, wbuf, wantas, c->numel[i], a, scale, &r);
		roff += (size_t)c->numel[i] * (size_t)refsize(a->dt);
		for (k = 0; k < r.nfirst; k++) {
			char at[128];
			coords(r.first[k].index, c->dims[i], c->ndims[i], at, sizeof at);
			json_array_append_new(first, json_pack("{s:s,s:o,s:o}", "at", at,
			                      "got", valuejson(gbuf, a->dt, r.first[k].index, r.first[k].got),
			                      "expected", valuejson(wbuf, a->dt, r.first[k].index, r.first[k].want)));
		}
		json_object_set_new(outs, a->name, json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:b,s:o}", "elements",
		                    (json_int_t)r.n, "wrong", (json_int_t)r.bad, "unwritten", (json_int_t)r.unwritten,
		                    "rel_l2", jsonnum(r.relnorm), "max_abs", jsonnum(r.maxabs), "max_rel",
		                    jsonnum(r.maxrel), "pass", r.pass, "first", first));
		if (r.pass)
			continue;
		if (!bad) {
			struct buf msg;
			bufinit(&msg, 4096);
			bufprintf(&msg, "Wrong results at %s%s (inputs %s%s): output '%s' has %lld of %lld elements wrong; "
			          "relative L2 error %.3g (allowed %g), max abs error %.3g.", c->label,
			          c->hidden ? ", a size the task does not list" : "", v->text, against, a->name,
			          (long long)r.bad, (long long)r.n, r.relnorm, a->rel_norm * scale, r.maxabs);
			if (r.unwritten)
				bufprintf(&msg, " %lld elements are NaN where a finite value was expected (never written? Before "
				          "each call the outputs hold NaN, zeros, huge values, random bytes or an earlier call's "
				          "results).", (long long)r.unwritten);
			for (k = 0; k < r.nfirst && k < 3; k++) {
				char gt[32], wt[32];
				valuetext(gt, sizeof gt, gbuf, a->dt, r.first[k].index, r.first[k].got);
				valuetext(wt, sizeof wt, wbuf, a->dt, r.first[k].index, r.first[k].want);
				bufprintf(&msg, "%s %s%s = %s, expected %s", k ? ";" : " First:", a->name,
				          jstr(json_array_get(first, (size_t)k), "at", ""), gt, wt);
			}
			verdict(res, ST_MISMATCH, "%s.\n", msg.s);
			buffree(&msg);
		}
		bad = 1;
	}
	if (!bad)
		json_object_set_new(v->rec, "pass", json_true());
	return bad ? -1 : 0;
}

/* the verify runs of expected.json, with their cases and inputs */
static struct vrun *
loadruns(const struct task *t, json_t *exp, json_t *rec, int *nrun)
{
	json_t *runs = json_object_get(exp, "runs"), *r, *recs = json_array();
	struct vrun *v = xcalloc(json_array_size(runs) + 1, sizeof *v);
	size_t k;

	if (jint(exp, "version", 0) != 2)
		die(EXIT_USAGE, "expected.json is of an older version: run ninja again (the expected edge rebuilds it)");
	json_object_set_new(rec, "runs", recs);
	json_array_foreach(runs, k, r) {
		const char *name = jstr(r, "set", "");
		int set = 0, n = 0, ci = (int)jint(r, "case", -1);
		const struct tcase *all = NULL;
		while (set < SET_COUNT && strcmp(casesets[set], name))
			set++;
		if (set < SET_COUNT)
			all = taskcases(t, set, &n);
		if (ci < 0 || ci >= n)
			die(EXIT_USAGE, "expected.json names %s case %d", name, ci);
		v[k].json = r;
		v[k].c = all + ci;
		v[k].gpu = !strcmp(jstr(r, "oracle", ""), "gpu");
		v[k].oracleat = -1;
		v[k].poolat = -1;
		if (runfromjson(t, v[k].c, r, &v[k].in) < 0)
			die(EXIT_USAGE, "expected.json: run %zu has bad draws", k + 1);
		runtext(t, v[k].c, &v[k].in, v[k].text, sizeof v[k].text);
		v[k].rec = json_pack("{s:s,s:s,s:s}", "case", v[k].c->label, "inputs", v[k].text, "oracle",
		                     v[k].gpu ? "gpu" : "reference");
		json_array_append_new(recs, v[k].rec);
	}
	*nrun = (int)json_array_size(runs);
	return v;
}

/* the verdict of a harness step that failed, or the tool's exit */
static int
stepfailed(int rc, const struct hres *r, const struct harness *h, struct result *res)
{
	if (rc < 0)
		die(EXIT_RETRY, "%s", h->err);
	if (rc > 0)
		verdict(res, r->verdict, "%s\n", r->why);
	return rc != 0;
}

/* what the runs' outputs are checked against: the reference's (expected.bin)
 * and the GPU oracle's (oracle.bin, NULL without one), both mapped; for
 * verify --baseline, where the oracle's outputs are saved */
struct wants {
	const unsigned char *exp, *oracle;
	size_t explen, oraclelen;
	struct buf *save;
	struct buf pool;      /* the drawn pool cases' expected outputs (drawpool) */
};

/* one candidate's verification: what candidate() sets up and its runs
 * share (the judge context) */
struct judge {
	const struct opts *o;
	const struct task *t;
	const char *harness, *so;   /* the harness program; the candidate (or the baseline) */
	int device;                 /* the GPU slot leased */
	struct vrun *v;             /* the runs, nrun of them */
	int nrun;
	struct wants w;
	size_t shm;                 /* the shared memory every run's outputs fit in */
	struct harness h;
	struct result res;
	double startsec;            /* the harness's start, to its first reply */
	size_t shmall;              /* the shared memory made for the harness (bench's first case's too) */
	const char *started;        /* where the harness started: harness_start */
	char warm[256];             /* what it did before the lease besides: harness_warm */
	json_t *pooljson;           /* the pool runs' JSON (the vruns point into it) */
	struct outputs got;         /* the run being judged */
};

/* one run's outputs, fetched to h's shared memory, against what wants has
 * for it (a GPU-oracle run without an oracle is not judged here) */
static void
judgerun(const struct task *t, struct vrun *v, const struct outputs *got, const struct wants *w, struct result *res)
{
	size_t n = hshmbytes(t, v->c, 1), at = (size_t)jint(v->json, "offset", 0);

	if (v->poolat >= 0) {
		checkrun(t, v, got, w->pool.s + v->poolat, WANT_REF, 1, "", res);
		return;
	}
	if (v->gpu) {
		if (w->save) { /* the baseline is not its own oracle: its outputs become the oracle's */
			v->oracleat = (long long)w->save->n;
			json_object_set_new(v->rec, "oracle_offset", json_integer(v->oracleat));
			if (bufput(w->save, got->shm, n) < 0)
				die(EXIT_RETRY, "the oracle's outputs take more than %zu bytes", w->save->max);
		} else if (w->oracle) {
			if (v->oracleat < 0 || (size_t)v->oracleat + n > w->oraclelen)
				die(EXIT_USAGE, "oracle.bin has no outputs for the run at %s: run ninja again (the oracle edge "
				    "rebuilds it)", v->c->label);
			checkrun(t, v, got, (const char *)w->oracle + v->oracleat, WANT_DTYPE, ORACLE_SCALE,
			         ", checked against the spec's baseline on the GPU", res);
		}
		return;
	}
	if (at + refoutbytes(t, v->c) > w->explen)
		die(EXIT_USAGE, "expected.bin is shorter than expected.json says: run ninja again");
	checkrun(t, v, got, (const char *)w->exp + at, WANT_REF, 1, "", res);
}

/* a Python candidate's first run of each case, once, before its harness
 * locks itself down (Triton compiles a kernel at its first call: a
 * process, files); every run is judged after the lockdown. 0, or -1 when
 * the candidate failed (res says how) */
static int
warmlock(struct judge *j)
{
	struct harness *h = &j->h;
	struct hres r;
	json_t *first;
	double t0;
	int k, m;

	if (!h->python || h->open)
		return 0;
	first = json_array(); /* each first call's own figures: an autotuner times its configs there */
	json_object_set_new(j->res.rec, "first_calls", first);
	for (k = 0; k < j->nrun; k++) {
		for (m = 0; m < k && j->v[m].c != j->v[k].c; m++)
			;
		if (m < k)
			continue; /* not its case's first run */
		if ((j->v[k].c != h->c && stepfailed(hcase(h, j->v[k].c, &r), &r, h, &j->res)) ||
		    stepfailed(hcall(h, 0, 0, &j->v[k].in, &r), &r, h, &j->res))
			return -1;
		json_array_append_new(first, json_pack("{s:s,s:f,s:f}", "case", j->v[k].c->label, "host_ms", r.host_ms,
		                                       "wall_ms", r.wall_ms));
	}
	t0 = now();
	if (stepfailed(hlock(h, &r), &r, h, &j->res))
		return -1;
	json_object_set_new(j->res.rec, "lockdown_seconds", json_real(now() - t0));
	json_object_set_new(j->res.rec, "lockdown", json_string(h->gpu.lockdown));
	json_object_set_new(j->res.rec, "launch_check", json_string(h->gpu.launches));
	return 0;
}

/* the seconds a step of the harness may take: with --bench a candidate
 * found correct keeps its harness for bench, whose CPU limit then covers
 * both, as two harnesses' would (proto.c gives 4 x seconds + 120, so
 * seconds 2 x --timeout + 30) */
static int
stepseconds(const struct opts *o)
{
	return o->bench ? o->timeout * 2 + 30 : o->timeout;
}

/* the harness for j's candidate (or baseline) */
static int
spawnharness(struct judge *j)
{
	const struct opts *o = j->o;

	return hspawn(&j->h, &(struct childprog){ j->harness, j->so, o->baseline ? "baseline" : j->t->entry, j->device,
	                                          NULL, o->baseline ? HOPEN : NULL, stepseconds(o) });
}

/* the harness, before the GPU is taken, while another edge holds it: a
 * Python one's interpreter, torch and Triton load (seconds) and it waits,
 * gated, before the candidate's module and its CUDA context
 * (pyharness.py); a CUDA candidate's starts the CUDA driver and waits
 * before its context and the candidate's object (harness.c). Only where
 * the slot is known before the lease: one GPU slot. Not a CUDA
 * baseline's (verify --baseline: trusted, once a variant) */
static void
earlyharness(struct judge *j)
{
	j->started = "in the lease";
	if ((!hispython(j->so) && j->o->baseline) || !hearlyok(j->o->gpus))
		return;
	j->device = 0;
	j->h.gated = 1;
	if (spawnharness(j) < 0)
		die(EXIT_RETRY, "%s", j->h.err);
	j->h.early = 1;
	j->started = "before the lease";
}

/* a candidate's harness started before the lease: once it has loaded (a
 * Python candidate's kernels compiled too, pyharness.py's warm), it makes
 * its CUDA context (some 0.1 s), where it is the one harness on deck: the
 * lease holder's fence leaves room for one (proto.h hkeep). The lease is
 * taken after both. The deck's fd (closed once the lease is taken), else
 * -1 (a harness that did not say it had loaded within the step's time,
 * of which its compile has half, goes on loading in the lease, as one
 * started there would) */
static int
ondeck(struct judge *j)
{
	int fd;

	if (!j->h.early)
		return -1;
	if (hwait(&j->h, stepseconds(j->o)) < 0) /* an end shows at hgo */
		return -1;
	snprintf(j->warm, sizeof j->warm, "%s", j->h.waited);
	if ((fd = gpudeck(j->o->lockdir, j->device)) < 0)
		die(EXIT_RETRY, "cannot take the GPU slot's deck in '%s':", j->o->lockdir);
	hctx(&j->h);
	if (hwait(&j->h, CTX_SECONDS) < 0)
		j->started = "before the lease, its CUDA context on deck, still being made at it";
	else if (strstr(j->h.waited, "context failed"))
		j->started = "before the lease, its CUDA context on deck failed (made again in the lease)";
	else
		j->started = "before the lease, its CUDA context too (on deck)";
	return fd;
}

/* the candidate on every run, each judged as it comes, in h (its shared
 * memory made: hshm, its first pin bytes for the runs' outputs) */
static void
candidateruns(struct judge *j)
{
	const struct opts *o = j->o;
	const struct task *t = j->t;
	struct harness *h = &j->h;
	struct result *res = &j->res;
	struct vrun *v = j->v;
	struct hres r;
	double t0 = now();
	int k, sent;
	size_t n;
	enum { SENT_CASE = 1, SENT_CALL };

	if (h->early && hgo(h) < 0) {
		/* it ended while it waited, before any call of the candidate's
		 * (a Triton candidate's warm pass catches what its host code
		 * raises): not the candidate's doing; another, in the lease */
		hstop(h);
		h->early = 0;
		j->started = "in the lease (the one started before it had ended)";
		if (hshm(h, t, j->shmall, j->shm) < 0)
			die(EXIT_RETRY, "%s", h->err);
	}
	if (!h->early && spawnharness(j) < 0) /* else loaded already: its CUDA context (a candidate's code) from now */
		die(EXIT_RETRY, "%s", h->err);
	h->early = 0;
	h->nohold = 1; /* no copies of calls kept: bench, handed the harness, sets its case up again */
	h->timeout = o->timeout;
	if (stepfailed(hready(h, &r), &r, h, res) ||
	    stepfailed(hpin(h, j->shm, &r), &r, h, res)) /* every run's outputs come back there */
		goto stop;
	json_object_set_new(res->rec, "gpu", gpujson(&h->gpu));
	json_object_set_new(res->rec, "lockdown", json_string(h->gpu.lockdown));
	j->startsec = now() - t0;
	t0 = now();
	if (warmlock(j) < 0)
		goto stop;
	res->phase[1] += now() - t0;
	/* each run's case (where it changes) and call, then its outputs
	 * fetched; the next run's command is sent before this one is judged
	 * (its outputs copied first, where they are small), so that its work
	 * on the GPU goes on beside the comparisons */
	for (k = 0, sent = 0; k < j->nrun && res->verdict == ST_CORRECT; k++) {
		struct hres rc;
		double t1 = now();
		if (!sent && v[k].c != h->c) {
			hcasesend(h, v[k].c);
			sent = SENT_CASE;
		}
		if (sent == SENT_CASE && stepfailed(hcasewait(h, &r), &r, h, res))
			break;
		res->phase[0] += now() - t1;
		t1 = now();
		if (sent != SENT_CALL)
			hcallsend(h, k & 1, 0, &v[k].in);
		sent = 0;
		if (stepfailed(hcallwait(h, &rc), &rc, h, res))
			break;
		res->phase[1] += now() - t1;
		t1 = now();
		if (stepfailed(hfetch(h, k & 1, &r), &r, h, res))
			break;
		res->phase[2] += now() - t1;
		t1 = now();
		json_object_set_new(v[k].rec, "host_ms", json_real(rc.host_ms));
		j->got.shm = h->ch.shm;
		memcpy(j->got.off, h->outoff, sizeof j->got.off);
		if (k + 1 < j->nrun && (n = hshmbytes(t, v[k].c, 1)) <= PIPE_COPY_MAX) {
			if (!j->got.copy)
				j->got.copy = xmalloc(PIPE_COPY_MAX);
			memcpy(j->got.copy, h->ch.shm, n);
			j->got.shm = j->got.copy;
			if (v[k + 1].c != h->c) {
				hcasesend(h, v[k + 1].c);
				sent = SENT_CASE;
			} else {
				hcallsend(h, (k + 1) & 1, 0, &v[k + 1].in);
				sent = SENT_CALL;
			}
		}
		judgerun(t, &v[k], &j->got, &j->w, res);
		res->phase[3] += now() - t1;
	}
stop:
	if (o->bench && res->verdict == ST_CORRECT && !o->sanitize)
		return; /* bench's now (handover) */
	t0 = now();
	hstop(h);
	res->phase[4] = now() - t0;
}

/* what the runs that passed checked, for the record (doc/dataset.md, checked) */
static json_t *
checked(const struct judge *j)
{
	int k, i, n[4] = { 0 }, offsets = 0, ties = 0, specials = 0;
	unsigned poisons = 0;
	json_t *pl = json_array();

	for (k = 0; k < j->nrun; k++) {
		const struct vrun *v = &j->v[k];
		if (v->gpu && !j->w.oracle && !j->w.save) {
			n[3]++; /* no oracle: run, not judged */
			continue;
		}
		if (!json_is_true(json_object_get(v->rec, "pass")))
			continue;
		n[v->c->hidden]++;
		n[2] += v->gpu;
		poisons |= 1u << v->in.poison;
		for (i = 0; i < j->t->nargs; i++) {
			const struct draw *d = &v->in.d[i];
			if (!isinput(&j->t->args[i]))
				continue; /* its draw is all zeros */
			offsets |= d->off != 0 || d->scale != 1;
			ties |= d->dist == DIST_TIES;
			specials |= d->special;
		}
	}
	for (i = 0; i < POISON_COUNT; i++)
		if (poisons >> i & 1)
			json_array_append_new(pl, json_string(poisonnames[i]));
	return json_pack("{s:i,s:i,s:i,s:i,s:o,s:b,s:b,s:b}", "listed_runs", n[0], "hidden_runs", n[1],
	                 "gpu_oracle_runs", n[2], "unjudged_runs", n[3], "poisons", pl, "offsets", offsets, "ties", ties,
	                 "specials", specials);
}

/* compute-sanitizer on the first verify run: memcheck, then racecheck */
static void
sanitize(struct judge *j)
{
	static const char *const tools[] = { "memcheck", "racecheck" };
	const struct task *t = j->t;
	struct result *res = &j->res;
	char *cs = findprog("compute-sanitizer");
	json_t *san = json_object();
	size_t ti;

	json_object_set_new(res->rec, "sanitizer", cs ? san : json_string("not found"));
	for (ti = 0; cs && ti < 2 && res->verdict == ST_CORRECT; ti++) {
		const char *w[] = { cs, "--tool", tools[ti], "--error-exitcode", "86", "--print-limit", "5", NULL };
		char out[4096];
		struct harness h;
		struct hres r;
		int st, rc = hstart(&h, t, &(struct childprog){ j->harness, j->so, t->entry, j->device, w, HOPEN,
		                                                 j->o->timeout * 20 + 60 }, j->shm, &r);
		if (rc < 0)
			die(EXIT_RETRY, "%s", h.err);
		if (rc > 0) {
			hstop(&h);
			json_object_set_new(san, tools[ti], json_string("could not start"));
			continue;
		}
		if ((rc = hcase(&h, j->v[0].c, &r)) == 0)
			rc = hcall(&h, 0, 0, &j->v[0].in, &r);
		if (rc < 0)
			die(EXIT_RETRY, "%s", h.err);
		st = hstop(&h);
		childoutput(&h.ch, out, sizeof out);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 86) {
			verdict(res, ST_MEMCHECK, "compute-sanitizer %s found errors at %s:\n%s\n", tools[ti], j->v[0].c->label, out);
			json_object_set_new(san, tools[ti], json_string("errors"));
		} else if (rc) {
			json_object_set_new(san, tools[ti], json_sprintf("could not run: %s", r.why));
		} else {
			json_object_set_new(san, tools[ti], json_string("clean"));
		}
	}
	if (!cs)
		json_decref(san);
	free(cs);
}

/* the GPU oracle's outputs (oracle.bin beside ORACLE_JSON) mapped into w,
 * and where each run's are, when verify --baseline found the spec's
 * baseline sound; else why not, in the record */
static void
oracleload(const char *oraclejson, struct vrun *v, int nrun, struct wants *w, struct result *res)
{
	json_t *j, *runs;
	char err[512], *bin;
	int k;

	if (!oraclejson)
		return;
	if (!(j = jload(oraclejson, err, sizeof err)))
		die(EXIT_USAGE, "%s", err);
	if (strcmp(jstr(j, "verdict", ""), "correct")) {
		json_object_set_new(res->rec, "oracle", json_sprintf("not usable: %s", *jstr(j, "feedback", "")
		                    ? jstr(j, "feedback", "") : jstr(j, "verdict", "the baseline was not checked")));
		json_decref(j);
		return;
	}
	runs = json_object_get(j, "runs");
	if ((int)json_array_size(runs) != nrun)
		die(EXIT_USAGE, "'%s' has %zu runs and expected.json %d: run ninja again", oraclejson,
		    json_array_size(runs), nrun);
	for (k = 0; k < nrun; k++)
		if (v[k].gpu)
			v[k].oracleat = jint(json_array_get(runs, (size_t)k), "oracle_offset", -1);
	bin = sibling(oraclejson, "oracle.bin");
	if (!(w->oracle = mapfile(bin, &w->oraclelen)) || (json_int_t)w->oraclelen != jint(j, "oracle_bytes", -1))
		die(EXIT_USAGE, "'%s' is not the oracle.bin of '%s'%s%s: run ninja again (the oracle edge rebuilds both)",
		    bin, oraclejson, w->oracle ? "" : ": ", w->oracle ? "" : strerror(errno));
	free(bin);
	json_decref(j);
}

/* verify --baseline: the oracle's outputs written (0600: answers), before oracle.json */
static char *
oraclesave(const struct opts *o, const struct buf *save, json_t *rec)
{
	char *bin = sibling(o->out, "oracle.bin");

	json_object_set_new(rec, "oracle_bytes", json_integer((json_int_t)save->n));
	tempadd(bin); /* until oracle.json is written: no new oracle.bin without it */
	if (writefilemode(bin, save->s, save->n, 0600) < 0)
		die(EXIT_RETRY, "cannot write '%s':", bin);
	return bin;
}

/* ------------------------------------------- the hidden pool, per candidate */

/* what one candidate's pool cases may cost the CPU reference: the sum of
 * their flops and tensor bytes, and its wall clock (doc/verification.md) */
static const double POOL_MAX_FLOPS = 4e9, POOL_MAX_BYTES = 512.0 * 1024 * 1024;
enum { POOL_SECONDS = 60 };

/* this process's CPU seconds and its waited-for children's (the jailed reference) */
static double
cpusecs(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
}

/* a 64-bit number from sha256(secret, fields...) */
static uint64_t
keyed(const unsigned char key[32], const char *const *fields)
{
	struct sha h;
	char hex[65];

	shainit(&h);
	shaadd(&h, key, 32);
	for (; *fields; fields++)
		shaaddfield(&h, *fields);
	shahex(&h, hex);
	hex[16] = 0;
	return strtoull(hex, NULL, 16);
}

/* the candidate's hash: compile's source_sha256, else its built file's */
static char *
candhash(json_t *comp, const char *sopath)
{
	struct buf b;
	char hex[65];

	if (*jstr(comp, "source_sha256", ""))
		return xstrdup(jstr(comp, "source_sha256", ""));
	bufinit(&b, (size_t)1 << 31);
	if (readfile(sopath, &b) < 0)
		die(EXIT_RETRY, "cannot read '%s':", sopath);
	sha256hex(b.s ? b.s : "", b.n, hex);
	buffree(&b);
	return xstrdup(hex);
}

/* a drawn pool case: its index in t->pool, inputs, plan line and cache file */
struct pick {
	int idx;
	struct runin in;
	char *line, *cache;
	long long at;         /* where its outputs are in w->pool; -1 until known */
};

/* the missing picks' outputs computed by the reference, jailed as
 * --expected runs it, each written to its cache file; those it did not
 * finish are left at -1 (the log says why) */
static void
poolcompute(const struct opts *o, const struct task *t, const char *reference, const char *venv, struct pick *p,
            int n, struct buf *pool, struct buf *log)
{
	struct buf plan, got;
	char *work, *outp;
	size_t want = 0, off = 0;
	int k;

	bufinit(&plan, (size_t)1 << 28);
	for (k = 0; k < n; k++)
		if (p[k].at < 0) {
			bufputs(&plan, p[k].line);
			want += refoutbytes(t, &t->pool[p[k].idx]);
		}
	if (!plan.n) {
		buffree(&plan);
		return;
	}
	if (!(work = tempdir(o->out, "pool")))
		die(EXIT_RETRY, "cannot make a folder for '%s':", o->out);
	refbudget = POOL_SECONDS;
	refdeadline = now() + POOL_SECONDS;
	if (runreference(reference, venv, work, plan.s, "pool.bin", (double)want, POOL_SECONDS, log) < 0)
		warn("%s: the reference failed on this candidate's hidden cases: %.300s", t->id, log->s ? log->s : "");
	outp = xasprintf("%s/pool.bin", work);
	bufinit(&got, want + 1);
	if (readfile(outp, &got) < 0)
		got.n = 0;
	for (k = 0; k < n; k++) {
		size_t len = refoutbytes(t, &t->pool[p[k].idx]);
		if (p[k].at >= 0)
			continue;
		if (off + len > got.n)
			break; /* this one and the rest: not finished */
		if (writefilemode(p[k].cache, got.s + off, len, 0600) < 0)
			die(EXIT_RETRY, "cannot write '%s':", p[k].cache);
		p[k].at = (long long)pool->n;
		if (bufput(pool, got.s + off, len) < 0)
			die(EXIT_RETRY, "the hidden cases' outputs take more than %zu bytes", pool->max);
		off += len;
	}
	buffree(&got);
	buffree(&plan);
	free(outp);
	tempdone(work);
	free(work);
}

/*
 * The candidate's hidden pool cases (task.json's "pool", hidden.h): per
 * slot one alternative, picked by sha256(secret, variant, candidate's
 * hash, slot), while the picks' flops and bytes stay within the budget.
 * Their inputs are the pool case's own (seeded by the secret and its
 * index), so the expected outputs of a case are the same for every
 * candidate that draws it: they are cached in CACHE/pool/, keyed by the
 * variant, the reference's bytes and the case's plan line, and computed
 * (the CPU reference, in the sandbox, before the GPU is taken) only when
 * missing. The runs join j's after the expected ones; the record's
 * hidden_pool says what was drawn.
 */
static void
drawpool(const struct opts *o, struct judge *j, json_t *comp, const char *exppath)
{
	const struct task *t = j->t;
	json_t *info = json_object(), *recs = json_object_get(j->res.rec, "runs");
	unsigned char key[32];
	char err[512], refhex[65], *hash = NULL, *reference = sibling(exppath, "reference");
	const char *venv = taskpython(t) ? o->pyenv : NULL, *why = NULL;
	struct pick *p = xcalloc((size_t)t->npool + 1, sizeof *p);
	struct buf refbytes, log;
	double flops = 0, bytes = 0, t0 = now(), c0 = cpusecs();
	int k, n = 0, slot = -1, nslot = 0, cached = 0, skipped = 0, done = 0;

	json_object_set_new(j->res.rec, "hidden_pool", info);
	bufinit(&refbytes, (size_t)1 << 31);
	bufinit(&log, 1 << 16);
	if (!t->npool)
		why = "none: the task's domain has no small shapes";
	else if (!o->cachedir)
		why = "not drawn: no --cache-dir (the secret)";
	else if (taskpython(t) && !o->pyenv)
		why = "not drawn: a Python reference and no --python-env";
	else if (readfile(reference, &refbytes) < 0 || !refbytes.n)
		why = "not drawn: no reference beside expected.json";
	else if (secretload(o->cachedir, key, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	if (why) {
		json_object_set_new(info, "why", json_string(why));
		goto out;
	}
	sha256hex(refbytes.s, refbytes.n, refhex);
	hash = candhash(comp, j->so);
	for (k = 0; k < t->npool; k = k + 1) {
		const struct tcase *c = &t->pool[k];
		int m = k, nalt = 0, pick;
		char sl[16];
		if (c->slot == slot)
			continue;
		slot = c->slot;
		nslot++;
		while (m < t->npool && t->pool[m].slot == slot)
			m++, nalt++;
		snprintf(sl, sizeof sl, "%d", slot);
		pick = k + (int)(keyed(key, (const char *const[]){ t->id, "pool", hash, sl, NULL }) % (uint64_t)nalt);
		c = &t->pool[pick];
		if (flops + c->flops > POOL_MAX_FLOPS || bytes + (double)casebytes(t, c) > POOL_MAX_BYTES) {
			skipped++;
			continue;
		}
		flops += c->flops;
		bytes += (double)casebytes(t, c);
		p[n].idx = pick;
		p[n].at = -1;
		{
			struct buf line;
			char hex[65];
			struct sha h;
			bufinit(&line, (size_t)1 << 26);
			/* the dists, offsets, poisons and specials take turns over the slots */
			runinputs(t, c, key, "pool", pick, slot, slot % 2, &p[n].in);
			p[n].in.poison = slot % POISON_COUNT;
			planline(&line, t, c, &p[n].in, NULL);
			p[n].line = xstrdup(line.s);
			buffree(&line);
			shainit(&h);
			shaaddfield(&h, t->id);
			shaaddfield(&h, refhex);
			shaaddfield(&h, p[n].line);
			shahex(&h, hex);
			p[n].cache = xasprintf("%s/pool/%s.bin", o->cachedir, hex);
		}
		{
			struct buf b;
			size_t len = refoutbytes(t, c);
			bufinit(&b, len + 1);
			if (readfile(p[n].cache, &b) == 0 && b.n == len) {
				p[n].at = (long long)j->w.pool.n;
				if (bufput(&j->w.pool, b.s, len) < 0)
					die(EXIT_RETRY, "the hidden cases' outputs take more than %zu bytes", j->w.pool.max);
				cached++;
			}
			buffree(&b);
		}
		n++;
	}
	if (cached < n) {
		char *dir = xasprintf("%s/pool", o->cachedir);
		if (mkdirp(dir) < 0)
			die(EXIT_RETRY, "cannot make '%s':", dir);
		free(dir);
		poolcompute(o, t, reference, venv, p, n, &j->w.pool, &log);
	}
	/* the runs, after the expected ones */
	j->v = xrealloc(j->v, ((size_t)j->nrun + (size_t)n + 1) * sizeof *j->v);
	for (k = 0; k < n; k++) {
		struct vrun *v = &j->v[j->nrun];
		const struct tcase *c = &t->pool[p[k].idx];
		if (p[k].at < 0)
			continue; /* the reference did not finish it */
		done++;
		memset(v, 0, sizeof *v);
		v->c = c;
		v->in = p[k].in;
		v->oracleat = -1;
		v->poolat = p[k].at;
		runtext(t, c, &v->in, v->text, sizeof v->text);
		v->json = runjson(t, &v->in);
		json_object_update_new(v->json, json_pack("{s:s,s:i,s:i,s:s,s:s}", "set", "pool", "case", p[k].idx, "run", 0,
		                                          "label", c->label, "oracle", "reference"));
		json_array_append_new(j->pooljson, v->json);
		v->rec = json_pack("{s:s,s:s,s:s}", "case", c->label, "inputs", v->text, "oracle", "reference");
		json_array_append_new(recs, v->rec);
		j->nrun++;
	}
	json_object_set_new(info, "slots", json_integer(nslot));
	json_object_set_new(info, "drawn", json_integer(n));
	json_object_set_new(info, "cached", json_integer(cached));
	json_object_set_new(info, "computed", json_integer(done - cached));
	json_object_set_new(info, "skipped", json_integer(skipped));
	json_object_set_new(info, "dropped", json_integer(n - done));
	if (n > done)
		json_object_set_new(info, "dropped_why", json_string(log.n > 300 ? log.s + log.n - 300 : log.s ? log.s : ""));
	json_object_set_new(info, "seconds", json_real(now() - t0));
	json_object_set_new(info, "cpu_seconds", json_real(cpusecs() - c0));
out:
	for (k = 0; k < n; k++) {
		free(p[k].line);
		free(p[k].cache);
	}
	free(p);
	free(hash);
	free(reference);
	buffree(&refbytes);
	buffree(&log);
}

/* whether the candidate is to run: built, and a GPU here (else res->verdict says why not) */
static int
runnable(json_t *comp, struct result *res)
{
	if (statusof(comp, STAGE_COMPILE) == ST_DONE) {
		res->verdict = ST_DONE;
		return 0;
	}
	if (statusof(comp, STAGE_COMPILE) != ST_OK) {
		res->verdict = ST_NOT_BUILT;
		json_object_set_new(res->rec, "reason", json_string(jstr(comp, "status", "?")));
		return 0;
	}
	if (!hasgpu()) {
		res->verdict = ST_SKIPPED;
		return 0;
	}
	return 1;
}

/* the record's bench_checked: whether the bench sizes' outputs are checked, or why not */
static void
benchchecked(const struct opts *o, const struct wants *w, json_t *rec, int needoracle, int nbench)
{
	if (needoracle && o->baseline)
		json_object_set_new(rec, "bench_checked", json_string("no: the baseline is not its own oracle at a bench "
		                    "size the CPU reference cannot afford"));
	else if (needoracle && !w->oracle)
		json_object_set_new(rec, "bench_checked", json_string("no: no oracle at a bench size the CPU reference "
		                    "cannot afford (no baseline, or one that failed its checks)"));
	else
		json_object_set_new(rec, "bench_checked", nbench ? json_true()
		                    : json_string("no: expected.json has no bench-size runs (made with --no-bench)"));
}

/* the record's last fields and, with --baseline, the oracle's outputs; then
 * the record written (the GPU's time counted to until, else to now) */
static void
finish(const struct opts *o, struct result *res, const struct buf *save, int lockfd, double tlock, double t0,
       double until)
{
	char *savedbin = NULL;
	double held = until > 0 ? until : now(); /* until: handed over then, bench counts on from there */

	if (lockfd >= 0)
		json_object_set_new(res->rec, "gpu_seconds", json_real(held - tlock));
	setstatus(res->rec, STAGE_VERIFY, res->verdict);
	json_object_set_new(res->rec, "feedback", json_string(res->feedback.s));
	if (gpujudged(res->verdict))
		json_object_set_new(res->rec, "seconds", json_real(now() - t0));
	if (o->baseline)
		savedbin = oraclesave(o, save, res->rec);
	if (jwrite(o->out, res->rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	if (savedbin)
		tempkeep(savedbin);
	free(savedbin);
}

/* --bench: bench, in this process, on BENCH_JSON's arguments; with h (a
 * correct candidate's harness, alive) and the lease handed over (spec:
 * hhandover's), or neither (bench then writes why it timed nothing, or
 * starts its own) */
static void
thenbench(const struct opts *o, const char *compilepath, const char *harness, struct harness *h, const char *spec,
          int lockfd)
{
	char *argv[32], gpus[16], timeout[16], self[PATH_MAX], *prog;
	char *const *b = o->benchin;
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	int k = 0;

	if (n <= 0)
		die(EXIT_RETRY, "cannot find this program's folder: /proc/self/exe:");
	self[n] = 0;
	prog = sibling(self, "bench");
	snprintf(gpus, sizeof gpus, "%d", o->gpus);
	snprintf(timeout, sizeof timeout, "%d", o->timeout);
	argv[k++] = prog;
	argv[k++] = "--gpus"; argv[k++] = gpus;
	argv[k++] = "--lock-dir"; argv[k++] = (char *)o->lockdir;
	argv[k++] = "--timeout"; argv[k++] = timeout;
	if (o->gpupython) {
		argv[k++] = "--gpu-python"; argv[k++] = (char *)o->gpupython;
	}
	argv[k++] = "--python-harness"; argv[k++] = (char *)o->pyharness;
	if (o->status) {
		argv[k++] = "--status"; argv[k++] = (char *)o->status;
	}
	if (h) {
		argv[k++] = "--harness-from"; argv[k++] = (char *)spec;
	} else if (lockfd >= 0) { /* bench takes the GPU and starts a harness itself, if it times the candidate */
		close(lockfd);
	}
	argv[k++] = "-o"; argv[k++] = b[0];
	argv[k++] = b[1];                /* TASK_JSON */
	argv[k++] = (char *)o->out;      /* VERIFY_JSON */
	argv[k++] = (char *)compilepath;
	argv[k++] = (char *)harness;
	argv[k++] = b[2];                /* CALIBRATION_JSON */
	if (b[3])
		argv[k++] = b[3];            /* BASELINE_JSON */
	argv[k] = NULL;
	execv(prog, argv);
	if (h)
		hstop(h);
	die(EXIT_RETRY, "cannot run '%s':", prog);
}

static int
candidate(const struct opts *o, const char *taskpath, const char *compilepath, const char *harness,
          const char *exppath, const char *oraclejson, const char *baselineso)
{
	struct task t;
	struct judge j = { .o = o, .t = &t, .harness = harness };
	struct buf save;
	char err[1024], spec[4096], *sopath = NULL, *binpath = NULL;
	json_t *comp, *exp = NULL;
	int lockfd = -1, deckfd, k, needoracle = 0, nbench = 0, handing = 0;
	double t0 = now(), tlock = 0, since = 0;
	size_t all;

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	bufinit(&j.res.feedback, 1 << 20);
	bufinit(&save, (size_t)1 << 36);
	bufinit(&j.w.pool, (size_t)1 << 32);
	j.pooljson = json_array();
	j.res.rec = json_object();
	j.res.verdict = ST_CORRECT;
	if (o->baseline) {
		/* the spec's baseline, as a candidate would be */
		setstatus(comp = json_object(), STAGE_COMPILE, filesize(baselineso) > 0 ? ST_OK : ST_NOT_BUILT);
		sopath = xstrdup(baselineso);
		j.w.save = &save;
	} else {
		comp = schemaload(compilepath, schema_compile_json);
		sopath = hcandidate(comp, compilepath);
	}

	exp = jmustload(exppath);
	if (json_object_get(exp, "refused")) { /* a proposal's reference, refused by verify --expected */
		if (!o->baseline)
			die(EXIT_USAGE, "%s: its reference was refused, so nothing can be verified: %s", t.id,
			    jstr(exp, "refused", ""));
		verdict(&j.res, ST_NOT_VERIFIED, "the variant's reference was refused: %s", jstr(exp, "refused", ""));
		goto write;
	}
	if (!runnable(comp, &j.res))
		goto write;
	if (json_is_false(json_object_get(exp, "bench_sizes")))
		die(EXIT_USAGE, "%s: expected.json was made without the bench sizes (verify --expected --no-bench: "
		    "configure found no GPU); run ./configure on this GPU host, then ninja", t.id);
	binpath = sibling(exppath, "expected.bin");
	if (json_is_string(json_object_get(exp, "degenerate"))) /* an imported problem's, kept (degenerated) */
		json_object_set(j.res.rec, "degenerate", json_object_get(exp, "degenerate"));
	j.v = loadruns(&t, exp, j.res.rec, &j.nrun);
	for (k = 0; k < j.nrun; k++) {
		needoracle |= j.v[k].gpu;
		nbench += j.v[k].c >= t.bench && j.v[k].c < t.bench + t.nbench;
	}
	if (!(j.w.exp = mapfile(binpath, &j.w.explen)) && errno != ENODATA)
		die(errno == ENOENT ? EXIT_USAGE : EXIT_RETRY, "cannot read '%s':", binpath);
	if (needoracle && !o->baseline)
		oracleload(oraclejson, j.v, j.nrun, &j.w, &j.res);
	benchchecked(o, &j.w, j.res.rec, needoracle, nbench);
	j.so = sopath;
	if (!o->baseline) /* before the GPU is taken: the CPU reference may run */
		drawpool(o, &j, comp, exppath);
	for (k = 0, j.shm = 0; k < SET_COUNT; k++) {
		int n;
		const struct tcase *cs = taskcases(&t, k, &n);
		if (hshmbytes(&t, cs, n) > j.shm)
			j.shm = hshmbytes(&t, cs, n);
	}
	if (hshmbytes(&t, t.pool, t.npool) > j.shm)
		j.shm = hshmbytes(&t, t.pool, t.npool);
	/* with --bench, room for bench's first case too (its pages made as it uses them) */
	all = o->bench && t.nbench && hbenchshm(&t, &t.bench[0]) > j.shm ? hbenchshm(&t, &t.bench[0]) : j.shm;
	if (hshm(&j.h, &t, all, j.shm) < 0)
		die(EXIT_RETRY, "%s", j.h.err);
	j.shmall = all;
	earlyharness(&j);
	if (o->status)
		statusnote(o->status, &(struct statusupdate){ STATUS_GPU_WAIT, t.id, NULL, 0, 1 });
	deckfd = ondeck(&j);
	if ((lockfd = gpulock(o->lockdir, o->gpus, &j.device)) < 0)
		die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o->lockdir);
	if (deckfd >= 0)
		close(deckfd); /* the next one on deck may make its context */
	if (o->status)
		statusnote(o->status, &(struct statusupdate){ STATUS_GPU_RUN, t.id, NULL, 0, 1 });
	tlock = now();
	json_object_set_new(j.res.rec, "isolation", json_string(jailkind()));
	j.so = sopath;
	candidateruns(&j);
	json_object_set_new(j.res.rec, "checked", checked(&j));
	handing = o->bench && j.res.verdict == ST_CORRECT && !o->sanitize;
	json_object_set_new(j.res.rec, "start_seconds", json_real(j.startsec));
	json_object_set_new(j.res.rec, "harness_start", json_string(j.started));
	if (*j.warm)
		json_object_set_new(j.res.rec, "harness_warm", json_string(j.warm));
	json_object_set_new(j.res.rec, "phase_seconds", json_pack("{s:f,s:f,s:f,s:f,s:f}", "cases", j.res.phase[0], "calls",
	                    j.res.phase[1], "fetches", j.res.phase[2], "comparisons", j.res.phase[3], "end", j.res.phase[4]));
	if (j.res.verdict == ST_CORRECT && o->sanitize && !hispython(sopath))
		sanitize(&j);
	if (handing) { /* before the record is written, so that it says what happened */
		since = now();
		if (hhandover(&j.h, lockfd, since, spec, sizeof spec) == 0) {
			json_object_set_new(j.res.rec, "harness", json_string("handed to bench"));
		} else {
			hstop(&j.h);
			handing = 0;
			since = 0;
			json_object_set_new(j.res.rec, "harness", json_string("not handed to bench (it had ended, or left a "
			                    "reply unread): bench starts its own"));
		}
	}
write:
	if (o->baseline && gpujudged(j.res.verdict) && j.res.verdict != ST_CORRECT && j.res.verdict != ST_NO_ROOM &&
	    j.res.verdict != ST_NOT_VERIFIED) { /* a spec's fault, not data: said where the build shows it */
		const char *fb = j.res.feedback.s ? j.res.feedback.s : "";
		int len = (int)strcspn(fb, "\n");
		warn("%s: the spec's baseline failed its checks (%s), so it is no oracle: the candidates' timed calls, and "
		     "their runs the CPU reference cannot afford, go unchecked, and their speedups are over a wrong kernel: "
		     "%.*s", t.id,
		     statusname(j.res.verdict), len < 400 ? len : 400, fb);
	}
	finish(o, &j.res, &save, lockfd, tlock, t0, since);
	if (lockfd >= 0 && !o->bench)
		close(lockfd);
	if (j.w.exp)
		munmap((void *)j.w.exp, j.w.explen);
	if (j.w.oracle)
		munmap((void *)j.w.oracle, j.w.oraclelen);
	free(j.v);
	free(j.got.copy);
	buffree(&j.w.pool);
	json_decref(j.pooljson);
	json_decref(j.res.rec);
	json_decref(exp);
	json_decref(comp);
	buffree(&j.res.feedback);
	buffree(&save);
	free(sopath);
	free(binpath);
	taskfree(&t);
	if (o->bench)
		thenbench(o, compilepath, harness, handing ? &j.h : NULL, spec, lockfd);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, "out/gpu", 1, 30, 0, 0, 0, 0, NULL, NULL, NULL, "out/runtime/py", 1800, NULL };
	struct optlist in;
	char *benchin[4];
	int exp = 0, r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the output: EXPECTED_JSON, VERIFY_JSON or ORACLE_JSON" },
		{ "--expected", NULL, OPT_FLAG, &exp, 0, 0, "run the CPU reference: the expected outputs" },
		{ "--baseline", NULL, OPT_FLAG, &o.baseline, 0, 0, "verify the spec's baseline: the GPU oracle" },
		{ "--cache-dir", "DIR", OPT_STR, &o.cachedir, 0, 0, "where the secret lives (--expected; a candidate's hidden pool, cached there)" },
		{ "--no-bench", NULL, OPT_FLAG, &o.nobench, 0, 0, "--expected without the bench sizes, nor hidden ones larger than "
		  "the verify sizes (checking specs)" },
		{ "--python-env", "DIR", OPT_STR, &o.pyenv, 0, 0, "a Python reference's environment (--expected; a candidate's hidden pool)" },
		{ "--ref-seconds", "S", OPT_INT, &o.refseconds, 1, 86400, "--expected: the reference's wall clock, its "
		  "runs together (default 1800); past it the reference failed" },
		OPTS_GPU(&o.gpus, &o.lockdir, &o.timeout),
		OPTS_PYTHON(&o.gpupython, &o.pyharness),
		{ "--status", "FILE", OPT_STR, &o.status, 0, 0, "note the GPU lease in the build's status (out/status.json)" },
		{ "--sanitize", NULL, OPT_FLAG, &o.sanitize, 0, 0,
		  "also compute-sanitizer memcheck and racecheck at the first verify size, when found" },
		{ "--bench", NULL, OPT_FLAG, &o.bench, 0, 0,
		  "then bench, in this process and the candidate's harness (the outputs are arguments)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 8, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (o.bench) {
		if (exp || o.baseline || (in.n != 6 && in.n != 8))
			optdie(&spec, "--bench needs -o VERIFY_JSON and BENCH_JSON TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON "
			       "CALIBRATION_JSON [ORACLE_JSON BASELINE_JSON]");
		benchin[0] = in.v[0];
		benchin[1] = in.v[1];
		benchin[2] = in.v[5];
		benchin[3] = in.n == 8 ? in.v[7] : NULL;
		o.benchin = benchin;
	}
	if (!o.out)
		optdie(&spec, "need -o");
	if (exp && in.n != 2)
		optdie(&spec, "--expected needs TASK_JSON and REFERENCE");
	if (!exp && o.baseline && in.n != 4)
		optdie(&spec, "--baseline needs TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO");
	if (!exp && !o.baseline && !o.bench && in.n != 4 && in.n != 5)
		optdie(&spec, "need TASK_JSON COMPILE_JSON HARNESS EXPECTED_JSON [ORACLE_JSON]");
	if (jailweak())
		die(EXIT_USAGE, "%s", jailweak());
	hpython(o.gpupython, o.pyharness);
	r = exp ? expected(&o, in.v[0], in.v[1])
	    : o.baseline ? candidate(&o, in.v[0], NULL, in.v[1], in.v[2], NULL, in.v[3])
	    : o.bench ? candidate(&o, in.v[1], in.v[2], in.v[3], in.v[4], in.n == 8 ? in.v[6] : NULL, NULL) /* execs bench */
	    : candidate(&o, in.v[0], in.v[1], in.v[2], in.v[3], in.v[4], NULL);
	optfree(&in);
	return r;
}
