/*
 * status.c - the build's live status file (status.h): updated under a
 * lock, written whole, read without one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "schema.h"
#include "status.h"
#include "util.h"

/* this process's part in the status: what to note if it exits without its end */
static struct {
	char *path;
	int isopen;  /* a request in flight */
	int armed;   /* atend registered */
} self;

/*
 * The ninja this process runs under, as PID@HOST:NS: the nearest ancestor
 * named ninja (or samu) within a few generations (ninja runs a command
 * through sh, which may or may not exec it), else the parent.
 */
static void
runname(char *dst, size_t cap)
{
	long parent = (long)getppid(), p = parent;
	int depth;

	for (depth = 0; depth < 4 && p > 1; depth++) {
		char path[64], buf[512], *open, *close;
		FILE *f;
		size_t n;

		snprintf(path, sizeof path, "/proc/%ld/stat", p);
		if (!(f = fopen(path, "r")))
			break;
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		open = strchr(buf, '(');
		close = strrchr(buf, ')');
		if (!open || !close || close < open)
			break;
		*close = 0;
		if (!strcmp(open + 1, "ninja") || !strcmp(open + 1, "samu")) {
			snprintf(dst, cap, "%ld@%s", p, makerplace());
			return;
		}
		p = close[1] && close[2] && close[3] ? atol(close + 4) : 0; /* ") S PPID" */
	}
	snprintf(dst, cap, "%ld@%s", parent, makerplace());
}

static json_t *
fresh(const char *run)
{
	return json_pack("{s:s,s:f,s:{s:i,s:i,s:i,s:i,s:i},s:{},s:i,s:f,s:i,s:{s:{},s:{},s:i}}", "run", run, "started",
	                 wallclock(), "requests", "asked", 0, "cached", 0, "replayed", 0, "finished", 0, "failed", 0,
	                 "in_flight", "tokens", 0, "cost_usd", 0.0, "unpriced", 0, "gpu", "waiting", "running", "done",
	                 0);
}

static void
bump(json_t *o, const char *key, double by)
{
	json_t *v = json_object_get(o, key);

	if (json_is_real(v))
		json_object_set_new(o, key, json_real(json_real_value(v) + by));
	else
		json_object_set_new(o, key, json_integer(jint(o, key, 0) + (json_int_t)by));
}

static void
apply(json_t *st, const struct statusupdate *u, const char *me)
{
	static const char *const reqkeys[] = { [STATUS_ASKED] = "asked", [STATUS_CACHED] = "cached",
	                                       [STATUS_REPLAYED] = "replayed", [STATUS_FINISHED] = "finished",
	                                       [STATUS_FAILED] = "failed" };
	json_t *req = json_object_get(st, "requests"), *gpu = json_object_get(st, "gpu");
	json_t *entry = json_pack("{s:s,s:f}", "task", u->what ? u->what : "", "since", wallclock());

	switch (u->event) {
	case STATUS_ASKING:
		json_object_set_new(json_object_get(st, "in_flight"), me, entry);
		return;
	case STATUS_GPU_WAIT:
	case STATUS_GPU_RUN:
		json_object_del(json_object_get(gpu, "waiting"), me);
		json_object_set_new(json_object_get(gpu, u->event == STATUS_GPU_WAIT ? "waiting" : "running"), me, entry);
		return;
	default:
		json_object_del(json_object_get(st, "in_flight"), me);
		bump(req, reqkeys[u->event], 1);
		if (u->event == STATUS_ASKED) {
			bump(st, "tokens", usagetokens(u->usage));
			if (u->priced)
				json_object_set_new(st, "cost_usd", json_real(jnum(st, "cost_usd", 0) + u->usd));
			else
				bump(st, "unpriced", 1);
		}
	}
	json_decref(entry);
}

/* drop the entries of map whose processes are gone, counting them in counter's key (NULL: not counted) */
static void
prunemap(json_t *map, json_t *counter, const char *key)
{
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(map, tmp, k, v)
		if (ownergone(k)) {
			json_object_del(map, k);
			if (counter)
				bump(counter, key, 1);
		}
}

/*
 * The processes gone: a request in flight ended without its answer (a
 * kill): failed; a GPU edge that had its GPU is done; one that was
 * waiting is no longer.
 */
static void
prune(json_t *st)
{
	json_t *gpu = json_object_get(st, "gpu");

	prunemap(json_object_get(st, "in_flight"), json_object_get(st, "requests"), "failed");
	prunemap(json_object_get(gpu, "waiting"), NULL, NULL);
	prunemap(json_object_get(gpu, "running"), gpu, "done");
}

