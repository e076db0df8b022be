/*
 * batch.h - a round's requests through the providers' batch APIs
 * (Anthropic Message Batches, the OpenAI Batch API), for query-llm
 * --batch. It owns the batch records in CACHE/batch/: each batch is
 * written down and its worst case charged at batch prices before it is
 * sent, so that a killed run resumes the batch it paid for and never
 * sends it twice. Answers fill the response cache under the single
 * requests' keys; what a batch cannot answer is left to the query edges.
 * doc/teacher.md (Batches) gives the records, their states and the money.
 */
#ifndef RETORT_BATCH_H
#define RETORT_BATCH_H

#include <stddef.h>

#include "llm.h"

/* one request for a batch */
struct batchreq {
	char key[65];
	const char *task;
	int sample, round;
	json_t *canon, *body;   /* body: the request as a non-streaming call sends it */
};

struct batchctx {
	const char *cachedir;
	const char *log;        /* llm.log: a line per answer taken in (source "batch"), or NULL */
	const char *label;      /* for messages: "round 2" */
	double budget;          /* --budget (0: none) */
	const struct model *m;  /* with table "batch_prices" */
};

/* what the round's batches came to */
struct batchsum {
	size_t sent;            /* requests in batches this run sent or resumed */
	size_t answered;        /* answers cached from batches */
	size_t left;            /* left to the query edges (refused, over budget, past the attempts) */
	double usd;             /* their cost at batch prices */
	json_t *batches;        /* the provider's batch ids */
};

/*
 * Put the n requests (cache misses, distinct keys) into batches, wait for
 * them (polling with backoff, printing progress on stderr), and fill the
 * cache with their answers. Returns 0, or -1 when the provider cannot be
 * reached after the model's retries or the cache dir cannot be written
 * (err says what; the tool exits 1, and the records stay: the next run
 * resumes them).
 */
int batchrun(const struct batchctx *c, struct batchreq *r, size_t n, struct batchsum *s, char *err, size_t cap);

/* the batches not yet taken in, in the cache dir, for the cost report (stdout) */
void batchreport(const char *cachedir);

#endif
