/* batch.c - see batch.h */
#include "batch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/sha.h"

/*
 * What call, calljson (its *status), upload (its *status), poll and intake
 * return when this program failed, not the provider: err says what, and
 * the run stops (the tool exits 1; the records stay for the next run).
 */
enum { FATAL = -2 };

/* the providers' limits per batch, and how to wait (models.yaml batch: overrides each) */
struct settings {
	size_t maxreq;          /* requests per batch: Anthropic 100,000, OpenAI 50,000 */
	double maxbytes;        /* bytes per batch: Anthropic 256 MB, OpenAI 200 MB (its input file) */
	double poll, pollmax;   /* seconds between looks: from poll, times 1.5 each look, up to pollmax */
	int attempts;           /* batches a request may go through before it is left to the direct path */
};

static void
settings(const struct model *m, struct settings *st)
{
	json_t *b = json_object_get(m->cfg, "batch");
	int anthropic = !strcmp(m->provider, "anthropic");

	st->maxreq = (size_t)jint(b, "max_requests", anthropic ? 100000 : 50000);
	st->maxbytes = jnum(b, "max_mb", anthropic ? 256 : 200) * 1e6 * 0.98; /* room for the envelope */
	st->poll = jnum(b, "poll_s", 30);
	st->pollmax = jnum(b, "poll_max_s", 600);
	st->attempts = (int)jint(b, "attempts", 3);
	if (st->maxreq < 1)
		st->maxreq = 1;
	if (st->attempts < 1)
		st->attempts = 1;
}

/* the worst case of one request at batch prices: about 3.5 bytes a token in, max_tokens out */
static double
worst(const struct batchctx *c, size_t bytes)
{
	return estimate(c->m, bytes, (double)jint(c->m->cfg, "max_tokens", 16000));
}

/* the worst case of a request as its line in ID.jsonl has it */
static double
worstof(const struct batchctx *c, json_t *req)
{
	char *body = jdumps(json_object_get(req, "body"), JSON_COMPACT);
	double w = worst(c, strlen(body));

	free(body);
	return w;
}

/*
 * The custom_id a request goes under in batch ID: ID-KEY, the key cut to
 * Anthropic's 64 characters. A result names its batch record, which was
 * written down before the batch was sent: a record left submitting
 * recognizes its batch by the results (recover).
 */
enum { CUSTOMID = 65 };

static void
customid(const char *id, const char *key, char dst[CUSTOMID])
{
	snprintf(dst, CUSTOMID, "%s-%.47s", id, key);
}

/* ------------------------------------------------------------- records */

/* the names in dir ending in suffix (malloc'd, *n of them; none when dir is absent) */
static void
listdirnames(const char *dir, const char *suffix, char ***v, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	*v = NULL;
	*n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !endswith(e->d_name, suffix))
			continue;
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
}

static char *
recpath(const struct batchctx *c, const char *id, const char *ext)
{
	return xasprintf("%s/batch/%s%s", c->cachedir, id, ext);
}

static json_t *
recload(const struct batchctx *c, const char *id)
{
	char *p = recpath(c, id, ".json"), err[512];
	json_t *r = access(p, F_OK) == 0 ? jload(p, err, sizeof err) : NULL;

	if (!r && access(p, F_OK) == 0)
		warn("ignoring a damaged batch record: %s", err);
	free(p);
	return r;
}

/* write the record; 0 or -1 */
static int
recsave(const struct batchctx *c, json_t *rec, char *err, size_t cap)
{
	char *p = recpath(c, jstr(rec, "id", "?"), ".json");
	int r = 0;

	if (jwrite(p, rec) < 0) {
		snprintf(err, cap, "cannot write the batch record '%s': %s", p, strerror(errno));
		r = -1;
	}
	free(p);
	return r;
}

/* the record in a new state, written; 0 or -1 */
static int
recstate(const struct batchctx *c, json_t *rec, const char *state, char *err, size_t cap)
{
	json_object_set_new(rec, "state", json_string(state));
	return recsave(c, rec, err, cap);
}

/* the records of this model (every one on disk is not yet taken in), by id */
static json_t *
records(const struct batchctx *c)
{
	char *dir = xasprintf("%s/batch", c->cachedir);
	json_t *all = json_object();
	char **names = NULL;
	size_t n = 0, i;

	listdirnames(dir, ".json", &names, &n);
	for (i = 0; i < n; i++) {
		char *id = xstrndup(names[i], strlen(names[i]) - 5);
		json_t *r = recload(c, id);
		if (r && !strcmp(jstr(r, "model", ""), c->m->name))
			json_object_set_new(all, id, r);
		else
			json_decref(r);
		free(id);
		free(names[i]);
	}
	free(names);
	free(dir);
	return all;
}

/* the requests of a record (ID.jsonl), by key; NULL when they cannot be read */
static json_t *
requests(const struct batchctx *c, const char *id, char *err, size_t cap)
{
	char *p = recpath(c, id, ".jsonl");
	FILE *f = fopen(p, "r");
	json_t *all = json_object();
	char *line = NULL;
	size_t n = 0;

	if (!f) {
		snprintf(err, cap, "cannot read the batch's requests '%s': %s", p, strerror(errno));
		json_decref(all);
		free(p);
		return NULL;
	}
	while (getline(&line, &n, f) > 0) {
		json_t *j = json_loads(line, 0, NULL);
		if (!json_is_string(json_object_get(j, "key"))) {
			snprintf(err, cap, "a damaged line in '%s'", p);
			json_decref(j);
			json_decref(all);
			all = NULL;
			break;
		}
		json_object_set_new(all, jstr(j, "key", ""), j);
	}
	free(line);
	fclose(f);
	free(p);
	return all;
}

/* ---------------------------------------------------------------- HTTP */

/*
 * One call to the provider (q->url a path under its base, or a whole URL;
 * the key the model's), retried on connection errors, 408, 409, 429 and
 * 5xx within the model's retry.attempts (retry-after honoured). The final
 * status, or -1 when no reply came (connection errors to the end, or r's
 * line callback ended it), or FATAL.
 */
