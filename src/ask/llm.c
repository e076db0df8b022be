/* llm.c - see llm.h */
#include "llm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#ifdef RETORT_STATIC_GNUTLS
/*
 * libcurl linked from its static archive (configure's curlstatic) brings
 * GnuTLS with it, for librtmp's and libldap's TLS, and GnuTLS initializes
 * itself in a constructor at every start: about 0.4 ms of CPU a process,
 * for a library query-llm never calls (its TLS is libcurl's OpenSSL, and
 * httpdo allows http and https alone). GnuTLS's own macro for skipping it.
 */
#include <gnutls/gnutls.h>
GNUTLS_SKIP_GLOBAL_INIT
#endif

/* ------------------------------------------------------------------ HTTP */

static size_t
onbody(char *p, size_t size, size_t n, void *ud)
{
	struct reply *r = ud;
	size_t len = size * n, i, start = 0;

	if (r->onfirst) {
		r->onfirst();
		r->onfirst = NULL;
	}

	if (!r->online) {
		if (bufput(&r->body, p, len) < 0)
			return 0; /* over the cap: curl fails the transfer */
		if (r->onchunk)
			r->onchunk(r);
		return len;
	}
	for (i = 0; i < len; i++) /* whole lines to the callback; the partial one stays */
		if (p[i] == '\n') {
			if (bufput(&r->body, p + start, i - start) < 0)
				return 0;
			if (r->online(r->lineud, r->body.s, r->body.n) < 0) {
				r->stopped = 1;
				return 0;
			}
			bufreset(&r->body);
			start = i + 1;
		}
	if (bufput(&r->body, p + start, len - start) < 0)
		return 0;
	return len;
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

int
httpstart(const struct model *m, int baseonly)
{
	char *base = apiurl(m, "");

	/* OpenSSL, which curl_global_init starts whatever the scheme, frees
	 * nothing at exit (a process of one request), and where every URL is
	 * under a plain-HTTP base (a server on this machine or its network),
	 * which needs no TLS, reads no configuration file and loads no error
	 * strings: together 2.2M of the 12.6M instructions of a miss
	 * (callgrind). Not once it is started that way: hence baseonly */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT | (!baseonly || strncasecmp(base, "http://", 7) ? 0 :
	                    OPENSSL_INIT_NO_LOAD_CONFIG | OPENSSL_INIT_NO_LOAD_CRYPTO_STRINGS), NULL);
	free(base);
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

int
httpdo(const struct model *m, const struct httpreq *q, struct reply *r, char *err, size_t cap)
{
	const char *method = q->method, *url = q->url, *key = q->key, *body = q->body, *ctype = q->ctype;
	size_t len = q->len;
	CURL *c = curl_easy_init();
	struct curl_slist *h = NULL;
	char *auth = NULL;
	double t0 = now();

	if (!c) {
		snprintf(err, cap, "libcurl: cannot create a handle");
		return -1;
	}
	r->status = 0;
	r->stopped = 0;
	r->sent = 0;
	bufinit(&r->body, MAX_BODY);
	r->errbuf[0] = 0;
	if (body) {
		char *ct = xasprintf("content-type: %s", ctype ? ctype : "application/json");
		h = curl_slist_append(h, ct);
		free(ct);
	}
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
	if (body) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	}
	if (strcmp(method, body ? "POST" : "GET"))
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
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
	{
		curl_off_t up = 0;
		long reqsize = 0;
		curl_easy_getinfo(c, CURLINFO_SIZE_UPLOAD_T, &up);
		curl_easy_getinfo(c, CURLINFO_REQUEST_SIZE, &reqsize);
		r->sent = reqsize > 0 && (!body || up >= (curl_off_t)len);
	}
	r->seconds = now() - t0;
	curl_slist_free_all(h);
	if (auth) {
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	curl_easy_cleanup(c);
	return 0;
}

/* ------------------------------------------------------------ the API */

const char *
apikey(const struct model *m)
{
	return getenv(strcmp(m->provider, "anthropic") ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
}

char *
apiurl(const struct model *m, const char *path)
{
	int anthropic = !strcmp(m->provider, "anthropic");
	const char *base = getenv(anthropic ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL");

	if (!base || !*base)
		base = anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1";
	return xasprintf("%s%s%s", base, base[strlen(base) - 1] == '/' ? "" : "/", path);
}



/* ---------------------------------------------------------------- answers */


/* a model config without "prices" (an id not in models.yaml) has unknown prices */
int
priced(const json_t *cfg)
{
	return json_is_object(json_object_get(cfg, "prices"));
}

/* a cost as JSON: null when the prices are unknown */
json_t *
jcost(double usd, int known)
{
	return known ? json_real(usd) : json_null();
}

/* parse a provider message into text, reasoning, blocks, stop reason, usage */
int
parsemessage(const struct model *m, json_t *msg, struct answer *a, char *why, size_t whylen)
{
	struct buf text, reasoning;
	json_t *u = json_object_get(msg, "usage"), *blocks = json_array(), *pr;
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
	pr = json_object_get(m->cfg, m->table ? m->table : "prices");
	a->priced = json_is_object(pr);
	a->cost = (in * jnum(pr, "input", 0) + out * jnum(pr, "output", 0) + cw * jnum(pr, "cache_write", 0) +
	           cr * jnum(pr, "cache_read", 0)) / 1e6;
	buffree(&text);
	buffree(&reasoning);
	return 0;
bad:
	json_decref(blocks);
	buffree(&text);
	buffree(&reasoning);
	return -1;
}

/*
 * An error event the client caused (a bad request, a bad key, no money
 * left): the same request would fail again. Everything else (overloaded,
 * api_error, server_error, rate limits, timeouts, unknown types) is the
 * server's trouble and is retried.
 */
int
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
 * key values (of 8 bytes or more: a local server's "EMPTY" is no secret),
 * every byte any of their occurrences covers (so that two keys that
 * overlap, or one the start of the other, leave nothing of either), and,
 * with shapes, anything shaped like a key: sk-..., and the token after
 * "Bearer ". Messages from a server can echo the key it was sent.
 */
char *
redact(const char *s, int shapes)
{
	const char *keys[2] = { getenv("ANTHROPIC_API_KEY"), getenv("OPENAI_API_KEY") }, *p, *span, *q;
	size_t len = strlen(s), i, n;
	unsigned char *cover = xcalloc(len + 1, 1);
	struct buf b;

	for (i = 0; i < 2; i++)
		if (keys[i] && strlen(keys[i]) >= 8)
			for (q = s; (q = strstr(q, keys[i])); q++)
				memset(cover + (q - s), 1, strlen(keys[i]));
	bufinit(&b, 2 * len + 64);
	for (p = span = s; *p; p += n) {
		n = 0;
		if (!shapes) { /* the keys alone: straight to the next covered byte */
			while (*p && !cover[p - s])
				p++;
			if (!*p)
				break;
		}
		while (cover[p - s + n])
			n++;
		if (!n)
			n = keyshape(s, p);
		if (!n && !strncasecmp(p, "bearer ", 7) && (p == s || !tokenchar((unsigned char)p[-1]))) {
			p += 7;
			while (*p == ' ')
				p++;
			n = strcspn(p, " \t\r\n\"',;");
			if (!n)
				continue;
		}
		if (n) {
			bufput(&b, span, (size_t)(p - span));
			bufputs(&b, "[redacted]");
			span = p + n;
		} else {
			n = 1;
		}
	}
	bufputs(&b, span);
	free(cover);
	return bufdetach(&b);
}

/* redact msg in place (keys and key shapes: for anything printed) */
void
scrub(char *msg, size_t cap)
{
	char *r = redact(msg, 1);

	snprintf(msg, cap, "%s", r);
	free(r);
}

/* jwrite, with the keys redacted from what is written */
int
jwritesafe(const char *path, const json_t *j)
{
	char *d = jdumps(j, JFLAGS_FILE), *s = redact(d, 0);
	int r = jwritetext(path, s);

	free(d);
	free(s);
	return r;
}

/* ------------------------------------------------------ locks and ledgers */


/* DIR/NAME's object (an empty one when there is no file), or NULL when it
 * is damaged (does not parse, or is no object): why in err */
static json_t *
statefile(const char *dir, const char *name, char *err, size_t cap)
{
	char *p = xasprintf("%s/%s", dir, name);
	json_t *j = access(p, F_OK) == 0 ? jload(p, err, cap) : json_object();

	if (j && !json_is_object(j)) {
		snprintf(err, cap, "'%s' is no JSON object", p);
		json_decref(j);
		j = NULL;
	}
	free(p);
	return j;
}

json_t *
loadstate(const char *dir, const char *name)
{
	char err[512];
	json_t *j = statefile(dir, name, err, sizeof err);

	if (!j)
		warn("ignoring a damaged state file: %s", err);
	return j ? j : json_object();
}

int
savestate(const char *dir, const char *name, json_t *j, char *err, size_t cap)
{
	char *p = xasprintf("%s/%s", dir, name);
	int r = 0;

	if (jreplace(p, j) < 0) { /* not fsync'd: a crash may set it back (the limiter's bucket refills; the budget: struct charge) */
		snprintf(err, cap, "cannot write '%s': %s", p, strerror(errno));
		r = -1;
	}
	free(p);
	return r;
}

/*
 * Requests and tokens per minute, shared by every query-llm using this
 * cache: a token bucket per model in limits.json, under a file lock.
 */
int
ratelimit(const char *cachedir, const struct model *m, double tokens, char *err, size_t cap)
{
	json_t *lim = json_object_get(m->cfg, "limits");
	double rpm = jnum(lim, "rpm", 0), tpm = jnum(lim, "tpm", 0);

	if (rpm <= 0 && tpm <= 0)
		return 0;
	if (tpm > 0 && tokens > tpm)
		tokens = tpm;
	for (;;) {
		int fd = lockfile(cachedir, "limits.lock", err, cap), saved;
		json_t *st, *b;
		double t, req, tok, last, wait = 0;

		if (fd < 0)
			return -1;
		st = loadstate(cachedir, "limits.json");
		b = json_object_get(st, m->name);
		t = wallclock();
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
		saved = savestate(cachedir, "limits.json", st, err, cap);
		json_decref(st);
		close(fd);
		if (saved < 0)
			return -1;
		if (wait <= 0)
			return 0;
		usleep((useconds_t)(fmin(wait, 5.0) * 1e6) + 1000);
	}
}

/* the lines to path (O_APPEND, one write: concurrent writers do not mix); 0 or -1 (err says why) */
int
appendlines(const char *path, json_t *lines, char *err, size_t cap)
{
	struct buf b;
	json_t *j;
	size_t i;
	int fd, r = 0;

	bufinit(&b, (size_t)1 << 40);
	json_array_foreach(lines, i, j) {
		char *d = jdumps(j, JFLAGS_LINE), *s = redact(d, 0);
		bufputs(&b, s);
		bufputc(&b, '\n');
		free(d);
		free(s);
	}
	if (mkparent(path) < 0 || (fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		snprintf(err, cap, "cannot open '%s': %s", path, strerror(errno));
		r = -1;
	} else {
		if (write(fd, b.s, b.n) != (ssize_t)b.n) { /* one write: concurrent appenders do not mix */
			snprintf(err, cap, "cannot append to '%s': %s", path, strerror(errno));
			r = -1;
		}
		close(fd);
	}
	buffree(&b);
	return r;
}

int
appendline(const char *path, json_t *j, char *err, size_t cap)
{
	json_t *a = json_pack("[O]", j);
	int r = appendlines(path, a, err, cap);

	json_decref(a);
	return r;
}

/*
 * One charge, as a line of the cache dir's ledger.jsonl: a paid request
 * (usage and cost), or with note "unsettled" or "estimated" what could not
 * be read from a response.
 */
json_t *
ledgerline(const char *model, const char *key, double usd, int known, json_t *usage, const char *note)
{
	json_t *line = json_pack("{s:s,s:s,s:o,s:f}", "key", key, "model", model, "cost_usd", jcost(usd, known),
	                         "time", wallclock());

	if (usage)
		json_object_set(line, "usage", usage);
	if (note)
		json_object_set_new(line, "note", json_string(note));
	return line;
}

int
ledger(const char *cachedir, const char *model, const char *key, double usd, int known, json_t *usage,
       const char *note)
{
	char *p = xasprintf("%s/ledger.jsonl", cachedir), err[8192];
	json_t *line = ledgerline(model, key, usd, known, usage, note);
	int r;

	if ((r = appendline(p, line, err, sizeof err)) < 0)
		warn("%s", err);
	json_decref(line);
	free(p);
	return r;
}

/*
 * The budget: budget.json, under budget.lock, holds spent_usd,
 * spent_tokens and the open charges ("reserved"), one per process with a
 * request out, named PID@HOST:NS: {usd, tokens, key, model}. Every request to the network opens one at
 * its worst case before it is sent, with or without --budget, and settles
 * it with its real cost and a ledger line. A charge whose process (on this
 * host) is gone belongs to a query-llm killed with its request in flight,
 * which the provider may have served: whoever takes the lock next charges
 * it (ledger note "unsettled") at what the process last wrote it would owe
 * (inflight/NAME.json, chargebound: the prompt of a stream not yet
 * answered, the part of a stream received and a margin, an answer's
 * usage), else at the worst case. So the ledger can count a killed
 * request high, never low.
 *
 * budget.json is replaced atomically (a temporary, renamed) but not
 * fsync'd, as ledger.jsonl is appended to: both are whole across any kill,
 * which is what the rules above need, as the page cache outlives the
 * process. Only a crash of the machine or a power loss can set them back,
 * by what the kernel had not yet written (seconds): those requests then go
 * uncharged. The four fsyncs of a request (its charge opened and settled,
 * file and folder each), two of them under budget.lock that every
 * query-llm takes, cost about 0.45 ms of CPU and milliseconds of waiting.
 * A budget.json that does not parse (a crash on a file system that can
 * leave a file renamed over another empty) is refused, not read as no
 * spending: budgetopen fails, saying so.
 */
struct charge {
	int open;                /* this process's reservation is in budget.json */
	int busy;                /* budget.lock is held (the exit handler must not wait on it) */
	char name[384];          /* PID@HOST:NS (ownername) */
	const char *cachedir;
	const struct model *m;
	char key[65];
	double served, servedtok; /* attempts that were served but unusable: their estimate */
};
static struct charge charge;

void
chargeserved(double usd, double tokens)
{
	charge.served += usd;
	charge.servedtok += tokens;
}

/* inflight/NAME.json: what the process NAME would owe if it died */
static char *
boundname(const char *name)
{
	return xasprintf("inflight/%s.json", name);
}

/* forget what process name would owe (its charge is settled) */
static void
unbound(const char *cachedir, const char *name)
{
	char *b = boundname(name), *p = xasprintf("%s/%s", cachedir, b);

	unlink(p);
	free(p);
	free(b);
}

void
chargebound(double usd, const char *basis)
{
	char *name, err[512];
	json_t *j;

	if (!charge.open)
		return;
	name = boundname(charge.name);
	j = json_pack("{s:f,s:s,s:s,s:f}", "usd", charge.served + usd, "basis", basis, "key", charge.key, "time",
	              wallclock());
	if (savestate(charge.cachedir, name, j, err, sizeof err) < 0) { /* the worst case stays: never low */
		warn("%s", err);
		unbound(charge.cachedir, charge.name);
	}
	json_decref(j);
	free(name);
}

/* charge the reservations of dead processes of this host; returns the others' total */
static struct spend
reconcile(const char *cachedir, json_t *st)
{
	json_t *res = json_object_get(st, "reserved"), *v;
	struct spend held = { 0, 0 };
	double spent = jnum(st, "spent_usd", 0), tokens = jnum(st, "spent_tokens", 0);
	const char *k;
	void *tmp;

	json_object_foreach_safe(res, tmp, k, v) {
		double usd = json_is_number(v) ? json_number_value(v) : jnum(v, "usd", 0);
		if (!strcmp(k, charge.name))
			continue;
		char *bn, note[160];
		json_t *b;
		if (!ownergone(k)) { /* alive, another host's, or a batch's (batch:ID, settled by its poller) */
			held.usd += usd;
			held.tokens += jnum(v, "tokens", 0);
			continue;
		}
		bn = boundname(k);
		b = loadstate(cachedir, bn);
		free(bn);
		if (json_is_number(json_object_get(b, "usd")) && !strcmp(jstr(b, "key", ""), jstr(v, "key", ""))) {
			usd = jnum(b, "usd", usd);
			snprintf(note, sizeof note, "unsettled: %s", jstr(b, "basis", "?"));
			warn("charging $%.4f for the request of a query-llm that was killed (%s; %s)", usd, k,
			     jstr(b, "basis", "?"));
		} else {
			snprintf(note, sizeof note, "unsettled");
			warn("charging $%.4f for the request of a query-llm that was killed (%s; its cost cannot be "
			     "known: its worst case)", usd, k);
		}
		json_decref(b);
		if (ledger(cachedir, jstr(v, "model", "?"), jstr(v, "key", ""), usd, 1, NULL, note) < 0)
			break; /* charged by the next one to try */
		spent += usd;
		tokens += jnum(v, "tokens", 0);
		unbound(cachedir, k);
		json_object_del(res, k); /* k with it */
	}
	json_object_set_new(st, "spent_usd", json_real(spent));
	json_object_set_new(st, "spent_tokens", json_real(tokens));
	return held;
}

/* lock and load budget.json, settling the dead; *held: the other processes' reservations */
int
budgetopen(const char *cachedir, json_t **st, struct spend *held, char *err, size_t cap)
{
	int fd = lockfile(cachedir, "budget.lock", err, cap);
	char why[512];

	if (fd < 0)
		return -1;
	charge.busy = 1; /* the lock is held: an exit from here must not wait for it (settle) */
	if (!(*st = statefile(cachedir, "budget.json", why, sizeof why))) {
		snprintf(err, cap, "the budget is damaged, its spending unknown, so nothing is sent: %s (ledger.jsonl "
		         "beside it lists every charge; removing budget.json counts from nothing spent, so add up "
		         "the ledger's usd first if --budget is to hold)", why);
		close(fd);
		charge.busy = 0;
		return -1;
	}
	if (!json_is_object(json_object_get(*st, "reserved")))
		json_object_set_new(*st, "reserved", json_object());
	*held = reconcile(cachedir, *st);
	return fd;
}

/* save and unlock; 0 or -1 (err says why) */
int
budgetclose(const char *cachedir, json_t *st, int fd, char *err, size_t cap)
{
	int r = savestate(cachedir, "budget.json", st, err, cap); /* not fsync'd: see struct charge */

	json_decref(st);
	close(fd);
	charge.busy = 0;
	return r;
}

/* unlock without saving (a caller that failed midway) */
void
budgetabandon(json_t *st, int fd)
{
	json_decref(st);
	close(fd);
	charge.busy = 0;
}

/*
 * Settle this process's charge: usd (the answer's cost, known when its
 * prices are) and what unusable attempts were estimated to cost. 0 or -1.
 */
int
settle(double usd, int known, json_t *usage)
{
	json_t *st;
	struct spend held;
	char err[8192];
	int fd = budgetopen(charge.cachedir, &st, &held, err, sizeof err), r = 0;

	if (fd < 0) {
		warn("%s", err);
		return -1;
	}
	if (charge.served > 0 &&
	    ledger(charge.cachedir, charge.m->name, charge.key, charge.served, known, NULL, "estimated") < 0)
		r = -1;
	if (r == 0 && usage && ledger(charge.cachedir, charge.m->name, charge.key, usd, known, usage, NULL) < 0)
		r = -1;
	if (r == 0) {
		json_object_set_new(st, "spent_usd", json_real(jnum(st, "spent_usd", 0) + charge.served + usd));
		json_object_set_new(st, "spent_tokens", json_real(jnum(st, "spent_tokens", 0) + charge.servedtok +
		                                                  usagetokens(usage)));
		json_object_del(json_object_get(st, "reserved"), charge.name);
	}
	if (budgetclose(charge.cachedir, st, fd, err, sizeof err) < 0) {
		warn("%s", err);
		r = -1;
	}
	if (r == 0)
		unbound(charge.cachedir, charge.name);
	charge.open = r < 0; /* what could not be recorded stays open: the worst case later */
	return r;
}

/* at exit (die included) with the charge still open: no answer, only what attempts were served */
static void
settleatexit(void)
{
	if (charge.open && !charge.busy)
		settle(0, priced(charge.m->cfg), NULL);
}

/*
 * Open this process's charge for the request of key at est, $ and tokens
 * (its worst case); 0, or -1 when that could take the spending past
 * --budget or the tokens past --budget-tokens, or the charge cannot be
 * kept (err says which).
 */
int
reserve(const char *cachedir, const struct spend *budget, const struct model *m, const char *key,
        const struct spend *est, char *err, size_t cap)
{
	json_t *st, *res;
	struct spend held;
	double total, tokens;
	int fd;

	charge.cachedir = cachedir;
	charge.m = m;
	snprintf(charge.key, sizeof charge.key, "%s", key);
	ownername(charge.name, sizeof charge.name);
	if ((fd = budgetopen(cachedir, &st, &held, err, cap)) < 0)
		return -1;
	res = json_object_get(st, "reserved");
	total = jnum(st, "spent_usd", 0);
	tokens = jnum(st, "spent_tokens", 0);
	if ((budget->usd > 0 && total + held.usd + est->usd > budget->usd) ||
	    (budget->tokens > 0 && tokens + held.tokens + est->tokens > budget->tokens)) {
		if (budgetclose(cachedir, st, fd, err, cap) < 0)
			warn("%s", err);
		if (budget->usd > 0 && total + held.usd + est->usd > budget->usd)
			snprintf(err, cap, "budget reached: $%.4f spent and $%.4f reserved of $%.2f; this request "
			         "could cost $%.4f (raise it with ./configure --budget=USD)", total, held.usd, budget->usd,
			         est->usd);
		else
			snprintf(err, cap, "token budget reached: %.0f tokens used and %.0f reserved of %.0f; this "
			         "request could take %.0f (raise it with ./configure --budget-tokens=N)", tokens,
			         held.tokens, budget->tokens, est->tokens);
		return -1;
	}
	json_object_set_new(res, charge.name, json_pack("{s:f,s:f,s:s,s:s,s:f}", "usd", est->usd, "tokens",
	                                                est->tokens, "key", key, "model", m->name, "time",
	                                                wallclock()));
	unbound(cachedir, charge.name); /* a bound left by an earlier process of the same name */
	{
		char *d = xasprintf("%s/inflight", cachedir);
		if (mkdirp(d) < 0)
			warn("cannot create '%s': %s", d, strerror(errno)); /* the worst case stays */
		free(d);
	}
	if (budgetclose(cachedir, st, fd, err, cap) < 0)
		return -1;
	charge.open = 1;
	if (atexit(settleatexit) != 0) {
		snprintf(err, cap, "atexit failed");
		return -1;
	}
	return 0;
}

/* $ for inbytes of request (about 3.5 bytes a token) and outtokens of answer */
double
estimate(const struct model *m, size_t inbytes, double outtokens)
{
	json_t *pr = json_object_get(m->cfg, m->table ? m->table : "prices");

	return ((double)inbytes / 3.5 * jnum(pr, "input", 0) + outtokens * jnum(pr, "output", 0)) / 1e6;
}

double
promptcost(const struct model *m, size_t inbytes)
{
	json_t *pr = json_object_get(m->cfg, m->table ? m->table : "prices");

	return (double)inbytes / 3.5 * fmax(jnum(pr, "input", 0), jnum(pr, "cache_write", 0)) / 1e6;
}

/* ---------------------------------------------------------- the request */

/* seconds the server asks us to wait, or -1 */
double
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

/*
 * The provider's error message from a JSON error body: {"error": {...}}
 * or {"error": "..."}; FastAPI servers' (transformers serve) {"detail":
 * "..."}, or its validation errors' {"detail": [{"msg": "..."}, ...]};
 * else the body's start.
 */
void
errmessage(const struct reply *r, char *msg, size_t len, char *type, size_t tlen)
{
	json_t *j = json_loadb(r->body.s, r->body.n, 0, NULL), *e, *d;

	msg[0] = type[0] = 0;
	e = json_object_get(j, "error");
	d = json_object_get(j, "detail");
	if (json_is_array(d))
		d = json_object_get(json_array_get(d, 0), "msg");
	if (json_is_object(e)) {
		snprintf(msg, len, "%s", jstr(e, "message", ""));
		snprintf(type, tlen, "%s", jstr(e, "type", ""));
		if (!strcmp(jstr(e, "code", ""), "insufficient_quota"))
			snprintf(type, tlen, "insufficient_quota");
	} else if (json_is_string(e)) {
		snprintf(msg, len, "%s", json_string_value(e));
	} else if (json_is_string(d)) {
		snprintf(msg, len, "%s", json_string_value(d));
	} else {
		size_t n = r->body.n < 200 ? r->body.n : 200, i;
		snprintf(msg, len, "%.*s", (int)n, r->body.s);
		for (i = 0; msg[i]; i++)
			if (!isprint((unsigned char)msg[i]))
				msg[i] = ' ';
	}
	json_decref(j);
}

double
jitter(void)
{
	return 0.75 + 0.25 * ((double)random() / RAND_MAX);
}

/* ------------------------------------------------------------- the cache */

char *
cachepath(const char *cachedir, const char *key)
{
	return xasprintf("%s/llm/%.2s/%s.json", cachedir, key, key);
}

int
cacheget(const char *cachedir, const char *key, struct answer *a)
{
	char *p = cachepath(cachedir, key), err[512];
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

int
cacheput(const char *cachedir, const struct model *m, const char *key, json_t *canon, struct answer *a,
         char *err, size_t cap)
{
	char *p = cachepath(cachedir, key);
	json_t *e = json_pack("{s:s,s:s,s:O,s:O,s:O,s:O,s:o,s:f,s:s}", "key", key, "model", m->name,
	                      "request", canon, "response", a->message, "parsed", a->parsed,
	                      "usage", a->usage, "cost_usd", jcost(a->cost, a->priced),
	                      "latency_s", a->latency, "request_id", a->request_id);
	int r = 0;

	if (!e) {
		snprintf(err, cap, "cannot encode the cache entry for '%s'", key);
		r = -1;
	} else if (jwritesafe(p, e) < 0) {
		snprintf(err, cap, "cannot write the cache entry '%s': %s", p, strerror(errno));
		r = -1;
	}
	json_decref(e);
	free(p);
	return r;
}

