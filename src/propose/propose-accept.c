/*
 * NAME
 *     propose-accept - the accepted specs from every proposal check
 *
 * SYNOPSIS
 *     propose-accept [options] -o ACCEPTED_JSON --specs DIR [--corpus FILE] @CHECKS
 *     propose-accept --teacher-references -o ACCEPTED_JSON --specs DIR @PAIRS
 *     propose-accept --baselines -o BASELINES_JSON @ORACLES
 *
 * DESCRIPTION
 *     Reads every propose-check record of the build, and each batch's
 *     agreement of independent references, in the graph's order. A
 *     proposal's outcome is its last round's. One that passed is held
 *     back when its references did not agree, dropped when it duplicates
 *     an accepted proposal or a hand-written spec (its behavioural
 *     fingerprint, or its text's MinHash), and accepted otherwise.
 *     An accepted spec is written to DIR/<id>.yaml, its id made unique,
 *     with its origin. Files in DIR no longer accepted are removed.
 *     ACCEPTED_JSON lists the accepted specs and changes only when that
 *     set does: build.ninja depends on it. report.json beside it counts
 *     the outcomes per family.
 *     --teacher-references completes each `reference: teacher` spec
 *     whose references agreed, or holds it back. --baselines reads the
 *     oracle verdicts of accepted proposals' baselines and holds back
 *     those that disagree with their references.
 *
 * FILES
 *     out/propose/specs/, accepted.json, report.json, baselines.json;
 *     out/teacherref/specs/, out/teacherref/accepted.json.
 *
 * EXIT STATUS
 *     0 written; 1 cannot write; 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/propose.md
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/schema.h"
#include "../lib/util.h"

static const char usage[] = "usage: propose-accept [options] -o ACCEPTED_JSON --specs DIR [--corpus FILE] @CHECKS\n"
                            "       propose-accept --teacher-references -o ACCEPTED_JSON --specs DIR @PAIRS\n"
                            "       propose-accept --baselines -o BASELINES_JSON @ORACLES\n";

struct opts {
	const char *out, *specs, *tasksdir, *corpus;
	double near;
	int teacher; /* --teacher-references */
	int baselines; /* --baselines */
};

enum { MINHASH_K = 64, BANDS = 16, ROWS = MINHASH_K / BANDS };

/*
 * The accepted so far, and the hand-written corpus: fingerprints (the
 * behaviour) and MinHash signatures (the text) with the name each belongs
 * to ("corpus:ID" for a hand-written spec), the signatures in LSH buckets
 * (BANDS bands of ROWS minima: texts that agree on a whole band are
 * compared in full).
 */
struct index {
	json_t *fp;      /* fingerprint: name */
	json_t *sigs;    /* [[signature, name]] */
	json_t *buckets; /* "band:minima": [index into sigs] */
};

/* how many of the two signatures' minima agree, as a share: the texts' estimated Jaccard similarity */
static double
similarity(const char *a, const char *b)
{
	int i, same = 0;

	if (strlen(a) != MINHASH_K * 8 || strlen(b) != MINHASH_K * 8)
		return 0;
	for (i = 0; i < MINHASH_K; i++)
		same += !strncmp(a + 8 * i, b + 8 * i, 8);
	return (double)same / MINHASH_K;
}

static void
bandkey(char *key, size_t cap, const char *sig, int band)
{
	snprintf(key, cap, "%d:%.*s", band, ROWS * 8, sig + band * ROWS * 8);
}

/* the name of a text near sig (estimated Jaccard >= near), or NULL */
static const char *
nearest(const struct index *x, const char *sig, double near)
{
	char key[ROWS * 8 + 16];
	int band;

	if (strlen(sig) != MINHASH_K * 8)
		return NULL;
	for (band = 0; band < BANDS; band++) {
		json_t *c, *e;
		size_t i;
		bandkey(key, sizeof key, sig, band);
		c = json_object_get(x->buckets, key);
		json_array_foreach(c, i, e) {
			json_t *s = json_array_get(x->sigs, (size_t)json_integer_value(e));
			if (similarity(sig, json_string_value(json_array_get(s, 0))) >= near)
				return json_string_value(json_array_get(s, 1));
		}
	}
	return NULL;
}

