/*
 * models.c - models.yaml: strict validation, and the entry for the
 * configured provider and model resolved (defaults merged) into the JSON
 * that query-llm reads (out/model.json).
 */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "yaml.h"
#include "models.h"

static const char *const modelkeys[] = {
	"provider", "api_model", "max_tokens", "temperature", "top_p", "thinking", "effort",
	"reasoning_effort", "max_tokens_field", "stream", "stream_usage", "prices", "batch_prices",
	"limits", "retry", "batch", "timeout_s", "low_speed_s", "cache_warm_s", NULL
};

static int nerr;

static void bad(const char *path, const struct ynode *n, const char *fmt, ...) PRINTF_LIKE(3, 4);

static void
bad(const char *path, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(path, n->line, n->col, fmt, ap);
	va_end(ap);
	nerr++;
}

static int
inlist(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return 1;
	return 0;
}

/* a scalar as JSON: number, true/false, or string */
static json_t *
scalarjson(const struct ynode *n)
{
	char *end;
	double v;

	if (!n->quoted) {
		if (!strcmp(n->s, "true"))
			return json_true();
		if (!strcmp(n->s, "false"))
			return json_false();
		v = strtod(n->s, &end);
		if (*n->s && !*end && isfinite(v))
			return v == floor(v) && fabs(v) < 1e15 ? json_integer((json_int_t)v) : json_real(v);
	}
	return json_string(n->s);
}

static json_t *
tojson(const struct ynode *n)
{
	json_t *j;
	size_t i;

	switch (n->kind) {
	case Y_SCALAR:
		return scalarjson(n);
	case Y_SEQ:
		j = json_array();
		for (i = 0; i < n->n; i++)
			json_array_append_new(j, tojson(n->kid[i]));
		return j;
	case Y_MAP:
		j = json_object();
		for (i = 0; i + 1 < n->n; i += 2)
			json_object_set_new(j, n->kid[i]->s, tojson(n->kid[i + 1]));
		return j;
	}
	return json_null();
}

