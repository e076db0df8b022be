/*
 * record - one sample's rounds into one dataset record
 *
 * usage: record [--generator VERSION] -o RECORD_JSON TASK_JSON ROUND_FILES...
 *
 * ROUND_FILES are every round's response.json, compile.json, verify.json
 * and bench.json (by folder: .../r<round>/<name>.json; a round may lack
 * the later stages). The record holds, with the same fields in every
 * record (null where a value is missing, so Hugging Face datasets sees one
 * schema):
 *
 *   id, task, variant, sample, teacher {provider, model},
 *   messages      the whole conversation as chat messages {role, content,
 *                 reasoning_content}: system, user, assistant, user
 *                 (feedback), assistant, ... (TRL and Axolotl read this)
 *   final_kernel  the fastest correct round's CUDA source (else the last
 *                 built one), final_round
 *   outcome       correct, incorrect (never passed verify), unverified (no
 *                 GPU to check on), no_code (never a usable answer)
 *   verified_on_gpu, review (flags raised by bench), speedup, sol_percent,
 *   median_ms, gpu
 *   rounds        per round: status, compile status and screen rules,
 *                 verify verdict and feedback, bench status, speedup
 *   usage {input_tokens, output_tokens, cache_write_tokens,
 *         cache_read_tokens}, cost_usd (null when a round's model has no
 *         prices in models.yaml), cache_keys, spec_sha256, generator
 *
 * Measured values (speedup, sol_percent, median_ms, review, and
 * final_kernel and final_round, chosen by speed) vary from run to run;
 * package leaves them out of the projection that reproducibility checks
 * compare.
 *
 * A round file that lacks a field record needs, or has one of another type
 * (the fields table), is bad input.
 *
 * Exit: 0 written; 1 cannot write; 2 bad usage or input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/sha.h"
#include "lib/util.h"

static const char usage[] =
	"usage: record [--generator VERSION] -o RECORD_JSON TASK_JSON ROUND_FILES...\n";


struct round {
	json_t *resp, *comp, *ver, *bench;
};

/* round number and kind from ".../r<k>/<kind>.json" */
static int
classify(const char *path, int *round, const char **kind)
{
	const char *slash = strrchr(path, '/'), *p;
	static const char *const kinds[] = { "response.json", "compile.json", "verify.json", "bench.json" };
	int k;

	if (!slash)
		return -1;
	for (k = 0; k < 4; k++)
		if (!strcmp(slash + 1, kinds[k]))
			break;
	if (k == 4)
		return -1;
	*kind = kinds[k];
	for (p = slash - 1; p > path && p[-1] != '/'; p--)
		;
	if (*p != 'r' || sscanf(p + 1, "%d", round) != 1 || *round < 1 || *round > MAX_ROUNDS)
		return -1;
	return k;
}

/*
 * What record reads of each kind of round file, and its type: a file
 * whose field has another type, or that lacks a required one, is refused
 * (exit 2) rather than recorded as an empty conversation.
 */
enum { T_STR, T_NUM, T_INT, T_OBJ, T_ARR };
static const struct field {
	int kind; /* as classify: response, compile, verify, bench */
	const char *key;
	int type, required;
} fields[] = {
	{ 0, "status", T_STR, 1 }, { 0, "messages", T_ARR, 0 }, { 0, "answer", T_OBJ, 0 }, { 0, "system", T_STR, 0 },
	{ 0, "key", T_STR, 0 }, { 0, "sample", T_INT, 0 }, { 0, "provider", T_STR, 0 }, { 0, "model", T_STR, 0 },
	{ 0, "usage", T_OBJ, 0 }, { 0, "cost_usd", T_NUM, 0 },
	{ 1, "status", T_STR, 1 }, { 1, "violations", T_ARR, 0 }, { 1, "source", T_STR, 0 },
	{ 2, "verdict", T_STR, 1 }, { 2, "feedback", T_STR, 0 },
	{ 3, "status", T_STR, 1 }, { 3, "speedup", T_NUM, 0 }, { 3, "cases", T_ARR, 0 }, { 3, "review", T_ARR, 0 },
	{ 3, "gpu", T_OBJ, 0 },
};

static void
checkfields(json_t *j, int kind, const char *path)
{
	static const char *const names[] = { "a string", "a number", "an integer", "an object", "an array" };
	size_t i;

	if (!json_is_object(j))
		die(EXIT_USAGE, "not a JSON object: '%s'", path);
	for (i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		const struct field *f = &fields[i];
		json_t *v = json_object_get(j, f->key);
		int ok;
		if (f->kind != kind || (!v && !f->required) || (json_is_null(v) && f->type == T_NUM))
			continue;
		ok = f->type == T_STR ? json_is_string(v) : f->type == T_NUM ? json_is_number(v)
		   : f->type == T_INT ? json_is_integer(v) : f->type == T_OBJ ? json_is_object(v) : json_is_array(v);
		if (!v)
			die(EXIT_USAGE, "no '%s' field (%s): '%s'", f->key, names[f->type], path);
		if (!ok)
			die(EXIT_USAGE, "field '%s' is not %s: '%s'", f->key, names[f->type], path);
	}
	if (kind == 0 && !strcmp(jstr(j, "status", ""), "answered") &&
	    (!json_is_string(json_object_get(json_object_get(j, "answer"), "text")) ||
	     !json_is_array(json_object_get(j, "messages"))))
		die(EXIT_USAGE, "an answered response without its answer's text or its messages: '%s'", path);
}

