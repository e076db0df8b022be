/*
 * NAME
 *     bench - time a verified candidate, and its baseline, honestly
 *
 * SYNOPSIS
 *     bench [options] -o BENCH_JSON TASK_JSON VERIFY_JSON COMPILE_JSON HARNESS
 *           CALIBRATION_JSON [BASELINE_JSON]
 *     bench --baseline [options] -o BASELINE_JSON TASK_JSON HARNESS ORACLE_JSON BASELINE_SO
 *     bench --calibrate [options] -o CALIBRATION_JSON CALIBRATE_PROGRAM
 *
 * DESCRIPTION
 *     Times only candidates that verify found correct. verify --bench
 *     execs it and hands over its harness and GPU lease. At each bench
 *     size the sandboxed harness makes every call on fresh inputs drawn on
 *     the device, with the L2 flushed and a launch cover before it, and
 *     CUDA events around the call alone. Calls run until the median is
 *     stable. Any call may be checked: a uniform sample of the calls and
 *     the last two are kept on the device, hashed, and compared by the
 *     spec's baseline, the oracle, in a harness of its own. The parent
 *     times every call's round trip too, against calls that run nothing.
 *     BENCH_JSON records each case's status, median, quartiles, the
 *     speedup over BASELINE_JSON (and over its torch.compile, a Python
 *     baseline's), % of speed of light, review flags and where the time
 *     went; speedup and speedup_compile are their geometric means over
 *     the cases.
 *     --baseline times the spec's baseline once per variant, without the
 *     checks (it is trusted), and keeps verify --baseline's verdict.
 *     --calibrate measures every GPU's ceilings once per build.
 *
 * FILES
 *     BENCH_JSON (bench.json), baseline.json, out/gpu/calibration.json;
 *     the GPU lock files in --lock-dir.
 *
 * EXIT STATUS
 *     0 written, whatever the candidate did; 1 infrastructure (the GPU
 *     lost, cannot write); 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/verification.md
 */
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/task.h"
#include "compare.h"
#include "../lib/draw.h"
#include "inputs.h"
#include "../lib/json.h"
#include "../lib/opts.h"
#include "proto.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/status.h"
#include "../jail/sandbox.h"
#include "../lib/tensor.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: bench [options] -o BENCH_JSON TASK_JSON VERIFY_JSON COMPILE_JSON HARNESS\n"
	"             CALIBRATION_JSON [BASELINE_JSON]\n"
	"       bench --baseline [options] -o BASELINE_JSON TASK_JSON HARNESS ORACLE_JSON BASELINE_SO\n"
	"       bench --calibrate [options] -o CALIBRATION_JSON CALIBRATE_PROGRAM\n";

enum { MINCALLS = 20, MAXCALLS = 300, MINPAIRS = 8, TAILCALLS = 2, CRAWLPAIRS = 2 };
static const double WARMUP_MS = 25, MAXTIMED_MS = 3000, SPREAD = 0.02, SOL_MARGIN = 1.05;
/* a candidate this many times slower than its baseline is timed on
 * MINPAIRS calls after two warm-up calls, each followed by a no-op (the
 * parent's clock keeps its pairs): its speedup needs no 1% */
static const double SLOWX = 10;
/* one whose first call takes, by the parent's clock, more than CRAWLX
 * times the baseline's median and more than CRAWL_MS (a student's one
 * block of threads over KernelBench's gigabytes: seconds a call) is timed
 * on CRAWLPAIRS calls after that one, if their events say it crawls too:
 * its speedup is below 0.01 whatever more calls would say, and a clock
 * that reads slow only harms it; calls that turn fast are timed in full */
static const double CRAWLX = 100, CRAWL_MS = 1000;

struct opts {
	const char *out, *lockdir;
	int gpus, timeout;
	const char *gpupython, *pyharness; /* Python entry points' (proto.h hpython) */
	const char *from;                  /* --harness-from: verify --bench's handover (proto.h hadopt) */
	const char *status;                /* --status FILE: the build's live status (lib/status.h) */
};

/* ---------------------------------------------------------------- NVML */

/* SM clock and driver version through the driver's NVML, when present */
struct nvml {
	void *so;
	int (*init)(void);
	int (*handle)(unsigned, void **);
	int (*byuuid)(const char *, void **);
	int (*uuid)(void *, char *, unsigned);
	int (*clock)(void *, int, unsigned *);
	int (*driver)(char *, unsigned);
	void *dev;
};

/* the leased device, as CUDA_VISIBLE_DEVICES names it: an index (NVML's
 * are the PCI order the harness is given too) or a GPU- UUID */
static void
nvmlopen(struct nvml *n, const char *device)
{
	char *end;
	long i = strtol(device, &end, 10);

	memset(n, 0, sizeof *n);
	n->so = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!n->so)
		return;
	*(void **)&n->init = dlsym(n->so, "nvmlInit_v2");
	*(void **)&n->handle = dlsym(n->so, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&n->byuuid = dlsym(n->so, "nvmlDeviceGetHandleByUUID");
	*(void **)&n->uuid = dlsym(n->so, "nvmlDeviceGetUUID");
	*(void **)&n->clock = dlsym(n->so, "nvmlDeviceGetClockInfo");
	*(void **)&n->driver = dlsym(n->so, "nvmlSystemGetDriverVersion");
	if (!n->init || !n->handle || !n->byuuid || !n->clock || n->init() != 0 ||
	    (*device && !*end && i >= 0 ? n->handle((unsigned)i, &n->dev) : !strncmp(device, "GPU-", 4)
	     ? n->byuuid(device, &n->dev) : -1) != 0)
		n->dev = NULL;
}

/* NVML's device is not the one the harness ran on (its CUDA UUID): no clocks from it */
static void
nvmlcheck(struct nvml *n, const char *uuid)
{
	char u[96] = "";

	if (n->dev && *uuid && n->uuid && (n->uuid(n->dev, u, sizeof u) != 0 || strcmp(u, uuid)))
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

static double
median(const double *v, int n)
{
	double *s = xmalloc((size_t)(n + 1) * sizeof *s), m;

	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmpd);
	m = quantile(s, n, 0.5);
	free(s);
	return m;
}

static json_t *
stats(const double *v, int n, const double *host, const double *wall)
{
	double *s = xmalloc((size_t)(n + 1) * sizeof *s), sum = 0;
	json_t *j;
	int i;

	for (i = 0; i < n; i++) {
		s[i] = v[i];
		sum += v[i];
	}
	qsort(s, (size_t)n, sizeof *s, cmpd);
	j = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:i,s:f,s:f}", "median_ms", quantile(s, n, 0.5),
	              "q1_ms", quantile(s, n, 0.25), "q3_ms", quantile(s, n, 0.75),
	              "mean_ms", n ? sum / n : 0, "min_ms", n ? s[0] : 0, "max_ms", n ? s[n - 1] : 0,
	              "count", n, "host_median_ms", median(host, n), "parent_median_ms", median(wall, n));
	free(s);
	return j;
}

/*
 * Enough timed calls: the interquartile range within SPREAD of the median,
 * or the median itself known that well (its distribution-free 95%
 * confidence interval, between the order statistics (n - 1.96 sqrt n) / 2
 * and 1 + (n + 1.96 sqrt n) / 2, at most SPREAD of it wide: ±1%). The
 * second settles a kernel whose work changes from call to call with the
 * inputs (a decode over random sequence lengths) or whose times have two
 * modes, where the spread alone never falls under 2%.
 */
static int
stable(const double *v, int n)
{
	double *s, q1, q3, med, lo, hi, half = 1.96 * sqrt((double)n);
	int ilo = (int)floor((n - half) / 2), ihi = (int)ceil(1 + (n + half) / 2);

	if (n < MINCALLS)
		return 0;
	s = xmalloc((size_t)n * sizeof *s);
	memcpy(s, v, (size_t)n * sizeof *s);
	qsort(s, (size_t)n, sizeof *s, cmpd);
	q1 = quantile(s, n, 0.25);
	q3 = quantile(s, n, 0.75);
	med = quantile(s, n, 0.5);
	lo = s[ilo < 1 ? 0 : ilo - 1]; /* the ranks count from 1 */
	hi = s[ihi > n ? n - 1 : ihi - 1];
	free(s);
	return med > 0 && ((q3 - q1) / med <= SPREAD || (hi - lo) / med <= SPREAD);
}

