/* round.c - see round.h */
#include "round.h"

#include <string.h>

#include "json.h"
#include "util.h"

enum { FEEDBACK_MAX = 64 << 20 };

static const char *const names[] = {
	[ST_NONE] = "",
	[ST_ANSWERED] = "answered", [ST_REFUSED] = "refused", [ST_TRUNCATED] = "truncated",
	[ST_OK] = "ok", [ST_NO_CODE] = "no_code", [ST_SCREEN_FAILED] = "screen_failed",
	[ST_COMPILE_ERROR] = "compile_error", [ST_NOT_BUILT] = "not_built",
	[ST_CORRECT] = "correct", [ST_MISMATCH] = "mismatch", [ST_MEMCHECK] = "memcheck",
	[ST_CRASH] = "crash", [ST_TIMEOUT] = "timeout", [ST_OUT_OF_BOUNDS] = "out_of_bounds",
	[ST_INPUTS_MODIFIED] = "inputs_modified", [ST_VIOLATION] = "violation", [ST_LOAD_ERROR] = "load_error",
	[ST_SANDBOX] = "sandbox", [ST_NO_ROOM] = "no_room",
	[ST_MEASURED] = "measured", [ST_INVALID] = "invalid", [ST_NOT_VERIFIED] = "not_verified",
	[ST_SKIPPED] = "skipped: no CUDA device",
	[ST_DONE] = "done",
	[ST_UNKNOWN] = "unknown",
};

static const char *const outcomes[] = {
	[OUTCOME_CORRECT] = "correct", [OUTCOME_INCORRECT] = "incorrect", [OUTCOME_UNVERIFIED] = "unverified",
	[OUTCOME_NO_CODE] = "no_code", [OUTCOME_UNKNOWN] = "unknown",
};

const char *
langname(enum lang l)
{
	return l == LANG_TRITON ? "triton" : "cuda";
}

int
langnamed(const char *name)
{
	return !name ? 0 : !strcmp(name, "cuda") ? LANG_CUDA : !strcmp(name, "triton") ? LANG_TRITON : 0;
}

enum lang
langof(const json_t *rec)
{
	return langnamed(jstr(rec, "lang", "")) == LANG_TRITON ? LANG_TRITON : LANG_CUDA;
}

const char *
statusname(enum status s)
{
	return s <= ST_UNKNOWN ? names[s] : names[ST_UNKNOWN];
}

enum status
statusnamed(const char *name)
{
	int s;

	if (!name || !*name)
		return ST_NONE;
	for (s = ST_NONE + 1; s < ST_UNKNOWN; s++)
		if (!strcmp(name, names[s]))
			return (enum status)s;
	return ST_UNKNOWN;
}

static const char *
field(enum stage stage)
{
	return stage == STAGE_VERIFY ? "verdict" : "status";
}

enum status
statusof(const json_t *rec, enum stage stage)
{
	return rec ? statusnamed(jstr(rec, field(stage), "")) : ST_NONE;
}

void
setstatus(json_t *rec, enum stage stage, enum status s)
{
	json_object_set_new(rec, field(stage), json_string(statusname(s)));
}

int
gpujudged(enum status v)
{
	return v != ST_NONE && v != ST_SKIPPED && v != ST_NOT_BUILT && v != ST_DONE;
}

char *
nogpuwhy(long long n)
{
	return xasprintf("no GPU ran them: verify says '%s' for the %lld rounds that built, so none could be found "
	                 "correct or timed, and each sample stopped at its first round that built (nothing was left "
	                 "to feed back). Their records are in the unverified split; a build on a GPU host verifies, "
	                 "times and repairs them (doc/gpu-hosts.md)", statusname(ST_SKIPPED), n);
}

int
benchcaught(enum status b)
{
	return b == ST_MISMATCH || b == ST_INVALID || b == ST_MEMCHECK || (b >= ST_CRASH && b <= ST_SANDBOX);
}

/* 1 when the build failed in a way the teacher is told of */
static int
buildfailed(enum status s)
{
	return s == ST_NO_CODE || s == ST_SCREEN_FAILED || s == ST_COMPILE_ERROR || s == ST_TIMEOUT;
}

/* fast enough, or no baseline to be faster than */
static int
fastenough(const json_t *task, const json_t *bench)
{
	return !json_object_get(bench, "speedup") || jnum(bench, "speedup", 0) >= jnum(task, "target_speedup", 1);
}

