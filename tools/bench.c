/*
 * bench - time a verified candidate, and its baseline, with a clock the
 * candidate cannot touch
 *
 * usage: bench [options] -o BENCH_JSON TASK_JSON VERIFY_JSON COMPILE_JSON HARNESS
 *              EXPECTED_JSON CALIBRATION_JSON [BASELINE_JSON]
 *
 * Runs only candidates that verify found correct. For each bench size the
 * sandboxed harness keeps three input sets (drawn from the seeds in
 * EXPECTED_JSON) pristine on the device and, before every call, copies one
 * of them into one of two groups of argument buffers (so both contents
 * and pointers change), poisons the outputs, flushes the L2 (a memset over
 * twice its size) and synchronizes the device; CUDA events bracket the
 * call alone, and the host clock covers it up to a full device
 * synchronize.
 *
 *  - correctness at the bench size: the first set's outputs are checked
 *    against the reference's sampled elements (when the reference could
 *    afford the size), the other sets against their own first output;
 *    up to 8 calls are held on the device, fetched after timing and
 *    checked again: the two probes, then timed calls each with
 *    probability 1/10, decided after it returns (defeats caching and
 *    phase detection);
 *  - warm-up by time (25 ms), then timed calls until the interquartile
 *    range is within 2% of the median (at least 20 calls, at most 300 or
 *    3 s of calls); median, quartiles, mean and count are recorded;
 *  - the first call on never-seen inputs is timed separately: if it is
 *    far slower than repeats, results are probably cached (review flag);
 *    a host time far above the event time means work outside the timed
 *    stream (review flag); event times that add up to more than the
 *    wall-clock time around them are forged (invalid).
 *
 * Each case records where this tool's time went, in seconds: drawing the
 * inputs (before the GPU is taken), starting the harness (CUDA context,
 * loading), setting up the sets on the device, the calls, the checks.
 *
 * The baseline is timed the same way, once per variant:
 *   bench --baseline -o BASELINE_JSON TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO
 * (BASELINE_SO: the spec's baseline built by compile --baseline); with
 * BASELINE_JSON a candidate's record gets speedup = baseline / candidate.
 * The % of speed-of-light uses the spec's flops and bytes against the
 * device's measured peak (CALIBRATION_JSON, from bench --calibrate).
 * Speedup above 10x or SOL above 100% is flagged for review.
 *
 *   bench --calibrate -o CALIBRATION_JSON CALIBRATE_PROGRAM
 * measures the GPU once per build (copy bandwidth, fp32 and fp64 FMA peak,
 * bf16 tensor-core GEMM through cuBLAS, the peak used for f16, bf16 and fp8
 * too); without a GPU it records none.
 *
 * options:
 *   --gpus N, --lock-dir DIR   GPU slots, as verify
 *   --timeout S                per call (default 30)
 *   -h, --help
 *
 * Exit: 0 written; 1 infrastructure (GPU lost); 2 bad usage or input.
 */
#include <dlfcn.h>
#include <math.h>
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
	"usage: bench [--gpus N] [--lock-dir DIR] [--timeout S] -o BENCH_JSON TASK_JSON VERIFY_JSON\n"
	"             COMPILE_JSON HARNESS EXPECTED_JSON CALIBRATION_JSON [BASELINE_JSON]\n"
	"       bench --baseline [...] -o BASELINE_JSON TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO\n"
	"       bench --calibrate -o CALIBRATION_JSON CALIBRATE_PROGRAM\n";

enum { SETS = 3, MINCALLS = 20, MAXCALLS = 300, HOLDS = 8 };
static const double WARMUP_MS = 25, MAXTIMED_MS = 3000, SPREAD = 0.02;

struct opts {
	const char *out, *lockdir;
	int gpus, timeout;
};

/* ---------------------------------------------------------------- NVML */

/* SM clock and driver version through the driver's NVML, when present */
struct nvml {
	void *so;
	int (*init)(void);
	int (*handle)(unsigned, void **);
	int (*clock)(void *, int, unsigned *);
	int (*driver)(char *, unsigned);
	void *dev;
};

