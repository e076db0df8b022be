/*
 * NAME
 *     query-llm - ask the teacher model for one round of one sample
 *
 * SYNOPSIS
 *     query-llm [options] -o RESPONSE TASK_JSON [PREVIOUS_ROUND_FILES...]
 *     query-llm [options] --batch STATE @RESPONSES
 *     query-llm [options] --distill SKILL_MD -o RESPONSE RECORD_JSON... (or @LISTFILE)
 *     query-llm --report OUT_DIR [--log FILE] [--cache-dir DIR]
 *     query-llm --status STATUS_JSON
 *
 * DESCRIPTION
 *     Renders one edge's request (variant, sample, round) from TASK_JSON
 *     and the prompt templates. From round 2 it adds the previous round's
 *     conversation and a feedback message built from its verdicts. The
 *     inputs are told apart by file name. A proposal batch's TASK_JSON
 *     names its own templates and variables.
 *     The answer comes from the response cache, or from the model, and is
 *     then cached. The cache key is the sha256 of the canonical request,
 *     never a key or a base URL. RESPONSE holds the conversation so far,
 *     this round's answer, usage and $.
 *     Every request is reserved at its worst case in the cache dir's
 *     budget before it is sent, and settled in the ledger. Keys are read
 *     only from the environment and redacted from everything written.
 *     --batch sends a round's cache misses through the provider's batch
 *     API (batch.h). --distill asks for a skill from the train records;
 *     without one it is exit 2, or with --skip-untrained a notice on
 *     stderr and exit 0 with nothing written (ninja skill's edge).
 *     --report prints tokens and $ by model (ninja cost).
 *     --status FILE keeps the build's live status there (lib/status.h):
 *     requests answered, in flight, failed, tokens and $ of this ninja
 *     run; alone, it prints that status as one line (ninja status).
 *
 * FILES
 *     CACHE (--cache-dir): llm/ (the responses), ledger.jsonl, budget.json,
 *     limits.json, locks/, warm/, batch/; --log FILE (out/llm.log);
 *     --status FILE (out/status.json).
 *
 * EXIT STATUS
 *     0 written; 1 the model could not be asked (network, limits, budget,
 *     an offline cache miss, a refused request): nothing written; 2 bad
 *     usage or input (a replay answer not UTF-8, --budget for a model
 *     without prices, --batch for one with prices but no batch_prices).
 *
 * SEE ALSO
 *     doc/teacher.md
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "../lib/task.h"
#include "batch.h"
#include "../lib/json.h"
#include "llm.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/sha.h"
#include "../lib/skill.h"
#include "../lib/status.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: query-llm [options] -o RESPONSE TASK_JSON [PREVIOUS_ROUND_FILES...]\n"
	"       query-llm [options] --batch STATE @RESPONSES\n"
	"       query-llm [options] --distill SKILL_MD -o RESPONSE RECORD_JSON... (or @LISTFILE)\n"
	"       query-llm --report OUT_DIR [--log FILE] [--cache-dir DIR]\n"
	"       query-llm --status STATUS_JSON\n";

enum { MAX_TEMPLATE = 1 << 20 };

struct opts {
	const char *out, *modelcfg, *prompts, *cachedir, *replaydir, *arch, *log, *report, *batch;
	const char *skill; /* --skill FILE: a guide for the system prompt (lib/skill.h) */
	const char *distill; /* --distill SKILL_MD: the skill request over records */
	int sample, round, offline;
	double budget, budgettokens;
	const char *status; /* --status FILE: the build's live status (lib/status.h) */
	const char *task, *prev[5]; /* response, compile, verify, bench, check (a proposal batch's) */
	const char *lang;           /* --lang: cuda, or triton (round.h) */
	int skipuntrained;          /* --skip-untrained: no train record is a notice and exit 0 (ninja skill) */
};

/* a Triton sample's: its templates in PROMPTS/triton, its replay answers in DIR/<variant>/triton */
static int
triton(const struct opts *o)
{
	return langnamed(o->lang) == LANG_TRITON;
}

/* the folder of the edge's templates */
static char *
promptdir(const struct opts *o)
{
	return triton(o) ? xasprintf("%s/triton", o->prompts) : xstrdup(o->prompts);
}

/* ------------------------------------------------------------ templates */

/*
 * Render a template: {{name}} is replaced by the variable's text;
 * {{?name}}...{{/name}} keeps its body only when the variable is not empty.
 * An unknown name is an error in the template.
 */
static char *
render(const char *tpl, const char *path, json_t *vars)
{
	struct buf b;
	const char *p = tpl;
	int line = 1;

	bufinit(&b, MAX_BODY);
	while (*p) {
		const char *open = strstr(p, "{{"), *close, *q;
		char name[64];
		size_t n;
		int section = 0;

		if (!open) {
			bufputs(&b, p);
			break;
		}
		bufput(&b, p, (size_t)(open - p));
		for (q = p; q < open; q++)
			line += *q == '\n';
		close = strstr(open, "}}");
		if (!close)
			die(EXIT_USAGE, "%s:%d: '{{' without '}}'", path, line);
		q = open + 2;
		if (*q == '?' || *q == '/')
			section = *q++;
		n = (size_t)(close - q);
		if (n == 0 || n >= sizeof name)
			die(EXIT_USAGE, "%s:%d: bad template variable", path, line);
		memcpy(name, q, n);
		name[n] = 0;
		if (!json_is_string(json_object_get(vars, name)))
			die(EXIT_USAGE, "%s:%d: unknown template variable '%s'", path, line, name);
		p = close + 2;
		if (section == '/')
			continue; /* the end of a kept section */
		if (section == '?') {
			char endtag[80];
			const char *end;
			snprintf(endtag, sizeof endtag, "{{/%s}}", name);
			end = strstr(p, endtag);
			if (!end)
				die(EXIT_USAGE, "%s:%d: '{{?%s}}' without '%s'", path, line, name, endtag);
			if (!*json_string_value(json_object_get(vars, name))) {
				for (q = p; q < end; q++)
					line += *q == '\n';
				p = end + strlen(endtag);
			}
			continue;
		}
		bufputs(&b, json_string_value(json_object_get(vars, name)));
	}
	return bufdetach(&b);
}

/* render the template in DIR/NAME.md */
static char *
renderfile(const char *dir, const char *name, json_t *vars)
{
	char *path = xasprintf("%s/%s.md", dir, name), *r;
	struct buf b;

	bufinit(&b, MAX_TEMPLATE);
	if (readfile(path, &b) < 0)
		die(errno == ENOENT || errno == EFBIG ? EXIT_USAGE : EXIT_RETRY,
		    "cannot read the template '%s':", path);
	r = render(b.s, path, vars);
	buffree(&b);
	free(path);
	return r;
}

/* "NVIDIA Hopper (compute capability 9.0)" from "sm_90" */
static char *
gpudesc(const char *arch)
{
	static const struct { const char *prefix, *name; } fam[] = {
		{ "sm_10", "NVIDIA Blackwell" }, { "sm_12", "NVIDIA Blackwell (consumer)" },
		{ "sm_90", "NVIDIA Hopper (H100/H200)" }, { "sm_89", "NVIDIA Ada Lovelace" },
		{ "sm_86", "NVIDIA Ampere (consumer)" }, { "sm_80", "NVIDIA Ampere (A100)" },
		{ "sm_75", "NVIDIA Turing" }, { "sm_70", "NVIDIA Volta" },
	};
	const char *d = arch + 3;
	size_t i, nd = strspn(d, "0123456789");

	for (i = 0; i < sizeof fam / sizeof fam[0]; i++)
		if (!strncmp(arch, fam[i].prefix, strlen(fam[i].prefix)))
			break;
	if (strncmp(arch, "sm_", 3) || nd < 2)
		return xasprintf("NVIDIA GPU (%s)", arch);
	return xasprintf("%s GPU, compute capability %.*s.%c (%s)",
	                 i < sizeof fam / sizeof fam[0] ? fam[i].name : "NVIDIA", (int)nd - 1, d,
	                 d[nd - 1], arch);
}

static void
setvar(json_t *vars, const char *name, const char *value)
{
	json_object_set_new(vars, name, json_string(value ? value : ""));
}

/* the variables templates may use, from task.json */
static json_t *
taskvars(json_t *task, const struct opts *o)
{
	json_t *vars = json_object();
	struct buf b;
	size_t i;
	const char *k;
	json_t *v;
	char *g = gpudesc(o->arch);
	int python;

	bufinit(&b, MAX_BODY);
	setvar(vars, "task", jstr(task, "id", ""));
	bufputs(&b, jstr(task, "description", ""));
	while (b.n && isspace((unsigned char)b.s[b.n - 1]))
		b.s[--b.n] = 0; /* a YAML block keeps its last newline */
	setvar(vars, "description", b.s);
	bufreset(&b);
	setvar(vars, "entry", jstr(task, "entry", ""));
	if (triton(o)) { /* the Python entry point's */
		taskpysignature(task, &b);
		setvar(vars, "signature", b.s);
		bufreset(&b);
	} else {
		setvar(vars, "signature", jstr(task, "signature", ""));
	}
	setvar(vars, "arch", o->arch);
	setvar(vars, "gpu", g);
	free(g);
	/* the reference, under the name of its language's block in the template */
	python = !strcmp(jstr(task, "reference_language", "c"), "python");
	setvar(vars, python ? "python_reference" : "reference", jstr(task, "reference", ""));
	setvar(vars, python ? "reference" : "python_reference", "");

	taskargstable(task, &b);
	setvar(vars, "args", b.s);
	bufreset(&b);

	tasksizes(task, &b);
	setvar(vars, "sizes", b.s);
	bufreset(&b);

	json_array_foreach(json_object_get(task, "hints"), i, v)
		bufprintf(&b, "- %s\n", json_string_value(v));
	setvar(vars, "hints", b.s);
	bufreset(&b);

	json_object_foreach(json_object_get(task, "tolerance"), k, v)
		bufprintf(&b, "- %s: relative L2 error <= %g, and every element within %g + %g * |expected|\n",
		          k, jnum(v, "rel_norm", 0), jnum(v, "atol", 0), jnum(v, "rtol", 0));
	setvar(vars, "tolerance", b.s);
	bufreset(&b);
	bufprintf(&b, "%g", jnum(task, "target_speedup", 1));
	setvar(vars, "target_speedup", b.s);
	buffree(&b);
	json_object_foreach(json_object_get(task, "vars"), k, v) /* a proposal batch's own */
		if (json_is_string(v))
			setvar(vars, k, json_string_value(v));
	return vars;
}

