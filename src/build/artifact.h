/*
 * artifact.h - judge the built candidate, not only its text: compile runs
 * these checks on cand.so after nvcc, and refuses what the screen's text
 * rules cannot see (names built at run time, token pasting, asm). The
 * rules: imports (an allowlist of undefined dynamic symbols), needed (the
 * shared libraries), exports (nothing that shadows the runtime's or the C
 * library's names), initializers (no load-time code but the compiler's),
 * syscalls (no system call instruction). A spec's allow: widens the
 * import allowlist. Each violation names its rule, with stage "object";
 * doc/verification.md (Before the GPU: compile) gives each rule.
 */
#ifndef RETORT_ARTIFACT_H
#define RETORT_ARTIFACT_H

#include <jansson.h>

/* the violations (a JSON array; empty when clean), or NULL with err when
 * the file cannot be read as a 64-bit ELF shared object or objdump could
 * not disassemble it. reserved: what reservednames gives */
json_t *artifactcheck(const char *so, json_t *reserved, json_t *allow, char *err, size_t cap);
/* the names the C library, the CUDA runtime and the driver export (an
 * object with those keys): what a candidate may not define or export */
json_t *reservednames(const char *cuda);

#endif
