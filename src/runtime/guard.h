/*
 * guard.h - the CUDA runtime calls a candidate makes, seen at run time.
 * The harness exports its own definitions of the runtime calls that take
 * a stream, a copy direction or a destination (GUARD_EXPORTS, the
 * linker's list, which prepare writes beside harness.o), so the
 * candidate's references bind to them; each forwards to the real one.
 * Between guardbegin and guardend (the candidate's call) they enforce the
 * task contract. The first breach is kept for guardviolation, with the
 * rule named; the refused call returns cudaErrorNotPermitted.
 * doc/verification.md (The runtime guard) gives the rules.
 */
#ifndef RETORT_GUARD_H
#define RETORT_GUARD_H

#include <stddef.h>

/* every runtime call guard.c defines: a dynamic list for the linker */
#define GUARD_EXPORTS                                                                                              \
	"{\n\t__cudaLaunchKernel; __cudaLaunchKernel_ptsz; cudaLaunchKernel; cudaLaunchCooperativeKernel;\n"       \
	"\tcudaLaunchKernelExC; cudaMemcpy; cudaMemcpyAsync; cudaMemcpy2D; cudaMemcpy2DAsync;\n"                    \
	"\tcudaMemcpyToSymbol; cudaMemcpyToSymbolAsync; cudaMemset; cudaMemset2D; cudaMemsetAsync;\n"              \
	"\tcudaMallocAsync; cudaFreeAsync; cudaStreamSynchronize;\n};\n"

/* the real functions, resolved before the lockdown */
void guardinit(void);
void guardbegin(void);
void guardend(void);
/* 1 with the rule (streams, host_compute) and what happened, once per call */
int guardviolation(char *rule, size_t rcap, char *detail, size_t dcap);

#endif
