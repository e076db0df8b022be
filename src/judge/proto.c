/* proto.c - see proto.h */
#include "proto.h"

#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "../lib/draw.h"
#include "../lib/json.h"
#include "../lib/parts.h"
#include "../lib/tensor.h"
#include "../lib/util.h"
#include "../runtime/lockdown.h"

enum { HOLDS_MIN = 4 }; /* bench: 2 sampled calls and 2 tail calls, at least */
static const double HOLD_BUDGET = 4.0 * (1 << 30); /* bytes of held copies a case may take */

static size_t
aligned(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

json_t *
gpujson(const struct gpuinfo *g)
{
	char drv[32], rt[32];

	snprintf(drv, sizeof drv, "%d.%d", g->driver / 1000, g->driver % 1000 / 10);
	snprintf(rt, sizeof rt, "%d.%d", g->runtime / 1000, g->runtime % 1000 / 10);
	char host[256] = "";

	gethostname(host, sizeof host - 1);
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:I,s:s,s:{s:i,s:s,s:s}}", "name", g->name, "compute_capability", g->cc,
	                 "driver_cuda", drv, "runtime", rt, "sms", g->sms, "l2_bytes", (json_int_t)g->l2, "uuid", g->uuid,
	                 "lease", "slot", g->slot, "device", g->device, "host", host);
}

size_t
hshmbytes(const struct task *t, const struct tcase *cases, int n)
{
	size_t most = 0;
	int c, i;

	for (c = 0; c < n; c++) {
		size_t b = 0;
		for (i = 0; i < t->nargs; i++)
			if (isoutput(&t->args[i]))
				b += aligned(tbytes(t, &cases[c], i));
		if (b > most)
			most = b;
	}
	return most;
}

size_t
hstride(const struct task *t, const struct tcase *c)
{
	return (hshmbytes(t, c, 1) + 4095) & ~(size_t)4095;
}

size_t
hbenchshm(const struct task *t, const struct tcase *c)
{
	return hstride(t, c) * (size_t)(hholds(t, c) + 1);
}

size_t
hkeep(const struct task *t, const struct tcase *c)
{
	return 4 * casebytes(t, c) + ((size_t)2 << 30) + ((size_t)HROOM_MIB << 20);
}

char *
horacle(const struct task *t, json_t *baseline, const char *baselinepath)
{
	return baseline && !strcmp(jstr(json_object_get(baseline, "oracle"), "status", ""), "ok")
	       ? sibling(baselinepath, taskbaselinepython(t) ? "baseline.py" : "baseline.so") : NULL;
}

char *
hcandidate(json_t *compile, const char *compilepath)
{
	return sibling(compilepath, strcmp(jstr(compile, "lang", "cuda"), "cuda") ? "cand.py" : "cand.so");
}

int
hholds(const struct task *t, const struct tcase *c)
{
	double out = 0;
	int i, k;

	for (i = 0; i < t->nargs; i++)
		if (isoutput(&t->args[i]))
			out += (double)tbytes(t, c, i);
	k = out * HOLDS_MAX > HOLD_BUDGET ? (int)(HOLD_BUDGET / out) : HOLDS_MAX;
	return k > HOLDS_MAX ? HOLDS_MAX : k < HOLDS_MIN ? HOLDS_MIN : k;
}

static int
verdict(struct hres *r, enum status v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
verdict(struct hres *r, enum status v, const char *fmt, ...)
{
	va_list ap;

	r->verdict = v;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof r->why, fmt, ap);
	va_end(ap);
	return 1;
}

/* ours failed, not the candidate: h->err says what; -1 */
static int
failed(struct harness *h, const char *fmt, const char *line)
{
	char l[768]; /* the line's start: room for fmt's words in h->err */

	snprintf(l, sizeof l, "%.767s", line);
	snprintf(h->err, sizeof h->err, fmt, l);
	return -1;
}

