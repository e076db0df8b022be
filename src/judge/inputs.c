/* inputs.c - see inputs.h */
#include "inputs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "../lib/draw.h"
#include "../lib/json.h"
#include "../lib/sha.h"
#include "../lib/tensor.h"
#include "../lib/util.h"

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
		tmp = tempname(path, "tmp");
		fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0 && write(fd, fresh, sizeof fresh) == (ssize_t)sizeof fresh && fsync(fd) == 0) {
			close(fd);
			if (link(tmp, path) < 0 && errno != EEXIST) {
				snprintf(err, errlen, "cannot link '%s': %s", path, strerror(errno));
				unlink(tmp);
				free(tmp);
				free(path);
				return -1;
			}
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
		unsigned char got[33]; /* one more: a longer file is damaged too */
		n = read(fd, got, sizeof got);
		close(fd);
		if (n == 32) {
			memcpy(key, got, 32);
			r = 0;
		}
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

/* a scalar's value drawn in [lo, hi) and rounded to what its type holds */
static double
scalarvalue(int dt, double lo, double hi, uint64_t seed)
{
	double v = rt_value(seed, 0, dtinfos[dt].isfloat ? DIST_UNIFORM : DIST_RANDINT, lo, hi, 0);

	return !dtinfos[dt].isfloat || dt == DT_F64 ? v : (double)(float)v;
}

const char *const poisonnames[POISON_COUNT] = { "ones", "zeros", "huge", "random", "previous" };

/* input arg i's draw: its case's range (an integer one at least 1 wide) */
static void
drawof(const struct targ *a, const struct tcase *c, int i, int dist, int special, uint64_t seed, struct draw *d)
{
	d->dist = dist;
	d->lo = c->lo[i];
	d->hi = c->hi[i];
	d->special = special && a->special;
	d->seed = seed;
	d->off = 0;
	d->scale = 1;
	if (dist == DIST_RANDINT && !dtinfos[a->dt].isfloat && d->hi - d->lo < 1)
		d->hi = d->lo + 1;
}

/* a value in [r[0], r[1]) from the seed, or r[0] when the range is one value */
static double
within(const double r[2], uint64_t seed)
{
	return r[0] < r[1] ? rt_value(seed, 0, DIST_UNIFORM, r[0], r[1], 0) : r[0];
}

void
runinputs(const struct task *t, const struct tcase *c, const unsigned char key[32], const char *what, int ci,
          int k, int special, struct runin *in)
{
	int i, s = 0;

	memset(in, 0, sizeof *in);
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (a->kind == ARG_SCALAR) {
			in->scalars[s] = c->lo[i] < c->hi[i]
			                 ? scalarvalue(a->dt, c->lo[i], c->hi[i], deriveseed(key, t->id, what, ci, k, i))
			                 : c->scalars[s];
			s++;
			continue;
		}
		if (!isinput(a))
			continue;
		drawof(a, c, i, a->dists[k % a->ndists], special, deriveseed(key, t->id, what, ci, k, i), &in->d[i]);
		if (k & 1) { /* the spec's promised offsets and scales, every other run */
			in->d[i].off = within(a->off, rt_mix(in->d[i].seed ^ 0x6f6666736574ull));
			in->d[i].scale = within(a->scale, rt_mix(in->d[i].seed ^ 0x7363616c65ull));
		}
	}
	in->poison = (ci + k) % POISON_COUNT; /* every class over a variant's runs, and over bench's calls */
	in->pseed = deriveseed(key, t->id, what, ci, k, -1);
}

void
drawput(struct buf *b, const struct draw *d)
{
	bufprintf(b, " %d %.17g %.17g %d %llu %.17g %.17g", d->dist, d->lo, d->hi, d->special, (unsigned long long)d->seed,
	          d->off, d->scale);
}

json_t *
runjson(const struct task *t, const struct runin *in)
{
	json_t *draws = json_array(), *scalars = json_array();
	char seed[24];
	int i, s = 0;

	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		const struct draw *d = &in->d[i];
		if (a->kind == ARG_SCALAR) /* every bit of a double: JSON reals are written to 15 digits */
			json_array_append_new(scalars, json_sprintf("%.17g", in->scalars[s++]));
		if (!isinput(a))
			continue;
		snprintf(seed, sizeof seed, "%llu", (unsigned long long)d->seed);
		json_array_append_new(draws, json_pack("{s:s,s:s,s:f,s:f,s:b,s:s,s:o,s:o}", "name", a->name, "dist",
		                      distnames[d->dist], "lo", d->lo, "hi", d->hi, "special", d->special, "seed", seed,
		                      "offset", json_sprintf("%.17g", d->off), "scale", json_sprintf("%.17g", d->scale)));
	}
	snprintf(seed, sizeof seed, "%llu", (unsigned long long)in->pseed);
	return json_pack("{s:o,s:o,s:s,s:s}", "draws", draws, "scalars", scalars, "poison", poisonnames[in->poison],
	                 "poison_seed", seed);
}

