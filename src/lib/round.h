/*
 * round.h - a round's outcome, the one owner: the status each stage of a
 * round records, the rule that ends a sample, the feedback the teacher is
 * told, and what a record's rounds came to. query-llm, compile, verify,
 * bench, record, report and package read and write these statuses only
 * through this module; doc/pipeline.md (Statuses) lists them.
 *
 * The stop rule: a sample is finished by a round whose kernel is correct
 * and fast enough (bench's speedup at least the task's target_speedup, or
 * no baseline to be faster than), correct where nothing times it, or that
 * had no GPU to check on.
 */
#ifndef RETORT_ROUND_H
#define RETORT_ROUND_H

#include <jansson.h>

enum status {
	ST_NONE,          /* not recorded: a stage that did not run, a step that went well */
	ST_ANSWERED, ST_REFUSED, ST_TRUNCATED,
	ST_OK, ST_NO_CODE, ST_SCREEN_FAILED, ST_COMPILE_ERROR, ST_NOT_BUILT,
	ST_CORRECT, ST_MISMATCH, ST_MEMCHECK,
	ST_CRASH, ST_TIMEOUT, ST_OUT_OF_BOUNDS, ST_INPUTS_MODIFIED, ST_VIOLATION, ST_LOAD_ERROR, ST_SANDBOX,
	ST_NO_ROOM,
	ST_MEASURED, ST_INVALID, ST_NOT_VERIFIED,
	ST_SKIPPED,       /* "skipped: no CUDA device" */
	ST_DONE,
	ST_UNKNOWN        /* a name no stage writes */
};

/*
 * A round's candidate language: cuda (the default: an extern "C" host
 * function in a ```cuda block) or triton (a Python entry point launching
 * @triton.jit kernels, in a ```python block). A Triton sample's rounds
 * live in out/v/<variant>/triton/s<S>/r<R>/ (a CUDA sample's in
 * out/v/<variant>/s<S>/r<R>/); its response.json and compile.json say
 * "lang": "triton", a CUDA one's say nothing (records say "cuda"); verify
 * and bench run a Triton round's cand.py (proto.h hcandidate), with the
 * same statuses and stop rule as a CUDA round's.
 */
enum lang { LANG_CUDA = 1, LANG_TRITON = 2, LANG_ALL = 3 };
/* "cuda" or "triton" */
const char *langname(enum lang l);
/* the language a name spells, 0 for none */
int langnamed(const char *name);
/* a round record's language: its "lang", else cuda */
enum lang langof(const json_t *rec);

/* the stages of a round, by the file each records */
enum stage { STAGE_ANSWER, STAGE_COMPILE, STAGE_VERIFY, STAGE_BENCH };

/* a status's name as records spell it ("" for ST_NONE) */
const char *statusname(enum status s);
/* the status a name spells: ST_NONE for NULL or "", ST_UNKNOWN for no status */
enum status statusnamed(const char *name);
/* the status a stage's record holds (ST_NONE when rec is NULL) */
enum status statusof(const json_t *rec, enum stage stage);
/* record status s for the stage in rec */
void setstatus(json_t *rec, enum stage stage, enum status s);
/* 1 when verify's verdict v came from running the kernel on a GPU */
int gpujudged(enum status v);
/*
 * 1 when bench's status b finds wrong a kernel that verify passed: a
 * mismatch or a tampered reply at a bench size, or a harness verdict
 * (crash, timeout, out_of_bounds, ...). no_room (the GPU could not hold
 * the case) is no fault of the kernel's.
 */
int benchcaught(enum status b);
/* why n rounds that built were never judged (verify skipped them: no
 * GPU), in a sentence of plain text; the caller frees it */
char *nogpuwhy(long long n);

enum { FEEDBACK_MAX_VIOLATIONS = 10 };

/*
 * The stop rule (above), for a round's compile, verify and bench records;
 * each may be NULL (a stage that did not run); task gives target_speedup.
 */
int roundfinished(const json_t *task, const json_t *comp, const json_t *ver, const json_t *bench);

/*
 * What the teacher is told about a round (malloc'd; "" when nothing: the
 * round finished the sample, or its stages had nothing to say): the
 * screen's violations (at most FEEDBACK_MAX_VIOLATIONS listed), nvcc's
 * errors, a compile time-out, verify's mismatches or crash, bench's
 * timings with a request to go faster. query-llm sends it in the next
 * round's repair message; record keeps it in the dataset, for a last
 * round too (what would have been sent).
 */
char *roundfeedback(const json_t *task, const json_t *comp, const json_t *ver, const json_t *bench);

/* what a record's rounds came to (record's "outcome") */
enum outcome {
	OUTCOME_CORRECT,     /* a round passed verify on a GPU */
	OUTCOME_INCORRECT,   /* rounds ran on a GPU, none passed */
	OUTCOME_UNVERIFIED,  /* a round built, no GPU was there to run it */
	OUTCOME_NO_CODE,     /* no round built */
	OUTCOME_UNKNOWN
};
const char *outcomename(enum outcome o);
enum outcome outcomeof(const json_t *record);

#endif
