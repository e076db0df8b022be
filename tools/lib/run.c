/* run.c - see run.h */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sandbox.h"
#include "tensor.h"



int
parseready(const char *line, struct gpuinfo *g)
{
	memset(g, 0, sizeof *g);
	return sscanf(line, "ready %127[^|]|%15[^|]|%ld|%d|%d|%d", g->name, g->cc, &g->l2, &g->sms,
	              &g->driver, &g->runtime) == 6 ? 0 : -1;
}

json_t *
gpujson(const struct gpuinfo *g)
{
	char drv[32], rt[32];

	snprintf(drv, sizeof drv, "%d.%d", g->driver / 1000, g->driver % 1000 / 10);
	snprintf(rt, sizeof rt, "%d.%d", g->runtime / 1000, g->runtime % 1000 / 10);
	return json_pack("{s:s,s:s,s:s,s:s,s:i,s:I}", "name", g->name, "compute_capability", g->cc,
	                 "driver_cuda", drv, "runtime", rt, "sms", g->sms, "l2_bytes", (json_int_t)g->l2);
}

/* CUDA errors that mean the machine, not the candidate, failed */
const char *
harnessready(struct child *ch, struct gpuinfo *g, char *why, size_t cap)
{
	char line[8192];

	switch (childread(ch, line, sizeof line, 120)) {
	case -1:
		snprintf(why, cap, "The candidate did not finish loading within 120 s.");
		return "timeout";
	case -2: {
		char what[128], out[1024];
		describestatus(childstop(ch), what, sizeof what);
		childoutput(ch, out, sizeof out);
		snprintf(why, cap, "The harness %s while loading the candidate. Its output ended with:\n%s", what, out);
		return "crash";
	}
	}
	if (!strncmp(line, "nodevice", 8))
		die(EXIT_RETRY, "the GPU is gone: %s", line + 9);
	if (!strncmp(line, "loaderror", 9) || !strncmp(line, "noentry", 7)) {
		snprintf(why, cap, "The shared object could not be loaded: %s", line);
		return "load_error";
	}
	if (parseready(line, g) < 0) {
		snprintf(why, cap, "The harness's first reply was tampered with: '%.200s'", line);
		return "sandbox";
	}
	return NULL;
}

int
lostgpu(int code)
{
	return code == 100 /* no device */ || code == 46 /* devices unavailable */ ||
	       code == 214 /* ECC uncorrectable */ || code == 3 /* initialization error */;
}


/* describe the draws of one run for the teacher: "x: uniform in [-1, 1)" */
void
drawtext(json_t *draws, char *out, size_t cap)
{
	json_t *d;
	size_t i, len = 0;

	out[0] = 0;
	json_array_foreach(draws, i, d) {
		const char *dist = jstr(d, "dist", "?");
		len += (size_t)snprintf(out + len, cap > len ? cap - len : 0, "%s%s: %s", i ? ", " : "",
		                        jstr(d, "name", "?"), dist);
		if (!strcmp(dist, "uniform") || !strcmp(dist, "randint"))
			len += (size_t)snprintf(out + len, cap > len ? cap - len : 0, " in [%g, %g)",
			                        jnum(d, "lo", 0), jnum(d, "hi", 0));
		if (jbool(d, "special", 0))
			len += (size_t)snprintf(out + len, cap > len ? cap - len : 0, " with NaN and Inf");
		if (len >= cap)
			break;
	}
}

/* the layout of one call in shared memory: inputs first, then every tensor coming back */
size_t
layoutsets(const struct task *t, const struct tcase *c, int nsets, size_t (*inoff)[MAXARGS], size_t outoff[])
{
	size_t off = 0;
	int i, s;

	for (s = 0; s < nsets; s++)
		for (i = 0; i < t->nargs; i++)
			if (t->args[i].kind == ARG_IN || t->args[i].kind == ARG_INOUT) {
				inoff[s][i] = off;
				off += (tbytes(t, c, i) + 63) & ~(size_t)63;
			}
	for (i = 0; i < t->nargs; i++)
		if (istensor(&t->args[i])) {
			outoff[i] = off;
			off += (tbytes(t, c, i) + 63) & ~(size_t)63;
		}
	return off;
}

size_t
layout(const struct task *t, const struct tcase *c, size_t inoff[MAXARGS], size_t outoff[])
{
	return layoutsets(t, c, 1, (size_t (*)[MAXARGS])inoff, outoff);
}

void
callline(struct buf *b, const struct task *t, const struct tcase *c, const size_t inoff[], const size_t outoff[])
{
	int i;

	bufprintf(b, "call %d", ntensors(t));
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (!istensor(a))
			continue;
		bufprintf(b, " %d %d %lld %zu %zu", a->kind, dtinfos[a->dt].size, (long long)c->numel[i],
		          a->kind == ARG_OUT ? (size_t)0 : inoff[i], outoff[i]);
	}
	casetail(b, c);
}

int
ntensors(const struct task *t)
{
	int i, n = 0;

	for (i = 0; i < t->nargs; i++)
		n += istensor(&t->args[i]);
	return n;
}

void
casetail(struct buf *b, const struct tcase *c)
{
	int i;

	bufprintf(b, " %d", c->nsizes);
	for (i = 0; i < c->nsizes; i++)
		bufprintf(b, " %lld", (long long)c->sizes[i]);
	bufprintf(b, " %d", c->nscalars);
	for (i = 0; i < c->nscalars; i++)
		bufprintf(b, " %.17g", c->scalars[i]);
}


uint64_t
seedof(json_t *d)
{
	return strtoull(jstr(d, "seed", "0"), NULL, 10);
}

/* fill the inputs of one run, as the reference saw them; returns private copies */
void
drawinto(const struct task *t, const struct tcase *c, json_t *draws, void *const dst[])
{
	json_t *d;
	size_t k;
	int i;

	json_array_foreach(draws, k, d) {
		for (i = 0; i < t->nargs; i++)
			if (!strcmp(t->args[i].name, jstr(d, "name", "")))
				break;
		if (i == t->nargs || !dst[i])
			die(EXIT_USAGE, "expected.json draws an unknown input '%s'", jstr(d, "name", ""));
		tensorfillpar(dst[i], t->args[i].dt, (size_t)c->numel[i], distfind(jstr(d, "dist", "normal")),
		              jnum(d, "lo", -1), jnum(d, "hi", 1), jbool(d, "special", 0), seedof(d));
	}
}

void
makeinputs(const struct task *t, const struct tcase *c, json_t *draws, void *copies[])
{
	int i;

	for (i = 0; i < t->nargs; i++)
		if (t->args[i].kind == ARG_IN || t->args[i].kind == ARG_INOUT)
			copies[i] = xmalloc(tbytes(t, c, i) + 1);
	drawinto(t, c, draws, copies);
}


/* a number for JSON: NaN and Inf, which JSON lacks, as strings */
json_t *
jsonnum(double v)
{
	if (isfinite(v))
		return json_real(v);
	return json_string(isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
}

