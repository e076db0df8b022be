/* schema.c - see schema.h */
#include "schema.h"

#include <stdio.h>
#include <string.h>

#include "json.h"
#include "util.h"
#include "round.h"
#include "sha.h"

#define END { NULL, 0, 0, NULL, 0, NULL }

const struct sfield schema_message[] = {
	{ "role", S_STRING, 0, NULL, 0, "system, user or assistant" },
	{ "content", S_STRING, 0, NULL, 0, "the text" },
	{ "reasoning_content", S_STRING, 0, NULL, S_NULL, "the teacher's thinking on an assistant turn (null when none)" },
	{ "round", S_INT, 0, NULL, 0,
	  "0 for the system prompt; k for round k's request (the task prompt in round 1, the feedback on "
	  "round k-1 after) and for its answer" },
	{ "training", S_BOOL, 0, NULL, S_MEASURED,
	  "true only on the assistant turn whose kernel is final_kernel (the turn of final_round), and only "
	  "when that kernel is correct or could not be checked (outcome correct or unverified); false on every "
	  "other message, failed answers included" },
	END
};

const struct sfield schema_checked[] = {
	{ "listed_runs", S_INT, 0, NULL, 0, "verify's runs at the sizes the prompt lists (bench sizes included) it passed" },
	{ "hidden_runs", S_INT, 0, NULL, 0, "its runs at sizes the prompt does not list (residues, 1 to 3, ragged large)" },
	{ "gpu_oracle_runs", S_INT, 0, NULL, 0, "of those, the runs checked against the baseline on the GPU" },
	{ "unjudged_runs", S_INT, 0, NULL, 0, "runs with no oracle to check them (the record is flagged)" },
	{ "poisons", S_LIST, S_STRING, NULL, 0, "what the outputs held before its calls: ones, zeros, huge, random, previous" },
	{ "offsets", S_BOOL, 0, NULL, 0, "inputs offset and scaled as the spec promises" },
	{ "ties", S_BOOL, 0, NULL, 0, "inputs with many equal values (the spec's tie rule)" },
	{ "specials", S_BOOL, 0, NULL, 0, "inputs with NaN and Inf" },
	{ "bench_calls_checked", S_INT, 0, NULL, 0, "timed calls whose outputs were checked" },
	END
};

static const struct sfield teacher[] = {
	{ "provider", S_STRING, 0, NULL, 0, "anthropic, openai or replay" },
	{ "model", S_STRING, 0, NULL, 0, "the model's name in models.yaml" },
	END
};

static const struct sfield violation[] = {
	{ "rule", S_STRING, 0, NULL, 0, "the screen rule" },
	{ "line", S_INT, 0, NULL, 0, "the source line" },
	{ "message", S_STRING, 0, NULL, 0, "what the screen said" },
	END
};

static const struct sfield diagnostics[] = {
	{ "compile", S_STRING, 0, NULL, S_NULL, "nvcc's diagnostics on a compile error, or why there was no code or the "
	  "compile timed out (null otherwise)" },
	{ "violations", S_LIST, S_STRUCT, violation, 0, "the static screen's findings" },
	{ "verify", S_STRING, 0, NULL, S_NULL, "verify's report: mismatches, crash, time-out (null when it did not run)" },
	{ "bench", S_STRING, 0, NULL, S_NULL | S_MEASURED, "bench's report: timings, speedup (null when it did not run)" },
	END
};

static const struct sfield round[] = {
	{ "round", S_INT, 0, NULL, 0, "1, 2, ..." },
	{ "lang", S_STRING, 0, NULL, 0, "the candidate language: cuda or triton" },
	{ "answer", S_STRING, 0, NULL, 0, "answered, refused or truncated" },
	{ "compile", S_STRING, 0, NULL, S_NULL, "ok, no_code, screen_failed, compile_error, timeout" },
	{ "screen_rules", S_LIST, S_STRING, NULL, 0, "the rules the static screen found broken" },
	{ "verify", S_STRING, 0, NULL, S_NULL, "the verdict: correct, mismatch, crash, ..., or skipped: why" },
	{ "bench", S_STRING, 0, NULL, S_NULL, "measured, or why not" },
	{ "speedup", S_FLOAT, 0, NULL, S_NULL | S_MEASURED, "over the baseline" },
	{ "speedup_compile", S_FLOAT, 0, NULL, S_NULL | S_MEASURED,
	  "over the baseline's torch.compile (a Python baseline's, an imported KernelBench problem's; null otherwise)" },
	{ "feedback", S_STRING, 0, NULL, S_MEASURED,
	  "what the teacher was told about this round in the next request (for the last round: what it would "
	  "have been told); empty when the round ended the sample" },
	{ "diagnostics", S_STRUCT, 0, diagnostics, 0, "what the stages reported, from which the feedback was built" },
	END
};

