/* artifact.c - see artifact.h */
#include "artifact.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../jail/sandbox.h"
#include "../lib/util.h"

/* ------------------------------------------------------------------ ELF */

struct elf {
	struct buf file;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
};

static int
elfload(const char *path, struct elf *e, char *err, size_t cap)
{
	const Elf64_Shdr *ss;

	memset(e, 0, sizeof *e);
	bufinit(&e->file, (size_t)1 << 31);
	if (readfile(path, &e->file) < 0) {
		snprintf(err, cap, "cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	e->eh = (const Elf64_Ehdr *)e->file.s;
	if (e->file.n < sizeof *e->eh || memcmp(e->eh->e_ident, ELFMAG, SELFMAG) || e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh->e_shoff == 0 || e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    e->eh->e_shoff + (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr) > e->file.n || e->eh->e_shstrndx >= e->eh->e_shnum) {
		snprintf(err, cap, "'%s' is not a 64-bit ELF file", path);
		return -1;
	}
	e->sh = (const Elf64_Shdr *)(e->file.s + e->eh->e_shoff);
	ss = &e->sh[e->eh->e_shstrndx];
	if (ss->sh_offset + ss->sh_size > e->file.n) {
		snprintf(err, cap, "'%s' has a broken section table", path);
		return -1;
	}
	e->shstr = e->file.s + ss->sh_offset;
	return 0;
}

static const Elf64_Shdr *
section(const struct elf *e, const char *name)
{
	for (int i = 0; i < e->eh->e_shnum; i++)
		if (e->sh[i].sh_name < e->sh[e->eh->e_shstrndx].sh_size && !strcmp(e->shstr + e->sh[i].sh_name, name) &&
		    (e->sh[i].sh_type == SHT_NOBITS || e->sh[i].sh_offset + e->sh[i].sh_size <= e->file.n))
			return &e->sh[i];
	return NULL;
}

/* each symbol of a symbol table (.dynsym or .symtab) with its string table */
static void
symbols(const struct elf *e, const char *tab, const char *strs,
        void (*fn)(const Elf64_Sym *, const char *, void *), void *ctx)
{
	const Elf64_Shdr *st = section(e, tab), *ss = section(e, strs);
	size_t n, i;

	if (!st || !ss || st->sh_entsize != sizeof(Elf64_Sym))
		return;
	n = st->sh_size / sizeof(Elf64_Sym);
	for (i = 1; i < n; i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(e->file.s + st->sh_offset) + i;
		if (s->st_name < ss->sh_size)
			fn(s, e->file.s + ss->sh_offset + s->st_name, ctx);
	}
}

/* ------------------------------------------------------------ the lists */

static const char *const allowcuda[] = {
	"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd", "__cudaUnregisterFatBinary",
	"__cudaRegisterFunction", "__cudaRegisterVar", "__cudaRegisterTexture", "__cudaRegisterSurface",
	"__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaGetKernel", "__cudaLaunchKernel",
	"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaFuncSetAttribute",
	"cudaFuncGetAttributes", "cudaFuncSetCacheConfig", "cudaFuncSetSharedMemConfig",
	"cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
	"cudaOccupancyMaxPotentialClusterSize", "cudaOccupancyMaxActiveClusters",
	"cudaOccupancyAvailableDynamicSMemPerBlock", "cudaGetDevice", "cudaGetDeviceCount", "cudaDeviceGetAttribute",
	"cudaGetDeviceProperties", "cudaGetDeviceProperties_v2", "cudaDeviceGetLimit", "cudaDeviceSynchronize",
	"cudaStreamSynchronize", "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName",
	"cudaMalloc", "cudaMallocPitch", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMemset", "cudaMemsetAsync",
	"cudaMemset2D", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync", "cudaMemcpyToSymbol",
	"cudaMemcpyToSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize", "cudaDriverGetVersion",
	"cudaRuntimeGetVersion", "cudaCreateTextureObject", "cudaDestroyTextureObject", "cudaCreateChannelDesc",
	"cudaFuncGetName", NULL
};

static const char *const allowc[] = {
	"memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "strcpy", "strncpy", "strchr",
	"strrchr", "strstr", "strcat", "printf", "fprintf", "vprintf", "vfprintf", "puts", "putchar", "fputs", "fputc",
	"fwrite", "fflush", "snprintf", "sprintf", "vsnprintf", "vsprintf", "__printf_chk", "__fprintf_chk",
	"__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk", "__vfprintf_chk", "__vprintf_chk", "__memcpy_chk",
	"__memset_chk", "__memmove_chk", "__strcpy_chk", "__strcat_chk", "__strncpy_chk", "stdout", "stderr", "malloc",
	"calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign", "abort", "exit", "__assert_fail",
	"__stack_chk_fail", "__cxa_atexit", "__cxa_finalize", "__cxa_guard_acquire", "__cxa_guard_release",
	"__cxa_guard_abort", "__gxx_personality_v0", "_Unwind_Resume", "__cxa_begin_catch", "__cxa_end_catch",
	"__cxa_throw", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_rethrow", "__cxa_pure_virtual",
	"__cxa_throw_bad_array_new_length", "__cxa_call_unexpected", "__cxa_get_exception_ptr", "_ITM_deregisterTMCloneTable",
	"_ITM_registerTMCloneTable", "__gmon_start__", "__errno_location", "qsort", "bsearch", "abs", "labs", "llabs",
	"atoi", "atol", "atof", "strtol", "strtoul", "strtoll", "strtoull", "strtod", "strtof", "__isoc99_sscanf",
	"__isoc23_strtol", "__isoc23_strtoul", "__isoc23_strtoll", "__isoc23_strtoull", "__isoc23_sscanf", "sscanf",
	"toupper", "tolower", "__ctype_b_loc", "__ctype_toupper_loc", "__ctype_tolower_loc",
	/* libm */
	"sqrt", "sqrtf", "cbrt", "cbrtf", "exp", "expf", "exp2", "exp2f", "expm1", "expm1f", "log", "logf", "log2",
	"log2f", "log10", "log10f", "log1p", "log1pf", "pow", "powf", "fabs", "fabsf", "floor", "floorf", "ceil", "ceilf",
	"trunc", "truncf", "round", "roundf", "lround", "lroundf", "llround", "rint", "rintf", "nearbyint", "fmin",
	"fminf", "fmax", "fmaxf", "fmod", "fmodf", "tanh", "tanhf", "sinh", "cosh", "erf", "erff", "erfc", "erfcf", "sin",
	"sinf", "cos", "cosf", "tan", "tanf", "atan", "atanf", "atan2", "atan2f", "asin", "acos", "frexp", "frexpf",
	"ldexp", "ldexpf", "hypot", "hypotf", "lgamma", "tgamma", "ilogb", "scalbn", "scalbnf", NULL
};

/* C++ runtime pieces: allocation, exceptions, strings, ostream (no
 * threads, files, clocks or filesystems: those live elsewhere in std) */
static const char *const allowcxx[] = {
	"_Znw", "_Zna", "_Zdl", "_Zda", "_ZSt", "_ZTI", "_ZTS", "_ZTV", "_ZNSt7__cxx11", "_ZNKSt7__cxx11", "_ZNSo",
	"_ZNKSo", "_ZNSt8ios_base4Init", "_ZNSt9exception", "_ZNKSt9exception", "_ZNSt11logic_error",
	"_ZNSt12length_error", "_ZNSt12out_of_range", "_ZNSt13runtime_error", "_ZNSt9bad_alloc",
	"_ZNSt20bad_array_new_length", "_ZNSt16invalid_argument", "_ZNSt15basic_streambuf", "_ZNSt9basic_ios",
	"_ZNKSt9basic_ios", "_ZNSt6locale", "_ZNKSt5ctype", NULL
};

/* what a spec's allow: adds (prefixes; what screen.c's rule of that name lets through) */
static const char *const allowby[][8] = {
	{ "timing", "cudaEvent", "clock", "time", "gettimeofday", NULL },
	{ "streams", "cudaStream", "cudaGraph", "cudaEvent", NULL },
	{ "threads", "pthread_", NULL },
	{ "host_compute", "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister", "cudaFreeHost", "cudaMallocManaged",
	  "cudaMemcpyFromSymbol", "__cudaRegisterManagedVar" },
	{ "library", "cublas", "cudnn", "cusparse", "cufft", "cusolver", "curand", NULL },
};

static const char *const needed[] = { "libcudart.so", "libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1",
                                      "ld-linux", NULL };

static int
inlist(const char *name, const char *const *list, int prefix)
{
	for (; *list; list++)
		if (prefix ? !strncmp(name, *list, strlen(*list)) : !strcmp(name, *list))
			return 1;
	return 0;
}

static int
importok(const char *name, json_t *allow)
{
	if (inlist(name, allowcuda, 0) || inlist(name, allowc, 0) || inlist(name, allowcxx, 1))
		return 1;
	for (size_t k = 0; k < sizeof allowby / sizeof allowby[0]; k++)
		if (jhas(allow, allowby[k][0]))
			for (int j = 1; j < 8 && allowby[k][j]; j++)
				if (!strncmp(name, allowby[k][j], strlen(allowby[k][j])))
					return 1;
	return 0;
}

/* ----------------------------------------------------------- the checks */

struct ctx {
	json_t *list, *allow, *shadow; /* shadow: names the C library and CUDA export */
	const struct elf *e;
	uint64_t init[64];
	int ninit;
	int initok[64];
};

static void
violate(struct ctx *c, const char *rule, const char *fmt, const char *arg)
{
	char msg[400];
	size_t i;
	json_t *e;

	json_array_foreach(c->list, i, e)
		if (!strcmp(jstr(e, "rule", ""), rule) && !strcmp(jstr(e, "name", ""), arg))
			return;
	snprintf(msg, sizeof msg, fmt, arg);
	json_array_append_new(c->list, json_pack("{s:s,s:s,s:s,s:s}", "rule", rule, "stage", "object", "name", arg,
	                                         "message", msg));
}

static const char *
rulefor(const char *name)
{
	static const char *const pats[][2] = {
		{ "cudaEvent", "timing" }, { "clock", "timing" }, { "time", "timing" }, { "gettimeofday", "timing" },
		{ "cudaStream", "streams" }, { "cudaGraph", "streams" }, { "cudaGetDriverEntryPoint", "device_state" },
		{ "cudaLaunchHostFunc", "streams" }, { "pthread", "threads" }, { "thrd_", "threads" },
		{ "cudaMallocHost", "host_compute" }, { "cudaHostAlloc", "host_compute" },
		{ "cudaHostRegister", "host_compute" }, { "cudaMallocManaged", "host_compute" },
		{ "cudaMemcpyFrom", "host_compute" }, { "__cudaRegisterManagedVar", "host_compute" },
		{ "cublas", "library" }, { "cudnn", "library" }, { "cufft", "library" }, { "cusparse", "library" },
		{ "dl", "process" }, { "fork", "process" }, { "exec", "process" }, { "system", "process" },
		{ "popen", "process" }, { "syscall", "process" }, { "mprotect", "process" }, { "kill", "process" },
		{ "socket", "network" }, { "connect", "network" }, { "open", "file_io" }, { "fopen", "file_io" },
		{ "read", "file_io" }, { "write", "file_io" }, { "mmap", "file_io" }, { "getenv", "environment" },
		{ "environ", "environment" }, { "cudaMemGetInfo", "device_state" }, { "cudaSetDevice", "device_state" },
		{ "cudaDeviceReset", "device_state" }, { "cudaDeviceSetLimit", "device_state" },
		{ "cudaPointerGetAttributes", "device_state" }, { "cudaIpc", "device_state" },
	};
	for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++)
		if (strstr(name, pats[k][0]))
			return pats[k][1];
	return "imports";
}

static void
dynsym(const Elf64_Sym *s, const char *name, void *arg)
{
	struct ctx *c = arg;
	int bind = ELF64_ST_BIND(s->st_info);

	if (!name[0] || (bind != STB_GLOBAL && bind != STB_WEAK))
		return;
	if (s->st_shndx == SHN_UNDEF) {
		if (!importok(name, c->allow))
			violate(c, rulefor(name), "the built object calls %s, which the task contract does not allow a "
			        "kernel's host code (see the system prompt's list)", name);
	} else if (json_object_get(c->shadow, name)) {
		violate(c, "interposition", "the built object exports %s, a name of the C library or the CUDA runtime: "
		        "it would stand in for the real one", name);
	}
}

/* the exports of a library, into set */
static void
addexport(const Elf64_Sym *s, const char *name, void *arg)
{
	if (name[0] && s->st_shndx != SHN_UNDEF && ELF64_ST_BIND(s->st_info) != STB_LOCAL)
		json_object_set_new(arg, name, json_true());
}

static void
exportsof(const char *path, json_t *set)
{
	struct elf e;
	char err[256];

	if (elfload(path, &e, err, sizeof err) == 0)
		symbols(&e, ".dynsym", ".dynstr", addexport, set);
	buffree(&e.file);
}

/* the C library's path (the one this program runs with) */
static const char *
libcpath(void)
{
	Dl_info info;

	return dladdr((void *)printf, &info) && info.dli_fname ? info.dli_fname : "/lib/x86_64-linux-gnu/libc.so.6";
}

static void
initsym(const Elf64_Sym *s, const char *name, void *arg)
{
	struct ctx *c = arg;

	/* the compiler's own, by their exact (local) names: the C runtime's and
	 * nvcc's registration of this object's kernels */
	if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || ELF64_ST_BIND(s->st_info) != STB_LOCAL ||
	    (strcmp(name, "frame_dummy") && strcmp(name, "_ZL24__sti____cudaRegisterAllv")))
		return;
	for (int i = 0; i < c->ninit; i++)
		if (s->st_value == c->init[i])
			c->initok[i] = 1;
}