/* a reply, or what its absence says about the candidate */
static int
await(struct harness *h, char *line, size_t lcap, double seconds, const char *during, struct hres *r)
{
	int rc = childread(&h->ch, line, lcap, seconds);
	char what[128], out[1024];

	if (rc == -1)
		return verdict(r, ST_TIMEOUT, "The call at %s did not finish within %.0f s (an endless loop, a deadlock, or "
		               "far too slow).", during, seconds);
	if (rc == -2) {
		describestatus(childstop(&h->ch), what, sizeof what);
		childoutput(&h->ch, out, sizeof out);
		return verdict(r, ST_CRASH, "The process running the kernel %s during the call at %s. Its output ended "
		               "with:\n%s", what, during, out);
	}
	return 0;
}

/* "cuda CODE MESSAGE": the GPU gone (-1) or the candidate's error (1) */
static int
cudaerror(struct harness *h, const char *line, const char *during, struct hres *r)
{
	int code = atoi(line + 5);

	/* cudaErrorNoDevice, DevicesUnavailable, ECCUncorrectable, InitializationError */
	if (code == 100 || code == 46 || code == 214 || code == 3)
		return failed(h, "the GPU failed: %s", line);
	return verdict(r, ST_CRASH, "The call at %s failed with CUDA error %s.", during, line + 5);
}

int
hshm(struct harness *h, const struct task *t, size_t shm, size_t made)
{
	memset(h, 0, sizeof *h);
	h->t = t;
	return childshm(&h->ch, shm, made, h->err, sizeof h->err);
}

/* ---- Python entry points (src/runtime/pyharness.py) */

static const char *pyenv, *pydir;

/* the runtime runs on the test suite's CPU fake device (prepare --runtime --fake) */
static int
pyfake(void)
{
	char *m = xasprintf("%s/../harness.o.fake", pydir);
	int fake = access(m, F_OK) == 0;

	free(m);
	return fake;
}

/* dir holds the bytecode prepare --runtime made for the environment env (its file env says so) */
static int
pycachefor(const char *dir, const char *env)
{
	char *stamp = xasprintf("%s/env", dir), *made = filetail(stamp, 4096);
	int ok = !strcmp(made, env);

	free(stamp);
	free(made);
	return ok;
}

void
hpython(const char *env, const char *dir)
{
	static char real[4096];

	pyenv = env && *env ? realpath(env, real) ? real : env : NULL;
	pydir = dir;
}

int
hispython(const char *so)
{
	size_t n = strlen(so);

	return n > 3 && !strcmp(so + n - 3, ".py");
}

/* the line of JSON pyharness.py reads: the arguments, each case's sizes,
 * tensor shapes and scalars, and whether to wait for hgo, with half the
 * step's seconds for what it does before (malloc'd) */
static char *
pyspec(const struct harness *h, int seconds)
{
	const struct task *t = h->t;
	json_t *o = json_object(), *args = json_array(), *cases = json_array();
	char *s;

	for (int i = 0; i < t->nargs; i++)
		json_array_append_new(args, json_pack("{s:s, s:s, s:s}", "name", t->args[i].name, "kind",
		                                      argkinds[t->args[i].kind], "dtype", dtinfos[t->args[i].dt].name));
	for (int set = 0; set <= SET_COUNT; set++) { /* and the hidden pool's, which verify draws from */
		int n = t->npool;
		const struct tcase *all = set < SET_COUNT ? taskcases(t, set, &n) : t->pool;
		for (const struct tcase *c = all; c < all + n; c++) {
			json_t *sizes = json_array(), *dims = json_array(), *scalars = json_array();
			for (int i = 0; i < c->nsizes; i++)
				json_array_append_new(sizes, json_integer(c->sizes[i]));
			for (int i = 0; i < c->nscalars; i++) /* (JSON has no NaN: null) */
				json_array_append_new(scalars, isfinite(c->scalars[i]) ? json_real(c->scalars[i]) : json_null());
			for (int i = 0; i < t->nargs; i++) {
				json_t *d = json_array();
				if (!istensor(&t->args[i])) {
					json_decref(d);
					continue;
				}
				for (int j = 0; j < c->ndims[i]; j++)
					json_array_append_new(d, json_integer(c->dims[i][j]));
				json_array_append_new(dims, d);
			}
			json_array_append_new(cases, json_pack("{s:o, s:o, s:o}", "sizes", sizes, "dims", dims, "scalars",
			                                       scalars));
		}
	}
	json_object_set_new(o, "args", args);
	json_object_set_new(o, "cases", cases);
	json_object_set_new(o, "fake", json_integer(pydir && pyfake()));
	if (h->gated) { /* and the time its kernels may take to compile before the gate */
		json_object_set_new(o, "gate", json_integer(1));
		json_object_set_new(o, "warm_seconds", json_integer(seconds / 2));
	}
	s = jdumps(o, JSON_COMPACT);
	json_decref(o);
	return s;
}

