/* t-round.c - a round's outcome (src/lib/round.c): the status names,
 * the stop rule, the feedback, a record's outcome, the candidate languages */
#include <stdlib.h>
#include <string.h>

#include "../../src/lib/json.h"
#include "../../src/lib/round.h"
#include "../../src/lib/schema.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

static json_t *
rec(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	need(j != NULL, "parse a test record");
	return j;
}

/* the feedback and the stop rule for one round, the records given as JSON text ("" for none) */
static char *
judge(const char *task, const char *c, const char *v, const char *b, int *finished)
{
	json_t *tj = rec(task), *cj = *c ? rec(c) : NULL, *vj = *v ? rec(v) : NULL, *bj = *b ? rec(b) : NULL;
	char *fb = roundfeedback(tj, cj, vj, bj);

	*finished = roundfinished(tj, cj, vj, bj);
	json_decref(tj);
	json_decref(cj);
	json_decref(vj);
	json_decref(bj);
	return fb;
}

static void
names(void)
{
	int s, same = 1;
	json_t *j = json_object();

	for (s = ST_NONE + 1; s < ST_UNKNOWN; s++)
		same &= (int)statusnamed(statusname((enum status)s)) == s;
	ok(same, "every status's name reads back as that status");
	is_int(statusnamed("skipped: no CUDA device"), ST_SKIPPED, "the skipped verdict's full text");
	is_int(statusnamed("skipped"), ST_UNKNOWN, "a name no stage writes is unknown");
	is_int(statusnamed(NULL), ST_NONE, "no name: none");
	is_int(statusof(NULL, STAGE_BENCH), ST_NONE, "a stage that did not run: none");
	setstatus(j, STAGE_VERIFY, ST_OUT_OF_BOUNDS);
	is_str(jstr(j, "verdict", ""), "out_of_bounds", "verify's status is its verdict field");
	setstatus(j, STAGE_COMPILE, ST_SCREEN_FAILED);
	is_str(jstr(j, "status", ""), "screen_failed", "the other stages' is status");
	is_int(statusof(j, STAGE_COMPILE), ST_SCREEN_FAILED, "and reads back");
	json_decref(j);
	ok(gpujudged(ST_CORRECT) && gpujudged(ST_CRASH) && gpujudged(ST_UNKNOWN), "a GPU judged correct, crash, unknown");
	ok(!gpujudged(ST_SKIPPED) && !gpujudged(ST_NOT_BUILT) && !gpujudged(ST_DONE) && !gpujudged(ST_NONE),
	   "but not skipped, not_built, done or nothing");
	ok(benchcaught(ST_MISMATCH) && benchcaught(ST_INVALID) && benchcaught(ST_CRASH) && benchcaught(ST_SANDBOX) &&
	   benchcaught(ST_OUT_OF_BOUNDS), "bench caught wrong: mismatch, invalid, crash, sandbox, out_of_bounds");
	ok(!benchcaught(ST_MEASURED) && !benchcaught(ST_NO_ROOM) && !benchcaught(ST_SKIPPED) && !benchcaught(ST_NONE) &&
	   !benchcaught(ST_NOT_VERIFIED) && !benchcaught(ST_DONE), "but not measured, no_room, skipped, not run");
}

static void
stoprule(void)
{
	const char *task = "{\"target_speedup\": 2}", *ok_ = "{\"status\": \"ok\"}", *right = "{\"verdict\": \"correct\"}";
	int fin;
	char *fb;

	fb = judge(task, ok_, right, "{\"status\": \"measured\", \"speedup\": 2.5}", &fin);
	ok(fin && !*fb, "correct and fast enough: finished, nothing to say");
	free(fb);
	fb = judge(task, ok_, right, "{\"status\": \"measured\", \"speedup\": 1.5, \"feedback\": \"1.5x.\\n\"}", &fin);
	ok(!fin && !strcmp(fb, "1.5x.\nThe target is 2x the baseline's speed: make it faster, and explain what limits "
	   "it now.\n"), "correct but slow: another round, asked to go faster");
	free(fb);
	fb = judge(task, ok_, right, "{\"status\": \"measured\"}", &fin);
	ok(fin && !*fb, "correct with no baseline to be faster than: finished");
	free(fb);
	fb = judge(task, ok_, right, "", &fin);
	ok(fin && !*fb, "correct where nothing times it: finished");
	free(fb);
	fb = judge(task, ok_, "{\"verdict\": \"skipped: no CUDA device\"}", "{\"status\": \"skipped: no CUDA device\"}", &fin);
	ok(fin && !*fb, "no GPU to check on: finished, nothing to say");
	free(fb);
	fb = judge(task, ok_, "{\"verdict\": \"mismatch\", \"feedback\": \"Wrong at n=3.\"}", "{\"status\": \"not_verified\"}",
	           &fin);
	ok(!fin && !strcmp(fb, "Wrong at n=3.\n"), "a mismatch: its feedback, another round");
	free(fb);
	fb = judge(task, ok_, "{\"verdict\": \"crash\"}", "", &fin);
	ok(!fin && !strcmp(fb, "crash\n"), "a verdict without feedback: its name");
	free(fb);
	fb = judge(task, ok_, right, "{\"status\": \"invalid\", \"feedback\": \"Tampered.\\n\"}", &fin);
	ok(!fin && !strcmp(fb, "Tampered.\n"), "correct but its timing invalid: bench's feedback");
	free(fb);
}