/* ------------------------------------------------------------- a case */

/* the parts of the checks, as the record names them (export and import:
 * of fetch, the kept calls' descriptor from the candidate's harness and
 * their copy into the oracle's) */
enum { CK_FETCH, CK_END, CK_ORACLE_START, CK_ORACLE_CASE, CK_ORACLE_CALLS, CK_COMPARE, CK_ORACLE_END, CK_EXPORT,
       CK_IMPORT, CK_N };
static const char *const checkpart[CK_N] = { "fetch", "end", "oracle_start", "oracle_case", "oracle_calls", "compare",
                                             "oracle_end", "export", "import" };

/* a call kept for the oracle: its inputs and its outputs' hash; its
 * outputs, fetched, at keptat(slot) in the shared memory */
struct held {
	int call;
	struct runin in;
	uint64_t hash;
};

struct timing {
	json_t *stats;               /* median etc. of the timed calls */
	double median_ms, host_ms, overhead_ms, event_sum, wall_sum;
	double excess[MAXCALLS];     /* a timed call's round trip less the next no-op's */
	int pairs;
	double phase[4];             /* seconds: start, setup, calls, checks */
	double check[CK_N];          /* the checks' seconds, by part */
	int calls, held, checked;
	int slow;                    /* timed on MINPAIRS calls: slower than bcase's slow_ms */
	int crawl;                   /* timed on CRAWLPAIRS: its first call past CRAWLX and CRAWL_MS */
	int restarted;               /* its harness, started before the lease, had ended: another */
	int early;                   /* the oracle loaded beside the candidate's calls */
	int ipc;                     /* the oracle reads the kept calls in the candidate's device memory */
	int quit;                    /* the candidate's harness killed (reaped later) */
	int fd;                      /* their device memory's descriptor, as the candidate's harness exported it */
	char noipc[512];             /* why they were fetched instead, where IPC was tried */
	char oraclewhy[640];         /* tm->oracle, where the oracle failed: why */
	unsigned char *kept;         /* the candidate's shared memory, kept after it ended */
	size_t keptlen, outbytes;    /* its size, and one call's outputs' */
	size_t stride;               /* between kept calls there: outbytes, page-rounded (proto.h hpin) */
	const char *oracle;          /* what judged the kept calls: the baseline, or nothing (why) */
	char problem[2048];          /* a failure, for feedback; empty when fine */
	enum status status;          /* measured, mismatch, invalid, or the harness's verdict (proto.h) */
	struct held keep[HOLDS_MAX];
};

/* what a bench case needs to know */
struct bcase {
	const struct opts *o;
	const struct task *t;
	const struct tcase *c;
	int ci, device;
	const char *harness;
	int check;                   /* a candidate's case: its outputs checked (0: the baseline's, timed alone) */
	const char *oracle;          /* the GPU oracle they are checked against, or NULL */
	double slow_ms;              /* SLOWX times the baseline's median, or 0 (no baseline) */
	size_t shm, made;            /* the shared memory, and what of it is made before the GPU is taken */
	size_t stride;               /* one call's outputs there, page-rounded (timing's) */
	unsigned char key[32];       /* this run's: every call's seeds */
	uint64_t rng;                /* the parent's choices (which calls are kept, which group) */
	struct harness *retire;      /* two: where the oracle's harness and the candidate's go once done
	                              * (hretire), to be reaped after the lease (a baseline's case,
	                              * which judges nothing and kills nothing, has none) */
};

static uint64_t
choose(struct bcase *b, uint64_t n)
{
	b->rng += 0x9e3779b97f4a7c15ull;
	return rt_mix(b->rng) % n;
}

/* a step that failed: the harness's verdict (crash, timeout, violation,
 * out_of_bounds, inputs_modified, load_error, no_room; a tampered reply is
 * invalid) and why; 1 */
static int
failed(struct timing *tm, const struct hres *r)
{
	tm->status = r->verdict == ST_SANDBOX ? ST_INVALID : r->verdict;
	snprintf(tm->problem, sizeof tm->problem, "%s", r->why);
	return 1;
}

static int
step(int rc, const struct hres *r, const struct harness *h, struct timing *tm)
{
	if (rc < 0)
		die(EXIT_RETRY, "%s", h->err);
	return rc ? failed(tm, r) : 0;
}

/* reservoir sampling: after call n (from 0) returned, keep it or not,
 * in one of the first holds - TAILCALLS slots; a tail call (tail: made
 * after the timed ones) always, in the next slot free */
static int
keep(struct bcase *b, struct harness *h, struct timing *tm, int n, int g, const struct runin *in,
     const struct hres *call, int tail)
{
	int sampled = h->holds - TAILCALLS;
	int slot = tail ? tm->held : n < sampled ? n : (int)choose(b, (uint64_t)n + 1);
	struct hres r;

	if (slot >= (tail ? h->holds : sampled))
		return 0;
	if (step(hhold(h, g, slot, &r), &r, h, tm))
		return -1;
	tm->keep[slot].call = n;
	tm->keep[slot].in = *in;
	tm->keep[slot].hash = call->hash;
	if (slot >= tm->held)
		tm->held = slot + 1;
	return 0;
}

/* after a timed call, at random, a call that runs nothing on the same
 * inputs (drawing them costs what it cost: the distribution, not the
 * seed, sets that): its round trip is the harness's own work */
static int
noop(struct bcase *b, struct harness *h, struct timing *tm, int g, const struct runin *in, double wall, double *noops)
{
	struct hres r;

	if (choose(b, 2) && !(b->slow_ms > 0 && wall > b->slow_ms))
		return 0;
	if (step(hcall(h, g, 1, in, &r), &r, h, tm))
		return -1;
	noops[tm->pairs] = r.wall_ms;
	tm->excess[tm->pairs++] = wall - r.wall_ms;
	return 0;
}

/* call n's inputs: drawn fast (draw.h rt_fastvalue), as nothing but
 * this device and the oracle beside it ever draws them */
static void
callinputs(const struct bcase *b, int n, struct runin *in)
{
	runinputs(b->t, b->c, b->key, "bench", b->ci, n, 0, in);
	in->fast = 1;
}

