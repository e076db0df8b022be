/* t-spec.c - task specs: validation, matrix expansion, the resolved JSON */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/gen/yaml.h"
#include "../../src/gen/spec.h"
#include "../../src/lib/task.h"
#include "../../src/lib/json.h"
#include "../../src/lib/tensor.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

static char dir[] = "/tmp/t-spec.XXXXXX";
static char errs[8192];
static struct specfile sf;

static const char base[] =
	"id: scale\n"
	"description: Scale x by {k}.\n"
	"entry: scale\n"
	"args:\n"
	"  - {name: x, kind: in, dtype: \"{dtype}\", shape: [n]}\n"
	"  - {name: y, kind: out, dtype: \"{dtype}\", shape: [n]}\n"
	"  - {name: n, kind: size}\n"
	"  - {name: alpha, kind: scalar, dtype: f32, value: 1 / sqrt(n)}\n"
	"sizes:\n"
	"  verify: [{n: 7}, {n: \"{k}\"}]\n"
	"  bench: {n: 4096}\n"
	"cost: {flops: 2 * n}\n"
	"matrix:\n"
	"  dtype: [f32, bf16]\n"
	"  k: [16, 32, 64]\n";

/* load yaml from a file; returns specload's result, errors in errs */
static int
load(const char *yaml)
{
	char path[256];
	int fd, saved, r;
	FILE *f;

	specfree(&sf);
	diagreset();
	snprintf(path, sizeof path, "%s/s.yaml", dir);
	f = fopen(path, "w");
	fputs(yaml, f);
	fclose(f);
	fflush(stderr);
	saved = dup(2);
	fd = open("/tmp/t-spec.err", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2);
	close(fd);
	r = specload(path, &sf);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fopen("/tmp/t-spec.err", "r");
	errs[fread(errs, 1, sizeof errs - 1, f)] = 0;
	fclose(f);
	return r;
}

/* yaml is base with one line replaced (or appended when from is NULL) */
static int
loadwith(const char *from, const char *to)
{
	char y[4096];
	const char *p;

	if (!from) {
		snprintf(y, sizeof y, "%s%s", base, to);
		return load(y);
	}
	p = strstr(base, from);
	if (!p)
		return 99;
	snprintf(y, sizeof y, "%.*s%s%s", (int)(p - base), base, to, p + strlen(from));
	return load(y);
}

static int
has(const char *want)
{
	if (strstr(errs, want))
		return 1;
	printf("#   errors lack '%s':\n#   %s\n", want, errs);
	return 0;
}

/* a valid spec: its variants, ids, signature, cases, tolerances */
static void
validspec(void)
{
	json_t *v, *c;

	is_int(load(base), 0, "valid spec loads");
	is_int(sf.nv, 6, "matrix 2 x 3 expands to 6 variants");
	is_str(sf.v[0].id, "scale.f32.k16", "first id: keys in file order, numbers prefixed by key");
	is_str(sf.v[5].id, "scale.bf16.k64", "last id: the last key varies fastest");
	v = sf.v[4].json;
	is_str(jstr(v, "id", ""), "scale.bf16.k32", "task.json names its variant");
	is_str(jstr(v, "description", ""), "Scale x by 32.", "placeholders substituted in text");
	is_str(jstr(v, "signature", ""),
	       "extern \"C\" void scale(const __nv_bfloat16* x, __nv_bfloat16* y, int n, float alpha)",
	       "entry point signature from args and dtypes");
	ok(!json_object_get(v, "reference_signature"), "no reference signature in task.json (abi.h makes it)");
	{
		char *t = specsubst("typedef R_{dtype} real; int a[] = {k}, b[] = { k }; {kk} {dtype",
		                    json_object_get(v, "matrix"));
		is_str(t, "typedef R_bf16 real; int a[] = 32, b[] = { k }; {kk} {dtype",
		       "specsubst: a variant's {KEY}s replaced, as in the spec's own text, nothing else");
		free(t);
	}
	{
		struct abiarg a[] = { { "x", ARG_IN, DT_BF16 }, { "y", ARG_OUT, DT_BF16 }, { "n", ARG_SIZE, DT_I32 },
		                      { "alpha", ARG_SCALAR, DT_BF16 } };
		char *sig = abisignature(a, 4, "reference", 1);
		is_str(sig, "void reference(const float* x, float* y, int n, float alpha)",
		       "reference signature uses host compute types");
		free(sig);
		sig = abiincludes(a, 4);
		is_str(sig, "#include <cuda_bf16.h>\n#include <stdint.h>\n", "the headers of a bf16 signature's types");
		free(sig);
	}
	{
		struct abiarg a[] = { { "x", ARG_IN, DT_F32 }, { "i", ARG_IN, DT_I64 }, { "n", ARG_SIZE, DT_I64 },
		                      { "s", ARG_SCALAR, DT_F16 } };
		char *inc = abiincludes(a, 4);
		is_str(inc, "#include <stdint.h>\n", "float, integer and half-scalar signatures need stdint.h alone");
		free(inc);
		a[0].dt = DT_F8E4M3;
		a[1].dt = DT_F16;
		a[2].dt = DT_F8E5M2;
		a[2].kind = ARG_OUT;
		inc = abiincludes(a, 4);
		is_str(inc, "#include <cuda_fp8.h>\n#include <cuda_fp16.h>\n#include <stdint.h>\n",
		       "each header once, in the order the arguments need them");
		free(inc);
	}
	c = json_array_get(json_object_get(json_object_get(v, "cases"), "verify"), 1);
	is_int(jint(json_object_get(c, "sizes"), "n", 0), 32, "verify size from a placeholder");
	ok(jnum(json_object_get(c, "scalars"), "alpha", 0) == 1 / sqrt(32.0), "scalar value evaluated per case");
	is_int(json_integer_value(json_array_get(json_object_get(json_object_get(c, "shapes"), "x"), 0)), 32,
	       "shape evaluated per case");
	is_int(jint(c, "flops", 0), 64, "flops formula");
	is_int(jint(c, "bytes", 0), 2 * 32 * 2, "default bytes: inputs read once, outputs written once");
	c = json_object_get(json_object_get(v, "tolerance"), "y");
	ok(jnum(c, "rel_norm", 0) == 2e-2, "bf16 output gets the bf16 default tolerance");
	ok(json_is_array(json_object_get(json_object_get(v, "cases"), "bench")) &&
	   json_array_size(json_object_get(json_object_get(v, "cases"), "bench")) == 1,
	   "a single bench mapping is a list of one");
}

