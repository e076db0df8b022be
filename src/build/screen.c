/* screen.c - see screen.h */
#include "screen.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/json.h"
#include "../lib/util.h"

/* ------------------------------------------------------------- reading */

static int
isid(int c)
{
	return isalnum(c) || c == '_';
}

/* s[i] == '\'' inside a number (a digit separator: 1'000), not a character literal */
static int
digitsep(const char *s, size_t i)
{
	size_t k = i;

	if (!i || !isalnum((unsigned char)s[i - 1]) || !isalnum((unsigned char)s[i + 1]))
		return 0;
	while (k > 0 && (isalnum((unsigned char)s[k - 1]) || s[k - 1] == '\'' || s[k - 1] == '.'))
		k--;
	return isdigit((unsigned char)s[k]);
}

/* the end of a raw string literal (R"d(...)d", u8R"(...)" ...) at s[i], or 0 */
static size_t
rawend(const char *s, size_t n, size_t i)
{
	char close[20];
	size_t k = i, j = i + 2, d;
	const char *e;

	if (s[i] != 'R' || s[i + 1] != '"')
		return 0;
	while (k > 0 && isid((unsigned char)s[k - 1]))
		k--;
	if (i - k > 2 || (i - k && strncmp(s + k, "u8", i - k) && strncmp(s + k, "u", i - k) &&
	                  strncmp(s + k, "U", i - k) && strncmp(s + k, "L", i - k)))
		return 0;
	for (d = 0; j + d < n && d < 16 && s[j + d] != '(' && !isspace((unsigned char)s[j + d]) && s[j + d] != '\\' &&
	            s[j + d] != ')';
	     d++)
		;
	if (s[j + d] != '(')
		return 0;
	snprintf(close, sizeof close, ")%.*s\"", (int)d, s + j);
	e = strstr(s + j + d + 1, close);
	return e ? (size_t)(e - s) + strlen(close) : n;
}

/*
 * A copy of the text with comments and string and character literals
 * (raw strings too; not the digit separators of numbers) blanked
 * (newlines kept, so line numbers hold), except that the literal "C" of
 * extern "C" survives.
 */