static const struct sfield scaled[] = {
	{ "size", S_STRING, 0, NULL, 0, "the size arg whose bench value was divided, or the constructor size (the "
	  "problem's global) whose value was" },
	{ "from", S_INT, 0, NULL, 0, "its value in the source problem (a list of sizes: the largest)" },
	{ "factor", S_INT, 0, NULL, 0, "what it was divided by" },
	END
};

static const struct sfield usage[] = {
	{ "input_tokens", S_INT, 0, NULL, 0, "" },
	{ "output_tokens", S_INT, 0, NULL, 0, "" },
	{ "cache_write_tokens", S_INT, 0, NULL, 0, "" },
	{ "cache_read_tokens", S_INT, 0, NULL, 0, "" },
	{ "reasoning_tokens", S_INT, 0, NULL, 0, "the part of output_tokens that was reasoning (0 when the provider "
	  "does not say)" },
	END
};

const struct sfield schema_record[] = {
	{ "id", S_STRING, 0, NULL, 0, "variant/s<sample> (a Triton answer's: variant/triton/s<sample>)" },
	{ "lang", S_STRING, 0, NULL, 0, "the candidate language: cuda (CUDA C++) or triton (Python with @triton.jit "
	  "kernels)" },
	{ "task", S_STRING, 0, NULL, 0, "the spec" },
	{ "variant", S_STRING, 0, NULL, 0, "the spec's variant (matrix values)" },
	{ "origin", S_STRING, 0, NULL, 0, "where the task came from: hand-written, kernelbench (imported), teacher "
	  "(proposed by the teacher, checked by propose-check), teacher-reference (hand-written, its reference the "
	  "teacher's: reference: teacher, independent references agreeing)" },
	{ "reference_language", S_STRING, 0, NULL, S_NULL, "the CPU reference's language: c or python (null: the "
	  "task has none, its baseline is the oracle)" },
	{ "scaled", S_STRUCT, 0, scaled, S_NULL, "an imported problem whose bench size or constructor size was divided to fit retort's "
	  "caps on a case (its spec's origin says so; the baseline ran at the same sizes); null otherwise" },
	{ "sample", S_INT, 0, NULL, 0, "the sample index" },
	{ "teacher", S_STRUCT, 0, teacher, 0, "who answered" },
	{ "messages", S_LIST, S_STRUCT, schema_message, 0,
	  "the whole conversation: system, user (task), assistant (round 1), user (feedback), assistant (round 2), ..." },
	{ "final_kernel", S_STRING, 0, NULL, S_NULL | S_MEASURED,
	  "the fastest correct round's source (CUDA, or Triton's Python), else the last built one's (null when none "
	  "built)" },
	{ "final_round", S_INT, 0, NULL, S_NULL | S_MEASURED, "the round of final_kernel (set whenever final_kernel is)" },
	{ "outcome", S_STRING, 0, NULL, 0,
	  "correct, incorrect (never passed verify), unverified (no GPU to check on), no_code" },
	{ "verified_on_gpu", S_BOOL, 0, NULL, 0, "final_kernel passed verify on a GPU" },
	{ "gpu", S_STRING, 0, NULL, S_NULL, "the GPU final_kernel was timed on" },
	{ "speedup", S_FLOAT, 0, NULL, S_NULL | S_MEASURED, "final_kernel's speedup over the baseline" },
	{ "sol_percent", S_FLOAT, 0, NULL, S_NULL | S_MEASURED, "its % of the speed of light" },
	{ "median_ms", S_FLOAT, 0, NULL, S_NULL | S_MEASURED, "its median time at the first bench size" },
	{ "review", S_LIST, S_STRING, NULL, S_MEASURED, "bench's review flags (a flagged record is not in train)" },
	{ "checked", S_STRUCT, 0, schema_checked, S_MEASURED, "what final_kernel passed, when correct (zeros otherwise)" },
	{ "rounds", S_LIST, S_STRUCT, round, 0, "per round, in order" },
	{ "usage", S_STRUCT, 0, usage, 0, "the teacher's tokens over all rounds" },
	{ "cost_usd", S_FLOAT, 0, NULL, S_NULL, "their cost (null when the model has no prices)" },
	{ "cache_keys", S_LIST, S_STRING, NULL, 0, "the response cache's key of each round's request" },
	{ "spec_sha256", S_STRING, 0, NULL, 0, "of the variant's task.json" },
	{ "generator", S_STRING, 0, NULL, 0, "retort's version" },
	END
};