/* misspelled keys, bad kinds, dtypes, types, expressions, sizes and matrices: refused, with where and what */
static void
specerrors(void)
{
	is_int(loadwith("description:", "descriptoin:"), -1, "misspelled key refused");
	ok(has("s.yaml:2:1: unknown key 'descriptoin' (did you mean 'description'?)"), "did-you-mean with position");
	ok(has("missing required key 'description'"), "and the required key is missing");
	is_int(loadwith("shape: [n]}\n  - {name: y", "shpae: [n]}\n  - {name: y"), -1, "misspelled arg key");
	ok(has("unknown key 'shpae' in an arg (did you mean 'shape'?)"), "did-you-mean inside args");
	is_int(loadwith("kind: size", "kind: sizes"), -1, "bad arg kind");
	ok(has("unknown arg kind 'sizes' (did you mean 'size'?)"), "kind suggestion");
	is_int(loadwith("dtype: [f32, bf16]", "dtype: [f32, bf61]"), -1, "unknown dtype from the matrix");
	ok(has("unknown dtype 'bf61' (did you mean 'bf16'?)") && has("(in variant 'scale.bf61.k16')"),
	   "unknown dtype names the variant");
	is_int(loadwith("entry: scale", "entry: [a, b]"), -1, "wrong type");
	ok(has("entry must be a single value, not a list"), "type error message");
	is_int(loadwith("shape: [n]}\n  - {name: y", "shape: [n +]}\n  - {name: y"), -1, "bad expression");
	ok(has("bad expression in shape 'n +': unexpected end of expression"), "expression error");
	is_int(loadwith("verify: [{n: 7}", "verify: [{n: 0}"), -1, "zero size");
	ok(has("size 'n' = 0 must be a positive integer"), "size must be positive");
	is_int(loadwith("verify: [{n: 7}", "verify: [{m: 7}"), -1, "size of no arg");
	ok(has("'m' is not a size arg") && has("lacks size arg 'n'"), "sizes name exactly the size args");
	is_int(loadwith("  k: [16, 32, 64]\n", "  k: []\n"), -1, "empty matrix");
	ok(has("matrix 'k' must be a non-empty list"), "empty matrix message");
	is_int(loadwith("  k: [16, 32, 64]\n", "  k: [16, 32, 64]\n  unused: [a, b]\n"), -1, "unused matrix key");
	ok(has("matrix key 'unused' is never used as {unused}"), "unused matrix key message");
}