/* --------------------------------------------------------- conversation */

/*
 * The feedback for the next round, from the previous round's verdicts
 * (lib/round.c, which record shares). Returns "" when there is nothing
 * to say, and sets *finished when the sample is done.
 */
static char *
feedback(const struct opts *o, json_t *task, int *finished)
{
	json_t *c = o->prev[1] ? schemaload(o->prev[1], schema_compile_json) : NULL;
	json_t *v = o->prev[2] ? schemaload(o->prev[2], schema_verify_json) : NULL;
	json_t *bn = o->prev[3] ? schemaload(o->prev[3], schema_bench_json) : NULL;
	char *fb;

	if (o->prev[4]) { /* a proposal batch: propose-check said what to repair */
		json_t *ck = schemaload(o->prev[4], schema_check_json);
		*finished = jbool(ck, "finished", 1);
		fb = xstrdup(jstr(ck, "feedback", ""));
		json_decref(ck);
		return fb;
	}
	fb = roundfeedback(task, c, v, bn);

	*finished = roundfinished(task, c, v, bn);

	json_decref(c);
	json_decref(v);
	json_decref(bn);
	return fb;
}

/* ------------------------------------------------------------- requests */


/*
 * Anthropic's prompt cache: a breakpoint (cache_control) on the system
 * prompt (httpbody), on the first user message and on the last message.
 * The system prompt is shared by every request of a build; the first
 * message, the task, by every sample and round of a variant; the whole
 * conversation by the sample's next round. A copy of messages with those
 * marks (a marked message's text becomes a block); the cache key never
 * sees them.
 */
static json_t *
breakpoints(json_t *messages)
{
	json_t *c = json_deep_copy(messages), *last = json_array_get(c, json_array_size(c) - 1);
	json_t *marks[2] = { json_array_get(c, 0), last };
	size_t i;

	for (i = 0; i < 2; i++) {
		json_t *content = json_object_get(marks[i], "content"), *blk;
		if (json_is_string(content)) {
			blk = json_pack("{s:s,s:O}", "type", "text", "text", content);
			json_object_set_new(marks[i], "content", json_pack("[o]", blk));
		} else {
			blk = json_array_get(content, json_array_size(content) - 1);
		}
		if (json_is_object(blk))
			json_object_set_new(blk, "cache_control", json_pack("{s:s}", "type", "ephemeral"));
	}
	return c;
}

/*
 * The canonical request (what the key hashes) and the HTTP body. The
 * conversation is in the provider's own message form.
 */
static json_t *
httpbody(const struct model *m, const char *system, json_t *messages, int forkey, int sample)
{
	json_t *b = json_object(), *cfg = m->cfg, *v;
	int anthropic = !strcmp(m->provider, "anthropic");
	int stream = jbool(cfg, "stream", 1);

	json_object_set_new(b, "model", json_string(m->api_model));
	if (anthropic) {
		json_t *sys = json_pack("{s:s,s:s}", "type", "text", "text", system);
		if (!forkey)
			json_object_set_new(sys, "cache_control", json_pack("{s:s}", "type", "ephemeral"));
		json_object_set_new(b, "system", json_pack("[o]", sys));
		json_object_set_new(b, "messages", forkey ? json_incref(messages) : breakpoints(messages));
		json_object_set_new(b, "max_tokens", json_integer(jint(cfg, "max_tokens", 16000)));
		if ((v = json_object_get(cfg, "thinking")))
			json_object_set(b, "thinking", v);
		if ((v = json_object_get(cfg, "effort")))
			json_object_set_new(b, "output_config", json_pack("{s:O}", "effort", v));
	} else {
		json_t *msgs = json_array();
		json_array_append_new(msgs, json_pack("{s:s,s:s}", "role", "system", "content", system));
		json_array_extend(msgs, messages);
		json_object_set_new(b, "messages", msgs);
		json_object_set_new(b, jstr(cfg, "max_tokens_field", "max_tokens"),
		                    json_integer(jint(cfg, "max_tokens", 16000)));
		if ((v = json_object_get(cfg, "reasoning_effort")))
			json_object_set(b, "reasoning_effort", v);
	}
	if ((v = json_object_get(cfg, "temperature")))
		json_object_set(b, "temperature", v);
	if ((v = json_object_get(cfg, "top_p")))
		json_object_set(b, "top_p", v);
	if (forkey) {
		json_object_set_new(b, "api", json_string(anthropic ? "anthropic-messages" : "openai-chat"));
		json_object_set_new(b, "sample", json_integer(sample));
	} else if (stream) {
		json_object_set_new(b, "stream", json_true());
		if (!anthropic && jbool(cfg, "stream_usage", 1))
			json_object_set_new(b, "stream_options", json_pack("{s:b}", "include_usage", 1));
	}
	return b;
}

/* ----------------------------------------------------- server-sent events */

/*
 * Split an SSE body into events: blank-line separated, "event:" and
 * "data:" fields (several data lines join with '\n'), ':' comments and
 * unknown fields ignored, \n, \r\n or \r line ends. Calls fn per event;
 * stops when fn returns non-zero and returns that.
 */
static int
sseparse(const char *s, size_t n, int (*fn)(void *, const char *, const char *), void *ud)
{
	struct buf ev, data;
	size_t i = 0;
	int r = 0;

	bufinit(&ev, 256);
	bufinit(&data, MAX_BODY);
	while (i <= n && !r) {
		size_t e = i;
		const char *line = s + i;
		size_t len;

		while (e < n && s[e] != '\n' && s[e] != '\r')
			e++;
		len = e - i;
		if (e < n && s[e] == '\r' && e + 1 < n && s[e + 1] == '\n')
			e++;
		if (len == 0) {
			if (data.n || ev.n)
				r = fn(ud, ev.s, data.s);
			bufreset(&ev);
			bufreset(&data);
		} else if (line[0] != ':') {
			size_t f = 0;
			while (f < len && line[f] != ':')
				f++;
			const char *val = line + (f < len ? f + 1 : len);
			size_t vl = f < len ? len - f - 1 : 0;
			if (vl && *val == ' ')
				val++, vl--;
			if (f == 5 && !strncmp(line, "event", 5)) {
				bufreset(&ev);
				bufput(&ev, val, vl);
			} else if (f == 4 && !strncmp(line, "data", 4)) {
				if (data.n)
					bufputc(&data, '\n');
				bufput(&data, val, vl);
			}
		}
		if (e >= n)
			break;
		i = e + 1;
	}
	if (!r && (data.n || ev.n))
		r = fn(ud, ev.s, data.s); /* a last event without its blank line */
	buffree(&ev);
	buffree(&data);
	return r;
}

struct stream {
	int anthropic;
	json_t *msg;          /* the assembled message */
	int stopped;          /* anthropic: message_stop seen */
	int done;             /* openai: [DONE] seen */
	int error;            /* an error event */
	char errtype[64], errmsg[400];
	json_t *errcode;      /* the error event's code, when it has one */
	char broken[200];     /* why the stream cannot be used: junk, a stray delta */
	struct buf text, reasoning; /* openai */
};

/* an OpenAI-compatible chunk: text, reasoning, the finish reason, usage */
static void
openaichunk(struct stream *st, json_t *j)
{
	json_t *ch = json_array_get(json_object_get(j, "choices"), 0), *d = json_object_get(ch, "delta");
	const char *s;

	if (!st->msg)
		st->msg = json_pack("{s:s,s:s}", "id", jstr(j, "id", ""), "model", jstr(j, "model", ""));
	if ((s = jstr(d, "content", NULL)))
		bufputs(&st->text, s);
	if ((s = jstr(d, "reasoning_content", NULL)) || (s = jstr(d, "reasoning", NULL)))
		bufputs(&st->reasoning, s);
	if (json_is_string(json_object_get(ch, "finish_reason")))
		json_object_set(st->msg, "finish_reason", json_object_get(ch, "finish_reason"));
	if (json_is_object(json_object_get(j, "usage")))
		json_object_set(st->msg, "usage", json_object_get(j, "usage"));
}

/* an Anthropic content_block_delta: appended to its block; 1 when there is no such block */
static int
anthropicdelta(struct stream *st, json_t *j)
{
	json_t *blk = json_array_get(json_object_get(st->msg, "content"), (size_t)jint(j, "index", -1));
	json_t *d = json_object_get(j, "delta");
	const char *dt = jstr(d, "type", ""), *field = NULL; /* the delta's field and the block's */
	char *cat;

	if (!blk) {
		snprintf(st->broken, sizeof st->broken, "a delta for content block %" JSON_INTEGER_FORMAT
		         ", which was never started", jint(j, "index", -1));
		return 1;
	}
	if (!strcmp(dt, "text_delta"))
		field = "text";
	else if (!strcmp(dt, "thinking_delta"))
		field = "thinking";
	else if (!strcmp(dt, "signature_delta"))
		field = "signature";
	if (!field)
		return 0; /* a delta kind the answer does not keep (tool input, citations) */
	cat = xasprintf("%s%s", jstr(blk, field, ""), jstr(d, field, ""));
	json_object_set_new(blk, field, json_string(cat));
	free(cat);
	return 0;
}

