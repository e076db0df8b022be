/*
 * proto.h - the parent's side of the harness protocol: start a harness in
 * the sandbox, set up a case, call the entry point on inputs the harness
 * draws, fetch the outputs, hold and fetch copies, synchronize. verify and
 * bench speak the protocol only through this module; doc/verification.md
 * (The harness protocol) gives the commands.
 *
 * Every function returns 0 when the step went well, 1 when the candidate
 * failed it (r->verdict, one of the harness's verdicts, and r->why, a
 * sentence for the teacher), and -1 when the machine or this program did
 * (h->err says what; the tool exits 1 and the edge is retried).
 */
#ifndef RETORT_PROTO_H
#define RETORT_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "../lib/task.h"
#include "inputs.h"
#include "../lib/round.h"
#include "../jail/sandbox.h"

struct gpuinfo {
	char name[128], cc[16], lockdown[160];
	char launches[200];         /* a Python harness's launch check, as its lock said */
	char uuid[64];              /* as the harness's CUDA runtime reported it */
	char device[64];            /* the leased slot's device, as CUDA_VISIBLE_DEVICES names it */
	long l2;
	int sms, driver, runtime;
	int slot;                   /* the lease (sandbox.h gpulock) */
};
json_t *gpujson(const struct gpuinfo *g);

struct harness {
	struct child ch;
	char err[1024];             /* what failed where a step returned -1 (ours, not the candidate's) */
	struct gpuinfo gpu;
	const struct task *t;
	const struct tcase *c;      /* the case set up */
	size_t outoff[MAXARGS];     /* where each output comes back in shared memory */
	int holds, timeout, calls;
	int nohold;                 /* its cases hold no copies of calls (verify's: bench sets its own case up) */
	int open, wrapped;          /* started with HOPEN, under a wrapper */
	int python;                 /* a Python entry point, through pyharness.py */
	int gated;                  /* set before hspawn: a Python harness loads (Python, torch, its
	                             * source) and then waits for hgo before it touches the GPU; a
	                             * CUDA candidate's starts the driver, then waits before its
	                             * context and its object */
	int adopted;                /* hadopt's: started, and ready, in the process that execed this one */
	int early;                  /* spawned gated before the GPU lease (hearlyok): hgo, then hready */
	int waits;                  /* hwait's "wait" lines whose reply is unread (hready skips it) */
	double sent;                /* when the call awaiting its reply was sent (its wall_ms) */
	int unsent;                 /* the command awaiting its reply was not sent: UNSENT_* */
	char waited[256];           /* what the last "waiting" reply said the harness had done at its gate */
};

struct hres {
	enum status verdict;        /* ST_NONE: fine (round.h) */
	char why[2048];
	double event_ms, host_ms;   /* the harness's figures for a call */
	double wall_ms;             /* the parent's: from the command sent to the reply read */
	uint64_t hash;              /* of the call's outputs, as the harness computed it */
};

/* shared memory enough for the outputs of any of the n cases */
size_t hshmbytes(const struct task *t, const struct tcase *cases, int n);
/* bench's layout of it at case c: a call's outputs, page-rounded (the
 * stride), then room for every kept call's (hholds), a stride each; all
 * of it (verify --bench makes it so for the harness it hands bench) */
size_t hstride(const struct task *t, const struct tcase *c);
size_t hbenchshm(const struct task *t, const struct tcase *c);
/* the memory a case leaves the candidate (4 x its tensors + 2 GiB, and
 * HROOM_MIB for the two CUDA contexts hctx may make beside it: its
 * oracle's and the harness on deck), and how many held copies of its
 * outputs it gets (16, fewer when they would take more than 4 GiB, at
 * least 4): the same in verify and bench */
size_t hkeep(const struct task *t, const struct tcase *c);
enum { HROOM_MIB = 1536 };
int hholds(const struct task *t, const struct tcase *c);
enum { HOLDS_MAX = 16 };
/* the GPU oracle: baseline.so (a Python baseline's baseline.py) beside
 * BASELINE_JSON (baseline, loaded) when its "oracle" says verify
 * --baseline found it sound, else NULL (malloc'd) */
char *horacle(const struct task *t, json_t *baseline, const char *baselinepath);
/* what compile built beside COMPILE_JSON (compile, loaded): cand.so, or a
 * Python candidate's cand.py (its "lang" is not cuda) (malloc'd) */
char *hcandidate(json_t *compile, const char *compilepath);

/* the harness's extra argument for trusted code (the spec's baseline: its
 * libraries, cuBLAS and cuDNN, open parts of themselves on first use) and
 * for compute-sanitizer: no lockdown; and its cases are not fenced and
 * hold no copies (what keeps a candidate's phases alike and its outputs
 * checkable is not needed there, and costs time: the fence alone 0.4 s) */
