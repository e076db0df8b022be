/*
 * schema.h - the dataset's fields, in one table per config: the records
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

/* a field's type; S_LIST is a list of item (S_STRING or S_STRUCT) */
enum { S_STRING, S_INT, S_FLOAT, S_BOOL, S_STRUCT, S_LIST };
/* flags: the value may be null; the value is measured (varies run to run) */
enum { S_NULL = 1, S_MEASURED = 2 };

struct sfield {
	const char *name;         /* NULL ends a table */
	int type;                 /* S_* */
	int item;                 /* S_LIST: the items' type */
	const struct sfield *sub; /* S_STRUCT, or S_LIST of S_STRUCT: the members */
	int flags;                /* S_NULL, S_MEASURED */
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

#endif