static void
buildfeedback(void)
{
	const char *task = "{}";
	int fin;
	char *fb;
	struct buf v;

	fb = judge(task, "{\"status\": \"no_code\", \"reason\": \"no fenced block\"}", "{\"verdict\": \"not_built\"}", "",
	           &fin);
	ok(!fin && !strncmp(fb, "Your answer had no usable CUDA source: no fenced block.\n", 56), "no code: why");
	free(fb);
	fb = judge(task, "{\"status\": \"compile_error\", \"diagnostics\": \"x.cu(3): error\"}", "", "", &fin);
	ok(!fin && strstr(fb, "nvcc failed to compile the code:\n```\nx.cu(3): error\n```\n") == fb, "nvcc's errors");
	free(fb);
	fb = judge(task, "{\"status\": \"timeout\"}", "", "", &fin);
	ok(!fin && strstr(fb, "took too long (nvcc timed out)"), "a compile time-out");
	free(fb);
	bufinit(&v, 1 << 16);
	bufputs(&v, "{\"status\": \"screen_failed\", \"violations\": [");
	for (int i = 0; i < 12; i++)
		bufprintf(&v, "%s{\"rule\": \"environment\", \"line\": %d, \"message\": \"getenv\"}", i ? "," : "", i + 1);
	bufputs(&v, "]}");
	fb = judge(task, v.s, "", "", &fin);
	ok(!fin && strstr(fb, "- environment (line 10): getenv\n- and 2 more\n") && !strstr(fb, "(line 11)"),
	   "the screen's violations, capped at %d", FEEDBACK_MAX_VIOLATIONS);
	free(fb);
	buffree(&v);
	fb = judge(task, "{\"status\": \"screen_failed\", \"violations\": []}", "{\"verdict\": \"skipped: no CUDA device\"}",
	           "", &fin);
	ok(!fin, "a failed build never finishes the sample, GPU or not");
	free(fb);
}

/* a round's language, and the feedback a Triton round gets */
static void
langs(void)
{
	const char *task = "{\"target_speedup\": 1.0}";
	json_t *r = rec("{\"lang\": \"triton\"}");
	char *fb;
	int fin;

	is_int(langof(r), LANG_TRITON, "a Triton round says so");
	json_object_del(r, "lang");
	is_int(langof(r), LANG_CUDA, "a round without lang is CUDA's");
	is_str(langname(LANG_TRITON), "triton", "the names");
	ok(langnamed("cuda") == LANG_CUDA && !langnamed("rust") && !langnamed(NULL), "and back; others are none");
	json_decref(r);
	fb = judge(task, "{\"lang\": \"triton\", \"status\": \"no_code\", \"reason\": \"no block\"}", "", "", &fin);
	ok(!fin && strstr(fb, "no usable Python source: no block.") && strstr(fb, "```python"), "no code: a Python block");
	free(fb);
	fb = judge(task, "{\"lang\": \"triton\", \"status\": \"compile_error\", \"diagnostics\": \"at 2:3: bad\"}", "",
	           "", &fin);
	ok(!fin && strstr(fb, "Triton failed to compile the code:\n```\nat 2:3: bad\n```\n") == fb, "Triton's errors");
	free(fb);
	fb = judge(task, "{\"lang\": \"triton\", \"status\": \"ok\"}", "{\"verdict\": \"skipped: no CUDA device\"}",
	           "", &fin);
	ok(fin && !*fb, "a Triton round that built, with no GPU, ends the sample as a CUDA one does");
	free(fb);
}

static void
outcomes(void)
{
	json_t *r = rec("{\"outcome\": \"unverified\"}");

	is_int(outcomeof(r), OUTCOME_UNVERIFIED, "a record's outcome reads back");
	json_object_set_new(r, "outcome", json_string(outcomename(OUTCOME_NO_CODE)));
	is_str(jstr(r, "outcome", ""), "no_code", "and is written by name");
	json_object_set_new(r, "outcome", json_string("great"));
	is_int(outcomeof(r), OUTCOME_UNKNOWN, "another word is unknown");
	json_decref(r);
}

/* the tokens a usage object counts: lib/schema.c's one definition, which
 * the budget, the status and the summary share */
static void
tokens(void)
{
	json_t *u = rec("{\"input_tokens\": 1000, \"output_tokens\": 300, \"cache_write_tokens\": 20, "
	                "\"cache_read_tokens\": 4, \"reasoning_tokens\": 200}");

	ok(usagetokens(u) == 1324, "usage: input, output and the cache's, reasoning counted once (in output)");
	ok(usagetokens(NULL) == 0, "no usage: no tokens");
	json_decref(u);
}

int
main(void)
{
	setprogname("t-round");
	names();
	stoprule();
	buildfeedback();
	langs();
	outcomes();
	tokens();
	return done_testing();
}