/* check one entry's settings (or the defaults) */
static void
checkentry(const char *path, const struct ynode *e, int isdefaults)
{
	static const char *const providers[] = { "anthropic", "openai", "replay", NULL };
	static const char *const numkeys[] = { "max_tokens", "temperature", "top_p", "timeout_s",
	                                       "low_speed_s", "cache_warm_s", NULL };
	static const char *const boolkeys[] = { "stream", "stream_usage", NULL };
	static const char *const subkeys[][7] = {
		{ "prices", "input", "output", "cache_write", "cache_read", NULL },
		{ "batch_prices", "input", "output", "cache_write", "cache_read", NULL },
		{ "limits", "rpm", "tpm", NULL },
		{ "retry", "attempts", "max_wait_s", "retry_after_cap_s", NULL },
		{ "batch", "max_requests", "max_mb", "poll_s", "poll_max_s", "attempts", NULL },
	};
	size_t i, k;

	if (e->kind != Y_MAP) {
		bad(path, e, "a model's settings are a mapping, not %s", ykindname(e->kind));
		return;
	}
	for (i = 0; i + 1 < e->n; i += 2) {
		const char *key = e->kid[i]->s;
		const struct ynode *v = e->kid[i + 1];

		if (!inlist(key, modelkeys)) {
			bad(path, e->kid[i], "unknown model setting '%s'", key);
			continue;
		}
		if (!strcmp(key, "provider")) {
			if (isdefaults)
				bad(path, e->kid[i], "'%s' belongs to each model, not to defaults", key);
			else if (v->kind != Y_SCALAR || !inlist(v->s, providers))
				bad(path, v, "provider is anthropic, openai or replay");
		} else if (inlist(key, numkeys)) {
			json_t *j = v->kind == Y_SCALAR ? scalarjson(v) : NULL;
			if (!json_is_number(j) || json_number_value(j) < 0)
				bad(path, v, "'%s' must be a non-negative number", key);
			json_decref(j);
		} else if (inlist(key, boolkeys)) {
			if (v->kind != Y_SCALAR || (strcmp(v->s, "true") && strcmp(v->s, "false")))
				bad(path, v, "'%s' must be true or false", key);
		} else if (!strcmp(key, "thinking")) {
			if (v->kind != Y_MAP || !yget(v, "type"))
				bad(path, v, "thinking is a mapping with a type, e.g. {type: adaptive}");
		} else if (!strcmp(key, "max_tokens_field")) {
			if (v->kind != Y_SCALAR || (strcmp(v->s, "max_tokens") && strcmp(v->s, "max_completion_tokens")))
				bad(path, v, "max_tokens_field is max_tokens or max_completion_tokens");
		} else if (!strcmp(key, "prices") || !strcmp(key, "batch_prices") || !strcmp(key, "limits") ||
		           !strcmp(key, "retry") || !strcmp(key, "batch")) {
			for (k = 0; strcmp(subkeys[k][0], key); k++)
				;
			if (v->kind != Y_MAP) {
				bad(path, v, "'%s' must be a mapping", key);
				continue;
			}
			if (k < 2 && (!yget(v, "input") || !yget(v, "output")))
				bad(path, v, "'%s' needs input and output (USD per million tokens; cache_write and "
				    "cache_read default to input)", key);
			{
				size_t m;
				for (m = 0; m + 1 < v->n; m += 2) {
					json_t *j = v->kid[m + 1]->kind == Y_SCALAR ? scalarjson(v->kid[m + 1]) : NULL;
					if (!inlist(v->kid[m]->s, subkeys[k] + 1))
						bad(path, v->kid[m], "unknown key '%s'", v->kid[m]->s);
					else if (!json_is_number(j) || json_number_value(j) < 0)
						bad(path, v->kid[m + 1], "'%s' must be a non-negative number", v->kid[m]->s);
					json_decref(j);
				}
			}
		} else if (v->kind != Y_SCALAR) {
			bad(path, v, "'%s' must be a single value", key);
		}
	}
}

/* merge src's keys into dst, one level deep for mappings */
static void
merge(json_t *dst, json_t *src)
{
	const char *k;
	json_t *v;

	json_object_foreach(src, k, v) {
		json_t *d = json_object_get(dst, k);
		if (json_is_object(d) && json_is_object(v) && strcmp(k, "thinking") != 0)
			json_object_update(d, v);
		else
			json_object_set(dst, k, v);
	}
}

/* a price table's cache parts that are left out cost as much as its input */
static void
fillprices(json_t *m)
{
	static const char *const tables[] = { "prices", "batch_prices" };
	size_t i;

	for (i = 0; i < 2; i++) {
		json_t *pr = json_object_get(m, tables[i]);
		if (!json_is_object(pr))
			continue;
		if (!json_object_get(pr, "cache_write"))
			json_object_set(pr, "cache_write", json_object_get(pr, "input"));
		if (!json_object_get(pr, "cache_read"))
			json_object_set(pr, "cache_read", json_object_get(pr, "input"));
	}
}

void
modelprices(json_t *m, double in, double out)
{
	json_t *pr = json_pack("{s:f,s:f,s:f,s:f}", "input", in, "output", out, "cache_write", in,
	                       "cache_read", in);

	json_object_set_new(m, "prices", pr);
	json_object_set(m, "batch_prices", pr);
	json_object_set_new(m, "prices_from", json_string("configure"));
}

/*
 * A model no entry names: an id of an API provider's family gets the
 * defaults alone (nothing guessed: no thinking, no effort), no prices
 * (the defaults' zeros would read as free) and "listed": false. *note
 * says so, with the nearest listed id of that provider as a hint. Any
 * other id is an error, with the same hint.
 */
