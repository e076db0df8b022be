/*
 * package - the records into deterministic, tar-archived JSONL shards
 *
 * usage: package [options] -o DATASET_DIR RECORD_JSON... (or @LISTFILE)
 *        package --project DATASET_DIR
 *
 * Splits (a record goes to every split it qualifies for):
 *   train         correct final answers, verified on a GPU, nothing flagged
 *                 for review
 *   trajectories  every sample, every round, failures included (multi-turn
 *                 SFT, RL)
 *   unverified    built but never run: no GPU was available
 *   test          every record of the held-out tasks, chosen by a hash of
 *                 the task id (--test-fraction), which appear in no other
 *                 split, so no task leaks between training and test
 *
 * Each split is cut into JSONL shards of at most --shard-records records
 * and --shard-bytes bytes (data/<split>-NNNNN.jsonl, records sorted by
 * id). Shards are packed into archives of at most --archive-bytes
 * (DATASET_DIR/<name>-NNNNN.tar.gz), each also carrying the dataset card
 * README.md (Hugging Face front matter: `datasets.load_dataset` works on
 * the extracted folder) and manifest.json (counts per split, sha256 per
 * shard, configuration incl. the nvcc version). DATASET_DIR/SHA256SUMS
 * lists the archives. Bytes are deterministic: a fixed member order, mtime from
 * SOURCE_DATE_EPOCH (else 0), uid and gid 0, no user or host names, gzip
 * without a timestamp: the same records give the same sha256.
 *
 * --project prints the reproducible projection of a dataset: the records
 * of the trajectories and test splits (whose membership does not depend
 * on timing) without measured fields. `ninja check` compares it.
 *
 * options:
 *   --name NAME            archive and card name (default retort-dataset)
 *   --meta KEY=VALUE       configuration recorded in the manifest and card
 *   --test-fraction F      share of tasks held out (default 0.1)
 *   --shard-records N      (default 1000)
 *   --shard-bytes B        (default 256 MiB)
 *   --archive-bytes B      (default 1 GiB)
 *
 * Exit: 0 written; 1 cannot write (a full disk included: then nothing of
 * the new dataset is left listed, see writedataset); 2 bad usage or input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include <archive.h>
#include <archive_entry.h>

#include "lib/json.h"
#include "lib/sha.h"
#include "lib/util.h"

static const char usage[] =
	"usage: package [--name NAME] [--meta KEY=VALUE]... [--test-fraction F]\n"
	"               [--shard-records N] [--shard-bytes B] [--archive-bytes B]\n"
	"               -o DATASET_DIR RECORD_JSON... (or @LISTFILE)\n"
	"       package --project DATASET_DIR\n";

enum { TRAIN, TRAJECTORIES, UNVERIFIED, TEST, NSPLITS };
static const char *const splitnames[NSPLITS] = { "train", "trajectories", "unverified", "test" };

/*
 * Measured fields: timings and what depends on them (final_kernel is the
 * fastest correct round's). The reproducible projection leaves them out;
 * the card and the manifest name them from here.
 */
static const char *const measured[] = { "speedup", "sol_percent", "median_ms", "review", "final_kernel",
                                        "final_round", "rounds[].speedup", NULL };

static void
measuredlist(struct buf *b)
{
	const char *const *k;

	for (k = measured; *k; k++)
		bufprintf(b, "%s%s", k == measured ? "" : ", ", *k);
}

struct rec {
	char *id;
	char *line;      /* compact JSON */
	int in[NSPLITS];
};

struct shard {
	char name[128];  /* data/<split>-NNNNN.jsonl */
	int split;
	struct buf data;
	size_t records;
	char sha[65];
};

struct opts {
	const char *out, *name;
	json_t *meta;
	double testfraction;
	size_t shardrecords, shardbytes, archivebytes;
};

static int
cmprec(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->id, ((const struct rec *)b)->id);
}

/* held out: the task id's hash, as a fraction, below F */
static int
heldout(const char *task, double fraction)
{
	char h[65];
	unsigned long v = 0;

	sha256hex(task, strlen(task), h);
	sscanf(h, "%8lx", &v);
	return (double)v / 4294967296.0 < fraction;
}

static long
epoch(void)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");

	return s && *s ? atol(s) : 0;
}