static void
indexadd(struct index *x, const char *fp, const char *sig, const char *name)
{
	char key[ROWS * 8 + 16];
	size_t k = json_array_size(x->sigs);
	int band;

	if (fp && *fp && !json_object_get(x->fp, fp))
		json_object_set_new(x->fp, fp, json_string(name));
	if (!sig || strlen(sig) != MINHASH_K * 8)
		return;
	json_array_append_new(x->sigs, json_pack("[s,s]", sig, name));
	for (band = 0; band < BANDS; band++) {
		json_t *c;
		bandkey(key, sizeof key, sig, band);
		if (!(c = json_object_get(x->buckets, key)))
			json_object_set_new(x->buckets, key, c = json_array());
		json_array_append_new(c, json_integer((json_int_t)k));
	}
}

/* --corpus: the hand-written specs into the index */
static void
corpusindex(struct index *x, const char *path)
{
	json_t *c = jmustload(path), *e;
	size_t i;

	json_array_foreach(json_object_get(c, "specs"), i, e) {
		char *name = xasprintf("corpus:%s", jstr(e, "id", "?"));
		indexadd(x, jstr(e, "fingerprint", NULL), jstr(e, "minhash", NULL), name);
		free(name);
	}
	json_decref(c);
}

/* is rec a duplicate: of what (*of), and how ("fingerprint" or "text"); NULL when it is new */
static const char *
duplicate(const struct index *x, json_t *rec, double near, const char **of)
{
	const char *fp = jstr(rec, "fingerprint", "");

	if (*fp && (*of = json_string_value(json_object_get(x->fp, fp))))
		return "fingerprint";
	if ((*of = nearest(x, jstr(rec, "minhash", ""), near)))
		return "text";
	return NULL;
}

/* the ids of the hand-written specs: each file's top-level "id:" line */
static json_t *
handwritten(const char *dir)
{
	json_t *ids = json_object();
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		die(EXIT_USAGE, "cannot open '%s':", dir);
	while ((e = readdir(d))) {
		struct buf b;
		char *p, *line, id[256];
		if (e->d_name[0] == '.' || !endswith(e->d_name, ".yaml"))
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		bufinit(&b, 1 << 20);
		if (readfile(p, &b) == 0)
			for (line = b.s; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
				if (sscanf(line, "id: %255[A-Za-z0-9_-]", id) == 1) {
					json_object_set_new(ids, id, json_string(p));
					break;
				}
		buffree(&b);
		free(p);
	}
	closedir(d);
	return ids;
}

/* family's counts in the report */
static json_t *
counts(json_t *report, const char *family)
{
	json_t *c = json_object_get(report, family);

	if (!c) {
		c = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:{}}", "proposed", 0, "passed", 0, "invalid", 0,
		              "given_up", 0, "references_disagree", 0, "duplicates", 0, "near_duplicates", 0,
		              "corpus_twins", 0, "accepted", 0, "rejected_by_rule");
		json_object_set_new(report, family, c);
	}
	return c;
}

static void
bump(json_t *o, const char *key)
{
	json_object_set_new(o, key, json_integer(jint(o, key, 0) + 1));
}

/* an agreement's problems (propose-check --agree), keyed "task#index", into agreed */
static void
agreements(json_t *ag, json_t *agreed)
{
	json_t *p;
	size_t k;

	json_array_foreach(json_object_get(ag, "problems"), k, p) {
		char key[400];
		snprintf(key, sizeof key, "%s#%06" JSON_INTEGER_FORMAT, jstr(ag, "task", "?"), jint(p, "index", 0));
		json_object_set(agreed, key, p);
	}
}

/* the final record of each proposal: the last round's, keyed "task#index";
 * the batches' agreements (agree.json) into agreed */
static json_t *
finals(char **paths, size_t n, json_t *report, json_t **order, json_t *agreed)
{
	json_t *last = json_object();
	size_t i, k;

	*order = json_array();
	for (i = 0; i < n; i++) {
		int ag = endswith(paths[i], "agree.json");
		json_t *ck = schemaload(paths[i], ag ? schema_agree_json : schema_check_json), *p;
		if (ag) {
			agreements(ck, agreed);
			json_decref(ck);
			continue;
		}
		json_array_foreach(json_object_get(ck, "proposals"), k, p) {
			char key[400];
			snprintf(key, sizeof key, "%s#%06" JSON_INTEGER_FORMAT, jstr(ck, "task", "?"), jint(p, "index", 0));
			if (!json_object_get(last, key)) {
				json_array_append_new(*order, json_string(key));
				if (jint(ck, "round", 1) == 1)
					bump(counts(report, jstr(ck, "family", "?")), "proposed");
			}
			json_object_set_new(last, key, json_pack("{s:O,s:s,s:s?,s:s?,s:s?}", "rec", p, "family",
			                    jstr(ck, "family", "?"), "provider", jstr(ck, "provider", NULL), "model",
			                    jstr(ck, "model", NULL), "key", jstr(ck, "key", NULL)));
		}
		json_decref(ck);
	}
	return last;
}

