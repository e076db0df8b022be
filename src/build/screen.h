/*
 * screen.h - compile's static screen: a fast first filter over a
 * candidate's source, and the source of the teacher's feedback on what
 * the contract does not allow. It reads the source as the compiler does,
 * preprocessed by nvcc for the device and for the host (nvcc.h), and
 * screens only the lines the preprocessor attributes to the candidate's
 * own file. Each violation names its rule; a spec may allow library,
 * host_compute, timing, streams, threads or asm. It is a filter, not
 * proof: the built object is judged too (artifact.h), and the harness and
 * verify and bench check the rest. doc/verification.md (Before the GPU:
 * compile) gives the rules.
 */
#ifndef RETORT_SCREEN_H
#define RETORT_SCREEN_H

#include <stddef.h>

#include <jansson.h>

/* 1 when src (raw, n bytes) defines the function name */
int definesfn(const char *src, size_t n, const char *name);
/* the violations (a JSON array of {rule, line, message, stage}; empty
 * when clean) of the raw text's #include lines: a quick first pass */
json_t *screenraw(const char *src, size_t n, json_t *allow);
/* what a source is screened against: its entry point, the spec's allow
 * list, and reserved: the names a definition may not take (an object
 * whose keys are the C library's and the CUDA runtime's exports) */
struct screenrules {
	const char *entry;
	json_t *allow, *reserved;
};
/* the same of FILE, given the device and host passes of its preprocessed
 * text */
json_t *screen(const char *devicei, const char *hosti, const char *file, const struct screenrules *rules);

#endif