static int
unlisted(const char *path, const struct ynode *defs, const struct ynode *models,
         const char *provider, const char *model, json_t **out, char **note)
{
	const char **ids = xcalloc(models->n / 2 + 1, sizeof *ids), *near;
	size_t i, n = 0;
	int family = !strcmp(provider, "openai") ||
	             (!strcmp(provider, "anthropic") && !strncmp(model, "claude-", 7));
	char hint[256] = "";

	for (i = 0; i + 1 < models->n; i += 2) {
		const struct ynode *p = yget(models->kid[i + 1], "provider");
		if (p && p->kind == Y_SCALAR && !strcmp(p->s, provider) &&
		    !strpbrk(models->kid[i]->s, "*?["))
			ids[n++] = models->kid[i]->s;
	}
	if ((near = closest(model, ids)))
		snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
	free(ids);
	if (!family) {
		diag(path, models->line, models->col,
		     "no entry for model '%s' with provider %s%s: add one under 'models'%s", model,
		     provider, strcmp(provider, "anthropic") ? "" : ", and it is no Anthropic id (claude-...)",
		     hint);
		return -1;
	}
	*out = defs ? tojson(defs) : json_object();
	json_object_del(*out, "prices");
	json_object_del(*out, "batch_prices");
	json_object_set_new(*out, "provider", json_string(provider));
	json_object_set_new(*out, "listed", json_false());
	*note = xasprintf("model %s: not in models.yaml, using %s's defaults; prices unknown%s",
	                  model, provider, hint);
	return 0;
}

int
modelresolve(const char *path, const char *provider, const char *model, json_t **out,
             char **note)
{
	struct ydoc doc;
	struct ynode *root, *defs, *models, *hit = NULL;
	const char *hitkey = NULL;
	size_t i;
	int r = -1;

	*out = NULL;
	*note = NULL;
	nerr = 0;
	if (yloadfile(path, &doc) < 0)
		goto out;
	root = doc.root;
	if (!root || root->kind != Y_MAP) {
		diag(path, 0, 0, "models.yaml is a mapping with 'defaults' and 'models'");
		goto out;
	}
	for (i = 0; i + 1 < root->n; i += 2)
		if (strcmp(root->kid[i]->s, "defaults") && strcmp(root->kid[i]->s, "models"))
			bad(path, root->kid[i], "unknown key '%s' (models.yaml has defaults and models)",
			    root->kid[i]->s);
	defs = yget(root, "defaults");
	models = yget(root, "models");
	if (defs)
		checkentry(path, defs, 1);
	if (!models || models->kind != Y_MAP) {
		diag(path, root->line, root->col, "models.yaml needs a 'models' mapping");
		goto out;
	}
	for (i = 0; i + 1 < models->n; i += 2) {
		struct ynode *e = models->kid[i + 1];
		struct ynode *p = yget(e, "provider");
		checkentry(path, e, 0);
		if (!p)
			bad(path, models->kid[i], "model '%s' needs a provider", models->kid[i]->s);
		else if (!hit && p->kind == Y_SCALAR && !strcmp(p->s, provider) &&
		         fnmatch(models->kid[i]->s, model, 0) == 0) {
			hit = e;
			hitkey = models->kid[i]->s;
		}
	}
	if (nerr)
		goto out;
	if (!hit) {
		if (unlisted(path, defs, models, provider, model, out, note) < 0)
			goto out;
	} else {
		json_t *e = tojson(hit);
		*out = defs ? tojson(defs) : json_object();
		merge(*out, e);
		json_decref(e);
		json_object_set_new(*out, "entry", json_string(hitkey));
		if (!json_object_get(*out, "prices") && strcmp(provider, "replay"))
			*note = xasprintf("model %s: models.yaml's entry '%s' has no prices: prices unknown", model,
			                  hitkey);
	}
	fillprices(*out);
	json_object_set_new(*out, "name", json_string(model));
	if (!json_object_get(*out, "api_model"))
		json_object_set_new(*out, "api_model", json_string(model));
	r = 0;
out:
	if (r < 0 && !nerr && diagcount() == 0)
		diag(path, 0, 0, "invalid models file");
	yfree(&doc);
	return r;
}