/* the spec's text with its id renamed (at the position propose-check recorded) and its origin */
static char *
spectext(json_t *f, const char *id, const char *agreement)
{
	json_t *rec = json_object_get(f, "rec"), *r;
	const char *text = jstr(rec, "spec", ""), *p = text, *old = jstr(rec, "id", "");
	int line = (int)jint(rec, "id_line", 0), col = (int)jint(rec, "id_col", 0), l;
	struct buf b, checks;
	size_t i;

	bufinit(&b, 1 << 20);
	bufinit(&checks, 1 << 12);
	for (l = 1; l < line && p; l++)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	if (p && col >= 1 && strncmp(p + col - 1, old, strlen(old)) == 0) {
		bufput(&b, text, (size_t)(p + col - 1 - text));
		bufputs(&b, id);
		bufputs(&b, p + col - 1 + strlen(old));
	} else {
		bufputs(&b, text);
	}
	if (b.n && b.s[b.n - 1] != '\n')
		bufputc(&b, '\n');
	json_array_foreach(json_object_get(rec, "rules"), i, r)
		bufprintf(&checks, "%s%s", i ? "," : "", jstr(r, "rule", ""));
	bufprintf(&b, "origin:\n  source: teacher\n  family: %s\n  provider: \"%s\"\n  model: \"%s\"\n  request: \"%s\"\n"
	          "  round: %" JSON_INTEGER_FORMAT "\n  checks: \"%s\"\n", jstr(f, "family", "?"), jstr(f, "provider", "?"),
	          jstr(f, "model", "?"), jstr(f, "key", ""), jint(rec, "round", 1), checks.s ? checks.s : "");
	if (agreement)
		bufprintf(&b, "  references: \"%s\"\n", agreement);
	buffree(&checks);
	return bufdetach(&b);
}

/* a unique id: id, else id_2, id_3, ... */
static char *
uniqueid(json_t *taken, const char *id)
{
	char *s = xstrdup(id);
	int k;

	for (k = 2; json_object_get(taken, s); k++) {
		free(s);
		s = xasprintf("%s_%d", id, k);
	}
	return s;
}

/* remove DIR's specs that are not in keep */
static void
prune(const char *dir, json_t *keep)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (endswith(e->d_name, ".yaml") && !json_object_get(keep, e->d_name)) {
			char *p = xasprintf("%s/%s", dir, e->d_name);
			if (unlink(p) < 0)
				die(EXIT_RETRY, "cannot remove '%s':", p);
			free(p);
		}
	closedir(d);
}

