/*
 * NAME
 *     record - one sample's rounds into one dataset record
 *
 * SYNOPSIS
 *     record [options] -o RECORD_JSON TASK_JSON ROUND_FILES...
 *
 * DESCRIPTION
 *     Reads the variant's TASK_JSON and every round's response.json,
 *     compile.json, verify.json and bench.json, each told by its folder
 *     (.../r<round>/<name>.json). A round may lack the later stages.
 *     Writes one record: the whole conversation as chat messages, the
 *     final kernel (the fastest correct round's, else the last built),
 *     the outcome, the final round's timing, each round's statuses and
 *     feedback, usage, $ and provenance. The one message trained on is
 *     flagged. The fields, their types and which are measured are
 *     lib/schema.h's table: every record has every field, null where a
 *     value is missing, and record refuses to write one that does not
 *     fit. A round file that lacks a field record reads, or has one of
 *     another type, is bad input.
 *
 * FILES
 *     out/v/<variant>/s<sample>/record.json, or an evaluation's under
 *     out/eval/NAME/v/.
 *
 * EXIT STATUS
 *     0 written; 1 cannot write; 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/dataset.md
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/sha.h"
#include "../lib/util.h"

static const char usage[] = "usage: record [options] -o RECORD_JSON TASK_JSON ROUND_FILES...\n";


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

/* each kind of round file's table (lib/schema.c), as classify numbers them */
static const struct sfield *const tables[] = { schema_response_json, schema_compile_json, schema_verify_json,
                                               schema_bench_json };

/* a response's own word on where it belongs (its task, its round),
 * against its path's round r and the variant id */
static void
checkresponse(json_t *j, int r, const char *id, const char *path)
{

	if (json_object_get(j, "round") && json_integer_value(json_object_get(j, "round")) != r)
		die(EXIT_USAGE, "field 'round' is %" JSON_INTEGER_FORMAT ", but the file is round %d's: '%s'",
		    json_integer_value(json_object_get(j, "round")), r, path);
	if (json_object_get(j, "task") && strcmp(jstr(j, "task", ""), id))
		die(EXIT_USAGE, "field 'task' is '%s', not this variant '%s': '%s'", jstr(j, "task", ""), id, path);
}

/* one round file of variant id into its place in rounds, checked; its round number */
static int
loadround(const char *path, const char *id, struct round *rounds)
{
	const char *kind;
	int r, k = classify(path, &r, &kind);
	json_t **slot;

	if (k < 0)
		die(EXIT_USAGE, "cannot tell which round '%s' belongs to (.../r<k>/response.json etc.)", path);
	slot = k == 0 ? &rounds[r].resp : k == 1 ? &rounds[r].comp : k == 2 ? &rounds[r].ver : &rounds[r].bench;
	if (*slot)
		die(EXIT_USAGE, "two %s files for round %d", kind, r);
	*slot = schemaload(path, tables[k]);
	if (k == 0 && statusof(*slot, STAGE_ANSWER) == ST_ANSWERED &&
	    (!json_is_string(json_object_get(json_object_get(*slot, "answer"), "text")) ||
	     !json_is_array(json_object_get(*slot, "messages"))))
		die(EXIT_USAGE, "an answered response without its answer's text or its messages: '%s'", path);
	if (k == 0)
		checkresponse(*slot, r, id, path);
	return r;
}

/* a chat message of the dataset (lib/schema.c's schema_message) */
static json_t *
message(const char *role, const char *content, const char *reasoning, int round)
{
	return json_pack("{s:s,s:s,s:o,s:i,s:b}", "role", role, "content", content, "reasoning_content",
	                 reasoning && *reasoning ? json_string(reasoning) : json_null(), "round", round,
	                 "training", 0);
}

/* a user turn of the provider's own message form, as plain text */
static json_t *
user(json_t *m, int round)
{
	json_t *c = json_object_get(m, "content");

	return message("user", json_is_string(c) ? json_string_value(c) : "", NULL, round);
}

/* one file's string field, or null */
static json_t *
strornull(json_t *o, const char *key)
{
	const char *s = jstr(o, key, NULL);

	return s ? json_string(s) : json_null();
}

/* the same, null for "" too (a report that says nothing) */
static json_t *
textornull(json_t *o, const char *key)
{
	const char *s = jstr(o, key, "");

	return *s ? json_string(s) : json_null();
}

static json_t *
numornull(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_real(json_number_value(v)) : json_null();
}