/* warm-up, then the timed calls; ev, host and wall of the timed ones */
static int
calls(struct bcase *b, struct harness *h, int check, struct timing *tm, double *ev, double *host, double *wall)
{
	struct hres r;
	struct runin in;
	double t0 = now(), tw = 0, noops[MAXCALLS];
	int n, timed = 0;

	for (n = 0;; n++) {
		int g = (int)choose(b, 2);
		callinputs(b, n, &in);
		if (step(hcall(h, g, 0, &in, &r), &r, h, tm))
			return -1;
		if (check && keep(b, h, tm, n, g, &in, &r, 0) < 0)
			return -1;
		/* a Python candidate's harness locks itself down after its
		 * first call here (Triton compiled then); verify's is locked */
		if (n == 0 && check && h->python && step(hlock(h, &r), &r, h, tm))
			return -1;
		if (!tw) { /* warming up */
			if (n == 0 && b->slow_ms > 0 && r.wall_ms > b->slow_ms * (CRAWLX / SLOWX) && r.wall_ms > CRAWL_MS)
				tm->crawl = 1;
			if (((now() - t0) * 1000 >= WARMUP_MS && n >= 2) || (b->slow_ms > 0 && n >= 1 && r.event_ms > b->slow_ms) ||
			    tm->crawl)
				tw = now();
			continue;
		}
		ev[timed] = r.event_ms;
		host[timed] = r.host_ms;
		wall[timed] = r.wall_ms;
		tm->event_sum += r.event_ms;
		tm->wall_sum += r.wall_ms;
		if (check && noop(b, h, tm, g, &in, r.wall_ms, noops) < 0)
			return -1;
		timed++;
		/* crawling still, by the events too (a first call made slow to end
		 * the timing early, then fast calls with a forged timer, would
		 * face the parent's clock on two pairs alone: those go on) */
		if (tm->crawl && timed >= CRAWLPAIRS && (!check || tm->pairs >= CRAWLPAIRS) &&
		    median(ev, timed) > b->slow_ms * (CRAWLX / SLOWX)) {
			tm->slow = 1;
			break;
		}
		if (b->slow_ms > 0 && timed >= MINPAIRS && (!check || tm->pairs >= MINPAIRS) && median(ev, timed) > b->slow_ms) {
			tm->slow = 1;
			break;
		}
		if (timed >= MAXCALLS || (timed >= MINCALLS && (!check || tm->pairs >= MINPAIRS) &&
		                          ((now() - tw) * 1000 > MAXTIMED_MS || stable(ev, timed))))
			break;
	}
	/* the tail: calls the candidate cannot tell from timed ones, each kept
	 * (a kernel that goes wrong after some number of calls, or every other
	 * call, is caught whatever the sample missed) */
	for (int k = 0; check && k < TAILCALLS; k++) {
		int g = (int)choose(b, 2);
		callinputs(b, ++n, &in);
		if (step(hcall(h, g, 0, &in, &r), &r, h, tm) || keep(b, h, tm, n, g, &in, &r, 1) < 0)
			return -1;
	}
	tm->overhead_ms = median(noops, tm->pairs);
	tm->calls = timed;
	return 0;
}

/* where kept call s is fetched to in the shared memory */
static size_t
keptat(const struct timing *tm, int s)
{
	return (size_t)(s + 1) * tm->stride;
}

/* the kept calls fetched, each into its own place in the shared memory,
 * which this process then takes; the harness is told to quit */
static int
fetchkept(struct harness *h, struct timing *tm)
{
	struct hres r;
	double t0 = now();
	int s;

	if (step(hsync(h, &r), &r, h, tm))
		return -1;
	childshmmake(&h->ch, h->ch.shmlen); /* on all CPUs, before the harness pins them */
	if (step(hpin(h, h->ch.shmlen, &r), &r, h, tm))
		return -1;
	for (s = 0; s < tm->held; s++)
		if (step(hfetchhold(h, s, keptat(tm, s), &r), &r, h, tm))
			return -1;
	tm->kept = htakeshm(h, &tm->keptlen);
	hkill(h); /* nothing of it runs on while they are judged */
	tm->check[CK_FETCH] += now() - t0;
	return 0;
}

/* the kept calls left in the candidate's device memory, its descriptor
 * for the oracle's harness to copy them from (nothing through the host,
 * nothing pinned); 0 done, 1 where the device cannot share memory
 * (fetchkept then), -1 a tampered reply */
static int
exportkept(struct harness *h, struct timing *tm)
{
	struct hres r;
	double t0 = now();
	size_t slot = 0;
	int rc = hexport(h, &tm->fd, &slot, &r);

	tm->check[CK_EXPORT] = now() - t0;
	tm->check[CK_FETCH] += tm->check[CK_EXPORT];
	if (rc < 0)
		die(EXIT_RETRY, "%s", h->err);
	if (!rc && slot != tm->outbytes) {
		snprintf(r.why, sizeof r.why, "The harness's reply was tampered with: held copies of %zu bytes each, not %zu",
		         slot, tm->outbytes);
		r.verdict = ST_SANDBOX;
		rc = 1;
	}
	if (rc && r.verdict == ST_SANDBOX) {
		failed(tm, &r);
		return -1;
	}
	if (rc)
		snprintf(tm->noipc, sizeof tm->noipc, "the candidate's harness: %.450s", r.why);
	tm->ipc = !rc;
	return rc;
}

/* the candidate's harness ended: from now on only this process (and the
 * oracle's) can touch the kept outputs */
static void
endcandidate(struct harness *h, struct timing *tm)
{
	double t0 = now();

	hstop(h);
	tm->check[CK_END] += now() - t0;
}

/* kept call s changed after it returned (its hash then and now differ) */
static int
changed(struct timing *tm, int s)
{
	tm->status = ST_INVALID;
	snprintf(tm->problem, sizeof tm->problem, "the outputs of call %d of the timing run changed after the call had "
	         "returned: results must be final when the call returns", tm->keep[s].call + 1);
	return -1;
}

/* each kept call must still hash as it did when its call returned (on the
 * CPUs: where no oracle hashes them on the device) */
static int
keptintact(const struct harness *h, struct timing *tm)
{
	for (int s = 0; s < tm->held; s++)
		if (hhash(h, tm->kept + keptat(tm, s)) != tm->keep[s].hash)
			return changed(tm, s);
	return 0;
}

/* kept call s for the CPUs, at keptat(s) of the returned memory: fetched
 * already, or from the oracle's copy (the candidate's harness has ended:
 * nothing can change the bytes the CPUs judge); NULL when the oracle failed */
static const unsigned char *
keptforcpus(struct harness *oh, struct timing *tm, int s)
{
	struct hres r;
	int rc;

	if (tm->kept)
		return tm->kept;
	if ((rc = hfetchimported(oh, s, keptat(tm, s), &r)) < 0)
		die(EXIT_RETRY, "%s", oh->err);
	return rc ? NULL : oh->ch.shm;
}

/* output i of kept call s, against the oracle's (fetched here: houtput),
 * where the device found it wrong: the details on the CPUs (they decide:
 * 0 right after all, -1 wrong; 1 the oracle failed) */
static int
mismatch(struct bcase *b, struct harness *h, struct harness *oh, struct timing *tm, int s, int i)
{
	const struct task *t = b->t;
	const struct targ *a = &t->args[i];
	const unsigned char *kept = keptforcpus(oh, tm, s);
	struct cmpres c;
	struct hres r;
	char text[512];
	int rc;

	if (!kept)
		return 1;
	if (hhash(h, kept + keptat(tm, s)) != tm->keep[s].hash)
		return changed(tm, s);
	if ((rc = hfetch(oh, 0, &r)) < 0)
		die(EXIT_RETRY, "%s", oh->err);
	if (rc)
		return 1;
	compare(kept + keptat(tm, s) + oh->outoff[i], a->dt, houtput(oh, 0, i), WANT_DTYPE,
	        b->c->numel[i], a, ORACLE_SCALE, &c);
	if (c.pass)
		return 0;
	runtext(t, b->c, &tm->keep[s].in, text, sizeof text);
	tm->status = ST_MISMATCH;
	snprintf(tm->problem, sizeof tm->problem, "call %d of the timing run at %s (inputs %s) gave wrong results, checked "
	         "against the spec's baseline on the GPU: output '%s' has %lld of %lld elements wrong, %lld of them never "
	         "written (relative L2 error of the written ones %.3g). Any call may be checked: results must not depend "
	         "on the call, the phase or earlier inputs", tm->keep[s].call + 1, b->c->label, text, a->name,
	         (long long)c.bad, (long long)c.n, (long long)c.unwritten, c.relnorm);
	return -1;
}

/* kept call s judged in the oracle's harness oh, which just computed its
 * outputs: on the device, every output against the oracle's (with the
 * tolerances its sampled elements set) and hashed (as the call's outputs
 * were when it returned; read in the oracle's copy of them, or in the
 * shared memory); 1 when the oracle failed */