/* a matrix past the cap of variants is refused before it is expanded */
static void
matrixcap(void)
{
	char big[4096] = "  k: [16, 32, 64]\n";
	const char *keys[] = { "a", "b", "c", "d", "e" };
	for (int i = 0; i < 5; i++)
		snprintf(big + strlen(big), sizeof big - strlen(big),
		         "  %s: [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9]\n", keys[i]);
	char y[8192];
	snprintf(y, sizeof y, "%s", base);
	strcpy(strstr(y, "  k: [16"), big);
	strcat(y, "hints: [\"{a}{b}{c}{d}{e}\"]\n");
	is_int(load(y), -1, "exploding matrix refused");
	ok(has("matrix expands to 600000 variants, more than the cap of 20000"), "cap message");
	is_int(sf.nv, 0, "and nothing was expanded");
}

/* tolerance keys: suggestions, and per-output over global over the dtype default */
static void
tolerancekeys(void)
{
	json_t *c;
	char y[4096], *p;

	is_int(loadwith(NULL, "tolerance: {rtl: 1}\n"), -1, "bad tolerance key");
	ok(has("unknown key 'rtl' in tolerance (did you mean 'rtol'?)"), "tolerance suggestion");
	is_int(loadwith(NULL, "tolerance: {y: {atol: 0.5}, rtol: 0.01}\n"), 0, "per-output and global tolerance");
	c = json_object_get(json_object_get(sf.v[0].json, "tolerance"), "y");
	ok(jnum(c, "atol", 0) == 0.5 && jnum(c, "rtol", 0) == 0.01 && jnum(c, "rel_norm", 0) == 1e-4,
	   "tolerances merge: per-output over global over the dtype default");
	/* a dtype's own: its outputs only (variant 0 is f32, the last bf16) */
	is_int(loadwith(NULL, "tolerance: {f32: {atol: 5e-4}, rtol: 0.02}\n"), 0, "a dtype's tolerance");
	c = json_object_get(json_object_get(sf.v[0].json, "tolerance"), "y");
	ok(jnum(c, "atol", 0) == 5e-4 && jnum(c, "rtol", 0) == 0.02, "f32 outputs take f32's over the global");
	c = json_object_get(json_object_get(sf.v[sf.nv - 1].json, "tolerance"), "y");
	ok(jnum(c, "atol", 0) == 1e-2 && jnum(c, "rtol", 0) == 0.02, "bf16 outputs keep bf16's default atol");
	is_int(loadwith(NULL, "tolerance: {f32: {atol: 5e-4}, y: {atol: 0.25}}\n"), 0, "dtype and output");
	c = json_object_get(json_object_get(sf.v[0].json, "tolerance"), "y");
	ok(jnum(c, "atol", 0) == 0.25, "the output's own over its dtype's");
	/* an output called like a dtype: the key is the output's alone */
	snprintf(y, sizeof y, "%s%s", base, "tolerance: {f32: {atol: 0.25}}\n");
	p = strstr(y, "  - {name: n, kind: size}\n");
	memmove(p + 52, p, strlen(p) + 1);
	memcpy(p, "  - {name: f32, kind: out, dtype: bf16, shape: [n]}\n", 52);
	is_int(load(y), 0, "an output named f32");
	c = json_object_get(sf.v[0].json, "tolerance");
	ok(jnum(json_object_get(c, "f32"), "atol", 0) == 0.25 && jnum(json_object_get(c, "y"), "atol", 0) == 1e-5,
	   "its key is the output's, not f32 outputs'");
	is_int(loadwith(NULL, "tolerance: {f33: {atol: 1}}\n"), -1, "an unknown dtype key");
	ok(has("unknown key 'f33' in tolerance"), "named");
	is_int(loadwith(NULL, "tolerance: {bf16: {atl: 1}}\n"), -1, "a bad key in a dtype's tolerance");
	ok(has("unknown key 'atl' in a tolerance (did you mean 'atol'?)"), "suggested");
}

/* YAML keys: duplicates and non-scalars, at the alias rather than the anchor */
static void
yamlkeys(void)
{
	is_int(load("id: a\nid: b\n"), -1, "duplicate key");
	ok(has("s.yaml:2:1: duplicate key 'id' (first at line 1)"), "duplicate key message");
	is_int(load("a: 1\n? [x]\n: 2\nb: 3\n"), -1, "a list as a key, then another key");
	ok(has("s.yaml:2:3: mapping keys must be plain names, not a list"), "non-scalar key message");
	is_int(load("l: &l {x: 1}\n*l : 1\nb: 2\nl: 3\n"), -1, "an aliased mapping as a key");
	ok(has("s.yaml:2:1: mapping keys must be plain names, not a mapping"), "at the alias, not the anchor");
	ok(has("s.yaml:4:1: duplicate key 'l' (first at line 1)"), "later keys still compared");
	is_int(load("k: &a id\nid: x\n*a : y\n"), -1, "an alias as a duplicate key");
	ok(has("s.yaml:3:1: duplicate key 'id' (first at line 2)"), "duplicate key at the alias's line");
}