/*
 * What the stages reported about a round: nvcc's diagnostics (or why
 * there was no code, or the compile's time-out), the screen's findings,
 * verify's and bench's reports.
 */
static json_t *
diagnostics(const struct round *d)
{
	json_t *viol = json_array(), *v;
	size_t k;

	json_array_foreach(json_object_get(d->comp, "violations"), k, v)
		json_array_append_new(viol, json_pack("{s:s,s:I,s:s}", "rule", jstr(v, "rule", ""), "line",
		                      jint(v, "line", 0), "message", jstr(v, "message", "")));
	return json_pack("{s:o,s:o,s:o,s:o}", "compile",
	                 statusof(d->comp, STAGE_COMPILE) == ST_COMPILE_ERROR ? textornull(d->comp, "diagnostics") : textornull(d->comp, "reason"),
	                 "violations", viol, "verify", textornull(d->ver, "feedback"), "bench",
	                 textornull(d->bench, "feedback"));
}

/* a round of the record: its verdicts, and the feedback they made */
static json_t *
roundentry(json_t *task, const struct round *d, int r)
{
	json_t *rules = json_array(), *v;
	char *fb = roundfeedback(task, d->comp, d->ver, d->bench);
	json_t *round;
	size_t k;

	json_array_foreach(json_object_get(d->comp, "violations"), k, v)
		json_array_append_new(rules, json_string(jstr(v, "rule", "")));
	round = json_pack("{s:i,s:s,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o}", "round", r, "lang", langname(langof(d->resp)),
	                  "answer", jstr(d->resp, "status", ""), "compile", strornull(d->comp, "status"), "screen_rules",
	                  rules, "verify", strornull(d->ver, "verdict"), "bench", strornull(d->bench, "status"), "speedup",
	                  numornull(d->bench, "speedup"), "speedup_compile", numornull(d->bench, "speedup_compile"),
	                  "feedback", fb, "diagnostics", diagnostics(d));
	free(fb);
	return round;
}

/* what the rounds came to */
struct choice {
	int best;         /* the fastest correct round, 0 if none */
	int lastbuilt;    /* the last round that built, 0 if none */
	int anyverified;  /* a verdict from a GPU */
	double bestms;    /* best's median at the first bench size (0: unknown) */
};

static void
consider(struct choice *c, const struct round *d, int r)
{
	if (statusof(d->comp, STAGE_COMPILE) == ST_OK)
		c->lastbuilt = r;
	if (gpujudged(statusof(d->ver, STAGE_VERIFY)))
		c->anyverified = 1;
	/* a round bench's oracle found wrong at a bench size is not correct,
	 * whatever verify said (metrics counts it so too) */
	if (statusof(d->ver, STAGE_VERIFY) == ST_CORRECT && !benchcaught(statusof(d->bench, STAGE_BENCH))) {
		/* the fastest correct round is the answer */
		json_t *c0 = json_array_get(json_object_get(d->bench, "cases"), 0);
		double ms = jnum(json_object_get(c0, "candidate"), "median_ms", 0);
		if (!c->best || (ms > 0 && (c->bestms <= 0 || ms < c->bestms))) {
			c->best = r;
			c->bestms = ms;
		}
	}
}

/* the final kernel's measurements: speedup, sol_percent, median_ms, review, gpu */
static void
measurements(json_t *rec, json_t *bench, double ms)
{
	json_t *c0 = json_array_get(json_object_get(bench, "cases"), 0);
	json_t *gpu = json_object_get(json_object_get(bench, "gpu"), "name");

	json_object_set_new(rec, "speedup", numornull(bench, "speedup"));
	json_object_set_new(rec, "sol_percent", numornull(json_object_get(c0, "sol"), "percent"));
	json_object_set_new(rec, "median_ms", ms > 0 ? json_real(ms) : json_null());
	json_object_set_new(rec, "review", json_object_get(bench, "review")
	                    ? json_deep_copy(json_object_get(bench, "review")) : json_array());
	json_object_set_new(rec, "gpu", json_is_string(gpu) ? json_string(json_string_value(gpu)) : json_null());
}

/* what final_kernel passed: verify.json's checked, field by field as the
 * schema has them, and the calls bench checked; all zero when no round was
 * correct */