const struct sfield schema_sftfinal[] = {
	{ "id", S_STRING, 0, NULL, 0, "the record's id" },
	{ "lang", S_STRING, 0, NULL, 0, "the candidate language: cuda or triton" },
	{ "task", S_STRING, 0, NULL, 0, "the spec" },
	{ "variant", S_STRING, 0, NULL, 0, "the spec's variant" },
	{ "outcome", S_STRING, 0, NULL, 0, "correct or unverified" },
	{ "verified_on_gpu", S_BOOL, 0, NULL, 0, "completion's kernel passed verify on a GPU" },
	{ "final_round", S_INT, 0, NULL, S_MEASURED, "the round of the completion" },
	{ "speedup", S_FLOAT, 0, NULL, S_NULL | S_MEASURED, "its speedup over the baseline" },
	{ "prompt", S_LIST, S_STRUCT, schema_message, S_MEASURED,
	  "the conversation up to the chosen turn: system, user, and the earlier rounds" },
	{ "completion", S_LIST, S_STRUCT, schema_message, S_MEASURED,
	  "the chosen assistant turn (training true), the one whose kernel is final_kernel" },
	{ "messages", S_LIST, S_STRUCT, schema_message, S_MEASURED,
	  "prompt then completion as one conversation, which ends with the turn flagged training (Axolotl)" },
	END
};

/* ------------------------------------------------ the files between tools */

#define OPT(name, type) { name, type, 0, NULL, S_OPT, "" }
#define NEED(name, type) { name, type, 0, NULL, 0, "" }
#define NULLOPT(name, type) { name, type, 0, NULL, S_OPT | S_NULL, "" }

static const struct sfield rolemessage[] = {
	NEED("role", S_STRING),
	END
};

static const struct sfield answer[] = {
	OPT("text", S_STRING),
	END
};

const struct sfield schema_response_json[] = {
	NEED("status", S_STRING),
	{ "messages", S_LIST, S_STRUCT, rolemessage, S_OPT, "" },
	{ "answer", S_STRUCT, 0, answer, S_OPT, "" },
	OPT("system", S_STRING), OPT("key", S_STRING), OPT("sample", S_INT), OPT("provider", S_STRING),
	OPT("model", S_STRING), OPT("usage", S_STRUCT), { "cost_usd", S_FLOAT, 0, NULL, S_OPT | S_NULL, "" },
	OPT("lang", S_STRING), OPT("round", S_INT), OPT("task", S_STRING),
	END
};

const struct sfield schema_compile_json[] = {
	NEED("status", S_STRING), { "violations", S_LIST, S_ANY, NULL, S_OPT, "" }, OPT("source", S_STRING),
	OPT("reason", S_STRING), OPT("diagnostics", S_STRING), OPT("lang", S_STRING),
	END
};

const struct sfield schema_verify_json[] = {
	NEED("verdict", S_STRING), OPT("feedback", S_STRING),
	END
};

const struct sfield schema_bench_json[] = {
	NEED("status", S_STRING), { "speedup", S_FLOAT, 0, NULL, S_OPT | S_NULL, "" },
	{ "speedup_compile", S_FLOAT, 0, NULL, S_OPT | S_NULL, "" },
	{ "cases", S_LIST, S_ANY, NULL, S_OPT, "" }, { "review", S_LIST, S_ANY, NULL, S_OPT, "" },
	OPT("gpu", S_STRUCT), OPT("feedback", S_STRING),
	END
};