static void
nvmlopen(struct nvml *n, int device)
{
	memset(n, 0, sizeof *n);
	n->so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->so)
		return;
	*(void **)&n->init = dlsym(n->so, "nvmlInit_v2");
	*(void **)&n->handle = dlsym(n->so, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->clock = dlsym(n->so, "nvmlDeviceGetClockInfo");
	*(void **)&n->driver = dlsym(n->so, "nvmlSystemGetDriverVersion");
	if (!n->init || !n->handle || !n->clock || n->init() != 0 || n->handle((unsigned)device, &n->dev) != 0)
		n->dev = NULL;
}

static int
smclock(struct nvml *n)
{
	unsigned mhz = 0;

	return n->dev && n->clock(n->dev, 1 /* NVML_CLOCK_SM */, &mhz) == 0 ? (int)mhz : -1;
}

/* ---------------------------------------------------------- statistics */

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int i = (int)pos;

	if (n == 0)
		return NAN;
	if (i >= n - 1)
		return sorted[n - 1];
	return sorted[i] + (pos - i) * (sorted[i + 1] - sorted[i]);
}

static json_t *
stats(const double *v, int n, const double *host)
{
	double *s = xmalloc((size_t)(n + 1) * sizeof *s), *h = xmalloc((size_t)(n + 1) * sizeof *h), sum = 0;
	json_t *j;
	int i;

	for (i = 0; i < n; i++) {
		s[i] = v[i];
		h[i] = host[i];
		sum += v[i];
	}
	qsort(s, (size_t)n, sizeof *s, cmpd);
	qsort(h, (size_t)n, sizeof *h, cmpd);
	j = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:f}", "median_ms", quantile(s, n, 0.5),
	              "q1_ms", quantile(s, n, 0.25), "q3_ms", quantile(s, n, 0.75),
	              "mean_ms", n ? sum / n : 0, "min_ms", n ? s[0] : 0, "max_ms", n ? s[n - 1] : 0,
	              "count", n, "host_median_ms", quantile(h, n, 0.5));
	free(s);
	free(h);
	return j;
}

static int
stable(const double *v, int n)
{
	double *s;
	double q1, q3, med;

	if (n < MINCALLS)
		return 0;
	s = xmalloc((size_t)n * sizeof *s);
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmpd);
	q1 = quantile(s, n, 0.25);
	q3 = quantile(s, n, 0.75);
	med = quantile(s, n, 0.5);
	free(s);
	return med > 0 && (q3 - q1) / med <= SPREAD;
}

/* ---------------------------------------------------------------- timing */

struct timing {
	json_t *stats;           /* median etc. of the repeats */
	double probe_ms[SETS];   /* first calls on never-seen sets */
	double median_ms, host_ms, event_sum, wall_ms;
	double phase[4];         /* seconds: start (CUDA context, load), setup, timed calls, output checks */
	int fetched, checked_ok;
	char problem[1024];      /* a failure, for feedback; empty when fine */
	const char *status;      /* measured, mismatch, crash, timeout, invalid */
};

struct bcase {
	struct child ch;              /* its shared memory, made before the GPU is taken */
	const struct task *t;
	const struct tcase *c;
	size_t inoff[SETS][MAXARGS], outoff[MAXARGS];
	void *golden[SETS][MAXARGS];  /* outputs of each set, as first seen */
	size_t binbase;               /* where in expected.bin the bytes read start */
};

static double
randu(void)
{
	return (double)random() / ((double)RAND_MAX + 1.0);
}

static int
reply(struct child *ch, char *line, size_t cap, int timeout, struct timing *tm)
{
	int r = childread(ch, line, cap, timeout);

	if (r == -1) {
		tm->status = "timeout";
		snprintf(tm->problem, sizeof tm->problem, "a timed call did not finish within %d s", timeout);
		return -1;
	}
	if (r == -2) {
		tm->status = "crash";
		snprintf(tm->problem, sizeof tm->problem, "the process running the kernel died during timing");
		return -1;
	}
	if (!strncmp(line, "cuda ", 5)) {
		if (lostgpu(atoi(line + 5)))
			die(EXIT_RETRY, "the GPU failed: %s", line);
		tm->status = "crash";
		snprintf(tm->problem, sizeof tm->problem, "CUDA error during timing: %s", line + 5);
		return -1;
	}
	if (!strncmp(line, "canary", 6)) {
		tm->status = "crash";
		snprintf(tm->problem, sizeof tm->problem, "the kernel wrote past the end of a tensor at the bench size");
		return -1;
	}
	if (!strncmp(line, "error", 5))
		die(EXIT_RETRY, "the harness rejected a command: %s", line);
	return 0;
}

