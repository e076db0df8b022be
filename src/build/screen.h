/*
 * screen.h - compile's static screen: a fast first filter over a
 * candidate's source, and the source of the teacher's feedback on what
 * the contract does not allow. It is a filter, not proof: the built
 * object is judged too (artifact.h), the harness watches the runtime
 * calls (src/runtime/guard.c) and locks itself down, and verify and
 * bench check every output.
 *
 * It reads the source as the compiler does: preprocessed by nvcc, for
 * the device and for the host (nvcc.h), so that macros, token pasting,
 * digraphs, line splices and comments cannot hide a name; only the lines
 * the preprocessor attributes to the candidate's own file are screened
 * (line numbers are its own), and every file that file includes is named
 * by its linemarker. Rules, each named in the record:
 *   entry_point  the host function the task asks for, extern "C"
 *   kernel       a __global__ kernel, launched
 *   library      cuBLAS, cuDNN, Thrust, CUB, CUTLASS, ... (headers or names)
 *   host_compute host-side copies of device data, managed or pinned memory
 *   process, network, file_io, environment, threads, timing, streams,
 *   device_state the calls those words say, by name
 *   interposition  load-time code (constructor attributes, .init_array
 *                sections) or a definition of a C library function's name
 *   include      a header outside the CUDA toolkit and the allowed parts of
 *                the C/C++ standard library, or a #line that renames the file
 *   asm          inline asm outside device code
 * A spec may allow library, host_compute, timing, streams, threads or asm.
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
