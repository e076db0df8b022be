/*
 * compile - from a teacher's answer to a built candidate
 *
 * usage: compile [options] -o COMPILE_JSON TASK_JSON RESPONSE_JSON
 *        compile --screen FILE.cu --entry NAME [--allow RULE,...]
 *        compile --harness -o BINARY TASK_JSON
 *        compile --reference -o BINARY TASK_JSON
 *        compile --baseline -o BASELINE_SO TASK_JSON
 *
 * Candidate mode: takes the CUDA source out of the answer (fenced code
 * blocks: the last one that defines the entry point, else the last C/CUDA
 * one; which block and why is recorded), runs the static screen, then nvcc
 * into a shared object that the harness loads. Writes COMPILE_JSON and,
 * next to it, cand.so (empty when there is no built candidate). Every
 * failure of the candidate is a recorded status, exit 0:
 *   no_code         no usable code block (the reason says why)
 *   screen_failed   the static screen refused it (violations, each named)
 *   compile_error   nvcc failed (trimmed diagnostics, paths relative)
 *   timeout         nvcc ran past --time-limit
 *   ok              built: resources per kernel from ptxas
 *   done            the response was a "done" round: nothing to build
 *
 * The screen's rules: entry_point, kernel, library, host_compute, process,
 * network, file_io, environment, threads, timing, interposition, streams,
 * device_state, include, asm. A spec may allow library, host_compute,
 * timing, streams, threads or asm. It is a filter, not proof: verify is.
 *
 * Builds are cached by sha256 of (source, flags, nvcc version, arch) in
 * CACHE/build: an identical candidate never compiles twice.
 *
 * --harness writes the per-variant child program that verify and bench
 * run in the sandbox (tools/lib/harness.c plus the generated call of the
 * entry point); --reference the per-variant CPU reference program
 * (tools/lib/refrun.c, tools/lib/tensor.c, the spec's reference and the
 * generated call). Both are built once per variant with the C compiler.
 * --baseline builds the spec's baseline (nvcc, with its libraries) into a
 * shared object the harness times like a candidate; when it does not
 * build (a library missing on this machine), the .so is left empty and
 * the reason is in BASELINE_SO.log: bench then reports no speedup.
 *
 * options:
 *   -o FILE            output
 *   --nvcc PATH        nvcc (default: nvcc)
 *   --arch SM          sm_90, sm_90a, ... (default sm_90)
 *   --cache-dir DIR    build cache (default: no cache)
 *   --time-limit S     nvcc wall-clock limit (default 120; a baseline, with
 *                      its libraries to link, gets three times as long)
 *   --mem-limit MB     nvcc address-space limit (default 8192)
 *   --cudart KIND      shared or static (default shared)
 *   --cc CC            C compiler for --harness, --reference (default cc)
 *   --lib DIR          retort's tools/lib (default tools/lib)
 *   --cuda DIR         CUDA toolkit root (default: from nvcc's path)
 *   --no-screen        skip the static screen (the GPU test suite uses it to
 *                      show what the sandbox and verify catch on their own)
 *   -h, --help
 *
 * Exit: 0 written (whatever became of the candidate); 1 cannot run nvcc or
 * write; 2 bad usage or input.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/sha.h"
#include "lib/tensor.h"
#include "lib/util.h"

static const char usage[] =
	"usage: compile [--nvcc PATH] [--arch SM] [--cache-dir DIR] [--time-limit S]\n"
	"               [--mem-limit MB] [--cudart shared|static] [--no-screen]\n"
	"               -o COMPILE_JSON TASK_JSON RESPONSE_JSON\n"
	"       compile --screen FILE.cu --entry NAME [--allow RULE,...]\n"
	"       compile --harness [--cc CC] [--lib DIR] [--nvcc PATH] [--cuda DIR] -o BINARY TASK_JSON\n"
	"       compile --reference [--cc CC] [--lib DIR] -o BINARY TASK_JSON\n"
	"       compile --baseline [--nvcc PATH] [--arch SM] [--cudart shared|static] [--time-limit S]\n"
	"               [--mem-limit MB] -o BASELINE_SO TASK_JSON\n";

enum {
	MAX_ANSWER = 2 << 20,    /* answers larger than this are refused */
	MAX_BLOCK = 512 << 10,   /* and code blocks larger than this */
	MAX_LOG = 256 << 10,     /* nvcc output kept */
	MAX_DIAG = 6000,         /* diagnostics shown to the teacher */
};

struct opts {
	const char *out, *nvcc, *arch, *cachedir, *cudart, *cc, *lib, *cuda;
	int timelimit, memlimit, noscreen;
};

/* ------------------------------------------------------------ extraction */

struct block {
	const char *start;  /* first line of code */
	size_t len;
	char lang[32];
	int line;           /* 1-based line of the opening fence */
	int closed;
};

/* the fenced code blocks of markdown text (``` or ~~~, CommonMark-style) */
static size_t
findblocks(const char *text, struct block *b, size_t max)
{
	const char *p = text;
	size_t n = 0;
	int line = 1;

	while (*p && n < max) {
		const char *eol = strchr(p, '\n'), *q = p;
		int indent = 0, fence = 0;
		char ch;

		if (!eol)
			eol = p + strlen(p);
		while (*q == ' ' && indent < 4)
			q++, indent++;
		ch = *q;
		if (indent < 4 && (ch == '`' || ch == '~')) {
			while (q[fence] == ch)
				fence++;
		}
		if (fence >= 3) {
			const char *info = q + fence, *c;
			size_t k = 0;
			memset(&b[n], 0, sizeof b[n]);
			while (info < eol && isspace((unsigned char)*info))
				info++;
			while (info < eol && !isspace((unsigned char)*info) && *info != '{' && k < sizeof b[n].lang - 1)
				b[n].lang[k++] = (char)tolower((unsigned char)*info++);
			b[n].line = line;
			b[n].start = *eol ? eol + 1 : eol;
			/* the closing fence: the same character, at least as long */
			for (c = b[n].start; *c;) {
				const char *e2 = strchr(c, '\n'), *r = c;
				int ind = 0, f2 = 0;
				if (!e2)
					e2 = c + strlen(c);
				line++;
				while (*r == ' ' && ind < 4)
					r++, ind++;
				while (r[f2] == ch)
					f2++;
				if (ind < 4 && f2 >= fence) {
					const char *t = r + f2;
					while (t < e2 && isspace((unsigned char)*t))
						t++;
					if (t == e2) {
						b[n].len = (size_t)(c - b[n].start);
						b[n].closed = 1;
						p = *e2 ? e2 + 1 : e2;
						break;
					}
				}
				c = *e2 ? e2 + 1 : e2;
			}
			if (!b[n].closed) { /* an answer cut off mid-block */
				b[n].len = strlen(b[n].start);
				p = b[n].start + b[n].len;
			}
			n++;
			continue;
		}
		line++;
		p = *eol ? eol + 1 : eol;
	}
	return n;
}

