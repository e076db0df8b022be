/* feedback.c - see feedback.h */
#include "feedback.h"

#include <string.h>

#include "json.h"
#include "util.h"

enum { FEEDBACK_MAX = 64 << 20 };

/* what the compile record says, when the code never reached the GPU */
static void
compilefeedback(struct buf *b, const json_t *c)
{
	const char *st = jstr(c, "status", "");
	const json_t *viol;
	size_t i, n;

	if (!strcmp(st, "no_code")) {
		bufprintf(b, "Your answer had no usable CUDA source: %s.\n"
		          "Put the complete .cu file in one ```cuda fenced block.\n", jstr(c, "reason", ""));
	} else if (!strcmp(st, "screen_failed")) {
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
	} else if (!strcmp(st, "compile_error")) {
		bufprintf(b, "nvcc failed to compile the code:\n```\n%s\n```\n", jstr(c, "diagnostics", ""));
	} else if (!strcmp(st, "timeout")) {
		bufprintf(b, "Compiling the code took too long (%s): simplify it, e.g. less unrolling "
		          "or fewer template instantiations.\n", jstr(c, "reason", "nvcc timed out"));
	}
}

char *
roundfeedback(const json_t *task, const json_t *c, const json_t *v, const json_t *bn, int *finished)
{
	struct buf b;
	const char *st;

	*finished = 0;
	bufinit(&b, FEEDBACK_MAX);
	if (c)
		compilefeedback(&b, c);
	if (v && !b.n) {
		st = jstr(v, "verdict", "");
		if (!strncmp(st, "skipped", 7))
			*finished = 1; /* no GPU: nothing more to learn from another round */
		else if (strcmp(st, "correct"))
			bufprintf(&b, "%s\n", jstr(v, "feedback", st));
	}
	if (bn && !b.n && !*finished) {
		st = jstr(bn, "status", "");
		if (!strcmp(st, "measured")) {
			/* fast enough, or no baseline to be faster than: done */
			double sp = jnum(bn, "speedup", 0);
			if (!json_object_get(bn, "speedup") || sp >= jnum(task, "target_speedup", 1))
				*finished = 1;
			else
				bufprintf(&b, "%sThe target is %gx the baseline's speed: make it faster, and explain "
				          "what limits it now.\n", jstr(bn, "feedback", ""), jnum(task, "target_speedup", 1));
		} else if (strncmp(st, "skipped", 7) && strcmp(st, "done") && strcmp(st, "not_verified")) {
			bufprintf(&b, "%s", jstr(bn, "feedback", ""));
		}
	}
	if (v && !strcmp(jstr(v, "verdict", ""), "correct") && !bn)
		*finished = 1;
	return bufdetach(&b);
}