int
runfromjson(const struct task *t, const struct tcase *c, json_t *j, struct runin *in)
{
	json_t *d, *sc = json_object_get(j, "scalars");
	size_t k;
	int i, s = 0;

	memset(in, 0, sizeof *in);
	json_array_foreach(json_object_get(j, "draws"), k, d) {
		for (i = 0; i < t->nargs; i++)
			if (!strcmp(t->args[i].name, jstr(d, "name", "")))
				break;
		if (i == t->nargs || !isinput(&t->args[i]) || distfind(jstr(d, "dist", "")) < 0)
			return -1;
		/* the range from the case, as the run drew it (the file's lo and hi are for reading) */
		drawof(&t->args[i], c, i, distfind(jstr(d, "dist", "")), jbool(d, "special", 0),
		       strtoull(jstr(d, "seed", "0"), NULL, 10), &in->d[i]);
		in->d[i].off = strtod(jstr(d, "offset", "0"), NULL);
		in->d[i].scale = strtod(jstr(d, "scale", "1"), NULL);
	}
	for (in->poison = 0; in->poison < POISON_COUNT; in->poison++)
		if (!strcmp(poisonnames[in->poison], jstr(j, "poison", "ones")))
			break;
	if (in->poison == POISON_COUNT)
		return -1;
	in->pseed = strtoull(jstr(j, "poison_seed", "0"), NULL, 10);
	for (i = 0; i < t->nargs; i++)
		if (t->args[i].kind == ARG_SCALAR) {
			json_t *v = json_array_get(sc, (size_t)s);
			in->scalars[s] = json_is_string(v) ? strtod(json_string_value(v), NULL)
			                 : json_is_number(v) ? json_number_value(v) : c->scalars[s];
			s++;
		}
	return 0;
}

void
runtext(const struct task *t, const struct tcase *c, const struct runin *in, char *out, size_t cap)
{
	size_t len = 0;
	int i, s = 0;

	out[0] = 0;
	for (i = 0; i < t->nargs && len < cap; i++) {
		const struct targ *a = &t->args[i];
		const struct draw *d = &in->d[i];
		const char *sep = len ? ", " : "";
		if (a->kind == ARG_SCALAR) { /* the randomized ones */
			if (c->lo[i] < c->hi[i])
				len += (size_t)snprintf(out + len, cap - len, "%s%s = %.9g", sep, a->name, in->scalars[s]);
			s++;
			continue;
		}
		if (!isinput(a))
			continue;
		len += (size_t)snprintf(out + len, cap - len, "%s%s: %s", sep, a->name, distnames[d->dist]);
		if (len < cap && (d->dist == DIST_UNIFORM || d->dist == DIST_RANDINT || d->dist == DIST_TIES))
			len += (size_t)snprintf(out + len, cap - len, " in [%g, %g)", d->lo, d->hi);
		if (len < cap && d->scale != 1)
			len += (size_t)snprintf(out + len, cap - len, " times %.6g", d->scale);
		if (len < cap && d->off != 0)
			len += (size_t)snprintf(out + len, cap - len, " plus %.6g", d->off);
		if (len < cap && d->special)
			len += (size_t)snprintf(out + len, cap - len, " with NaN and Inf");
	}
	if (in->fast && len < cap)
		snprintf(out + len, cap - len, " (drawn as bench draws: normal and heavy values in single precision, "
		         "but for f64)");
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

void
planline(struct buf *plan, const struct task *t, const struct tcase *c, const struct runin *in, json_t *given)
{
	int i;

	bufprintf(plan, "case %d", ntensors(t));
	for (i = 0; i < t->nargs; i++) {
		const struct targ *a = &t->args[i];
		if (!istensor(a))
			continue;
		if (a->kind == ARG_OUT) {
			bufprintf(plan, " 1 %d %lld 0 0 0 0 0 0 1", a->dt, (long long)c->numel[i]);
		} else if (given) {
			json_t *v;
			size_t k;
			bufprintf(plan, " %d %d %lld -1 0 0 0 0 0 1", a->kind, a->dt, (long long)c->numel[i]);
			json_array_foreach(json_object_get(given, a->name), k, v)
				putvalue(plan, v);
		} else {
			bufprintf(plan, " %d %d %lld", a->kind, a->dt, (long long)c->numel[i]);
			drawput(plan, &in->d[i]);
		}
	}
	bufprintf(plan, " %d", c->nsizes);
	for (i = 0; i < c->nsizes; i++)
		bufprintf(plan, " %lld", (long long)c->sizes[i]);
	bufprintf(plan, " %d", c->nscalars);
	for (i = 0; i < c->nscalars; i++)
		bufprintf(plan, " %.17g", in ? in->scalars[i] : c->scalars[i]);
	for (i = 0; i < t->nargs; i++) {
		if (!istensor(&t->args[i]))
			continue;
		bufprintf(plan, " %d", c->ndims[i]);
		for (int d = 0; d < c->ndims[i]; d++)
			bufprintf(plan, " %lld", (long long)c->dims[i][d]);
	}
	bufputc(plan, '\n');
}
