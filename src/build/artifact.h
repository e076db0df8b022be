/*
 * artifact.h - judge the built candidate, not only its text: compile runs
 * these checks on cand.so after nvcc, and refuses what the screen's text
 * rules cannot see (names built at run time, token pasting, asm):
 *
 *   imports      every undefined dynamic symbol is on the allowlist: the
 *                CUDA runtime calls the task contract permits (launches,
 *                device memory, copies to the device, attributes and
 *                occupancy queries, errors), and the C and C++ runtime's
 *                basics (memory, strings, printing, math, exceptions). No
 *                dlopen, dlsym or driver entry points, no threads, files,
 *                sockets, processes or timers, no events, streams or
 *                graphs, no host copies of device data, no cudaMemGetInfo.
 *   needed       shared libraries only of the CUDA runtime, libc, libm,
 *                libstdc++ and libgcc_s
 *   exports      no exported symbol that shadows a CUDA runtime, driver or
 *                C library name (they would interpose on the harness's)
 *   initializers no code at load time beyond nvcc's registration and the
 *                compiler's own frame_dummy: .init_array may hold nothing
 *                else, .preinit_array nothing, .init only the crt stub
 *   syscalls     no syscall, sysenter or int 0x80 instruction in host code
 *                (objdump's disassembly)
 *
 * The rules a spec allows (allow: timing, streams, threads, host_compute,
 * library) widen the import allowlist to match. Each violation names its
 * rule, as the screen's do, with stage "object".
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