static int
accept(const struct opts *o, char **paths, size_t n)
{
	json_t *report = json_object(), *order, *last, *taken = handwritten(o->tasksdir);
	struct index x = { json_object(), json_array(), json_object() };
	json_t *accepted = json_array(), *dups = json_array(), *files = json_object(), *k;
	json_t *agreed = json_object(), *held = json_array();
	size_t i, nagree;
	char *rp;

	last = finals(paths, n, report, &order, agreed);
	nagree = 0;
	for (i = 0; i < n; i++)
		nagree += endswith(paths[i], "agree.json");
	if (o->corpus)
		corpusindex(&x, o->corpus);
	if (mkdirp(o->specs) < 0)
		die(EXIT_RETRY, "cannot create '%s':", o->specs);
	json_array_foreach(order, i, k) {
		json_t *f = json_object_get(last, json_string_value(k)), *rec = json_object_get(f, "rec"), *ag;
		json_t *c = counts(report, jstr(f, "family", "?"));
		const char *st = jstr(rec, "status", ""), *fp = jstr(rec, "fingerprint", ""), *by, *of = NULL;
		char *id, *text, *file, *path;
		if (!strcmp(st, "empty")) {
			bump(c, "given_up");
			continue;
		}
		if (strcmp(st, "passed")) {
			bump(c, "invalid");
			bump(json_object_get(c, "rejected_by_rule"), jstr(rec, "failed_rule", "?"));
			continue;
		}
		bump(c, "passed");
		ag = json_object_get(agreed, json_string_value(k));
		if (nagree && (!ag || strcmp(jstr(ag, "status", ""), "agreed"))) {
			/* its references did not agree: held back, with what they found */
			bump(c, "references_disagree");
			bump(json_object_get(c, "rejected_by_rule"), "reference_agreement");
			json_array_append_new(held, json_pack("{s:s,s:s,s:s,s:O*}", "proposal", json_string_value(k), "id",
			                      jstr(rec, "id", ""), "why", ag ? jstr(ag, "why", jstr(ag, "status", "")) :
			                      "no agreement", "comparisons", ag ? json_object_get(ag, "comparisons") : NULL));
			continue;
		}
		if ((by = duplicate(&x, rec, o->near, &of))) {
			bump(c, !strncmp(of, "corpus:", 7) ? "corpus_twins" : !strcmp(by, "text") ? "near_duplicates" :
			     "duplicates");
			json_array_append_new(dups, json_pack("{s:s,s:s,s:s,s:s}", "proposal", json_string_value(k), "id",
			                      jstr(rec, "id", ""), "duplicates", of, "by", by));
			continue;
		}
		id = uniqueid(taken, jstr(rec, "id", "p"));
		json_object_set_new(taken, id, json_true());
		indexadd(&x, fp, jstr(rec, "minhash", NULL), id);
		text = spectext(f, id, ag ? jstr(ag, "agreement", NULL) : NULL);
		file = xasprintf("%s.yaml", id);
		path = xasprintf("%s/%s", o->specs, file);
		if (samecontent(path, text, strlen(text)) != 1 && writefile(path, text, strlen(text)) < 0)
			die(EXIT_RETRY, "cannot write '%s':", path);
		json_object_set_new(files, file, json_true());
		json_array_append_new(accepted, json_pack("{s:s,s:s,s:s,s:s}", "id", id, "family", jstr(f, "family", "?"),
		                      "file", path, "fingerprint", fp));
		bump(c, "accepted");
		free(id), free(text), free(file), free(path);
	}
	prune(o->specs, files);
	rp = sibling(o->out, "report.json");
	report = json_pack("{s:i,s:o,s:o,s:o}", "version", 1, "families", report, "duplicates", dups,
	                   "references_disagree", held);
	k = json_pack("{s:i,s:O}", "version", 1, "accepted", accepted);
	if (jwrite(rp, report) < 0 || jwrite(o->out, k) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(report);
	json_decref(k);
	printf("propose-accept: %zu specs accepted from %zu proposals\n", json_array_size(accepted), json_array_size(order));
	free(rp);
	json_decref(accepted), json_decref(order), json_decref(last), json_decref(taken);
	json_decref(x.fp), json_decref(x.sigs), json_decref(x.buckets);
	json_decref(files);
	json_decref(agreed);
	return 0;
}

/* ---------------------------------------------- --teacher-references */

/* the spec's text with its `reference: teacher` line replaced by code and
 * an origin after it (malloc'd), or NULL when no such line is found */
static char *
completed(const char *text, const char *code, const char *file, json_t *ag, json_t *p)
{
	const char *line = text, *c;
	struct buf b;

	for (; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		const char *v = line + 10;
		if (strncmp(line, "reference:", 10))
			continue;
		v += strspn(v, " \t");
		if (!strncmp(v, "teacher", 7) && (!v[7] || strchr(" \t\r\n#", v[7])))
			break;
	}
	if (!line || !*line)
		return NULL;
	bufinit(&b, 1 << 20);
	bufput(&b, text, (size_t)(line - text));
	bufputs(&b, "reference: |2\n"); /* the indentation said: the code's own may start with spaces */
	for (c = code; *c;) {
		const char *e = strchr(c, '\n');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		if (len)
			bufputs(&b, "  ");
		bufput(&b, c, len);
		bufputc(&b, '\n');
		c += len + (e != NULL);
	}
	line = strchr(line, '\n');
	if (line)
		bufputs(&b, line + 1);
	if (b.s[b.n - 1] != '\n')
		bufputc(&b, '\n');
	bufprintf(&b, "origin:\n  source: teacher-reference\n  file: %s\n  provider: \"%s\"\n  model: \"%s\"\n"
	          "  request: \"%s\"\n  references: \"%s\"\n", file, jstr(ag, "provider", "?"), jstr(ag, "model", "?"),
	          jstr(p, "request", ""), jstr(p, "agreement", "?"));
	return bufdetach(&b);
}

/*
 * --teacher-references: INPUTS are pairs SPEC AGREE_JSON (a hand-written
 * spec with `reference: teacher` and its references' agreement, propose-check
 * --agree): each agreed one completed into DIR/NAME.yaml, the others held
 * back, named on stderr; ACCEPTED_JSON lists both.
 */
static int
teacherrefs(const struct opts *o, char **paths, size_t n)
{
	json_t *list = json_array(), *files = json_object(), *out;
	size_t i, done = 0;

	if (n % 2)
		die(EXIT_USAGE, "--teacher-references: the inputs are pairs SPEC AGREE_JSON");
	if (mkdirp(o->specs) < 0)
		die(EXIT_RETRY, "cannot create '%s':", o->specs);
	for (i = 0; i < n; i += 2) {
		json_t *ag = schemaload(paths[i + 1], schema_agree_json), *p = json_array_get(json_object_get(ag, "problems"), 0);
		const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];
		const char *st = jstr(p, "status", "missing"), *why = NULL;
		char *text = NULL, *path = xasprintf("%s/%s", o->specs, base);
		struct buf spec;

		bufinit(&spec, 1 << 20);
		if (readfile(paths[i], &spec) < 0)
			die(EXIT_USAGE, "cannot read '%s':", paths[i]);
		if (strcmp(st, "agreed"))
			why = jstr(p, "why", "its two references disagree and no third settled it");
		else if (!(text = completed(spec.s, jstr(p, "reference", ""), paths[i], ag, p)))
			why = "no line 'reference: teacher' at the start of a line to put the reference in";
		if (text) {
			if (samecontent(path, text, strlen(text)) != 1 && writefile(path, text, strlen(text)) < 0)
				die(EXIT_RETRY, "cannot write '%s':", path);
			json_object_set_new(files, base, json_true());
			json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:s,s:s}", "file", paths[i], "status", "completed",
			                      "spec", path, "references", jstr(p, "agreement", "?"), "request",
			                      jstr(p, "request", "")));
			done++;
		} else {
			warn("%s: held back: %s; the comparisons are in '%s'",
			     paths[i], why, paths[i + 1]);
			json_array_append_new(list, json_pack("{s:s,s:s,s:s,s:O*}", "file", paths[i], "status", "held", "why",
			                      why, "comparisons", json_object_get(p, "comparisons")));
		}
		free(text), free(path);
		buffree(&spec);
		json_decref(ag);
	}
	prune(o->specs, files);
	out = json_pack("{s:i,s:o}", "version", 1, "specs", list);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	printf("propose-accept: %zu of %zu teacher-reference specs completed\n", done, n / 2);
	json_decref(out);
	json_decref(files);
	return 0;
}