static void
addentry(struct archive *a, const char *name, const void *data, size_t n)
{
	struct archive_entry *e = archive_entry_new();

	archive_entry_set_pathname(e, name);
	archive_entry_set_size(e, (la_int64_t)n);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_mtime(e, epoch(), 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK || archive_write_data(a, data, n) != (la_ssize_t)n)
		die(EXIT_RETRY, "libarchive: %s", archive_error_string(a));
	archive_entry_free(e);
}

static la_ssize_t
towrite(struct archive *a, void *ud, const void *p, size_t n)
{
	(void)a;
	return bufput(ud, p, n) < 0 ? -1 : (la_ssize_t)n;
}

/* one archive, in memory (out) */
static void
makearchive(const char *card, const char *manifest, struct shard *sh, size_t from, size_t to, struct buf *out)
{
	struct archive *a = archive_write_new();
	size_t i;

	bufinit(out, (size_t)1 << 36);
	if (archive_write_set_format_ustar(a) != ARCHIVE_OK || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_options(a, "gzip:!timestamp") != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open(a, out, NULL, towrite, NULL) != ARCHIVE_OK)
		die(EXIT_RETRY, "libarchive: %s", archive_error_string(a));
	/* members in a fixed order: the card, the manifest, the shards */
	addentry(a, "README.md", card, strlen(card));
	addentry(a, "manifest.json", manifest, strlen(manifest));
	for (i = from; i < to; i++)
		addentry(a, sh[i].name, sh[i].data.s, sh[i].data.n);
	if (archive_write_close(a) != ARCHIVE_OK)
		die(EXIT_RETRY, "libarchive: %s", archive_error_string(a));
	archive_write_free(a);
}

/*
 * The archives (made in memory) into dir, SHA256SUMS last. Nothing is
 * written when the disk lacks room for them (exit 1); a SHA256SUMS that
 * changes is removed first, so that archives replaced half-way (the disk
 * filled all the same, a kill) are never listed as a dataset; unchanged
 * bytes are left alone (restat); a new folder goes again on failure.
 */
