/*
 * query-llm - ask the teacher model for one round of one sample
 *
 * usage: query-llm [options] -o RESPONSE TASK_JSON [PREVIOUS_ROUND_FILES...]
 *        query-llm --report OUT_DIR [--log LOG]
 *
 * Renders the request for one graph edge (task variant, sample, round) from
 * the variant's task.json and the prompt templates; from round 2 on, from
 * the previous round's conversation (its response.json) and a feedback
 * message built from its verdicts (compile.json, verify.json, bench.json,
 * whichever are given). Then answers it from the response cache, or asks
 * the model and caches the answer, and writes RESPONSE.
 *
 * Inputs are told apart by file name: task.json, response.json,
 * compile.json, verify.json, bench.json.
 *
 * options:
 *   -o FILE             the response file to write (atomically)
 *   --model-config F    the resolved model (out/model.json, from models.yaml)
 *   --prompts DIR       templates: system.md, <prompt>.md, repair.md
 *   --cache-dir DIR     the response cache (and the budget ledger, limiter)
 *   --replay-dir DIR    hand-written answers for provider replay:
 *                       DIR/<variant>/s<sample>-r<round>.md (one that
 *                       starts with a "<think>" line has a reasoning
 *                       part up to a "</think>" line: the answer's
 *                       reasoning, as a real teacher's thinking)
 *   --sample N          sample index (0-based); part of the cache key
 *   --round N           round (1-based)
 *   --arch SM           the CUDA target the prompts name (e.g. sm_90)
 *   --offline           a request missing from the cache is an error
 *   --budget USD        refuse requests that could take the ledger's total
 *                       past USD (0: no limit; spending is recorded anyway);
 *                       a model without prices cannot have one (exit 2)
 *   --log FILE          append one JSON line per edge run: hit or miss,
 *                       tokens, $ (out/llm.log; read by --report)
 *   --report DIR        print tokens and $ by model for every response
 *                       under DIR ("price unknown" for a model without
 *                       prices), and calls paid vs cached from --log
 *   -h, --help
 *
 * Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY,
 * OPENAI_BASE_URL (as the official SDKs read them). Keys are read only
 * here and sent only in request headers: never written anywhere. The
 * keys' values (8 bytes or more) are redacted from everything written
 * (response, cache, log, ledger), and from every message also anything
 * shaped like a key (sk-..., the token after "Bearer "), as a server may
 * echo the key in its error message.
 *
 * The cache key is sha256 of the canonical request: API family, model,
 * every sampling parameter, the rendered system prompt and messages, and
 * the sample index; never a key or base URL. A hit makes no request. A
 * miss is asked under the key's lock (CACHE/locks/XX/KEY.lock): processes
 * asking the same request at once pay once, the others wait and find the
 * answer cached.
 *
 * Retries: HTTP 408, 409, 429, 5xx (529 too), connection errors, timeouts,
 * malformed bodies, an answer without a stop reason (stop_reason,
 * finish_reason), broken or truncated streams, and a stream's error event
 * of the server's kind (overloaded, api_error, server_error, rate limits,
 * timeouts: any but the client's). A stream is broken by a data line that
 * is not JSON (cut, or not UTF-8); its keep-alives are comments, events
 * without data and pings. It is whole with Anthropic's stop_reason and
 * message_stop, or an OpenAI-compatible finish_reason followed by [DONE]
 * or the usage chunk. Honours retry-after-ms, retry-after (seconds or HTTP
 * date) and x-should-retry; otherwise exponential backoff with jitter,
 * within the model's retry.attempts and retry.max_wait_s. Fails at once,
 * with the provider's message, on 400, 401, 402, 403, 404, 413, 422,
 * exhausted quota or credit, and a client-side error event (invalid
 * request, authentication, permission, not found, quota).
 *
 * Money: every request to the network first opens a charge at its worst
 * case (about 3.5 bytes a token in, max_tokens out) in CACHE/budget.json,
 * with or without --budget, and settles it with the real cost in
 * CACHE/ledger.jsonl. Attempts that were served (2xx) but unusable are
 * charged an estimate (their input, and output by the bytes received; note
 * "estimated"). A charge left open by a process that is gone (killed with
 * the request in flight: the provider may have served it) is charged at
 * its worst case by the next query-llm to use the ledger (note
 * "unsettled"): the ledger may count high, never low. A model config
 * without "prices" (an id not in models.yaml) has unknown prices: its
 * costs are written null, and --report says "price unknown".
 *
 * Output (RESPONSE): task, sample, round, status (answered, refused,
 * truncated, or done when an earlier round already finished the sample),
 * provider, model, key, the conversation so far (system, messages) and
 * this round's answer (text, reasoning, blocks, stop_reason), usage,
 * cost_usd, latency_s, request_id.
 *
 * Exit: 0 written; 1 the model could not be asked (network, limits,
 * budget, an offline cache miss, a refused request): nothing written, the
 * edge stays dirty; 2 bad usage or input (a replay answer that is not
 * UTF-8, --budget for a model without prices).
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

#include "lib/feedback.h"
#include "lib/json.h"
#include "lib/sha.h"
#include "lib/util.h"

static const char usage[] =
	"usage: query-llm [--model-config F] [--prompts DIR] [--cache-dir DIR]\n"
	"                 [--replay-dir DIR] [--sample N] [--round N] [--arch SM]\n"
	"                 [--offline] [--budget USD] [--log FILE]\n"
	"                 -o RESPONSE TASK_JSON [PREVIOUS_ROUND_FILES...]\n"
	"       query-llm --report OUT_DIR [--log FILE]\n";

enum { MAX_BODY = 64 << 20, MAX_TEMPLATE = 1 << 20 };

struct opts {
	const char *out, *modelcfg, *prompts, *cachedir, *replaydir, *arch, *log, *report;
	int sample, round, offline;
	double budget;
	const char *task, *prev[4]; /* response, compile, verify, bench */
};

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
	json_t *vars = json_object(), *a, *cases;
	struct buf b;
	size_t i;
	const char *k;
	json_t *v;
	char *g = gpudesc(o->arch);

	bufinit(&b, MAX_BODY);
	setvar(vars, "task", jstr(task, "id", ""));
	bufputs(&b, jstr(task, "description", ""));
	while (b.n && isspace((unsigned char)b.s[b.n - 1]))
		b.s[--b.n] = 0; /* a YAML block keeps its last newline */
	setvar(vars, "description", b.s);
	bufreset(&b);
	setvar(vars, "entry", jstr(task, "entry", ""));
	setvar(vars, "signature", jstr(task, "signature", ""));
	setvar(vars, "arch", o->arch);
	setvar(vars, "gpu", g);
	free(g);
	setvar(vars, "reference", jstr(task, "reference", ""));

	bufputs(&b, "| name | kind | dtype | shape |\n|---|---|---|---|\n");
	json_array_foreach(json_object_get(task, "args"), i, a) {
		json_t *sh = json_object_get(a, "shape"), *d;
		size_t j;
		bufprintf(&b, "| %s | %s | %s | ", jstr(a, "name", ""), jstr(a, "kind", ""),
		          jstr(a, "dtype", ""));
		if (sh) {
			bufputc(&b, '[');
			json_array_foreach(sh, j, d)
				bufprintf(&b, "%s%s", j ? ", " : "", json_string_value(d));
			bufputc(&b, ']');
		}
		bufputs(&b, " |\n");
	}
	setvar(vars, "args", b.s);
	bufreset(&b);

	cases = json_object_get(task, "cases");
	for (i = 0; i < 2; i++) {
		const char *which = i ? "bench" : "verify";
		json_t *c;
		size_t j;
		bufprintf(&b, "- %s:", i ? "timed at" : "checked at");
		json_array_foreach(json_object_get(cases, which), j, c) {
			int first = 1;
			size_t n;
			bufputs(&b, j ? ";" : "");
			json_array_foreach(json_object_get(task, "args"), n, a) { /* in signature order */
				if (strcmp(jstr(a, "kind", ""), "size"))
					continue;
				bufprintf(&b, "%s%s=%" JSON_INTEGER_FORMAT, first ? " " : ", ", jstr(a, "name", ""),
				          jint(json_object_get(c, "sizes"), jstr(a, "name", ""), 0));
				first = 0;
			}
			if (first)
				bufputs(&b, " (fixed shapes)");
		}
		bufputc(&b, '\n');
	}
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
	return vars;
}