static int
codelang(const char *lang)
{
	static const char *const ok[] = { "", "cuda", "cu", "cuh", "c++", "cpp", "cxx", "cc", "c",
	                                  "hpp", "h", "nvcc", NULL };
	const char *const *k;

	for (k = ok; *k; k++)
		if (!strcmp(*k, lang))
			return 1;
	return 0;
}

/* ----------------------------------------------------------- the screen */

/*
 * The screen reads a copy of the source with comments and string and
 * character literals blanked (newlines kept, so line numbers hold), except
 * that the literal "C" of extern "C" survives.
 */
static char *
blank(const char *src, size_t n)
{
	char *s = xstrndup(src, n);
	size_t i = 0;

	while (i < n) {
		if (s[i] == '/' && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				s[i++] = ' ';
		} else if (s[i] == '/' && s[i + 1] == '*') {
			s[i++] = ' ';
			s[i++] = ' ';
			while (i < n && !(s[i] == '*' && s[i + 1] == '/')) {
				if (s[i] != '\n')
					s[i] = ' ';
				i++;
			}
			if (i < n)
				s[i++] = ' ', s[i++] = ' ';
		} else if (s[i] == '"' || s[i] == '\'') {
			char q = s[i];
			size_t j = i + 1;
			if (q == '"' && s[j] == 'C' && s[j + 1] == '"') {
				i += 3;
				continue;
			}
			while (j < n && s[j] != q && s[j] != '\n') {
				if (s[j] == '\\' && j + 1 < n)
					s[j++] = ' ';
				s[j++] = ' ';
			}
			i = j + 1;
		} else {
			i++;
		}
	}
	return s;
}

struct viol {
	json_t *list;
	json_t *allow;
};

static int
allowed(struct viol *v, const char *rule)
{
	size_t i;
	json_t *a;

	json_array_foreach(v->allow, i, a)
		if (!strcmp(json_string_value(a), rule))
			return 1;
	return 0;
}

static int
lineof(const char *s, const char *at)
{
	int line = 1;

	for (; s < at; s++)
		line += *s == '\n';
	return line;
}

static void
violate(struct viol *v, const char *rule, int line, const char *fmt, const char *arg)
{
	char msg[300];
	size_t i;
	json_t *e;

	if (allowed(v, rule))
		return;
	json_array_foreach(v->list, i, e) /* one per rule and line */
		if (!strcmp(jstr(e, "rule", ""), rule) && jint(e, "line", 0) == line)
			return;
	snprintf(msg, sizeof msg, fmt, arg);
	json_array_append_new(v->list, json_pack("{s:s,s:i,s:s}", "rule", rule, "line", line,
	                                         "message", msg));
}

static int
isid(int c)
{
	return isalnum(c) || c == '_';
}

/* the next whole-word occurrence of word in s (NULL when none) */
static const char *
findword(const char *s, const char *word)
{
	size_t n = strlen(word);
	const char *p = s;

	while ((p = strstr(p, word))) {
		if ((p == s || !isid((unsigned char)p[-1])) && !isid((unsigned char)p[n]))
			return p;
		p += n;
	}
	return NULL;
}

/* the next occurrence of prefix in s that does not continue an identifier */
static const char *
findprefix(const char *s, const char *base, const char *prefix)
{
	const char *p = s;

	while ((p = strstr(p, prefix)) && p > base && isid((unsigned char)p[-1]))
		p++;
	return p;
}

/*
 * Every use of each name: whole words, or prefixes for names ending in
 * '*' (cublas* matches cublasCreate).
 */
static void
banwords(struct viol *v, const char *s, const char *rule, const char *const *names, const char *why)
{
	const char *const *k;

	for (k = names; *k; k++) {
		size_t n = strlen(*k);
		int prefix = (*k)[n - 1] == '*';
		char pat[64], name[80];
		const char *p = s, *hit;

		snprintf(pat, sizeof pat, "%.*s", (int)(prefix ? n - 1 : n), *k);
		while ((hit = prefix ? findprefix(p, s, pat) : findword(p, pat))) {
			size_t m = 0;
			while (isid((unsigned char)hit[m]) || hit[m] == ':')
				m++;
			snprintf(name, sizeof name, "%.*s", (int)(m < 79 ? m : 79), hit);
			violate(v, rule, lineof(s, hit), why, name);
			p = hit + strlen(pat);
		}
	}
}

/*
 * A call of the global function name: the name followed by '(', and not a
 * member (x.name, p->name) or another namespace's (std::name).
 */