static void
writedataset(const char *dir, const char *name, struct buf *arch, size_t narch)
{
	char *sums = xasprintf("%s/SHA256SUMS", dir), *path, hex[65];
	struct buf sumbuf, old;
	double grow = 0, largest = 0;
	struct stat st;
	size_t n;

	if (stat(dir, &st) < 0)
		tempadd(dir); /* made here: removed unless finished */
	if (mkdirp(dir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", dir);
	bufinit(&sumbuf, 1 << 20);
	for (n = 0; n < narch; n++) {
		path = xasprintf("%s/%s-%05zu.tar.gz", dir, name, n);
		sha256hex(arch[n].s, arch[n].n, hex);
		bufprintf(&sumbuf, "%s  %s-%05zu.tar.gz\n", hex, name, n);
		if (!samecontent(path, arch[n].s, arch[n].n)) { /* only what changes takes room */
			grow += (double)arch[n].n - (stat(path, &st) == 0 ? (double)st.st_size : 0);
			largest = (double)arch[n].n > largest ? (double)arch[n].n : largest;
		}
		free(path);
	}
	if (largest > 0 && nospace(dir, (grow > 0 ? grow : 0) + largest + NOSPACE_MIN))
		die(EXIT_RETRY, "not enough space in '%s' for the dataset: it needs %.1f MiB free, and %.1f MiB are", dir,
		    ((grow > 0 ? grow : 0) + largest + NOSPACE_MIN) / (1 << 20), diskfree(dir) / (1 << 20));
	bufinit(&old, 1 << 20);
	if ((readfile(sums, &old) < 0 || old.n != sumbuf.n || memcmp(old.s, sumbuf.s, old.n)) && unlink(sums) < 0 &&
	    errno != ENOENT)
		die(EXIT_RETRY, "cannot remove '%s':", sums);
	buffree(&old);
	for (n = 0; n < narch; n++) {
		path = xasprintf("%s/%s-%05zu.tar.gz", dir, name, n);
		if (writefile(path, arch[n].s, arch[n].n) < 0)
			die(EXIT_RETRY, "cannot write '%s':", path);
		free(path);
	}
	/* archives from an earlier, larger build would linger: remove them */
	for (;; n++) {
		int gone;
		path = xasprintf("%s/%s-%05zu.tar.gz", dir, name, n);
		gone = unlink(path) < 0;
		free(path);
		if (gone)
			break;
	}
	if (writefile(sums, sumbuf.s, sumbuf.n) < 0)
		die(EXIT_RETRY, "cannot write '%s':", sums);
	tempkeep(dir);
	buffree(&sumbuf);
	free(sums);
}

static char *
card(const struct opts *o, size_t counts[NSPLITS], json_t *manifest)
{
	struct buf b;
	int k, any = 0;
	const char *key;
	json_t *v;

	bufinit(&b, 1 << 20);
	bufputs(&b, "---\nconfigs:\n- config_name: default\n  data_files:\n");
	for (k = 0; k < NSPLITS; k++)
		if (counts[k]) {
			bufprintf(&b, "  - split: %s\n    path: data/%s-*.jsonl\n", splitnames[k], splitnames[k]);
			any = 1;
		}
	if (!any)
		bufputs(&b, "  []\n");
	bufputs(&b, "task_categories:\n- text-generation\ntags:\n- cuda\n- code\n- gpu-kernels\n- distillation\n"
	        "- retort\npretty_name: ");
	bufprintf(&b, "%s\n---\n\n# %s\n\n", o->name, o->name);
	bufputs(&b, "CUDA kernels written by a teacher model for precisely specified problems, each compiled, "
	        "checked against a trusted CPU reference on inputs drawn from secret seeds, in a sandbox, and "
	        "timed against a baseline; with the reasoning and the repair conversation that led to them. "
	        "Built by retort.\n\n");
	if (!strcmp(jstr(json_object_get(manifest, "configuration"), "provider", ""), "replay"))
		bufputs(&b, "**Demo data.** No model wrote these answers: they are the hand-written demo answers "
		        "shipped in retort's `tasks/replay` (provider `replay`), some wrong on purpose so that every "
		        "verdict path appears. Do not train on them.\n\n");
	bufputs(&b, "| split | records | what |\n|---|---|---|\n");
	bufprintf(&b, "| train | %zu | correct final answers, verified on a GPU, nothing flagged for review |\n", counts[TRAIN]);
	bufprintf(&b, "| trajectories | %zu | every sample and round, failures included |\n", counts[TRAJECTORIES]);
	bufprintf(&b, "| unverified | %zu | built, but no GPU was available to run them |\n", counts[UNVERIFIED]);
	bufprintf(&b, "| test | %zu | every record of the held-out tasks (%.0f%% of tasks, by hash) |\n\n",
	          counts[TEST], o->testfraction * 100);
	bufputs(&b, "## Configuration\n\n");
	json_object_foreach(json_object_get(manifest, "configuration"), key, v)
		bufprintf(&b, "- %s: %s\n", key, json_string_value(v));
	bufputs(&b, "\n## How it was verified\n\n"
	        "Each kernel ran in a fresh process in a sandbox (no network, no files outside a scratch folder, "
	        "an unprivileged user) on several input sizes, three input draws each (normal, uniform and "
	        "heavy-tailed inputs from seeds the kernel cannot know), with outputs poisoned with NaN and guard "
	        "bytes after every tensor; outputs were compared with per-dtype tolerances (relative L2 error and "
	        "elementwise), inputs had to come back unchanged. Timing: CUDA events around each call after a "
	        "device-wide synchronize, the L2 flushed before every call, input sets rotated and outputs "
	        "re-checked on calls chosen after they returned; median of repeated calls. Measured fields (");
	measuredlist(&b);
	bufputs(&b, ") vary from run to run.\n\n"
	        "## Fields\n\n"
	        "`id`, `messages` (role, content, reasoning_content: the conversation, as TRL and Axolotl read "
	        "it), `final_kernel`, `final_round`, `outcome`, `verified_on_gpu`, `gpu`, `speedup`, "
	        "`sol_percent`, `median_ms`, `review`, "
	        "`rounds` (per round: compile status, screen rules, verify verdict and feedback, bench status), "
	        "`teacher`, `task`, `variant`, `sample`, `usage`, `cost_usd`, `cache_keys`, `spec_sha256`, "
	        "`generator`.\n\n"
	        "## Loading\n\n```python\nfrom datasets import load_dataset\nds = load_dataset(\"path/to/extracted/folder\")\n```\n");
	return bufdetach(&b);
}

/* ------------------------------------------------------------ projection */

static void
strip(json_t *rec)
{
	const char *const *k;
	json_t *r;
	size_t i;

	for (k = measured; *k; k++)
		if (!strncmp(*k, "rounds[].", 9))
			json_array_foreach(json_object_get(rec, "rounds"), i, r)
				json_object_del(r, *k + 9);
		else
			json_object_del(rec, *k);
}

/* qsort's comparison of two char *: the strings, not the pointers */
static int
cmpname(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
project(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;

	if (!d)
		die(EXIT_USAGE, "cannot open '%s':", dir);
	while ((e = readdir(d)))
		if (endswith(e->d_name, ".tar.gz")) {
			names = xreallocarray(names, n + 1, sizeof *names);
			names[n++] = xasprintf("%s/%s", dir, e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof *names, cmpname);
	for (i = 0; i < n; i++) {
		struct archive *a = archive_read_new();
		struct archive_entry *en;
		archive_read_support_filter_all(a);
		archive_read_support_format_all(a);
		if (archive_read_open_filename(a, names[i], 1 << 16) != ARCHIVE_OK)
			die(EXIT_USAGE, "%s: %s", names[i], archive_error_string(a));
		while (archive_read_next_header(a, &en) == ARCHIVE_OK) {
			const char *p = archive_entry_pathname(en);
			struct buf b;
			char chunk[65536], *line, *save = NULL;
			la_ssize_t k;
			if (strncmp(p, "data/trajectories-", 18) && strncmp(p, "data/test-", 10))
				continue;
			bufinit(&b, (size_t)1 << 34);
			while ((k = archive_read_data(a, chunk, sizeof chunk)) > 0)
				bufput(&b, chunk, (size_t)k);
			for (line = strtok_r(b.s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
				json_t *r = json_loads(line, 0, NULL);
				char *s;
				if (!r)
					die(EXIT_USAGE, "%s: %s has a line that is not JSON", names[i], p);
				strip(r);
				s = jdumps(r, JFLAGS_LINE);
				printf("%s %s\n", p, s);
				free(s);
				json_decref(r);
			}
			buffree(&b);
		}
		archive_read_free(a);
		free(names[i]);
	}
	free(names);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the projection:");
	return 0;
}

/* ------------------------------------------------------------------ main */

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "retort-dataset", NULL, 0.1, 1000, 256u << 20, (size_t)1 << 30 };
	char **files = NULL;
	size_t nfiles = 0, i, nrecs = 0, nsh = 0, counts[NSPLITS] = { 0 };
	struct rec *recs;
	struct shard *sh = NULL;
	json_t *manifest, *shards, *countj, *mfields;
	const char *const *mk;
	char *cardtext, *manitext;
	struct buf *arch;
	size_t narch = 0;
	int k, a;

	setprogname(argv[0]);
	o.meta = json_object();
	for (a = 1; a < argc; a++) {
		const char *s = argv[a];
#define VAL argval(argc, argv, &a, usage)
		if (arghelp(s, usage)) {
			json_decref(o.meta);
			return 0;
		} else if (!strcmp(s, "--project")) {
			const char *dir = VAL;
			json_decref(o.meta);
			return project(dir);
		} else if (!strcmp(s, "-o")) { o.out = VAL;
		} else if (!strcmp(s, "--name")) { o.name = VAL;
		} else if (!strcmp(s, "--test-fraction")) { o.testfraction = numarg(VAL, s, 0, 0.99);
		} else if (!strcmp(s, "--shard-records")) { o.shardrecords = (size_t)numarg(VAL, s, 1, 1e12);
		} else if (!strcmp(s, "--shard-bytes")) { o.shardbytes = (size_t)numarg(VAL, s, 1024, 1e15);
		} else if (!strcmp(s, "--archive-bytes")) { o.archivebytes = (size_t)numarg(VAL, s, 1024, 1e15);
		} else if (!strcmp(s, "--meta")) {
			const char *kv = VAL, *eq = strchr(kv, '=');
			char *key;
			if (!eq)
				die(EXIT_USAGE, "--meta takes KEY=VALUE: '%s'", kv);
			key = xstrndup(kv, (size_t)(eq - kv));
			json_object_set_new(o.meta, key, json_string(eq + 1));
			free(key);
		} else {
			arginput(s, NULL, NULL, 0, usage);
			listarg(s, &files, &nfiles);
		}
#undef VAL
	}
	if (!o.out)
		die(EXIT_USAGE, "need -o DATASET_DIR\n%s", usage);

	/* the records and their splits */
	recs = xcalloc(nfiles + 1, sizeof *recs);
	for (i = 0; i < nfiles; i++) {
		char err[512];
		json_t *r = jload(files[i], err, sizeof err);
		const char *outcome;
		int held;
		if (!r)
			die(EXIT_USAGE, "%s", err);
		outcome = jstr(r, "outcome", "");
		held = heldout(jstr(r, "task", ""), o.testfraction);
		recs[nrecs].id = xstrdup(jstr(r, "id", files[i]));
		recs[nrecs].line = jdumps(r, JFLAGS_LINE);
		recs[nrecs].in[TEST] = held;
		recs[nrecs].in[TRAJECTORIES] = !held;
		recs[nrecs].in[UNVERIFIED] = !held && !strcmp(outcome, "unverified");
		recs[nrecs].in[TRAIN] = !held && !strcmp(outcome, "correct") && /* correct: verified on a GPU */
		                        json_array_size(json_object_get(r, "review")) == 0;
		nrecs++;
		json_decref(r);
		free(files[i]);
	}
	free(files);
	qsort(recs, nrecs, sizeof *recs, cmprec);

	/* shards */
	for (k = 0; k < NSPLITS; k++) {
		struct shard *cur = NULL;
		size_t idx = 0;
		for (i = 0; i < nrecs; i++) {
			size_t len;
			if (!recs[i].in[k])
				continue;
			len = strlen(recs[i].line) + 1;
			if (!cur || cur->records >= o.shardrecords || (cur->data.n && cur->data.n + len > o.shardbytes)) {
				sh = xreallocarray(sh, nsh + 1, sizeof *sh);
				cur = &sh[nsh];
				memset(cur, 0, sizeof *cur);
				cur->split = k;
				bufinit(&cur->data, (size_t)1 << 34);
				snprintf(cur->name, sizeof cur->name, "data/%s-%05zu.jsonl", splitnames[k], idx++);
				nsh++;
			}
			bufputs(&cur->data, recs[i].line);
			bufputc(&cur->data, '\n');
			cur->records++;
			counts[k]++;
		}
	}

	/* the manifest and the card */
	shards = json_array();
	for (i = 0; i < nsh; i++) {
		sha256hex(sh[i].data.s, sh[i].data.n, sh[i].sha);
		json_array_append_new(shards, json_pack("{s:s,s:s,s:I,s:I,s:s}", "path", sh[i].name, "split",
		                      splitnames[sh[i].split], "records", (json_int_t)sh[i].records,
		                      "bytes", (json_int_t)sh[i].data.n, "sha256", sh[i].sha));
	}
	countj = json_object();
	for (k = 0; k < NSPLITS; k++)
		json_object_set_new(countj, splitnames[k], json_integer((json_int_t)counts[k]));
	mfields = json_array();
	for (mk = measured; *mk; mk++)
		json_array_append_new(mfields, json_string(*mk));
	{
		struct buf r;
		bufinit(&r, 4096);
		bufputs(&r, "Rebuilding from the response cache gives byte-identical shards except for measured "
		        "fields (timings and what depends on them: ");
		measuredlist(&r);
		bufputs(&r, "; and so the train split's membership). `ninja check` compares the trajectories and "
		        "test splits without those fields.");
		manifest = json_pack("{s:s,s:o,s:o,s:O,s:f,s:o,s:s}", "name", o.name, "counts", countj, "shards",
		                     shards, "configuration", o.meta, "test_fraction", o.testfraction, "measured_fields",
		                     mfields, "reproducibility", r.s);
		buffree(&r);
	}
	manitext = jdumps(manifest, JFLAGS_FILE);
	manitext = xrealloc(manitext, strlen(manitext) + 2);
	strcat(manitext, "\n");
	cardtext = card(&o, counts, manifest);

	/* archives, at most archive-bytes of shards each (at least one shard) */
	{
		size_t from = 0;
		arch = xcalloc(nsh + 1, sizeof *arch);
		do {
			size_t to = from, bytes = 0;
			while (to < nsh && (to == from || bytes + sh[to].data.n <= o.archivebytes))
				bytes += sh[to++].data.n;
			makearchive(cardtext, manitext, sh, from, to, &arch[narch++]);
			from = to;
		} while (from < nsh);
	}
	writedataset(o.out, o.name, arch, narch);
	for (i = 0; i < narch; i++)
		buffree(&arch[i]);
	free(arch);
	for (i = 0; i < nsh; i++)
		buffree(&sh[i].data);
	free(sh);
	for (i = 0; i < nrecs; i++) {
		free(recs[i].id);
		free(recs[i].line);
	}
	free(recs);
	free(cardtext);
	free(manitext);
	json_decref(manifest);
	json_decref(o.meta);
	return 0;
}