/* ---------------------------------------------------------- --baselines */

/* why a proposal's baseline (ORACLE's verdict v) is held back, malloc'd */
static char *
baselinewhy(const char *oracle, json_t *o, json_t *t, const char *v)
{
	const char *fb = jstr(o, "feedback", ""), *id = jstr(t, "id", "?");
	char *why;

	if (!strcmp(v, "not_built")) { /* prepare --baseline's log says why */
		char *so = sibling(oracle, "baseline.so.log");
		struct buf log;
		bufinit(&log, 1 << 20);
		if (readfile(so, &log) < 0)
			bufputs(&log, "(no log)");
		why = xasprintf("its baseline (the teacher's) does not build for %s: %.1500s", id, log.s ? log.s : "");
		buffree(&log);
		free(so);
	} else if (!strcmp(v, "not_verified")) {
		why = xasprintf("%.1800s", *fb ? fb : "its reference was refused");
	} else {
		why = xasprintf("its baseline (the teacher's) is not correct against its reference on %s: %s%s%.1500s", id,
		                v, *fb ? ": " : "", fb);
	}
	return why;
}

/*
 * One proposal's baseline check (its variant's oracle.json) into specs:
 * agreed (correct), unchecked (no GPU here), refused (verify --expected
 * refused the variant's reference: nothing to check the baseline
 * against) or disagreed (any other verdict); its status.
 */