static void
checkedof(json_t *rec, json_t *ver, json_t *bench)
{
	json_t *v = json_object_get(ver, "checked"), *out = json_object(), *c, *p;
	const struct sfield *f;
	json_int_t calls = 0;
	size_t k;

	for (f = schema_checked; f->name; f++) {
		json_t *x;
		if (f->type == S_INT) {
			x = json_integer(jint(v, f->name, 0));
		} else if (f->type == S_BOOL) {
			x = json_boolean(jbool(v, f->name, 0));
		} else { /* the list of poisons */
			x = json_array();
			json_array_foreach(json_object_get(v, f->name), k, p)
				if (json_is_string(p))
					json_array_append(x, p);
		}
		json_object_set_new(out, f->name, x);
	}
	json_array_foreach(json_object_get(bench, "cases"), k, c)
		calls += jint(json_object_get(c, "checks"), "passed", 0);
	json_object_set_new(out, "bench_calls_checked", json_integer(calls));
	json_object_set_new(rec, "checked", out);
}

/* the task's and the teacher's fields */
static void
identity(json_t *rec, json_t *task, json_t *first, const char *generator)
{
	char id[512], sha[65];
	char *s = jdumps(task, JFLAGS_LINE);

	sha256hex(s, strlen(s), sha);
	free(s);
	/* a Triton sample's id names its language (a CUDA one's is as it was before there were languages) */
	snprintf(id, sizeof id, "%s/%ss%" JSON_INTEGER_FORMAT, jstr(task, "id", "?"),
	         langof(first) == LANG_TRITON ? "triton/" : "", jint(first, "sample", 0));
	json_object_set_new(rec, "id", json_string(id));
	json_object_set_new(rec, "lang", json_string(langname(langof(first))));
	json_object_set_new(rec, "task", json_string(jstr(task, "spec", "")));
	json_object_set_new(rec, "variant", json_string(jstr(task, "id", "")));
	json_object_set_new(rec, "origin", json_string(jstr(json_object_get(task, "origin"), "source", "hand-written")));
	{
		json_t *o = json_object_get(task, "origin");
		json_object_set_new(rec, "scaled", json_is_string(json_object_get(o, "scaled_size"))
		                    ? json_pack("{s:s,s:I,s:I}", "size", jstr(o, "scaled_size", ""),
		                                "from", (json_int_t)jint(o, "scaled_from", 0),
		                                "factor", (json_int_t)jint(o, "scaled_factor", 1))
		                    : json_null());
	}
	json_object_set_new(rec, "reference_language", json_is_string(json_object_get(task, "reference_language"))
	                    ? json_string(jstr(task, "reference_language", "")) : json_null());
	json_object_set_new(rec, "sample", json_integer(jint(first, "sample", 0)));
	json_object_set_new(rec, "teacher", json_pack("{s:s,s:s}", "provider", jstr(first, "provider", ""),
	                    "model", jstr(first, "model", "")));
	json_object_set_new(rec, "spec_sha256", json_string(sha));
	json_object_set_new(rec, "generator", json_string(generator));
}

/* the teacher's tokens and $ over the rounds (cost null when a round's model had no prices) */
static void
spending(json_t *rec, const struct round *rounds, int n)
{
	static const char *const ukeys[5] = { "input_tokens", "output_tokens", "cache_write_tokens",
	                                      "cache_read_tokens", "reasoning_tokens" };
	json_int_t tokens[5] = { 0 };
	double cost = 0;
	int r, k, unpriced = 0;

	for (r = 1; r <= n; r++) {
		for (k = 0; k < 5; k++)
			tokens[k] += jint(json_object_get(rounds[r].resp, "usage"), ukeys[k], 0);
		cost += jnum(rounds[r].resp, "cost_usd", 0);
		unpriced |= json_is_null(json_object_get(rounds[r].resp, "cost_usd"));
	}
	json_object_set_new(rec, "usage", json_pack("{s:I,s:I,s:I,s:I,s:I}", ukeys[0], tokens[0], ukeys[1], tokens[1],
	                    ukeys[2], tokens[2], ukeys[3], tokens[3], ukeys[4], tokens[4]));
	json_object_set_new(rec, "cost_usd", unpriced ? json_null() : json_real(cost));
}

/*
 * The record of rounds 1..n (a "done" round and those after it were not
 * asked). The assistant turn of final_round is the one flagged training,
 * when its kernel is correct or could not be checked.
 */