int
roundfinished(const json_t *task, const json_t *c, const json_t *v, const json_t *bn)
{
	enum status vs = statusof(v, STAGE_VERIFY);

	if (buildfailed(statusof(c, STAGE_COMPILE)))
		return 0;
	if (vs == ST_SKIPPED) /* no GPU: nothing more to learn from another round */
		return 1;
	if (vs == ST_CORRECT && !bn)
		return 1;
	if (v && vs != ST_CORRECT)
		return 0;
	return statusof(bn, STAGE_BENCH) == ST_MEASURED && fastenough(task, bn);
}

/* what the compile record says, when the code never reached the GPU */
static void
compilefeedback(struct buf *b, const json_t *c)
{
	const json_t *viol;
	size_t i, n;
	int triton = langof(c) == LANG_TRITON;

	switch (statusof(c, STAGE_COMPILE)) {
	case ST_NO_CODE:
		if (triton)
			bufprintf(b, "Your answer had no usable Python source: %s.\n"
			          "Put the complete module in one ```python fenced block.\n", jstr(c, "reason", ""));
		else
			bufprintf(b, "Your answer had no usable CUDA source: %s.\n"
			          "Put the complete .cu file in one ```cuda fenced block.\n", jstr(c, "reason", ""));
		break;
	case ST_SCREEN_FAILED:
		n = json_array_size(json_object_get(c, "violations"));
		bufputs(b, "The static screen refused the code:\n");
		json_array_foreach(json_object_get(c, "violations"), i, viol) {
			if (i == FEEDBACK_MAX_VIOLATIONS) {
				bufprintf(b, "- and %zu more\n", n - i);
				break;
			}
			bufprintf(b, "- %s (line %" JSON_INTEGER_FORMAT "): %s\n", jstr(viol, "rule", ""),
			          jint(viol, "line", 0), jstr(viol, "message", ""));
		}
		break;
	case ST_COMPILE_ERROR:
		bufprintf(b, "%s failed to compile the code:\n```\n%s\n```\n", triton ? "Triton" : "nvcc",
		          jstr(c, "diagnostics", ""));
		break;
	case ST_TIMEOUT:
		bufprintf(b, "Compiling the code took too long (%s): simplify it, e.g. %s.\n", jstr(c, "reason",
		          "nvcc timed out"), triton ? "fewer autotuning configs or smaller tiles"
		                                    : "less unrolling or fewer template instantiations");
		break;
	default:
		break;
	}
}

/* what bench says of a correct kernel: how fast it is, against the target */
static void
benchfeedback(struct buf *b, const json_t *task, const json_t *bn)
{
	switch (statusof(bn, STAGE_BENCH)) {
	case ST_MEASURED:
		if (!fastenough(task, bn))
			bufprintf(b, "%sThe target is %gx the baseline's speed: make it faster, and explain "
			          "what limits it now.\n", jstr(bn, "feedback", ""), jnum(task, "target_speedup", 1));
		break;
	case ST_SKIPPED: case ST_DONE: case ST_NOT_VERIFIED:
		break;
	default:
		bufprintf(b, "%s", jstr(bn, "feedback", ""));
		break;
	}
}

char *
roundfeedback(const json_t *task, const json_t *c, const json_t *v, const json_t *bn)
{
	struct buf b;
	enum status vs = statusof(v, STAGE_VERIFY);

	bufinit(&b, FEEDBACK_MAX);
	if (c)
		compilefeedback(&b, c);
	if (v && !b.n && vs != ST_SKIPPED && vs != ST_CORRECT)
		bufprintf(&b, "%s\n", jstr(v, "feedback", jstr(v, "verdict", "")));
	if (bn && !b.n && vs != ST_SKIPPED)
		benchfeedback(&b, task, bn);
	return bufdetach(&b);
}

const char *
outcomename(enum outcome o)
{
	return o <= OUTCOME_UNKNOWN ? outcomes[o] : outcomes[OUTCOME_UNKNOWN];
}

enum outcome
outcomeof(const json_t *record)
{
	const char *s = jstr(record, "outcome", "");
	int o;

	for (o = 0; o < OUTCOME_UNKNOWN; o++)
		if (!strcmp(s, outcomes[o]))
			return (enum outcome)o;
	return OUTCOME_UNKNOWN;
}