static char *
blank(const char *src, size_t n)
{
	char *s = xstrndup(src, n);
	size_t i = 0, e;

	while (i < n) {
		if ((e = rawend(s, n, i))) {
			for (; i < e; i++)
				if (s[i] != '\n')
					s[i] = ' ';
			continue;
		}
		if (s[i] == '\'' && digitsep(s, i)) {
			i++;
			continue;
		}
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

/* p (in s) follows "std::": the C library's names in the std namespace are the same functions */
static int
afterstd(const char *s, const char *p)
{
	return p - s >= 5 && !strncmp(p - 5, "std::", 5) && (p - s == 5 || !isid((unsigned char)p[-6]));
}

/*
 * A call of the global function name (or std::name): the name followed by
 * '(', and not a member (x.name, p->name) or another namespace's (ns::name).
 */
static const char *
findcall(const char *s, const char *name)
{
	const char *p = s;

	while ((p = findword(p, name))) {
		const char *q = p + strlen(name);
		int member = (p - s >= 1 && p[-1] == '.') || (p - s >= 2 && p[-1] == '>' && p[-2] == '-') ||
		             (p - s >= 2 && p[-1] == ':' && p[-2] == ':' && (p - s == 2 || isid((unsigned char)p[-3])) &&
		              !afterstd(s, p));
		while (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (*q == '(' && !member)
			return p;
		p += strlen(name);
	}
	return NULL;
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

int
definesfn(const char *src, size_t n, const char *name)
{
	char *b = blank(src, n);
	int d = finddef(b, name) != NULL;

	free(b);
	return d;
}

/* ---------------------------------------------- the candidate's own lines */

/* the lines the preprocessor attributes to the candidate's file */
struct view {
	struct buf text;
	int *line;               /* the file's line of each line of text */
	size_t n, cap;
	json_t *includes;        /* [{name, line}]: files the candidate's file includes */
	int renamed;             /* the line of a #line that moves its text to another name (0: none) */
	int badmarker;           /* the line of a line marker that cannot be read whole (0: none) */
};

static void
viewline(struct view *v, const char *s, size_t len, int line)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->line = xreallocarray(v->line, v->cap, sizeof *v->line);
	}
	v->line[v->n++] = line;
	bufput(&v->text, s, len);
	bufputc(&v->text, '\n');
}

/*
 * A line marker, '# N "NAME"' and its flags, each ' F' (1 entering a file,
 * 2 returning to one, 3 a system header, 4 extern "C"); gcc escapes \, "
 * and newlines in NAME (cpp_quote_string). 1 with the line number, NAME
 * undone of its escapes and the flags as bits (1 << F); 0 for a line that
 * is no marker; -1 for one that cannot be read whole (no closing quote, a
 * name longer than cap, anything but flags after it): the preprocessor
 * writes none such, a #line directive with a crafted name can (a quote
 * escaped inside it once read as the end of the name, and what followed
 * as flag 1, entering a header).
 */
static int
linemarker(const char *p, size_t len, int *n, char *name, size_t cap, int *flags)
{
	const char *e = p + len, *q;
	long ln = 0;
	size_t k = 0;

	if (len < 3 || p[0] != '#' || p[1] != ' ' || !isdigit((unsigned char)p[2]))
		return 0;
	for (q = p + 2; q < e && isdigit((unsigned char)*q); q++)
		ln = ln < 100000000 ? 10 * ln + (*q - '0') : ln;
	if (e - q < 3 || q[0] != ' ' || q[1] != '"')
		return -1;
	for (q += 2; q < e && *q != '"'; q++) {
		char c = *q;
		if (c == '\\') {
			if (++q == e || (*q != '\\' && *q != '"' && *q != 'n'))
				return -1;
			c = *q == 'n' ? '\n' : *q;
		}
		if (k + 1 >= cap)
			return -1;
		name[k++] = c;
	}
	if (q == e)
		return -1;
	name[k] = 0;
	*flags = 0;
	for (q++; q < e; q += 2) {
		if (e - q < 2 || q[0] != ' ' || q[1] < '1' || q[1] > '4' || (e - q > 2 && q[2] != ' '))
			return -1;
		*flags |= 1 << (q[1] - '0');
	}
	*n = (int)ln;
	return 1;
}

/* read preprocessed text: "# N "file" flags" linemarkers say whose lines follow */
static void
viewload(struct view *v, const char *pre, const char *file)
{
	const char *p = pre;
	char cur[4096] = "";
	int line = 1;

	memset(v, 0, sizeof *v);
	bufinit(&v->text, (size_t)64 << 20);
	v->includes = json_array();
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char name[4096];
		int n, flags, mark = linemarker(p, len, &n, name, sizeof name, &flags);
		if (mark > 0) {
			if (flags & 1 << 1 && !strcmp(cur, file)) /* entering a file */
				json_array_append_new(v->includes, json_pack("{s:s,s:i}", "name", name, "line", line - 1));
			else if (!flags && !strcmp(cur, file) && strcmp(name, file) && !v->renamed)
				v->renamed = line;
			snprintf(cur, sizeof cur, "%s", name);
			line = n;
		} else {
			if (mark < 0 && !v->badmarker)
				v->badmarker = line;
			if (!strcmp(cur, file))
				viewline(v, p, len, line);
			line++;
		}
		p += len + (eol != NULL);
	}
}

static void
viewfree(struct view *v)
{
	buffree(&v->text);
	free(v->line);
	json_decref(v->includes);
}

/* ------------------------------------------------------------- the rules */

struct viol {
	json_t *list;
	json_t *allow;
	const struct view *view;
	json_t *reserved;        /* names a definition may not take (the C library's, CUDA's) */
};


/* the candidate's line of a place in the view's text (or its blanked copy s) */
static int
lineof(struct viol *v, const char *s, const char *at)
{
	size_t k = 0;

	for (; s < at; s++)
		k += *s == '\n';
	if (!v->view)
		return (int)k + 1;
	return k < v->view->n ? v->view->line[k] : 1;
}

static void
violate(struct viol *v, const char *rule, int line, const char *fmt, const char *arg)
{
	char msg[300];
	size_t i;
	json_t *e;

	if (jhas(v->allow, rule))
		return;
	json_array_foreach(v->list, i, e) /* one per rule and line */
		if (!strcmp(jstr(e, "rule", ""), rule) && jint(e, "line", 0) == line)
			return;
	snprintf(msg, sizeof msg, fmt, arg);
	json_array_append_new(v->list, json_pack("{s:s,s:i,s:s,s:s}", "rule", rule, "line", line, "message", msg,
	                                         "stage", "source"));
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
			violate(v, rule, lineof(v, s, hit), why, name);
			p = hit + strlen(pat);
		}
	}
}

