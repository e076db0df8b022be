/* task.c - see task.h */
#include "task.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "json.h"
#include "sha.h"
#include "tensor.h"
#include "util.h"

static const char *const kinds[] = { "in", "out", "inout", "size", "scalar" };

int
caseload(const struct task *t, json_t *c, struct tcase *o, char *err, size_t errlen)
{
	json_t *sizes = json_object_get(c, "sizes"), *scalars = json_object_get(c, "scalars");
	json_t *shapes = json_object_get(c, "shapes"), *ranges = json_object_get(c, "ranges");
	int i;

	memset(o, 0, sizeof *o);
	o->flops = jnum(c, "flops", 0);
	o->bytes = jnum(c, "bytes", 0);
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (a->kind == ARG_SIZE) {
			json_t *v = json_object_get(sizes, a->name);
			if (!json_is_integer(v)) {
				snprintf(err, errlen, "case lacks size '%s'", a->name);
				return -1;
			}
			o->sizes[o->nsizes++] = json_integer_value(v);
			snprintf(o->label + strlen(o->label), sizeof o->label - strlen(o->label), "%s%s=%" JSON_INTEGER_FORMAT,
			         o->label[0] ? ", " : "", a->name, json_integer_value(v));
		} else if (a->kind == ARG_SCALAR) {
			json_t *v = json_object_get(scalars, a->name);
			if (!json_is_number(v)) {
				snprintf(err, errlen, "case lacks scalar '%s'", a->name);
				return -1;
			}
			o->scalars[o->nscalars++] = json_number_value(v);
		} else {
			json_t *sh = json_object_get(shapes, a->name), *d, *r = json_object_get(ranges, a->name);
			size_t k;
			o->numel[i] = 1;
			if (!json_is_array(sh) || json_array_size(sh) > MAXDIMS) {
				snprintf(err, errlen, "case lacks the shape of '%s'", a->name);
				return -1;
			}
			json_array_foreach(sh, k, d) {
				o->dims[i][k] = json_integer_value(d);
				o->numel[i] *= json_integer_value(d);
			}
			o->ndims[i] = (int)json_array_size(sh);
			if (json_is_array(r)) {
				o->lo[i] = json_number_value(json_array_get(r, 0));
				o->hi[i] = json_number_value(json_array_get(r, 1));
			}
		}
	}
	if (!o->label[0])
		snprintf(o->label, sizeof o->label, "fixed shapes");
	return 0;
}

int
taskload(const char *path, struct task *t, char *err, size_t errlen)
{
	json_t *a, *cs, *tol;
	size_t i, k;

	memset(t, 0, sizeof *t);
	if (!(t->json = jload(path, err, errlen)))
		return -1;
	t->id = jstr(t->json, "id", "?");
	t->entry = jstr(t->json, "entry", "");
	tol = json_object_get(t->json, "tolerance");
	json_array_foreach(json_object_get(t->json, "args"), i, a) {
		struct targ *g = &t->args[t->nargs];
		json_t *d;
		if (t->nargs >= MAXARGS) {
			snprintf(err, errlen, "%s: more than %d args", path, MAXARGS);
			return -1;
		}
		snprintf(g->name, sizeof g->name, "%s", jstr(a, "name", "?"));
		g->kind = -1;
		for (k = 0; k < 5; k++)
			if (!strcmp(kinds[k], jstr(a, "kind", "")))
				g->kind = (int)k;
		g->dt = dtypefind(jstr(a, "dtype", ""));
		if (g->kind < 0 || g->dt < 0) {
			snprintf(err, errlen, "%s: arg '%s' has a bad kind or dtype", path, g->name);
			return -1;
		}
		json_array_foreach(json_object_get(a, "dists"), k, d)
			if (g->ndists < 4)
				g->dists[g->ndists++] = distfind(json_string_value(d));
		if (!g->ndists)
			g->dists[g->ndists++] = dtinfos[g->dt].isfloat ? DIST_NORMAL : DIST_RANDINT;
		g->special = jbool(a, "special", 0);
		d = json_object_get(tol, g->name);
		g->rel_norm = jnum(d, "rel_norm", dtinfos[g->dt].rel_norm);
		g->rtol = jnum(d, "rtol", dtinfos[g->dt].rtol);
		g->atol = jnum(d, "atol", dtinfos[g->dt].atol);
		t->nargs++;
	}
	for (k = 0; k < 2; k++) {
		json_t *list = json_object_get(json_object_get(t->json, "cases"), k ? "bench" : "verify");
		struct tcase *arr = xcalloc(json_array_size(list) + 1, sizeof *arr);
		json_array_foreach(list, i, cs)
			if (caseload(t, cs, &arr[i], err, errlen) < 0)
				return -1;
		if (k) {
			t->bench = arr;
			t->nbench = (int)json_array_size(list);
		} else {
			t->verify = arr;
			t->nverify = (int)json_array_size(list);
		}
	}
	return 0;
}

void
taskfree(struct task *t)
{
	json_decref(t->json);
	free(t->verify);
	free(t->bench);
	memset(t, 0, sizeof *t);
}

size_t
tbytes(const struct task *t, const struct tcase *c, int i)
{
	return (size_t)c->numel[i] * (size_t)dtinfos[t->args[i].dt].size;
}