/* an Anthropic event: message_start, content blocks and deltas, message_delta, message_stop */
static int
anthropicevent(struct stream *st, json_t *j)
{
	const char *type = jstr(j, "type", "");

	if (!strcmp(type, "message_start")) {
		json_decref(st->msg);
		st->msg = json_deep_copy(json_object_get(j, "message"));
		if (!json_is_object(st->msg)) {
			json_decref(st->msg);
			st->msg = json_object();
		}
		if (!json_is_array(json_object_get(st->msg, "content")))
			json_object_set_new(st->msg, "content", json_array());
	} else if (st->msg && !strcmp(type, "content_block_start")) {
		json_array_append(json_object_get(st->msg, "content"), json_object_get(j, "content_block"));
	} else if (st->msg && !strcmp(type, "content_block_delta")) {
		return anthropicdelta(st, j);
	} else if (st->msg && !strcmp(type, "message_delta")) {
		json_t *d = json_object_get(j, "delta"), *u = json_object_get(j, "usage"), *mu;
		const char *k;
		json_t *v;
		json_object_foreach(d, k, v)
			json_object_set(st->msg, k, v);
		mu = json_object_get(st->msg, "usage");
		if (!json_is_object(mu))
			json_object_set_new(st->msg, "usage", mu = json_object());
		json_object_foreach(u, k, v) /* cumulative */
			json_object_set(mu, k, v);
	} else if (!strcmp(type, "message_stop")) {
		st->stopped = 1;
	}
	return 0;
}

/*
 * One event. Keep-alives are skipped: comments (sseparse drops them), an
 * event without data, Anthropic's ping. Any other data that is not JSON
 * (cut, or not UTF-8) breaks the stream, as an error event does.
 */
static int
onevent(void *ud, const char *event, const char *data)
{
	struct stream *st = ud;
	json_t *j, *e;
	int r;

	(void)event;
	if (!*data)
		return 0;
	if (!strcmp(data, "[DONE]")) {
		st->done = 1;
		return 0;
	}
	if (!(j = jloadwire(data, strlen(data)))) {
		snprintf(st->broken, sizeof st->broken, "a data line that is not JSON in the stream");
		return 1;
	}
	if ((e = json_object_get(j, "error")) && !json_is_null(e)) {
		st->error = 1;
		snprintf(st->errtype, sizeof st->errtype, "%s", json_is_object(e) ? jstr(e, "type", "error") : "error");
		snprintf(st->errmsg, sizeof st->errmsg, "%s", json_is_object(e) ? jstr(e, "message", "") :
		         json_is_string(e) ? json_string_value(e) : "");
		st->errcode = json_incref(json_object_get(e, "code"));
		json_decref(j);
		return 1;
	}
	r = 0;
	if (st->anthropic)
		r = anthropicevent(st, j);
	else
		openaichunk(st, j);
	json_decref(j);
	return r;
}


/*
 * Whether the stream ended as a whole answer ends: Anthropic's with a
 * stop_reason and message_stop; an OpenAI-compatible one with a
 * finish_reason and then [DONE] or the usage chunk. Returns NULL, or why not.
 */
static const char *
incomplete(const struct stream *st)
{
	if (!st->msg)
		return "stream ended before the message began";
	if (st->anthropic) {
		const char *stop = jstr(st->msg, "stop_reason", "");
		if (!st->stopped)
			return "stream ended before message_stop";
		return *stop ? NULL : "stream ended without a stop_reason";
	}
	if (!json_is_string(json_object_get(st->msg, "finish_reason")))
		return "stream ended without a finish_reason";
	if (!st->done && !json_object_get(st->msg, "usage"))
		return "stream ended after its finish_reason, before [DONE]";
	return NULL;
}

/*
 * The assembled message, as the non-streaming API would have returned it;
 * NULL for a broken or truncated stream (with a reason in why, and *fatal
 * set when retrying cannot help).
 */
static json_t *
assemble(const struct model *m, const struct reply *r, char *why, size_t whylen, int *fatal)
{
	struct stream st;
	json_t *msg = NULL;
	const char *gap;

	memset(&st, 0, sizeof st);
	st.anthropic = !strcmp(m->provider, "anthropic");
	bufinit(&st.text, MAX_BODY);
	bufinit(&st.reasoning, MAX_BODY);
	sseparse(r->body.s, r->body.n, onevent, &st);
	*fatal = 0;
	if (st.error) {
		snprintf(why, whylen, "error event in the stream: %s: %s", st.errtype, st.errmsg);
		*fatal = clienterror(st.errtype, st.errcode);
	} else if (st.broken[0]) {
		snprintf(why, whylen, "%s", st.broken);
	} else if ((gap = incomplete(&st))) {
		snprintf(why, whylen, "%s", gap);
	} else if (!st.anthropic) {
		json_t *message = json_pack("{s:s,s:s%}", "role", "assistant", "content", st.text.s, st.text.n);
		if (st.reasoning.n)
			json_object_set_new(message, "reasoning_content", json_stringn(st.reasoning.s, st.reasoning.n));
		msg = json_pack("{s:O?,s:O?,s:[{s:o,s:O?}],s:O?}", "id", json_object_get(st.msg, "id"),
		                "model", json_object_get(st.msg, "model"), "choices", "message", message,
		                "finish_reason", json_object_get(st.msg, "finish_reason"),
		                "usage", json_object_get(st.msg, "usage"));
	} else {
		msg = json_incref(st.msg);
	}
	json_decref(st.msg);
	json_decref(st.errcode);
	buffree(&st.text);
	buffree(&st.reasoning);
	return msg;
}

/*
 * The message in a 2xx reply (a stream or a JSON body), parsed into a; or
 * NULL with why (and *retryable cleared when retrying cannot help).
 */
static json_t *
readanswer(const struct model *m, const struct reply *r, struct answer *a, char *why, size_t whylen,
           int *retryable)
{
	json_t *msg;

	if (strstr(r->ctype, "text/event-stream")) {
		int fatal = 0;
		msg = assemble(m, r, why, whylen, &fatal);
		if (fatal)
			*retryable = 0;
	} else {
		size_t skip = 0;
		while (skip < r->body.n && isspace((unsigned char)r->body.s[skip]))
			skip++; /* blank keep-alive lines before the JSON */
		msg = jloadwire(r->body.s + skip, r->body.n - skip);
		if (!msg)
			snprintf(why, whylen, "malformed JSON in a %ld response", r->status);
	}
	if (msg && parsemessage(m, msg, a, why, whylen) < 0) {
		json_decref(msg);
		msg = NULL;
	}
	return msg;
}

/*
 * A prompt cache entry can be read only once the answer of the request
 * that writes it has begun: requests sent at once with the same prefix all
 * pay to write it. So the first request of a prefix (the system prompt and
 * the task: what a variant's samples and rounds share) goes alone: it
 * holds CACHE/warm/XX/ID.lock until its answer's first bytes arrive, then
 * stamps CACHE/warm/XX/ID; the others wait on the lock (at most
 * cache_warm_s, default 30 s) and, finding the stamp less than 4 minutes
 * old (entries live 5), go at once.
 */
static struct {
	int fd;              /* the lock held while this request goes first, or -1 */
	char *stamp;
} warm = { -1, NULL };