static void
bancalls(struct viol *v, const char *s, const char *rule, const char *const *names, const char *why)
{
	const char *const *k;

	for (k = names; *k; k++) {
		const char *p = s, *hit;
		while ((hit = findcall(p, *k))) {
			violate(v, rule, lineof(v, s, hit), why, *k);
			p = hit + strlen(*k);
		}
	}
}

/* CUB's block-, warp- and thread-level primitives and the two utility
 * headers used with them: header-only device code, which a candidate may
 * include (none of them includes the rest of CUB: cub/cub.cuh, the
 * device-wide algorithms, the allocator) */
static int
cubheader(const char *h)
{
	static const char *const ok[] = { "cub/block/", "cub/warp/", "cub/thread/", "cub/util_ptx.cuh",
	                                  "cub/util_type.cuh", NULL };
	const char *const *k;

	if (strstr(h, ".."))
		return 0;
	for (k = ok; *k; k++)
		if (!strncmp(h, *k, strlen(*k)))
			return 1;
	return 0;
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
	if (!strncmp(h, "cooperative_groups/", 19) || !strncmp(h, "cuda/", 5) || !strncmp(h, "crt/", 4) ||
	    cubheader(h))
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

	if (cubheader(h))
		return 0;
	for (k = libs; *k; k++)
		if (!strncmp(h, *k, strlen(*k)))
			return 1;
	return 0;
}

/*
 * The name an included file has below a system include folder
 * (/usr/include/c++/12/vector is "vector", .../targets/x86_64-linux/
 * include/cccl/cuda/std/cmath is "cuda/std/cmath"); NULL for a file
 * outside them (the candidate's folder, /work in the jail nvcc ran in,
 * which holds only the system's folders and the toolkit besides: one
 * outside /usr, /opt/cuda say, counts as a system folder too).
 */
static const char *
headername(const char *path)
{
	const char *p = strstr(path, "/include/"), *q;

	if (path[0] != '/' || !p || !strncmp(path, "/work/", 6))
		return NULL;
	while ((q = strstr(p + 1, "/include/")))
		p = q;
	p += 9;
	if (!strncmp(p, "c++/", 4) && (q = strchr(p + 4, '/')))
		p = q + 1;
	if (!strncmp(p, "x86_64-linux-gnu/", 17))
		p += 17;
	if (!strncmp(p, "cccl/", 5))
		p += 5;
	return p;
}

static void
includes(struct viol *v, const struct view *w)
{
	json_t *e;
	size_t i;

	json_array_foreach(w->includes, i, e) {
		const char *path = jstr(e, "name", ""), *h = headername(path);
		int line = (int)jint(e, "line", 1);
		if (!h || (!libheader(h) && !headerok(h)))
			violate(v, "include", line, "includes '%s', which is outside the CUDA toolkit and the C/C++ "
			        "standard library parts allowed here", h ? h : path);
		else if (libheader(h))
			violate(v, "library", line, "includes the library header <%s>", h);
	}
	if (w->renamed)
		violate(v, "include", w->renamed, "%s", "a #line directive moves the code that follows to another "
		        "file's name: keep to the file you write");
	if (w->badmarker)
		violate(v, "include", w->badmarker, "%s", "a #line directive with a file name the screen cannot "
		        "read: keep to the file you write");
}

/* the reserved macros a candidate may define or undefine: feature-test
 * macros and CUDA's switches, which headers only test, never expand */
static int
featuremacro(const char *name)
{
	static const char *const ok[] = { "_GNU_SOURCE", "_DEFAULT_SOURCE", "_BSD_SOURCE", "_SVID_SOURCE",
	                                   "_POSIX_C_SOURCE", "_POSIX_SOURCE", "_XOPEN_SOURCE", "_XOPEN_SOURCE_EXTENDED",
	                                   "_ISOC99_SOURCE", "_ISOC11_SOURCE", "_USE_MATH_DEFINES", "_REENTRANT",
	                                   "__STDC_FORMAT_MACROS", "__STDC_LIMIT_MACROS", "__STDC_CONSTANT_MACROS" };

	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (!strcmp(name, ok[i]))
			return 1;
	return !strncmp(name, "__CUDA_NO_", 10);
}

