/*
 * feedback.h - what the teacher is told about a round, from that round's
 * compile, verify and bench records: the screen's violations (at most
 * FEEDBACK_MAX_VIOLATIONS listed), nvcc's errors, a compile time-out,
 * verify's mismatches or crash, bench's timings with a request to go
 * faster. query-llm sends it in the next round's repair message; record
 * keeps it in the dataset, for a last round too (what would have been
 * sent). One owner, so the two cannot disagree.
 */
#ifndef RETORT_FEEDBACK_H
#define RETORT_FEEDBACK_H

#include <jansson.h>

enum { FEEDBACK_MAX_VIOLATIONS = 10 };

/*
 * The feedback on a round (malloc'd; "" when there is nothing to say).
 * comp, ver and bench may be NULL (a stage that did not run); task gives
 * target_speedup. *finished is set when the round ends the sample:
 * correct and fast enough (or nothing to be faster than), or no GPU to
 * check on.
 */
char *roundfeedback(const json_t *task, const json_t *comp, const json_t *ver, const json_t *bench,
                    int *finished);

#endif
