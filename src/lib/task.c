/* task.c - see task.h */
#include "task.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tensor.h"

const char *const argkinds[ARG_KINDS + 1] = { "in", "out", "inout", "size", "scalar", NULL };

int
argkindfind(const char *name)
{
	int k;

	for (k = 0; k < ARG_KINDS; k++)
		if (!strcmp(argkinds[k], name))
			return k;
	return -1;
}

static void
label(struct tcase *o, const char *name, long long v)
{
	size_t n = strlen(o->label);

	snprintf(o->label + n, sizeof o->label - n, "%s%s=%lld", n ? ", " : "", name, v);
}

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
		json_t *r = json_object_get(ranges, a->name);
		if (json_is_array(r)) {
			o->lo[i] = json_number_value(json_array_get(r, 0));
			o->hi[i] = json_number_value(json_array_get(r, 1));
		}
		if (a->kind == ARG_SIZE) {
			json_t *v = json_object_get(sizes, a->name);
			if (!json_is_integer(v)) {
				snprintf(err, errlen, "case lacks size '%s'", a->name);
				return -1;
			}
			o->sizes[o->nsizes++] = json_integer_value(v);
			label(o, a->name, (long long)json_integer_value(v));
		} else if (a->kind == ARG_SCALAR) {
			json_t *v = json_object_get(scalars, a->name);
			if (!json_is_number(v)) {
				snprintf(err, errlen, "case lacks scalar '%s'", a->name);
				return -1;
			}
			o->scalars[o->nscalars++] = json_number_value(v);
		} else {
			json_t *sh = json_object_get(shapes, a->name), *d;
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
		}
	}
	if (!o->label[0])
		snprintf(o->label, sizeof o->label, "fixed shapes");
	return 0;
}

static int
cases(struct task *t, const char *which, struct tcase **arr, int *n, char *err, size_t errlen)
{
	json_t *list = json_object_get(json_object_get(t->json, "cases"), which), *cs;
	size_t i;
	char why[256];

	*arr = xcalloc(json_array_size(list) + 1, sizeof **arr);
	*n = (int)json_array_size(list);
	json_array_foreach(list, i, cs) {
		if (caseload(t, cs, &(*arr)[i], why, sizeof why) < 0) {
			snprintf(err, errlen, "%s case %zu: %s", which, i + 1, why);
			return -1;
		}
		(*arr)[i].hidden = !strcmp(which, casesets[SET_HIDDEN]) || !strcmp(which, "pool");
		(*arr)[i].slot = (int)jint(cs, "slot", -1);
	}
	return 0;
}

const char *const casesets[SET_COUNT] = { "verify", "hidden", "bench" };

const struct tcase *
taskcases(const struct task *t, int s, int *n)
{
	*n = s == SET_BENCH ? t->nbench : s == SET_HIDDEN ? t->nhidden : t->nverify;
	return s == SET_BENCH ? t->bench : s == SET_HIDDEN ? t->hidden : t->verify;
}

int
taskload(const char *path, struct task *t, char *err, size_t errlen)
{
	json_t *j = jload(path, err, errlen);
	int r;

	if (!j) {
		memset(t, 0, sizeof *t);
		return -1;
	}
	r = taskfrom(t, j, path, err, errlen);
	json_decref(j);
	return r;
}