/* a raw #include's (#import's, #embed's) operand at a: a named header
 * must be one the candidate may include */
static void
rawinclude(struct viol *v, int line, const char *a)
{
	const char *b;
	char name[256] = "";

	while (*a == ' ' || *a == '\t')
		a++;
	if ((*a == '<' || *a == '"') && (b = strpbrk(a + 1, *a == '<' ? ">\n" : "\"\n")) && *b != '\n')
		snprintf(name, sizeof name, "%.*s", (int)(b - a - 1), a + 1);
	if (!name[0])
		violate(v, "include", line, "%s", "a computed or malformed #include: only #include <header> "
		        "or \"header\" is allowed");
	else if (libheader(name))
		violate(v, "library", line, "includes the library header <%s>", name);
	else if (!headerok(name))
		violate(v, "include", line, "includes <%s>, which is outside the CUDA toolkit and the "
		        "C/C++ standard library parts allowed here", name);
}

/*
 * The raw text's directives, before any preprocessing, found as the
 * preprocessor finds them: lines joined where a backslash ends one
 * (spaces may follow it), comments and literals blanked, the digraph %:
 * read as #.
 *  - #include (#import, #embed): the header named, with good messages,
 *    and nothing nvcc has to read (the preprocessed text's includes are
 *    checked again: screen());
 *  - line directives (#line N "name", and GNU's # N "name" FLAGS, whose
 *    flag 1 makes the code after it look like a header the candidate
 *    included): the screen reads the candidate's file's lines alone;
 *  - #define and #undef of a reserved name (__x, _X) but a feature-test
 *    macro: a header included after it expands the candidate's text
 *    (#define __THROW ; asm(...)), in lines that are the header's.
 * A kernel has no use for the last two.
 */
static void
rawdirectives(struct viol *v, const char *src, size_t n)
{
	char *j = xmalloc(n + 1), *b, *p;
	int *from = xreallocarray(NULL, n + 2, sizeof *from), line = 1, out = 1;
	size_t i, k = 0;

	from[1] = 1;
	for (i = 0; i < n; i++) {
		size_t e = i + 1;
		if (src[i] == '\\') {
			while (e < n && (src[e] == ' ' || src[e] == '\t' || src[e] == '\r'))
				e++;
			if (e < n && src[e] == '\n') { /* a splice: the next line joins this one */
				i = e;
				line++;
				continue;
			}
		}
		j[k++] = src[i];
		if (src[i] == '\n') {
			line++;
			from[++out] = line;
		}
	}
	j[k] = 0;
	b = blank(j, k); /* the same length: a header's name is read from j */
	for (p = b, out = 1; *p; out++) {
		char *q = p, *eol = strchr(p, '\n'), name[80];
		size_t m, c;
		while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\f' || *q == '\v')
			q++;
		if (*q == '#' || (q[0] == '%' && q[1] == ':')) {
			for (q += *q == '#' ? 1 : 2; *q == ' ' || *q == '\t'; q++)
				;
			m = !strncmp(q, "include_next", 12) ? 12 : !strncmp(q, "include", 7) ? 7 :
			    !strncmp(q, "import", 6) ? 6 : !strncmp(q, "embed", 5) ? 5 : 0;
			if (m && !isid((unsigned char)q[m]))
				rawinclude(v, from[out], j + (q - b) + m);
			if (isdigit((unsigned char)*q) || (!strncmp(q, "line", 4) && !isid((unsigned char)q[4])))
				violate(v, "include", from[out], "%s", "a line directive (#line, or # and a number) moves the "
				        "code that follows to another file's name: keep to the file you write");
			m = !strncmp(q, "define", 6) && !isid((unsigned char)q[6]) ? 6 :
			    !strncmp(q, "undef", 5) && !isid((unsigned char)q[5]) ? 5 : 0;
			for (q += m; m && (*q == ' ' || *q == '\t'); q++)
				;
			for (c = 0; m && isid((unsigned char)q[c]) && c < sizeof name - 1; c++)
				name[c] = q[c];
			name[m ? c : 0] = 0;
			if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])) && !featuremacro(name))
				violate(v, "interposition", from[out], "%s", "defines or undefines a reserved macro (__x, _X), "
				        "which the headers expand: only feature-test macros (_GNU_SOURCE, ...) may be set");
		}
		p = eol ? eol + 1 : p + strlen(p);
	}
	free(b);
	free(j);
	free(from);
}