static int
judgecall(struct bcase *b, struct harness *h, struct harness *oh, struct timing *tm, int s)
{
	const struct task *t = b->t;
	struct cmpres c[MAXARGS];
	struct hres r;
	uint64_t sum = 0;
	int i, rc, ipc = tm->ipc; /* in the oracle's copy, else in the shared memory */

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		struct targ tols;
		struct cmpsums sums;
		uint64_t hash;
		if (!isoutput(a))
			continue;
		int64_t n = b->c->numel[i], step = comparestep(n);
		if ((rc = hsample(oh, i, oh->outoff[i], &r)) < 0)
			die(EXIT_RETRY, "%s", oh->err);
		if (rc)
			return 1;
		comparetolssampled(houtput(oh, 0, i), a->dt, WANT_DTYPE, (n + step - 1) / step, a, ORACLE_SCALE, &tols);
		if ((rc = hcompare(oh, ipc, i, (ipc ? (size_t)s * tm->outbytes : keptat(tm, s)) + oh->outoff[i], &tols, &r,
		                   &sums, &hash)) < 0)
			die(EXIT_RETRY, "%s", oh->err);
		if (rc)
			return 1;
		comparefrom(b->c->numel[i], &sums, &tols, &c[i]);
		sum += hash;
	}
	if (sum != tm->keep[s].hash)
		return changed(tm, s);
	for (i = 0; i < t->nargs; i++)
		if (isoutput(&t->args[i]) && !c[i].pass && (rc = mismatch(b, h, oh, tm, s, i)) != 0)
			return rc;
	return 0;
}

/* the oracle failed (r says how): not the candidate's doing; 1 */
static int
oraclefailed(struct timing *tm, const struct hres *r)
{
	snprintf(tm->oraclewhy, sizeof tm->oraclewhy, "none: the oracle failed to run: %.600s", r->why);
	tm->oracle = tm->oraclewhy;
	return 1;
}

/* the oracle's harness oh copies the kept calls from where the candidate's
 * harness h exported them; where it cannot (a descriptor it refuses, no
 * room), they are fetched into the shared memory after all; 1 when the
 * oracle failed */
static int
openkept(struct harness *h, struct harness *oh, struct timing *tm)
{
	struct hres r;
	double t0 = now();
	int rc = 0; /* nothing pinned for its own outputs: only every comparestep-th element comes back */

	if (tm->ipc) {
		rc = himport(oh, tm->fd, (size_t)h->holds * tm->outbytes, &r);
		tm->check[CK_IMPORT] = now() - t0;
		close(tm->fd); /* the oracle's harness has its own now */
		tm->fd = -1;
		if (rc == 0) {
			/* copied: nothing the candidate can reach is judged from
			 * here on (the oracle's device memory and shared memory),
			 * so its harness is killed now, and nothing of it runs on
			 * while the oracle works (reaped later: endcandidate) */
			hkill(h);
			tm->quit = 1;
			tm->check[CK_FETCH] += now() - t0;
			return 0;
		}
		if (rc > 0) /* refused, or the oracle is gone: the next step shows which */
			snprintf(tm->noipc, sizeof tm->noipc, "the oracle's harness: %.450s", r.why);
	}
	if (rc < 0)
		die(EXIT_RETRY, "%s", oh->err);
	if (rc > 0 && !tm->ipc)
		return oraclefailed(tm, &r);
	/* no IPC: the kept calls fetched through the candidate's shared memory
	 * (its harness ends first), then copied into the oracle's, pinned there */
	tm->check[CK_FETCH] += now() - t0;
	if (tm->ipc && fetchkept(h, tm) < 0) /* (its own time counted) */
		return -1;
	tm->ipc = 0;
	endcandidate(h, tm);
	t0 = now();
	childshmmake(&oh->ch, oh->ch.shmlen);
	memcpy(oh->ch.shm + keptat(tm, 0), tm->kept + keptat(tm, 0), (size_t)tm->held * tm->stride);
	/* from here on the CPUs read the oracle's copy, not memory the
	 * candidate's harness mapped (keptlen 0: not ours to unmap) */
	munmap(tm->kept, tm->keptlen);
	tm->kept = oh->ch.shm;
	tm->keptlen = 0;
	if ((rc = hpin(oh, oh->ch.shmlen, &r)) < 0)
		die(EXIT_RETRY, "%s", oh->err);
	tm->check[CK_FETCH] += now() - t0;
	return rc ? oraclefailed(tm, &r) : 0;
}

/* the oracle on every kept call's inputs, in its own harness oh (spawned
 * on the candidate's shared memory, gated before the calls or when they
 * ended: it loads meanwhile); the kept calls made its (openkept), the
 * candidate's harness h ends, and each kept call is judged on the device */
static int
judge(struct bcase *b, struct harness *h, struct harness *oh, struct timing *tm)
{
	struct hres r;
	int s, rc;
	double t0 = now();

	if ((rc = hready(oh, &r)) < 0)
		die(EXIT_RETRY, "%s", oh->err);
	tm->check[CK_ORACLE_START] = now() - t0;
	t0 = now();
	if (!rc && (rc = hcase(oh, b->c, &r)) < 0)
		die(EXIT_RETRY, "%s", oh->err);
	tm->check[CK_ORACLE_CASE] = now() - t0;
	if (rc)
		oraclefailed(tm, &r);
	if (!rc && (rc = openkept(h, oh, tm)) < 0)
		return -1;
	/* the kept calls are the oracle's now (its copy, or fetched and the
	 * candidate's harness ended): nothing the candidate can reach is judged */
	for (s = 0; !rc && s < tm->held; s++) {
		t0 = now();
		if ((rc = hcall(oh, 0, 0, &tm->keep[s].in, &r)) < 0)
			die(EXIT_RETRY, "%s", oh->err);
		if (rc)
			oraclefailed(tm, &r);
		tm->check[CK_ORACLE_CALLS] += now() - t0;
		t0 = now();
		if (!rc && (rc = judgecall(b, h, oh, tm, s)) < 0)
			return -1;
		tm->check[CK_COMPARE] += now() - t0;
		tm->checked += !rc;
	}
	if (!rc)
		return 0;
	/* not the candidate's failure: the kept calls are not judged, but must be intact */
	if (tm->oracle != tm->oraclewhy)
		tm->oracle = "none: the oracle failed to run";
	if (!tm->kept && (h->ch.pid <= 0 || tm->quit)) /* the copies were the oracle's alone: unchecked, and flagged so */
		return 0;
	if (!tm->kept && fetchkept(h, tm) < 0)
		return -1;
	tm->ipc = 0; /* fetched, in the end */
	endcandidate(h, tm);
	return keptintact(h, tm);
}


/* the oracle's harness oh, on shared memory of its own (the candidate's
 * harness never maps it: what the oracle writes there, the tolerances'
 * samples above all, is out of its reach), gated (it waits, loaded, for
 * hgo) or not */
static void
spawnoracle(struct bcase *b, struct harness *oh, const char *oracle, int gated)
{

	if (hshm(oh, b->t, b->shm, 0) < 0) /* its pages made where they are used */
		die(EXIT_RETRY, "%s", oh->err);
	oh->gated = gated;
	if (hspawn(oh, &(struct childprog){ b->harness, oracle, "baseline", b->device, NULL, HOPEN,
	                                    b->o->timeout }) < 0)
		die(EXIT_RETRY, "%s", oh->err);
}

/* a review flag: a record kept out of train until a person looks */
static void addreview(json_t *rec, const char *fmt, ...) PRINTF_LIKE(2, 3);
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

/* the spread of v[0..n): 1.4826 x the median absolute deviation */
static double
spread(const double *v, int n)
{
	double m = median(v, n), *d = xmalloc((size_t)(n ? n : 1) * sizeof *d), r;
	int i;

	for (i = 0; i < n; i++)
		d[i] = fabs(v[i] - m);
	r = 1.4826 * median(d, n);
	free(d);
	return r;
}

/*
 * The parent's clock against the events'. The median of the pairs'
 * differences is what a call took beyond the harness's own work; it may
 * exceed the events by the launch and the final synchronize, and by the
 * noise of the median itself (1.2533 sigma / sqrt(n), three times over).
 */