/* an assistant turn's text and reasoning, whichever provider wrote it */
static json_t *
assistant(json_t *resp)
{
	json_t *a = json_object_get(resp, "answer");
	const char *r = jstr(a, "reasoning", "");

	return json_pack("{s:s,s:s,s:o}", "role", "assistant", "content", jstr(a, "text", ""),
	                 "reasoning_content", *r ? json_string(r) : json_null());
}

/* a user turn of the provider's own message form, as plain text */
static json_t *
user(json_t *m)
{
	json_t *c = json_object_get(m, "content");

	if (json_is_string(c))
		return json_pack("{s:s,s:O,s:n}", "role", "user", "content", c, "reasoning_content");
	return json_pack("{s:s,s:s,s:n}", "role", "user", "content", "", "reasoning_content");
}

/* one round file into its place in rounds, checked; its round number */
static int
loadround(const char *path, struct round *rounds)
{
	const char *kind;
	int r, k = classify(path, &r, &kind);
	json_t **slot;

	if (k < 0)
		die(EXIT_USAGE, "cannot tell which round '%s' belongs to (.../r<k>/response.json etc.)", path);
	slot = k == 0 ? &rounds[r].resp : k == 1 ? &rounds[r].comp : k == 2 ? &rounds[r].ver : &rounds[r].bench;
	if (*slot)
		die(EXIT_USAGE, "two %s files for round %d", kind, r);
	*slot = jmustload(path);
	checkfields(*slot, k, path);
	return r;
}