int
hspawn(struct harness *h, const struct childprog *l)
{
	const char *py[10], *harness = l->harness, *so = l->so, *extra = l->extra;
	const char *const *wrapper = l->wrapper;
	char *runner = NULL, *lib = NULL, *spec = NULL, *pyc = NULL;
	int rc, k = 0, timeout = l->seconds;

	h->timeout = timeout;
	h->python = hispython(so);
	if (extra && !strcmp(extra, HOPENTF32) && !h->python)
		extra = HOPEN;
	h->open = extra && (!strcmp(extra, HOPEN) || !strcmp(extra, HOPENTF32));
	if (h->gated && !h->python && extra && !strcmp(extra, HOPEN))
		extra = "open-gated"; /* harness.c: loads, then waits for hgo */
	else if (h->gated && !h->python && !extra)
		extra = "gated"; /* a candidate's: the CUDA driver, then hgo, then its context and object */
	h->wrapped = wrapper != NULL;
	h->gpu.slot = l->device;
	gpudevice(l->device, h->gpu.device, sizeof h->gpu.device);
	if (h->python) {
		if (wrapper)
			return failed(h, "a Python entry point has no compute-sanitizer run ('%s')", so);
		if (!pyenv)
			return failed(h, "'%s' is a Python entry point, and no --gpu-python environment was given", so);
		runner = xasprintf("%s/bin/python", pyenv);
		if (access(runner, X_OK) != 0) {
			snprintf(h->err, sizeof h->err, "the GPU's Python environment '%s' has no bin/python: run ./configure", pyenv);
			free(runner);
			return -1;
		}
		free(runner);
		/* the runner's text, not its path: the sandbox's /work hides a
		 * checkout that lies below the host's /work */
		char *dir = absolute(pydir), *path = xasprintf("%s/harness.py", dir);
		runner = filetail(path, 1 << 20);
		lib = xasprintf("%s/harness.so", dir);
		pyc = xasprintf("%s/pycache", dir);
		free(dir);
		if (!*runner) {
			snprintf(h->err, sizeof h->err, "cannot read the Python harness '%s': run prepare --runtime", path);
			free(path); free(runner); free(lib); free(pyc);
			return -1;
		}
		free(path);
		spec = pyspec(h, l->seconds);
		py[k++] = JAILVENV "/bin/python"; py[k++] = "-I"; py[k++] = "-B";
		if (pycachefor(pyc, pyenv)) { /* the environment's bytecode, made for the jail's paths (prepare --runtime) */
			py[k++] = "-X"; py[k++] = "pycache_prefix=" JAILPYC;
			h->ch.pycache = pyc;
		}
		py[k++] = "-c"; py[k++] = runner; py[k++] = spec; py[k] = NULL;
		wrapper = py;
		harness = lib;
		h->ch.venv = pyenv;
	}
	/* the spec's baseline (not a candidate under compute-sanitizer): a uid of its own */
	h->ch.trusted = h->open && !h->wrapped;
	rc = childstart(&h->ch, &(struct childprog){ harness, so, l->entry, l->device, wrapper, extra, timeout * 4 + 120 },
	                h->err, sizeof h->err);
	h->ch.pycache = NULL;
	free(runner); free(lib); free(spec); free(pyc);
	return rc < 0 ? -1 : 0;
}

