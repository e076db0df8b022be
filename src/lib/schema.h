/*
 * schema.h - the dataset's fields, in one table per config (and the
 * files between tools, one table each: below): the records
 * record writes (the default config, one per sample) and the
 * prompt/completion rows package derives from them (sft_final). record
 * checks each record it writes against the table, package each record it
 * reads, and package's card writes from it the explicit features
 * (dataset_info, so every run's shards load with the same Arrow types), the
 * field documentation and the list of measured fields; the reproducible
 * projection leaves the measured ones out.
 */
#ifndef RETORT_SCHEMA_H
#define RETORT_SCHEMA_H

#include <stddef.h>

#include <jansson.h>

#include "util.h"

/* a field's type; S_LIST is a list of item (S_STRING or S_STRUCT); S_MAP an
 * object whose every member is an item (files only: metrics.json's tasks) */
enum { S_STRING, S_INT, S_FLOAT, S_BOOL, S_STRUCT, S_LIST, S_ANY /* a list item of any type (files only) */,
       S_MAP };
/* flags: the value may be null; the value is measured (varies run to run);
 * the field may be absent (files only) */
enum { S_NULL = 1, S_MEASURED = 2, S_OPT = 4 };

struct sfield {
	const char *name;         /* NULL ends a table */
	int type;                 /* S_* */
	int item;                 /* S_LIST, S_MAP: the items' type */
	const struct sfield *sub; /* S_STRUCT, or S_LIST or S_MAP of S_STRUCT: the members */
	int flags;                /* S_NULL, S_MEASURED, S_OPT */
	const char *doc;          /* one line for the card */
};

/* the default config's record, and the sft_final config's row */
extern const struct sfield schema_record[];
extern const struct sfield schema_sftfinal[];
/* a chat message, as both use it */
extern const struct sfield schema_message[];
/* a record's checked: verify.json's checked, and bench_calls_checked */
extern const struct sfield schema_checked[];

/*
 * Whether j is an object with exactly the table's fields, each of its type
 * (null only where S_NULL). Returns 0, or -1 with the first wrong field's
 * path and what is wrong in err ("rounds[1].verify: not a string").
 */
int schemacheck(const json_t *j, const struct sfield *table, char *err, size_t errlen);

/*
 * The files one tool writes and others read, one table each: the fields
 * their readers use and their types (S_OPT: may be absent); other fields
 * are let be. Every reader loads them through schemaload, so a file of
 * valid JSON but the wrong shape is bad input (exit 2, the field named)
 * wherever it is read. A variant's task.json is lib/task.c's (taskload).
 *
 *     schema_response_json   query-llm's response.json
 *     schema_compile_json    compile's compile.json
 *     schema_verify_json     verify's verify.json
 *     schema_bench_json      bench's bench.json
 *     schema_proposal_json   a proposal batch's request (gen --propose-split)
 *     schema_reftask_json    a reference request (propose-check --ask-reference)
 *     schema_check_json      propose-check's check.json
 *     schema_agree_json      propose-check --agree's agree.json
 *     schema_metrics_json    metrics' metrics.json
 */
extern const struct sfield schema_response_json[], schema_compile_json[], schema_verify_json[],
	schema_bench_json[], schema_proposal_json[], schema_reftask_json[], schema_check_json[],
	schema_agree_json[], schema_metrics_json[];

/*
 * Whether j is an object with the file table's fields (those not S_OPT),
 * each of its type where present. Returns 0, or -1 with what is wrong in
 * err ("no 'status' field (a string)", "field 'proposals[0].index' is not
 * an integer").
 */
int schemafile(const json_t *j, const struct sfield *table, char *err, size_t errlen);
/* the JSON file at path, checked against a file table; else exit 2 with the field and path named */
json_t *schemaload(const char *path, const struct sfield *table);

/* the table as Hugging Face datasets features (YAML list, indent spaces in) */
void schemafeatures(struct buf *b, const struct sfield *table, int indent);
/* the table as a Markdown list: `path` (type): doc, members nested */
void schemadoc(struct buf *b, const struct sfield *table);
/* the paths of the measured fields ("speedup", "rounds[].speedup"), appended to out */
void schemameasured(const struct sfield *table, json_t *out);
/* j without its measured fields (the reproducible projection) */
void schemastrip(json_t *j, const struct sfield *table);

/*
 * The held-out split: a task (a spec id) is held out when its id's
 * SHA-256, its first 32 bits as a fraction, is below fraction. package
 * puts such tasks' records in `test` alone; an evaluation build asks them
 * by default (gen --held-out). HELDOUT_FRACTION is both's default.
 */
#define HELDOUT_FRACTION 0.1
int heldout(const char *task, double fraction);
/* a record of the train split: not held out, correct (verified on a GPU), nothing flagged for review */
int intrain(const json_t *record, double fraction);

/*
 * The tokens a usage object (a response's, a record's) counts: input,
 * output, cache writes and cache reads (reasoning_tokens are part of
 * output_tokens). The one definition the budget, the live status and
 * package's summary use.
 */
double usagetokens(const json_t *usage);

#endif