#define HOPEN "open"
/* the same for trusted code being timed as the baseline (bench --baseline):
 * a Python baseline's matmuls and convolutions then run in TF32, as
 * KernelBench-Verified times PyTorch; with HOPEN (the baseline as the
 * oracle: verify --baseline, bench's checks) they run in full f32. A C
 * harness gets HOPEN for either. */
#define HOPENTF32 "open-tf32"

/* Python entry points: SO a .py file (a Triton candidate's, a Python
 * baseline's) runs through src/runtime/pyharness.py, in the GPU's
 * Python environment ENV (read-only at JAILVENV in the sandbox; NULL or
 * "": none, and such an SO cannot start) with the runtime's shared object
 * in DIR (prepare --runtime: runtime/py); HARNESS is then not used. The
 * protocol is the same; the lockdown comes at hlock. Where
 * DIR/pycache holds ENV's bytecode (prepare --runtime --gpu-python ENV;
 * its file env names ENV) the sandbox binds it at JAILPYC for Python's
 * pycache_prefix */
void hpython(const char *env, const char *dir);
int hispython(const char *so);
#define OPTS_PYTHON(env, dir) \
	{ "--gpu-python", "DIR", OPT_STR, env, 0, 0, "the GPU's Python environment (torch, triton), for Python entry points" }, \
	{ "--python-harness", "DIR", OPT_STR, dir, 0, 0, "the Python harness's runtime (default out/runtime/py)" }

/* what to start is sandbox.h's struct childprog, whose seconds is here
 * the time a step may take (the harness's CPU limit follows from it);
 * extra: HOPEN, HOPENTF32 or NULL */
/* start a harness: hstart is hshm (the shared memory outputs come back
 * through, SHM bytes, the first made bytes of its pages made on all CPUs:
 * do it before taking the GPU; the rest is made as it is first used),
 * hspawn (the process started), hready (its first reply read) and hpin of
 * all of it: between hspawn and hready the caller may do other work while
 * the harness loads. Each harness has shared memory of its own (bench's
 * oracle never shares the candidate's) */
int hstart(struct harness *h, const struct task *t, const struct childprog *l, size_t shm, struct hres *r);
int hshm(struct harness *h, const struct task *t, size_t shm, size_t made);
int hspawn(struct harness *h, const struct childprog *l);
int hready(struct harness *h, struct hres *r);
/* a gated harness may go on (to its CUDA context, a CUDA candidate's to
 * its shared object too, then hready's reply):
 * 0, or -1 when it had ended while it waited (childstop it; nothing of
 * the candidate's has run then: start another). Not gated: 0 */
int hgo(struct harness *h);
/* a gated harness makes its CUDA context now, before hgo (a Python one
 * too, before the candidate's module loads): only where the caller has
 * room for it beside the lease holder's fence, the lease holder's own
 * oracle, or the one harness on deck (gpudeck). 0, or -1 when it has
 * ended (hgo then says so) */
int hctx(struct harness *h);
/* a gated harness done with what it does before its gate (a Python
 * candidate's kernels compiled: pyharness.py's warm; the context hctx
 * asked for): 0 once it says so (what it said in h->waited), -1 when it
 * did not within seconds (its reply then comes later, and hready skips
 * it) or has ended (hgo then says so). Not gated: 0 */
int hwait(struct harness *h, double seconds);
/* 1 when this host has CPUs to spare beside another edge's timed calls
 * (the load average at most the CPUs less 2, and at least 4): loading a
 * harness beside them would otherwise slow what the parent's clock
 * measures */
int sparecpus(void);
/* whether a harness may start before the GPU lease, gated (a Python
 * one's interpreter and torch loading, a CUDA one's driver, while
 * another edge holds the GPU): one
 * GPU slot, so its device is known; not a scheduler's step, whose lease
 * is the whole step; CPUs to spare */
int hearlyok(int gpus);
int hcase(struct harness *h, const struct tcase *c, struct hres *r);
int hcall(struct harness *h, int group, int noop, const struct runin *in, struct hres *r);
/* each in two halves, the command sent and its reply read, the caller's
 * CPU work between them (verify judges the last run meanwhile): a send's
 * failure shows at the wait, as hcase's or hcall's would; one command
 * unanswered at a time */