int
secretload(const char *cachedir, unsigned char key[32], char *err, size_t errlen)
{
	char *path = xasprintf("%s/secret", cachedir), *tmp;
	int fd, r = -1;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* made once: write a temporary file, then link it into place,
		 * which fails harmlessly when another process got there first */
		unsigned char fresh[32];
		if (mkdirp(cachedir) < 0 || getrandom(fresh, sizeof fresh, 0) != (ssize_t)sizeof fresh) {
			snprintf(err, errlen, "cannot make the secret in '%s': %s", cachedir, strerror(errno));
			free(path);
			return -1;
		}
		tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0 && write(fd, fresh, sizeof fresh) == (ssize_t)sizeof fresh && fsync(fd) == 0) {
			close(fd);
			if (link(tmp, path) < 0 && errno != EEXIST)
				snprintf(err, errlen, "cannot link '%s': %s", path, strerror(errno));
		} else if (fd >= 0) {
			close(fd);
		}
		unlink(tmp);
		free(tmp);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
	} else {
		n = read(fd, key, 32);
		close(fd);
		if (n == 32)
			r = 0;
		else
			snprintf(err, errlen, "'%s' is damaged (not 32 bytes)", path);
	}
	free(path);
	return r;
}

uint64_t
deriveseed(const unsigned char key[32], const char *variant, const char *what, int c, int run, int arg)
{
	struct sha h;
	char hex[65], ids[64];
	uint64_t s = 0;
	int i;

	shainit(&h);
	shaadd(&h, key, 32);
	shaaddfield(&h, variant);
	shaaddfield(&h, what);
	snprintf(ids, sizeof ids, "%d/%d/%d", c, run, arg);
	shaaddfield(&h, ids);
	shahex(&h, hex);
	for (i = 0; i < 16; i++)
		s = s << 4 | (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	return s;
}

double
refvalue(const void *buf, int dt, size_t i)
{
	/* unaligned-safe: outputs of several dtypes share one buffer */
	if (dtinfos[dt].isfloat && dt != DT_F64) {
		float f;
		memcpy(&f, (const char *)buf + i * sizeof f, sizeof f);
		return f;
	}
	return dtget(buf, dt, i);
}

/* the expected value as a dtype output holds it: a float reference past
 * f16, bf16 or e5m2's range is Inf there (round to nearest overflows) */
static double
asoutput(double w, int dt)
{
	unsigned char h[8];

	/* below 57344 (e5m2's largest finite, the least of the three) nothing overflows */
	if (!dtinfos[dt].isfloat || dt == DT_F32 || dt == DT_F64 || !isfinite(w) || fabs(w) < 57344.0)
		return w;
	dtset(h, dt, 0, w);
	return isinf(dtget(h, dt, 0)) ? dtget(h, dt, 0) : w;
}

static int
within(double got, double want, const struct targ *a)
{
	if (!isfinite(want) || !isfinite(got))
		return isnan(want) ? isnan(got) : got == want;
	return fabs(got - want) <= a->atol + a->rtol * fabs(want);
}

int
elemok(double got, double want, int dt, const struct targ *a)
{
	return within(got, asoutput(want, dt), a);
}

void
compare(const void *got, int dt, const void *want, int64_t n, const struct targ *a, struct cmpres *r)
{
	double num = 0, den = 0;
	int64_t i;

	memset(r, 0, sizeof *r);
	r->n = n;
	for (i = 0; i < n; i++) {
		double g = dtget(got, dt, (size_t)i), w = asoutput(refvalue(want, dt, (size_t)i), dt), d;
		if (isfinite(w) && isfinite(g)) {
			d = fabs(g - w);
			num += d * d;
			den += w * w;
			if (d > r->maxabs)
				r->maxabs = d;
			if (w != 0 && d / fabs(w) > r->maxrel)
				r->maxrel = d / fabs(w);
		}
		if (within(g, w, a))
			continue;
		if (isnan(g) && isfinite(w))
			r->unwritten++;
		else if (!isfinite(g) || !isfinite(w))
			r->nonfinite++;
		if (r->nfirst < 5) {
			r->first[r->nfirst].index = i;
			r->first[r->nfirst].got = g;
			r->first[r->nfirst].want = w;
			r->nfirst++;
		}
		r->bad++;
	}
	r->relnorm = den > 0 ? sqrt(num / den) : sqrt(num);
	r->pass = r->bad == 0 && normok(num, den, a);
}

int
normok(double num, double den, const struct targ *a)
{
	return den > 0 ? sqrt(num / den) <= a->rel_norm : sqrt(num) <= a->atol + a->rel_norm;
}

void
coords(int64_t index, const int64_t *dims, int ndims, char *out, size_t cap)
{
	int64_t c[MAXDIMS];
	int k;
	size_t len = 0;

	for (k = ndims - 1; k >= 0; k--) {
		c[k] = dims[k] ? index % dims[k] : 0;
		index = dims[k] ? index / dims[k] : 0;
	}
	len += (size_t)snprintf(out, cap, "[");
	for (k = 0; k < ndims && len < cap; k++)
		len += (size_t)snprintf(out + len, cap - len, "%s%lld", k ? ", " : "", (long long)c[k]);
	if (len < cap)
		snprintf(out + len, cap - len, "]");
}