static json_t *
makerecord(json_t *task, struct round *rounds, int n, const char *generator)
{
	json_t *rec = json_object(), *messages = json_array(), *rl = json_array(), *keys = json_array();
	struct choice c = { 0, 0, 0, 0 };
	int r, final;
	size_t k;
	json_t *m;

	json_array_append_new(messages, message("system", jstr(rounds[1].resp, "system", ""), NULL, 0));
	for (r = 1; r <= n; r++) {
		struct round *d = &rounds[r];
		json_t *msgs = json_object_get(d->resp, "messages"), *u;
		size_t nm = json_array_size(msgs);
		if (statusof(d->resp, STAGE_ANSWER) == ST_DONE)
			break;
		/* the user turn this round added: the prompt, or the feedback */
		u = nm >= 2 ? json_array_get(msgs, nm - 2) : NULL;
		if (u && !strcmp(jstr(u, "role", ""), "user"))
			json_array_append_new(messages, user(u, r));
		json_array_append_new(messages, message("assistant", jstr(json_object_get(d->resp, "answer"), "text", ""),
		                      jstr(json_object_get(d->resp, "answer"), "reasoning", ""), r));
		json_array_append_new(keys, json_string(jstr(d->resp, "key", "")));
		json_array_append_new(rl, roundentry(task, d, r));
		consider(&c, d, r);
	}
	final = c.best ? c.best : c.lastbuilt;
	/* the flag: on the final kernel's turn, unless that kernel is known to be wrong */
	json_array_foreach(messages, k, m)
		if (final && (c.best || !c.anyverified) && !strcmp(jstr(m, "role", ""), "assistant") && jint(m, "round", 0) == final)
			json_object_set_new(m, "training", json_true());

	identity(rec, task, rounds[1].resp, generator);
	json_object_set_new(rec, "messages", messages);
	json_object_set_new(rec, "rounds", rl);
	json_object_set_new(rec, "outcome", json_string(outcomename(c.best ? OUTCOME_CORRECT : c.anyverified
	                    ? OUTCOME_INCORRECT : c.lastbuilt ? OUTCOME_UNVERIFIED : OUTCOME_NO_CODE)));
	json_object_set_new(rec, "verified_on_gpu", json_boolean(c.best));
	json_object_set_new(rec, "final_kernel", final ? strornull(rounds[final].comp, "source") : json_null());
	json_object_set_new(rec, "final_round", final ? json_integer(final) : json_null());
	measurements(rec, c.best ? rounds[c.best].bench : NULL, c.bestms);
	/* a degenerate task kept (an imported problem): a constant could have passed */
	if (c.best && jstr(rounds[c.best].ver, "degenerate", NULL))
		json_array_append_new(json_object_get(rec, "review"), json_sprintf("the task is degenerate, so verify "
		                      "could not tell this kernel from a constant: %s", jstr(rounds[c.best].ver, "degenerate", "")));
	checkedof(rec, c.best ? rounds[c.best].ver : NULL, c.best ? rounds[c.best].bench : NULL);
	spending(rec, rounds, n);
	json_object_set_new(rec, "cache_keys", keys);
	return rec;
}

/* the record of task's rounds (files, nfiles of them) written to out */
static int
record(const char *out, const char *taskpath, char *const *files, size_t nfiles, const char *generator)
{
	struct round rounds[MAX_ROUNDS + 1];
	json_t *task, *rec;
	size_t i;
	int n = 0, r;
	char err[600];

	memset(rounds, 0, sizeof rounds);
	task = jmustload(taskpath);
	for (i = 0; i < nfiles; i++)
		if ((r = loadround(files[i], jstr(task, "id", ""), rounds)) > n)
			n = r;
	for (r = 1; r <= n; r++)
		if (!rounds[r].resp)
			die(EXIT_USAGE, "round %d has no response.json", r);
	rec = makerecord(task, rounds, n, generator);
	if (schemacheck(rec, schema_record, err, sizeof err) < 0)
		die(EXIT_USAGE, "the record does not fit the dataset's fields (lib/schema.c): %s", err);
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

int
main(int argc, char **argv)
{
	const char *out = NULL, *generator = "retort";
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &out, 0, 0, "the output, RECORD_JSON" },
		{ "--generator", "VERSION", OPT_STR, &generator, 0, 0, "what made the record (default retort)" },
		{ 0 }
	};
	/* the task and four files a round */
	const struct optspec spec = { usage, tab, 1 + 4 * MAX_ROUNDS, 0 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!out || in.n < 2)
		optdie(&spec, "need -o, a task.json and round files");
	r = record(out, in.v[0], in.v + 1, in.n - 1, generator);
	optfree(&in);
	return r;
}
