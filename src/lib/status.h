/*
 * status.h - the build's live status: out/status.json, what this ninja
 * run's requests have come to so far (done, in flight, failed; tokens and
 * $), and its GPU edges (waiting for a GPU, running, done). query-llm,
 * verify and bench update it as they go; `ninja status` (query-llm
 * --status FILE) prints it as one line, and package's summary reads it at
 * the end.
 *
 * A run is one ninja process: the first update from the tools of another
 * ninja starts the counts afresh. Updates are made under an flock of
 * FILE.lock and written whole (a temporary renamed into place), so
 * concurrent tools never lose each other's counts and a reader never sees
 * half a file. What is in flight is kept by process
 * (PID@HOST:NS), so a tool killed mid-request is no longer counted once
 * it is gone. doc/pipeline.md (Watching a build) describes the fields.
 */
#ifndef RETORT_STATUS_H
#define RETORT_STATUS_H

#include <jansson.h>

/* what a tool's status update says */
enum statusevent {
	STATUS_ASKING,   /* a request goes out: in flight */
	STATUS_ASKED,    /* answered by the model (usage, cost) */
	STATUS_CACHED,   /* answered from the response cache */
	STATUS_REPLAYED, /* a replay answer */
	STATUS_FINISHED, /* nothing to ask: an earlier round finished the sample */
	STATUS_FAILED,   /* the request failed: the edge exits 1 or 2 */
	STATUS_GPU_WAIT, /* a GPU edge waits for its GPU */
	STATUS_GPU_RUN   /* it has one; counted done once its process is gone */
};

struct statusupdate {
	enum statusevent event;
	const char *what;        /* the task (in flight), or NULL */
	const json_t *usage;     /* STATUS_ASKED: the answer's usage (tokens), or NULL */
	double usd;              /* STATUS_ASKED: its cost */
	int priced;              /* 0: its cost is unknown (the model has no prices) */
};

/*
 * Record u in the status file path (out/status.json) for this process; 0,
 * or -1 with a warning (a status that cannot be kept stops no build).
 */
int statusnote(const char *path, const struct statusupdate *u);
/*
 * Once this process has noted STATUS_ASKING, an exit without its end
 * (die, exit 1) notes it as failed: statusnote arranges this. A process
 * found gone with a request in flight (a kill) counts as failed, and one
 * found gone with a GPU as a GPU edge done, by the next update or read.
 */

/* the status file, its entries of processes gone settled (as statusnote would), with "elapsed_s" and
 * "this_run" (true when it is the status of the ninja this process runs under); NULL when absent */
json_t *statusload(const char *path);
/* one line for it (malloc'd) */
char *statusline(const json_t *st);

#endif
