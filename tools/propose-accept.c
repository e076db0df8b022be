/*
 * propose-accept - the accepted specs from every proposal check: ids made
 * unique, behavioural duplicates dropped, provenance written, a report
 *
 * usage: propose-accept [options] -o ACCEPTED_JSON --specs DIR @CHECKS
 *
 * CHECKS are every propose-check record of the build (out/propose/<family>/
 * b<k>/r<r>/check.json), in the graph's order: family, batch, round. A
 * proposal's outcome is its last round's record. Each one that passed is,
 * in that order:
 *
 *   duplicate  when its fingerprint (propose-check: the reference's
 *              outputs on the canonical probe, keyed with the signature's
 *              dtype and rank classes) equals an accepted one's: the same
 *              function under other names;
 *   accepted   otherwise: written to DIR/<id>.yaml, its id made unique
 *              against the specs of --tasks-dir and those accepted before
 *              (id_2, id_3, ...), with its origin: {source: teacher,
 *              family, provider, model, request (the answer's cache key),
 *              round, checks (the rules it passed)}; gen tags it
 *              `proposed` and with its family.
 *
 * Files in DIR that are no longer accepted are removed; an unchanged file
 * is not rewritten. ACCEPTED_JSON lists the accepted specs (id, family,
 * file, fingerprint) and changes only when that set does: build.ninja
 * depends on it. report.json beside it counts, per family: proposed,
 * passed, invalid (after repair), rejected by each rule, given up (an
 * empty block in a repair round), duplicates, accepted; and lists each
 * duplicate with what it duplicates. A one-line summary goes to stdout.
 *
 * The options are the table in main() (lib/opts.h), which --help prints.
 *
 * Exit: 0 written; 1 cannot write; 2 bad usage or input.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/opts.h"
#include "lib/util.h"

static const char usage[] = "usage: propose-accept [options] -o ACCEPTED_JSON --specs DIR @CHECKS\n";

struct opts {
	const char *out, *specs, *tasksdir;
};

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
		c = json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:{}}", "proposed", 0, "passed", 0, "invalid", 0, "given_up", 0,
		              "duplicates", 0, "accepted", 0, "rejected_by_rule");
		json_object_set_new(report, family, c);
	}
	return c;
}

static void
bump(json_t *o, const char *key)
{
	json_object_set_new(o, key, json_integer(jint(o, key, 0) + 1));
}

/* the final record of each proposal: the last round's, keyed "task#index" */
static json_t *
finals(char **paths, size_t n, json_t *report, json_t **order)
{
	json_t *last = json_object();
	size_t i, k;

	*order = json_array();
	for (i = 0; i < n; i++) {
		json_t *ck = jmustload(paths[i]), *p;
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
spectext(json_t *f, const char *id)
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
	json_t *report = json_object(), *order, *last, *taken = handwritten(o->tasksdir), *seen = json_object();
	json_t *accepted = json_array(), *dups = json_array(), *files = json_object(), *k;
	size_t i;
	char *rp;

	last = finals(paths, n, report, &order);
	if (mkdirp(o->specs) < 0)
		die(EXIT_RETRY, "cannot create '%s':", o->specs);
	json_array_foreach(order, i, k) {
		json_t *f = json_object_get(last, json_string_value(k)), *rec = json_object_get(f, "rec");
		json_t *c = counts(report, jstr(f, "family", "?"));
		const char *st = jstr(rec, "status", ""), *fp = jstr(rec, "fingerprint", "");
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
		if (*fp && json_object_get(seen, fp)) {
			bump(c, "duplicates");
			json_array_append_new(dups, json_pack("{s:s,s:s,s:s,s:s}", "proposal", json_string_value(k), "id",
			                      jstr(rec, "id", ""), "duplicates", json_string_value(json_object_get(seen, fp)),
			                      "by", "fingerprint"));
			continue;
		}
		id = uniqueid(taken, jstr(rec, "id", "p"));
		json_object_set_new(taken, id, json_true());
		if (*fp)
			json_object_set_new(seen, fp, json_string(id));
		text = spectext(f, id);
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
	report = json_pack("{s:i,s:o,s:o}", "version", 1, "families", report, "duplicates", dups);
	k = json_pack("{s:i,s:O}", "version", 1, "accepted", accepted);
	if (jwrite(rp, report) < 0 || jwrite(o->out, k) < 0)
		die(EXIT_RETRY, "cannot write '%s':", o->out);
	json_decref(report);
	json_decref(k);
	printf("propose-accept: %zu specs accepted from %zu proposals\n", json_array_size(accepted), json_array_size(order));
	free(rp);
	json_decref(accepted), json_decref(order), json_decref(last), json_decref(taken), json_decref(seen);
	json_decref(files);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, "tasks" };
	struct optlist in;
	int r;
	struct opt tab[] = {
		{ "-o", "FILE", OPT_STR, &o.out, 0, 0, "the list of accepted specs to write (report.json beside it)" },
		{ "--specs", "DIR", OPT_STR, &o.specs, 0, 0, "where the accepted specs go (out/propose/specs)" },
		{ "--tasks-dir", "DIR", OPT_STR, &o.tasksdir, 0, 0, "the hand-written specs, whose ids are taken "
		  "(default tasks)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!o.out || !o.specs)
		optdie(&spec, "need -o ACCEPTED_JSON and --specs DIR");
	r = accept(&o, in.v, in.n);
	optfree(&in);
	if (fflush(stdout) != 0)
		die(EXIT_RETRY, "cannot write to standard output:");
	return r;
}