static long
call(const struct batchctx *c, const struct httpreq *q, struct reply *r, char *err, size_t cap)
{
	const char *method = q->method, *path = q->url;
	const struct model *m = c->m;
	json_t *retry = json_object_get(m->cfg, "retry");
	int attempts = (int)jint(retry, "attempts", 8), attempt;
	double waitcap = jnum(retry, "retry_after_cap_s", 60);
	char *url = strstr(path, "://") ? xstrdup(path) : apiurl(m, path);

	for (attempt = 1;; attempt++) {
		double delay;
		char why[600], emsg[400], etype[64];
		int lines = r->online != NULL;

		if (attempt > 1)
			buffree(&r->body);
		r->status = 0;
		if (httpdo(m, &(struct httpreq){ q->method, url, apikey(m), q->body, q->len, q->ctype }, r, err, cap) < 0) {
			free(url);
			return FATAL;
		}
		if (r->cerr == CURLE_OK && !(r->status == 408 || r->status == 409 || r->status == 429 ||
		                             r->status >= 500))
			break;
		if (r->stopped)
			break;
		if (r->cerr != CURLE_OK)
			snprintf(why, sizeof why, "%s", r->errbuf[0] ? r->errbuf : curl_easy_strerror(r->cerr));
		else {
			errmessage(r, emsg, sizeof emsg, etype, sizeof etype);
			snprintf(why, sizeof why, "HTTP %ld %s%s%s", r->status, etype, emsg[0] ? ": " : "", emsg);
		}
		scrub(why, sizeof why);
		if (attempt >= attempts || lines) { /* a stream of results is fetched again by the caller */
			warn("%s %s: %s (after %d attempts)", method, url, why, attempt);
			break;
		}
		delay = retryafter(r);
		if (!(delay > 0 && delay <= waitcap))
			delay = fmin(0.5 * pow(2, attempt - 1), 30.0) * jitter();
		warn("%s %s: %s; retrying in %.1f s", method, url, why, delay);
		usleep((useconds_t)(delay * 1e6));
	}
	free(url);
	return r->cerr == CURLE_OK ? r->status : -1;
}

/* a call whose JSON reply is wanted: the object, or NULL (with the status in *status) */
static json_t *
calljson(const struct batchctx *c, const struct httpreq *q, long *status, char *err, size_t cap)
{
	const char *method = q->method, *path = q->url;
	struct reply r;
	json_t *j = NULL;

	memset(&r, 0, sizeof r);
	*status = call(c, q, &r, err, cap);
	if (*status >= 200 && *status < 300 && !(j = json_loadb(r.body.s, r.body.n, 0, NULL)))
		warn("%s %s: the reply is not JSON", method, path);
	if (*status >= 300) {
		char emsg[400], etype[64];
		errmessage(&r, emsg, sizeof emsg, etype, sizeof etype);
		scrub(emsg, sizeof emsg);
		warn("%s %s: HTTP %ld %s%s%s", method, path, *status, etype, emsg[0] ? ": " : "", emsg);
	}
	buffree(&r.body);
	return j;
}

/* seconds since the epoch of an RFC 3339 time (2024-08-20T18:37:24.100435Z), or 0 */
static double
rfc3339(const char *s)
{
	struct tm tm;
	const char *rest;

	memset(&tm, 0, sizeof tm);
	if (!s || !(rest = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)))
		return 0;
	return (double)timegm(&tm) + (*rest == '.' ? strtod(rest, NULL) : 0);
}

/* ----------------------------------------------------- the two providers */

/* the requests' lines (ID.jsonl) of batch id as the provider's batch: Anthropic's body, or OpenAI's input file */
static char *
payload(const char *id, json_t *reqs, int anthropic)
{
	struct buf b;
	const char *k;
	json_t *v;
	int first = 1;

	bufinit(&b, (size_t)1 << 40);
	if (anthropic)
		bufputs(&b, "{\"requests\":[");
	json_object_foreach(reqs, k, v) {
		char cid[CUSTOMID], *s;
		json_t *line;
		customid(id, k, cid);
		line = anthropic ? json_pack("{s:s,s:O}", "custom_id", cid, "params", json_object_get(v, "body")) :
		       json_pack("{s:s,s:s,s:s,s:O}", "custom_id", cid, "method", "POST", "url",
		                 "/v1/chat/completions", "body", json_object_get(v, "body"));
		s = jdumps(line, JSON_COMPACT | JSON_SORT_KEYS);
		bufprintf(&b, "%s%s%s", anthropic && !first ? "," : "", s, anthropic ? "" : "\n");
		free(s);
		json_decref(line);
		first = 0;
	}
	if (anthropic)
		bufputs(&b, "]}");
	return bufdetach(&b);
}