/*
 * Fetch the outputs of group 0 (hold < 0) or of a held copy, and compare
 * them with set s's golden outputs; the first outputs seen for a set
 * become its golden.
 */
static int
fetchcheck(struct bcase *b, int s, int hold, int timeout, struct timing *tm)
{
	struct child *ch = &b->ch;
	char line[1024];
	struct buf cmd;
	int i;

	bufinit(&cmd, 1 << 14);
	if (hold < 0)
		bufprintf(&cmd, "bfetch 0");
	else
		bufprintf(&cmd, "bfetchhold %d", hold);
	for (i = 0; i < b->t->nargs; i++)
		if (istensor(&b->t->args[i]))
			bufprintf(&cmd, " %zu", b->outoff[i]);
	childsend(ch, "%s", cmd.s);
	buffree(&cmd);
	if (reply(ch, line, sizeof line, timeout, tm) < 0)
		return -1;
	tm->fetched++;
	for (i = 0; i < b->t->nargs; i++) {
		const struct targ *a = &b->t->args[i];
		size_t n = tbytes(b->t, b->c, i);
		if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
			continue;
		if (!b->golden[s][i]) { /* the first output seen for this set */
			b->golden[s][i] = xmalloc(n + 1);
			memcpy(b->golden[s][i], ch->shm + b->outoff[i], n);
			continue;
		}
		if (memcmp(b->golden[s][i], ch->shm + b->outoff[i], n)) {
			/* not the same bytes: the same values within tolerance, then */
			struct cmpres r;
			void *want = xmalloc((size_t)b->c->numel[i] * (size_t)refsize(a->dt) + 1);
			toref(b->golden[s][i], a->dt, want, (size_t)b->c->numel[i]);
			compare(ch->shm + b->outoff[i], a->dt, want, b->c->numel[i], a, &r);
			free(want);
			if (!r.pass) {
				tm->status = "invalid";
				snprintf(tm->problem, sizeof tm->problem, "a timed call on input set %d gave different "
				         "outputs ('%s': %lld elements differ) than another call on the same inputs: "
				         "results must not depend on earlier calls", s, a->name, (long long)r.bad);
				return -1;
			}
		}
	}
	tm->checked_ok++;
	return 0;
}

/* the reference's sampled elements for set 0 */
static int
checksamples(struct bcase *b, json_t *set, const char *bin, size_t binlen, struct timing *tm)
{
	size_t off = (size_t)jint(set, "offset", 0) - b->binbase;
	int m = (int)jint(set, "samples", 0), i;

	if (!json_object_get(set, "offset"))
		return 0;
	for (i = 0; i < b->t->nargs; i++) {
		const struct targ *a = &b->t->args[i];
		int64_t n = b->c->numel[i], k, cnt = n < m ? n : m, wrong = 0;
		double num = 0, den = 0;
		if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
			continue;
		if (off + (size_t)cnt * 16 > binlen)
			die(EXIT_USAGE, "expected.bin is shorter than expected.json says");
		for (k = 0; k < cnt; k++) {
			int64_t idx;
			double w, g;
			memcpy(&idx, bin + off + (size_t)k * 16, 8);
			memcpy(&w, bin + off + (size_t)k * 16 + 8, 8);
			if (idx < 0 || idx >= n)
				die(EXIT_USAGE, "expected.bin has a sample index out of range");
			g = dtget(b->golden[0][i], a->dt, (size_t)idx);
			if (!elemok(g, w, a->dt, a))
				wrong++; /* NaN where a value belongs (unwritten) included */
			if (isfinite(w) && isfinite(g)) {
				num += (g - w) * (g - w);
				den += w * w;
			}
		}
		off += (size_t)cnt * 16;
		if (wrong || !normok(num, den, a)) {
			tm->status = "mismatch";
			snprintf(tm->problem, sizeof tm->problem, "at the bench size %s, output '%s' is wrong: %lld of "
			         "%lld sampled elements differ from the reference (relative L2 error %.3g). It passed at "
			         "the smaller sizes: check what changes with size (grid limits, 32-bit index overflow, "
			         "shared-memory tiling).", b->c->label, a->name, (long long)wrong, (long long)cnt,
			         den > 0 ? sqrt(num / den) : sqrt(num));
			return -1;
		}
	}
	return 0;
}