/* --------------------------------------------------------- conversation */

/*
 * The feedback for the next round, from the previous round's verdicts
 * (lib/feedback.c, which record shares). Returns "" when there is nothing
 * to say, and sets *finished when the sample is done.
 */
static char *
feedback(const struct opts *o, json_t *task, int *finished)
{
	json_t *c = o->prev[1] ? jmustload(o->prev[1]) : NULL;
	json_t *v = o->prev[2] ? jmustload(o->prev[2]) : NULL;
	json_t *bn = o->prev[3] ? jmustload(o->prev[3]) : NULL;
	char *fb = roundfeedback(task, c, v, bn, finished);

	json_decref(c);
	json_decref(v);
	json_decref(bn);
	return fb;
}

/* ------------------------------------------------------------- requests */

struct model {
	json_t *cfg;
	const char *name, *api_model, *provider;
};

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
		json_object_set(b, "messages", messages);
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

/* ------------------------------------------------------------------ HTTP */

struct reply {
	long status;
	struct buf body;
	char retry_after[64], retry_after_ms[64], should_retry[16], request_id[128], ctype[128];
	CURLcode cerr;
	char errbuf[CURL_ERROR_SIZE];
	double seconds;
};

static size_t
onbody(char *p, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;

	if (bufput(&r->body, p, size * n) < 0)
		return 0; /* over the cap: curl fails the transfer */
	return size * n;
}

static void
keepheader(const char *line, size_t len, const char *name, char *dst, size_t cap)
{
	size_t nl = strlen(name), vl;

	if (len <= nl + 1 || strncasecmp(line, name, nl) != 0 || line[nl] != ':')
		return;
	line += nl + 1;
	len -= nl + 1;
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	while (len && (line[len - 1] == '\r' || line[len - 1] == '\n' || line[len - 1] == ' '))
		len--;
	vl = len < cap - 1 ? len : cap - 1;
	memcpy(dst, line, vl);
	dst[vl] = 0;
}

static size_t
onheader(char *p, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;
	size_t len = size * n;

	if (len > 5 && !strncmp(p, "HTTP/", 5)) { /* a new response (after 100 Continue) */
		r->retry_after[0] = r->retry_after_ms[0] = r->should_retry[0] = 0;
		r->request_id[0] = r->ctype[0] = 0;
	}
	keepheader(p, len, "retry-after", r->retry_after, sizeof r->retry_after);
	keepheader(p, len, "retry-after-ms", r->retry_after_ms, sizeof r->retry_after_ms);
	keepheader(p, len, "x-should-retry", r->should_retry, sizeof r->should_retry);
	keepheader(p, len, "request-id", r->request_id, sizeof r->request_id);
	if (!r->request_id[0])
		keepheader(p, len, "x-request-id", r->request_id, sizeof r->request_id);
	keepheader(p, len, "content-type", r->ctype, sizeof r->ctype);
	return len;
}