/* OpenAI: the input file uploaded (multipart, purpose batch); its id, or NULL (with the status in *status) */
static char *
upload(const struct batchctx *c, const char *jsonl, long *status, char *err, size_t cap)
{
	unsigned char rnd[16];
	char bound[64], hex[33];
	struct buf b;
	json_t *j;
	char *id;
	size_t i;
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd) {
		snprintf(err, cap, "cannot read /dev/urandom: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		*status = FATAL;
		return NULL;
	}
	close(fd);
	for (i = 0; i < sizeof rnd; i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	snprintf(bound, sizeof bound, "retort-%s", hex); /* JSON lines never hold it: no '-' run like it */
	bufinit(&b, (size_t)1 << 40);
	bufprintf(&b, "--%s\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
	          "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"batch.jsonl\"\r\n"
	          "Content-Type: application/jsonl\r\n\r\n", bound, bound);
	bufputs(&b, jsonl);
	bufprintf(&b, "\r\n--%s--\r\n", bound);
	{
		char *ct = xasprintf("multipart/form-data; boundary=%s", bound);
		j = calljson(c, &(struct httpreq){ "POST", "files", NULL, b.s, b.n, ct }, status, err, cap);
		free(ct);
	}
	buffree(&b);
	id = json_is_string(json_object_get(j, "id")) ? xstrdup(jstr(j, "id", "")) : NULL;
	json_decref(j);
	return id;
}

/*
 * A record done with: its requests, then itself (under ID.lock, held by
 * the caller; the lock file stays, so that whoever waits on it or comes
 * later locks the same file and finds the record gone)
 */
static void
removerecord(const struct batchctx *c, const char *id)
{
	static const char *const ext[] = { ".jsonl", ".json" };
	size_t i;

	for (i = 0; i < 2; i++) {
		char *p = recpath(c, id, ext[i]);
		unlink(p);
		free(p);
	}
}

/* a batch that was never accepted: its charge closed at nothing, its files removed; 0 or -1 */
static int
release(const struct batchctx *c, const char *id, char *err, size_t cap)
{
	char *name = xasprintf("batch:%s", id);
	json_t *st;
	struct spend held;
	int fd = budgetopen(c->cachedir, &st, &held, err, cap), r = -1;

	if (fd >= 0) {
		json_object_del(json_object_get(st, "reserved"), name);
		r = budgetclose(c->cachedir, st, fd, err, cap);
	}
	if (r == 0)
		removerecord(c, id);
	free(name);
	return r;
}

/* OpenAI: the batch on the record's input file (uploaded first, once: its id kept in the record); the reply, or NULL */
static json_t *
openaisubmit(const struct batchctx *c, json_t *rec, const char *text, long *status, char *err, size_t cap)
{
	char *fid = json_is_string(json_object_get(rec, "file_id")) ? xstrdup(jstr(rec, "file_id", "")) :
	            upload(c, text, status, err, cap);
	json_t *j = NULL;

	if (fid) {
		json_t *b = json_pack("{s:s,s:s,s:s,s:{s:s}}", "input_file_id", fid, "endpoint",
		                      "/v1/chat/completions", "completion_window", "24h", "metadata",
		                      "retort_batch", jstr(rec, "id", ""));
		char *s = jdumps(b, JSON_COMPACT | JSON_SORT_KEYS);
		json_object_set_new(rec, "file_id", json_string(fid));
		if (recsave(c, rec, err, cap) < 0)
			*status = FATAL;
		else
			j = calljson(c, &(struct httpreq){ "POST", "batches", NULL, s, strlen(s), NULL }, status, err, cap);
		free(s);
		json_decref(b);
		free(fid);
	}
	return j;
}

/*
 * Send a record's requests as one batch: its state goes submitting, then
 * submitted with the provider's id. A refusal (a 4xx) makes it failed.
 * -1 when the provider cannot be reached (err says so): the record stays
 * submitting, and whoever resumes it looks for it among the provider's
 * batches before sending it again.
 */
static int
submit(const struct batchctx *c, json_t *rec, char *err, size_t cap)
{
	int anthropic = !strcmp(c->m->provider, "anthropic");
	json_t *reqs = requests(c, jstr(rec, "id", ""), err, cap), *j = NULL;
	char *text;
	long status = 0;

	if (!reqs)
		return -1;
	text = payload(jstr(rec, "id", ""), reqs, anthropic);
	if (recstate(c, rec, "submitting", err, cap) < 0)
		status = FATAL;
	else if (anthropic)
		j = calljson(c, &(struct httpreq){ "POST", "v1/messages/batches", NULL, text, strlen(text), NULL }, &status, err,
		             cap);
	else
		j = openaisubmit(c, rec, text, &status, err, cap);
	free(text);
	json_decref(reqs);
	if (status == FATAL)
		return -1;
	if (status < 0 || status == 408 || status == 409 || status == 429 || status >= 500) {
		snprintf(err, cap, "%s: cannot send batch %s; the next run resumes it", c->label, jstr(rec, "id", ""));
		json_decref(j);
		return -1;
	}
	if (!json_is_string(json_object_get(j, "id"))) {
		warn("%s: the provider refused batch %s (HTTP %ld): its %" JSON_INTEGER_FORMAT " requests are "
		     "left to the direct path", c->label, jstr(rec, "id", ""), status, jint(rec, "n", 0));
		json_object_set_new(rec, "state", json_string("failed"));
		json_decref(j);
		return release(c, jstr(rec, "id", ""), err, cap);
	}
	json_object_set_new(rec, "api_id", json_string(jstr(j, "id", "")));
	json_object_set_new(rec, "submitted", json_real(wallclock()));
	json_decref(j);
	return recstate(c, rec, "submitted", err, cap);
}

/* whether some record already claims the provider's batch id */
static int
claimed(const char *apiid, json_t *recs)
{
	const char *k;
	json_t *v;

	json_object_foreach(recs, k, v)
		if (!strcmp(jstr(v, "api_id", ""), apiid))
			return 1;
	return 0;
}

/* what the first result line of a batch says: whether it is record id's */
struct peek {
	char prefix[32];         /* "ID-": the custom_ids of the record's requests begin so */
	int said, ours;
};

static int
onpeek(void *ud, const char *line, size_t n)
{
	struct peek *p = ud;
	json_t *j = jloadwire(line, n);

	if (!j)
		return 0; /* a blank or broken line: the next one */
	p->said = 1;
	p->ours = !strncmp(jstr(j, "custom_id", ""), p->prefix, strlen(p->prefix));
	json_decref(j);
	return -1;
}

/*
 * Whether Anthropic's ended batch apiid holds record id's requests, by the
 * custom_id of its first result: 1, 0, or -1 when its results cannot be
 * read (FATAL).
 */
static int
isours(const struct batchctx *c, const char *apiid, const char *id, char *err, size_t cap)
{
	char *path = xasprintf("v1/messages/batches/%s/results", apiid);
	struct peek p;
	struct reply r;
	long status;

	memset(&p, 0, sizeof p);
	memset(&r, 0, sizeof r);
	snprintf(p.prefix, sizeof p.prefix, "%s-", id);
	r.online = onpeek;
	r.lineud = &p;
	status = call(c, &(struct httpreq){ "GET", path, NULL, NULL, 0, NULL }, &r, err, cap);
	if (status == 200 && r.body.n && !p.said)
		onpeek(&p, r.body.s, r.body.n); /* a last line without its newline */
	buffree(&r.body);
	free(path);
	if (status == FATAL)
		return FATAL;
	return p.said ? p.ours : status == 200 ? 0 : -1;
}

/*
 * Anthropic's batches show no metadata: a batch of the record's size,
 * made after it (10 minutes of clock skew allowed) and claimed by no
 * record here, may be the record's, or another build's on the same
 * account. Each such batch that has ended is told by its results (their
 * custom_ids name the record: isours); those found to be another's are
 * listed in the record (not_ours). *hit: the record's batch, *waiting:
 * how many may be and have not ended. 0, or -1 (FATAL) when a result
 * cannot be read.
 */
static int
anthropicfind(const struct batchctx *c, json_t *rec, json_t *recs, json_t *list, json_t **hit, size_t *waiting,
              char *err, size_t cap)
{
	json_t *b, *notours = json_object_get(rec, "not_ours"), *v;
	size_t i, j;

	if (!json_is_array(notours))
		json_object_set_new(rec, "not_ours", notours = json_array());
	json_array_foreach(json_object_get(list, "data"), i, b) {
		json_t *rc = json_object_get(b, "request_counts");
		json_int_t total = jint(rc, "processing", 0) + jint(rc, "succeeded", 0) + jint(rc, "errored", 0) +
		                   jint(rc, "canceled", 0) + jint(rc, "expired", 0);
		const char *apiid = jstr(b, "id", "");
		int known = 0, r;
		json_array_foreach(notours, j, v)
			known |= !strcmp(json_string_value(v), apiid);
		if (known || claimed(apiid, recs) || total != jint(rec, "n", -1) ||
		    rfc3339(jstr(b, "created_at", "")) < jnum(rec, "created", 0) - 600)
			continue;
		if (strcmp(jstr(b, "processing_status", ""), "ended")) {
			(*waiting)++;
			continue;
		}
		if ((r = isours(c, apiid, jstr(rec, "id", ""), err, cap)) == FATAL)
			return -1;
		if (r == 1) {
			*hit = b;
			return 0;
		}
		if (r == 0)
			json_array_append_new(notours, json_string(apiid));
		else
			(*waiting)++; /* its results could not be read: looked at again */
	}
	return 0;
}

/*
 * A record left submitting by a process that is gone: the provider's
 * batch it may have made is found among the newest ones (OpenAI: by the
 * record's id in its metadata; Anthropic: anthropicfind) and adopted
 * (submitted); while batches that may be it have not ended, the record
 * stays submitting; when there is none, the record is new again (sent
 * again). 0, or -1 when the provider's batches cannot be listed.
 */
static int
recover(const struct batchctx *c, json_t *rec, json_t *recs, char *err, size_t cap)
{
	int anthropic = !strcmp(c->m->provider, "anthropic"), r;
	json_t *l, *b, *hit = NULL;
	long status;
	size_t i, waiting = 0;

	l = calljson(c, &(struct httpreq){ "GET", anthropic ? "v1/messages/batches?limit=100" : "batches?limit=100",
	                                   NULL, NULL, 0, NULL }, &status, err, cap);
	if (!l) {
		if (status != FATAL)
			snprintf(err, cap, "%s: cannot list the provider's batches to find batch %s", c->label,
			         jstr(rec, "id", ""));
		return -1;
	}
	if (anthropic && anthropicfind(c, rec, recs, l, &hit, &waiting, err, cap) < 0) {
		json_decref(l);
		return -1;
	}
	json_array_foreach(json_object_get(l, "data"), i, b)
		if (!anthropic && !claimed(jstr(b, "id", ""), recs) &&
		    !strcmp(jstr(json_object_get(b, "metadata"), "retort_batch", ""), jstr(rec, "id", "")))
			hit = b;
	if (hit) {
		warn("%s: batch %s was sent before its sender stopped: it is %s, polled again, not sent again",
		     c->label, jstr(rec, "id", ""), jstr(hit, "id", ""));
		json_object_set_new(rec, "api_id", json_string(jstr(hit, "id", "")));
		json_object_set_new(rec, "submitted", json_real(wallclock()));
		r = recstate(c, rec, "submitted", err, cap);
	} else if (waiting) {
		warn("%s: batch %s may be one of %zu batches of its size not yet ended: it is sent again only if "
		     "none of them is it", c->label, jstr(rec, "id", ""), waiting);
		r = recsave(c, rec, err, cap);
	} else {
		warn("%s: batch %s never reached the provider: sending it", c->label, jstr(rec, "id", ""));
		r = recstate(c, rec, "new", err, cap);
	}
	json_decref(l);
	return r;
}

/* the counts into the record file, unless another process took the batch in meanwhile (under ID.lock); 0 or -1 */
static int
savepolled(const struct batchctx *c, json_t *rec, char *err, size_t cap)
{
	char *lockname = xasprintf("batch/%s.lock", jstr(rec, "id", "")), *p = recpath(c, jstr(rec, "id", ""), ".json");
	int fd = lockfile(c->cachedir, lockname, err, cap), r = fd < 0 ? -1 : 0;

	if (fd >= 0 && access(p, F_OK) == 0)
		r = recsave(c, rec, err, cap);
	if (fd >= 0)
		close(fd);
	free(p);
	free(lockname);
	return r;
}

/*
 * Look at a submitted batch: its counts into the record (the progress
 * `ninja cost` shows). 1 when it has ended (results ready), 0 when not,
 * -1 when it could not be looked at, FATAL.
 */
static int
poll(const struct batchctx *c, json_t *rec, char *err, size_t cap)
{
	int anthropic = !strcmp(c->m->provider, "anthropic");
	char *path = xasprintf(anthropic ? "v1/messages/batches/%s" : "batches/%s", jstr(rec, "api_id", ""));
	long status;
	json_t *j = calljson(c, &(struct httpreq){ "GET", path, NULL, NULL, 0, NULL }, &status, err, cap), *rc, *counts;
	const char *st;
	int ended;

	free(path);
	if (!j)
		return status == FATAL ? FATAL : -1;
	rc = json_object_get(j, "request_counts");
	if (anthropic) {
		st = jstr(j, "processing_status", "");
		ended = !strcmp(st, "ended");
		counts = json_pack("{s:I,s:I,s:I}", "total", jint(rec, "n", 0), "done",
		                   jint(rec, "n", 0) - jint(rc, "processing", 0), "failed",
		                   jint(rc, "errored", 0) + jint(rc, "expired", 0) + jint(rc, "canceled", 0));
	} else {
		st = jstr(j, "status", "");
		ended = !strcmp(st, "completed") || !strcmp(st, "expired") || !strcmp(st, "cancelled") ||
		        !strcmp(st, "failed");
		counts = json_pack("{s:I,s:I,s:I}", "total", jint(rc, "total", jint(rec, "n", 0)), "done",
		                   jint(rc, "completed", 0) + jint(rc, "failed", 0), "failed", jint(rc, "failed", 0));
		json_object_set_new(rec, "output_file_id", json_string(jstr(j, "output_file_id", "")));
		json_object_set_new(rec, "error_file_id", json_string(jstr(j, "error_file_id", "")));
	}
	json_object_set_new(rec, "status", json_string(st));
	json_object_set_new(rec, "counts", counts);
	json_object_set_new(rec, "polled", json_real(wallclock()));
	if (savepolled(c, rec, err, cap) < 0)
		ended = FATAL;
	json_decref(j);
	return ended;
}

/* ------------------------------------------------------------ results */

/* what the results came to, while they are read */
struct intake {
	const struct batchctx *c;
	json_t *rec, *reqs;      /* the record and its requests by key */
	json_t *ids;             /* custom_id: key */
	json_t *seen;            /* keys with a result */
	size_t garbled;          /* result lines that are not JSON and name no request of the batch */
	json_t *retry, *left;    /* keys: for a new batch; for the direct path */
	json_t *charges;         /* ledger lines */
	double usd, latency;
	size_t answered;
	char *err;               /* why it failed (failed: the results stop there) */
	size_t errcap;
	int failed;
};

/* a result that is an error: retried in a new batch when it is the server's fault */
static void
failed(struct intake *in, const char *key, const char *type, long status)
{
	json_t *code = json_integer(status);
	int client = clienterror(type, status ? code : NULL);

	json_decref(code);
	json_array_append_new(client ? in->left : in->retry, json_string(key));
}

/* charge key usd (an answer billed that cannot be used) */
static void
charged1(struct intake *in, const char *key, double usd)
{
	char note[96];

	snprintf(note, sizeof note, "batch:%s", jstr(in->rec, "id", ""));
	json_array_append_new(in->charges, ledgerline(in->c->m->name, key, usd, 1, NULL, note));
	in->usd += usd;
}

/* a succeeded result's message: parsed, cached, charged; unusable ones are charged and retried; 0 or -1 (failed) */
static int
answered(struct intake *in, const char *key, json_t *msg)
{
	const struct batchctx *c = in->c;
	json_t *req = json_object_get(in->reqs, key);
	struct answer a;
	char why[300] = "", note[96];

	memset(&a, 0, sizeof a);
	snprintf(note, sizeof note, "batch:%s", jstr(in->rec, "id", ""));
	if (parsemessage(c->m, msg, &a, why, sizeof why) < 0) {
		/* billed all the same: its worst case */
		warn("%s: an unusable answer for '%s' in batch %s (%s): charged its worst case, asked again",
		     c->label, jstr(req, "task", "?"), jstr(in->rec, "api_id", ""), why);
		charged1(in, key, worstof(c, req));
		json_array_append_new(in->retry, json_string(key));
		return 0;
	}
	a.message = json_incref(msg);
	a.latency = in->latency;
	snprintf(a.request_id, sizeof a.request_id, "%s", jstr(in->rec, "api_id", ""));
	if (cacheput(c->cachedir, c->m, key, json_object_get(req, "canon"), &a, in->err, in->errcap) < 0) {
		in->failed = 1;
		goto done;
	}
	json_array_append_new(in->charges, ledgerline(c->m->name, key, a.cost, a.priced, a.usage, note));
	in->usd += a.cost;
	in->answered++;
	if (c->log) {
		json_t *l = json_pack("{s:s,s:I,s:I,s:s,s:s,s:s,s:O,s:o}", "task", jstr(req, "task", ""),
		                      "sample", jint(req, "sample", 0), "round", jint(req, "round", 0),
		                      "model", c->m->name, "key", key, "source", "batch", "usage", a.usage,
		                      "cost_usd", jcost(a.cost, a.priced));
		if (appendline(c->log, l, in->err, in->errcap) < 0)
			in->failed = 1;
		json_decref(l);
	}
done:
	json_decref(a.message);
	json_decref(a.parsed);
	json_decref(a.usage);
	return in->failed ? -1 : 0;
}

/*
 * A result line that is not JSON: the provider may have billed its answer.
 * The request it names (its custom_id, found in the bytes) is charged its
 * worst case and asked again; a line that names none is counted, and as
 * many of the requests no result spoke of are charged so (takenin).
 */
static void
garbled(struct intake *in, const char *line, size_t n)
{
	const char *id = jstr(in->rec, "id", ""), *p = line, *end = line + n, *key = NULL;
	size_t idlen = strlen(id);
	char cid[CUSTOMID];

	while (*id && (p = memchr(p, *id, (size_t)(end - p))) && end - p >= CUSTOMID - 1) {
		if (!memcmp(p, id, idlen) && p[idlen] == '-') {
			snprintf(cid, sizeof cid, "%.*s", CUSTOMID - 1, p);
			if ((key = jstr(in->ids, cid, NULL)))
				break;
		}
		p++;
	}
	if (!key || json_object_get(in->seen, key)) {
		warn("%s: a result line that is not JSON in batch %s, naming none of its requests: one without a "
		     "result is charged its worst case", in->c->label, jstr(in->rec, "api_id", ""));
		in->garbled++;
		return;
	}
	warn("%s: a result line that is not JSON in batch %s for '%s': charged its worst case, asked again",
	     in->c->label, jstr(in->rec, "api_id", ""), jstr(json_object_get(in->reqs, key), "task", "?"));
	json_object_set_new(in->seen, key, json_true());
	charged1(in, key, worstof(in->c, json_object_get(in->reqs, key)));
	json_array_append_new(in->retry, json_string(key));
}

/* one line of results, either provider's; -1 when it failed (in->failed) */
static int
onresult(void *ud, const char *line, size_t n)
{
	struct intake *in = ud;
	json_t *j = jloadwire(line, n), *res, *resp;
	const char *key = jstr(in->ids, jstr(j, "custom_id", ""), jstr(j, "custom_id", "")); /* or an older record's key */
	int r = 0;

	if (!j) {
		if (n && strspn(line, " \r\t") < n)
			garbled(in, line, n);
		return 0;
	}
	if (!json_object_get(in->reqs, key) || json_object_get(in->seen, key)) {
		json_decref(j); /* not this batch's, or said twice */
		return 0;
	}
	json_object_set_new(in->seen, key, json_true());
	if ((res = json_object_get(j, "result"))) { /* Anthropic */
		const char *type = jstr(res, "type", "");
		json_t *e = json_object_get(res, "error");
		if (!strcmp(type, "succeeded"))
			r = answered(in, key, json_object_get(res, "message"));
		else if (!strcmp(type, "errored"))
			failed(in, key, json_object_get(e, "error") ? jstr(json_object_get(e, "error"), "type", "") :
			       jstr(e, "type", ""), 0);
		else /* canceled, expired */
			json_array_append_new(in->retry, json_string(key));
	} else if ((resp = json_object_get(j, "response")) && json_is_object(resp) &&
	           jint(resp, "status_code", 0) == 200) { /* OpenAI */
		r = answered(in, key, json_object_get(resp, "body"));
	} else {
		json_t *e = json_object_get(j, "error"), *be = json_object_get(json_object_get(resp, "body"), "error");
		const char *code = json_is_object(e) ? jstr(e, "code", "") : "";
		if (!strcmp(code, "batch_expired") || !strcmp(code, "batch_cancelled"))
			json_array_append_new(in->retry, json_string(key));
		else
			failed(in, key, json_is_object(be) ? jstr(be, "type", "") : code, jint(resp, "status_code", 0));
	}
	json_decref(j);
	return r; /* -1 ends the transfer */
}

/* fetch one results file through onresult; 0, or -1 when it could not be, or FATAL */
static int
fetch(const struct batchctx *c, const char *path, struct intake *in)
{
	struct reply r;
	long status;

	memset(&r, 0, sizeof r);
	r.online = onresult;
	r.lineud = in;
	status = call(c, &(struct httpreq){ "GET", path, NULL, NULL, 0, NULL }, &r, in->err, in->errcap);
	if (status == 200 && r.body.n)
		onresult(in, r.body.s, r.body.n); /* a last line without its newline */
	buffree(&r.body);
	if (status == FATAL || in->failed)
		return FATAL;
	return status == 200 ? 0 : -1;
}

/* the keys this batch already has ledger lines for (a run killed while settling it) */
static json_t *
charged(const struct batchctx *c, const char *note)
{
	char *p = xasprintf("%s/ledger.jsonl", c->cachedir), *line = NULL, *pat = xasprintf("\"note\":\"%s\"", note);
	FILE *f = fopen(p, "r");
	json_t *keys = json_object();
	size_t cap = 0;

	while (f && getline(&line, &cap, f) > 0) {
		json_t *j;
		if (!strstr(line, pat) || !(j = json_loads(line, 0, NULL)))
			continue;
		json_object_set_new(keys, jstr(j, "key", ""), json_true());
		json_decref(j);
	}
	if (f)
		fclose(f);
	free(line);
	free(pat);
	free(p);
	return keys;
}

/* the ledger lines not yet written, then the charge batch:ID settled; 0, or -1 when they cannot be */
static int
charge(const struct batchctx *c, struct intake *in)
{
	char note[96], name[96], *p = xasprintf("%s/ledger.jsonl", c->cachedir);
	json_t *done = NULL, *todo = json_array(), *l, *st;
	struct spend held;
	size_t i;
	int fd, r = -1;

	snprintf(note, sizeof note, "batch:%s", jstr(in->rec, "id", ""));
	snprintf(name, sizeof name, "batch:%s", jstr(in->rec, "id", ""));
	if ((fd = budgetopen(c->cachedir, &st, &held, in->err, in->errcap)) < 0)
		goto out;
	done = charged(c, note);
	json_array_foreach(in->charges, i, l)
		if (!json_object_get(done, jstr(l, "key", "")))
			json_array_append(todo, l);
	if (json_array_size(todo) && appendlines(p, todo, in->err, in->errcap) < 0) {
		warn("%s", in->err);
		snprintf(in->err, in->errcap, "cannot write the ledger for batch %s", jstr(in->rec, "api_id", ""));
		budgetabandon(st, fd);
		goto out;
	}
	if (json_object_get(json_object_get(st, "reserved"), name)) { /* else settled already */
		double tokens = jnum(st, "spent_tokens", 0);
		json_array_foreach(in->charges, i, l)
			tokens += usagetokens(json_object_get(l, "usage"));
		json_object_set_new(st, "spent_usd", json_real(jnum(st, "spent_usd", 0) + in->usd));
		json_object_set_new(st, "spent_tokens", json_real(tokens));
		json_object_del(json_object_get(st, "reserved"), name);
	}
	r = budgetclose(c->cachedir, st, fd, in->err, in->errcap);
out:
	json_decref(done);
	json_decref(todo);
	free(p);
	return r;
}

/*
 * An ended batch's results read: the keys no result spoke of asked again,
 * the charge settled, the sums counted, the record removed. How many it
 * left to the direct path, or FATAL.
 */
static long
takenin(const struct batchctx *c, const char *id, struct intake *in, json_t *retry, struct batchsum *s)
{
	json_t *rec = in->rec, *k;
	size_t i;
	long left;

	json_array_foreach(json_object_get(rec, "keys"), i, k) /* no result said: ask again */
		if (!json_object_get(in->seen, json_string_value(k)))
			json_array_append(in->retry, k);
	for (; in->garbled > 0; in->garbled--) { /* a line that said nothing readable: the dearest unspoken-of */
		const char *dearest = NULL;
		double w, most = -1;
		json_array_foreach(json_object_get(rec, "keys"), i, k)
			if (!json_object_get(in->seen, json_string_value(k)) &&
			    (w = worstof(c, json_object_get(in->reqs, json_string_value(k)))) > most) {
				most = w;
				dearest = json_string_value(k);
			}
		if (!dearest)
			break;
		json_object_set_new(in->seen, dearest, json_true());
		charged1(in, dearest, most);
	}
	if (charge(c, in) < 0)
		return FATAL;
	if (jint(rec, "attempt", 1) >= jint(rec, "attempts", 1) && json_array_size(in->retry)) {
		warn("%s: %zu requests failed in %" JSON_INTEGER_FORMAT " batches: left to the direct path",
		     c->label, json_array_size(in->retry), jint(rec, "attempt", 1));
		json_array_extend(in->left, in->retry);
		json_array_clear(in->retry);
	}
	json_array_extend(retry, in->retry);
	left = (long)json_array_size(in->left);
	s->answered += in->answered;
	s->usd += in->usd;
	fprintf(stderr, "%s: batch %s ended (%s): %zu answered ($%.4f at batch prices), %zu to ask again, "
	        "%ld left to the direct path\n", argv0, jstr(rec, "api_id", ""), jstr(rec, "status", ""),
	        in->answered, in->usd, json_array_size(in->retry), left);
	removerecord(c, id);
	return left;
}

/*
 * Take in an ended batch's results (under ID.lock: one taker): answers
 * cached and charged, the charge settled, the record and its requests
 * removed. Appends the keys to ask again to retry and returns how many
 * it left to the direct path (-1: its results could not be fetched;
 * FATAL).
 */
static long
intake(const struct batchctx *c, const char *id, json_t *retry, struct batchsum *s, char *err, size_t cap)
{
	char *lockname = xasprintf("batch/%s.lock", id), *path;
	int fd = lockfile(c->cachedir, lockname, err, cap), anthropic = !strcmp(c->m->provider, "anthropic");
	json_t *rec;
	struct intake in;
	long left = 0;
	size_t i;

	free(lockname);
	if (fd < 0)
		return FATAL;
	if (!(rec = recload(c, id))) { /* taken in by another */
		close(fd);
		return 0;
	}
	memset(&in, 0, sizeof in);
	in.c = c;
	in.rec = rec;
	in.err = err;
	in.errcap = cap;
	if (!(in.reqs = requests(c, id, err, cap))) {
		json_decref(rec);
		close(fd);
		return FATAL;
	}
	in.seen = json_object();
	in.ids = json_object();
	{
		const char *k;
		json_t *v;
		char cid[CUSTOMID];
		json_object_foreach(in.reqs, k, v) {
			customid(id, k, cid);
			json_object_set_new(in.ids, cid, json_string(k));
		}
	}
	in.retry = json_array();
	in.left = json_array();
	in.charges = json_array();
	in.latency = wallclock() - jnum(rec, "submitted", wallclock());
	if (anthropic) {
		path = xasprintf("v1/messages/batches/%s/results", jstr(rec, "api_id", ""));
		left = fetch(c, path, &in);
		free(path);
	} else {
		const char *files[2] = { jstr(rec, "output_file_id", ""), jstr(rec, "error_file_id", "") };
		for (i = 0; i < 2 && left == 0; i++) {
			if (!*files[i])
				continue;
			path = xasprintf("files/%s/content", files[i]);
			left = fetch(c, path, &in);
			free(path);
		}
	}
	if (left == 0)
		left = takenin(c, id, &in, retry, s);
	else if (left != FATAL)
		warn("%s: cannot fetch the results of batch %s: the next look tries again", c->label,
		     jstr(rec, "api_id", ""));
	json_decref(in.reqs);
	json_decref(in.seen);
	json_decref(in.ids);
	json_decref(in.retry);
	json_decref(in.left);
	json_decref(in.charges);
	json_decref(rec);
	close(fd);
	return left;
}

/* ----------------------------------------------------------- claiming */

/*
 * A new record for r[0..n) (its requests file first, then the record, then
 * its charge): the batch is written down before anything is sent. NULL
 * when it cannot be.
 */
static json_t *
newrecord(const struct batchctx *c, struct batchreq **r, size_t n, int attempt, int attempts, double usd,
          char *err, size_t cap)
{
	char owner[320], *p, hex[65], *seed;
	json_t *rec, *keys = json_array(), *lines = json_array(), *st;
	struct spend held;
	double t = wallclock();
	size_t i;
	int fd;

	ownername(owner, sizeof owner);
	seed = xasprintf("%s %s %.6f", r[0]->key, owner, t);
	sha256hex(seed, strlen(seed), hex);
	free(seed);
	hex[16] = 0;
	for (i = 0; i < n; i++) {
		json_array_append_new(keys, json_string(r[i]->key));
		json_array_append_new(lines, json_pack("{s:s,s:s,s:i,s:i,s:O,s:O}", "key", r[i]->key, "task", r[i]->task,
		                                       "sample", r[i]->sample, "round", r[i]->round, "canon",
		                                       r[i]->canon, "body", r[i]->body));
	}
	p = recpath(c, hex, ".jsonl");
	unlink(p);
	if (appendlines(p, lines, err, cap) < 0) {
		warn("%s", err);
		snprintf(err, cap, "cannot write '%s'", p);
		free(p);
		json_decref(lines);
		json_decref(keys);
		return NULL;
	}
	free(p);
	json_decref(lines);
	rec = json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:I,s:o,s:f,s:f,s:s}", "id", hex, "state", "new",
	                "owner", owner, "provider", c->m->provider, "model", c->m->name, "attempt", attempt,
	                "attempts", attempts, "n", (json_int_t)n, "keys", keys, "reserve_usd", usd, "created", t,
	                "label", c->label);
	if (recsave(c, rec, err, cap) < 0 || (fd = budgetopen(c->cachedir, &st, &held, err, cap)) < 0) {
		json_decref(rec);
		return NULL;
	}
	p = xasprintf("batch:%s", hex);
	json_object_set_new(json_object_get(st, "reserved"), p, json_pack("{s:f,s:s,s:s,s:f}", "usd", usd, "key",
	                    hex, "model", c->m->name, "time", t));
	free(p);
	if (budgetclose(c->cachedir, st, fd, err, cap) < 0) {
		json_decref(rec);
		return NULL;
	}
	return rec;
}