const struct sfield schema_proposal_json[] = {
	NEED("kind", S_STRING), NEED("id", S_STRING), NEED("prompt", S_STRING), NEED("system", S_STRING),
	NEED("vars", S_STRUCT), NEED("family", S_STRING), OPT("batch", S_INT), OPT("count", S_INT),
	OPT("rounds", S_INT), OPT("vendor", S_STRING),
	END
};

static const struct sfield refproblem[] = {
	NEED("key", S_STRING), NEED("index", S_INT), NEED("id", S_STRING), NEED("spec", S_STRING),
	{ "ref1", S_STRING, 0, NULL, S_OPT | S_NULL, "" }, { "ref2", S_STRING, 0, NULL, S_OPT | S_NULL, "" },
	{ "keys", S_LIST, S_STRING, NULL, S_OPT, "" },
	END
};

const struct sfield schema_reftask_json[] = {
	NEED("kind", S_STRING), NEED("id", S_STRING), NEED("prompt", S_STRING), NEED("system", S_STRING),
	NEED("vars", S_STRUCT), NEED("family", S_STRING), NEED("batch_task", S_STRING), NEED("batch", S_INT),
	NEED("reference", S_INT), { "problems", S_LIST, S_STRUCT, refproblem, 0, "" },
	END
};

static const struct sfield proposal[] = {
	NEED("index", S_INT), NEED("status", S_STRING), OPT("spec", S_STRING), OPT("id", S_STRING),
	OPT("fingerprint", S_STRING), OPT("minhash", S_STRING), { "rules", S_LIST, S_ANY, NULL, S_OPT, "" },
	END
};

const struct sfield schema_check_json[] = {
	NEED("task", S_STRING), NEED("family", S_STRING), NEED("round", S_INT), NEED("status", S_STRING),
	NEED("finished", S_BOOL), NEED("feedback", S_STRING), { "proposals", S_LIST, S_STRUCT, proposal, 0, "" },
	{ "failed", S_LIST, S_INT, NULL, 0, "" }, NULLOPT("provider", S_STRING), NULLOPT("model", S_STRING),
	NULLOPT("key", S_STRING),
	END
};

static const struct sfield agreed[] = {
	NEED("key", S_STRING), NEED("index", S_INT), NEED("status", S_STRING), OPT("id", S_STRING),
	OPT("spec", S_STRING), OPT("why", S_STRING),
	END
};

const struct sfield schema_agree_json[] = {
	NEED("task", S_STRING), NEED("family", S_STRING), NEED("references", S_INT), NEED("finished", S_BOOL),
	{ "problems", S_LIST, S_STRUCT, agreed, 0, "" }, NULLOPT("provider", S_STRING), NULLOPT("model", S_STRING),
	NULLOPT("key", S_STRING),
	END
};

static const struct sfield student[] = {
	NEED("provider", S_STRING), NEED("model", S_STRING),
	END
};

static const struct sfield overall[] = {
	NEED("tasks", S_INT), NEED("samples", S_INT), NEED("compile_rate", S_FLOAT), NEED("correct_rate", S_FLOAT),
	NEED("unverified_rate", S_FLOAT), NEED("pass_at", S_STRUCT), NEED("fast_first", S_STRUCT),
	NEED("fast_best", S_STRUCT),
	{ "correct_after_round", S_LIST, S_FLOAT, NULL, 0, "" },
	END
};

static const struct sfield metricsample[] = {
	NEED("correct", S_BOOL), NULLOPT("speedup", S_FLOAT),
	END
};

/* a task's metrics: what --compare and report read of it */
static const struct sfield metricstask[] = {
	NEED("task", S_STRING), NEED("samples", S_INT), NEED("compile_rate", S_FLOAT), NEED("correct_rate", S_FLOAT),
	NEED("unverified_rate", S_FLOAT), NEED("pass_at", S_STRUCT), NEED("fast_first", S_STRUCT),
	NEED("fast_best", S_STRUCT), NEED("fast_compile_first", S_STRUCT), NEED("fast_compile_best", S_STRUCT),
	NEED("fast_samples", S_STRUCT), NULLOPT("speedup_first", S_FLOAT), NULLOPT("speedup_best", S_FLOAT),
	NULLOPT("speedup_compile_first", S_FLOAT), { "samples_detail", S_LIST, S_STRUCT, metricsample, 0, "" },
	END
};