static void
initializers(struct ctx *c)
{
	const struct elf *e = c->e;
	const Elf64_Shdr *ia = section(e, ".init_array"), *in = section(e, ".init");
	char what[64];

	if (section(e, ".preinit_array") || section(e, ".ctors"))
		violate(c, "interposition", "%s", "the built object has a .preinit_array or .ctors section: code that runs "
		        "at load time");
	if (in && in->sh_size > 64)
		violate(c, "interposition", "%s", "the built object's .init section holds more than the C runtime's stub");
	if (!ia)
		return;
	if (ia->sh_size / 8 > sizeof c->init / sizeof c->init[0]) {
		violate(c, "interposition", "%s", "the built object has more load-time functions than the compiler makes");
		return;
	}
	c->ninit = (int)(ia->sh_size / 8);
	for (int i = 0; i < c->ninit; i++)
		memcpy(&c->init[i], e->file.s + ia->sh_offset + 8 * (size_t)i, 8);
	if (!section(e, ".symtab")) {
		violate(c, "interposition", "%s", "the built object has no symbol table: what runs at load time cannot "
		        "be told");
		return;
	}
	symbols(e, ".symtab", ".strtab", initsym, c);
	for (int i = 0; i < c->ninit; i++)
		if (!c->initok[i]) {
			snprintf(what, sizeof what, "0x%llx", (unsigned long long)c->init[i]);
			violate(c, "interposition", "the built object runs code at load time (a C++ global with a "
			        "constructor, or a constructor function, at %s): nothing may run before the harness calls "
			        "the entry point", what);
		}
}