/* run one .so (candidate or baseline) through the timing protocol */
static void
timeso(const struct opts *o, struct bcase *b, const char *harness, const char *so, const char *entry,
       int device, json_t *set0, const char *bin, size_t binlen, struct timing *tm, json_t *rec)
{
	struct child *ch = &b->ch;
	char err[1024], line[4096];
	double ev[MAXCALLS + SETS], host[MAXCALLS + SETS], elapsed = 0, t0, tw;
	int n = 0, i, s, nholds = 0, holdset[HOLDS];
	struct buf cmd;

	memset(tm, 0, sizeof *tm);
	tm->status = "measured";
	t0 = now();
	if (childstart(ch, harness, so, entry, device, o->timeout * 4 + 120, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	if (rec)
		json_object_set_new(rec, "isolation", json_string(ch->isolation));
	{
		struct gpuinfo g;
		const char *v = harnessready(ch, &g, err, sizeof err);
		if (v) {
			tm->status = !strcmp(v, "timeout") ? "timeout" : !strcmp(v, "sandbox") ? "invalid" : "crash";
			snprintf(tm->problem, sizeof tm->problem, "could not load for timing: %.900s", err);
			goto out;
		}
	}
	tm->phase[0] = now() - t0;
	t0 = now();
	/* the sets (already in shared memory), pristine on the device */
	bufinit(&cmd, 1 << 16);
	bufprintf(&cmd, "bsetup %d %d", SETS, ntensors(b->t));
	for (i = 0; i < b->t->nargs; i++) {
		const struct targ *a = &b->t->args[i];
		if (!istensor(a))
			continue;
		bufprintf(&cmd, " %d %d %lld", a->kind, dtinfos[a->dt].size, (long long)b->c->numel[i]);
		for (s = 0; s < SETS; s++)
			bufprintf(&cmd, " %zu", a->kind == ARG_OUT ? (size_t)0 : b->inoff[s][i]);
	}
	casetail(&cmd, b->c);
	childsend(ch, "%s", cmd.s);
	buffree(&cmd);
	if (reply(ch, line, sizeof line, 300, tm) < 0)
		goto out;
	tm->phase[1] = now() - t0;

	/* set 0: the first call is checked against the reference, then warm-up */
	childsend(ch, "bcall 0 0");
	if (reply(ch, line, sizeof line, o->timeout, tm) < 0 || fetchcheck(b, 0, -1, o->timeout, tm) < 0)
		goto out;
	if (set0 && checksamples(b, set0, bin, binlen, tm) < 0)
		goto out;
	tm->phase[3] = now() - t0 - tm->phase[1];
	tw = now();
	for (t0 = now(); (now() - t0) * 1000 < WARMUP_MS || n < 3; n++) {
		childsend(ch, "bcall 0 %d", n & 1);
		if (reply(ch, line, sizeof line, o->timeout, tm) < 0)
			goto out;
	}
	/*
	 * Timed calls: first the never-seen sets (probes), then the sets at
	 * random. Checks are decided after a call returns; the outputs are
	 * copied aside on the device and fetched after the loop, so that the
	 * GPU does not idle between timed calls.
	 */
	n = 0;
	t0 = now();
	for (;;) {
		int g = random() & 1;
		double e, h;
		s = n < SETS - 1 ? n + 1 : (int)(randu() * SETS);
		childsend(ch, "bcall %d %d", s, g);
		if (reply(ch, line, sizeof line, o->timeout, tm) < 0)
			goto out;
		if (sscanf(line, "t %lf %lf", &e, &h) != 2 || !(e >= 0) || !(h >= 0)) {
			tm->status = "invalid";
			snprintf(tm->problem, sizeof tm->problem, "the harness's timing reply was tampered with");
			goto out;
		}
		if (n < SETS - 1)
			tm->probe_ms[n + 1] = e;
		ev[n] = e;
		host[n] = h;
		tm->event_sum += e;
		if (nholds < HOLDS && (n < SETS - 1 || randu() < 0.1)) {
			childsend(ch, "bhold %d %d", g, nholds);
			if (reply(ch, line, sizeof line, o->timeout, tm) < 0)
				goto out;
			holdset[nholds++] = s;
		}
		n++;
		elapsed = (now() - t0) * 1000;
		if (n >= MAXCALLS || (n >= MINCALLS && (elapsed > MAXTIMED_MS || stable(ev + SETS - 1, n - SETS + 1))))
			break;
	}
	tm->phase[2] = now() - tw;
	t0 = now();
	for (i = 0; i < nholds; i++)
		if (fetchcheck(b, holdset[i], i, o->timeout, tm) < 0)
			goto out;
	tm->phase[3] += now() - t0;
	tm->wall_ms = elapsed;
	if (tm->event_sum > tm->wall_ms * 1.01 + 1) {
		tm->status = "invalid";
		snprintf(tm->problem, sizeof tm->problem, "the timed calls claim %.3f ms in all, more than the %.3f ms "
		         "that passed: the timer was tampered with", tm->event_sum, tm->wall_ms);
		goto out;
	}
	/* the repeats, without the probes */
	tm->stats = stats(ev + SETS - 1, n - SETS + 1, host + SETS - 1);
	tm->median_ms = jnum(tm->stats, "median_ms", 0);
	tm->host_ms = jnum(tm->stats, "host_median_ms", 0);
out:
	childstop(ch);
}

/* ------------------------------------------------------------ the case */

static int
emptyfile(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && st.st_size == 0;
}

static const char *
peakfor(const struct task *t)
{
	int i;

	for (i = 0; i < t->nargs; i++)
		if (istensor(&t->args[i])) {
			int dt = t->args[i].dt;
			if (dt == DT_F16 || dt == DT_BF16 || dt == DT_F8E4M3 || dt == DT_F8E5M2)
				return "tensor_tflops";
			if (dt == DT_F64)
				return "fp64_tflops";
			return "fp32_tflops";
		}
	return "fp32_tflops";
}

static void
addreview(json_t *rec, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	json_t *r = json_object_get(rec, "review");

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!r)
		json_object_set_new(rec, "review", r = json_array());
	json_array_append_new(r, json_string(msg));
}

static int
calibrate(const char *out, const char *program)
{
	json_t *rec;
	char err[512];

	if (!hasgpu()) {
		rec = json_pack("{s:n}", "gpu");
	} else {
		/* our own program, trusted: run it directly and read its JSON */
		char *tmp = xasprintf("%s.run.%ld", out, (long)getpid());
		char *cmd = xasprintf("'%s' > '%s'", program, tmp);
		int st = system(cmd);
		free(cmd);
		if (st != 0)
			die(EXIT_RETRY, "the calibration program failed (%d)", st);
		rec = jload(tmp, err, sizeof err);
		unlink(tmp);
		free(tmp);
		if (!rec)
			die(EXIT_RETRY, "calibration: %s", err);
	}
	if (jwrite(out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	json_decref(rec);
	return 0;
}

/* lay one bench case out in shared memory and draw its input sets into it */
static void
casesetup(struct bcase *b, const struct task *t, int c, json_t *sets)
{
	size_t off;
	char err[512];
	int s, i;

	memset(b, 0, sizeof *b);
	b->t = t;
	b->c = &t->bench[c];
	if (json_array_size(sets) < SETS)
		die(EXIT_USAGE, "bench case %d has %zu input sets, not %d", c, json_array_size(sets), SETS);
	off = layoutsets(t, b->c, SETS, b->inoff, b->outoff);
	if (childshm(&b->ch, off, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	for (s = 0; s < SETS; s++) {
		void *dst[MAXARGS] = { 0 };
		for (i = 0; i < t->nargs; i++)
			if (t->args[i].kind == ARG_IN || t->args[i].kind == ARG_INOUT)
				dst[i] = b->ch.shm + b->inoff[s][i];
		drawinto(t, b->c, json_object_get(json_array_get(sets, (size_t)s), "draws"), dst);
	}
}

static void
casefree(struct bcase *b)
{
	int s, i;

	for (s = 0; s < SETS; s++)
		for (i = 0; i < MAXARGS; i++)
			free(b->golden[s][i]);
}

/* the baseline, timed once per variant */
static int
timebaseline(const struct opts *o, const char *taskpath, const char *harness, const char *exppath, const char *so)
{
	struct task t;
	char err[1024];
	json_t *rec = json_object(), *expj, *cases = json_array();
	int c, device = 0, lockfd;

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	json_object_set_new(rec, "cases", cases);
	if (emptyfile(so)) {
		/* the baseline did not build on this machine: its log says why */
		char *lp = xasprintf("%s.log", so);
		struct buf l;
		bufinit(&l, 4096);
		readfile(lp, &l);
		json_object_set_new(rec, "error", json_string(l.n ? l.s : "the baseline did not build"));
		buffree(&l);
		free(lp);
	} else if (!hasgpu()) {
		json_object_set_new(rec, "status", json_string("skipped: no CUDA device"));
	} else {
		expj = jmustload(exppath);
		for (c = 0; c < t.nbench; c++) {
			struct bcase b;
			struct timing tm;
			casesetup(&b, &t, c, json_object_get(json_array_get(json_object_get(expj, "bench"), (size_t)c), "sets"));
			lockfd = gpulock(o->lockdir, o->gpus, &device);
			if (lockfd < 0)
				die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o->lockdir);
			timeso(o, &b, harness, so, "baseline", device, NULL, NULL, 0, &tm, NULL);
			close(lockfd);
			if (!strcmp(tm.status, "measured"))
				json_array_append_new(cases, json_pack("{s:s,s:o}", "case", b.c->label, "baseline", tm.stats));
			else
				json_array_append_new(cases, json_pack("{s:s,s:s}", "case", b.c->label, "error", tm.problem));
			casefree(&b);
		}
		json_object_set_new(rec, "status", json_string("measured"));
		json_decref(expj);
	}
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(rec);
	taskfree(&t);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "out/gpu", 1, 30 };
	const char *in[7] = { 0 };
	int i, nin = 0, cal = 0, base = 0, device = 0, lockfd, c;
	struct task t;
	json_t *rec, *ver, *expj, *calib, *cases, *baseline = NULL;
	char err[1024];
	struct nvml nv;
	struct buf bin;
	double speedups = 0, gpusec = 0, t0, tin;
	size_t binbase;
	int nspeed = 0;
	struct buf feedback;

	setprogname(argv[0]);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
#define VAL argval(argc, argv, &i, usage)
		if (arghelp(s, usage)) return 0;
		else if (!strcmp(s, "-o")) o.out = VAL;
		else if (!strcmp(s, "--lock-dir")) o.lockdir = VAL;
		else if (!strcmp(s, "--gpus")) o.gpus = intarg(VAL, s, 1, 1024);
		else if (!strcmp(s, "--timeout")) o.timeout = intarg(VAL, s, 1, 86400);
		else if (!strcmp(s, "--calibrate")) cal = 1;
		else if (!strcmp(s, "--baseline")) base = 1;
		else arginput(s, in, &nin, 7, usage);
#undef VAL
	}
	if (!o.out)
		die(EXIT_USAGE, "need -o\n%s", usage);
	if (cal) {
		if (nin != 1)
			die(EXIT_USAGE, "--calibrate needs the calibration program\n%s", usage);
		return calibrate(o.out, in[0]);
	}
	if (base) {
		if (nin != 4)
			die(EXIT_USAGE, "--baseline needs TASK_JSON HARNESS EXPECTED_JSON BASELINE_SO\n%s", usage);
		return timebaseline(&o, in[0], in[1], in[2], in[3]);
	}
	if (nin < 6)
		die(EXIT_USAGE, "need TASK_JSON VERIFY_JSON COMPILE_JSON HARNESS EXPECTED_JSON CALIBRATION_JSON\n%s", usage);
	if (nin == 7 && !(baseline = jload(in[6], err, sizeof err)))
		die(EXIT_USAGE, "%s", err);

	if (taskload(in[0], &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	ver = jmustload(in[1]);
	rec = json_object();
	bufinit(&feedback, 1 << 16);
	if (strcmp(jstr(ver, "verdict", ""), "correct")) {
		/* only verified candidates are timed */
		json_object_set_new(rec, "status", json_string(!strncmp(jstr(ver, "verdict", ""), "skipped", 7)
		                    ? jstr(ver, "verdict", "") : !strcmp(jstr(ver, "verdict", ""), "done") ? "done" : "not_verified"));
		goto write;
	}
	if (!(expj = jload(in[4], err, sizeof err)) || !(calib = jload(in[5], err, sizeof err)))
		die(EXIT_USAGE, "%s", err);
	{
		char *binpath = sibling(in[4], "expected.bin");
		/* only the reference's samples at the bench sizes, at its end: the
		 * outputs at the verify sizes before them can be large */
		size_t k;
		json_t *bc;
		binbase = SIZE_MAX;
		json_array_foreach(json_object_get(expj, "bench"), k, bc) {
			json_t *off = json_object_get(json_array_get(json_object_get(bc, "sets"), 0), "offset");
			if (json_is_integer(off) && (size_t)json_integer_value(off) < binbase)
				binbase = (size_t)json_integer_value(off);
		}
		bufinit(&bin, (size_t)1 << 34);
		if (binbase < SIZE_MAX && readfrom(binpath, (off_t)binbase, &bin) < 0)
			die(EXIT_USAGE, "cannot read '%s':", binpath);
		free(binpath);
	}
	srandom((unsigned)(getpid() ^ (unsigned)(now() * 1e6)));
	memset(&nv, 0, sizeof nv);
	cases = json_array();
	json_object_set_new(rec, "cases", cases);
	json_object_set_new(rec, "status", json_string("measured"));
	for (c = 0; c < t.nbench; c++) {
		struct bcase b;
		struct timing cand;
		json_t *bc = json_array_get(json_object_get(expj, "bench"), (size_t)c), *cr, *sets, *set0 = NULL;
		char *so = sibling(in[2], "cand.so");

		sets = json_object_get(bc, "sets");
		t0 = now();
		casesetup(&b, &t, c, sets);
		b.binbase = binbase;
		tin = now() - t0;
		/* the GPU is held only while the candidate runs */
		lockfd = gpulock(o.lockdir, o.gpus, &device);
		if (lockfd < 0)
			die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o.lockdir);
		if (c == 0) { /* the GPU this candidate got: its clock and driver */
			char drv[80] = "";
			nvmlopen(&nv, device);
			if (nv.driver)
				nv.driver(drv, sizeof drv);
			json_object_set_new(rec, "gpu", json_pack("{s:O?,s:i,s:s}", "name",
			                    json_object_get(json_object_get(ver, "gpu"), "name"), "sm_clock_mhz_start",
			                    smclock(&nv), "driver", drv));
			json_object_update_missing(json_object_get(rec, "gpu"), json_object_get(ver, "gpu"));
		}
		t0 = now();
		set0 = json_array_get(sets, 0);
		cr = json_pack("{s:s,s:b}", "case", b.c->label, "reference_checked", json_object_get(set0, "offset") != NULL);
		json_array_append_new(cases, cr);

		timeso(&o, &b, in[3], so, t.entry, device, set0, bin.s, bin.n, &cand, rec);
		close(lockfd);
		gpusec += now() - t0;
		free(so);
		if (strcmp(cand.status, "measured")) {
			json_object_set_new(rec, "status", json_string(cand.status));
			bufprintf(&feedback, "Timing at %s failed: %s.\n", b.c->label, cand.problem);
			casefree(&b);
			break;
		}
		json_object_set(cr, "candidate", cand.stats);
		json_object_set_new(cr, "probe_ms", json_pack("[f,f]", cand.probe_ms[1], cand.probe_ms[2]));
		json_object_set_new(cr, "checks", json_pack("{s:i,s:i}", "fetched", cand.fetched, "passed", cand.checked_ok));
		/* where this tool's time went (a measurement, as the timings) */
		json_object_set_new(cr, "seconds", json_pack("{s:f,s:f,s:f,s:f,s:f}", "inputs", tin, "start", cand.phase[0],
		                    "setup", cand.phase[1], "calls", cand.phase[2], "checks", cand.phase[3]));
		{
			double probe = fmin(cand.probe_ms[1], cand.probe_ms[2]);
			if (probe > 1.5 * cand.median_ms && probe - cand.median_ms > 0.02)
				addreview(rec, "at %s the first calls on new inputs took %.4f ms, repeats %.4f ms: results may "
				          "be cached between calls", b.c->label, probe, cand.median_ms);
			if (cand.host_ms > 1.5 * cand.median_ms + 0.05)
				addreview(rec, "at %s the host saw %.4f ms per call but the events %.4f ms: work may run "
				          "outside the timed stream", b.c->label, cand.host_ms, cand.median_ms);
		}
		/* speed of light from the spec's cost and the measured peaks */
		{
			json_t *cal = json_object_get(calib, "gpu") ? calib : NULL;
			/* the memory roof: the faster of copying and streaming reads */
			double peak = jnum(cal, peakfor(&t), 0) * 1e12,
			       bw = fmax(jnum(cal, "copy_gbs", 0), jnum(cal, "read_gbs", 0)) * 1e9;
			if (peak > 0 && bw > 0) {
				double sol = fmax(b.c->flops / peak, b.c->bytes / bw) * 1e3;
				double pct = sol / cand.median_ms * 100;
				json_object_set_new(cr, "sol", json_pack("{s:f,s:f,s:s,s:f,s:f,s:f,s:f}", "flops", b.c->flops,
				                    "bytes", b.c->bytes, "peak", peakfor(&t), "peak_tflops", peak / 1e12,
				                    "memory_gbs", bw / 1e9, "sol_ms", sol, "percent", pct));
				if (pct > 100)
					addreview(rec, "at %s the kernel runs at %.0f%% of the speed of light", b.c->label, pct);
				bufprintf(&feedback, "At %s the kernel takes %.4f ms (median of %d timed calls), %.1f%% of the "
				          "speed of light (%.4f ms from %.3g flops and %.3g bytes).", b.c->label, cand.median_ms,
				          (int)jint(cand.stats, "count", 0), pct, sol, b.c->flops, b.c->bytes);
			} else {
				bufprintf(&feedback, "At %s the kernel takes %.4f ms (median).", b.c->label, cand.median_ms);
			}
		}
		if (baseline) {
			json_t *bcase = json_array_get(json_object_get(baseline, "cases"), (size_t)c);
			double bm = jnum(json_object_get(bcase, "baseline"), "median_ms", 0);
			if (bm > 0) {
				double sp = bm / cand.median_ms;
				json_object_set(cr, "baseline", json_object_get(bcase, "baseline"));
				json_object_set_new(cr, "speedup", json_real(sp));
				speedups += log(sp);
				nspeed++;
				if (sp > 10)
					addreview(rec, "at %s the speedup over the baseline is %.1fx", b.c->label, sp);
				bufprintf(&feedback, " The baseline takes %.4f ms: speedup %.2fx.", bm, sp);
			} else {
				json_object_set_new(cr, "baseline_error", json_string(jstr(bcase, "error",
				                    jstr(baseline, "error", "the baseline was not measured"))));
			}
		}
		bufputs(&feedback, "\n");
		json_decref(cand.stats);
		casefree(&b);
	}
	if (nspeed)
		json_object_set_new(rec, "speedup", json_real(exp(speedups / nspeed)));
	json_object_set_new(json_object_get(rec, "gpu"), "sm_clock_mhz_end", json_integer(smclock(&nv)));
	json_object_set_new(rec, "gpu_seconds", json_real(gpusec));
	buffree(&bin);
	json_decref(expj);
	json_decref(calib);
write:
	json_object_set_new(rec, "feedback", json_string(feedback.s));
	if (jwrite(o.out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o.out);
	json_decref(rec);
	json_decref(ver);
	json_decref(baseline);
	buffree(&feedback);
	taskfree(&t);
	return 0;
}