const struct sfield schema_metrics_json[] = {
	{ "student", S_STRUCT, 0, student, 0, "" }, { "overall", S_STRUCT, 0, overall, 0, "" },
	{ "tasks", S_MAP, S_STRUCT, metricstask, 0, "" },
	END
};

static const char *const typenames[] = { "a string", "an integer", "a number", "a boolean", "an object", "an array",
                                         "any value", "an object" };
static const char *const dtypes[] = { "string", "int64", "float64", "bool" };

static int
typeok(const json_t *v, int type)
{
	switch (type) {
	case S_STRING: return json_is_string(v);
	case S_INT: return json_is_integer(v);
	case S_FLOAT: return json_is_number(v);
	case S_BOOL: return json_is_boolean(v);
	case S_STRUCT: return json_is_object(v);
	case S_ANY: return 1;
	case S_MAP: return json_is_object(v);
	default: return json_is_array(v);
	}
}

/* a check under way: the path of the value at hand, the first error, and
 * whether the table is a file's (loose: S_OPT fields may be absent, other
 * fields are let be) or the dataset's (exact) */
struct check {
	char path[512];
	char *err;
	size_t errlen;
	int loose;
};

static void
wrongtype(struct check *c, int type)
{
	if (c->loose)
		snprintf(c->err, c->errlen, "field '%s' is not %s", c->path, typenames[type]);
	else
		snprintf(c->err, c->errlen, "%s: not %s", c->path, typenames[type]);
}

static int checkobject(const json_t *j, const struct sfield *t, struct check *c);

/* one value of a field (type, with sub for structs), at c's path */
static int
checkvalue(const json_t *v, int type, const struct sfield *sub, int nullok, struct check *c)
{
	if (json_is_null(v) && nullok)
		return 0;
	if (!typeok(v, type)) {
		wrongtype(c, type);
		return -1;
	}
	return type == S_STRUCT && sub ? checkobject(v, sub, c) : 0;
}

static int
checkfield(const json_t *v, const struct sfield *f, struct check *c)
{
	size_t at = strlen(c->path), i;
	const json_t *x;
	const char *key;
	json_t *m;

	if (checkvalue(v, f->type, f->sub, f->flags & S_NULL, c) < 0)
		return -1;
	if (f->type == S_MAP && !json_is_null(v)) {
		json_object_foreach((json_t *)v, key, m) {
			snprintf(c->path + at, sizeof c->path - at, ".%s", key);
			if (checkvalue(m, f->item, f->sub, 0, c) < 0)
				return -1;
		}
		c->path[at] = 0;
		return 0;
	}
	if (f->type != S_LIST || json_is_null(v))
		return 0;
	json_array_foreach(v, i, x) {
		snprintf(c->path + at, sizeof c->path - at, "[%zu]", i);
		if (checkvalue(x, f->item, f->sub, 0, c) < 0)
			return -1;
	}
	c->path[at] = 0;
	return 0;
}

static int
checkobject(const json_t *j, const struct sfield *t, struct check *c)
{
	size_t at = strlen(c->path), n = 0;
	const struct sfield *f;
	const char *key;
	json_t *v;

	for (f = t; f->name; f++) {
		snprintf(c->path + at, sizeof c->path - at, "%s%s", at ? "." : "", f->name);
		if (!(v = json_object_get(j, f->name))) {
			if (c->loose && f->flags & S_OPT)
				continue;
			if (c->loose)
				snprintf(c->err, c->errlen, "no '%s' field (%s)", c->path, typenames[f->type]);
			else
				snprintf(c->err, c->errlen, "%s: missing", c->path);
			return -1;
		}
		n++;
		if (checkfield(v, f, c) < 0)
			return -1;
	}
	c->path[at] = 0;
	if (c->loose || json_object_size(j) == n)
		return 0;
	json_object_foreach((json_t *)j, key, v) {
		for (f = t; f->name && strcmp(f->name, key); f++)
			;
		if (!f->name) {
			snprintf(c->err, c->errlen, "%s%s%s: not a field of the dataset", c->path, at ? "." : "", key);
			return -1;
		}
	}
	return 0;
}