static void
atend(void)
{
	struct statusupdate u = { STATUS_FAILED, NULL, NULL, 0, 1 };

	if (self.isopen)
		statusnote(self.path, &u);
}

int
statusnote(const char *path, const struct statusupdate *u)
{
	char me[320], run[320], err[600], *dir = xstrdup(path), *slash = strrchr(dir, '/'), *lock;
	json_t *st;
	int fd, r = 0;

	if (slash)
		*slash = 0;
	lock = xasprintf("%s.lock", slash ? slash + 1 : path);
	fd = lockfile(slash ? dir : ".", lock, err, sizeof err);
	free(lock);
	free(dir);
	if (fd < 0) {
		warn("the build's status is not kept: %s", err);
		return -1;
	}
	ownername(me, sizeof me);
	runname(run, sizeof run);
	st = access(path, F_OK) == 0 ? jload(path, err, sizeof err) : NULL;
	if (!st || strcmp(jstr(st, "run", ""), run) || !json_is_object(json_object_get(st, "requests")) ||
	    !json_is_object(json_object_get(st, "in_flight")) || !json_is_object(json_object_get(st, "gpu"))) {
		json_decref(st); /* another ninja's (or a damaged file): this run starts afresh */
		st = fresh(run);
	}
	prune(st);
	apply(st, u, me);
	json_object_set_new(st, "updated", json_real(wallclock()));
	if (jreplace(path, st) < 0) {
		warn("the build's status is not kept: cannot write '%s':", path);
		r = -1;
	}
	json_decref(st);
	close(fd);
	self.isopen = u->event == STATUS_ASKING;
	if (!self.armed && self.isopen) {
		free(self.path);
		self.path = xstrdup(path);
		self.armed = atexit(atend) == 0;
	}
	return r;
}

json_t *
statusload(const char *path)
{
	char err[600], run[320];
	json_t *st = access(path, F_OK) == 0 ? jload(path, err, sizeof err) : NULL;
	json_t *gpu;

	if (!json_is_object(st)) {
		json_decref(st);
		return NULL;
	}
	gpu = json_object_get(st, "gpu");
	prune(st);
	runname(run, sizeof run);
	json_object_set_new(st, "this_run", json_boolean(!strcmp(jstr(st, "run", ""), run)));
	/* while something runs, or read from the run itself (its last edge), the time so far; else until
	 * the last update */
	json_object_set_new(st, "elapsed_s", json_real((jbool(st, "this_run", 0) ||
	                                                json_object_size(json_object_get(st, "in_flight")) ||
	                                                json_object_size(json_object_get(gpu, "waiting")) ||
	                                                json_object_size(json_object_get(gpu, "running")) ?
	                                                wallclock() : jnum(st, "updated", 0)) - jnum(st, "started", 0)));
	return st;
}

/* "1h02m", "5m12s", "42s" */
static void
duration(char *dst, size_t cap, double s)
{
	long t = s > 0 ? (long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(dst, cap, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(dst, cap, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(dst, cap, "%lds", t);
}

char *
statusline(const json_t *st)
{
	const json_t *req = json_object_get(st, "requests"), *gpu = json_object_get(st, "gpu");
	json_int_t asked = jint(req, "asked", 0), cached = jint(req, "cached", 0), replayed = jint(req, "replayed", 0);
	json_int_t unpriced = jint(st, "unpriced", 0);
	char usd[128], took[32];
	struct buf b;

	if (asked && unpriced == asked)
		snprintf(usd, sizeof usd, "$ unknown (the model has no prices)");
	else if (unpriced)
		snprintf(usd, sizeof usd, "$%.4f + %lld answers of unknown price", jnum(st, "cost_usd", 0),
		         (long long)unpriced);
	else
		snprintf(usd, sizeof usd, "$%.4f", jnum(st, "cost_usd", 0));
	duration(took, sizeof took, jnum(st, "elapsed_s", 0));
	bufinit(&b, 4096);
	bufprintf(&b, "requests: %lld answered (%lld asked, %lld from the cache, %lld replayed), %zu in flight, "
	          "%lld failed, %lld not needed; %lld tokens, %s", (long long)(asked + cached + replayed),
	          (long long)asked, (long long)cached, (long long)replayed,
	          json_object_size(json_object_get(st, "in_flight")), (long long)jint(req, "failed", 0),
	          (long long)jint(req, "finished", 0), (long long)jint(st, "tokens", 0), usd);
	bufprintf(&b, "; GPU: %zu waiting, %zu running, %lld done", json_object_size(json_object_get(gpu, "waiting")),
	          json_object_size(json_object_get(gpu, "running")), (long long)jint(gpu, "done", 0));
	bufprintf(&b, "; %s", took);
	return bufdetach(&b);
}