static const char *
findcall(const char *s, const char *name)
{
	const char *p = s;

	while ((p = findword(p, name))) {
		const char *q = p + strlen(name);
		int member = (p - s >= 1 && p[-1] == '.') || (p - s >= 2 && p[-1] == '>' && p[-2] == '-') ||
		             (p - s >= 2 && p[-1] == ':' && p[-2] == ':' && (p - s == 2 || isid((unsigned char)p[-3])));
		while (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (*q == '(' && !member)
			return p;
		p += strlen(name);
	}
	return NULL;
}

static void
bancalls(struct viol *v, const char *s, const char *rule, const char *const *names, const char *why)
{
	const char *const *k;

	for (k = names; *k; k++) {
		const char *p = s, *hit;
		while ((hit = findcall(p, *k))) {
			violate(v, rule, lineof(s, hit), why, *k);
			p = hit + strlen(*k);
		}
	}
}

/* headers a candidate may include: the C and C++ standard library parts
 * that do no I/O, threads or time, and the CUDA toolkit's own */
static int
headerok(const char *h)
{
	static const char *const std[] = {
		"assert.h", "math.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "float.h",
		"limits.h", "stddef.h", "stdbool.h", "inttypes.h", "stdarg.h", "errno.h", "cassert",
		"cmath", "cstdint", "cstdio", "cstdlib", "cstring", "cfloat", "climits", "cstddef",
		"cinttypes", "cstdarg", "cerrno", "algorithm", "array", "type_traits", "utility",
		"limits", "numeric", "tuple", "functional", "initializer_list", "iterator", "vector",
		"memory", "new", "string", "iostream", "sstream", "cstdbool", "complex", "bit",
		"cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "cuda_fp16.h", "cuda_bf16.h",
		"cuda_fp8.h", "cuda_fp16.hpp", "cuda_bf16.hpp", "cuda_fp8.hpp", "cuda_fp4.h",
		"cuda_fp6.h", "cooperative_groups.h", "mma.h", "vector_types.h", "vector_functions.h",
		"device_launch_parameters.h", "math_constants.h", "cuda_pipeline.h",
		"cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cuda_awbarrier_primitives.h",
		"sm_20_intrinsics.h", "sm_30_intrinsics.h", "sm_32_intrinsics.h", "sm_35_intrinsics.h",
		"sm_60_atomic_functions.h", "sm_61_intrinsics.h", "device_functions.h",
		"device_atomic_functions.h", "cuda_texture_types.h", "texture_fetch_functions.h",
		"cuda_device_runtime_api.h", "curand_kernel.h", "driver_types.h", "builtin_types.h",
		"host_defines.h", "cudaTypedefs.h", NULL
	};
	const char *const *k;

	if (strstr(h, "..") || h[0] == '/')
		return 0;
	if (!strncmp(h, "cooperative_groups/", 19) || !strncmp(h, "cuda/", 5) || !strncmp(h, "crt/", 4))
		return 1;
	for (k = std; *k; k++)
		if (!strcmp(*k, h))
			return 1;
	return 0;
}

static int
libheader(const char *h)
{
	static const char *const libs[] = { "cublas", "cudnn", "cusparse", "cufft", "cusolver", "curand.h",
	                                    "thrust/", "cub/", "cutlass", "cute/", "torch", "ATen",
	                                    "nccl", "nvrtc", "npp", NULL };
	const char *const *k;

	for (k = libs; *k; k++)
		if (!strncmp(h, *k, strlen(*k)))
			return 1;
	return 0;
}

/*
 * The definition of function name in s (comments and strings blanked):
 * a call-like use whose parameter list is followed by '{'. NULL if none.
 */
static const char *
finddef(const char *s, const char *name)
{
	const char *e = s;

	while ((e = findcall(e, name))) {
		const char *q = e + strlen(name), *b;
		int paren = 0;
		for (; *q; q++) { /* skip the parameter list */
			if (*q == '(')
				paren++;
			else if (*q == ')' && --paren == 0)
				break;
		}
		b = *q ? q + 1 : q;
		while (*b && *b != '{' && *b != ';' && *b != '(' && *b != ')')
			b++;
		if (*b == '{')
			return e;
		e += strlen(name);
	}
	return NULL;
}

static void
headerbefore(const char *s, const char *brace, char *hdr, size_t cap)
{
	const char *p = brace;
	size_t n;

	while (p > s && p[-1] != ';' && p[-1] != '}' && p[-1] != '{' && p[-1] != '#')
		p--;
	n = (size_t)(brace - p);
	snprintf(hdr, cap, "%.*s", (int)(n < cap - 1 ? n : cap - 1), p);
}

static const char *const interposed[] = {
	"malloc", "free", "calloc", "realloc", "memcpy", "memmove", "memset", "printf", "fprintf",
	"puts", "exit", "_exit", "abort", "atexit", "dlopen", "dlsym", "pthread_create", "clock_gettime",
	"gettimeofday", "time", "clock", "rand", "srand", "getenv", "write", "read", "open", "close",
	"mmap", "fork", NULL
};

/*
 * Screen the source; returns the violations (a JSON array, empty when
 * clean). entry is the function the spec asks for.
 */
static json_t *
screen(const char *src, size_t n, const char *entry, json_t *allow)
{
	struct viol v = { json_array(), allow };
	char *s = blank(src, n);
	const char *p;
	int depth = 0, devicedepth = -1, externc = 0;
	char hdr[1024];

	/* includes, from the original text (they are strings) */
	for (p = src; p < src + n;) {
		const char *eol = memchr(p, '\n', (size_t)(src + n - p)), *q = p;
		size_t len = eol ? (size_t)(eol - p) : (size_t)(src + n - p);
		while (q < p + len && (*q == ' ' || *q == '\t'))
			q++;
		if (*q == '#') {
			q++;
			while (q < p + len && (*q == ' ' || *q == '\t'))
				q++;
			if (!strncmp(q, "include", 7) || !strncmp(q, "import", 6) || !strncmp(q, "embed", 5)) {
				char name[256] = "";
				const char *a = q + (q[1] == 'n' && q[2] == 'c' ? 7 : q[1] == 'm' ? 6 : 5), *b;
				if (!strncmp(q, "include_next", 12))
					a = q + 12;
				while (a < p + len && (*a == ' ' || *a == '\t'))
					a++;
				if (a < p + len && (*a == '<' || *a == '"')) {
					char close = *a == '<' ? '>' : '"';
					b = memchr(a + 1, close, (size_t)(p + len - a - 1));
					if (b)
						snprintf(name, sizeof name, "%.*s", (int)(b - a - 1), a + 1);
				}
				if (!name[0])
					violate(&v, "include", lineof(src, q), "a computed or malformed #include: '%s'",
					        "only #include <header> or \"header\" is allowed");
				else if (libheader(name))
					violate(&v, "library", lineof(src, q), "includes the library header <%s>", name);
				else if (!headerok(name))
					violate(&v, "include", lineof(src, q), "includes <%s>, which is outside the CUDA "
					        "toolkit and the C/C++ standard library parts allowed here", name);
			} else if (!strncmp(q, "pragma", 6) && strstr(q, "omp")) {
				violate(&v, "threads", lineof(src, q), "%s", "uses OpenMP (#pragma omp)");
			}
		}
		p = eol ? eol + 1 : src + n;
	}

	/* the entry point and kernels */
	{
		const char *def = finddef(s, entry);
		if (!def)
			violate(&v, "entry_point", 1, "does not define the host function '%s' the task asks for", entry);
		else {
			/* extern "C": on the definition's line, or an enclosing extern "C" { } */
			const char *ls = def;
			int in = 0;
			while (ls > s && ls[-1] != ';' && ls[-1] != '}' && ls[-1] != '{')
				ls--;
			if (strstr(ls, "extern \"C\"") && strstr(ls, "extern \"C\"") < def)
				in = 1;
			{
				const char *x = s;
				while ((x = strstr(x, "extern \"C\"")) && x < def) {
					const char *y = x + 10;
					while (*y == ' ' || *y == '\n' || *y == '\t')
						y++;
					if (*y == '{')
						in = 1;
					x += 10;
				}
			}
			if (!in)
				violate(&v, "entry_point", lineof(s, def), "'%s' is defined without extern \"C\": "
				        "the harness looks it up by its unmangled name", entry);
		}
	}
	if (!findword(s, "__global__"))
		violate(&v, "kernel", 1, "%s", "defines no __global__ kernel: the work must run on the GPU");
	else if (!strstr(s, "<<<") && !findword(s, "cudaLaunchKernel") && !findword(s, "cudaLaunchKernelEx") &&
	         !findword(s, "cudaLaunchCooperativeKernel"))
		violate(&v, "kernel", 1, "%s", "never launches a kernel (no <<<...>>> or cudaLaunchKernel)");

	{
		static const char *const lib[] = { "cublas*", "cudnn*", "cusparse*", "cufft*", "cusolver*",
		                                   "curandCreateGenerator", "curandGenerate*", "thrust::*",
		                                   "cub::*", "cutlass::*", "cute::*", "torch::*", "at::*",
		                                   "c10::*", "nvrtc*", NULL };
		static const char *const hostc[] = { "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc",
		                                     "cudaHostRegister", "cudaMemcpyDeviceToHost",
		                                     "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", NULL };
		static const char *const proc[] = { "system", "popen", "fork", "vfork", "execl", "execlp",
		                                    "execle", "execv", "execvp", "execvpe", "execve", "posix_spawn",
		                                    "posix_spawnp", "dlopen", "dlsym", "dlmopen", "clone", "kill",
		                                    "ptrace", "syscall", "prctl", "mprotect", "signal", "sigaction",
		                                    "setjmp", "longjmp", "raise", NULL };
		static const char *const net[] = { "socket", "connect", "bind", "listen", "accept",
		                                   "gethostbyname", "getaddrinfo", "sendto", "recvfrom",
		                                   "curl_easy_init", NULL };
		static const char *const fio[] = { "fopen", "freopen", "fdopen", "open", "openat", "creat",
		                                   "mmap", "opendir", "unlink", "remove", "rename", "truncate",
		                                   "ftruncate", "chmod", "chdir", "mkdir", "symlink", NULL };
		static const char *const fiow[] = { "ofstream", "ifstream", "fstream", "filebuf", "filesystem",
		                                    NULL };
		static const char *const envw[] = { "getenv", "secure_getenv", "setenv", "putenv", "unsetenv",
		                                     "clearenv", "environ", NULL };
		static const char *const thr[] = { "pthread_create", "thrd_create", NULL };
		static const char *const thrw[] = { "std::thread", "std::jthread", "std::async", "tbb::*", NULL };
		static const char *const tim[] = { "cudaEvent*", "clock_gettime", "gettimeofday", "timespec_get",
		                                   "chrono", "__rdtsc", "rdtsc", "__rdtscp", NULL };
		static const char *const timc[] = { "clock", "clock64", "time", "times", NULL };
		static const char *const str[] = { "cudaStreamCreate*", "cudaStreamBeginCapture*",
		                                   "cudaStreamEndCapture", "cudaGraph*", "cudaLaunchHostFunc",
		                                   "cudaStreamAddCallback", "cudaStreamPerThread",
		                                   "cudaStreamNonBlocking", "cudaStreamAttachMemAsync",
		                                   "cudaStreamWaitEvent", NULL };
		static const char *const dev[] = { "cudaDeviceReset", "cudaSetDevice", "cudaIpc*",
		                                   "cudaDeviceSetLimit", "cudaThreadExit", NULL };
		banwords(&v, s, "library", lib, "uses a library (%s): write the kernel yourself");
		banwords(&v, s, "host_compute", hostc, "uses %s: the work must stay on the GPU, on the device "
		         "pointers the harness passes");
		bancalls(&v, s, "process", proc, "calls %s()");
		bancalls(&v, s, "network", net, "calls %s(): no network access");
		bancalls(&v, s, "file_io", fio, "calls %s(): no file access");
		banwords(&v, s, "file_io", fiow, "uses %s: no file access");
		banwords(&v, s, "environment", envw, "reads or changes the environment (%s)");
		bancalls(&v, s, "threads", thr, "calls %s(): no host threads");
		banwords(&v, s, "threads", thrw, "uses %s: no host threads");
		banwords(&v, s, "timing", tim, "uses a timer (%s): the harness does the timing");
		bancalls(&v, s, "timing", timc, "calls %s(): the harness does the timing");
		banwords(&v, s, "streams", str, "uses %s: launch on the default stream, no side streams or "
		         "graphs");
		banwords(&v, s, "device_state", dev, "uses %s: the harness owns the device");
		if (strstr(src, "globaltimer") || strstr(src, "%clock"))
			violate(&v, "timing", lineof(src, strstr(src, "globaltimer") ? strstr(src, "globaltimer")
			        : strstr(src, "%clock")), "%s", "reads a GPU timer register");
		if (strstr(src, "/proc/") || strstr(src, "/dev/") || strstr(src, "/etc/") || strstr(src, "/sys/"))
			violate(&v, "file_io", 1, "%s", "names a system path (/proc, /dev, /etc or /sys)");
	}
	if (strstr(s, "constructor") || strstr(s, "destructor") || strstr(s, "init_array") ||
	    strstr(s, "RTLD_NEXT") || strstr(src, "LD_PRELOAD"))
		violate(&v, "interposition", lineof(s, strstr(s, "constructor") ? strstr(s, "constructor")
		        : strstr(s, "destructor") ? strstr(s, "destructor") : s), "%s",
		        "runs code at load time or interposes symbols (constructor, init_array, RTLD_NEXT)");

	/* walk the braces: function definitions, device code, asm */
	for (p = s; *p; p++) {
		if (*p == '#') { /* a preprocessor line (and its continuations) */
			const char *ls = p;
			while (ls > s && (ls[-1] == ' ' || ls[-1] == '\t'))
				ls--;
			if (ls == s || ls[-1] == '\n') {
				while (*p && !(*p == '\n' && p[-1] != '\\'))
					p++;
				if (!*p)
					break;
				continue;
			}
		}
		if (*p == '{') {
			headerbefore(s, p, hdr, sizeof hdr);
			if (depth == externc && strchr(hdr, '(')) {
				/* a function definition at file scope */
				char *paren = strchr(hdr, '('), *e = paren, name[128];
				size_t k;
				while (e > hdr && isspace((unsigned char)e[-1]))
					e--;
				k = 0;
				while (e > hdr && isid((unsigned char)e[-1]) && k < 100)
					e--, k++;
				snprintf(name, sizeof name, "%.*s", (int)k, e);
				if (name[0] && strcmp(name, entry)) {
					const char *const *w;
					int bad = (!strncmp(name, "cuda", 4) || (!strncmp(name, "cu", 2) && isupper((unsigned char)name[2])) ||
					           !strncmp(name, "nvml", 4) || !strncmp(name, "__cuda", 6));
					for (w = interposed; *w && !bad; w++)
						bad = !strcmp(*w, name);
					if (bad)
						violate(&v, "interposition", lineof(s, p), "defines %s(), which shadows a CUDA "
						        "or C library function", name);
				}
			} else if (depth == 0 && strstr(hdr, "extern \"C\"") && !strchr(hdr, '(')) {
				externc = 1; /* extern "C" { ... } */
			}
			/* a device function (or lambda) at any depth */
			if (devicedepth < 0 && strchr(hdr, '(') && (strstr(hdr, "__global__") || strstr(hdr, "__device__")))
				devicedepth = depth;
			depth++;
		} else if (*p == '}') {
			if (depth > 0)
				depth--;
			if (depth == devicedepth)
				devicedepth = -1;
			if (depth == 0)
				externc = 0;
		} else if ((p == s || !isid((unsigned char)p[-1])) &&
		           (!strncmp(p, "asm", 3) || !strncmp(p, "__asm__", 7) || !strncmp(p, "__asm", 5))) {
			const char *q = p + (p[0] == 'a' ? 3 : p[5] == '_' ? 7 : 5);
			if (!isid((unsigned char)*q) && devicedepth < 0)
				violate(&v, "asm", lineof(s, p), "%s", "inline asm outside device code: only PTX in "
				        "__device__ or __global__ functions is allowed");
		}
	}
	free(s);
	return v.list;
}

/* --------------------------------------------------------------- running */

/* nvcc, cc and rm: files up to 512 MiB, the log up to MAX_LOG */
static int
runlimited(char *const argv[], const char *dir, int seconds, long memmb, struct run *r)
{
	struct runlimits lim = { seconds, memmb, 512 };

	return runcapture(argv, dir, NULL, &lim, MAX_LOG, r);
}

/* nvcc's target: -arch=sm_90, or for arch-specific targets (sm_90a) the
 * -gencode form, which keeps their features */
static char *
archflag(const struct opts *o)
{
	if (strchr(o->arch + 3, 'a'))
		return xasprintf("-gencode=arch=compute_%s,code=sm_%s", o->arch + 3, o->arch + 3);
	return xasprintf("-arch=%s", o->arch);
}

static char *
nvccversion(const char *nvcc)
{
	char *argv[] = { (char *)nvcc, "--version", NULL };
	struct run r;
	char *v, *p;

	if (runlimited(argv, ".", 30, 4096, &r) < 0 || r.status != 0)
		die(EXIT_RETRY, "cannot run '%s --version'", nvcc);
	p = strstr(r.log.s, "release ");
	v = p ? xstrndup(p + 8, strcspn(p + 8, ",\n")) : xstrdup("unknown");
	p = strstr(r.log.s, "Build ");
	if (p) {
		char *full = xasprintf("%s (%.*s)", v, (int)strcspn(p + 6, "\n"), p + 6);
		free(v);
		v = full;
	}
	buffree(&r.log);
	return v;
}

/* ptxas -v lines into per-kernel resources */
static json_t *
resources(const char *log)
{
	json_t *arr = json_array(), *cur = NULL, *props = NULL;
	const char *p = log;

	/* ptxas -v, line by line: "Compiling entry function 'K'" starts K; its
	 * "Used N registers[, M bytes smem]" line follows; "Function properties
	 * for F" (any function) precedes F's "A bytes stack frame, B bytes spill
	 * stores, C bytes spill loads" line */
	while (*p) {
		const char *eol = strchr(p, '\n'), *info;
		char line[512], name[256];
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		int a, b, c;
		snprintf(line, sizeof line, "%.*s", (int)(n < 511 ? n : 511), p);
		p += eol ? n + 1 : n;
		info = strncmp(line, "ptxas info", 10) ? NULL : strchr(line, ':');
		if (info && sscanf(info, ": Compiling entry function '%255[^']'", name) == 1) {
			cur = json_pack("{s:s,s:i,s:i,s:i,s:i,s:i}", "kernel", name, "registers", 0, "shared_bytes", 0,
			                "stack_bytes", 0, "spill_stores", 0, "spill_loads", 0);
			json_array_append_new(arr, cur);
		} else if (info && sscanf(info, ": Function properties for %255s", name) == 1) {
			size_t i;
			json_t *k;
			props = NULL;
			json_array_foreach(arr, i, k)
				if (!strcmp(jstr(k, "kernel", ""), name))
					props = k;
		} else if (info && cur && sscanf(info, ": Used %d registers", &a) == 1) {
			const char *q = strstr(line, " bytes smem");
			json_object_set_new(cur, "registers", json_integer(a));
			if (q) {
				while (q > line && isdigit((unsigned char)q[-1]))
					q--;
				json_object_set_new(cur, "shared_bytes", json_integer(atoi(q)));
			}
		} else if (!info && props &&
		           sscanf(line, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &a, &b, &c) == 3) {
			json_object_set_new(props, "stack_bytes", json_integer(a));
			json_object_set_new(props, "spill_stores", json_integer(b));
			json_object_set_new(props, "spill_loads", json_integer(c));
			props = NULL;
		}
	}
	return arr;
}

/*
 * Bytes that are not UTF-8 become '?' (a character the cut above split,
 * source in another encoding), so that the diagnostics fit in JSON:
 * jansson refuses such a string, and the teacher would get none.
 */
static void
utf8fix(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		int k = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 : (*p & 0xF8) == 0xF0 ? 3 : -1;
		long cp = k == 1 ? *p & 0x1F : k == 2 ? *p & 0x0F : *p & 0x07;
		int i;
		for (i = 1; i <= k && (p[i] & 0xC0) == 0x80; i++)
			cp = cp << 6 | (p[i] & 0x3F);
		if (k < 0 || i <= k || (k == 1 && cp < 0x80) || (k == 2 && (cp < 0x800 || (cp >= 0xD800 && cp < 0xE000))) ||
		    (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
			*p++ = '?';
		else
			p += k + 1;
	}
}

/* nvcc's output for the teacher: no ptxas chatter, paths relative, capped */
static char *
diagnostics(const char *log, const char *dir)
{
	struct buf b;
	const char *p = log;
	size_t dl = strlen(dir);

	bufinit(&b, MAX_LOG);
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
		if (strncmp(p, "ptxas info", 10) && strncmp(p, "    ", 4) && n > 1) {
			const char *q = p;
			while (q < p + n) {
				if (!strncmp(q, dir, dl)) {
					q += dl;
					if (*q == '/')
						q++;
					continue;
				}
				bufputc(&b, *q++);
			}
		}
		p += n;
	}
	if (b.n > MAX_DIAG) {
		b.n = MAX_DIAG;
		b.s[b.n] = 0;
		bufputs(&b, "\n[... more diagnostics cut ...]\n");
	}
	utf8fix(b.s);
	return bufdetach(&b);
}

/* from's bytes into to, atomically, left alone when unchanged (restat) */
static int
copyfile(const char *from, const char *to)
{
	struct buf b;
	int r;

	bufinit(&b, (size_t)1 << 31);
	if (readfile(from, &b) < 0) {
		buffree(&b);
		return -1;
	}
	r = writefile(to, b.s, b.n);
	buffree(&b);
	return r < 0 ? -1 : 0;
}

static int
rmtree(const char *dir)
{
	char *argv[] = { "/bin/rm", "-rf", (char *)dir, NULL };
	struct run r;
	int rc = runlimited(argv, "/", 60, 1024, &r);

	buffree(&r.log);
	return rc;
}

/* ------------------------------------------------------- candidate mode */

/* the declarations appended after the candidate: nvcc then rejects a
 * definition whose parameter types differ from the spec's signature */
static char *
finalsource(const char *src, size_t n, json_t *task)
{
	return xasprintf("%.*s\n\n/* appended by retort: the signature the task asks for */\n"
	                 "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_fp8.h>\n"
	                 "#include <stdint.h>\n%s;\n", (int)n, src, jstr(task, "signature", ""));
}

static json_t *
buildcandidate(const struct opts *o, json_t *task, const char *src, size_t srclen, const char *sopath)
{
	char *full = finalsource(src, srclen, task), key[65], *dir = NULL, *tmpdir;
	char *version = nvccversion(o->nvcc), *flags, *keytext;
	json_t *rec;
	struct run r;
	char *arch = archflag(o);

	flags = xasprintf("%s -O3 -lineinfo -Xptxas -v -std=c++17 -shared -Xcompiler -fPIC -cudart %s", arch,
	                  o->cudart);
	free(arch);
	keytext = xasprintf("%s\n%s\n%s\n%s\n", full, flags, version, o->arch);
	sha256hex(keytext, strlen(keytext), key);
	free(keytext);

	/* a cached build of the same source, flags, nvcc and arch */
	if (o->cachedir) {
		char *res, err[512];
		json_t *hit;
		dir = xasprintf("%s/build/%.2s/%s", o->cachedir, key, key);
		res = xasprintf("%s/result.json", dir);
		if (access(res, F_OK) == 0 && (hit = jload(res, err, sizeof err))) {
			char *so = xasprintf("%s/cand.so", dir);
			int ok = strcmp(jstr(hit, "status", ""), "ok") || copyfile(so, sopath) == 0;
			free(so);
			free(res);
			if (ok) {
				free(full);
				free(version);
				free(flags);
				free(dir);
				return hit;
			}
			json_decref(hit);
		} else {
			free(res);
		}
	}

	/* build in a private folder; publish it into the cache by rename */
	tmpdir = o->cachedir ? xasprintf("%s/build/tmp.%ld", o->cachedir, (long)getpid())
	                     : xasprintf("%s.build", sopath);
	rmtree(tmpdir);
	if (mkdirp(tmpdir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", tmpdir);
	{
		char *cu = xasprintf("%s/cand.cu", tmpdir);
		if (writefile(cu, full, strlen(full)) < 0)
			die(EXIT_RETRY, "cannot write '%s':", cu);
		free(cu);
	}
	{
		char *argv[32], *copy = xstrdup(flags), *t, *save = NULL;
		int ac = 0;
		argv[ac++] = (char *)o->nvcc;
		for (t = strtok_r(copy, " ", &save); t && ac < 28; t = strtok_r(NULL, " ", &save))
			argv[ac++] = t;
		argv[ac++] = "-o";
		argv[ac++] = "cand.so";
		argv[ac++] = "cand.cu";
		argv[ac] = NULL;
		if (runlimited(argv, tmpdir, o->timelimit, o->memlimit, &r) < 0)
			die(EXIT_RETRY, "cannot run '%s':", o->nvcc);
		free(copy);
	}
	rec = json_pack("{s:s,s:s,s:s,s:f}", "nvcc_version", version, "flags", flags, "arch", o->arch,
	                "seconds", r.seconds);
	if (r.timedout) {
		json_object_set_new(rec, "status", json_string("timeout"));
		json_object_set_new(rec, "reason", json_sprintf("nvcc ran longer than %d s", o->timelimit));
	} else if (r.status != 0) {
		char *d = diagnostics(r.log.s, tmpdir);
		json_object_set_new(rec, "status", json_string("compile_error"));
		json_object_set_new(rec, "diagnostics", json_string(d));
		free(d);
	} else {
		char *so = xasprintf("%s/cand.so", tmpdir), *d = diagnostics(r.log.s, tmpdir);
		json_object_set_new(rec, "status", json_string("ok"));
		json_object_set_new(rec, "resources", resources(r.log.s));
		json_object_set_new(rec, "diagnostics", json_string(d)); /* warnings */
		if (copyfile(so, sopath) < 0)
			die(EXIT_RETRY, "cannot copy the built candidate to '%s':", sopath);
		free(so);
		free(d);
	}
	buffree(&r.log);
	if (o->cachedir && !r.timedout) { /* a timeout depends on --time-limit, not in the key */
		char *res = xasprintf("%s/result.json", tmpdir);
		if (jwrite(res, rec) < 0)
			die(EXIT_RETRY, "cannot write '%s':", res);
		free(res);
		if (mkparent(dir) < 0)
			die(EXIT_RETRY, "cannot create '%s':", dir);
		if (rename(tmpdir, dir) < 0) /* another process published it first: fine */
			rmtree(tmpdir);
	} else {
		rmtree(tmpdir);
	}
	free(tmpdir);
	free(dir);
	free(full);
	free(version);
	free(flags);
	return rec;
}

static int
candidate(const struct opts *o, const char *taskpath, const char *resppath)
{
	char err[512], *sopath;
	json_t *task = jload(taskpath, err, sizeof err), *resp, *rec = NULL, *viol;
	const char *text, *entry;
	struct block blocks[64];
	size_t nb, i, len;
	int pick = -1, defines = 0, others = 0;

	if (!task)
		die(EXIT_USAGE, "cannot read the task: %s", err);
	if (!(resp = jload(resppath, err, sizeof err)))
		die(EXIT_USAGE, "cannot read the response: %s", err);
	sopath = sibling(o->out, "cand.so");
	entry = jstr(task, "entry", "");
	text = jstr(json_object_get(resp, "answer"), "text", "");
	len = strlen(text);

	if (!strcmp(jstr(resp, "status", ""), "done")) {
		rec = json_pack("{s:s}", "status", "done");
		goto write;
	}
	if (len > MAX_ANSWER) {
		rec = json_pack("{s:s,s:s}", "status", "no_code", "reason", "the answer is larger than 2 MiB");
		goto write;
	}
	nb = findblocks(text, blocks, sizeof blocks / sizeof blocks[0]);
	for (i = 0; i < nb; i++) {
		char *b;
		if (!codelang(blocks[i].lang) || blocks[i].len > MAX_BLOCK) {
			others++;
			continue;
		}
		b = blank(blocks[i].start, blocks[i].len);
		if (finddef(b, entry)) {
			pick = (int)i;
			defines = 1;
		} else if (!defines) {
			pick = (int)i;
		}
		free(b);
	}
	if (pick < 0) {
		rec = json_pack("{s:s,s:s}", "status", "no_code", "reason",
		                nb == 0 ? "the answer has no fenced code block"
		                : others ? "no C/CUDA code block (the blocks are in other languages, or too large)"
		                         : "no usable code block");
		goto write;
	}
	{
		struct block *b = &blocks[pick];
		char why[300];
		snprintf(why, sizeof why, "block %d of %zu (%s)%s%s", pick + 1, nb, b->lang[0] ? b->lang : "no language",
		         defines ? " is the last that defines " : " is the last C/CUDA block; none defines ",
		         entry);
		rec = json_pack("{s:{s:i,s:i,s:s,s:s,s:i,s:b},s:s%}",
		                "block", "index", pick + 1, "count", (int)nb, "lang", b->lang, "why", why,
		                "line", b->line, "closed", b->closed, "source", b->start, b->len);
		{
			char h[65];
			sha256hex(b->start, b->len, h);
			json_object_set_new(rec, "source_sha256", json_string(h));
		}
		viol = o->noscreen ? json_array() : screen(b->start, b->len, entry, json_object_get(task, "allow"));
		json_object_set_new(rec, "violations", viol);
		if (json_array_size(viol)) {
			json_object_set_new(rec, "status", json_string("screen_failed"));
		} else {
			json_t *built = buildcandidate(o, task, b->start, b->len, sopath);
			json_object_update(rec, built);
			json_decref(built);
		}
	}
write:
	if (strcmp(jstr(rec, "status", ""), "ok") && writefile(sopath, "", 0) < 0)
		die(EXIT_RETRY, "cannot write '%s':", sopath);
	if (jwrite(o->out, rec) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(rec);
	json_decref(task);
	json_decref(resp);
	free(sopath);
	return 0;
}

/* -------------------------------------------- harness and reference mode */

/* the C type a size or scalar argument is passed as; NULL for a tensor */
static const char *
argctype(json_t *a)
{
	const char *kind = jstr(a, "kind", "");
	int dt = dtypefind(jstr(a, "dtype", "f32"));

	if (!strcmp(kind, "size"))
		return dt == DT_I64 ? "int64_t" : "int";
	if (!strcmp(kind, "scalar"))
		return !dtinfos[dt].isfloat ? dtinfos[dt].ctype : dt == DT_F64 ? "double" : "float";
	return NULL;
}

/* the C call of fn (the entry point or the reference) for this task */
static void
genericcall(struct buf *b, json_t *task)
{
	json_t *a;
	size_t i, nt = 0, ns = 0, nc = 0;

	bufputs(b, "\ttypedef void (*fn_t)(");
	json_array_foreach(json_object_get(task, "args"), i, a) {
		const char *ct = argctype(a);
		bufprintf(b, "%s%s", i ? ", " : "", ct ? ct : "void *");
	}
	bufputs(b, ");\n\t((fn_t)fn)(");
	json_array_foreach(json_object_get(task, "args"), i, a) {
		const char *ct = argctype(a);
		bufputs(b, i ? ", " : "");
		if (!ct)
			bufprintf(b, "ptrs[%zu]", nt++);
		else if (!strcmp(jstr(a, "kind", ""), "size"))
			bufprintf(b, "(%s)sizes[%zu]", ct, ns++);
		else
			bufprintf(b, "(%s)scalars[%zu]", ct, nc++);
	}
	bufputs(b, ");\n");
}

static int
program(const struct opts *o, const char *taskpath, int reference)
{
	char err[512], *dir, *cfile, *cuda;
	json_t *task = jload(taskpath, err, sizeof err);
	struct buf b;
	struct run r;
	const char *ref;

	if (!task)
		die(EXIT_USAGE, "cannot read the task: %s", err);
	ref = jstr(task, "reference", NULL);
	bufinit(&b, 1 << 22);
	bufprintf(&b, "/* generated by retort's compile for %s: do not edit */\n"
	          "#include <stddef.h>\n#include <stdint.h>\n#include <stdlib.h>\n#include <string.h>\n"
	          "#include <math.h>\n#include <float.h>\n#include <limits.h>\n", jstr(task, "id", "?"));
	if (reference) {
		if (!ref)
			die(EXIT_USAGE, "%s: the task has no reference", taskpath);
		bufprintf(&b, "#line 1 \"reference\"\n%s\n", ref);
		bufputs(&b, "#line 1 \"call\"\nvoid\ncallreference(void **ptrs, const int64_t *sizes, "
		        "const double *scalars)\n{\n\tvoid *fn = (void *)reference;\n");
		genericcall(&b, task);
		bufputs(&b, "}\n");
	} else {
		bufputs(&b, "void\ncallentry(void *fn, void **ptrs, const int64_t *sizes, const double *scalars)\n{\n");
		genericcall(&b, task);
		bufputs(&b, "}\n");
	}
	dir = xasprintf("%s.src", o->out);
	cfile = xasprintf("%s/call.c", dir);
	if (mkdirp(dir) < 0 || writefile(cfile, b.s, b.n) < 0)
		die(EXIT_RETRY, "cannot write '%s':", cfile);
	buffree(&b);
	cuda = o->cuda ? xstrdup(o->cuda) : NULL;
	if (!cuda) { /* the toolkit root: nvcc's folder's parent */
		char path[PATH_MAX], *s;
		if (!realpath(o->nvcc, path))
			snprintf(path, sizeof path, "/usr/local/cuda/bin/nvcc");
		s = strrchr(path, '/');
		if (s)
			*s = 0;
		s = strrchr(path, '/');
		if (s)
			*s = 0;
		cuda = xstrdup(path);
	}
	{
		char *out = realpath(".", NULL);
		char *abs = o->out[0] == '/' ? xstrdup(o->out) : xasprintf("%s/%s", out, o->out);
		char *lib = o->lib[0] == '/' ? xstrdup(o->lib) : xasprintf("%s/%s", out, o->lib);
		char *inc = xasprintf("-I%s/include", cuda), *libdir = xasprintf("-L%s/lib64", cuda);
		char *rpath = xasprintf("-Wl,-rpath,%s/lib64", cuda), *main = xasprintf("%s/%s", lib,
		               reference ? "refrun.c" : "harness.c");
		char *tensor = xasprintf("%s/tensor.c", lib), *json = xasprintf("-I%s", lib);
		/* named for this process: a compiler left running by a killed
		 * build (it has its own process group) cannot touch it */
		char *tmp = xasprintf("%s.%ld.tmp", abs, (long)getpid());
		char *argv[32];
		int ac = 0;
		argv[ac++] = (char *)o->cc;
		argv[ac++] = "-std=gnu11";
		argv[ac++] = "-O2";
		argv[ac++] = "-w";
		argv[ac++] = json;
		argv[ac++] = "-o";
		argv[ac++] = tmp;
		argv[ac++] = main;
		argv[ac++] = tensor;
		argv[ac++] = "call.c";
		if (!reference) {
			argv[ac++] = inc;
			argv[ac++] = libdir;
			argv[ac++] = rpath;
			argv[ac++] = "-lcudart";
			argv[ac++] = "-ldl";
		}
		argv[ac++] = "-lpthread";
		argv[ac++] = "-lm";
		argv[ac] = NULL;
		if (runlimited(argv, dir, 300, 8192, &r) < 0)
			die(EXIT_RETRY, "cannot run '%s':", o->cc);
		if (r.status != 0) {
			/* a reference that does not build is the spec's bug */
			fprintf(stderr, "%s", r.log.s);
			unlink(tmp);
			die(reference && r.status > 0 && r.status < 128 ? EXIT_USAGE : EXIT_RETRY,
			    "building the %s for %s failed (status %d, above)", reference ? "reference" : "harness",
			    jstr(task, "id", "?"), r.status);
		}
		if (access(tmp, F_OK) < 0)
			die(EXIT_RETRY, "%s exited 0 but wrote no '%s'; its output: %s", o->cc, tmp, r.log.s);
		{
			/* only rewrite when the bytes changed (restat) */
			int rc = copyfile(tmp, abs);
			unlink(tmp);
			if (rc < 0)
				die(EXIT_RETRY, "cannot write '%s':", abs);
			chmod(abs, 0755);
		}
		buffree(&r.log);
		free(out); free(abs); free(lib); free(inc); free(libdir); free(rpath); free(main);
		free(tensor); free(json); free(tmp);
	}
	free(cuda);
	free(dir);
	free(cfile);
	json_decref(task);
	return 0;
}

static int
baseline(const struct opts *o, const char *taskpath)
{
	char err[512], *dir, *cu, *logpath, *src;
	json_t *task = jload(taskpath, err, sizeof err), *b, *lib;
	const char *sig, *entry;
	char *argv[48], *arch;
	struct run r;
	size_t i;
	int ac = 0, nfixed;

	if (!task)
		die(EXIT_USAGE, "cannot read the task: %s", err);
	b = json_object_get(task, "baseline");
	if (!json_is_object(b))
		die(EXIT_USAGE, "%s: the task has no baseline", taskpath);
	sig = jstr(task, "signature", "");
	entry = jstr(task, "entry", "");
	{
		/* the entry's signature, named baseline */
		const char *at = strstr(sig, entry);
		char *decl = at ? xasprintf("%.*sbaseline%s", (int)(at - sig), sig, at + strlen(entry)) : xstrdup(sig);
		src = xasprintf("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cuda_fp8.h>\n#include <stdint.h>\n"
		                "#line 1 \"baseline\"\n%s\n%s;\n", jstr(b, "code", ""), decl);
		free(decl);
	}
	dir = xasprintf("%s.src", o->out);
	cu = xasprintf("%s/baseline.cu", dir);
	logpath = xasprintf("%s.log", o->out);
	if (mkdirp(dir) < 0 || writefile(cu, src, strlen(src)) < 0)
		die(EXIT_RETRY, "cannot write '%s':", cu);
	arch = archflag(o);
	argv[ac++] = (char *)o->nvcc;
	argv[ac++] = arch;
	argv[ac++] = "-O3";
	argv[ac++] = "-std=c++17";
	argv[ac++] = "-shared";
	argv[ac++] = "-Xcompiler";
	argv[ac++] = "-fPIC";
	argv[ac++] = "-cudart";
	argv[ac++] = (char *)o->cudart;
	argv[ac++] = "-o";
	argv[ac++] = "baseline.so";
	argv[ac++] = "baseline.cu";
	nfixed = ac;
	json_array_foreach(json_object_get(b, "libs"), i, lib)
		if (ac < 44)
			argv[ac++] = xasprintf("-l%s", json_string_value(lib));
	argv[ac] = NULL;
	if (runlimited(argv, dir, o->timelimit * 3, o->memlimit, &r) < 0)
		die(EXIT_RETRY, "cannot run '%s':", o->nvcc);
	if (r.status == 0) {
		char *so = xasprintf("%s/baseline.so", dir);
		if (copyfile(so, o->out) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		free(so);
		writefile(logpath, "", 0);
	} else {
		char *d = diagnostics(r.log.s, dir);
		warn("the baseline of %s does not build here; bench will report no speedup (see %s)",
		     jstr(task, "id", "?"), logpath);
		if (writefile(o->out, "", 0) < 0 || writefile(logpath, d, strlen(d)) < 0)
			die(EXIT_RETRY, "cannot write '%s':", o->out);
		free(d);
	}
	buffree(&r.log);
	while (ac > nfixed)
		free(argv[--ac]);
	free(src);
	free(dir);
	free(cu);
	free(logpath);
	free(arch);
	json_decref(task);
	return 0;
}

/* --------------------------------------------------------------- main */

static int
screenfile(const char *path, const char *entry, const char *allowlist)
{
	struct buf b;
	json_t *allow = json_array(), *v;
	char *copy, *t, *save = NULL, *s;

	bufinit(&b, MAX_BLOCK);
	if (readfile(path, &b) < 0)
		die(EXIT_USAGE, "cannot read '%s':", path);
	if (allowlist) {
		copy = xstrdup(allowlist);
		for (t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
			json_array_append_new(allow, json_string(t));
		free(copy);
	}
	v = screen(b.s, b.n, entry, allow);
	s = jdumps(v, JSON_INDENT(1) | JSON_SORT_KEYS);
	printf("%s\n", s);
	free(s);
	json_decref(v);
	json_decref(allow);
	buffree(&b);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the violations:");
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "nvcc", "sm_90", NULL, "shared", "cc", "tools/lib", NULL, 120, 8192, 0 };
	const char *in[2] = { NULL, NULL }, *screenpath = NULL, *entry = NULL, *allow = NULL;
	int i, nin = 0, mode = 0; /* 0 candidate, 1 harness, 2 reference, 3 baseline */

	setprogname(argv[0]);
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];
#define VAL argval(argc, argv, &i, usage)
		if (arghelp(s, usage)) return 0;
		else if (!strcmp(s, "-o")) o.out = VAL;
		else if (!strcmp(s, "--nvcc")) o.nvcc = VAL;
		else if (!strcmp(s, "--arch")) o.arch = VAL;
		else if (!strcmp(s, "--cache-dir")) o.cachedir = VAL;
		else if (!strcmp(s, "--cudart")) o.cudart = VAL;
		else if (!strcmp(s, "--cc")) o.cc = VAL;
		else if (!strcmp(s, "--lib")) o.lib = VAL;
		else if (!strcmp(s, "--cuda")) o.cuda = VAL;
		else if (!strcmp(s, "--time-limit")) o.timelimit = intarg(VAL, s, 1, 86400);
		else if (!strcmp(s, "--mem-limit")) o.memlimit = intarg(VAL, s, 256, 1 << 20);
		else if (!strcmp(s, "--screen")) screenpath = VAL;
		else if (!strcmp(s, "--entry")) entry = VAL;
		else if (!strcmp(s, "--allow")) allow = VAL;
		else if (!strcmp(s, "--no-screen")) o.noscreen = 1;
		else if (!strcmp(s, "--harness")) mode = 1;
		else if (!strcmp(s, "--reference")) mode = 2;
		else if (!strcmp(s, "--baseline")) mode = 3;
		else arginput(s, in, &nin, 2, usage);
#undef VAL
	}
	if (screenpath) {
		if (!entry)
			die(EXIT_USAGE, "--screen needs --entry NAME");
		return screenfile(screenpath, entry, allow);
	}
	if (strcmp(o.cudart, "shared") && strcmp(o.cudart, "static"))
		die(EXIT_USAGE, "--cudart is shared or static: '%s'", o.cudart);
	if (strncmp(o.arch, "sm_", 3) || !isdigit((unsigned char)o.arch[3]))
		die(EXIT_USAGE, "--arch looks like sm_90 or sm_90a: '%s'", o.arch);
	if (!o.out)
		die(EXIT_USAGE, "need -o\n%s", usage);
	if (mode ? nin != 1 : nin != 2)
		die(EXIT_USAGE, "need TASK_JSON%s\n%s", mode ? "" : " and RESPONSE_JSON", usage);
	{
		char *nvcc = findprog(o.nvcc), *cc = findprog(o.cc);
		int r;
		if (nvcc) /* else as given: running it says what is wrong */
			o.nvcc = nvcc;
		if (cc)
			o.cc = cc;
		r = mode == 3 ? baseline(&o, in[0]) : mode ? program(&o, in[0], mode == 2) : candidate(&o, in[0], in[1]);
		free(nvcc);
		free(cc);
		return r;
	}
}