/* the harness's ready line into g; 0, or -1 when it is not one */
static int
readyline(struct gpuinfo *g, const char *line)
{
	return sscanf(line, "ready %127[^|]|%15[^|]|%ld|%d|%d|%d|%63[^|]|%159[^\n]", g->name, g->cc, &g->l2, &g->sms,
	              &g->driver, &g->runtime, g->uuid, g->lockdown) == 8 ? 0 : -1;
}

/* a gated harness's answer to "wait": "waiting" or "waiting NOTE" */
static int
iswaiting(const char *line)
{
	return !strncmp(line, "waiting", 7) && (!line[7] || line[7] == ' ');
}

int
hready(struct harness *h, struct hres *r)
{
	char line[8192];

	memset(r, 0, sizeof *r);
	do {
		if (await(h, line, sizeof line, h->wrapped ? 300 : 120, "loading", r))
			return 1;
	} while (h->waits > 0 && iswaiting(line) && h->waits--); /* hwait's, late */
	if (!strncmp(line, "nodevice", 8))
		return failed(h, "the GPU is gone: %s", line + 9);
	if (!strncmp(line, "loaderror", 9) || !strncmp(line, "noentry", 7))
		return verdict(r, ST_LOAD_ERROR, "The shared object could not be loaded: %s", line);
	if (readyline(&h->gpu, line) < 0)
		return verdict(r, ST_SANDBOX, "The harness's first reply was tampered with: '%.200s'", line);
	return 0;
}