static const char *
baselineverdict(const char *oracle, json_t *specs)
{
	char *tp = sibling(oracle, "task.json");
	json_t *o = jmustload(oracle), *t = jmustload(tp);
	const char *v = jstr(o, "verdict", "?"), *status;
	json_t *rec;

	status = !strcmp(v, "correct") ? "agreed" : !strncmp(v, "skipped", 7) ? "unchecked" :
	         !strcmp(v, "not_verified") ? "refused" : "disagreed";
	rec = json_pack("{s:s,s:s,s:s,s:s,s:s}", "spec", jstr(t, "spec", "?"), "family",
	                jstr(json_object_get(t, "origin"), "family", "?"), "variant", jstr(t, "id", "?"), "status",
	                status, "verdict", v);
	if (!strcmp(status, "disagreed") || !strcmp(status, "refused")) {
		char *why = baselinewhy(oracle, o, t, v);
		const char *rule = !strcmp(status, "refused") ? "reference_runs" : "baseline_agreement";
		json_object_set_new(rec, "rule", json_string(rule));
		json_object_set_new(rec, "why", json_string(why));
		warn("held back '%s' (rule %s): %s", jstr(t, "spec", "?"), rule, why);
		free(why);
	}
	json_array_append_new(specs, rec);
	json_decref(o), json_decref(t);
	free(tp);
	return status;
}

/* the counts of baseline checks, all 0 */
static json_t *
baselinecounts(void)
{
	return json_pack("{s:i,s:i,s:i,s:i,s:i}", "checked", 0, "agreed", 0, "disagreed", 0, "refused", 0,
	                 "unchecked", 0);
}

/* --baselines: each proposal's baseline against its reference, counted per family */
static int
baselines(const struct opts *o, char **oracles, size_t n)
{
	json_t *fams = json_object(), *specs = json_array(), *out, *all = baselinecounts();
	size_t i;

	for (i = 0; i < n; i++) {
		const char *st = baselineverdict(oracles[i], specs);
		json_t *rec = json_array_get(specs, json_array_size(specs) - 1), *c;
		const char *fam = jstr(rec, "family", "?");
		if (!(c = json_object_get(fams, fam)))
			json_object_set_new(fams, fam, c = baselinecounts());
		if (strcmp(st, "unchecked"))
			bump(c, "checked"), bump(all, "checked");
		bump(c, st), bump(all, st);
	}
	out = json_pack("{s:i,s:o,s:o}", "version", 1, "families", fams, "specs", specs);
	if (jwrite(o->out, out) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	printf("propose-accept: %zu proposals' baselines: %" JSON_INTEGER_FORMAT " agree with their references, %"
	       JSON_INTEGER_FORMAT " held back (%" JSON_INTEGER_FORMAT " disagree, %" JSON_INTEGER_FORMAT
	       " references refused), %" JSON_INTEGER_FORMAT " unchecked (no GPU)\n", n, jint(all, "agreed", 0),
	       jint(all, "disagreed", 0) + jint(all, "refused", 0), jint(all, "disagreed", 0), jint(all, "refused", 0),
	       jint(all, "unchecked", 0));
	json_decref(out);
	json_decref(all);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, "tasks", NULL, 0.7, 0, 0 };
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the list of accepted specs to write (report.json beside it)" },
		{ "--specs", "DIR", OPT_STR, &o.specs, 0, 0, "where the accepted specs go (out/propose/specs)" },
		{ "--corpus", "FILE", OPT_STR, &o.corpus, 0, 0, "the hand-written specs' fingerprints and MinHashes "
		  "(propose-check --corpus): no proposal may be their twin" },
		{ "--near", "J", OPT_NUM, &o.near, 0.01, 1, "texts this similar (estimated Jaccard of their MinHashes) "
		  "are near-duplicates (default 0.7)" },
		{ "--tasks-dir", "DIR", OPT_STR, &o.tasksdir, 0, 0, "the hand-written specs, whose ids are taken "
		  "(default tasks)" },
		{ "--teacher-references", NULL, OPT_FLAG, &o.teacher, 0, 0, "the inputs are pairs SPEC AGREE_JSON: "
		  "'reference: teacher' specs completed with their agreed reference into --specs DIR" },
		{ "--baselines", NULL, OPT_FLAG, &o.baselines, 0, 0, "the inputs are oracle.json files: each proposal's "
		  "baseline against its reference, into -o BASELINES_JSON" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (o.baselines && (o.teacher || o.specs || o.corpus))
		optdie(&spec, "--baselines takes -o BASELINES_JSON and the oracle.json files alone");
	if (!o.out)
		optdie(&spec, o.baselines ? "need -o BASELINES_JSON" : "need -o ACCEPTED_JSON and --specs DIR");
	if (!o.specs && !o.baselines)
		optdie(&spec, "need -o ACCEPTED_JSON and --specs DIR");
	r = o.baselines ? baselines(&o, in.v, in.n) : o.teacher ? teacherrefs(&o, in.v, in.n) : accept(&o, in.v, in.n);
	optfree(&in);
	if (fflush(stdout) != 0)
		die(EXIT_RETRY, "cannot write to standard output:");
	return r;
}