json_t *
screenraw(const char *src, size_t n, json_t *allow)
{
	struct viol v = { json_array(), allow, NULL, NULL };

	rawdirectives(&v, src, n);
	return v.list;
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

/* nvcc's preprocessor spells __global__ and __device__ as attributes; in
 * the host's view a __host__ __device__ function is host code */
static int
devicehdr(const char *h, int host)
{
	if (host && (strstr(h, "__host__") || strstr(h, "__attribute__((host))")))
		return 0;
	return strstr(h, "__global__") || strstr(h, "__device__") || strstr(h, "__attribute__((global))") ||
	       strstr(h, "__attribute__((device))");
}

static void
entrypoint(struct viol *v, const char *s, const char *entry)
{
	const char *def = finddef(s, entry), *ls, *x = s;
	int in = 0;

	if (!def) {
		violate(v, "entry_point", 1, "does not define the host function '%s' the task asks for", entry);
		return;
	}
	/* extern "C": on the definition's line, or an enclosing extern "C" { } */
	for (ls = def; ls > s && ls[-1] != ';' && ls[-1] != '}' && ls[-1] != '{';)
		ls--;
	if (strstr(ls, "extern \"C\"") && strstr(ls, "extern \"C\"") < def)
		in = 1;
	while ((x = strstr(x, "extern \"C\"")) && x < def) {
		const char *y = x + 10;
		while (*y == ' ' || *y == '\n' || *y == '\t')
			y++;
		if (*y == '{')
			in = 1;
		x += 10;
	}
	if (!in)
		violate(v, "entry_point", lineof(v, s, def), "'%s' is defined without extern \"C\": the harness looks it "
		        "up by its unmangled name", entry);
}

/* a name CUB's allowed headers give (cubheader): the block-, warp- and
 * thread-level primitives, their algorithms' enums, the cache modifiers,
 * and the operators, types and warp helpers they are used with */
static int
cubnameok(const char *id, size_t n)
{
	static const char *const prefix[] = { "Block", "Warp", "BLOCK_", "WARP_", "Thread", "LOAD_", "STORE_", NULL };
	static const char *const word[] = {
		"Sum", "Max", "Min", "ArgMax", "ArgMin", "KeyValuePair", "Equality", "Inequality",
		"InequalityWrapper", "Difference", "Division", "CastOp", "NullType", "Traits", "NumericTraits",
		"Uninitialized", "LaneId", "LaneMaskLt", "LaneMaskLe", "LaneMaskGt", "LaneMaskGe",
		"ShuffleIndex", "ShuffleUp", "ShuffleDown", "RowMajorTid", "DivideAndRoundUp", NULL
	};
	const char *const *k;

	for (k = prefix; *k; k++)
		if (n > strlen(*k) && !strncmp(id, *k, strlen(*k)))
			return 1;
	for (k = word; *k; k++)
		if (n == strlen(*k) && !strncmp(id, *k, n))
			return 1;
	return 0;
}

/* cub::NAME (spaces allowed around ::) of any name but cubnameok's: the
 * device-wide algorithms, the allocator, CUB's internals */
static void
cubnames(struct viol *v, const char *s)
{
	const char *p = s, *hit;

	while ((hit = findword(p, "cub"))) {
		const char *q = hit + 3;
		size_t n = 0;
		char name[80];

		p = q;
		while (isspace((unsigned char)*q))
			q++;
		if (q[0] != ':' || q[1] != ':')
			continue;
		for (q += 2; isspace((unsigned char)*q); q++)
			;
		while (isid((unsigned char)q[n]))
			n++;
		if (cubnameok(q, n))
			continue;
		snprintf(name, sizeof name, "cub::%.*s", (int)(n < 70 ? n : 70), q);
		violate(v, "library", lineof(v, s, hit), "uses a library (%s): write the kernel yourself (of CUB, "
		        "only the block-, warp- and thread-level primitives are allowed)", name);
	}
}

static void
names(struct viol *v, const char *s)
{
	static const char *const lib[] = { "cublas*", "cudnn*", "cusparse*", "cufft*", "cusolver*",
	                                   "curandCreateGenerator", "curandGenerate*", "thrust::*",
	                                   "cutlass::*", "cute::*", "torch::*", "at::*", "c10::*",
	                                   "nvrtc*", NULL };
	static const char *const hostc[] = { "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc",
	                                     "cudaHostRegister", "cudaMemcpyDeviceToHost", "cudaMemcpyHostToHost",
	                                     "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbolAsync", NULL };
	static const char *const proc[] = { "system", "popen", "fork", "vfork", "execl", "execlp",
	                                    "execle", "execv", "execvp", "execvpe", "execve", "posix_spawn",
	                                    "posix_spawnp", "dlopen", "dlsym", "dlmopen", "dlvsym", "clone", "kill",
	                                    "ptrace", "syscall", "prctl", "mprotect", "signal", "sigaction",
	                                    "setjmp", "longjmp", "raise", "dl_iterate_phdr", NULL };
	static const char *const net[] = { "socket", "connect", "bind", "listen", "accept",
	                                   "gethostbyname", "getaddrinfo", "sendto", "recvfrom",
	                                   "curl_easy_init", NULL };
	static const char *const fio[] = { "fopen", "freopen", "fdopen", "open", "openat", "creat",
	                                   "mmap", "opendir", "unlink", "remove", "rename", "truncate",
	                                   "ftruncate", "chmod", "chdir", "mkdir", "symlink", NULL };
	static const char *const fiow[] = { "ofstream", "ifstream", "fstream", "filebuf", "filesystem", NULL };
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
	static const char *const dev[] = { "cudaDeviceReset", "cudaSetDevice", "cudaIpc*", "cudaMemGetInfo",
	                                   "cudaDeviceSetLimit", "cudaThreadExit", "cudaPointerGetAttributes",
	                                   "cudaGetDriverEntryPoint*", NULL };

	banwords(v, s, "library", lib, "uses a library (%s): write the kernel yourself");
	cubnames(v, s);
	banwords(v, s, "host_compute", hostc, "uses %s: the work must stay on the GPU, on the device pointers the "
	         "harness passes");
	bancalls(v, s, "process", proc, "calls %s()");
	bancalls(v, s, "network", net, "calls %s(): no network access");
	bancalls(v, s, "file_io", fio, "calls %s(): no file access");
	banwords(v, s, "file_io", fiow, "uses %s: no file access");
	banwords(v, s, "environment", envw, "reads or changes the environment (%s)");
	bancalls(v, s, "threads", thr, "calls %s(): no host threads");
	banwords(v, s, "threads", thrw, "uses %s: no host threads");
	banwords(v, s, "timing", tim, "uses a timer (%s): the harness does the timing");
	bancalls(v, s, "timing", timc, "calls %s(): the harness does the timing");
	banwords(v, s, "streams", str, "uses %s: launch on the default stream, no side streams or graphs");
	banwords(v, s, "device_state", dev, "uses %s: the harness owns the device");
}

/* strings (unblanked text): timer registers, system paths, load-time sections */
static void
strings(struct viol *v, const char *raw)
{
	static const char *const pats[][3] = {
		{ "globaltimer", "timing", "reads a GPU timer register" },
		{ "%clock", "timing", "reads a GPU timer register" },
		{ "/proc/", "file_io", "names a system path (/proc, /dev, /etc or /sys)" },
		{ "/dev/", "file_io", "names a system path (/proc, /dev, /etc or /sys)" },
		{ "/etc/", "file_io", "names a system path (/proc, /dev, /etc or /sys)" },
		{ "/sys/", "file_io", "names a system path (/proc, /dev, /etc or /sys)" },
		{ ".init_array", "interposition", "puts code in a load-time section (.init_array)" },
		{ ".ctors", "interposition", "puts code in a load-time section (.ctors)" },
		{ ".preinit_array", "interposition", "puts code in a load-time section (.preinit_array)" },
		{ "LD_PRELOAD", "interposition", "names LD_PRELOAD" },
		{ ".incbin", "asm", "embeds a file with .incbin" },
	};

	for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
		const char *at = strstr(raw, pats[k][0]);
		if (at)
			violate(v, pats[k][1], lineof(v, raw, at), "%s", pats[k][2]);
	}
}