static void
post(const struct model *m, const char *url, const char *key, const char *body, struct reply *r)
{
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char *auth = NULL;
	double t0 = now();

	if (!c)
		die(EXIT_RETRY, "libcurl: cannot create a handle");
	r->status = 0;
	bufinit(&r->body, MAX_BODY);
	r->errbuf[0] = 0;
	h = curl_slist_append(h, "content-type: application/json");
	if (!strcmp(m->provider, "anthropic")) {
		auth = xasprintf("x-api-key: %s", key);
		h = curl_slist_append(h, auth);
		h = curl_slist_append(h, "anthropic-version: 2023-06-01");
	} else if (key && *key) {
		auth = xasprintf("authorization: Bearer %s", key);
		h = curl_slist_append(h, auth);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onbody);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onheader);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, r->errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)jint(m->cfg, "timeout_s", 1800));
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)jint(m->cfg, "low_speed_s", 300));
	curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "retort-query-llm/1");
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	r->cerr = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
	r->seconds = now() - t0;
	curl_slist_free_all(h);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	curl_easy_cleanup(c);
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
	if (!(j = json_loads(data, 0, NULL))) {
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
 * An error event the client caused (a bad request, a bad key, no money
 * left): the same request would fail again. Everything else (overloaded,
 * api_error, server_error, rate limits, timeouts, unknown types) is the
 * server's trouble and is retried.
 */
static int
clienterror(const char *type, const json_t *code)
{
	static const char *const client[] = {
		"invalid_request_error", "authentication_error", "permission_error", "not_found_error",
		"request_too_large", "billing_error", "insufficient_quota", "invalid_api_key",
		"context_length_exceeded", "BadRequestError", "AuthenticationError", "PermissionDeniedError",
		"NotFoundError",
	};
	size_t i;
	json_int_t c = json_is_integer(code) ? json_integer_value(code) :
	               json_is_string(code) ? strtol(json_string_value(code), NULL, 10) : 0;

	if (json_is_string(code) && !strcmp(json_string_value(code), "insufficient_quota"))
		return 1;
	for (i = 0; i < sizeof client / sizeof client[0]; i++)
		if (!strcmp(type, client[i]))
			return 1;
	return c >= 400 && c < 500 && c != 408 && c != 409 && c != 429;
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

/* ---------------------------------------------------------------- answers */

struct answer {
	json_t *message;     /* provider-native response message */
	json_t *parsed;      /* text, reasoning, blocks, stop_reason */
	json_t *usage;       /* normalized */
	double cost;         /* USD at the model's prices */
	int priced;          /* 0: the model has no prices (cost unknown, written null) */
	double latency;
	char request_id[128];
};

/* a model config without "prices" (an id not in models.yaml) has unknown prices */
static int
priced(const json_t *cfg)
{
	return json_is_object(json_object_get(cfg, "prices"));
}

static double
price(const json_t *cfg, const char *k)
{
	return jnum(json_object_get(cfg, "prices"), k, 0);
}

/* a cost as JSON: null when the prices are unknown */
static json_t *
jcost(double usd, int known)
{
	return known ? json_real(usd) : json_null();
}

/* parse a provider message into text, reasoning, blocks, stop reason, usage */
static int
parsemessage(const struct model *m, json_t *msg, struct answer *a, char *why, size_t whylen)
{
	struct buf text, reasoning;
	json_t *u = json_object_get(msg, "usage"), *blocks = json_array();
	double in = 0, out = 0, cw = 0, cr = 0, rs = 0;
	const char *stop = "";

	bufinit(&text, MAX_BODY);
	bufinit(&reasoning, MAX_BODY);
	if (!strcmp(m->provider, "anthropic")) {
		json_t *content = json_object_get(msg, "content"), *blk;
		size_t i;
		if (!json_is_array(content)) {
			snprintf(why, whylen, "response has no content list");
			goto bad;
		}
		json_array_foreach(content, i, blk) {
			const char *t = jstr(blk, "type", "");
			if (!strcmp(t, "text"))
				bufputs(&text, jstr(blk, "text", ""));
			else if (!strcmp(t, "thinking"))
				bufprintf(&reasoning, "%s%s", reasoning.n ? "\n\n" : "", jstr(blk, "thinking", ""));
			if (!strcmp(t, "text") || !strcmp(t, "thinking") || !strcmp(t, "redacted_thinking"))
				json_array_append(blocks, blk);
		}
		stop = jstr(msg, "stop_reason", "");
		in = (double)jint(u, "input_tokens", 0);
		out = (double)jint(u, "output_tokens", 0);
		cw = (double)jint(u, "cache_creation_input_tokens", 0);
		cr = (double)jint(u, "cache_read_input_tokens", 0);
		rs = (double)jint(json_object_get(u, "output_tokens_details"), "thinking_tokens", 0);
	} else {
		json_t *ch = json_array_get(json_object_get(msg, "choices"), 0);
		json_t *mm = json_object_get(ch, "message");
		const char *s;
		if (!json_is_object(mm)) {
			snprintf(why, whylen, "response has no choices[0].message");
			goto bad;
		}
		if ((s = jstr(mm, "content", NULL)))
			bufputs(&text, s);
		if ((s = jstr(mm, "reasoning_content", NULL)) || (s = jstr(mm, "reasoning", NULL)))
			bufputs(&reasoning, s);
		if ((s = jstr(mm, "refusal", NULL)) && !text.n)
			bufputs(&text, s);
		stop = jstr(ch, "finish_reason", "");
		cr = (double)jint(json_object_get(u, "prompt_tokens_details"), "cached_tokens", 0);
		cw = (double)jint(json_object_get(u, "prompt_tokens_details"), "cache_write_tokens", 0);
		in = (double)jint(u, "prompt_tokens", 0) - cr - cw;
		out = (double)jint(u, "completion_tokens", 0);
		rs = (double)jint(json_object_get(u, "completion_tokens_details"), "reasoning_tokens", 0);
	}
	if (!*stop) {
		snprintf(why, whylen, "response has no %s", strcmp(m->provider, "anthropic") ? "finish_reason" :
		         "stop_reason");
		goto bad;
	}
	a->parsed = json_pack("{s:s%,s:s%,s:o,s:s}", "text", text.s, text.n, "reasoning", reasoning.s,
	                      reasoning.n, "blocks", blocks, "stop_reason", stop);
	blocks = NULL; /* the pack took it, or freed it on failure */
	a->usage = json_pack("{s:I,s:I,s:I,s:I,s:I}", "input_tokens", (json_int_t)in,
	                     "output_tokens", (json_int_t)out, "cache_write_tokens", (json_int_t)cw,
	                     "cache_read_tokens", (json_int_t)cr, "reasoning_tokens", (json_int_t)rs);
	if (!a->parsed || !a->usage) {
		snprintf(why, whylen, "response text cannot be kept (not UTF-8?)");
		json_decref(a->parsed);
		json_decref(a->usage);
		a->parsed = a->usage = NULL;
		goto bad;
	}
	a->priced = priced(m->cfg);
	a->cost = (in * price(m->cfg, "input") + out * price(m->cfg, "output") +
	           cw * price(m->cfg, "cache_write") + cr * price(m->cfg, "cache_read")) / 1e6;
	buffree(&text);
	buffree(&reasoning);
	return 0;
bad:
	json_decref(blocks);
	buffree(&text);
	buffree(&reasoning);
	return -1;
}

/* -------------------------------------------------------------- secrets */

static int
tokenchar(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/* the length of a key-shaped token at p (sk-..., at least 8 after the dash), or 0 */
static size_t
keyshape(const char *s, const char *p)
{
	size_t n;

	if ((p > s && tokenchar((unsigned char)p[-1])) || strncmp(p, "sk-", 3))
		return 0;
	for (n = 3; tokenchar((unsigned char)p[n]); n++)
		;
	return n >= 11 ? n : 0;
}

/*
 * s with every key replaced by "[redacted]" (malloc'd): the environment's
 * key values (of 8 bytes or more: a local server's "EMPTY" is no secret)
 * and, with shapes, anything shaped like a key: sk-..., and the token
 * after "Bearer ". Messages from a server can echo the key it was sent.
 */
static char *
redact(const char *s, int shapes)
{
	const char *keys[2] = { getenv("ANTHROPIC_API_KEY"), getenv("OPENAI_API_KEY") }, *p;
	size_t len[2], i, n;
	struct buf b;

	for (i = 0; i < 2; i++)
		len[i] = keys[i] && strlen(keys[i]) >= 8 ? strlen(keys[i]) : 0;
	bufinit(&b, 2 * strlen(s) + 64);
	for (p = s; *p; p += n) {
		n = 0;
		for (i = 0; i < 2 && !n; i++)
			if (len[i] && *p == keys[i][0] && !strncmp(p, keys[i], len[i]))
				n = len[i];
		if (!n && shapes)
			n = keyshape(s, p);
		if (!n && shapes && !strncasecmp(p, "bearer ", 7) && (p == s || !tokenchar((unsigned char)p[-1]))) {
			bufput(&b, p, 7);
			p += 7;
			while (*p == ' ')
				bufputc(&b, *p++);
			n = strcspn(p, " \t\r\n\"',;");
			if (!n)
				continue;
		}
		if (n)
			bufputs(&b, "[redacted]");
		else
			bufputc(&b, *p), n = 1;
	}
	return bufdetach(&b);
}

/* redact msg in place (keys and key shapes: for anything printed) */
static void
scrub(char *msg, size_t cap)
{
	char *r = redact(msg, 1);

	snprintf(msg, cap, "%s", r);
	free(r);
}

/* jwrite, with the keys redacted from what is written */
static int
jwritesafe(const char *path, const json_t *j)
{
	char *d = jdumps(j, JFLAGS_FILE), *s = redact(d, 0);
	int r = jwritetext(path, s);

	free(d);
	free(s);
	return r;
}

/* ------------------------------------------------------ locks and ledgers */

/* an exclusive flock on DIR/NAME (waiting for it); returns the fd, or -1 (with quiet) or exits */
static int
lockfile(const char *dir, const char *name, int quiet)
{
	char *p = xasprintf("%s/%s", dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		if (!quiet)
			die(EXIT_RETRY, "cannot lock '%s':", p);
		warn("cannot lock '%s':", p);
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	free(p);
	return fd;
}

static double
wallclock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static json_t *
loadstate(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name), err[256];
	json_t *j = NULL;

	if (access(p, F_OK) == 0 && !(j = jload(p, err, sizeof err)))
		warn("ignoring a damaged state file: %s", err);
	free(p);
	return json_is_object(j) ? j : (json_decref(j), json_object());
}

static void
savestate(const char *dir, const char *name, json_t *j)
{
	char *p = xasprintf("%s/%s", dir, name);

	if (jwrite(p, j) < 0)
		die(EXIT_RETRY, "cannot write '%s':", p);
	free(p);
}

/*
 * Requests and tokens per minute, shared by every query-llm using this
 * cache: a token bucket per model in limits.json, under a file lock.
 */
static void
ratelimit(const struct opts *o, const struct model *m, double tokens)
{
	json_t *lim = json_object_get(m->cfg, "limits");
	double rpm = jnum(lim, "rpm", 0), tpm = jnum(lim, "tpm", 0);

	if (rpm <= 0 && tpm <= 0)
		return;
	if (tpm > 0 && tokens > tpm)
		tokens = tpm;
	for (;;) {
		int fd = lockfile(o->cachedir, "limits.lock", 0);
		json_t *st = loadstate(o->cachedir, "limits.json");
		json_t *b = json_object_get(st, m->name);
		double t = wallclock(), req, tok, last, wait = 0;

		if (!b)
			json_object_set_new(st, m->name, b = json_pack("{s:f,s:f,s:f}", "t", t,
			                    "req", rpm, "tok", tpm));
		last = jnum(b, "t", t);
		req = jnum(b, "req", rpm) + (rpm > 0 ? (t - last) * rpm / 60 : 0);
		tok = jnum(b, "tok", tpm) + (tpm > 0 ? (t - last) * tpm / 60 : 0);
		if (rpm > 0 && req > rpm)
			req = rpm;
		if (tpm > 0 && tok > tpm)
			tok = tpm;
		if (rpm > 0 && req < 1)
			wait = (1 - req) * 60 / rpm;
		if (tpm > 0 && tok < tokens && (tokens - tok) * 60 / tpm > wait)
			wait = (tokens - tok) * 60 / tpm;
		if (wait <= 0) {
			req -= rpm > 0 ? 1 : 0;
			tok -= tpm > 0 ? tokens : 0;
		}
		json_object_set_new(b, "t", json_real(t));
		json_object_set_new(b, "req", json_real(req));
		json_object_set_new(b, "tok", json_real(tok));
		savestate(o->cachedir, "limits.json", st);
		json_decref(st);
		close(fd);
		if (wait <= 0)
			return;
		usleep((useconds_t)(fmin(wait, 5.0) * 1e6) + 1000);
	}
}

/* append one JSON line to path (O_APPEND: concurrent writers do not mix); 0 or -1 */
static int
appendline(const char *path, json_t *j)
{
	char *d = jdumps(j, JFLAGS_LINE), *s = redact(d, 0);
	size_t n = strlen(s);
	int fd, r = 0;

	s = xrealloc(s, n + 2);
	s[n] = '\n';
	if (mkparent(path) < 0 || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		warn("cannot open '%s':", path);
		r = -1;
	} else {
		if (write(fd, s, n + 1) != (ssize_t)(n + 1)) {
			warn("cannot append to '%s':", path);
			r = -1;
		}
		close(fd);
	}
	free(d);
	free(s);
	return r;
}

/*
 * One charge in the cache dir's ledger.jsonl: a paid request (usage and
 * cost), or with note "unsettled" or "estimated" what could not be read
 * from a response. 0 or -1.
 */
static int
ledger(const struct opts *o, const char *model, const char *key, double usd, int known, json_t *usage,
       const char *note)
{
	char *p = xasprintf("%s/ledger.jsonl", o->cachedir);
	json_t *line = json_pack("{s:s,s:s,s:o,s:f}", "key", key, "model", model, "cost_usd", jcost(usd, known),
	                         "time", wallclock());
	int r;

	if (usage)
		json_object_set(line, "usage", usage);
	if (note)
		json_object_set_new(line, "note", json_string(note));
	r = appendline(p, line);
	json_decref(line);
	free(p);
	return r;
}

/*
 * The $ budget: budget.json, under budget.lock, holds spent_usd and the
 * open charges ("reserved"), one per process with a request out, named
 * PID@HOST: {usd, key, model}. Every request to the network opens one at
 * its worst case before it is sent, with or without --budget, and settles
 * it with its real cost and a ledger line. A charge whose process (on this
 * host) is gone belongs to a query-llm killed with its request in flight,
 * which the provider may have served: whoever takes the lock next charges
 * it at that worst case (ledger note "unsettled"). So the ledger can count
 * a killed request high, never low.
 */
struct charge {
	int open;                /* this process's reservation is in budget.json */
	int busy;                /* budget.lock is held (the exit handler must not wait on it) */
	int exiting;             /* in the exit handler: failures warn, they cannot exit again */
	char name[320];          /* PID@HOST */
	const struct opts *o;
	const struct model *m;
	char key[65];
	double served;           /* attempts that were served but unusable: their estimate */
};
static struct charge charge;

/* charge the reservations of dead processes of this host; returns the others' total */
static double
reconcile(const struct opts *o, json_t *st)
{
	json_t *res = json_object_get(st, "reserved"), *v;
	double held = 0, spent = jnum(st, "spent_usd", 0);
	const char *k, *at;
	char host[256] = "";
	void *tmp;

	gethostname(host, sizeof host - 1);
	json_object_foreach_safe(res, tmp, k, v) {
		long pid = atol(k);
		double usd = json_is_number(v) ? json_number_value(v) : jnum(v, "usd", 0);
		at = strchr(k, '@');
		if (!strcmp(k, charge.name))
			continue;
		if ((at && strcmp(at + 1, host)) || pid <= 0 || !(kill((pid_t)pid, 0) < 0 && errno == ESRCH)) {
			held += usd;
			continue;
		}
		warn("charging $%.4f for the request of a query-llm that was killed (%s; its cost cannot be "
		     "known: its worst case)", usd, k);
		if (ledger(o, jstr(v, "model", "?"), jstr(v, "key", ""), usd, 1, NULL, "unsettled") < 0)
			break; /* charged by the next one to try */
		spent += usd;
		json_object_del(res, k);
	}
	json_object_set_new(st, "spent_usd", json_real(spent));
	return held;
}

/* lock and load budget.json, settling the dead; *held: the other processes' reservations */
static int
budgetopen(const struct opts *o, json_t **st, double *held)
{
	int fd = lockfile(o->cachedir, "budget.lock", charge.exiting);

	if (fd < 0)
		return -1;
	charge.busy = 1;
	*st = loadstate(o->cachedir, "budget.json");
	if (!json_is_object(json_object_get(*st, "reserved")))
		json_object_set_new(*st, "reserved", json_object());
	*held = reconcile(o, *st);
	return fd;
}

/* save and unlock; 0 or -1 */
static int
budgetclose(const struct opts *o, json_t *st, int fd)
{
	char *p = xasprintf("%s/budget.json", o->cachedir);
	int r = jwrite(p, st) < 0 ? -1 : 0;

	if (r < 0)
		warn("cannot write '%s':", p);
	free(p);
	json_decref(st);
	close(fd);
	charge.busy = 0;
	return r;
}

/*
 * Settle this process's charge: usd (the answer's cost, known when its
 * prices are) and what unusable attempts were estimated to cost. 0 or -1.
 */
static int
settle(double usd, int known, json_t *usage)
{
	json_t *st;
	double held;
	int fd = budgetopen(charge.o, &st, &held), r = 0;

	if (fd < 0)
		return -1;
	if (charge.served > 0 &&
	    ledger(charge.o, charge.m->name, charge.key, charge.served, known, NULL, "estimated") < 0)
		r = -1;
	if (r == 0 && usage && ledger(charge.o, charge.m->name, charge.key, usd, known, usage, NULL) < 0)
		r = -1;
	if (r == 0) {
		json_object_set_new(st, "spent_usd", json_real(jnum(st, "spent_usd", 0) + charge.served + usd));
		json_object_del(json_object_get(st, "reserved"), charge.name);
	}
	if (budgetclose(charge.o, st, fd) < 0)
		r = -1;
	charge.open = r < 0; /* what could not be recorded stays open: the worst case later */
	return r;
}

/* at exit (die included) with the charge still open: no answer, only what attempts were served */
static void
settleatexit(void)
{
	if (charge.open && !charge.busy) {
		charge.exiting = 1;
		settle(0, priced(charge.m->cfg), NULL);
	}
}

/*
 * Open this process's charge for the request of key at est $ (its worst
 * case), or exit 1 when that could take the spending past --budget.
 */
static void
reserve(const struct opts *o, const struct model *m, const char *key, double est)
{
	json_t *st, *res;
	double held, total;
	char host[256] = "";
	int fd;

	charge.o = o;
	charge.m = m;
	snprintf(charge.key, sizeof charge.key, "%s", key);
	gethostname(host, sizeof host - 1);
	snprintf(charge.name, sizeof charge.name, "%ld@%s", (long)getpid(), host);
	fd = budgetopen(o, &st, &held);
	res = json_object_get(st, "reserved");
	total = jnum(st, "spent_usd", 0);
	if (o->budget > 0 && total + held + est > o->budget) {
		budgetclose(o, st, fd);
		die(EXIT_RETRY, "budget reached: $%.4f spent and $%.4f reserved of $%.2f; this request "
		    "could cost $%.4f (raise it with ./configure --budget=USD)", total, held, o->budget, est);
	}
	json_object_set_new(res, charge.name, json_pack("{s:f,s:s,s:s,s:f}", "usd", est, "key", key,
	                                                "model", m->name, "time", wallclock()));
	if (budgetclose(o, st, fd) < 0)
		exit(EXIT_RETRY);
	charge.open = 1;
	if (atexit(settleatexit) != 0)
		die(EXIT_RETRY, "atexit failed");
}

/* $ for inbytes of request (about 3.5 bytes a token) and outtokens of answer */
static double
estimate(const struct model *m, size_t inbytes, double outtokens)
{
	return ((double)inbytes / 3.5 * price(m->cfg, "input") + outtokens * price(m->cfg, "output")) / 1e6;
}

/* ---------------------------------------------------------- the request */

/* seconds the server asks us to wait, or -1 */
static double
retryafter(const struct reply *r)
{
	char *end;
	double d;
	time_t t;

	if (r->retry_after_ms[0]) {
		d = strtod(r->retry_after_ms, &end);
		if (end != r->retry_after_ms && !*end && isfinite(d))
			return d / 1000;
	}
	if (r->retry_after[0]) {
		d = strtod(r->retry_after, &end);
		if (end != r->retry_after && !*end && isfinite(d))
			return d;
		t = curl_getdate(r->retry_after, NULL);
		if (t > 0)
			return difftime(t, time(NULL));
	}
	return -1;
}

/* the provider's error message from a JSON error body */
static void
errmessage(const struct reply *r, char *msg, size_t len, char *type, size_t tlen)
{
	json_t *j = json_loadb(r->body.s, r->body.n, 0, NULL), *e;

	msg[0] = type[0] = 0;
	e = json_object_get(j, "error");
	if (json_is_object(e)) {
		snprintf(msg, len, "%s", jstr(e, "message", ""));
		snprintf(type, tlen, "%s", jstr(e, "type", ""));
		if (!strcmp(jstr(e, "code", ""), "insufficient_quota"))
			snprintf(type, tlen, "insufficient_quota");
	} else if (json_is_string(e)) {
		snprintf(msg, len, "%s", json_string_value(e));
	} else {
		size_t n = r->body.n < 200 ? r->body.n : 200, i;
		snprintf(msg, len, "%.*s", (int)n, r->body.s);
		for (i = 0; msg[i]; i++)
			if (!isprint((unsigned char)msg[i]))
				msg[i] = ' ';
	}
	json_decref(j);
}

static double
jitter(void)
{
	return 0.75 + 0.25 * ((double)random() / RAND_MAX);
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
		msg = json_loadb(r->body.s + skip, r->body.n - skip, 0, NULL);
		if (!msg)
			snprintf(why, whylen, "malformed JSON in a %ld response", r->status);
	}
	if (msg && parsemessage(m, msg, a, why, whylen) < 0) {
		json_decref(msg);
		msg = NULL;
	}
	return msg;
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
	char *url;
	int attempt;

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
		post(m, url, key, text, &r);
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
		if (!msg && r.status >= 200 && r.status < 300) /* served, maybe billed, but of no use */
			charge.served += estimate(m, strlen(text), fmin((double)r.body.n / 3.5,
			                          (double)jint(m->cfg, "max_tokens", 16000)));
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

/* ------------------------------------------------------------- the cache */

static char *
cachepath(const struct opts *o, const char *key)
{
	return xasprintf("%s/llm/%.2s/%s.json", o->cachedir, key, key);
}

static int
cacheget(const struct opts *o, const char *key, struct answer *a)
{
	char *p = cachepath(o, key), err[512];
	json_t *e;

	if (access(p, F_OK) < 0) {
		free(p);
		return -1;
	}
	e = jload(p, err, sizeof err);
	free(p);
	if (!e || !json_is_object(json_object_get(e, "parsed")) || strcmp(jstr(e, "key", ""), key)) {
		warn("ignoring a damaged cache entry for %s%s%s", key, e ? "" : ": ", e ? "" : err);
		json_decref(e);
		return -1;
	}
	a->message = json_incref(json_object_get(e, "response"));
	a->parsed = json_incref(json_object_get(e, "parsed"));
	a->usage = json_incref(json_object_get(e, "usage"));
	a->cost = jnum(e, "cost_usd", 0);
	a->priced = json_is_number(json_object_get(e, "cost_usd"));
	a->latency = jnum(e, "latency_s", 0);
	snprintf(a->request_id, sizeof a->request_id, "%s", jstr(e, "request_id", ""));
	json_decref(e);
	return 0;
}

static void
cacheput(const struct opts *o, const struct model *m, const char *key, json_t *canon, struct answer *a)
{
	char *p = cachepath(o, key);
	json_t *e = json_pack("{s:s,s:s,s:O,s:O,s:O,s:O,s:o,s:f,s:s}", "key", key, "model", m->name,
	                      "request", canon, "response", a->message, "parsed", a->parsed,
	                      "usage", a->usage, "cost_usd", jcost(a->cost, a->priced),
	                      "latency_s", a->latency, "request_id", a->request_id);

	if (!e)
		die(EXIT_RETRY, "cannot encode the cache entry for '%s'", key);
	if (jwritesafe(p, e) < 0)
		die(EXIT_RETRY, "cannot write the cache entry '%s':", p);
	json_decref(e);
	free(p);
}

/* ---------------------------------------------------------------- output */

static void
logline(const struct opts *o, const char *taskid, const struct model *m, const char *key,
        const char *source, const struct answer *a)
{
	json_t *l;

	if (!o->log)
		return;
	l = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s,s:O?,s:o}", "task", taskid, "sample", o->sample,
	              "round", o->round, "model", m->name, "key", key ? key : "", "source", source,
	              "usage", a ? a->usage : NULL, "cost_usd", jcost(a ? a->cost : 0.0, a ? a->priced : 1));
	if (appendline(o->log, l) < 0)
		exit(EXIT_RETRY);
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

static const char *
statusof(const char *stop)
{
	if (!strcmp(stop, "refusal") || !strcmp(stop, "content_filter"))
		return "refused";
	if (!strcmp(stop, "max_tokens") || !strcmp(stop, "length") ||
	    !strcmp(stop, "model_context_window_exceeded"))
		return "truncated";
	return "answered";
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
	if (strcmp(jstr(j, "status", ""), "done")) {
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
	double paid = 0, saved = 0, npaid = 0, nhit = 0, nreplay = 0, nunknown = 0;

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
			if (!strcmp(src, "network"))
				paid += jnum(j, "cost_usd", 0), npaid++, nunknown += !json_is_number(json_object_get(j, "cost_usd"));
			else if (!strcmp(src, "cache"))
				saved += jnum(j, "cost_usd", 0), nhit++;
			else if (!strcmp(src, "replay"))
				nreplay++;
			json_decref(j);
		}
		fclose(f);
		snprintf(unknown, sizeof unknown, ", and %.0f of unknown price", nunknown);
		printf("calls in %s: %.0f paid ($%.4f%s), %.0f answered from the cache ($%.4f not spent "
		       "again), %.0f replayed\n", o->log, npaid, paid, nunknown ? unknown : "", nhit, saved, nreplay);
	}
	free(tallies);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the report:");
	return 0;
}

/* ------------------------------------------------------------------ main */

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

	*finished = 0;
	*prev = NULL;
	if (o->round == 1) {
		user = renderfile(o->prompts, jstr(task, "prompt", "generate"), vars);
		messages = json_pack("[{s:s,s:s}]", "role", "user", "content", user);
		free(user);
		return messages;
	}
	*prev = jmustload(o->prev[0]);
	if (!json_is_array(json_object_get(*prev, "messages")))
		die(EXIT_USAGE, "%s has no conversation", o->prev[0]);
	messages = json_deep_copy(json_object_get(*prev, "messages"));
	fb = feedback(o, task, finished);
	if (!strcmp(jstr(*prev, "status", ""), "done"))
		*finished = 1;
	if (!*finished && !*fb)
		die(EXIT_USAGE, "round %d of '%s': the previous round left no verdict to feed back",
		    o->round, taskid);
	if (!*finished) {
		snprintf(r, sizeof r, "%d", o->round);
		setvar(vars, "feedback", fb);
		setvar(vars, "round", r);
		user = renderfile(o->prompts, "repair", vars);
		json_array_append_new(messages, json_pack("{s:s,s:s}", "role", "user", "content", user));
		free(user);
	}
	free(fb);
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
	char *p = xasprintf("%s/%s/s%d-r%d.md", o->replaydir, taskid, o->sample, o->round);
	struct buf b;
	const char *text, *end;
	size_t nthink = 0;

	bufinit(&b, MAX_BODY);
	if (readfile(p, &b) < 0)
		die(EXIT_USAGE, "no replay answer for '%s' sample %d round %d: write %s, or configure "
		    "a real teacher (--provider=anthropic or openai)", taskid, o->sample, o->round, p);
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
	char *text;
	int fd;
	double in, out;

	if (mkdirp(dir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", dir);
	fd = lockfile(o->cachedir, name, 0);
	free(name);
	free(dir);
	if (cacheget(o, key, a) == 0) {
		close(fd);
		return "cache";
	}
	text = jdumps(body, JSON_COMPACT | JSON_SORT_KEYS);
	/* the worst case: about 3.5 bytes a token in, max_tokens out */
	in = (double)strlen(text) / 3.5;
	out = (double)jint(m->cfg, "max_tokens", 16000);
	reserve(o, m, key, estimate(m, strlen(text), out));
	ratelimit(o, m, in + out);
	srandom((unsigned)(getpid() ^ (unsigned)time(NULL)));
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		die(EXIT_RETRY, "libcurl: cannot initialize");
	ask(m, text, taskid, a);
	if (!json_is_object(json_object_get(a->message, "usage")) && estimate(m, 1, 1) > 0) {
		/* a server that reports no usage (no stream_options support): the ledger gets an estimate */
		double est = estimate(m, strlen(text), (double)(strlen(jstr(a->parsed, "text", "")) +
		                      strlen(jstr(a->parsed, "reasoning", ""))) / 3.5);
		warn("%s: the response says nothing of usage; the ledger charges an estimate ($%.4f)", taskid, est);
		charge.served += est;
	}
	free(text);
	curl_global_cleanup();
	if (settle(a->cost, a->priced, a->usage) < 0)
		exit(EXIT_RETRY); /* not recorded: its reservation stays, charged at the worst case */
	cacheput(o, m, key, canon, a);
	close(fd);
	return "network";
}

static const char *
classify(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	static const char *const names[] = { "task.json", "response.json", "compile.json",
	                                     "verify.json", "bench.json" };
	size_t i;

	for (i = 0; i < 5; i++)
		if (!strcmp(base, names[i]))
			return names[i];
	return NULL;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "out/model.json", "tasks/prompts", NULL, "tasks/replay", "sm_90",
	                  NULL, NULL, 0, 1, 0, 0, NULL, { NULL, NULL, NULL, NULL } };
	struct model m;
	struct answer a;
	json_t *task, *vars, *prev = NULL, *messages, *canon, *body, *out;
	char *system, *keytext, key[65];
	const char *taskid, *source, *status;
	int i, finished = 0;

	setprogname(argv[0]);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
#define VAL argval(argc, argv, &i, usage)
		if (arghelp(s, usage)) {
			return 0;
		} else if (!strcmp(s, "-o")) { o.out = VAL;
		} else if (!strcmp(s, "--model-config")) { o.modelcfg = VAL;
		} else if (!strcmp(s, "--prompts")) { o.prompts = VAL;
		} else if (!strcmp(s, "--cache-dir")) { o.cachedir = VAL;
		} else if (!strcmp(s, "--replay-dir")) { o.replaydir = VAL;
		} else if (!strcmp(s, "--sample")) { o.sample = intarg(VAL, s, 0, 1000000);
		} else if (!strcmp(s, "--round")) { o.round = intarg(VAL, s, 0, 1000000);
		} else if (!strcmp(s, "--arch")) { o.arch = VAL;
		} else if (!strcmp(s, "--offline")) { o.offline = 1;
		} else if (!strcmp(s, "--budget")) { o.budget = numarg(VAL, s, 0, 1e12);
		} else if (!strcmp(s, "--log")) { o.log = VAL;
		} else if (!strcmp(s, "--report")) { o.report = VAL;
		} else {
			const char *kind;
			arginput(s, NULL, NULL, 0, usage);
			kind = classify(s);
			if (!kind)
				die(EXIT_USAGE, "cannot tell what input '%s' is (task.json, response.json, "
				    "compile.json, verify.json or bench.json)", s);
			if (!strcmp(kind, "task.json")) o.task = s;
			else if (!strcmp(kind, "response.json")) o.prev[0] = s;
			else if (!strcmp(kind, "compile.json")) o.prev[1] = s;
			else if (!strcmp(kind, "verify.json")) o.prev[2] = s;
			else o.prev[3] = s;
		}
#undef VAL
	}
	if (o.report)
		return report(&o);
	if (!o.out || !o.task)
		die(EXIT_USAGE, "need -o RESPONSE and a task.json\n%s", usage);
	if (o.round < 1)
		die(EXIT_USAGE, "--round starts at 1");
	if (o.round > 1 && !o.prev[0])
		die(EXIT_USAGE, "round %d needs the previous round's response.json", o.round);
	if (!o.cachedir)
		die(EXIT_USAGE, "need --cache-dir");

	/* the model and the task */
	memset(&m, 0, sizeof m);
	memset(&a, 0, sizeof a);
	m.cfg = jmustload(o.modelcfg);
	m.name = jstr(m.cfg, "name", "?");
	m.api_model = jstr(m.cfg, "api_model", m.name);
	m.provider = jstr(m.cfg, "provider", "");
	if (strcmp(m.provider, "anthropic") && strcmp(m.provider, "openai") && strcmp(m.provider, "replay"))
		die(EXIT_USAGE, "%s: unknown provider '%s'", o.modelcfg, m.provider);
	if (o.budget > 0 && !priced(m.cfg) && strcmp(m.provider, "replay"))
		die(EXIT_USAGE, "--budget needs prices: model '%s' %s (add it under models: with prices: "
		    "{input, output, cache_write, cache_read})", m.name,
		    jbool(m.cfg, "listed", 1) ? "has no prices in models.yaml" : "is not in models.yaml");
	task = jmustload(o.task);
	taskid = jstr(task, "id", "?");
	vars = taskvars(task, &o);

	/* the conversation: round 1 from the templates, later rounds continue */
	system = renderfile(o.prompts, "system", vars);
	messages = conversation(&o, task, vars, &prev, &finished);

	out = json_pack("{s:s,s:i,s:i,s:s,s:s,s:s}", "task", taskid, "sample", o.sample, "round", o.round,
	                "provider", m.provider, "model", m.name, "system", system);
	if (finished) {
		/* an earlier round finished the sample: no request */
		json_object_set_new(out, "status", json_string("done"));
		json_object_set(out, "messages", messages);
		json_object_set_new(out, "key", json_string(""));
		logline(&o, taskid, &m, NULL, "done", NULL);
		goto write;
	}

	/* the key: sha256 of the canonical request */
	canon = httpbody(&m, system, messages, 1, o.sample);
	if (!strcmp(m.provider, "replay"))
		json_object_set_new(canon, "api", json_string("replay"));
	keytext = jdumps(canon, JFLAGS_LINE);
	sha256hex(keytext, strlen(keytext), key);
	free(keytext);

	if (!strcmp(m.provider, "replay")) {
		fromreplay(&o, taskid, &a);
		source = "replay";
	} else if (cacheget(&o, key, &a) == 0) {
		source = "cache";
	} else {
		if (o.offline) {
			json_decref(out); /* not left for the leak check, whatever registers held it */
			die(EXIT_RETRY, "offline: no cached response for '%s' sample %d round %d (key %s)",
			    taskid, o.sample, o.round, key);
		}
		if (mkdirp(o.cachedir) < 0)
			die(EXIT_RETRY, "cannot create '%s':", o.cachedir);
		body = httpbody(&m, system, messages, 0, o.sample);
		source = fromnetwork(&o, &m, key, canon, body, taskid, &a);
		json_decref(body);
	}
	status = statusof(jstr(a.parsed, "stop_reason", ""));
	json_array_append_new(messages, assistantturn(&m, &a));
	json_object_set_new(out, "status", json_string(status));
	json_object_set(out, "messages", messages);
	json_object_set_new(out, "key", json_string(key));
	json_object_set(out, "answer", a.parsed);
	json_object_set(out, "usage", a.usage);
	json_object_set_new(out, "cost_usd", jcost(a.cost, a.priced));
	json_object_set_new(out, "latency_s", json_real(a.latency));
	json_object_set_new(out, "request_id", json_string(a.request_id));
	logline(&o, taskid, &m, key, source, &a);
	json_decref(canon);
	json_decref(a.message);
	json_decref(a.parsed);
	json_decref(a.usage);
write:
	if (jwritesafe(o.out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o.out);
	json_decref(out);
	json_decref(messages);
	json_decref(prev);
	json_decref(vars);
	json_decref(task);
	json_decref(m.cfg);
	free(system);
	return 0;
}