static void
bound(const double *ev, struct timing *tm, json_t *cr, json_t *rec, const char *label)
{
	double me = median(ev, tm->calls), mw = median(tm->excess, tm->pairs);
	double noise = tm->pairs ? 3.76 * spread(tm->excess, tm->pairs) / sqrt(tm->pairs) : 0;

	json_object_set_new(cr, "parent_clock", json_pack("{s:f,s:f,s:i}", "excess_ms", mw, "noise_ms", noise, "pairs",
	                    tm->pairs));
	if (tm->event_sum > tm->wall_sum * 1.01 + 1) {
		tm->status = ST_INVALID;
		snprintf(tm->problem, sizeof tm->problem, "the timed calls claim %.3f ms in all, more than the %.3f ms "
		         "that passed: the timer was tampered with", tm->event_sum, tm->wall_sum);
	} else if (mw > 1.5 * me + 0.1 + noise) {
		tm->status = ST_INVALID;
		snprintf(tm->problem, sizeof tm->problem, "by the harness's parent's clock the calls took %.4f ms each "
		         "(+- %.4f) beyond the harness's own work, but the CUDA events say %.4f ms: the timer was tampered "
		         "with, or work ran outside the timed stream", mw, noise, me);
	} else if (mw > 1.25 * me + 0.05 + noise) {
		addreview(rec, "at %s the calls took %.4f ms by the parent's clock (less the harness's own work, +- %.4f), "
		          "the events %.4f ms: work may run outside the timed stream", label, mw, noise, me);
	}
}

/* h's harness for b's case: the candidate's, or (check 0) the trusted
 * baseline's, which a Python one times in TF32 */
static void
spawncase(struct bcase *b, struct harness *h, const char *so, const char *entry)
{
	if (hspawn(h, &(struct childprog){ b->harness, so, entry, b->device, NULL, b->check ? NULL : HOPENTF32,
	                                   b->o->timeout }) < 0)
		die(EXIT_RETRY, "%s", h->err);
}

/* one .so (candidate, or baseline with check 0) through the timing
 * protocol, in h (its shared memory made: hshm, b->shm) */
static void
timecase(struct bcase *b, struct harness *h, const char *so, const char *entry, struct timing *tm, json_t *cr,
         json_t *rec)
{
	const char *oracle = b->oracle;
	int check = b->check;
	struct harness oh;
	struct hres r;
	double ev[MAXCALLS], host[MAXCALLS], wall[MAXCALLS], t0 = now();
	int judging = check && oracle, early = judging && sparecpus();

	memset(tm, 0, sizeof *tm);
	memset(&oh, 0, sizeof oh);
	oh.ch.cmdfd = oh.ch.repfd = oh.ch.shmfd = oh.ch.sockfd = -1; /* none, until spawned */
	tm->fd = -1;
	tm->early = early;
	tm->status = ST_MEASURED;
	tm->oracle = check ? "none: the spec has no baseline that passed its checks" : "not checked (the baseline)";
	tm->outbytes = hshmbytes(b->t, b->c, 1);
	tm->stride = b->stride;
	if (getrandom(b->key, sizeof b->key, 0) != (ssize_t)sizeof b->key ||
	    getrandom(&b->rng, sizeof b->rng, 0) != (ssize_t)sizeof b->rng)
		die(EXIT_RETRY, "cannot draw a key:");
	/* the oracle takes time to load (a C one its libraries, cuBLAS's
	 * hundreds of MB; a Python one seconds: Python, torch, the module): it
	 * starts now, gated, and loads while the candidate's calls run; it
	 * touches the GPU only after them (hgo) */
	if (early)
		spawnoracle(b, &oh, oracle, 1);
	/* the baseline (check 0) is trusted code: no lockdown (its libraries
	 * load parts of themselves late); timed, a Python one runs in TF32 */
	/* a harness verify handed over is ready already */
	if (h->early && hgo(h) < 0) { /* loaded before the lease (earlystart), and ended meanwhile */
		hstop(h);
		h->early = 0;
		tm->restarted = 1;
		if (hshm(h, b->t, b->shm, b->made) < 0)
			die(EXIT_RETRY, "%s", h->err);
	}
	if (!h->early && !h->adopted)
		spawncase(b, h, so, entry);
	h->early = 0;
	if (!h->adopted && step(hready(h, &r), &r, h, tm))
		goto out;
	tm->phase[0] = now() - t0;
	t0 = now();
	if (step(hcase(h, b->c, &r), &r, h, tm))
		goto out;
	/* the oracle's CUDA context beside the calls, out of the room the
	 * candidate's fence (just taken) left for it */
	if (early)
		hctx(&oh);
	tm->phase[1] = now() - t0;
	t0 = now();
	if (calls(b, h, check, tm, ev, host, wall) < 0)
		goto out;
	tm->phase[2] = now() - t0;
	t0 = now();
	/* the calls are over: the oracle may load beside the candidate's
	 * harness now (it judges nothing before that has ended) */
	if (judging && !early)
		spawnoracle(b, &oh, oracle, 0);
	hgo(&oh);
	if (judging) {
		/* the kept calls stay on the device for the oracle, or are fetched */
		if (step(hsync(h, &r), &r, h, tm) || exportkept(h, tm) < 0 ||
		    (!tm->ipc && fetchkept(h, tm) < 0))
			goto out;
		tm->oracle = "the spec's baseline, on the GPU";
		if (judge(b, h, &oh, tm) < 0)
			goto out;
	} else if (check) {
		if (fetchkept(h, tm) < 0)
			goto out;
		endcandidate(h, tm);
		if (keptintact(h, tm) < 0)
			goto out;
	}
	if (judging) { /* reaped after the lease, by the caller */
		double t1 = now();
		hretire(&oh, b->retire);
		tm->check[CK_ORACLE_END] = now() - t1;
	}
	if (tm->quit) /* killed, its fence given back at the export: reaped after the lease */
		hretire(h, &b->retire[1]);
	else
		endcandidate(h, tm);
	tm->phase[3] = now() - t0;
	if (check)
		bound(ev, tm, cr, rec, b->c->label);
	if (tm->status == ST_MEASURED) {
		tm->stats = stats(ev, tm->calls, host, wall);
		tm->median_ms = jnum(tm->stats, "median_ms", 0);
		tm->host_ms = jnum(tm->stats, "host_median_ms", 0);
	}
out:
	hstop(h);
	if (judging)
		hstop(&oh);
	if (tm->phase[2] > 0 && !tm->phase[3]) /* the checks ended it */
		tm->phase[3] = now() - t0;
	if (tm->kept && tm->keptlen)
		munmap(tm->kept, tm->keptlen);
	if (tm->fd >= 0)
		close(tm->fd);
}

/* ------------------------------------------------------------ the record */

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


/* the calibration program on the GPU of slot (held), that GPU alone visible */
static json_t *
calibrateone(const char *out, const char *program, int slot)
{
	/* our own program, trusted: run it directly and read its JSON */
	char dev[64], err[512], host[256] = "", *tmp, *cmd;
	json_t *rec;
	int st;

	gpudevice(slot, dev, sizeof dev);
	if (strchr(dev, '\''))
		die(EXIT_USAGE, "a CUDA_VISIBLE_DEVICES entry with a quote: '%s'", dev);
	tempsweep(out, "run");
	tmp = tempname(out, "run"); /* named for this process: swept by the next, if a kill leaves it */
	cmd = xasprintf("CUDA_VISIBLE_DEVICES='%s' CUDA_DEVICE_ORDER=PCI_BUS_ID '%s' > '%s'", dev, program, tmp);
	tempadd(tmp);
	st = system(cmd);
	free(cmd);
	if (st != 0)
		die(EXIT_RETRY, "the calibration program failed on device '%s' (%d)", dev, st);
	rec = jload(tmp, err, sizeof err);
	tempdone(tmp);
	free(tmp);
	if (!rec)
		die(EXIT_RETRY, "calibration: %s", err);
	gethostname(host, sizeof host - 1);
	json_object_set_new(rec, "lease", json_pack("{s:i,s:s,s:s}", "slot", slot, "device", dev, "host", host));
	return rec;
}