/* a function defined at file scope with a C library or CUDA function's name */
static void
definition(struct viol *v, const char *s, const char *p, const char *hdr, const char *entry)
{
	const char *paren = strchr(hdr, '('), *e = paren;
	char name[128];
	size_t k = 0;

	while (e > hdr && isspace((unsigned char)e[-1]))
		e--;
	while (e > hdr && isid((unsigned char)e[-1]) && k < 100)
		e--, k++;
	snprintf(name, sizeof name, "%.*s", (int)k, e);
	if (!name[0] || !strcmp(name, entry) || !json_object_get(v->reserved, name))
		return;
	violate(v, "interposition", lineof(v, s, p), "defines %s(), which shadows a function of the C library or the "
	        "CUDA runtime", name);
}

/* a constructor or destructor attribute between p and end (__attribute__((...)) or [[...]]) */
static int
ctorin(const char *p, const char *end)
{
	static const char *const words[] = { "constructor", "destructor", "__constructor__", "__destructor__" };

	for (size_t k = 0; end && k < sizeof words / sizeof words[0]; k++) {
		const char *w = findword(p, words[k]);
		if (w && w < end)
			return 1;
	}
	return 0;
}

/* walk the braces: function definitions, device code, asm, constructors */
static void
structure(struct viol *v, const char *s, const char *entry, int host)
{
	int depth = 0, devicedepth = -1, externc = 0;
	char hdr[1024];

	for (const char *p = s; *p; p++) {
		if (*p == '#' && (p == s || p[-1] == '\n')) { /* a pragma line */
			const char *eol = strchr(p, '\n');
			if (strstr(p, "omp") && (!eol || strstr(p, "omp") < eol) && strstr(p, "pragma") &&
			    strstr(p, "pragma") < strstr(p, "omp"))
				violate(v, "threads", lineof(v, s, p), "%s", "uses OpenMP (#pragma omp)");
			if (!eol)
				break;
			p = eol;
			continue;
		}
		if (*p == '{') {
			headerbefore(s, p, hdr, sizeof hdr);
			if (depth == externc && strchr(hdr, '('))
				definition(v, s, p, hdr, entry);
			else if (depth == 0 && strstr(hdr, "extern \"C\"") && !strchr(hdr, '('))
				externc = 1; /* extern "C" { ... } */
			/* a device function (or lambda) at any depth */
			if (devicedepth < 0 && strchr(hdr, '(') && devicehdr(hdr, host))
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
				violate(v, "asm", lineof(v, s, p), "%s", "inline asm outside device code: only PTX in "
				        "__device__ or __global__ functions is allowed");
		}
	}
	for (const char *p = s; (p = strstr(p, "__attribute__")); p += 13)
		if (ctorin(p, strstr(p, "))")))
			violate(v, "interposition", lineof(v, s, p), "%s", "runs code at load time (a constructor or "
			        "destructor attribute)");
	for (const char *p = s; (p = strstr(p, "[[")); p += 2) /* [[gnu::constructor]] */
		if (ctorin(p, strstr(p, "]]")))
			violate(v, "interposition", lineof(v, s, p), "%s", "runs code at load time (a constructor or "
			        "destructor attribute)");
}