/* the room --budget leaves into *left (HUGE_VAL without one); 0 or -1 */
static int
room(const struct batchctx *c, double *left, char *err, size_t cap)
{
	json_t *st;
	struct spend held;
	int fd;

	if (c->budget <= 0) {
		*left = HUGE_VAL;
		return 0;
	}
	if ((fd = budgetopen(c->cachedir, &st, &held, err, cap)) < 0)
		return -1;
	*left = c->budget - jnum(st, "spent_usd", 0) - held.usd;
	if (budgetclose(c->cachedir, st, fd, err, cap) < 0)
		warn("%s", err);
	return 0;
}

/*
 * The requests no batch has (todo) into new records, as many per batch as
 * the provider takes and the budget leaves room for (their ids into
 * watch). Returns how many were left out for the budget, or -1.
 */
static long
fill(const struct batchctx *c, const struct settings *st, struct batchreq **todo, size_t ntodo, int attempt,
     json_t *watch, char *err, size_t cap)
{
	size_t i, start, nleft = 0;
	double budget, bytes;
	json_t *v;

	if (room(c, &budget, err, cap) < 0)
		return -1;
	for (start = 0; start < ntodo;) {
		double usd = 0;
		bytes = 0;
		for (i = start; i < ntodo && i - start < st->maxreq; i++) {
			char *b = jdumps(todo[i]->body, JSON_COMPACT);
			double w = worst(c, strlen(b)), sz = (double)strlen(b) + 200;
			free(b);
			if (i > start && bytes + sz > st->maxbytes)
				break;
			if (usd + w > budget)
				break;
			bytes += sz;
			usd += w;
		}
		if (i == start) { /* the next one does not fit the budget: nor do the rest */
			nleft = ntodo - start;
			warn("%s: budget reached ($%.4f left of $%.2f): %zu requests are not sent", c->label,
			     budget, c->budget, nleft);
			break;
		}
		if (!(v = newrecord(c, todo + start, i - start, attempt, st->attempts, usd, err, cap)))
			return -1;
		json_array_append_new(watch, json_string(jstr(v, "id", "")));
		json_decref(v);
		budget -= usd;
		start = i;
	}
	return (long)nleft;
}

