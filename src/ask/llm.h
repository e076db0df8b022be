/*
 * llm.h - what query-llm's requests, one at a time or in batches, share:
 * the configured model, HTTP through libcurl, answers parsed from the
 * providers' messages, key redaction, the response cache, and the money
 * kept in the cache dir (the limiter, the ledger, the budget and its
 * reservations). doc/teacher.md describes each; batch.h owns the
 * batch APIs.
 */
#ifndef RETORT_LLM_H
#define RETORT_LLM_H

#include <curl/curl.h>

#include "../lib/json.h"
#include "../lib/schema.h" /* usagetokens */
#include "../lib/util.h"

enum { MAX_BODY = 64 << 20 };

/* the configured teacher (out/model.json) */
struct model {
	json_t *cfg;
	const char *name, *api_model, *provider;
	const char *table;   /* the price table answers are costed at: "prices" (NULL) or "batch_prices" */
};

/* ---- HTTP ---- */

struct reply {
	long status;
	struct buf body;     /* the body (with online: the unfinished last line) */
	/* when set, the body goes line by line to online (a line of n bytes); -1 ends the transfer */
	int (*online)(void *ud, const char *line, size_t n);
	void *lineud;
	int stopped;         /* online ended it (its reason is its own) */
	void (*onfirst)(void);   /* when set, called once, when the body's first bytes arrive */
	void (*onchunk)(const struct reply *r); /* when set (no online), after each piece of the body */
	int sent;                /* the whole request went out (its body uploaded) */
	char retry_after[64], retry_after_ms[64], should_retry[16], request_id[128], ctype[128];
	CURLcode cerr;
	char errbuf[CURL_ERROR_SIZE];
	double seconds;
};

/* libcurl's global start (curl_global_init), before the first httpdo: 0, or
 * -1; baseonly: every URL the process asks is under m's base (a batch's
 * result URLs, the provider's own, need not be) */
int httpstart(const struct model *m, int baseonly);
/* one HTTP request: method (GET, POST, ...) on url, with key in the
 * provider's header, body (len bytes of ctype, NULL for none; ctype NULL:
 * JSON) */
struct httpreq {
	const char *method, *url, *key;
	const char *body;
	size_t len;
	const char *ctype;
};
/*
 * One HTTP exchange with the model's provider, under the model's
 * timeouts. r gets the status, the headers that matter and the body (or
 * curl's error in r->cerr, r->errbuf). 0, or -1 when no exchange could be
 * tried (err says why).
 */
int httpdo(const struct model *m, const struct httpreq *q, struct reply *r, char *err, size_t cap);
/* seconds the server asks us to wait (retry-after-ms, retry-after), or -1 */
double retryafter(const struct reply *r);
/* the provider's error message and type from a JSON error body (or its first bytes) */
void errmessage(const struct reply *r, char *msg, size_t len, char *type, size_t tlen);
/* a factor in [0.75, 1] for backoff */
double jitter(void);
/* the provider's key from the environment (NULL when unset) */
const char *apikey(const struct model *m);
/* the URL of path under the provider's base URL (*_BASE_URL, else the public API; malloc'd) */
char *apiurl(const struct model *m, const char *path);
/*
 * An error the client caused (a bad request, a bad key, no money left):
 * the same request would fail again. Everything else (overloaded,
 * api_error, server_error, rate limits, timeouts, unknown types) is the
 * server's trouble.
 */
int clienterror(const char *type, const json_t *code);

/* ---- answers ---- */

struct answer {
	json_t *message;     /* provider-native response message */
	json_t *parsed;      /* text, reasoning, blocks, stop_reason */
	json_t *usage;       /* normalized */
	double cost;         /* USD at the model's prices */
	int priced;          /* 0: the model has no prices (cost unknown, written null) */
	double latency;
	char request_id[128];
};

