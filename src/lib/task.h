/*
 * task.h - the task ABI: what one task variant is, as gen writes it into
 * out/v/<variant>/task.json and compile, prepare, verify and bench read it
 * (through taskload, which checks the version; query-llm and record read
 * only its prompt and bookkeeping keys), and the C that follows from it:
 * the entry point's and the reference's signatures, their C types, and
 * the generated call of either. doc/specs.md (task.json) lists the keys.
 */
#ifndef RETORT_ABI_H
#define RETORT_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util.h"

enum { ARG_IN, ARG_OUT, ARG_INOUT, ARG_SIZE, ARG_SCALAR, ARG_KINDS };
/* args in all (a whole network's parameters are inputs: KernelBench's
 * ResNet101 takes 524); of them at most MAXSIZEARGS size args (the hidden
 * cases' domain relates every pair) and as many scalar args */
enum { MAXARGS = 1024, MAXSIZEARGS = 32, MAXDIMS = 8 };

/* "in", "out", "inout", "size", "scalar", then NULL */
extern const char *const argkinds[ARG_KINDS + 1];
int argkindfind(const char *name);

struct targ {
	char name[64];
	int kind;
	int dt;                      /* tensor.h dtype */
	int ndists, dists[8], special;
	double off[2], scale[2];     /* inputs: every other run's offset and scale drawn from these; 0 0, 1 1 */
	double rel_norm, rtol, atol; /* outputs: tolerances */
	const json_t *shape;         /* tensors: the shape's expressions (task.json's strings), else NULL */
};

struct tcase {
	int nsizes, nscalars;
	int64_t sizes[MAXARGS];      /* size args, in order */
	double scalars[MAXARGS];     /* scalar args, in order: their values */
	int64_t numel[MAXARGS];      /* per arg; 0 for sizes and scalars */
	int64_t dims[MAXARGS][MAXDIMS];
	int ndims[MAXARGS];
	double lo[MAXARGS], hi[MAXARGS]; /* inputs' ranges; a randomized scalar's (lo < hi) */
	double flops, bytes;
	char label[256];             /* "rows=37, cols=4096" */
	int hidden;                  /* one of the cases not shown in the prompt */
	int slot;                    /* a pool case's slot (its alternatives share it), else -1 */
};

struct task {
	json_t *json;
	const char *id, *entry, *signature;
	int nargs;
	struct targ args[MAXARGS];
	int nverify, nbench, nhidden, npool;
	struct tcase *verify, *bench, *hidden;
	struct tcase *pool;          /* the small hidden cases' alternatives: verify picks a slot's one per candidate */
};

/* task.json's case lists, in the order verify runs them: "verify",
 * "hidden" (the sizes the prompt does not list), "bench" */
enum { SET_VERIFY, SET_HIDDEN, SET_BENCH, SET_COUNT };
extern const char *const casesets[SET_COUNT];
/* set s's cases, their number into *n */
const struct tcase *taskcases(const struct task *t, int s, int *n);

/* 0, or -1 with "PATH: what is wrong" in err */
int taskload(const char *path, struct task *t, char *err, size_t errlen);
/* the same from task.json's object j (t holds a reference; PATH names it in err) */
int taskfrom(struct task *t, json_t *j, const char *path, char *err, size_t errlen);
void taskfree(struct task *t);
/* a case from its task.json object (used for examples too) */
int caseload(const struct task *t, json_t *c, struct tcase *out, char *err, size_t errlen);

static inline int
istensor(const struct targ *a)
{
	return a->kind == ARG_IN || a->kind == ARG_OUT || a->kind == ARG_INOUT;
}

static inline int
isoutput(const struct targ *a)
{
	return a->kind == ARG_OUT || a->kind == ARG_INOUT;
}

static inline int
isinput(const struct targ *a)
{
	return a->kind == ARG_IN || a->kind == ARG_INOUT;
}

/* 1 when the task's reference is Python (reference_language), else 0 */
int taskpython(const struct task *t);
/* 1 when the task is a proposal (origin source teacher): its reference's
 * failures are the teacher's, recorded as data (prepare --reference, verify
 * --expected), not a bad spec that stops the build; else 0 */
int taskproposed(const struct task *t);
/* 1 when its baseline is Python (baseline {python}: baseline.py, PyTorch
 * on the GPU through src/runtime/pyharness.py), else 0 */
int taskbaselinepython(const struct task *t);

/* bytes of tensor i in case c, in its dtype */
size_t tbytes(const struct task *t, const struct tcase *c, int i);
/* bytes all of case c's tensors take, and its outputs in the reference types */
size_t casebytes(const struct task *t, const struct tcase *c);
size_t refoutbytes(const struct task *t, const struct tcase *c);
int ntensors(const struct task *t);

/* ---- the C side ---- */

/* one parameter, as gen and the tools both describe it */
struct abiarg {
	const char *name;
	int kind, dt;
};

/* the C type of a parameter in the entry point's (reference 0) or the
 * reference's (1) signature, without const or '*' */
const char *abitype(int kind, int dt, int reference);
/* "extern \"C\" void NAME(const float* x, ...)" or "void reference(...)" (malloc'd) */
char *abisignature(const struct abiarg *a, size_t n, const char *name, int reference);
/* the #include lines that declare the types of a's signature (abitype's;
 * stdint.h always), each header once: a source that ends with the
 * signature needs no more (compile appends it to a candidate's code), and
 * each of cuda_fp16.h, cuda_bf16.h and cuda_fp8.h costs a build about
 * 0.4 s (malloc'd) */
char *abiincludes(const struct abiarg *a, size_t n);
/* the body of the generated call: fn (the entry point or the reference)
 * called with ptrs[] (tensors in order), sizes[] and scalars[] */
void abicall(struct buf *b, const struct abiarg *a, size_t n);
/* a task's parameters as abiargs (a[] holds MAXARGS) */
size_t taskabi(const struct task *t, struct abiarg *a);

/* ---- the task as the teacher is shown it (query-llm's prompts), from
 * task.json's object (a proposal batch's request has no args: empty) ---- */

/* "def NAME(x, y, n)": the Triton entry point, its parameters the task's in order */
void taskpysignature(json_t *task, struct buf *b);
/* the args as a Markdown table: name, kind, dtype, shape */
void taskargstable(json_t *task, struct buf *b);
/* "- checked at: n=1; n=1000" and "- timed at: ...", a line each */
void tasksizes(json_t *task, struct buf *b);

#endif