/* one view: the host's (host 1) holds the entry point and the launches */
static void
screenview(struct viol *v, const struct view *w, const char *entry, int host)
{
	char *s = blank(w->text.s, w->text.n);

	v->view = w;
	includes(v, w);
	if (host) {
		entrypoint(v, s, entry);
		if (!strstr(s, "__global__") && !strstr(s, "__attribute__((global))"))
			violate(v, "kernel", 1, "%s", "defines no __global__ kernel: the work must run on the GPU");
		else if (!strstr(s, "<<<") && !findword(s, "cudaLaunchKernel") && !findword(s, "cudaLaunchKernelEx") &&
		         !findword(s, "cudaLaunchCooperativeKernel"))
			violate(v, "kernel", 1, "%s", "never launches a kernel (no <<<...>>> or cudaLaunchKernel)");
	}
	names(v, s);
	strings(v, w->text.s);
	structure(v, s, entry, host);
	free(s);
}

json_t *
screen(const char *devicei, const char *hosti, const char *file, const struct screenrules *rules)
{
	const char *entry = rules->entry;
	struct viol v = { json_array(), rules->allow, NULL, rules->reserved };
	struct view dv, hv;

	viewload(&dv, devicei, file);
	viewload(&hv, hosti, file);
	screenview(&v, &dv, entry, 0);
	screenview(&v, &hv, entry, 1);
	viewfree(&dv);
	viewfree(&hv);
	return v.list;
}