/* whether the model config has prices (an id not in models.yaml has none) */
int priced(const json_t *cfg);
/* its standard price of k (input, output, cache_write, cache_read) per million tokens */
/* a cost as JSON: null when the prices are unknown */
json_t *jcost(double usd, int known);
/* a provider message into a (text, reasoning, blocks, stop reason, usage, cost); 0, or -1 with why */
int parsemessage(const struct model *m, json_t *msg, struct answer *a, char *why, size_t whylen);
/* $ for inbytes of request (about 3.5 bytes a token) and outtokens of answer, at the model's table */
double estimate(const struct model *m, size_t inbytes, double outtokens);
/* $ for the prompt alone of inbytes (about 3.5 bytes a token), at the dearer of input and cache-write prices */
double promptcost(const struct model *m, size_t inbytes);

/* ---- secrets ---- */

/* s with the keys (and, with shapes, anything shaped like one) replaced by "[redacted]" (malloc'd) */
char *redact(const char *s, int shapes);
/* redact msg in place (keys and key shapes: for anything printed) */
void scrub(char *msg, size_t cap);
/* jwrite, with the keys redacted from what is written */
int jwritesafe(const char *path, const json_t *j);
/* append one JSON line (keys redacted) to path with O_APPEND; 0 or -1 (err says why) */
int appendline(const char *path, json_t *j, char *err, size_t cap);
/* append every element of the array lines, as lines, in one write; 0 or -1 (err says why) */
int appendlines(const char *path, json_t *lines, char *err, size_t cap);

/*
 * ---- the cache dir: locks, state, limiter, ledger, budget, responses ----
 * Each of these that can fail returns -1 (NULL) with a message in err;
 * the tool exits 1 with it. Those without err warn.
 */

/* DIR/NAME as a JSON object ({} when absent or damaged) */
json_t *loadstate(const char *dir, const char *name);
/* write it; 0 or -1 */
int savestate(const char *dir, const char *name, json_t *j, char *err, size_t cap);
/* wait for the model's requests and tokens per minute (limits.json); 0 or -1 */
int ratelimit(const char *cachedir, const struct model *m, double tokens, char *err, size_t cap);
/* one ledger.jsonl line (note: NULL, "unsettled", "estimated", ...); 0 or -1 (after a warning) */
int ledger(const char *cachedir, const char *model, const char *key, double usd, int known, json_t *usage,
           const char *note);
/* a ledger line (for appendlines) */
json_t *ledgerline(const char *model, const char *key, double usd, int known, json_t *usage, const char *note);
/* $ and tokens: a budget (0: no limit), a charge, what was spent */
struct spend {
	double usd, tokens;
};
/* lock and load budget.json, charging the dead's charges; *held: the other open charges; fd or -1 */
int budgetopen(const char *cachedir, json_t **st, struct spend *held, char *err, size_t cap);
/* save and unlock budget.json; 0 or -1 */
int budgetclose(const char *cachedir, json_t *st, int fd, char *err, size_t cap);
/* unlock it without saving (a caller that failed midway) */
void budgetabandon(json_t *st, int fd);
/* open this process's charge for key at est ($ and tokens); 0, or -1 past the budget (--budget,
 * --budget-tokens) or when it cannot be kept */
int reserve(const char *cachedir, const struct spend *budget, const struct model *m, const char *key,
            const struct spend *est, char *err, size_t cap);
/* settle it at usd (and what unusable attempts were estimated at); 0 or -1 (after a warning) */
int settle(double usd, int known, json_t *usage);
/* an attempt that was served but unusable: usd and tokens more for the charge to settle */
void chargeserved(double usd, double tokens);
/*
 * What this process would owe if it were killed now: usd for the attempt
 * under way (what chargeserved counted is added), basis saying how it was
 * bounded. Written to CACHE/inflight/NAME.json (not fsync'd); the charge
 * of a dead process is settled at it, else at its reservation.
 */
void chargebound(double usd, const char *basis);
/* CACHE/llm/XX/KEY.json (malloc'd) */
char *cachepath(const char *cachedir, const char *key);
/* the cached answer for key into a; 0, or -1 (a miss, or a damaged entry) */
int cacheget(const char *cachedir, const char *key, struct answer *a);
/* cache a as key's answer to the canonical request canon; 0 or -1 */
int cacheput(const char *cachedir, const struct model *m, const char *key, json_t *canon, struct answer *a,
             char *err, size_t cap);

#endif