/*
 * Claim the requests, under batch.lock: those in a batch not yet taken in
 * are waited for (its id into watch; one whose owner is gone is
 * taken over); the others go into new records (fill). Returns how many
 * were left out for the budget, or -1.
 */
static long
claim(const struct batchctx *c, const struct settings *st, struct batchreq **r, size_t n, int attempt,
      json_t *watch, char *err, size_t cap)
{
	char *dir = xasprintf("%s/batch", c->cachedir), owner[320];
	int fd = -1;
	long rc = -1;
	json_t *recs = NULL, *inflight = json_object(), *v, *k;
	const char *id;
	size_t i, j;
	struct batchreq **todo = xcalloc(n + 1, sizeof *todo);
	size_t ntodo = 0;

	if (mkdirp(dir) < 0) {
		snprintf(err, cap, "cannot create '%s': %s", dir, strerror(errno));
		goto out;
	}
	if ((fd = lockfile(dir, "batch.lock", err, cap)) < 0)
		goto out;
	ownername(owner, sizeof owner);
	recs = records(c);
	json_object_foreach(recs, id, v) {
		int mine = 0;
		json_array_foreach(json_object_get(v, "keys"), j, k)
			json_object_set_new(inflight, json_string_value(k), json_string(id));
		for (i = 0; i < n && !mine; i++)
			mine = json_object_get(inflight, r[i]->key) &&
			       !strcmp(jstr(inflight, r[i]->key, ""), id);
		if (ownergone(jstr(v, "owner", ""))) { /* its sender is gone: ours to finish */
			if (!strcmp(jstr(v, "state", ""), "new") || !strcmp(jstr(v, "state", ""), "submitting")) {
				json_object_set_new(v, "owner", json_string(owner)); /* and to send, or find */
				if (recsave(c, v, err, cap) < 0)
					goto out;
			}
			mine = 1;
		}
		if (mine) /* a record on disk is never failed: a refused batch is removed */
			json_array_append_new(watch, json_string(id));
	}
	for (i = 0; i < n; i++)
		if (!json_object_get(inflight, r[i]->key))
			todo[ntodo++] = r[i];
	rc = fill(c, st, todo, ntodo, attempt, watch, err, cap);
out:
	json_decref(recs);
	json_decref(inflight);
	free(todo);
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

/* ---------------------------------------------------------- progress */

static void
age(char *dst, size_t cap, double s)
{
	if (s < 3600)
		snprintf(dst, cap, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
	else
		snprintf(dst, cap, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
}

/* one line about a record: done/total, failed, age, worst case */
static void
progress(FILE *f, const char *prefix, json_t *rec)
{
	json_t *ct = json_object_get(rec, "counts");
	char a[32];

	age(a, sizeof a, wallclock() - jnum(rec, "created", wallclock()));
	fprintf(f, "%s%s %s (%s, %s, attempt %" JSON_INTEGER_FORMAT "): %" JSON_INTEGER_FORMAT "/%" JSON_INTEGER_FORMAT
	        " done, %" JSON_INTEGER_FORMAT " failed, %s old, up to $%.4f at batch prices\n", prefix,
	        jstr(rec, "label", "?"), *jstr(rec, "api_id", "") ? jstr(rec, "api_id", "") : jstr(rec, "id", "?"),
	        jstr(rec, "state", "?"), *jstr(rec, "status", "") ? jstr(rec, "status", "") : "not polled yet",
	        jint(rec, "attempt", 1), jint(ct, "done", 0), jint(ct, "total", jint(rec, "n", 0)),
	        jint(ct, "failed", 0), a, jnum(rec, "reserve_usd", 0));
}

void
batchreport(const char *cachedir)
{
	struct batchctx c;
	struct model m;
	char *dir = xasprintf("%s/batch", cachedir);
	char **names = NULL;
	size_t n = 0, i, shown = 0;

	memset(&c, 0, sizeof c);
	memset(&m, 0, sizeof m);
	c.cachedir = cachedir;
	c.m = &m;
	listdirnames(dir, ".json", &names, &n);
	for (i = 0; i < n; i++) {
		char *id = xstrndup(names[i], strlen(names[i]) - 5);
		json_t *r = recload(&c, id);
		if (r) {
			if (!shown++)
				printf("batches not yet taken in (in %s):\n", dir);
			progress(stdout, "  ", r);
		}
		json_decref(r);
		free(id);
		free(names[i]);
	}
	free(names);
	free(dir);
}

/* ---------------------------------------------------------------- run */

/*
 * Whether this process is to send *rec (new) or find it (submitting): it
 * made it, or took it over from a sender that is gone (under batch.lock,
 * *rec reloaded). A live sender's record is only waited for. 1, 0, or -1
 * when it cannot be taken over.
 */
static int
mine(const struct batchctx *c, json_t **rec, char *err, size_t cap)
{
	char owner[320], *dir;
	json_t *now;
	int fd, r = 0;

	ownername(owner, sizeof owner);
	if (!strcmp(jstr(*rec, "owner", ""), owner))
		return 1;
	if (!ownergone(jstr(*rec, "owner", "")))
		return 0;
	dir = xasprintf("%s/batch", c->cachedir);
	if ((fd = lockfile(dir, "batch.lock", err, cap)) < 0) {
		free(dir);
		return -1;
	}
	if ((now = recload(c, jstr(*rec, "id", ""))) && ownergone(jstr(now, "owner", ""))) {
		json_object_set_new(now, "owner", json_string(owner));
		r = recsave(c, now, err, cap) < 0 ? -1 : 1;
	}
	if (now) {
		json_decref(*rec);
		*rec = now;
	}
	close(fd);
	free(dir);
	return r;
}

/*
 * One look at a watched record, as its state says: found again among the
 * provider's batches, sent, or polled (*polled: poll's 1 ended, 0 not, -1
 * not looked at). 0, or -1 when the run stops (err).
 */
static int
advance(const struct batchctx *c, json_t **rec, json_t *recs, int *polled, char *err, size_t cap)
{
	int m;

	*polled = 0;
	if (!strcmp(jstr(*rec, "state", ""), "submitting") && (m = mine(c, rec, err, cap)) != 0 &&
	    (m < 0 || recover(c, *rec, recs, err, cap) < 0))
		return -1;
	if (!strcmp(jstr(*rec, "state", ""), "new") && (m = mine(c, rec, err, cap)) != 0 &&
	    (m < 0 || submit(c, *rec, err, cap) < 0))
		return -1;
	if (!strcmp(jstr(*rec, "state", ""), "submitted") && (*polled = poll(c, *rec, err, cap)) == FATAL)
		return -1;
	return 0;
}

/* what await watches: the records' ids, the records, the keys to ask
 * again, the round's sum, the looks that failed in this pass */
struct watching {
	json_t *watch, *recs, *retry;
	struct batchsum *s;
	int fails;
};

/*
 * Look at watched record i (advance), taking it in when it has ended; it
 * leaves watch once done with (failed, or taken in), and a look that
 * failed counts into w->fails. 1 when it stays watched, 0 when it left, -1
 * when the run stops (err).
 */
static int
look(const struct batchctx *c, struct watching *w, size_t i, char *err, size_t cap)
{
	json_t *watch = w->watch, *recs = w->recs, *retry = w->retry;
	struct batchsum *s = w->s;
	const char *id = json_string_value(json_array_get(watch, i));
	json_t *rec = json_incref(json_object_get(recs, id));
	int r = 0, stays = 1;

	if (!rec)
		rec = recload(c, id);
	if (!rec) { /* taken in by another process */
		json_array_remove(watch, i);
		return 0;
	}
	if (advance(c, &rec, recs, &r, err, cap) < 0) {
		json_decref(rec);
		return -1;
	}
	if (r < 0)
		w->fails++;
	if (!strcmp(jstr(rec, "state", ""), "failed")) {
		s->left += (size_t)jint(rec, "n", 0);
		stays = 0;
	} else if (r == 1) {
		long left = intake(c, id, retry, s, err, cap);
		if (left == FATAL) {
			stays = -1;
		} else if (left < 0) {
			w->fails++;
		} else {
			s->left += (size_t)left;
			json_array_append_new(s->batches, json_string(jstr(rec, "api_id", "")));
			stays = 0;
		}
	} else {
		progress(stderr, "query-llm: ", rec);
	}
	json_decref(rec);
	if (stays == 0)
		json_array_remove(watch, i);
	return stays;
}

/* wait for the watched records, taking each in when it ends; the keys to ask again into retry; 0 or -1 */
static int
await(const struct batchctx *c, const struct settings *st, json_t *watch, json_t *retry, struct batchsum *s,
      char *err, size_t cap)
{
	double delay = st->poll;
	int misses = 0, limit = (int)jint(json_object_get(c->m->cfg, "retry"), "attempts", 8), stays = 0;
	struct watching w = { watch, records(c), retry, s, 0 };

	while (json_array_size(watch)) {
		size_t i;
		w.fails = 0;
		for (i = 0; i < json_array_size(watch); i += (size_t)stays)
			if ((stays = look(c, &w, i, err, cap)) < 0) {
				json_decref(w.recs);
				return -1;
			}
		misses = w.fails ? misses + 1 : 0;
		if (misses >= limit) {
			snprintf(err, cap, "%s: cannot reach the provider to poll its batches (%d looks in a row); the "
			         "next run resumes them", c->label, misses);
			json_decref(w.recs);
			return -1;
		}
		if (!json_array_size(watch))
			break;
		fprintf(stderr, "query-llm: %s: %zu batches out; next look in %.1f s\n", c->label,
		        json_array_size(watch), delay);
		usleep((useconds_t)(delay * 1e6));
		delay = fmin(delay * 1.5, st->pollmax);
		json_decref(w.recs);
		w.recs = records(c);
	}
	json_decref(w.recs);
	return 0;
}

int
batchrun(const struct batchctx *c, struct batchreq *r, size_t n, struct batchsum *s, char *err, size_t cap)
{
	struct settings st;
	struct batchreq **todo = xcalloc(n + 1, sizeof *todo);
	json_t *watch = json_array(), *retry = json_array(), *byid = json_object();
	size_t i, ntodo = n;
	int attempt, rc = -1;

	settings(c->m, &st);
	s->batches = json_array();
	for (i = 0; i < n; i++) {
		todo[i] = &r[i];
		json_object_set_new(byid, r[i].key, json_integer((json_int_t)i));
	}
	if (httpstart(c->m, 0) < 0) {
		snprintf(err, cap, "libcurl: cannot initialize");
		goto out;
	}
	srandom((unsigned)(getpid() ^ (unsigned)time(NULL)));
	for (attempt = 1; ntodo || attempt == 1; attempt++) {
		json_t *k;
		long left = claim(c, &st, todo, ntodo, attempt, watch, err, cap);
		if (left < 0)
			goto done;
		s->left += (size_t)left;
		s->sent += ntodo;
		json_array_clear(retry);
		if (await(c, &st, watch, retry, s, err, cap) < 0)
			goto done;
		/* the keys to ask again (this run's requests only: others' are their runs' to ask) */
		ntodo = 0;
		json_array_foreach(retry, i, k) {
			json_t *at = json_object_get(byid, json_string_value(k));
			if (at)
				todo[ntodo++] = &r[json_integer_value(at)];
			else
				s->left++;
		}
	}
	rc = 0;
done:
	curl_global_cleanup();
out:
	json_decref(watch);
	json_decref(retry);
	json_decref(byid);
	free(todo);
	return rc;
}
