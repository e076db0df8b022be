/*
 * batch.h - a round's requests through the providers' batch APIs
 * (Anthropic Message Batches, the OpenAI Batch API), at batch prices,
 * for query-llm --batch.
 *
 * The protocol, as kept in the cache dir (CACHE/batch/):
 *
 *   ID.jsonl   the batch's requests, one line each: key, task, sample,
 *              round, canon (the canonical request the cache entry keeps)
 *              and body (what is sent); written before anything is sent
 *   ID.json    the batch's record, rewritten at every step: state, owner
 *              (PID@HOST:NS), provider, model, attempt, keys, worst-case $
 *              (reserve_usd), the provider's batch id (api_id) and its
 *              counts as last polled
 *   batch.lock held while batches are claimed: a key already in a batch
 *              not yet taken in is never sent again, it is waited for
 *   ID.lock    held while a batch's results are taken in, and while a
 *              poller saves the counts it saw (never into a record that
 *              is gone); the file stays after the record
 *
 * States: new (written, not sent) -> submitting (being sent) -> submitted
 * (the provider has it: api_id) -> removed, once its results are taken in
 * (cached, charged). A batch the provider refused whole is removed too
 * (its keys go to the direct path).
 * A record whose owner is gone is taken over by whoever sees it: a new one
 * is sent; a submitting one is looked for among the provider's batches
 * (OpenAI: by the metadata retort_batch = ID; Anthropic: a batch of the
 * same size created since, that no record claims) and adopted when found,
 * sent again only when the provider has no such batch; a submitted one is
 * polled. So a killed ninja resumes polling the batch it paid for.
 *
 * Money: each record opens a charge "batch:ID" in budget.json at its worst
 * case at batch prices before it is sent (with --budget, only as many
 * requests go into a batch as the budget leaves room for); the charge
 * stays open, counted against the budget, until the results are in; then
 * every answered request gets its ledger line (note "batch:ID", at the
 * batch_prices of out/model.json) and the charge is settled at their sum.
 * Lines already in the ledger for that batch are not written twice.
 *
 * Results fill the response cache under the same keys as single requests
 * (a later run without batches hits them). Expired, canceled and
 * server-side errored requests, and any a batch did not answer, go into a
 * new batch, up to batch.attempts batches each; requests the provider
 * refused for the client's fault (invalid_request_error, 4xx) and those
 * past the attempts are left to the round's query edges, which ask them
 * one by one at the standard price and report the provider's message.
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