int
taskfrom(struct task *t, json_t *j, const char *path, char *err, size_t errlen)
{
	json_t *a, *tol;
	size_t i, k;
	char why[512];

	memset(t, 0, sizeof *t);
	t->json = json_incref(j);
	if (jint(t->json, "version", 0) != 1) {
		snprintf(err, errlen, "%s: not a task.json of version 1 (rerun gen)", path);
		return -1;
	}
	t->id = jstr(t->json, "id", "?");
	t->entry = jstr(t->json, "entry", "");
	t->signature = jstr(t->json, "signature", "");
	tol = json_object_get(t->json, "tolerance");
	json_array_foreach(json_object_get(t->json, "args"), i, a) {
		struct targ *g = &t->args[t->nargs];
		json_t *d;
		if (t->nargs >= MAXARGS) {
			snprintf(err, errlen, "%s: more than %d args", path, MAXARGS);
			return -1;
		}
		snprintf(g->name, sizeof g->name, "%s", jstr(a, "name", "?"));
		g->kind = argkindfind(jstr(a, "kind", ""));
		g->dt = dtypefind(jstr(a, "dtype", g->kind == ARG_SIZE ? "i32" : ""));
		if (g->kind < 0 || g->dt < 0) {
			snprintf(err, errlen, "%s: arg '%s' has a bad kind or dtype", path, g->name);
			return -1;
		}
		json_array_foreach(json_object_get(a, "dists"), k, d)
			if (g->ndists < 8 && distfind(json_string_value(d)) >= 0)
				g->dists[g->ndists++] = distfind(json_string_value(d));
		if (!g->ndists)
			g->dists[g->ndists++] = dtinfos[g->dt].isfloat ? DIST_NORMAL : DIST_RANDINT;
		g->special = jbool(a, "special", 0);
		g->off[0] = g->off[1] = 0;
		g->scale[0] = g->scale[1] = 1;
		if (json_array_size(json_object_get(a, "offset")) == 2)
			for (k = 0; k < 2; k++)
				g->off[k] = json_number_value(json_array_get(json_object_get(a, "offset"), k));
		if (json_array_size(json_object_get(a, "scale")) == 2)
			for (k = 0; k < 2; k++)
				g->scale[k] = json_number_value(json_array_get(json_object_get(a, "scale"), k));
		g->shape = json_object_get(a, "shape");
		d = json_object_get(tol, g->name);
		g->rel_norm = jnum(d, "rel_norm", deftol(&dtinfos[g->dt], "rel_norm"));
		g->rtol = jnum(d, "rtol", deftol(&dtinfos[g->dt], "rtol"));
		g->atol = jnum(d, "atol", deftol(&dtinfos[g->dt], "atol"));
		t->nargs++;
	}
	if (cases(t, casesets[SET_VERIFY], &t->verify, &t->nverify, why, sizeof why) < 0 ||
	    cases(t, casesets[SET_BENCH], &t->bench, &t->nbench, why, sizeof why) < 0 ||
	    cases(t, casesets[SET_HIDDEN], &t->hidden, &t->nhidden, why, sizeof why) < 0 ||
	    cases(t, "pool", &t->pool, &t->npool, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

void
taskfree(struct task *t)
{
	json_decref(t->json);
	free(t->verify);
	free(t->bench);
	free(t->hidden);
	free(t->pool);
	memset(t, 0, sizeof *t);
}

size_t
tbytes(const struct task *t, const struct tcase *c, int i)
{
	return (size_t)c->numel[i] * (size_t)dtinfos[t->args[i].dt].size;
}

size_t
casebytes(const struct task *t, const struct tcase *c)
{
	size_t n = 0;
	int i;

	for (i = 0; i < t->nargs; i++)
		if (istensor(&t->args[i]))
			n += tbytes(t, c, i);
	return n;
}

size_t
refoutbytes(const struct task *t, const struct tcase *c)
{
	size_t n = 0;
	int i;

	for (i = 0; i < t->nargs; i++)
		if (isoutput(&t->args[i]))
			n += (size_t)c->numel[i] * (size_t)refsize(t->args[i].dt);
	return n;
}

int
ntensors(const struct task *t)
{
	int i, n = 0;

	for (i = 0; i < t->nargs; i++)
		n += istensor(&t->args[i]);
	return n;
}

/* ---- the C side ---- */

const char *
abitype(int kind, int dt, int reference)
{
	switch (kind) {
	case ARG_SIZE:
		return dt == DT_I64 ? "int64_t" : "int";
	case ARG_SCALAR:
		if (!dtinfos[dt].isfloat)
			return dtinfos[dt].ctype;
		return dt == DT_F64 ? "double" : "float";
	default:
		return reference ? dtinfos[dt].reftype : dtinfos[dt].ctype;
	}
}

char *
abiincludes(const struct abiarg *a, size_t n)
{
	const char *seen[DT_COUNT + 1] = { "stdint.h" };
	int nseen = 1;
	struct buf b;
	size_t i;

	bufinit(&b, 1 << 16);
	for (i = 0; i < n; i++) {
		const char *h = dtinfos[a[i].dt].header;
		int k = 0;
		if (!h || strcmp(abitype(a[i].kind, a[i].dt, 0), dtinfos[a[i].dt].ctype))
			continue; /* a float type, or a scalar passed as float */
		while (k < nseen && strcmp(seen[k], h))
			k++;
		if (k == nseen) {
			seen[nseen++] = h;
			bufprintf(&b, "#include <%s>\n", h);
		}
	}
	bufputs(&b, "#include <stdint.h>\n");
	return bufdetach(&b);
}

char *
abisignature(const struct abiarg *a, size_t n, const char *name, int reference)
{
	struct buf b;
	size_t i;

	bufinit(&b, 1 << 16);
	bufprintf(&b, "%svoid %s(", reference ? "" : "extern \"C\" ", name);
	for (i = 0; i < n; i++)
		bufprintf(&b, "%s%s%s%s %s", i ? ", " : "", a[i].kind == ARG_IN ? "const " : "",
		          abitype(a[i].kind, a[i].dt, reference),
		          a[i].kind == ARG_IN || a[i].kind == ARG_OUT || a[i].kind == ARG_INOUT ? "*" : "", a[i].name);
	bufputs(&b, ")");
	return bufdetach(&b);
}

void
abicall(struct buf *b, const struct abiarg *a, size_t n)
{
	size_t i, nt = 0, ns = 0, nc = 0;

	bufputs(b, "\ttypedef void (*fn_t)(");
	for (i = 0; i < n; i++) {
		int tensor = a[i].kind != ARG_SIZE && a[i].kind != ARG_SCALAR;
		bufprintf(b, "%s%s", i ? ", " : "", tensor ? "void *" : abitype(a[i].kind, a[i].dt, 0));
	}
	bufputs(b, ");\n\t((fn_t)fn)(");
	for (i = 0; i < n; i++) {
		bufputs(b, i ? ", " : "");
		if (a[i].kind == ARG_SIZE)
			bufprintf(b, "(%s)sizes[%zu]", abitype(a[i].kind, a[i].dt, 0), ns++);
		else if (a[i].kind == ARG_SCALAR)
			bufprintf(b, "(%s)scalars[%zu]", abitype(a[i].kind, a[i].dt, 0), nc++);
		else
			bufprintf(b, "ptrs[%zu]", nt++);
	}
	bufputs(b, ");\n");
}

int
taskpython(const struct task *t)
{
	json_t *l = json_object_get(t->json, "reference_language");

	return json_is_string(l) && !strcmp(json_string_value(l), "python");
}

int
taskproposed(const struct task *t)
{
	return !strcmp(jstr(json_object_get(t->json, "origin"), "source", ""), "teacher");
}

int
taskbaselinepython(const struct task *t)
{
	return json_object_get(json_object_get(t->json, "baseline"), "python") != NULL;
}

size_t
taskabi(const struct task *t, struct abiarg *a)
{
	int i;

	for (i = 0; i < t->nargs; i++) {
		a[i].name = t->args[i].name;
		a[i].kind = t->args[i].kind;
		a[i].dt = t->args[i].dt;
	}
	return (size_t)t->nargs;
}

/* ---- the task as the teacher is shown it (query-llm's prompts) ---- */

void
taskpysignature(json_t *task, struct buf *b)
{
	json_t *a;
	size_t i;

	bufprintf(b, "def %s(", jstr(task, "entry", ""));
	json_array_foreach(json_object_get(task, "args"), i, a)
		bufprintf(b, "%s%s", i ? ", " : "", jstr(a, "name", ""));
	bufputs(b, ")");
}

void
taskargstable(json_t *task, struct buf *b)
{
	json_t *a;
	size_t i;

	bufputs(b, "| name | kind | dtype | shape |\n|---|---|---|---|\n");
	json_array_foreach(json_object_get(task, "args"), i, a) {
		json_t *sh = json_object_get(a, "shape"), *d;
		size_t j;
		bufprintf(b, "| %s | %s | %s | ", jstr(a, "name", ""), jstr(a, "kind", ""), jstr(a, "dtype", ""));
		if (sh) {
			bufputc(b, '[');
			json_array_foreach(sh, j, d)
				bufprintf(b, "%s%s", j ? ", " : "", json_string_value(d));
			bufputc(b, ']');
		}
		bufputs(b, " |\n");
	}
}

void
tasksizes(json_t *task, struct buf *b)
{
	json_t *cases = json_object_get(task, "cases"), *a;
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *which = i ? "bench" : "verify";
		json_t *c;
		size_t j;
		bufprintf(b, "- %s:", i ? "timed at" : "checked at");
		json_array_foreach(json_object_get(cases, which), j, c) {
			int first = 1;
			size_t n;
			bufputs(b, j ? ";" : "");
			json_array_foreach(json_object_get(task, "args"), n, a) { /* in signature order */
				if (strcmp(jstr(a, "kind", ""), "size"))
					continue;
				bufprintf(b, "%s%s=%" JSON_INTEGER_FORMAT, first ? " " : ", ", jstr(a, "name", ""),
				          jint(json_object_get(c, "sizes"), jstr(a, "name", ""), 0));
				first = 0;
			}
			if (first)
				bufputs(b, " (fixed shapes)");
		}
		if (!i && json_array_size(json_object_get(cases, "hidden")))
			bufputs(b, "; and at sizes not listed here, anywhere the description allows");
		bufputc(b, '\n');
	}
}