enum { UNSENT_GONE = 1, UNSENT_NOROOM };
void hcasesend(struct harness *h, const struct tcase *c);
int hcasewait(struct harness *h, struct hres *r);
void hcallsend(struct harness *h, int group, int noop, const struct runin *in);
int hcallwait(struct harness *h, struct hres *r);
/* group's outputs into shared memory (at outoff) */
int hfetch(struct harness *h, int group, struct hres *r);
int hhold(struct harness *h, int group, int slot, struct hres *r);
/* held copy slot into shared memory at off (a multiple of 64) */
int hfetchhold(struct harness *h, int slot, size_t off, struct hres *r);
/* the oracle's copy of the candidate's held slot (himport) into shared memory at off */
int hfetchimported(struct harness *h, int slot, size_t off, struct hres *r);
int hsync(struct harness *h, struct hres *r);
/* a Python harness locks itself down now (its first call of each case
 * has run: Triton has compiled its kernels); h->gpu.lockdown then says
 * what it got, and h->gpu.launches its launch check. A C harness locked
 * itself at its start and says so again */
int hlock(struct harness *h, struct hres *r);
/* the shared memory pinned up to len (from where the last pin ended):
 * before the copies to and from it that should run fast */
int hpin(struct harness *h, size_t len, struct hres *r);
/* every comparestep-th element of output arg of group 0 (compare.h), to
 * shared memory at off: all the CPUs need of it for comparetolssampled
 * when the device compares it */
int hsample(struct harness *h, int arg, size_t off, struct hres *r);
/* the held copies' device memory, a descriptor for it (*fd, the caller's
 * to close) and the bytes of one slot there, as the harness laid them
 * out; 1 where the device cannot share it or the harness failed
 * (r->verdict: crash, or sandbox for a reply that is not the harness's;
 * the caller fetches them instead of a crash). The oracle's harness copies
 * len bytes of it into its own device memory with himport (1: refused, or
 * the oracle failed; the caller fetches); the caller then ends the
 * candidate's harness */
int hexport(struct harness *h, int *fd, size_t *slot, struct hres *r);
int himport(struct harness *h, int fd, size_t len, struct hres *r);
/* output arg of group 0 against the bytes at off in shared memory (ipc:
 * in the copies himport made), on the device, by draw.h's element rule with tols' atol and rtol (compare.h's
 * comparetols or comparetolssampled): the wrong elements counted and the sums of squares over
 * the finite pairs, for comparefrom, and those bytes' share of hhash (only
 * trusted code's harness, the oracle's, is asked) */
struct cmpsums; /* draw.h's */
int hcompare(struct harness *h, int ipc, int arg, size_t off, const struct targ *tols, struct hres *r,
             struct cmpsums *sums, uint64_t *hash);
/*
 * verify --bench hands the candidate's harness, ready, its last call
 * answered, to bench in the same process (exec), with the GPU lease:
 * hhandover writes what bench's --harness-from gets (three lines: the
 * child (sandbox.h childhandover); the calls it made, the lease's
 * descriptor, its slot and since, the now() from which bench counts the
 * GPU's time as its own; its ready line) and leaves the
 * descriptors open across exec; -1 where it cannot (a trusted, wrapped or
 * gated harness, a reply unread, the child gone: the caller stops it).
 * hadopt takes it back in bench (SO for its kind, timeout its own):
 * *lockfd the lease (h->gpu.slot its slot), *since when it was handed
 * over (that time counts as the GPU's). 0; 1 when the harness had ended
 * meanwhile (the lease is still the caller's; hstop h, then start one of
 * its own); -1 with h->err, not a handed-over harness (hstop h too).
 */
int hhandover(struct harness *h, int lockfd, double since, char *out, size_t cap);
int hadopt(struct harness *h, const struct task *t, const char *so, int timeout, const char *spec, int *lockfd,
           double *since);
/* killed, its process group with it, at once (hstop then reaps it): for a
 * candidate's harness whose work is done, so that none of its code runs on
 * while what it gave is judged */
void hkill(struct harness *h);
/* the harness ended (its wait status; 0 once it had been stopped) */
int hstop(struct harness *h);
/* told to quit (its commands' pipe closed, its shared memory unmapped)
 * and moved to *to, which hstop reaps later: the parent does not wait in
 * the lease for its process's end (its CUDA context's teardown, some
 * 0.1 s). For an oracle's harness whose work is done (trusted, never
 * fenced), or a candidate's that gave its fence back (export) and was
 * killed (hkill). h is left stopped */
void hretire(struct harness *h, struct harness *to);
/* take the shared memory from the harness: it stays mapped after hstop
 * (when nothing can change it any more) until the caller unmaps it */
unsigned char *htakeshm(struct harness *h, size_t *len);

/* output arg i as fetched at off (0 for hfetch); the hash of the outputs
 * fetched to base (the shared memory plus their offset, taken or not), as
 * the harness computes it, so that a held copy can be checked against its
 * call, on the CPUs */
const void *houtput(const struct harness *h, size_t off, int i);
uint64_t hhash(const struct harness *h, const unsigned char *base);

#endif