static void
warmed(void)
{
	int fd;

	if (warm.fd < 0)
		return;
	if ((fd = open(warm.stamp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) >= 0)
		close(fd); /* its mtime says when: no data */
	close(warm.fd);
	warm.fd = -1;
}

/*
 * What a request costs that is left before its answer is whole (killed,
 * or given up on a timeout): a provider finishes a plain request whoever
 * waits (its worst case), but stops a stream at the disconnect: its
 * prompt, and the answer made so far, bounded by what was received (about
 * 3.5 bytes a token of the stream, its framing counted as answer) and
 * TAIL_TOKENS more, made in the meantime. As a stream comes in, the bound
 * is written down (chargebound) at most every quarter second.
 */
enum { TAIL_TOKENS = 2048 };

static struct {
	const struct model *m;
	size_t inbytes;
	double last;
} streaming;

/* a stream's bound, having received outbytes */
static double
streambound(const struct model *m, size_t inbytes, size_t outbytes)
{
	double max = (double)jint(m->cfg, "max_tokens", 16000);

	return promptcost(m, inbytes) + estimate(m, 0, fmin((double)outbytes / 3.5 + TAIL_TOKENS, max));
}

static void
onstream(const struct reply *r)
{
	double t = now();

	if (t - streaming.last < 0.25)
		return;
	streaming.last = t;
	chargebound(streambound(streaming.m, streaming.inbytes, r->body.n), "the part of the stream received");
}

/* ask the model with the request body text; returns with a filled answer, or exits */
static void
ask(const struct model *m, const char *text, const char *taskid, struct answer *a)
{
	int anthropic = !strcmp(m->provider, "anthropic");
	const char *envkey = anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
	const char *envurl = anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL";
	const char *key = getenv(envkey), *base = getenv(envurl);
	json_t *retry = json_object_get(m->cfg, "retry");
	int attempts = (int)jint(retry, "attempts", 8);
	double maxwait = jnum(retry, "max_wait_s", 900), waited = 0;
	double cap = jnum(retry, "retry_after_cap_s", anthropic ? 60 : 120);
	char *url, err[256];
	int attempt, stream = jbool(m->cfg, "stream", 1);
	double worst = estimate(m, strlen(text), (double)jint(m->cfg, "max_tokens", 16000));

	if (anthropic && (!key || !*key))
		die(EXIT_RETRY, "%s is not set: cannot ask %s for '%s'", envkey, m->name, taskid);
	if (!base || !*base)
		base = anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1";
	url = xasprintf("%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/",
	                anthropic ? "v1/messages" : "chat/completions");
	if (anthropic && endswith(base, "/v1"))
		warn("ANTHROPIC_BASE_URL ends in /v1: the SDK convention is the host only");
	for (attempt = 1;; attempt++) {
		struct reply r;
		char why[600] = "", emsg[512], etype[64];
		int retryable = 1;
		double delay = -1;
		json_t *msg = NULL;

		memset(&r, 0, sizeof r);
		r.onfirst = warmed;
		if (stream) {
			r.onchunk = onstream;
			streaming.m = m;
			streaming.inbytes = strlen(text);
			streaming.last = 0;
			chargebound(promptcost(m, strlen(text)), "a stream not yet answered: its prompt");
		} else {
			chargebound(worst, "a plain request: its worst case");
		}
		if (httpdo(m, &(struct httpreq){ "POST", url, key, text, strlen(text), NULL }, &r, err, sizeof err) < 0)
			die(EXIT_RETRY, "%s", err);
		if (r.cerr == CURLE_OPERATION_TIMEDOUT && !r.status && r.sent) /* given up on: maybe billed */
			chargeserved(stream ? promptcost(m, strlen(text)) : worst,
			             (double)strlen(text) / 3.5 + (stream ? 0 : (double)jint(m->cfg, "max_tokens", 16000)));
		if (r.cerr != CURLE_OK) {
			snprintf(why, sizeof why, "%s", r.errbuf[0] ? r.errbuf : curl_easy_strerror(r.cerr));
			retryable = r.cerr != CURLE_PEER_FAILED_VERIFICATION && r.cerr != CURLE_SSL_CACERT_BADFILE &&
			            r.cerr != CURLE_URL_MALFORMAT && r.cerr != CURLE_UNSUPPORTED_PROTOCOL;
		} else if (r.status >= 200 && r.status < 300) {
			msg = readanswer(m, &r, a, why, sizeof why, &retryable);
		} else {
			errmessage(&r, emsg, sizeof emsg, etype, sizeof etype);
			snprintf(why, sizeof why, "HTTP %ld%s%s%s%s", r.status, etype[0] ? " " : "", etype,
			         emsg[0] ? ": " : "", emsg);
			retryable = r.status == 408 || r.status == 409 || r.status == 429 || r.status >= 500;
			if (!strcmp(etype, "insufficient_quota") || strstr(emsg, "credit balance"))
				retryable = 0;
			delay = retryafter(&r);
		}
		if (!msg && r.status >= 200 && r.status < 300) { /* served, billed, but of no use */
			double max = (double)jint(m->cfg, "max_tokens", 16000);
			double out = stream ? fmin((double)r.body.n / 3.5 + TAIL_TOKENS, max) : r.cerr != CURLE_OK ? max :
			             fmin((double)r.body.n / 3.5, max);
			chargeserved(stream ? streambound(m, strlen(text), r.body.n) : estimate(m, strlen(text), out),
			             (double)strlen(text) / 3.5 + out);
		}
		scrub(why, sizeof why);
		if (!strcasecmp(r.should_retry, "true") && !msg)
			retryable = 1;
		else if (!strcasecmp(r.should_retry, "false"))
			retryable = 0;
		if (msg) {
			a->message = msg;
			a->latency = r.seconds;
			snprintf(a->request_id, sizeof a->request_id, "%s", r.request_id);
			buffree(&r.body);
			break;
		}
		buffree(&r.body);
		if (!retryable)
			die(EXIT_RETRY, "%s refused the request for '%s': %s%s%s%s", m->name, taskid, why,
			    r.request_id[0] ? " (request-id " : "", r.request_id, r.request_id[0] ? ")" : "");
		if (attempt >= attempts)
			die(EXIT_RETRY, "giving up on '%s' after %d attempts: %s", taskid, attempt, why);
		if (!(delay > 0 && delay <= cap))
			delay = fmin(0.5 * pow(2, attempt - 1), 30.0) * jitter();
		if (waited + delay > maxwait)
			die(EXIT_RETRY, "giving up on '%s': waiting %.1f s more would pass retry.max_wait_s "
			    "(%.0f s); last error: %s", taskid, delay, maxwait, why);
		warn("%s: %s; retrying in %.1f s (attempt %d of %d)", taskid, why, delay, attempt + 1, attempts);
		usleep((useconds_t)(delay * 1e6));
		waited += delay;
	}
	free(url);
}

/* ---------------------------------------------------------------- output */

static void
logline(const struct opts *o, const char *taskid, const struct model *m, const char *key,
        const char *source, const struct answer *a)
{
	json_t *l;
	char err[8192];

	if (!o->log)
		return;
	l = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:O?,s:o}", "task", taskid, "sample", o->sample,
	              "round", o->round, "model", m->name, "key", key ? key : "", "source", source,
	              "usage", a ? a->usage : NULL, "cost_usd", jcost(a ? a->cost : 0.0, a ? a->priced : 1));
	if (appendline(o->log, l, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	json_decref(l);
}

/* the assistant turn to append to the conversation */
static json_t *
assistantturn(const struct model *m, const struct answer *a)
{
	if (!strcmp(m->provider, "anthropic")) /* thinking blocks go back byte for byte */
		return json_pack("{s:s,s:O}", "role", "assistant", "content",
		                 json_object_get(a->parsed, "blocks"));
	return json_pack("{s:s,s:O}", "role", "assistant", "content", json_object_get(a->parsed, "text"));
}

static enum status
answerstatus(const char *stop)
{
	if (!strcmp(stop, "refusal") || !strcmp(stop, "content_filter"))
		return ST_REFUSED;
	if (!strcmp(stop, "max_tokens") || !strcmp(stop, "length") ||
	    !strcmp(stop, "model_context_window_exceeded"))
		return ST_TRUNCATED;
	return ST_ANSWERED;
}

/* ---------------------------------------------------------------- report */

struct tally {
	char model[128];
	double n, in, out, cw, cr, usd;
	double unpriced; /* answers whose cost is unknown (the model had no prices) */
};

static struct tally *tallies;
static size_t ntallies;

static struct tally *
tallyfor(const char *model)
{
	size_t i;

	for (i = 0; i < ntallies; i++)
		if (!strcmp(tallies[i].model, model))
			return &tallies[i];
	tallies = xreallocarray(tallies, ntallies + 1, sizeof *tallies);
	memset(&tallies[ntallies], 0, sizeof *tallies);
	snprintf(tallies[ntallies].model, sizeof tallies[ntallies].model, "%s", model);
	return &tallies[ntallies++];
}

static int
onresponse(const char *path, const struct stat *st, int type, struct FTW *f)
{
	json_t *j, *u;
	struct tally *t;
	char err[256];

	(void)st;
	if (type != FTW_F || strcmp(path + f->base, "response.json"))
		return 0;
	if (!(j = jload(path, err, sizeof err)))
		return 0;
	if (statusof(j, STAGE_ANSWER) != ST_DONE) {
		t = tallyfor(jstr(j, "model", "?"));
		u = json_object_get(j, "usage");
		t->n++;
		t->in += (double)jint(u, "input_tokens", 0);
		t->out += (double)jint(u, "output_tokens", 0);
		t->cw += (double)jint(u, "cache_write_tokens", 0);
		t->cr += (double)jint(u, "cache_read_tokens", 0);
		t->usd += jnum(j, "cost_usd", 0);
		t->unpriced += !json_is_number(json_object_get(j, "cost_usd"));
	}
	json_decref(j);
	return 0;
}

static int
report(const struct opts *o)
{
	size_t i;
	FILE *f;
	char line[65536], unknown[64];
	double paid = 0, saved = 0, npaid = 0, nhit = 0, nreplay = 0, nunknown = 0, batched = 0, nbatch = 0;
	json_t *fresh = json_object(); /* keys a batch answered, until their first cache hit */

	if (nftw(o->report, onresponse, 16, FTW_PHYS) < 0)
		die(EXIT_USAGE, "cannot read '%s':", o->report);
	printf("responses in %s (what the dataset's answers cost at the recorded prices):\n", o->report);
	printf("  %-24s %8s %12s %12s %12s %12s %10s\n", "model", "answers", "input", "output",
	       "cache write", "cache read", "USD");
	for (i = 0; i < ntallies; i++) {
		struct tally *t = &tallies[i];
		char usd[64];
		if (t->unpriced == t->n)
			snprintf(usd, sizeof usd, "price unknown");
		else if (t->unpriced)
			snprintf(usd, sizeof usd, "%.4f + %.0f of unknown price", t->usd, t->unpriced);
		else
			snprintf(usd, sizeof usd, "%10.4f", t->usd);
		printf("  %-24s %8.0f %12.0f %12.0f %12.0f %12.0f %s\n", t->model, t->n, t->in, t->out, t->cw,
		       t->cr, usd);
	}
	if (!ntallies)
		printf("  (none)\n");
	if (o->log && (f = fopen(o->log, "r"))) {
		while (fgets(line, sizeof line, f)) {
			json_t *j = json_loads(line, 0, NULL);
			const char *src = jstr(j, "source", "");
			const char *key = jstr(j, "key", "");
			if (!strcmp(src, "network") || !strcmp(src, "batch"))
				nunknown += !json_is_number(json_object_get(j, "cost_usd"));
			if (!strcmp(src, "network"))
				paid += jnum(j, "cost_usd", 0), npaid++;
			else if (!strcmp(src, "batch"))
				batched += jnum(j, "cost_usd", 0), nbatch++, json_object_set_new(fresh, key, json_true());
			else if (!strcmp(src, "cache") && json_object_get(fresh, key))
				json_object_del(fresh, key); /* the query edge of a batched request: paid above */
			else if (!strcmp(src, "cache"))
				saved += jnum(j, "cost_usd", 0), nhit++;
			else if (!strcmp(src, "replay"))
				nreplay++;
			json_decref(j);
		}
		fclose(f);
		snprintf(unknown, sizeof unknown, ", and %.0f of unknown price", nunknown);
		printf("calls in %s: %.0f paid ($%.4f%s), %.0f answered from the cache ($%.4f not spent "
		       "again), %.0f replayed\n", o->log, npaid + nbatch, paid + batched, nunknown ? unknown : "",
		       nhit, saved, nreplay);
		if (nbatch)
			printf("  of the paid: %.0f in batches ($%.4f at batch prices)\n", nbatch, batched);
	}
	json_decref(fresh);
	if (o->cachedir)
		batchreport(o->cachedir);
	free(tallies);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the report:");
	return 0;
}

/* ------------------------------------------------------------------ main */

/* --status FILE alone: the build's live status as one line (ninja status) */
static int
showstatus(const char *path)
{
	json_t *st = statusload(path);
	char *line;

	if (!st) {
		printf("no requests yet: %s is written once a request edge runs\n", path);
		return 0;
	}
	line = statusline(st);
	printf("%s\n", line);
	free(line);
	json_decref(st);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the status:");
	return 0;
}

/*
 * The conversation to send: round 1 from the templates; later rounds the
 * previous one's and a repair message with its feedback. *prev gets the
 * previous response; *finished is set when an earlier round ended the
 * sample (nothing to ask).
 */
static json_t *
conversation(const struct opts *o, json_t *task, json_t *vars, json_t **prev, int *finished)
{
	const char *taskid = jstr(task, "id", "?");
	json_t *messages;
	char *user, *fb, r[16];

	char *dir = promptdir(o);

	*finished = 0;
	*prev = NULL;
	if (o->round == 1 && jbool(task, "nothing", 0)) {
		/* a request with nothing in it (propose-check --ask-reference: no problem needs one) */
		*finished = 1;
		free(dir);
		return json_array();
	}
	if (o->round == 1) {
		user = renderfile(dir, jstr(task, "prompt", "generate"), vars);
		free(dir);
		messages = json_pack("[{s:s,s:s}]", "role", "user", "content", user);
		free(user);
		return messages;
	}
	*prev = schemaload(o->prev[0], schema_response_json);
	if (!json_is_array(json_object_get(*prev, "messages")))
		die(EXIT_USAGE, "%s has no conversation", o->prev[0]);
	messages = json_deep_copy(json_object_get(*prev, "messages"));
	fb = feedback(o, task, finished);
	if (statusof(*prev, STAGE_ANSWER) == ST_DONE)
		*finished = 1;
	if (!*finished && !*fb)
		die(EXIT_USAGE, "round %d of '%s': the previous round left no verdict to feed back",
		    o->round, taskid);
	if (!*finished) {
		snprintf(r, sizeof r, "%d", o->round);
		setvar(vars, "feedback", fb);
		setvar(vars, "round", r);
		user = renderfile(dir, jstr(task, "repair", "repair"), vars);
		json_array_append_new(messages, json_pack("{s:s,s:s}", "role", "user", "content", user));
		free(user);
	}
	free(fb);
	free(dir);
	return messages;
}

/*
 * The hand-written answer in DIR/<variant>/s<sample>-r<round>.md, or exit
 * 2. A file that starts with a line "<think>" has a reasoning part, up to
 * a line "</think>": it becomes the answer's reasoning (where a real
 * teacher's thinking goes), the rest its text.
 */
static void
fromreplay(const struct opts *o, const char *taskid, struct answer *a)
{
	char *p = xasprintf("%s/%s/%ss%d-r%d.md", o->replaydir, taskid, triton(o) ? "triton/" : "", o->sample, o->round);
	struct buf b;
	const char *text, *end;
	size_t nthink = 0;

	bufinit(&b, MAX_BODY);
	if (readfile(p, &b) < 0)
		die(EXIT_USAGE, "no replay answer for '%s'%s sample %d round %d: write %s, or configure "
		    "a real teacher (--provider=anthropic or openai)", taskid, triton(o) ? " (triton)" : "", o->sample,
		    o->round, p);
	text = b.s;
	if (!strncmp(b.s, "<think>\n", 8)) {
		if (!(end = strstr(b.s + 8, "\n</think>\n")))
			die(EXIT_USAGE, "a reasoning part without its closing </think> line: '%s'", p);
		nthink = (size_t)(end - (b.s + 8));
		for (text = end + 10; *text == '\n'; text++)
			;
	}
	a->message = json_pack("{s:s,s:s%}", "role", "assistant", "content", text, b.n - (size_t)(text - b.s));
	a->parsed = json_pack("{s:s%,s:s%,s:[],s:s}", "text", text, b.n - (size_t)(text - b.s), "reasoning",
	                      nthink ? b.s + 8 : "", nthink, "blocks", "stop_reason", "end_turn");
	if (!a->message || !a->parsed) /* jansson takes UTF-8 text only */
		die(EXIT_USAGE, "answer is not valid UTF-8: '%s'", p);
	a->usage = json_pack("{s:i,s:i,s:i,s:i,s:i}", "input_tokens", 0, "output_tokens", 0,
	                     "cache_write_tokens", 0, "cache_read_tokens", 0, "reasoning_tokens", 0);
	a->priced = 1;
	buffree(&b);
	free(p);
}

/* wait, if need be, for the first request of canon's prefix (the system prompt and the task) */
static void
warmup(const struct opts *o, const struct model *m, json_t *canon)
{
	json_t *msgs = json_object_get(canon, "messages"), *sys = json_object_get(canon, "system"), *prefix;
	char id[65], *dir, *text, *lock;
	double t0 = now(), wait = jnum(m->cfg, "cache_warm_s", 30);
	struct stat st;
	int fd;

	/* anthropic: system blocks, then the task; openai: the system message, then the task */
	prefix = json_pack("[s,O?,O?,O?]", m->api_model, sys, json_array_get(msgs, 0),
	                   sys ? NULL : json_array_get(msgs, 1));
	text = jdumps(prefix, JFLAGS_LINE);
	sha256hex(text, strlen(text), id);
	free(text);
	json_decref(prefix);
	dir = xasprintf("%s/warm/%.2s", o->cachedir, id);
	warm.stamp = xasprintf("%s/%s", dir, id);
	lock = xasprintf("%s.lock", warm.stamp);
	fd = -1;
	if (wait <= 0 || (stat(warm.stamp, &st) == 0 && difftime(time(NULL), st.st_mtime) < 240) ||
	    mkdirp(dir) < 0 || (fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		free(dir);
		free(lock);
		return; /* warm already, or no way to tell: go */
	}
	free(dir);
	free(lock);
	while (flock(fd, LOCK_EX | LOCK_NB) < 0 && now() - t0 < wait)
		usleep(50000);
	if (stat(warm.stamp, &st) == 0 && difftime(time(NULL), st.st_mtime) < 240)
		close(fd); /* the first one's answer began: the cache has the prefix */
	else
		warm.fd = fd; /* this one goes first (or the first took too long) */
}

/*
 * A cache miss: ask the model, under the key's lock in the cache dir
 * (locks/XX/KEY.lock), so that concurrent runs asking the same request
 * pay once: whoever waited finds the answer cached. Returns the source,
 * "network" or "cache".
 */
static const char *
fromnetwork(const struct opts *o, const struct model *m, const char *key, json_t *canon, json_t *body,
            const char *taskid, struct answer *a)
{
	char *name = xasprintf("locks/%.2s/%s.lock", key, key), *dir = xasprintf("%s/locks/%.2s", o->cachedir, key);
	char *text, err[8192];
	int fd;
	double in, out;

	if (mkdirp(dir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", dir);
	if ((fd = lockfile(o->cachedir, name, err, sizeof err)) < 0)
		die(EXIT_RETRY, "%s", err);
	free(name);
	free(dir);
	if (cacheget(o->cachedir, key, a) == 0) {
		close(fd);
		return "cache";
	}
	text = jdumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	/* the worst case: about 3.5 bytes a token in, max_tokens out */
	in = (double)strlen(text) / 3.5;
	out = (double)jint(m->cfg, "max_tokens", 16000);
	if (reserve(o->cachedir, &(struct spend){ o->budget, o->budgettokens }, m, key,
	            &(struct spend){ estimate(m, strlen(text), out), in + out }, err, sizeof err) < 0 ||
	    ratelimit(o->cachedir, m, in + out, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	srandom((unsigned)(getpid() ^ (unsigned)time(NULL)));
	if (httpstart(m, 1) < 0)
		die(EXIT_RETRY, "libcurl: cannot initialize");
	warmup(o, m, canon);
	ask(m, text, taskid, a);
	if (warm.fd >= 0) { /* answered with no body: the lock goes all the same */
		close(warm.fd);
		warm.fd = -1;
	}
	free(warm.stamp);
	warm.stamp = NULL;
	if (!json_is_object(json_object_get(a->message, "usage")) && (estimate(m, 1, 1) > 0 || o->budgettokens > 0)) {
		/* a server that reports no usage (no stream_options support): the ledger gets an estimate */
		double outtok = (double)(strlen(jstr(a->parsed, "text", "")) + strlen(jstr(a->parsed, "reasoning", ""))) /
		                3.5;
		double est = estimate(m, strlen(text), outtok);
		warn("%s: the response says nothing of usage; the ledger charges an estimate ($%.4f, %.0f tokens)",
		     taskid, est, in + outtok);
		chargeserved(est, in + outtok);
	}
	free(text);
	curl_global_cleanup();
	chargebound(a->cost, "its answer's usage, received whole");
	if (settle(a->cost, a->priced, a->usage) < 0)
		exit(EXIT_RETRY); /* not recorded: its reservation stays, charged at the worst case */
	if (cacheput(o->cachedir, m, key, canon, a, err, sizeof err) < 0)
		die(EXIT_RETRY, "%s", err);
	close(fd);
	return "network";
}

static const char *
classify(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	static const char *const names[] = { "task.json", "response.json", "compile.json",
	                                     "verify.json", "bench.json", "check.json" };
	size_t i;

	for (i = 0; i < 6; i++)
		if (!strcmp(base, names[i]))
			return names[i];
	return NULL;
}

/* the round's inputs make sense */
static void
checkround(const struct opts *o)
{
	if (o->round < 1)
		die(EXIT_USAGE, "--round starts at 1");
	if (o->round > 1 && !o->prev[0])
		die(EXIT_USAGE, "round %d needs the previous round's response.json", o->round);
	if (!o->cachedir)
		die(EXIT_USAGE, "need --cache-dir");
}

/* the model config (--model-config) into m */
static void
loadmodel(const struct opts *o, struct model *m)
{
	memset(m, 0, sizeof *m);
	m->cfg = jmustload(o->modelcfg);
	m->name = jstr(m->cfg, "name", "?");
	m->api_model = jstr(m->cfg, "api_model", m->name);
	m->provider = jstr(m->cfg, "provider", "");
	if (strcmp(m->provider, "anthropic") && strcmp(m->provider, "openai") && strcmp(m->provider, "replay"))
		die(EXIT_USAGE, "%s: unknown provider '%s'", o->modelcfg, m->provider);
	if (o->budget > 0 && !priced(m->cfg) && strcmp(m->provider, "replay"))
		die(EXIT_USAGE, "--budget needs prices: model '%s' %s (configure --price-in and --price-out, or add "
		    "it under models: with prices: {input, output}; or cap the tokens with --budget-tokens)", m->name,
		    jbool(m->cfg, "listed", 1) ? "has no prices in models.yaml" : "is not in models.yaml");
}

/* the system prompt and, after it, the skill's guide (its sources line left out) */
static char *
withskill(char *system, const char *path)
{
	struct skill s;
	char err[600], *r;

	if (skillload(path, &s, err, sizeof err) < 0)
		die(errno == ENOENT || errno == EFBIG ? EXIT_USAGE : EXIT_RETRY, "%s", err);
	r = xasprintf("%s\n\n# A skill for these tasks\n\n%s", system, s.text);
	skillfree(&s);
	free(system);
	return r;
}

/* one edge's request, rendered */
struct request {
	json_t *task, *vars, *prev, *messages, *canon;
	const char *taskid;
	char *system;
	char key[65];
	int finished;        /* an earlier round finished the sample: nothing to ask (no canon, no key) */
};

/* task.json of the shape its kind needs (a proposal request's, lib/schema.c,
 * or a variant that lib/task.c loads), else exit 2: a wrong one would be
 * asked (and paid for) with an empty prompt */
static void
checktask(const char *path, json_t *task)
{
	struct task t;
	char err[1024];

	if (!strcmp(jstr(task, "kind", ""), "proposal")) {
		if (schemafile(task, schema_proposal_json, err, sizeof err) < 0)
			die(EXIT_USAGE, "a proposal request: %s: '%s'", err, path);
		return;
	}
	if (taskfrom(&t, task, path, err, sizeof err) < 0)
		die(EXIT_USAGE, "not a variant's task.json: %s", err);
	taskfree(&t);
}

/* render the request of the edge that o describes: its conversation, canonical form and key */
static void
prepare(const struct opts *o, const struct model *m, struct request *rq)
{
	char *keytext, *dir = promptdir(o);

	memset(rq, 0, sizeof *rq);
	rq->task = jmustload(o->task);
	checktask(o->task, rq->task);
	rq->taskid = jstr(rq->task, "id", "?");
	rq->vars = taskvars(rq->task, o);
	/* the conversation: round 1 from the templates, later rounds continue */
	rq->system = renderfile(dir, jstr(rq->task, "system", "system"), rq->vars);
	free(dir);
	if (o->skill)
		rq->system = withskill(rq->system, o->skill);
	rq->messages = conversation(o, rq->task, rq->vars, &rq->prev, &rq->finished);
	if (rq->finished)
		return;
	/* the key: sha256 of the canonical request */
	rq->canon = httpbody(m, rq->system, rq->messages, 1, o->sample);
	if (!strcmp(m->provider, "replay"))
		json_object_set_new(rq->canon, "api", json_string("replay"));
	if (triton(o)) /* a CUDA request's key is as it was before there were languages */
		json_object_set_new(rq->canon, "lang", json_string("triton"));
	keytext = jdumps(rq->canon, JFLAGS_LINE);
	sha256hex(keytext, strlen(keytext), rq->key);
	free(keytext);
}

static void
requestfree(struct request *rq)
{
	json_decref(rq->canon);
	json_decref(rq->messages);
	json_decref(rq->prev);
	json_decref(rq->vars);
	json_decref(rq->task);
	free(rq->system);
	memset(rq, 0, sizeof *rq);
}

/* the answer to rq (replay, cache or network) and the conversation with it, into out */
static void
answer(const struct opts *o, const struct model *m, struct request *rq, json_t *out)
{
	struct answer a;
	const char *source;
	json_t *body;

	memset(&a, 0, sizeof a);
	if (!strcmp(m->provider, "replay")) {
		fromreplay(o, rq->taskid, &a);
		source = "replay";
	} else if (cacheget(o->cachedir, rq->key, &a) == 0) {
		source = "cache";
	} else {
		if (o->status) /* in flight; an exit from here on without an answer counts as failed */
			statusnote(o->status, &(struct statusupdate){ STATUS_ASKING, rq->taskid, NULL, 0, 1 });
		if (o->offline) {
			json_decref(out); /* not left for the leak check, whatever registers held it */
			die(EXIT_RETRY, "offline: no cached response for '%s' sample %d round %d (key %s)",
			    rq->taskid, o->sample, o->round, rq->key);
		}
		if (mkdirp(o->cachedir) < 0)
			die(EXIT_RETRY, "cannot create '%s':", o->cachedir);
		body = httpbody(m, rq->system, rq->messages, 0, o->sample);
		source = fromnetwork(o, m, rq->key, rq->canon, body, rq->taskid, &a);
		json_decref(body);
	}
	json_array_append_new(rq->messages, assistantturn(m, &a));
	setstatus(out, STAGE_ANSWER, answerstatus(jstr(a.parsed, "stop_reason", "")));
	json_object_set(out, "messages", rq->messages);
	json_object_set_new(out, "key", json_string(rq->key));
	json_object_set(out, "answer", a.parsed);
	json_object_set(out, "usage", a.usage);
	json_object_set_new(out, "cost_usd", jcost(a.cost, a.priced));
	json_object_set_new(out, "latency_s", json_real(a.latency));
	json_object_set_new(out, "request_id", json_string(a.request_id));
	logline(o, rq->taskid, m, rq->key, source, &a);
	if (o->status)
		statusnote(o->status, &(struct statusupdate){ !strcmp(source, "network") ? STATUS_ASKED :
		           !strcmp(source, "replay") ? STATUS_REPLAYED : STATUS_CACHED, rq->taskid, a.usage, a.cost,
		           a.priced });
	json_decref(a.message);
	json_decref(a.parsed);
	json_decref(a.usage);
}

/* ------------------------------------------------------------- skills */

enum { SKILL_TRAJECTORIES_MAX = 256 << 10, SKILL_FEEDBACK_MAX = 2000, SKILL_KERNEL_MAX = 12000 };

static int
cmprecord(const void *a, const void *b)
{
	return strcmp(jstr(*(json_t *const *)a, "id", ""), jstr(*(json_t *const *)b, "id", ""));
}

/* one train record as the skill request shows it: each round's verdicts and feedback, the final kernel */
static void
trajectory(struct buf *b, const json_t *r)
{
	const json_t *rd;
	size_t k;

	bufprintf(b, "## %s (sample %d)\n\n", jstr(r, "variant", ""), (int)jint(r, "sample", 0));
	json_array_foreach(json_object_get(r, "rounds"), k, rd) {
		const char *fb = jstr(rd, "feedback", "");
		if (statusnamed(jstr(rd, "answer", "")) == ST_DONE)
			break;
		bufprintf(b, "Round %d: compile %s, verify %s, bench %s", (int)jint(rd, "round", 0), jstr(rd, "compile", "-"),
		          jstr(rd, "verify", "-"), jstr(rd, "bench", "-"));
		if (json_is_number(json_object_get(rd, "speedup")))
			bufprintf(b, ", speedup %.2fx", jnum(rd, "speedup", 0));
		bufputs(b, ".\n");
		if (*fb)
			bufprintf(b, "Feedback: %.*s%s\n", SKILL_FEEDBACK_MAX, fb, strlen(fb) > SKILL_FEEDBACK_MAX ? " [...]" : "");
	}
	bufprintf(b, "\nThe final kernel (round %d):\n\n```cuda\n%.*s\n```\n\n", (int)jint(r, "final_round", 0),
	          SKILL_KERNEL_MAX, jstr(r, "final_kernel", ""));
}

/* the train records' trajectories (as many as fit) into b, their tasks into sources; how many */
static size_t
trajectories(char *const *files, size_t n, struct buf *b, struct buf *sources)
{
	json_t **recs = xcalloc(n + 1, sizeof *recs);
	size_t i, k = 0, shown = 0;
	struct buf one;

	for (i = 0; i < n; i++) {
		json_t *r = jmustload(files[i]);
		if (intrain(r, HELDOUT_FRACTION))
			recs[k++] = r;
		else
			json_decref(r);
	}
	qsort(recs, k, sizeof *recs, cmprecord);
	bufinit(&one, SKILL_TRAJECTORIES_MAX);
	for (i = 0; i < k; i++) {
		const char *task = jstr(recs[i], "task", "");
		char *w = xasprintf(" %s ", task);
		bufreset(&one);
		trajectory(&one, recs[i]);
		if (b->n + one.n <= SKILL_TRAJECTORIES_MAX && bufput(b, one.s, one.n) == 0) {
			shown++;
			if (!strstr(sources->s, w))
				bufprintf(sources, "%s ", task);
		}
		free(w);
		json_decref(recs[i]);
	}
	buffree(&one);
	free(recs);
	return shown;
}

/* --distill: the skill request, its answer into o->out and, after the sources line, into o->distill */
static int
distill(struct opts *o, char *const *files, size_t n)
{
	struct model m;
	struct request rq;
	struct buf traj, src;
	json_t *out;
	char num[32], *skill;
	size_t shown;

	loadmodel(o, &m);
	bufinit(&traj, SKILL_TRAJECTORIES_MAX + 1);
	bufinit(&src, SKILL_TRAJECTORIES_MAX);
	bufputc(&src, ' ');
	if (!(shown = trajectories(files, n, &traj, &src))) {
		if (!o->skipuntrained)
			die(EXIT_USAGE, "--distill: none of the %zu records is of the train split (correct on a GPU, not held "
			    "out, not flagged): no verified trajectory to distil a skill from", n);
		warn("no skill made: none of the %zu records is of the train split (correct on a GPU, not held out, not "
		     "flagged; a build without a GPU verifies none): '%s' not written", n, o->distill);
		buffree(&traj);
		buffree(&src);
		json_decref(m.cfg);
		return 0;
	}
	memset(&rq, 0, sizeof rq);
	rq.taskid = "skill";
	rq.vars = json_object();
	{
		char *g = gpudesc(o->arch);
		setvar(rq.vars, "arch", o->arch);
		setvar(rq.vars, "gpu", g);
		free(g);
	}
	snprintf(num, sizeof num, "%zu", shown);
	setvar(rq.vars, "count", num);
	setvar(rq.vars, "trajectories", traj.s);
	rq.system = renderfile(o->prompts, "system", rq.vars);
	skill = renderfile(o->prompts, "skill", rq.vars);
	rq.messages = json_pack("[{s:s,s:s}]", "role", "user", "content", skill);
	free(skill);
	rq.canon = httpbody(&m, rq.system, rq.messages, 1, 0);
	if (!strcmp(m.provider, "replay"))
		json_object_set_new(rq.canon, "api", json_string("replay"));
	skill = jdumps(rq.canon, JFLAGS_LINE);
	sha256hex(skill, strlen(skill), rq.key);
	free(skill);
	out = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s}", "task", "skill", "sample", 0, "round", 1, "provider", m.provider,
	                "model", m.name, "system", rq.system);
	answer(o, &m, &rq, out);
	skill = xasprintf("<!-- retort-skill sources:%s-->\n%s\n", src.s, jstr(json_object_get(out, "answer"), "text", ""));
	if (jwritesafe(o->out, out) < 0 || writefile(o->distill, skill, strlen(skill)) < 0)
		die(EXIT_RETRY, "cannot write '%s' or '%s':", o->out, o->distill);
	free(skill);
	json_decref(out);
	requestfree(&rq);
	buffree(&traj);
	buffree(&src);
	json_decref(m.cfg);
	return 0;
}

/* ------------------------------------------------------------- batches */

/*
 * A proposal batch's request path (src/gen/propose.c): .../propose/<family>/
 * b<K>/r<R>/response.json is round R of b<K>/task.json, after round R-1's
 * response and check; .../b<K>/ref<N>/response.json the one round of
 * ref<N>/task.json (a reference request). 1, or 0 for a path of another
 * shape.
 */
static int
proposaledge(char *d, const char *path, struct opts *o, char **files)
{
	char *leaf = strrchr(d, '/'), *up;
	int ok;

	if (!strstr(d, "/propose/") || !leaf)
		return 0;
	*leaf = 0;
	up = strrchr(d, '/');
	ok = up && up[1] == 'b' && leaf[1] == 'r';
	memset(files, 0, 5 * sizeof *files);
	memset(o->prev, 0, sizeof o->prev);
	o->sample = 0;
	o->lang = "cuda";
	if (ok && !strncmp(leaf + 1, "ref", 3)) { /* a reference request: its own task.json */
		*leaf = '/';
		o->round = 1;
	} else if (ok) {
		o->round = intarg(leaf + 2, path, 1, MAX_ROUNDS);
		if (o->round > 1) {
			o->prev[0] = files[1] = xasprintf("%s/r%d/response.json", d, o->round - 1);
			o->prev[4] = files[2] = xasprintf("%s/r%d/check.json", d, o->round - 1);
		}
	} else {
		*leaf = '/';
		return 0;
	}
	o->task = files[0] = xasprintf("%s/task.json", d);
	return 1;
}

/*
 * The edge a round's response path stands for: out/v/<variant>/s<S>/r<R>/
 * response.json is sample S, round R of out/v/<variant>/task.json, after
 * the files of round R-1 beside it (those that exist); or a proposal's
 * (proposaledge). 0, or -1 for a path of another shape.
 */
static int
edgeof(const char *path, struct opts *o, char **files)
{
	char *d = xstrdup(path), *p, *sdir, *rdir;
	int i;

	if (!endswith(d, "/response.json") || !(p = strrchr(d, '/')))
		goto bad;
	*p = 0;
	if (proposaledge(d, path, o, files)) {
		free(d);
		return 0;
	}
	if (!(rdir = strrchr(d, '/')) || rdir[1] != 'r')
		goto bad;
	*rdir++ = 0;
	if (!(sdir = strrchr(d, '/')) || sdir[1] != 's')
		goto bad;
	*sdir++ = 0;
	o->round = intarg(rdir + 1, path, 1, MAX_ROUNDS);
	o->sample = intarg(sdir + 1, path, 0, 1000000);
	o->lang = "cuda";
	if ((p = strrchr(d, '/')) && !strcmp(p, "/triton") && !endswith(d, "/v/triton") && strcmp(d, "v/triton")) {
		*p = 0; /* out/v/<variant>/triton/sS/rR (round.h), not the CUDA samples of a variant named triton */
		o->lang = "triton";
	}
	files[0] = xasprintf("%s/task.json", d);
	o->task = files[0];
	for (i = 0; i < 4; i++) {
		static const char *const names[] = { "response.json", "compile.json", "verify.json", "bench.json" };
		files[i + 1] = o->round > 1 ? xasprintf("%s/%ss%d/r%d/%s", d, triton(o) ? "triton/" : "", o->sample,
		                                        o->round - 1, names[i]) : NULL;
		o->prev[i] = files[i + 1] && access(files[i + 1], F_OK) == 0 ? files[i + 1] : NULL;
	}
	free(d);
	return 0;
bad:
	free(d);
	return -1;
}

/* the model for --batch: an API provider's, costed at its batch prices */
static void
batchmodel(const struct opts *o, struct model *m)
{
	loadmodel(o, m);
	if (strcmp(m->provider, "anthropic") && strcmp(m->provider, "openai"))
		die(EXIT_USAGE, "--batch: provider %s has no batch API (anthropic and openai have)", m->provider);
	if (priced(m->cfg) && !json_is_object(json_object_get(m->cfg, "batch_prices")))
		die(EXIT_USAGE, "--batch: model '%s' has prices but no batch_prices in models.yaml: add the "
		    "provider's batch rates there (they would be charged at the wrong price)", m->name);
	m->table = "batch_prices";
	if (!priced(m->cfg))
		json_object_del(m->cfg, "batch_prices"); /* unknown prices stay unknown */
}

/* the list's entries split at blanks (a rspfile's one line of paths; the
 * entries are cut up) */
static char **
words(char **list, size_t n, size_t *nw)
{
	char **w = NULL, *save, *t;
	size_t i;

	*nw = 0;
	for (i = 0; i < n; i++)
		for (t = strtok_r(list[i], " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
			w = xreallocarray(w, *nw + 1, sizeof *w);
			w[(*nw)++] = xstrdup(t);
		}
	return w;
}

/*
 * query-llm --batch STATE @RESPONSES: render every request of the round
 * the response paths name (as their query edges will), put the ones the
 * cache does not hold into the provider's batches, wait, fill the cache,
 * and write STATE (what the round came to). The query edges then find
 * their answers cached.
 */
static int
batchmain(struct opts *o, size_t n, char **paths)
{
	struct model m;
	struct batchreq *reqs;
	struct batchctx c;
	struct batchsum sum;
	json_t *seen = json_object(), *state;
	size_t i, nreq = 0, ncached = 0, ndone = 0;
	char label[64], err[8192];
	int round = 0;

	if (!o->cachedir)
		die(EXIT_USAGE, "need --cache-dir");
	if (o->budgettokens > 0)
		die(EXIT_USAGE, "--budget-tokens does not hold batches: cap the spending with --budget");
	paths = words(paths, n, &n);
	reqs = xcalloc(n + 1, sizeof *reqs);
	batchmodel(o, &m);
	for (i = 0; i < n; i++) {
		struct opts e = *o;
		struct request rq;
		struct answer a;
		char *files[5];
		size_t f;
		if (edgeof(paths[i], &e, files) < 0)
			die(EXIT_USAGE, "--batch: '%s' is not a round's response path (out/v/VARIANT/sS/rR/response.json, "
			    "out/propose/FAMILY/bK/rR/ or refN/response.json)", paths[i]);
		checkround(&e);
		round = e.round;
		prepare(&e, &m, &rq);
		memset(&a, 0, sizeof a);
		if (rq.finished) {
			ndone++;
		} else if (json_object_get(seen, rq.key)) {
			ncached++; /* the same request twice: asked once */
		} else if (cacheget(o->cachedir, rq.key, &a) == 0) {
			ncached++;
			json_decref(a.message);
			json_decref(a.parsed);
			json_decref(a.usage);
		} else {
			struct batchreq *b = &reqs[nreq++];
			memcpy(b->key, rq.key, sizeof b->key);
			b->task = xstrdup(rq.taskid);
			b->sample = e.sample;
			b->round = e.round;
			b->canon = json_incref(rq.canon);
			b->body = httpbody(&m, rq.system, rq.messages, 0, e.sample);
			json_object_del(b->body, "stream"); /* a batch answers whole */
			json_object_del(b->body, "stream_options");
		}
		if (!rq.finished)
			json_object_set_new(seen, rq.key, json_true());
		requestfree(&rq);
		for (f = 0; f < 5; f++)
			free(files[f]);
	}
	snprintf(label, sizeof label, "round %d", round);
	memset(&sum, 0, sizeof sum);
	fprintf(stderr, "query-llm: %s: %zu requests: %zu cached, %zu finished earlier, %zu to ask in batches\n",
	        label, n, ncached, ndone, nreq);
	if (nreq && o->offline)
		die(EXIT_RETRY, "offline: %zu requests of %s are not in the cache", nreq, label);
	if (!o->offline) {
		memset(&c, 0, sizeof c);
		c.cachedir = o->cachedir;
		c.log = o->log;
		c.label = label;
		c.budget = o->budget;
		c.m = &m;
		if (mkdirp(o->cachedir) < 0)
			die(EXIT_RETRY, "cannot create '%s':", o->cachedir);
		if (batchrun(&c, reqs, nreq, &sum, err, sizeof err) < 0)
			die(EXIT_RETRY, "%s", err);
	}
	state = json_pack("{s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}", "round", round, "requests", (json_int_t)n,
	                  "cached", (json_int_t)ncached, "finished", (json_int_t)ndone, "batched", (json_int_t)sum.sent,
	                  "answered", (json_int_t)sum.answered, "left", (json_int_t)sum.left, "cost_usd",
	                  jcost(sum.usd, priced(m.cfg)), "batches", sum.batches ? sum.batches : json_array());
	if (jwrite(o->batch, state) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->batch);
	json_decref(state);
	for (i = 0; i < nreq; i++) {
		free((char *)reqs[i].task);
		json_decref(reqs[i].canon);
		json_decref(reqs[i].body);
	}
	free(reqs);
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	json_decref(seen);
	json_decref(m.cfg);
	return 0;
}

/* the inputs of one round's edge, told apart by file name */
static void
roundfiles(struct opts *o, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const char *kind = classify(v[i]);
		if (!kind)
			die(EXIT_USAGE, "cannot tell what input '%s' is (task.json, response.json, "
			    "compile.json, verify.json, bench.json or check.json)", v[i]);
		if (!strcmp(kind, "task.json")) o->task = v[i];
		else if (!strcmp(kind, "response.json")) o->prev[0] = v[i];
		else if (!strcmp(kind, "compile.json")) o->prev[1] = v[i];
		else if (!strcmp(kind, "verify.json")) o->prev[2] = v[i];
		else if (!strcmp(kind, "check.json")) o->prev[4] = v[i];
		else o->prev[3] = v[i];
	}
}

/* one round of one sample: the request, its answer, RESPONSE written */
static int
query(struct opts *o)
{
	struct model m;
	struct request rq;
	json_t *out;

	checkround(o);
	loadmodel(o, &m);
	prepare(o, &m, &rq);
	out = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s}", "task", rq.taskid, "sample", o->sample, "round", o->round,
	                "provider", m.provider, "model", m.name, "system", rq.system);
	if (triton(o))
		json_object_set_new(out, "lang", json_string("triton"));
	if (rq.finished) {
		/* an earlier round finished the sample: no request */
		setstatus(out, STAGE_ANSWER, ST_DONE);
		json_object_set(out, "messages", rq.messages);
		json_object_set_new(out, "key", json_string(""));
		logline(o, rq.taskid, &m, NULL, "done", NULL);
		if (o->status)
			statusnote(o->status, &(struct statusupdate){ STATUS_FINISHED, rq.taskid, NULL, 0, 1 });
	} else {
		answer(o, &m, &rq, out);
	}
	if (jwritesafe(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(out);
	requestfree(&rq);
	json_decref(m.cfg);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { .modelcfg = "out/model.json", .prompts = "tasks/prompts", .replaydir = "tasks/replay",
	                  .arch = "sm_90a", .round = 1, .lang = "cuda" };
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the response file to write (atomically)" },
		{ "--model-config", "F", OPT_STR, &o.modelcfg, 0, 0, "the resolved model (default out/model.json)" },
		{ "--prompts", "DIR", OPT_STR, &o.prompts, 0, 0, "templates: system.md, <prompt>.md, repair.md "
		  "(default tasks/prompts)" },
		{ "--cache-dir", "DIR", OPT_STR, &o.cachedir, 0, 0, "the response cache (and the budget ledger, limiter)" },
		{ "--replay-dir", "DIR", OPT_STR, &o.replaydir, 0, 0, "provider replay's answers (default tasks/replay)" },
		{ "--sample", "N", OPT_INT, &o.sample, 0, 1000000, "sample index (0-based); part of the cache key" },
		{ "--round", "N", OPT_INT, &o.round, 0, 1000000, "round (1-based; default 1)" },
		{ "--arch", "SM", OPT_STR, &o.arch, 0, 0, "the CUDA target the prompts name (default sm_90a)" },
		{ "--lang", "L", OPT_STR, &o.lang, 0, 0, "the candidate language: cuda or triton (templates in "
		  "PROMPTS/triton; part of the key) (default cuda)" },
		{ "--offline", NULL, OPT_FLAG, &o.offline, 0, 0, "a request missing from the cache is an error" },
		{ "--budget", "USD", OPT_NUM, &o.budget, 0, 1e12, "refuse requests that could take the ledger past USD "
		  "(0: no limit)" },
		{ "--budget-tokens", "N", OPT_NUM, &o.budgettokens, 0, 1e15, "refuse requests that could take the "
		  "cache dir's tokens past N (0: no limit; not with --batch)" },
		{ "--status", "FILE", OPT_STR, &o.status, 0, 0, "keep the build's live status in FILE (out/status.json): "
		  "requests done, in flight, failed, tokens, $; with --report, print it" },
		{ "--log", "FILE", OPT_STR, &o.log, 0, 0, "append one JSON line per edge run (read by --report)" },
		{ "--report", "DIR", OPT_STR, &o.report, 0, 0, "print tokens and $ by model for the responses under DIR" },
		{ "--batch", "STATE", OPT_STR, &o.batch, 0, 0, "a round's batch edge: ask for the responses listed, "
		  "through the batch API" },
		{ "--skill", "FILE", OPT_STR, &o.skill, 0, 0, "a skill (SKILL.md) after the system prompt; part of the "
		  "cache key" },
		{ "--distill", "SKILL_MD", OPT_STR, &o.distill, 0, 0, "ask the teacher for a skill from the train "
		  "records among RECORDS (@FILE), into SKILL_MD and -o RESPONSE" },
		{ "--skip-untrained", NULL, OPT_FLAG, &o.skipuntrained, 0, 0, "--distill without a train record: say so "
		  "and exit 0, writing nothing (ninja skill), instead of exit 2" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!langnamed(o.lang))
		die(EXIT_USAGE, "--lang is cuda or triton: '%s'", o.lang);
	if (!o.report && !o.batch && !o.distill && in.listed)
		optdie(&spec, "a list of files (@FILE) is for --batch and --distill");
	if (o.distill && (!o.out || !in.n))
		optdie(&spec, "--distill needs -o RESPONSE and records");
	if (o.status && !o.out && !o.report && !o.batch && !o.distill && !in.n) {
		r = showstatus(o.status);
		optfree(&in);
		return r;
	}
	if (!o.batch && !o.distill)
		roundfiles(&o, in.v, in.n);
	if (!o.report && !o.batch && !o.distill && (!o.out || !o.task))
		optdie(&spec, "need -o RESPONSE and a task.json");
	r = o.report ? report(&o) : o.batch ? batchmain(&o, in.n, in.v) : o.distill ? distill(&o, in.v, in.n) : query(&o);
	optfree(&in);
	return r;
}