/* every GPU of the slots in turn, each leased while it is measured: the
 * first one's figures at the top, all of them under devices */
static int
calibrate(const struct opts *o, const char *program)
{
	json_t *rec;

	if (!hasgpu()) {
		rec = json_pack("{s:n}", "gpu");
	} else {
		json_t *devices = json_array();
		for (int slot = 0; slot < gpuslots(o->gpus); slot++) {
			int fd = gpulockslot(o->lockdir, slot);
			if (fd < 0)
				die(EXIT_RETRY, "cannot take GPU slot %d in '%s':", slot, o->lockdir);
			json_array_append_new(devices, calibrateone(o->out, program, slot));
			close(fd);
		}
		rec = json_deep_copy(json_array_get(devices, 0));
		json_object_del(rec, "lease");
		json_object_set_new(rec, "devices", devices);
	}
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(rec);
	return 0;
}

/* calib's figures for the GPU g: the ones measured on it (its UUID), else
 * on another GPU of its name (a Slurm step calibrates the GPU it got),
 * else none; which it was goes into cr */
static json_t *
calibfor(json_t *calib, const struct gpuinfo *g, json_t *cr)
{
	json_t *d, *same = NULL;
	size_t i;

	json_array_foreach(json_object_get(calib, "devices"), i, d) {
		if (!strcmp(jstr(d, "uuid", ""), g->uuid))
			return d;
		if (!same && !strcmp(jstr(d, "gpu", ""), g->name))
			same = d;
	}
	if (!same && !json_object_get(calib, "devices") && !strcmp(jstr(calib, "gpu", ""), g->name))
		same = calib; /* a calibration of one GPU, made before UUIDs were recorded */
	if (same)
		json_object_set_new(cr, "calibrated_on", json_string(jstr(same, "uuid", "another GPU of this name")));
	return same;
}

static void
casesetup(struct bcase *b, const struct opts *o, const struct task *t, int ci, const char *harness, int check,
          const char *oracle)
{
	memset(b, 0, sizeof *b);
	b->o = o;
	b->t = t;
	b->c = &t->bench[ci];
	b->ci = ci;
	b->harness = harness;
	b->check = check;
	b->oracle = oracle;
	/* a call's outputs (page-rounded), then room for every kept call's (the
	 * baseline keeps none); with an oracle they are read on the device
	 * (IPC), where it works: only the first part is made at once */
	b->stride = hstride(t, b->c);
	b->shm = check ? hbenchshm(t, b->c) : b->stride;
	b->made = oracle ? b->stride : b->shm;
}

/* a Python baseline's baseline_compile (torch.compile of the same module,
 * when it defines one) at case b, into the case's record; its compilation
 * happens in the warm-up, not in the timed calls. 1 when its harness,
 * started before the lease (pre), had ended and another was started */
static int
timecompiled(struct bcase *b, const char *so, json_t *cr, struct harness *pre)
{
	struct timing tm;
	struct harness h;

	if (pre)
		h = *pre;
	else if (hshm(&h, b->t, b->shm, b->made) < 0)
		die(EXIT_RETRY, "%s", h.err);
	timecase(b, &h, so, "baseline_compile", &tm, NULL, NULL);
	if (tm.status == ST_MEASURED)
		json_object_set_new(cr, "compiled", tm.stats);
	else if (!strstr(tm.problem, "noentry baseline_compile"))
		json_object_set_new(cr, "compiled_error", json_string(tm.problem));
	return tm.restarted;
}

/* a Python baseline's harness for b, spawned before the GPU lease,
 * gated: Python, torch and the module load (seconds) while another edge
 * holds the GPU; its CUDA context comes after hgo (timecase) */
static void
earlystart(struct bcase *b, struct harness *h, const char *so, const char *entry)
{
	memset(h, 0, sizeof *h);
	if (hshm(h, b->t, b->shm, b->made) < 0)
		die(EXIT_RETRY, "%s", h->err);
	h->gated = 1;
	spawncase(b, h, so, entry);
	h->early = 1;
}