static void
libraries(struct ctx *c)
{
	const Elf64_Shdr *d = section(c->e, ".dynamic"), *ds = section(c->e, ".dynstr");
	size_t i;

	if (!d || !ds)
		return;
	for (i = 0; i < d->sh_size / sizeof(Elf64_Dyn); i++) {
		const Elf64_Dyn *dy = (const Elf64_Dyn *)(c->e->file.s + d->sh_offset) + i;
		const char *name;
		if (dy->d_tag != DT_NEEDED || dy->d_un.d_val >= ds->sh_size)
			continue;
		name = c->e->file.s + ds->sh_offset + dy->d_un.d_val;
		if (!inlist(name, needed, 1) && !(jhas(c->allow, "library") && importok(name + 3, c->allow)))
			violate(c, "library", "the built object needs the shared library %s", name);
	}
}

/* syscall instructions in the disassembly (objdump, in the sandbox); -1
 * with err when objdump did not read it all (nothing is then proven) */
static int
syscalls(struct ctx *c, const char *so, char *err, size_t cap)
{
	char dir[PATH_MAX], *slash, *objdump = findprog("objdump"), *argv[6];
	struct jail j;
	struct runlimits lim = { 60, 4096, 1, &j };
	struct run r;
	const size_t logmax = (size_t)256 << 20;
	int rc = -1;

	if (!objdump) {
		snprintf(err, cap, "objdump (binutils) is not installed: the host code's instructions cannot be checked");
		return -1;
	}
	snprintf(dir, sizeof dir, "%s", so);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof dir, ".");
	memset(&j, 0, sizeof j);
	j.work = dir;
	argv[0] = objdump;
	argv[1] = "-d";
	argv[2] = "--no-show-raw-insn";
	argv[3] = jailpath(&j, slash ? slash + 1 : so);
	argv[4] = NULL;
	if (runcapture(argv, dir, NULL, &lim, logmax, &r) < 0) {
		snprintf(err, cap, "cannot run objdump on '%s': %s", so, strerror(errno));
	} else if (r.timedout || r.status != 0 || r.log.n >= logmax) {
		snprintf(err, cap, "objdump did not disassemble '%s' whole (%s): %.300s", so,
		         r.timedout ? "it timed out" : r.status ? "it failed" : "its output was cut", r.log.s);
		buffree(&r.log);
	} else {
		const char *p = r.log.s;
		while ((p = strchr(p, '\t'))) {
			p++;
			if (!strncmp(p, "syscall", 7) || !strncmp(p, "sysenter", 8) || (!strncmp(p, "int ", 4) && strstr(p, "0x80")
			    && strstr(p, "0x80") < strchr(p, '\n')))
				violate(c, "asm", "the built object's host code makes a system call itself (%s): the C library "
				        "and the CUDA runtime are the only way out", !strncmp(p, "sysenter", 8) ? "sysenter"
				        : !strncmp(p, "syscall", 7) ? "syscall" : "int 0x80");
		}
		buffree(&r.log);
		rc = 0;
	}
	free(argv[3]);
	free(objdump);
	return rc;
}

json_t *
reservednames(const char *cuda)
{
	json_t *set = json_object();
	char *p;

	exportsof(libcpath(), set);
	p = xasprintf("%s/lib64/libcudart.so", cuda);
	exportsof(p, set);
	free(p);
	p = xasprintf("%s/lib64/stubs/libcuda.so", cuda);
	exportsof(p, set);
	free(p);
	return set;
}

json_t *
artifactcheck(const char *so, json_t *reserved, json_t *allow, char *err, size_t cap)
{
	struct elf e;
	struct ctx c;

	if (elfload(so, &e, err, cap) < 0) {
		buffree(&e.file);
		return NULL;
	}
	memset(&c, 0, sizeof c);
	c.list = json_array();
	c.allow = allow;
	c.e = &e;
	c.shadow = reserved;
	symbols(&e, ".dynsym", ".dynstr", dynsym, &c);
	libraries(&c);
	initializers(&c);
	if (syscalls(&c, so, err, cap) < 0) {
		json_decref(c.list);
		c.list = NULL;
	}
	buffree(&e.file);
	return c.list;
}