int
hhandover(struct harness *h, int lockfd, double since, char *out, size_t cap)
{
	const struct gpuinfo *g = &h->gpu;
	char line[1024];
	int n;

	if (h->open || h->wrapped || h->gated || fcntl(lockfd, F_SETFD, 0) < 0 ||
	    childhandover(&h->ch, line, sizeof line) < 0)
		return -1;
	n = snprintf(out, cap, "%s\n%d %d %d %.17g\nready %s|%s|%ld|%d|%d|%d|%s|%s", line, h->calls, lockfd, g->slot, since,
	             g->name, g->cc, g->l2, g->sms, g->driver, g->runtime, g->uuid, g->lockdown);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

int
hadopt(struct harness *h, const struct task *t, const char *so, int timeout, const char *spec, int *lockfd,
       double *since)
{
	const char *l2 = strchr(spec, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
	char line[1024];
	int slot, rc;

	memset(h, 0, sizeof *h);
	h->ch.cmdfd = h->ch.repfd = h->ch.shmfd = h->ch.sockfd = -1; /* nothing to close yet */
	h->t = t;
	if (!l3 || (size_t)(l2 - spec) >= sizeof line || sscanf(l2 + 1, "%d %d %d %lf", &h->calls, lockfd, &slot, since) != 4 ||
	    slot < 0 ||
	    *lockfd < 3 || fcntl(*lockfd, F_SETFD, FD_CLOEXEC) < 0 || readyline(&h->gpu, l3 + 1) < 0) {
		snprintf(h->err, sizeof h->err, "not a handed-over harness: '%.200s'", spec);
		return -1;
	}
	h->gpu.slot = slot;
	gpudevice(slot, h->gpu.device, sizeof h->gpu.device);
	snprintf(line, sizeof line, "%.*s", (int)(l2 - spec), spec);
	if ((rc = childadopt(&h->ch, line, h->err, sizeof h->err)) != 0)
		return rc;
	h->adopted = 1;
	h->timeout = timeout;
	h->python = hispython(so);
	return 0;
}

int
hgo(struct harness *h)
{
	siginfo_t si;
	int rc = 0;

	if (h->gated) {
		/* ended while it waited (WNOWAIT: childstop still reaps it)? */
		memset(&si, 0, sizeof si);
		if ((waitid(P_PID, (id_t)h->ch.pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == h->ch.pid) ||
		    childsend(&h->ch, "go") < 0)
			rc = -1;
	}
	h->gated = 0;
	return rc;
}

int
hctx(struct harness *h)
{
	return h->gated ? childsend(&h->ch, "ctx") : 0;
}

int
hwait(struct harness *h, double seconds)
{
	char line[512];

	if (!h->gated)
		return 0;
	if (childsend(&h->ch, "wait") < 0)
		return -1;
	h->waits++;
	if (childread(&h->ch, line, sizeof line, seconds) != 0)
		return -1;
	if (!iswaiting(line)) { /* out of step: ended here, so that hgo says so */
		siginfo_t si;
		childkill(&h->ch);
		waitid(P_PID, (id_t)h->ch.pid, &si, WEXITED | WNOWAIT);
		return failed(h, "a gated harness's reply was not 'waiting': '%s'", line);
	}
	h->waits--;
	snprintf(h->waited, sizeof h->waited, "%.255s", line[7] == ' ' ? line + 8 : "");
	return 0;
}

int
sparecpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	double load;

#ifdef RETORT_TESTING
	if (getenv("RETORT_SPARE_CPUS")) /* the tests' two-CPU machines, for the paths it opens */
		return 1;
#endif
	return n >= 4 && getloadavg(&load, 1) == 1 && load <= (double)n - 2;
}

int
hearlyok(int gpus)
{
	return gpuslots(gpus) == 1 && !stepleased() && hasgpu() && sparecpus();
}

int
hstart(struct harness *h, const struct task *t, const struct childprog *l, size_t shm, struct hres *r)
{
	int rc;

	memset(r, 0, sizeof *r);
	if (hshm(h, t, shm, shm) < 0 || hspawn(h, l) < 0)
		return -1;
	if ((rc = hready(h, r)) == 0)
		rc = hpin(h, shm, r);
	return rc;
}

void
hcasesend(struct harness *h, const struct tcase *c)
{
	const struct task *t = h->t;
	struct buf b;
	size_t off = 0;
	int i;

	h->c = c;
	h->holds = h->open || h->nohold ? 0 : hholds(t, c);
	bufinit(&b, 1 << 16);
	bufprintf(&b, "case %d", ntensors(t));
	for (i = 0; i < t->nargs; i++) {
		if (!istensor(&t->args[i]))
			continue;
		bufprintf(&b, " %d %d %lld", t->args[i].kind, t->args[i].dt, (long long)c->numel[i]);
		if (isoutput(&t->args[i])) {
			h->outoff[i] = off;
			off += aligned(tbytes(t, c, i));
		}
	}
	bufprintf(&b, " %d", c->nsizes);
	for (i = 0; i < c->nsizes; i++)
		bufprintf(&b, " %lld", (long long)c->sizes[i]);
	/* KEEP -1: no fence */
	bufprintf(&b, " %d %lld", h->holds, h->open ? -1ll : (long long)hkeep(t, c));
	if (off > h->ch.shmlen) {
		buffree(&b);
		h->unsent = UNSENT_NOROOM;
		return;
	}
	h->unsent = childsend(&h->ch, "%s", b.s) < 0 ? UNSENT_GONE : 0;
	buffree(&b);
}

int
hcasewait(struct harness *h, struct hres *r)
{
	const struct tcase *c = h->c;
	char line[4096];

	memset(r, 0, sizeof *r);
	if (h->unsent == UNSENT_NOROOM)
		return failed(h, "the shared memory is too small for the outputs at %s", c->label);
	if (h->unsent || await(h, line, sizeof line, 300, c->label, r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The harness was gone before the case at %s.", c->label);
	if (!strncmp(line, "cuda ", 5))
		return verdict(r, h->calls ? ST_CRASH : ST_NO_ROOM, "Setting up the case at %s failed with CUDA error %s%s.",
		               c->label, line + 5, h->calls ? " (memory the kernel took and did not give back counts "
		               "against the case's room)" : "");
	if (strncmp(line, "ok ", 3))
		return strncmp(line, "error", 5) ? verdict(r, ST_SANDBOX, "The harness's reply was tampered with: '%.200s'", line)
		                                 : failed(h, "the harness rejected a command: %s", line);
	return 0;
}

/* arg's number among the tensors, as the harness counts them (tensorindex's inverse) */
static int
tensornumber(const struct task *t, int arg)
{
	int k, n = 0;

	for (k = 0; k < arg; k++)
		n += istensor(&t->args[k]);
	return n;
}

static int
tensorindex(const struct task *t, int k)
{
	int i, n = 0;

	for (i = 0; i < t->nargs; i++)
		if (istensor(&t->args[i]) && n++ == k)
			return i;
	return -1;
}

int
hcase(struct harness *h, const struct tcase *c, struct hres *r)
{
	hcasesend(h, c);
	return hcasewait(h, r);
}

void
hcallsend(struct harness *h, int group, int noop, const struct runin *in)
{
	const struct task *t = h->t;
	const struct tcase *c = h->c;
	struct buf b;
	int i, n = 0;

	bufinit(&b, 1 << 16);
	for (i = 0; i < t->nargs; i++)
		n += isinput(&t->args[i]);
	bufprintf(&b, "call %d %d %d %llu %d %d", group, noop, in->poison, (unsigned long long)in->pseed, in->fast, n);
	for (i = 0; i < t->nargs; i++)
		if (isinput(&t->args[i]))
			drawput(&b, &in->d[i]);
	bufprintf(&b, " %d", c->nscalars);
	for (i = 0; i < c->nscalars; i++)
		bufprintf(&b, " %.17g", in->scalars[i]);
	h->calls++;
	h->sent = now();
	h->unsent = childsend(&h->ch, "%s", b.s) < 0 ? UNSENT_GONE : 0;
	buffree(&b);
}

int
hcallwait(struct harness *h, struct hres *r)
{
	const struct task *t = h->t;
	const struct tcase *c = h->c;
	char line[4096], status[32] = "";
	unsigned long long hash = 0;
	int i, k = -1;
	double left;

	memset(r, 0, sizeof *r);
	left = h->timeout - (now() - h->sent); /* from the send: the caller may have worked since */
	if (h->unsent || await(h, line, sizeof line, left > 1 ? left : 1, c->label, r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The process running the kernel was gone before the call at %s.",
		                                 c->label);
	r->wall_ms = (now() - h->sent) * 1e3;
	if (!strncmp(line, "cuda ", 5))
		return cudaerror(h, line, c->label, r);
	if (!strncmp(line, "violation ", 10)) {
		char rule[64] = "?";
		int off = 0;
		if (sscanf(line + 10, "%63s %n", rule, &off) < 1 || !off)
			return verdict(r, ST_SANDBOX, "The harness's reply was tampered with: '%.200s'", line);
		return verdict(r, ST_VIOLATION, "At %s the harness refused what the host code did (rule %s): %s.", c->label,
		               rule, line + 10 + off);
	}
	if (!strncmp(line, "error", 5))
		return failed(h, "the harness rejected a command: %s", line);
	if (sscanf(line, "t %lf %lf %llu %31s %d", &r->event_ms, &r->host_ms, &hash, status, &k) < 4 ||
	    !(r->event_ms >= 0) || !(r->host_ms >= 0))
		return verdict(r, ST_SANDBOX, "The harness's reply was tampered with: '%.200s'", line);
	r->hash = hash;
	if (!strcmp(status, "ok"))
		return 0;
	i = tensorindex(t, k);
	if (!strcmp(status, "canary") && i >= 0)
		return verdict(r, ST_OUT_OF_BOUNDS, "The kernel wrote past the end of '%s' at %s: the guard bytes after it "
		               "were changed. Check the bounds of every store.", t->args[i].name, c->label);
	if (!strcmp(status, "input") && i >= 0)
		return verdict(r, ST_INPUTS_MODIFIED, "The kernel changed its input '%s' at %s. Inputs are const: leave "
		               "them as they are.", t->args[i].name, c->label);
	return verdict(r, ST_SANDBOX, "The harness's reply was tampered with: '%.200s'", line);
}

int
hcall(struct harness *h, int group, int noop, const struct runin *in, struct hres *r)
{
	hcallsend(h, group, noop, in);
	return hcallwait(h, r);
}

/* a command whose reply is "ok" */
static int simple(struct harness *h, struct hres *r, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int
simple(struct harness *h, struct hres *r, const char *fmt, ...)
{
	char line[4096], command[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(command, sizeof command, fmt, ap);
	va_end(ap);
	memset(r, 0, sizeof *r);
	if (childsend(&h->ch, "%s", command) < 0 || await(h, line, sizeof line, 300, h->c ? h->c->label : "?", r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The process running the kernel was gone.");
	if (!strcmp(line, "ok"))
		return 0;
	if (!strncmp(line, "cuda ", 5))
		return cudaerror(h, line, h->c ? h->c->label : "?", r);
	if (!strncmp(line, "error", 5))
		return failed(h, "the harness rejected a command: %s", line);
	return verdict(r, ST_SANDBOX, "The harness's reply was not the one expected: '%.200s' (an extra or forged "
	               "reply)", line);
}

int
hfetch(struct harness *h, int group, struct hres *r)
{
	return simple(h, r, "fetch %d 0", group);
}

int
hhold(struct harness *h, int group, int slot, struct hres *r)
{
	return simple(h, r, "hold %d %d", group, slot);
}

int
hfetchhold(struct harness *h, int slot, size_t off, struct hres *r)
{
	return simple(h, r, "fetchhold %d %lld", slot, (long long)off);
}

int
hfetchimported(struct harness *h, int slot, size_t off, struct hres *r)
{
	return simple(h, r, "fetchimported %d %lld", slot, (long long)off);
}

int
hpin(struct harness *h, size_t len, struct hres *r)
{
	return simple(h, r, "pin %zu", len);
}

int
hsample(struct harness *h, int arg, size_t off, struct hres *r)
{
	return simple(h, r, "sample %d %lld %zu", tensornumber(h->t, arg), (long long)comparestep(h->c->numel[arg]), off);
}

int
hexport(struct harness *h, int *fd, size_t *slot, struct hres *r)
{
	char line[4096];
	int n = 0;

	memset(r, 0, sizeof *r);
	*fd = -1;
	if (childsend(&h->ch, "export") < 0 || await(h, line, sizeof line, 300, h->c ? h->c->label : "?", r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The process running the kernel was gone.");
	if (!strncmp(line, "cuda ", 5))
		return cudaerror(h, line, h->c ? h->c->label : "?", r);
	if (!strncmp(line, "error", 5))
		return failed(h, "the harness rejected a command: %s", line);
	if (sscanf(line, "ipc %zu%n", slot, &n) != 1 || line[n])
		return verdict(r, ST_SANDBOX, "The harness's reply was not the one expected: '%.200s'", line);
	/* sent before the reply */
	if ((*fd = childrecvfd(&h->ch)) < 0)
		return verdict(r, ST_CRASH, "The harness exported its held copies, but no descriptor came.");
	return 0;
}

int
himport(struct harness *h, int fd, size_t len, struct hres *r)
{
	memset(r, 0, sizeof *r);
	if (childsendfd(&h->ch, fd) < 0)
		return verdict(r, ST_CRASH, "The process running the oracle was gone.");
	return simple(h, r, "import %zu", len);
}

int
hcompare(struct harness *h, int ipc, int arg, size_t off, const struct targ *tols, struct hres *r,
         struct cmpsums *sums, uint64_t *hash)
{
	char line[4096];
	long long b;
	unsigned long long hv;

	memset(r, 0, sizeof *r);
	if (childsend(&h->ch, "compare %s %lld %d %a %a", ipc ? "ipc" : "shm", (long long)off, tensornumber(h->t, arg),
	              tols->atol, tols->rtol) < 0 ||
	    await(h, line, sizeof line, 300, h->c ? h->c->label : "?", r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The process running the oracle was gone.");
	if (!strncmp(line, "cuda ", 5))
		return cudaerror(h, line, h->c ? h->c->label : "?", r);
	if (!strncmp(line, "error", 5))
		return failed(h, "the harness rejected a command: %s", line);
	if (sscanf(line, "cmp %lld %lf %lf %llu", &b, &sums->num, &sums->den, &hv) != 4 || b < 0)
		return verdict(r, ST_SANDBOX, "The harness's reply was not the one expected: '%.200s'", line);
	sums->bad = (unsigned long long)b;
	*hash = hv;
	return 0;
}

int
hsync(struct harness *h, struct hres *r)
{
	return simple(h, r, "sync");
}

int
hlock(struct harness *h, struct hres *r)
{
	char line[512], *bar;
	int n = 0;

	memset(r, 0, sizeof *r);
	if (childsend(&h->ch, "lock") < 0 || await(h, line, sizeof line, 300, h->c ? h->c->label : "?", r))
		return r->verdict ? 1 : verdict(r, ST_CRASH, "The process running the kernel was gone.");
	/* locked LOCKDOWN|LAUNCHCHECK */
	if (strncmp(line, "locked ", 7) || !(bar = strchr(line + 7, '|')) || (n = (int)(bar - (line + 7))) == 0 ||
	    n >= (int)sizeof h->gpu.lockdown || !bar[1] || strlen(bar + 1) >= sizeof h->gpu.launches)
		return verdict(r, ST_SANDBOX, "The harness's reply was not the one expected: '%.200s'", line);
	memcpy(h->gpu.lockdown, line + 7, (size_t)n);
	h->gpu.lockdown[n] = 0;
	snprintf(h->gpu.launches, sizeof h->gpu.launches, "%s", bar + 1);
	/* a Python harness whose lockdown failed where seccomp is to be had:
	 * its first calls (before the lock) may have made it fail */
	if (h->python && strcmp(h->gpu.lockdown, "seccomp") && strcmp(h->gpu.lockdown, LOCKDOWN_UNSUPPORTED))
		return verdict(r, ST_SANDBOX, "The harness could not lock itself down after the first calls: %s",
		               h->gpu.lockdown);
	return 0;
}

void
hkill(struct harness *h)
{
	childkill(&h->ch);
}

int
hstop(struct harness *h)
{
	return childstop(&h->ch);
}

void
hretire(struct harness *h, struct harness *to)
{
	childsend(&h->ch, "quit");
	childdetach(&h->ch);
	*to = *h;
	h->ch.pid = 0; /* what else hstop would undo is to's now */
	h->ch.scratch[0] = h->ch.cgroup[0] = 0;
}

unsigned char *
htakeshm(struct harness *h, size_t *len)
{
	unsigned char *p = h->ch.shm;

	*len = h->ch.shmlen ? h->ch.shmlen : 1;
	h->ch.shm = NULL; /* childstop leaves it mapped */
	return p;
}

const void *
houtput(const struct harness *h, size_t off, int i)
{
	return h->ch.shm + off + h->outoff[i];
}

/* one thread's share of a tensor's words */
struct hashpart {
	const unsigned char *p;
	size_t n;
	uint64_t salt, first, sum;
};

static void *
hashpart(void *arg)
{
	struct hashpart *w = arg;

	w->sum = rt_hashpart(w->p, w->n, w->salt, w->first);
	return NULL;
}

/* the hash of one tensor of n bytes, on the CPUs (any split sums the same) */
static uint64_t
hashtensor(const unsigned char *p, size_t n, uint64_t salt)
{
	struct hashpart w[PARTS_MAX];
	size_t words = n / 8, per;
	uint64_t sum = 0;
	int k, parts = partsfor(n, (size_t)8 << 20, PARTS_MAX);

	per = (words + (size_t)parts - 1) / (size_t)parts;
	for (k = 0; k < parts; k++) {
		size_t from = (size_t)k * per * 8, to = k == parts - 1 ? n : (size_t)(k + 1) * per * 8;
		w[k].p = p + (from < n ? from : n);
		w[k].n = to > from ? to - from : 0;
		w[k].salt = salt;
		w[k].first = (uint64_t)k * per;
	}
	runparts(hashpart, w, sizeof w[0], parts);
	for (k = 0; k < parts; k++)
		sum += w[k].sum;
	return sum;
}

uint64_t
hhash(const struct harness *h, const unsigned char *base)
{
	const struct task *t = h->t;
	uint64_t sum = 0;
	int i, k = 0;

	for (i = 0; i < t->nargs; i++) {
		if (!istensor(&t->args[i]))
			continue;
		if (isoutput(&t->args[i]))
			sum += hashtensor(base + h->outoff[i], tbytes(t, h->c, i), (uint64_t)k);
		k++;
	}
	return sum;
}