/* the baseline, timed once per variant; its oracle check copied in */
static int
timebaseline(const struct opts *o, const char *taskpath, const char *harness, const char *oraclepath, const char *so)
{
	struct task t;
	char err[1024];
	json_t *rec = json_object(), *cases = json_array(), *orj;
	int c, lockfd, slot;

	if (taskload(taskpath, &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	orj = jmustload(oraclepath);
	json_object_set_new(rec, "cases", cases);
	json_object_set_new(rec, "oracle", statusof(orj, STAGE_VERIFY) == ST_CORRECT
	                    ? json_pack("{s:s}", "status", "ok")
	                    : json_pack("{s:s,s:s}", "status", "failed", "why", *jstr(orj, "feedback", "")
	                                ? jstr(orj, "feedback", "") : jstr(orj, "verdict", "?")));
	if (filesize(so) == 0) {
		/* the baseline did not build on this machine: its log's end says why */
		char *lp = xasprintf("%s.log", so), *l = filetail(lp, 4096);
		json_object_set_new(rec, "error", json_string(*l ? l : "the baseline did not build"));
		json_object_set_new(rec, "oracle", json_pack("{s:s,s:s}", "status", "failed", "why", "it did not build"));
		free(l);
		free(lp);
	} else if (!hasgpu()) {
		setstatus(rec, STAGE_BENCH, ST_SKIPPED);
	} else {
		/* a Python baseline's first case (its eager and compiled harnesses)
		 * loads before the lease, where the slot is known: one GPU slot */
		struct harness pre[2];
		struct bcase b0;
		int early = taskbaselinepython(&t) && t.nbench > 0 && hearlyok(o->gpus);
		if (early) {
			casesetup(&b0, o, &t, 0, harness, 0, NULL);
			earlystart(&b0, &pre[0], so, "baseline");
			earlystart(&b0, &pre[1], so, "baseline_compile");
		}
		json_object_set_new(rec, "harness_start", json_string(early ? "before the lease" : "in the lease"));
		/* one GPU for every case */
		if (o->status)
			statusnote(o->status, &(struct statusupdate){ STATUS_GPU_WAIT, t.id, NULL, 0, 1 });
		if ((lockfd = gpulock(o->lockdir, o->gpus, &slot)) < 0)
			die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o->lockdir);
		if (o->status)
			statusnote(o->status, &(struct statusupdate){ STATUS_GPU_RUN, t.id, NULL, 0, 1 });
		for (c = 0; c < t.nbench; c++) {
			struct bcase b;
			struct timing tm;
			struct harness h;
			casesetup(&b, o, &t, c, harness, 0, NULL);
			b.device = slot;
			if (early && c == 0)
				h = pre[0];
			else if (hshm(&h, &t, b.shm, b.made) < 0)
				die(EXIT_RETRY, "%s", h.err);
			timecase(&b, &h, so, "baseline", &tm, NULL, NULL);
			if (!json_object_get(rec, "gpu") && *h.gpu.uuid)
				json_object_set_new(rec, "gpu", gpujson(&h.gpu));
			if (tm.status == ST_MEASURED)
				json_array_append_new(cases, json_pack("{s:s,s:o}", "case", b.c->label, "baseline", tm.stats));
			else
				json_array_append_new(cases, json_pack("{s:s,s:s}", "case", b.c->label, "error", tm.problem));
			if (taskbaselinepython(&t) &&
			    timecompiled(&b, so, json_array_get(cases, (size_t)c), early && c == 0 ? &pre[1] : NULL))
				tm.restarted = 1;
			if (tm.restarted)
				json_object_set_new(rec, "harness_start",
				                    json_string("in the lease (the one started before it had ended)"));
		}
		if (taskbaselinepython(&t)) /* pyharness.py's, for every Python baseline */
			json_object_set_new(rec, "tf32", json_true());
		close(lockfd);
		setstatus(rec, STAGE_BENCH, ST_MEASURED);
	}
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(orj);
	json_decref(rec);
	taskfree(&t);
	return 0;
}

/* speed of light from the spec's cost and the measured ceilings (less a margin for noise) */
static void
sol(const struct task *t, const struct tcase *c, json_t *calib, const struct timing *tm, json_t *cr, json_t *rec,
    struct buf *feedback)
{
	json_t *cal = calib && json_object_get(calib, "gpu") ? calib : NULL;
	/* the memory roof: the fastest way the calibration moved memory */
	double peak = jnum(cal, peakfor(t), 0) * 1e12 * SOL_MARGIN,
	       bw = fmax(jnum(cal, "copy_gbs", 0), fmax(jnum(cal, "read_gbs", 0), jnum(cal, "write_gbs", 0))) * 1e9 * SOL_MARGIN;

	if (peak > 0 && bw > 0) {
		double s = fmax(c->flops / peak, c->bytes / bw) * 1e3;
		double pct = s / tm->median_ms * 100;
		json_object_set_new(cr, "sol", json_pack("{s:f,s:f,s:s,s:f,s:f,s:f,s:f}", "flops", c->flops, "bytes", c->bytes,
		                    "peak", peakfor(t), "peak_tflops", peak / 1e12, "memory_gbs", bw / 1e9, "sol_ms", s,
		                    "percent", pct));
		if (pct > 100)
			addreview(rec, "at %s the kernel runs at %.0f%% of the speed of light", c->label, pct);
		bufprintf(feedback, "At %s the kernel takes %.4f ms (median of %d timed calls), %.1f%% of the speed of "
		          "light (%.4f ms from %.3g flops and %.3g bytes).", c->label, tm->median_ms,
		          (int)jint(tm->stats, "count", 0), pct, s, c->flops, c->bytes);
	} else {
		bufprintf(feedback, "At %s the kernel takes %.4f ms (median).", c->label, tm->median_ms);
	}
}

/* one candidate's bench: what candidate() sets up and its cases share */
struct brun {
	const struct opts *o;
	const struct task *t;
	int slot;                   /* the GPU slot leased */
	const char *harness;        /* the harness program */
	char *so, *oracle;          /* the candidate; the GPU oracle (proto.h horacle) or NULL */
	struct harness *adopted;    /* verify's harness, until a case takes it */
	json_t *calib, *baseline;   /* CALIBRATION_JSON, BASELINE_JSON (or NULL) */
	json_t *rec;                /* bench.json */
	struct buf feedback;
	double logsum;              /* the speedups' logarithms, nspeed of them */
	int nspeed;
	double logsumc;             /* over torch.compile (a Python baseline's): nspeedc of them */
	int nspeedc;
	struct harness *retired;    /* each case's oracle and candidate harnesses, reaped after the lease */
};

/* case ci's speedup over the baseline (brun's) into its record cr */
static void
speedup(struct brun *br, int ci, const struct tcase *c, const struct timing *tm, json_t *cr)
{
	json_t *baseline = br->baseline, *rec = br->rec;
	struct buf *feedback = &br->feedback;
	json_t *bcase = json_array_get(json_object_get(baseline, "cases"), (size_t)ci);
	double bm = jnum(json_object_get(bcase, "baseline"), "median_ms", 0);

	if (bm <= 0) {
		json_object_set_new(cr, "baseline_error", json_string(jstr(bcase, "error", jstr(baseline, "error",
		                    "the baseline was not measured"))));
		return;
	}
	json_object_set(cr, "baseline", json_object_get(bcase, "baseline"));
	json_object_set_new(cr, "speedup", json_real(bm / tm->median_ms));
	if (jnum(json_object_get(bcase, "compiled"), "median_ms", 0) > 0) { /* a Python baseline's torch.compile */
		double cm = jnum(json_object_get(bcase, "compiled"), "median_ms", 0);
		json_object_set_new(cr, "speedup_compile", json_real(cm / tm->median_ms));
		br->logsumc += log(cm / tm->median_ms);
		br->nspeedc++;
	}
	br->logsum += log(bm / tm->median_ms);
	br->nspeed++;
	if (bm / tm->median_ms > 10)
		addreview(rec, "at %s the speedup over the baseline is %.1fx", c->label, bm / tm->median_ms);
	bufprintf(feedback, " The baseline takes %.4f ms: speedup %.2fx.", bm, bm / tm->median_ms);
}

/* one bench case of a candidate into its record, in the harness verify
 * handed over (br->adopted: NULL once used) or in one of its own; 0, or -1
 * when timing failed */
static int
benchcase(struct brun *br, int ci)
{
	const struct task *t = br->t;
	struct harness **adopted = &br->adopted;
	json_t *rec = br->rec;
	struct buf *feedback = &br->feedback;
	struct bcase b;
	struct timing tm;
	struct harness own, *h = &own;
	json_t *cr, *cases = json_object_get(rec, "cases");

	casesetup(&b, br->o, t, ci, br->harness, 1, br->oracle);
	b.device = br->slot;
	b.retire = &br->retired[2 * ci];
	b.slow_ms = SLOWX * jnum(json_object_get(json_array_get(json_object_get(br->baseline, "cases"), (size_t)ci),
	                                         "baseline"), "median_ms", 0);
	cr = json_pack("{s:s}", "case", b.c->label);
	json_array_append_new(cases, cr);
	if (*adopted && (*adopted)->ch.shmlen >= b.shm) {
		h = *adopted;
		json_object_set_new(cr, "harness", json_string("verify's"));
	} else {
		if (*adopted) { /* not bench's layout: verify and bench are not of one build */
			hstop(*adopted);
			json_object_set_new(cr, "harness", json_string("its own: verify's had too little shared memory"));
		}
		if (hshm(&own, t, b.shm, b.made) < 0)
			die(EXIT_RETRY, "%s", own.err);
	}
	*adopted = NULL;
	timecase(&b, h, br->so, t->entry, &tm, cr, rec);
	/* the GPU it ran on, from the first case whose harness started */
	if (!json_object_get(rec, "gpu") && *h->gpu.uuid)
		json_object_set_new(rec, "gpu", gpujson(&h->gpu));
	json_object_set_new(cr, "checks", json_pack("{s:i,s:i,s:s,s:b,s:s}", "kept", tm.held, "passed", tm.checked,
	                    "oracle", tm.oracle, "oracle_early", tm.early, "kept_via",
	                    !tm.held ? "none" : tm.ipc ? "ipc" : "shared memory"));
	if (*tm.noipc)
		json_object_set_new(json_object_get(cr, "checks"), "no_ipc", json_string(tm.noipc));
	json_object_set_new(cr, "seconds", json_pack("{s:f,s:f,s:f,s:f}", "start", tm.phase[0], "setup", tm.phase[1],
	                    "calls", tm.phase[2], "checks", tm.phase[3]));
	{
		json_t *ck = json_object();
		for (int k = 0; k < CK_N; k++)
			json_object_set_new(ck, checkpart[k], json_real(tm.check[k]));
		json_object_set_new(cr, "check_seconds", ck);
	}
	if (tm.status != ST_MEASURED) {
		setstatus(rec, STAGE_BENCH, tm.status);
		bufprintf(feedback, "Timing at %s failed: %s.\n", b.c->label, tm.problem);
		return -1;
	}
	if (tm.slow) {
		double x = tm.crawl ? CRAWLX : SLOWX;
		json_object_set_new(cr, "slow", json_sprintf("more than %gx the baseline's time: timed on %d calls", x,
		                    tm.calls));
		bufprintf(feedback, "At %s the kernel is more than %g times slower than the baseline. ", b.c->label, x);
	}
	if (strncmp(tm.oracle, "the spec", 8))
		addreview(rec, "at %s the timed calls' outputs were not checked against an oracle (%s)", b.c->label, tm.oracle);
	json_object_set(cr, "candidate", tm.stats);
	json_object_set_new(cr, "overhead_ms", jsonnum(tm.overhead_ms));
	if (tm.host_ms > 1.5 * tm.median_ms + 0.05)
		addreview(rec, "at %s the host saw %.4f ms per call but the events %.4f ms: work may run outside the timed "
		          "stream", b.c->label, tm.host_ms, tm.median_ms);
	sol(t, b.c, calibfor(br->calib, &h->gpu, cr), &tm, cr, rec, feedback);
	if (br->baseline)
		speedup(br, ci, b.c, &tm, cr);
	bufputs(feedback, "\n");
	json_decref(tm.stats);
	return 0;
}

static int
candidate(const struct opts *o, char *const *in, size_t nin)
{
	struct task t;
	struct brun br = { .o = o, .t = &t, .harness = in[3] };
	json_t *rec, *ver, *gpu;
	char err[1024], dev[64], drv[80] = "";
	struct nvml nv;
	struct harness from;
	double since = 0, lease0 = 0;
	int c, slot, lockfd = -1, clock0;
	enum status v;

	if (taskload(in[0], &t, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s", err);
	{
		json_t *comp = schemaload(in[2], schema_compile_json);
		br.so = hcandidate(comp, in[2]);
		json_decref(comp);
	}
	/* verify --bench's harness and GPU lease, ours now (its time since is the GPU's) */
	rec = br.rec = json_object();
	if (o->from) {
		int rc = hadopt(&from, &t, br.so, o->timeout, o->from, &lockfd, &since);
		if (rc < 0) {
			hstop(&from);
			die(EXIT_USAGE, "--harness-from: %s", from.err);
		}
		lease0 = since;
		json_object_set_new(rec, "handover_seconds", json_real(now() - since));
		if (rc > 0) { /* the candidate's harness ended between verify's last call and here */
			hstop(&from);
			json_object_set_new(rec, "handover", json_sprintf("verify's harness %s: bench started its own", from.err));
		} else {
			br.adopted = &from;
		}
	}
	ver = schemaload(in[1], schema_verify_json);
	bufinit(&br.feedback, 1 << 16);
	v = statusof(ver, STAGE_VERIFY);
	if (v != ST_CORRECT && o->from) {
		if (br.adopted)
			hstop(br.adopted);
		die(EXIT_USAGE, "--harness-from: verify handed over the harness of a candidate it did not find correct");
	}
	if (v != ST_CORRECT) {
		/* only verified candidates are timed */
		setstatus(rec, STAGE_BENCH, v == ST_SKIPPED || v == ST_DONE ? v : ST_NOT_VERIFIED);
		goto write;
	}
	br.calib = jmustload(in[4]);
	if (nin == 6)
		br.baseline = jmustload(in[5]);
	br.oracle = horacle(&t, br.baseline, nin == 6 ? in[5] : NULL);
	memset(&nv, 0, sizeof nv);
	json_object_set_new(rec, "cases", json_array());
	setstatus(rec, STAGE_BENCH, ST_MEASURED);
	json_object_set_new(rec, "isolation", json_string(jailkind()));
	if (!json_is_true(json_object_get(ver, "bench_checked")))
		addreview(rec, "verify did not check the outputs at every bench size against an oracle (%s)",
		          jstr(ver, "bench_checked", "not recorded"));
	/* one GPU for every case: its clock and driver through NVML */
	if (o->from) { /* verify's lease, whether or not its harness lived to be adopted */
		slot = from.gpu.slot;
	} else {
		if (o->status)
			statusnote(o->status, &(struct statusupdate){ STATUS_GPU_WAIT, t.id, NULL, 0, 1 });
		if ((lockfd = gpulock(o->lockdir, o->gpus, &slot)) < 0)
			die(EXIT_RETRY, "cannot take a GPU slot in '%s':", o->lockdir);
		lease0 = now();
		if (o->status)
			statusnote(o->status, &(struct statusupdate){ STATUS_GPU_RUN, t.id, NULL, 0, 1 });
	}
	gpudevice(slot, dev, sizeof dev);
	nvmlopen(&nv, dev);
	if (nv.driver)
		nv.driver(drv, sizeof drv);
	clock0 = smclock(&nv);
	br.slot = slot;
	br.retired = xcalloc(2 * (size_t)t.nbench, sizeof *br.retired);
	for (c = 0; c < t.nbench; c++)
		if (benchcase(&br, c) < 0)
			break;
	if (br.adopted) /* no case used it */
		hstop(br.adopted);
	if (!(gpu = json_object_get(rec, "gpu"))) /* no harness of it started */
		json_object_set_new(rec, "gpu", gpu = json_pack("{s:{s:i,s:s}}", "lease", "slot", slot, "device", dev));
	nvmlcheck(&nv, jstr(gpu, "uuid", ""));
	json_object_set_new(gpu, "sm_clock_mhz_start", json_integer(nv.dev ? clock0 : -1));
	json_object_set_new(gpu, "sm_clock_mhz_end", json_integer(smclock(&nv)));
	json_object_set_new(gpu, "driver", json_string(drv));
	/* the lease's whole time, NVML's start and the gaps between cases too */
	json_object_set_new(rec, "gpu_seconds", json_real(now() - lease0));
	close(lockfd);
	for (c = 0; c < 2 * t.nbench; c++)
		if (br.retired[c].ch.pid > 0)
			hstop(&br.retired[c]);
	free(br.retired);
	if (br.nspeed)
		json_object_set_new(rec, "speedup", json_real(exp(br.logsum / br.nspeed)));
	if (br.nspeedc && br.nspeedc == br.nspeed) /* over the same sizes as speedup */
		json_object_set_new(rec, "speedup_compile", json_real(exp(br.logsumc / br.nspeedc)));
write:
	json_object_set_new(rec, "feedback", json_string(br.feedback.s));
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(rec);
	json_decref(ver);
	json_decref(br.calib);
	json_decref(br.baseline);
	buffree(&br.feedback);
	free(br.so);
	free(br.oracle);
	taskfree(&t);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "out/gpu", 1, 30, NULL, "out/runtime/py", NULL, NULL };
	struct optlist in;
	int cal = 0, base = 0, r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the output: BENCH_JSON, BASELINE_JSON or CALIBRATION_JSON" },
		{ "--baseline", NULL, OPT_FLAG, &base, 0, 0, "time the spec's baseline (once per variant)" },
		{ "--calibrate", NULL, OPT_FLAG, &cal, 0, 0, "measure the GPU's ceilings (once per build)" },
		{ "--harness-from", "SPEC", OPT_STR, &o.from, 0, 0,
		  "the candidate's harness, as verify --bench hands it over (not for hand use)" },
		OPTS_GPU(&o.gpus, &o.lockdir, &o.timeout),
		OPTS_PYTHON(&o.gpupython, &o.pyharness),
		{ "--status", "FILE", OPT_STR, &o.status, 0, 0, "note the GPU lease in the build's status (out/status.json)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, 6, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!o.out)
		optdie(&spec, "need -o");
	if (cal && in.n != 1)
		optdie(&spec, "--calibrate needs the calibration program");
	if (!cal && base && in.n != 4)
		optdie(&spec, "--baseline needs TASK_JSON HARNESS ORACLE_JSON BASELINE_SO");
	if (!cal && !base && in.n != 5 && in.n != 6)
		optdie(&spec, "need TASK_JSON VERIFY_JSON COMPILE_JSON HARNESS CALIBRATION_JSON [BASELINE_JSON]");
	if (o.from && (cal || base))
		optdie(&spec, "--harness-from is for a candidate");
	if (!cal && jailweak())
		die(EXIT_USAGE, "%s", jailweak());
	hpython(o.gpupython, o.pyharness);
	r = cal ? calibrate(&o, in.v[0])
	    : base ? timebaseline(&o, in.v[0], in.v[1], in.v[2], in.v[3])
	    : candidate(&o, in.v, in.n);
	optfree(&in);
	return r;
}