/* YAML files: a mapping, one document, no tags, valid UTF-8 */
static void
yamldocuments(void)
{
	is_int(load("- just\n- a list\n"), -1, "root must be a mapping");
	is_int(load(""), -1, "empty file");
	ok(has("s.yaml: empty file: no YAML document"), "empty file message");
	is_int(load("id: a\n---\nid: b\n"), -1, "two documents");
	ok(has("one YAML document per file"), "two documents message");
	is_int(load("id: !!str a\n"), -1, "tags refused");
	is_int(load("id: \"caf\xc3\xa9\"\nx: \"\xc3\x28\"\n"), -1, "invalid UTF-8");
	ok(has("s.yaml:2:6: not valid UTF-8 text"), "UTF-8 error with line and column");
}

/* YAML aliases: a budget on their expansion, undefined ones refused, modest ones fine */
static void
aliases(void)
{
	is_int(load("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	            "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
	            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
	            "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
	            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"), -1, "billion laughs refused");
	ok(has("more than 100000 nodes once aliases are expanded"), "alias budget message");
	is_int(load("a: *nope\n"), -1, "undefined alias");
	ok(has("alias '*nope' names no complete anchor"), "undefined alias message");
	{
		char y[4096];
		snprintf(y, sizeof y, "%s", base);
		strcpy(strstr(y, "sizes:"), "sizes: &s\n  verify: [{n: 7}]\n  bench: {n: 4096}\n"
		       "cost: {flops: 2 * n}\nhints: [\"{dtype}{k}\"]\nmatrix: {dtype: [f32], k: [1]}\n");
		is_int(load(y), 0, "a modest anchor is fine");
	}
}

/* speckeeps: asked for each variant once it is resolved (id, spec and
 * tags set); asked with every variant, it is kept only where it says so */
static char asked[512];

static int
keepk32(const struct variant *v)
{
	snprintf(asked + strlen(asked), sizeof asked - strlen(asked), "%s/%s/%s ", v->id, v->spec,
	         v->ntags ? v->tags[0] : "-");
	return !strcmp(v->id, "scale.bf16.k32");
}

static int
keepnone(const struct variant *v)
{
	(void)v;
	return 0;
}

/* only a kept variant's JSON, hidden cases and pool are made; they are
 * the ones every variant's would be, and the others are validated all the same */
static void
keeping(void)
{
	json_t *all, *cases;
	size_t i, kept = 0;

	is_int(loadwith(NULL, "tags: [scaling]\n"), 0, "every variant kept (speckeeps NULL)");
	all = json_deep_copy(json_object_get(sf.v[4].json, "cases"));
	ok(json_array_size(json_object_get(all, "pool")) > 0 && json_is_array(json_object_get(all, "hidden")),
	   "a kept variant has its pool and hidden cases");
	speckeeps = keepk32;
	is_int(loadwith(NULL, "tags: [scaling]\n"), 0, "one variant kept");
	is_str(asked, "scale.f32.k16/scale/scaling scale.f32.k32/scale/scaling scale.f32.k64/scale/scaling "
	       "scale.bf16.k16/scale/scaling scale.bf16.k32/scale/scaling scale.bf16.k64/scale/scaling ",
	       "speckeeps asked once a variant, resolved: its id, spec and tags");
	is_int(sf.nv, 6, "every variant is listed");
	for (i = 0; i < sf.nv; i++)
		kept += sf.v[i].json != NULL;
	is_int(kept, 1, "only the kept one has its JSON");
	cases = json_object_get(sf.v[4].json, "cases");
	ok(cases && json_equal(cases, all), "its cases, hidden and pool included, are those every variant's would be");
	speckeeps = keepnone;
	is_int(loadwith("dtype: [f32, bf16]", "dtype: [f32, bf61]"), -1, "kept or not, a bad variant is refused");
	ok(has("unknown dtype 'bf61' (did you mean 'bf16'?)"), "with its message");
	is_int(loadwith(NULL, "tags: [scaling]\n"), 0, "none kept: the spec still loads");
	ok(sf.nv == 6 && !sf.v[0].json && !sf.v[5].json, "its variants, none with JSON");
	speckeeps = NULL;
	json_decref(all);
}

int
main(void)
{
	setprogname("t-spec");
	if (!mkdtemp(dir))
		return 1;
	specpromptdir = NULL;

	validspec();
	specerrors();
	matrixcap();
	tolerancekeys();
	yamlkeys();
	yamldocuments();
	aliases();
	keeping();
	specfree(&sf);
	{
		char cmd[300];
		snprintf(cmd, sizeof cmd, "rm -rf %s /tmp/t-spec.err", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "# cannot remove the scratch files\n");
	}
	return done_testing();
}