int
schemacheck(const json_t *j, const struct sfield *table, char *err, size_t errlen)
{
	struct check c = { "", err, errlen, 0 };

	if (!json_is_object(j)) {
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	return checkobject(j, table, &c);
}

int
schemafile(const json_t *j, const struct sfield *table, char *err, size_t errlen)
{
	struct check c = { "", err, errlen, 1 };

	if (!json_is_object(j)) {
		snprintf(err, errlen, "not a JSON object");
		return -1;
	}
	return checkobject(j, table, &c);
}

json_t *
schemaload(const char *path, const struct sfield *table)
{
	json_t *j = jmustload(path);
	char err[600];

	if (schemafile(j, table, err, sizeof err) < 0)
		die(EXIT_USAGE, "%s: '%s'", err, path);
	return j;
}

void
schemafeatures(struct buf *b, const struct sfield *t, int indent)
{
	const struct sfield *f;

	for (f = t; f->name; f++) {
		bufprintf(b, "%*s- name: %s\n", indent, "", f->name);
		if (f->type == S_STRUCT) {
			bufprintf(b, "%*s  struct:\n", indent, "");
			schemafeatures(b, f->sub, indent + 2);
		} else if (f->type == S_LIST && f->item == S_STRUCT) {
			bufprintf(b, "%*s  list:\n", indent, "");
			schemafeatures(b, f->sub, indent + 2);
		} else if (f->type == S_LIST) {
			bufprintf(b, "%*s  list: %s\n", indent, "", dtypes[f->item]);
		} else {
			bufprintf(b, "%*s  dtype: %s\n", indent, "", dtypes[f->type]);
		}
	}
}

static void
doc(struct buf *b, const struct sfield *t, int depth)
{
	const struct sfield *f;

	for (f = t; f->name; f++) {
		const char *ty = f->type == S_STRUCT ? "struct" : f->type != S_LIST ? dtypes[f->type]
		               : f->item == S_STRUCT ? "list of struct" : "list of string";
		bufprintf(b, "%*s- `%s` (%s%s)%s%s\n", 2 * depth, "", f->name, ty, f->flags & S_NULL ? " or null" : "",
		          *f->doc ? ": " : "", f->doc);
		if (f->sub)
			doc(b, f->sub, depth + 1);
	}
}

void
schemadoc(struct buf *b, const struct sfield *table)
{
	doc(b, table, 0);
}

static void
measured(const struct sfield *t, const char *prefix, json_t *out)
{
	const struct sfield *f;

	for (f = t; f->name; f++) {
		char *p = xasprintf("%s%s", prefix, f->name), *q;
		if (f->flags & S_MEASURED) {
			json_array_append_new(out, json_string(p));
		} else if (f->sub) {
			q = xasprintf("%s%s", p, f->type == S_LIST ? "[]." : ".");
			measured(f->sub, q, out);
			free(q);
		}
		free(p);
	}
}

void
schemameasured(const struct sfield *table, json_t *out)
{
	measured(table, "", out);
}

void
schemastrip(json_t *j, const struct sfield *t)
{
	const struct sfield *f;
	json_t *v, *x;
	size_t i;

	for (f = t; f->name; f++) {
		if (f->flags & S_MEASURED)
			json_object_del(j, f->name);
		else if (f->type == S_STRUCT && json_is_object(v = json_object_get(j, f->name)))
			schemastrip(v, f->sub);
		else if (f->sub && json_is_array(v = json_object_get(j, f->name)))
			json_array_foreach(v, i, x)
				if (json_is_object(x))
					schemastrip(x, f->sub);
	}
}

int
heldout(const char *task, double fraction)
{
	char h[65];
	unsigned long v = 0;

	sha256hex(task, strlen(task), h);
	sscanf(h, "%8lx", &v);
	return (double)v / 4294967296.0 < fraction;
}

double
usagetokens(const json_t *u)
{
	return (double)(jint(u, "input_tokens", 0) + jint(u, "output_tokens", 0) + jint(u, "cache_write_tokens", 0) +
	                jint(u, "cache_read_tokens", 0));
}

int
intrain(const json_t *r, double fraction)
{
	return !heldout(jstr(r, "task", ""), fraction) && outcomeof(r) == OUTCOME_CORRECT &&
	       json_array_size(json_object_get(r, "review")) == 0;
}