static json_t *
numornull(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

int
main(int argc, char **argv)
{
	const char *out = NULL, *taskpath = NULL, *generator = "retort";
	struct round rounds[MAX_ROUNDS + 1];
	json_t *task, *rec, *messages, *rl, *keys, *best = NULL, *bestbench = NULL, *lastbuilt = NULL;
	int i, n = 0, r, bestround = 0, anybuilt = 0, anyverified = 0, anycorrect = 0;
	double bestms = 0, cost = 0, tokens[4] = { 0 };
	int unpriced = 0; /* a round of a model without prices: the cost is unknown, not 0 */
	static const char *const ukeys[4] = { "input_tokens", "output_tokens", "cache_write_tokens",
	                                      "cache_read_tokens" };
	char sha[65];

	setprogname(argv[0]);
	memset(rounds, 0, sizeof rounds);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (arghelp(s, usage)) {
			return 0;
		} else if (!strcmp(s, "-o")) {
			out = argval(argc, argv, &i, usage);
		} else if (!strcmp(s, "--generator")) {
			generator = argval(argc, argv, &i, usage);
		} else if (!taskpath) {
			arginput(s, NULL, NULL, 0, usage);
			taskpath = s;
		} else {
			arginput(s, NULL, NULL, 0, usage);
			if ((r = loadround(s, rounds)) > n)
				n = r;
		}
	}
	if (!out || !taskpath || n == 0)
		die(EXIT_USAGE, "need -o, a task.json and round files\n%s", usage);
	for (r = 1; r <= n; r++)
		if (!rounds[r].resp)
			die(EXIT_USAGE, "round %d has no response.json", r);
	task = jmustload(taskpath);
	{
		char *s = jdumps(task, JFLAGS_LINE);
		sha256hex(s, strlen(s), sha);
		free(s);
	}

	/* the conversation, and each round's verdicts */
	messages = json_array();
	rl = json_array();
	keys = json_array();
	json_array_append_new(messages, json_pack("{s:s,s:s,s:n}", "role", "system", "content",
	                      jstr(rounds[1].resp, "system", ""), "reasoning_content"));
	for (r = 1; r <= n; r++) {
		struct round *d = &rounds[r];
		json_t *msgs = json_object_get(d->resp, "messages"), *round, *rules, *v;
		const char *status = jstr(d->resp, "status", "");
		size_t k;
		if (!strcmp(status, "done"))
			break;
		rules = json_array();
		/* the user turn this round added: the prompt, or the feedback */
		{
			size_t nm = json_array_size(msgs);
			json_t *u = nm >= 2 ? json_array_get(msgs, nm - 2) : NULL;
			if (u && !strcmp(jstr(u, "role", ""), "user"))
				json_array_append_new(messages, user(u));
		}
		json_array_append_new(messages, assistant(d->resp));
		json_array_append_new(keys, json_string(jstr(d->resp, "key", "")));
		for (k = 0; k < 4; k++)
			tokens[k] += (double)jint(json_object_get(d->resp, "usage"), ukeys[k], 0);
		cost += jnum(d->resp, "cost_usd", 0);
		unpriced |= json_is_null(json_object_get(d->resp, "cost_usd"));
		json_array_foreach(json_object_get(d->comp, "violations"), k, v)
			json_array_append_new(rules, json_string(jstr(v, "rule", "")));
		round = json_pack("{s:i,s:s,s:s?,s:o,s:s?,s:s?,s:s?,s:o}", "round", r, "answer", status,
		                  "compile", jstr(d->comp, "status", NULL), "screen_rules", rules,
		                  "verify", jstr(d->ver, "verdict", NULL), "feedback",
		                  jstr(d->ver, "feedback", NULL), "bench", jstr(d->bench, "status", NULL),
		                  "speedup", numornull(d->bench, "speedup"));
		json_array_append_new(rl, round);
		if (!strcmp(jstr(d->comp, "status", ""), "ok")) {
			anybuilt = 1;
			lastbuilt = d->comp;
		}
		if (verdictran(jstr(d->ver, "verdict", NULL)))
			anyverified = 1;
		if (!strcmp(jstr(d->ver, "verdict", ""), "correct")) {
			/* the fastest correct round is the answer */
			json_t *c0 = json_array_get(json_object_get(d->bench, "cases"), 0);
			double ms = jnum(json_object_get(c0, "candidate"), "median_ms", 0);
			anycorrect = 1;
			if (!best || (ms > 0 && (bestms <= 0 || ms < bestms))) {
				best = d->comp;
				bestbench = d->bench;
				bestms = ms;
				bestround = r;
			}
		}
	}

	rec = json_object();
	{
		char id[512];
		snprintf(id, sizeof id, "%s/s%" JSON_INTEGER_FORMAT, jstr(task, "id", "?"),
		         jint(rounds[1].resp, "sample", 0));
		json_object_set_new(rec, "id", json_string(id));
	}
	json_object_set_new(rec, "task", json_string(jstr(task, "spec", "")));
	json_object_set_new(rec, "variant", json_string(jstr(task, "id", "")));
	json_object_set_new(rec, "sample", json_integer(jint(rounds[1].resp, "sample", 0)));
	json_object_set_new(rec, "teacher", json_pack("{s:s,s:s}", "provider", jstr(rounds[1].resp, "provider", ""),
	                    "model", jstr(rounds[1].resp, "model", "")));
	json_object_set_new(rec, "messages", messages);
	json_object_set_new(rec, "rounds", rl);
	json_object_set_new(rec, "outcome", json_string(anycorrect ? "correct" : anyverified ? "incorrect"
	                    : anybuilt ? "unverified" : "no_code"));
	json_object_set_new(rec, "verified_on_gpu", json_boolean(anycorrect));
	if (!best)
		best = lastbuilt;
	json_object_set_new(rec, "final_kernel", best ? json_string(jstr(best, "source", "")) : json_null());
	json_object_set_new(rec, "final_round", bestround ? json_integer(bestround) : json_null());
	json_object_set_new(rec, "speedup", numornull(bestbench, "speedup"));
	{
		json_t *c0 = json_array_get(json_object_get(bestbench, "cases"), 0);
		json_object_set_new(rec, "sol_percent", numornull(json_object_get(c0, "sol"), "percent"));
		json_object_set_new(rec, "median_ms", bestms > 0 ? json_real(bestms) : json_null());
		json_object_set_new(rec, "review", json_object_get(bestbench, "review")
		                    ? json_deep_copy(json_object_get(bestbench, "review")) : json_array());
		json_object_set_new(rec, "gpu", json_is_string(json_object_get(json_object_get(bestbench, "gpu"), "name"))
		                    ? json_string(jstr(json_object_get(bestbench, "gpu"), "name", "")) : json_null());
	}
	json_object_set_new(rec, "usage", json_pack("{s:I,s:I,s:I,s:I}", ukeys[0], (json_int_t)tokens[0],
	                    ukeys[1], (json_int_t)tokens[1], ukeys[2], (json_int_t)tokens[2], ukeys[3], (json_int_t)tokens[3]));
	json_object_set_new(rec, "cost_usd", unpriced ? json_null() : json_real(cost));
	json_object_set_new(rec, "cache_keys", keys);
	json_object_set_new(rec, "spec_sha256", json_string(sha));
	json_object_set_new(rec, "generator", json_string(generator));
	if (jwrite(out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", out);
	json_decref(rec);
	json_decref(task);
	for (r = 1; r <= n; r++) {
		json_decref(rounds[r].resp);
		json_decref(rounds[r].comp);
		json_decref(rounds[r].ver);
		json_decref(rounds[r].bench);
	}
	return 0;
}
