/*
 * NAME
 *     package - the records into deterministic, tar-archived JSONL shards
 *
 * SYNOPSIS
 *     package [options] -o DATASET_DIR RECORD_JSON... (or @LISTFILE)
 *     package --project DATASET_DIR
 *
 * DESCRIPTION
 *     Reads every sample's record and checks it against the dataset's
 *     fields (lib/schema.h). A record under an eval/ folder is refused: a
 *     student's answers never enter the dataset.
 *     A record goes to every split of the default config it qualifies
 *     for: train, trajectories, unverified, or test for a held-out task.
 *     The sft_final config has one row per record with a turn flagged
 *     for training: prompt and completion, and both as one conversation
 *     (messages). The card names the split to train on: train, or on a
 *     build without a GPU unverified, said to be for trying a recipe. Each split is cut into JSONL shards,
 *     rows sorted by id, and the shards are packed into tar.gz archives.
 *     Every archive carries the same dataset card (README.md) and
 *     manifest.json. SHA256SUMS lists the archives. The bytes are
 *     deterministic: the same records give the same sha256.
 *     --project prints the reproducible projection of a dataset: the
 *     trajectories and test records without their measured fields, which
 *     `ninja check` compares.
 *
 * FILES
 *     DATASET_DIR/<name>-NNNNN.tar.gz, DATASET_DIR/SHA256SUMS;
 *     --token-counts FILE, from scripts/token-counts.
 *
 * EXIT STATUS
 *     0 written; 1 cannot write, a full disk included (then nothing of
 *     the new dataset is left listed); 2 bad usage or input.
 *
 * SEE ALSO
 *     doc/dataset.md
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

#include "../lib/json.h"
#include "../lib/opts.h"
#include "../lib/round.h"
#include "../lib/schema.h"
#include "../lib/sha.h"
#include "../lib/status.h"
#include "../lib/util.h"

static const char usage[] =
	"usage: package [options] -o DATASET_DIR RECORD_JSON... (or @LISTFILE)\n"
	"       package --project DATASET_DIR\n";

/*
 * The dataset's parts: each config's splits. The default config holds one
 * record per sample (lib/schema.c's schema_record); sft_final one
 * prompt/completion row (schema_sftfinal) per record of train, unverified
 * and test that has a final kernel not known to be wrong.
 */
enum { TRAIN, TRAJECTORIES, UNVERIFIED, TEST, SFT_TRAIN, SFT_UNVERIFIED, SFT_TEST, NPARTS };
enum { NSPLITS = 4 }; /* the default config's parts come first */
static const struct part {
	const char *config, *split, *prefix; /* prefix: the shards' path less -NNNNN.jsonl */
	int from;                            /* sft_final: the default split its rows come from */
} parts[NPARTS] = {
	{ "default", "train", "data/train", TRAIN },
	{ "default", "trajectories", "data/trajectories", TRAJECTORIES },
	{ "default", "unverified", "data/unverified", UNVERIFIED },
	{ "default", "test", "data/test", TEST },
	{ "sft_final", "train", "data/sft_final/train", TRAIN },
	{ "sft_final", "unverified", "data/sft_final/unverified", UNVERIFIED },
	{ "sft_final", "test", "data/sft_final/test", TEST },
};

/* the measured fields (lib/schema.c), comma-separated */
static void
measuredlist(struct buf *b)
{
	json_t *m = json_array(), *v;
	size_t i;

	schemameasured(schema_record, m);
	json_array_foreach(m, i, v)
		bufprintf(b, "%s%s", i ? ", " : "", json_string_value(v));
	json_decref(m);
}

struct rec {
	char *id;
	char *line;      /* compact JSON */
	char *sftline;   /* its sft_final row, or NULL */
	int in[NPARTS];
	size_t bytes[2]; /* the text's UTF-8 bytes: the conversation, the sft_final row */
	long tokens[2];  /* the same by the named tokenizer (--token-counts), -1 unknown */
	int triton;      /* its lang is triton (else cuda) */
	int origin;      /* its task's origin, in origins[] */
	int noreason;    /* its sft_final completion has no reasoning_content */
};

/* where a record's task came from (its origin): the card's columns */
static const char *const origins[] = { "hand-written", "kernelbench", "teacher", "teacher-reference", "other" };
enum { NORIGINS = 5 };

static int
originindex(const char *name)
{
	int i;

	for (i = 0; i < NORIGINS - 1 && strcmp(origins[i], name); i++)
		;
	return i;
}

struct shard {
	char name[128];  /* data/<split>-NNNNN.jsonl, data/sft_final/<split>-NNNNN.jsonl */
	int part;
	struct buf data;
	size_t records;
	char sha[65];
	size_t archive;
};

struct opts {
	const char *out, *name;
	json_t *meta;
	double testfraction;
	size_t shardrecords, shardbytes, archivebytes;
	json_t *tokens;  /* --token-counts: {tokenizer, default: {id: n}, sft_final: {id: n}} */
	const char *status; /* --status FILE: print the build's summary, with this run's requests from FILE */
};

/* what the records came to, for the summary (--status) */
static struct {
	size_t outcome[OUTCOME_UNKNOWN + 1];
	json_t *stages;  /* {compile: {status: rounds}, verify: {verdict: rounds}} */
	json_int_t tokens;
	double usd;
	size_t unpriced, answers;
} tally;

/* per part: rows, and their lengths' p50, p95 and max in bytes and tokens */
struct stats {
	size_t rows;
	size_t bytes[3];
	long tokens[3];  /* -1: not measured */
	size_t lang[2];  /* rows by language: cuda, triton */
	size_t origin[NORIGINS]; /* rows by their task's origin */
	size_t noreason; /* sft_final: rows whose completion has no reasoning */
};

static int
cmprec(const void *a, const void *b)
{
	return strcmp(((const struct rec *)a)->id, ((const struct rec *)b)->id);
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
	struct buf sumbuf;
	double grow = 0, largest = 0, need;
	struct stat st;
	size_t n;
	char *same;

	if (stat(dir, &st) < 0)
		tempadd(dir); /* made here: removed unless finished */
	if (mkdirp(dir) < 0)
		die(EXIT_RETRY, "cannot create '%s':", dir);
	bufinit(&sumbuf, 1 << 20);
	same = xcalloc(narch + 1, 1);
	for (n = 0; n < narch; n++) {
		path = xasprintf("%s/%s-%05zu.tar.gz", dir, name, n);
		sha256hex(arch[n].s, arch[n].n, hex);
		bufprintf(&sumbuf, "%s  %s-%05zu.tar.gz\n", hex, name, n);
		if (!(same[n] = (char)samecontent(path, arch[n].s, arch[n].n))) { /* only what changes takes room */
			grow += (double)arch[n].n - (stat(path, &st) == 0 ? (double)st.st_size : 0);
			largest = (double)arch[n].n > largest ? (double)arch[n].n : largest;
		}
		free(path);
	}
	need = (grow > 0 ? grow : 0) + largest + NOSPACE_MIN;
	if (largest > 0 && nospace(dir, need))
		die(EXIT_RETRY, "not enough space in '%s' for the dataset: it needs %.1f MiB free, and %.1f MiB are", dir,
		    need / (1 << 20), diskfree(dir) / (1 << 20));
	if (!samecontent(sums, sumbuf.s, sumbuf.n) && unlink(sums) < 0 && errno != ENOENT)
		die(EXIT_RETRY, "cannot remove '%s':", sums);
	for (n = 0; n < narch; n++) {
		path = xasprintf("%s/%s-%05zu.tar.gz", dir, name, n);
		if (!same[n] && writefile(path, arch[n].s, arch[n].n) < 0)
			die(EXIT_RETRY, "cannot write '%s':", path);
		free(path);
	}
	free(same);
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

/* ------------------------------------------------------------------ card */

/* the front matter: configs and their files, explicit features, tags */
static void
cardfront(struct buf *b, const struct opts *o, const size_t counts[NPARTS], int sft)
{
	int k, any = 0;

	bufputs(b, "---\nconfigs:\n- config_name: default\n  data_files:\n");
	for (k = 0; k < NSPLITS; k++)
		if (counts[k]) {
			bufprintf(b, "  - split: %s\n    path: %s-*.jsonl\n", parts[k].split, parts[k].prefix);
			any = 1;
		}
	if (!any)
		bufputs(b, "  []\n");
	if (sft) {
		bufputs(b, "- config_name: sft_final\n  data_files:\n");
		for (k = NSPLITS; k < NPARTS; k++)
			if (counts[k])
				bufprintf(b, "  - split: %s\n    path: %s-*.jsonl\n", parts[k].split, parts[k].prefix);
	}
	bufputs(b, "dataset_info:\n- config_name: default\n  features:\n");
	schemafeatures(b, schema_record, 2);
	if (sft) {
		bufputs(b, "- config_name: sft_final\n  features:\n");
		schemafeatures(b, schema_sftfinal, 2);
	}
	bufputs(b, "task_categories:\n- text-generation\ntags:\n- cuda\n- code\n- gpu-kernels\n- distillation\n"
	        "- retort\npretty_name: ");
	bufprintf(b, "%s\n---\n\n", o->name);
}

static void
cardsplits(struct buf *b, const struct opts *o, const size_t counts[NPARTS])
{
	bufputs(b, "| config | split | rows | what |\n|---|---|---|---|\n");
	bufprintf(b, "| default | train | %zu | correct final answers, verified on a GPU, nothing flagged for review |\n",
	          counts[TRAIN]);
	bufprintf(b, "| default | trajectories | %zu | every sample and round, failures included |\n", counts[TRAJECTORIES]);
	bufprintf(b, "| default | unverified | %zu | built, but no GPU was available to run them |\n", counts[UNVERIFIED]);
	bufprintf(b, "| default | test | %zu | every record of the held-out tasks (%.0f%% of tasks, by hash) |\n",
	          counts[TEST], o->testfraction * 100);
	bufprintf(b, "| sft_final | train | %zu | train's records as prompt (the conversation up to the chosen turn) "
	          "and completion (that turn) |\n", counts[SFT_TRAIN]);
	bufprintf(b, "| sft_final | unverified | %zu | the same for unverified's records with a built kernel (not "
	          "checked: no GPU) |\n", counts[SFT_UNVERIFIED]);
	bufprintf(b, "| sft_final | test | %zu | the same for test's records whose kernel is correct or unverified |\n\n",
	          counts[SFT_TEST]);
	bufputs(b, "The splits overlap: `train` and `unverified` are subsets of `trajectories` (the same records, "
	        "the whole conversation each); `test` shares no record and no task with the others; `sft_final` "
	        "is derived from `default`, one row per record. Do not concatenate `train` with `trajectories`.\n\n");
}

/* the rows of each split by candidate language (a record's lang) */
static void
cardlangs(struct buf *b, const struct stats st[NPARTS])
{
	int k;

	bufputs(b, "By candidate language (`lang`: `cuda` is CUDA C++, `triton` Python with `@triton.jit` kernels; "
	        "the same task may have answers in both):\n\n| config | split | cuda | triton |\n|---|---|---|---|\n");
	for (k = 0; k < NPARTS; k++) {
		bufprintf(b, "| %s | %s | %zu | %zu |\n", parts[k].config, parts[k].split, st[k].lang[0], st[k].lang[1]);
	}
	bufputs(b, "\n");
}

/* the rows of each split by where their task came from, and how its reference was made */
static void
cardorigins(struct buf *b, const struct stats st[NPARTS])
{
	int k, i;

	bufputs(b, "By the task's origin (`origin`): `hand-written` specs come with retort or their user, their "
	        "references written by people; `kernelbench` ones were imported from KernelBench-format problems "
	        "(`scripts/import-kernelbench`), their reference the problem's PyTorch module run in float64 on the "
	        "CPU; `teacher` ones were proposed by the teacher model and kept only when their reference, run "
	        "in a sandbox, passed propose-check's rules (its examples, deterministic, non-degenerate, "
	        "depending on every input and scalar), an independent second reference (a third where they "
	        "disagreed) agreed with it, no accepted task behaved or read the same, and, where it has a "
	        "baseline, that baseline agreed with its reference on the GPU; "
	        "`teacher-reference` ones are hand-written problems (`reference: teacher`) whose reference the "
	        "teacher wrote: two independent requests (a third where they disagreed), run in a sandbox on the same "
	        "inputs, kept only when two agreed within the spec's tolerances and the kept one reproduces the "
	        "spec's examples. A record's "
	        "`reference_language` says whether its reference is C or Python.\n\n| config | split |");
	for (i = 0; i < NORIGINS; i++)
		bufprintf(b, " %s |", origins[i]);
	bufputs(b, "\n|---|---|---|---|---|---|---|\n");
	for (k = 0; k < NPARTS; k++) {
		bufprintf(b, "| %s | %s |", parts[k].config, parts[k].split);
		for (i = 0; i < NORIGINS; i++)
			bufprintf(b, " %zu |", st[k].origin[i]);
		bufputs(b, "\n");
	}
	bufputs(b, "\n");
}

/* the layout: archives, shards, and what one archive alone is */
static void
cardlayout(struct buf *b, size_t narch)
{
	bufprintf(b, "## Layout\n\nThe dataset is %zu archive%s (`<name>-NNNNN.tar.gz`, listed in `SHA256SUMS`), each "
	          "with this card, the same `manifest.json` and some of the shards (`data/<split>-NNNNN.jsonl`, "
	          "`data/sft_final/<split>-NNNNN.jsonl`, one JSON object a line; the manifest lists every shard with "
	          "its archive, rows and sha256). Extract every archive into one folder and load that folder. ",
	          narch, narch == 1 ? "" : "s");
	if (narch == 1)
		bufputs(b, "Here there is one archive: it loads on its own.\n\n");
	else
		bufputs(b, "One archive alone does not load through this card, which names splits whose shards are in "
		        "other archives: load its shards by name with the json builder instead, e.g. "
		        "`load_dataset(\"json\", data_files={\"trajectories\": \"x/data/trajectories-*.jsonl\"}, "
		        "features=...)`, with the features of this card's front matter.\n\n");
}

static void
statrow(struct buf *b, const char *config, const char *split, const struct stats *s)
{
	bufprintf(b, "| %s | %s | %zu | %zu | %zu | %zu |", config, split, s->rows, s->bytes[0], s->bytes[1],
	          s->bytes[2]);
	if (s->tokens[2] >= 0)
		bufprintf(b, " %ld | %ld | %ld |", s->tokens[0], s->tokens[1], s->tokens[2]);
}

/* a part's longest row: the tokenizer's count where there is one (*bytokens 1), else bytes */
static size_t
longest(const struct stats *s, int *bytokens)
{
	*bytokens = s->tokens[2] >= 0;
	return *bytokens ? (size_t)s->tokens[2] : s->bytes[2];
}

/* a max_length with room for the chat template: the longest row, plus 10%, up to a multiple of 256 */
static size_t
maxlength(const struct stats *s)
{
	int bytokens;
	size_t n = longest(s, &bytokens);

	return (n + n / 10 + 256 + 255) / 256 * 256;
}

/*
 * The sft_final split the card's recipes train on: train (verified on a
 * GPU); where a build has none (no GPU), unverified, said to be for trying
 * a recipe only; else train all the same (there is nothing to train on).
 */
static int
trainpart(const size_t counts[NPARTS])
{
	return counts[SFT_TRAIN] || !counts[SFT_UNVERIFIED] ? SFT_TRAIN : SFT_UNVERIFIED;
}

static void
cardlengths(struct buf *b, const struct stats st[NPARTS], const char *tokenizer)
{
	int k;

	bufputs(b, "## Lengths\n\nPer row: `bytes` is the UTF-8 bytes of every message's `content` and "
	        "`reasoning_content` (for `sft_final`, prompt and completion): the count of a byte-level tokenizer "
	        "without merges, so at least the tokens of any byte-level BPE tokenizer, before the chat "
	        "template's own tokens.");
	if (tokenizer)
		bufprintf(b, " `tokens` is `%s`'s count of the row rendered with its chat template.", tokenizer);
	else
		bufputs(b, " No named tokenizer's count was made (see retort's `scripts/token-counts`).");
	bufputs(b, "\n\n| config | split | rows | bytes p50 | bytes p95 | bytes max |");
	if (tokenizer)
		bufputs(b, " tokens p50 | tokens p95 | tokens max |");
	bufputs(b, " max_length |");
	bufputs(b, tokenizer ? "\n|---|---|---|---|---|---|---|---|---|---|\n" : "\n|---|---|---|---|---|---|---|\n");
	for (k = 0; k < NPARTS; k++)
		if (st[k].rows) {
			statrow(b, parts[k].config, parts[k].split, &st[k]);
			bufprintf(b, " %zu |\n", maxlength(&st[k]));
		}
	bufprintf(b, "\n`max_length` is the trainer's maximum length for that split: its longest row (%s), plus a "
	          "tenth and 256 for the chat template's tokens, rounded up to a multiple of 256 (`manifest.json`: "
	          "`lengths.<config>.<split>.max_length`). Set it: TRL's default `max_length` of 1024 truncates "
	          "most rows, drops those whose prompt alone fills it, and with every row dropped stops with "
	          "`num_samples=0`.\n\n", tokenizer ? "in tokens" : "in bytes, which bound a byte-level BPE's tokens");
}

/* which split to train on, and whether it is meant for it */
static void
cardwhich(struct buf *b, const size_t counts[NPARTS])
{
	if (counts[TRAIN]) {
		bufprintf(b, "**The split to train on: `train`** (%zu records, %zu `sft_final` rows): kernels that passed "
		          "verify on a GPU. `unverified` (%zu) holds kernels that were built but never run: leave them "
		          "out of training.\n\n", counts[TRAIN], counts[SFT_TRAIN], counts[UNVERIFIED]);
	} else if (counts[UNVERIFIED]) {
		bufprintf(b, "**This build has no `train` split**: no GPU ran its kernels, so its %zu records (%zu "
		          "`sft_final` rows) are in `unverified`, compiled but never checked, and some may be wrong. "
		          "`unverified` is not meant for training a model you will use: the recipes below name it so "
		          "that they can be tried end to end on this build. For training data, run retort on a GPU "
		          "host, which verifies the kernels into `train`.\n\n", counts[UNVERIFIED], counts[SFT_UNVERIFIED]);
	} else {
		bufputs(b, "**Nothing here to train on**: no record has a kernel that passed verify (`train`) or one that "
		        "could not be checked (`unverified`). The recipes below show the settings a build with a `train` "
		        "split gets.\n\n");
	}
}

/* TRL and Axolotl on the split to train on, with max_length from the lengths */
static void
cardtraining(struct buf *b, const size_t counts[NPARTS], const struct stats st[NPARTS], int sft)
{
	int p = trainpart(counts), tok;
	const char *split = parts[p].split, *note = p == SFT_UNVERIFIED ? "  # never run: to try the recipe only" : "";

	longest(&st[p], &tok);
	bufputs(b, "## Training\n\nEvery message has its `round`, and a `training` flag that is true on one "
	        "assistant turn per record: the one whose kernel is `final_kernel` (`final_round`'s; the fastest "
	        "correct round's in `train`). Earlier answers, wrong ones included, stay in the conversation as "
	        "context with `training: false`; train on the flagged turn only. A record without a built kernel, "
	        "or whose kernels all failed verify (outcome `incorrect`), has no flagged turn. `messages[i]` for i > 0 alternate user and assistant: the user turn of round "
	        "k is the task (k = 1) or the feedback on round k-1, which is `rounds[k-2].feedback` wrapped in "
	        "the repair prompt; the assistant turn of round k is `rounds[k-1]`'s answer.\n\n");
	cardwhich(b, counts);
	if (!sft) {
		bufputs(b, "No record has a flagged turn, so there is no `sft_final` config to train on.\n\n");
		return;
	}
	bufprintf(b, "TRL (`SFTTrainer`): train on `sft_final`, whose completion is the flagged turn (prompt and "
	          "completion are conversational; TRL's completion-only loss is the default for them), with "
	          "`max_length` from the Lengths table:\n\n"
	          "```python\nfrom datasets import load_dataset\nfrom trl import SFTConfig, SFTTrainer\n"
	          "train = load_dataset(\"path/to/folder\", \"sft_final\", split=\"%s\")%s\n"
	          "args = SFTConfig(max_length=%zu, completion_only_loss=True)  # the Lengths table: %s's longest row, "
	          "%s, with room\n```\n\n", split, note, maxlength(&st[p]), split, tok ? "in tokens" : "in bytes");
	bufprintf(b, "Axolotl (`chat_template`): `sft_final`'s `messages`, the conversation that ends with the "
	          "flagged turn, trained where the flag says (the default config's whole conversations go on after "
	          "it where a later round was slower or wrong: Axolotl then warns that the last turn is not "
	          "trainable, and a template that keeps only the last turn's reasoning drops the flagged one's):"
	          "\n\n```yaml\nsequence_len: %zu  # the Lengths table: %s's longest row, %s, with room\ndatasets:\n"
	          "  - path: path/to/folder\n    name: sft_final\n    split: %s%s\n    type: chat_template\n"
	          "    field_messages: messages\n    message_field_training: training\n"
	          "    field_thinking: reasoning_content\n    train_on_eos: turn\n```\n\n", maxlength(&st[p]), split,
	          tok ? "in tokens" : "in bytes", split, note);
	bufprintf(b, "Reasoning: %zu of the %zu `sft_final` %s rows have a completion without `reasoning_content`. "
	          "A chat template that always opens a thinking block for the last assistant turn (Qwen3's) renders "
	          "an empty `<think></think>` for them, so a mix teaches both: answering with and without "
	          "reasoning. Choose: drop the empty block, or keep only the rows with reasoning "
	          "(`train.filter(lambda r: bool(r[\"completion\"][0][\"reasoning_content\"]))`); retort's "
	          "`examples/trl_sft.py` does either (`--reasoning=drop-empty`, `--reasoning=only`). "
	          "`reasoning_content` reaches the model only through a chat template that reads it: the stock Qwen3 "
	          "template keeps only the last assistant turn's (the flagged turn is the last in `sft_final`), "
	          "TRL's patched Qwen3 training template keeps every turn's, and DeepSeek-R1 templates ignore the "
	          "field (they expect `<think>` inside `content`). Check what your template renders before "
	          "training.\n\n", st[p].noreason, st[p].rows, split);
}

/* the dataset card: README.md in every archive */
static char *
card(const struct opts *o, const size_t counts[NPARTS], const struct stats st[NPARTS], json_t *manifest,
     size_t narch)
{
	struct buf b;
	const char *key;
	json_t *v;
	int sft = counts[SFT_TRAIN] + counts[SFT_UNVERIFIED] + counts[SFT_TEST] > 0;

	bufinit(&b, 1 << 20);
	cardfront(&b, o, counts, sft);
	bufprintf(&b, "# %s\n\n", o->name);
	bufputs(&b, "CUDA kernels written by a teacher model for precisely specified problems, each compiled, "
	        "checked against a trusted CPU reference on inputs drawn from secret seeds, in a sandbox, and "
	        "timed against a baseline; with the reasoning and the repair conversation that led to them. "
	        "Built by retort.\n\n");
	if (!strcmp(jstr(json_object_get(manifest, "configuration"), "provider", ""), "replay"))
		bufputs(&b, "**Demo data.** No model wrote these answers: they are the hand-written demo answers "
		        "shipped in retort's `tasks/replay` (provider `replay`), some wrong on purpose so that every "
		        "verdict path appears. Do not train on them.\n\n");
	cardsplits(&b, o, counts);
	cardlangs(&b, st);
	cardorigins(&b, st);
	cardlayout(&b, narch);
	cardlengths(&b, st, jstr(o->tokens, "tokenizer", NULL));
	cardtraining(&b, counts, st, sft);
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
	bufputs(&b, ") vary from run to run.\n\n## Fields\n\nThe `default` config, one record per sample (the "
	        "front matter's `dataset_info` gives every field's type, so every run's shards load alike):\n\n");
	schemadoc(&b, schema_record);
	bufputs(&b, "\nThe `sft_final` config, one row per record with a chosen turn:\n\n");
	schemadoc(&b, schema_sftfinal);
	bufputs(&b, "\n## Loading\n\n```python\nfrom datasets import load_dataset\n"
	        "ds = load_dataset(\"path/to/extracted/folder\")                # default: train, trajectories, ...\n"
	        "sft = load_dataset(\"path/to/extracted/folder\", \"sft_final\")  # prompt/completion\n```\n");
	return bufdetach(&b);
}

/* ------------------------------------------------------------ projection */

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
				schemastrip(r, schema_record);
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


/* --------------------------------------------------------------- records */

/* the UTF-8 bytes of messages' text: content and reasoning */
static size_t
textbytes(const json_t *msgs)
{
	size_t i, n = 0;
	json_t *m;

	json_array_foreach(msgs, i, m)
		n += json_string_length(json_object_get(m, "content")) +
		     json_string_length(json_object_get(m, "reasoning_content"));
	return n;
}

/*
 * A record's sft_final row: the conversation up to its flagged turn, and
 * that turn, apart (prompt, completion: TRL) and as one conversation that
 * ends with it (messages: Axolotl, whose trained turn is then the last);
 * NULL without one, or when the kernel is known to be wrong.
 */
static json_t *
sftrow(json_t *r)
{
	enum outcome outcome = outcomeof(r);
	json_t *prompt, *m, *whole;
	size_t i;

	if (outcome != OUTCOME_CORRECT && outcome != OUTCOME_UNVERIFIED)
		return NULL;
	prompt = json_array();
	json_array_foreach(json_object_get(r, "messages"), i, m) {
		if (jbool(m, "training", 0)) {
			whole = json_copy(prompt);
			json_array_append(whole, m);
			return json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:o,s:[O],s:o}", "id", json_object_get(r, "id"),
			                 "lang", json_object_get(r, "lang"), "task",
			                 json_object_get(r, "task"), "variant", json_object_get(r, "variant"), "outcome",
			                 json_object_get(r, "outcome"), "verified_on_gpu",
			                 json_object_get(r, "verified_on_gpu"), "final_round",
			                 json_object_get(r, "final_round"), "speedup", json_object_get(r, "speedup"),
			                 "prompt", prompt, "completion", m, "messages", whole);
		}
		json_array_append(prompt, m);
	}
	json_decref(prompt);
	return NULL;
}

/* a row's count by the named tokenizer (--token-counts), -1 without one */
static long
tokencount(const struct opts *o, const char *config, const char *id)
{
	json_t *v;

	if (!o->tokens)
		return -1;
	v = json_object_get(json_object_get(o->tokens, config), id);
	if (!json_is_integer(v))
		die(EXIT_USAGE, "the token counts have no %s count for '%s': make them again", config, id);
	return (long)json_integer_value(v);
}

/* a record of an evaluation build: under an eval/ folder (gen --eval) */
static int
evalrecord(const char *path)
{
	return !strncmp(path, "eval/", 5) || strstr(path, "/eval/") != NULL;
}

/* a record's outcome, its rounds' statuses, tokens and $ into the summary's tally */
static void
tallyrecord(const json_t *r, enum outcome outcome)
{
	static const char *const stages[] = { "compile", "verify" };
	const json_t *u = json_object_get(r, "usage"), *cost = json_object_get(r, "cost_usd"), *rd;
	size_t i, k;

	if (!tally.stages)
		tally.stages = json_pack("{s:{},s:{}}", "compile", "verify");
	tally.outcome[outcome <= OUTCOME_UNKNOWN ? outcome : OUTCOME_UNKNOWN]++;
	tally.tokens += (json_int_t)usagetokens(u);
	if (json_is_number(cost))
		tally.usd += json_number_value(cost);
	else
		tally.unpriced++;
	json_array_foreach(json_object_get(r, "rounds"), i, rd) {
		tally.answers++;
		for (k = 0; k < 2; k++) {
			json_t *by = json_object_get(tally.stages, stages[k]);
			const char *st = jstr(rd, stages[k], NULL);
			if (st)
				json_object_set_new(by, st, json_integer(jint(by, st, 0) + 1));
		}
	}
}

/* "1 compile_error, 6 ok", by name */
static void
counts(struct buf *b, const json_t *by)
{
	const char **names = xcalloc(json_object_size(by) + 1, sizeof *names), *k;
	json_t *v;
	size_t n = 0, i;

	json_object_foreach((json_t *)by, k, v)
		names[n++] = k;
	qsort(names, n, sizeof *names, cmpname);
	for (i = 0; i < n; i++)
		bufprintf(b, "%s%lld %s", i ? ", " : "", (long long)jint(by, names[i], 0), names[i]);
	if (!n)
		bufputs(b, "none");
	free(names);
}

/*
 * The build's summary on stdout, after the dataset is written: where it
 * is, its splits, the samples' outcomes, the rounds' statuses and, when
 * no GPU ran them, why they stopped; the teacher's tokens and $ over the
 * records; this ninja run's requests and time (the status file).
 */
static void
summary(const struct opts *o, const size_t counts_[NPARTS], size_t narch)
{
	json_int_t skipped = jint(json_object_get(tally.stages, "verify"), statusname(ST_SKIPPED), 0);
	size_t k, nrec = 0;
	json_t *st;
	struct buf b;

	for (k = 0; k <= OUTCOME_UNKNOWN; k++)
		nrec += tally.outcome[k];
	bufinit(&b, (size_t)1 << 20);
	bufprintf(&b, "dataset: %s, %zu archive%s listed in SHA256SUMS: default", o->out, narch, narch == 1 ? "" : "s");
	for (k = 0; k < NPARTS; k++)
		bufprintf(&b, "%s %s %zu", k == NSPLITS ? "; sft_final" : k ? "," : "", parts[k].split, counts_[k]);
	bufprintf(&b, "\noutcomes of %zu samples: %zu correct, %zu incorrect, %zu unverified, %zu no_code\n", nrec,
	          tally.outcome[OUTCOME_CORRECT], tally.outcome[OUTCOME_INCORRECT], tally.outcome[OUTCOME_UNVERIFIED],
	          tally.outcome[OUTCOME_NO_CODE]);
	bufprintf(&b, "rounds: %zu; compile: ", tally.answers);
	counts(&b, json_object_get(tally.stages, "compile"));
	bufputs(&b, "; verify: ");
	counts(&b, json_object_get(tally.stages, "verify"));
	bufputc(&b, '\n');
	if (skipped) {
		char *why = nogpuwhy((long long)skipped);
		bufprintf(&b, "why: %s\n", why);
		free(why);
	}
	bufprintf(&b, "teacher: %zu answers in the records, %lld tokens, ", tally.answers, (long long)tally.tokens);
	if (tally.unpriced && tally.unpriced == nrec)
		bufputs(&b, "$ unknown (the model has no prices)\n");
	else if (tally.unpriced)
		bufprintf(&b, "$%.4f, and %zu samples of unknown price\n", tally.usd, tally.unpriced);
	else
		bufprintf(&b, "$%.4f\n", tally.usd);
	if ((st = statusload(o->status)) && jbool(st, "this_run", 0)) {
		char *line = statusline(st);
		bufprintf(&b, "this run: %s\n", line);
		free(line);
	} else {
		bufputs(&b, "this run: no request edge ran\n");
	}
	json_decref(st);
	fputs(b.s, stdout);
	buffree(&b);
	json_decref(tally.stages);
	if (fflush(stdout) || ferror(stdout))
		die(EXIT_RETRY, "cannot write the summary:");
}

/* one record file, checked against the dataset's fields, with its parts */
static void
loadrecord(const struct opts *o, const char *path, struct rec *rec)
{
	char err[600];
	json_t *r = jload(path, err, sizeof err), *sft;
	enum outcome outcome;
	int held, k;

	if (!r)
		die(EXIT_USAGE, "%s", err);
	if (evalrecord(path))
		die(EXIT_USAGE, "an evaluation's record never enters the dataset: '%s'", path);
	if (schemacheck(r, schema_record, err, sizeof err) < 0)
		die(EXIT_USAGE, "not a record of this dataset's fields (lib/schema.c): %s: '%s'", err, path);
	outcome = outcomeof(r);
	if (o->status)
		tallyrecord(r, outcome);
	held = heldout(jstr(r, "task", ""), o->testfraction);
	rec->id = xstrdup(jstr(r, "id", path));
	rec->triton = !strcmp(jstr(r, "lang", "cuda"), "triton");
	rec->origin = originindex(jstr(r, "origin", ""));
	rec->line = jdumps(r, JFLAGS_LINE);
	rec->in[TEST] = held;
	rec->in[TRAJECTORIES] = !held;
	rec->in[UNVERIFIED] = !held && outcome == OUTCOME_UNVERIFIED;
	rec->in[TRAIN] = intrain(r, o->testfraction);
	rec->bytes[0] = textbytes(json_object_get(r, "messages"));
	rec->tokens[0] = tokencount(o, "default", rec->id);
	if ((sft = sftrow(r))) {
		if (schemacheck(sft, schema_sftfinal, err, sizeof err) < 0)
			die(EXIT_USAGE, "the sft_final row of '%s' does not fit its fields: %s", path, err);
		rec->sftline = jdumps(sft, JFLAGS_LINE);
		for (k = NSPLITS; k < NPARTS; k++)
			rec->in[k] = rec->in[parts[k].from];
		rec->bytes[1] = textbytes(json_object_get(sft, "prompt")) + textbytes(json_object_get(sft, "completion"));
		rec->noreason = !*jstr(json_array_get(json_object_get(sft, "completion"), 0), "reasoning_content", "");
		rec->tokens[1] = tokencount(o, "sft_final", rec->id);
		json_decref(sft);
	}
	json_decref(r);
}

/* each part's records cut into shards of at most shardrecords and shardbytes */
static struct shard *
makeshards(const struct opts *o, struct rec *recs, size_t nrecs, size_t counts[NPARTS], size_t *nsh)
{
	struct shard *sh = NULL;
	size_t i;
	int k;

	for (k = 0; k < NPARTS; k++) {
		struct shard *cur = NULL;
		size_t idx = 0;
		for (i = 0; i < nrecs; i++) {
			const char *line = k < NSPLITS ? recs[i].line : recs[i].sftline;
			size_t len;
			if (!recs[i].in[k])
				continue;
			len = strlen(line) + 1;
			if (!cur || cur->records >= o->shardrecords || (cur->data.n && cur->data.n + len > o->shardbytes)) {
				sh = xreallocarray(sh, *nsh + 1, sizeof *sh);
				cur = &sh[*nsh];
				memset(cur, 0, sizeof *cur);
				cur->part = k;
				bufinit(&cur->data, (size_t)1 << 34);
				snprintf(cur->name, sizeof cur->name, "%s-%05zu.jsonl", parts[k].prefix, idx++);
				(*nsh)++;
			}
			bufputs(&cur->data, line);
			bufputc(&cur->data, '\n');
			cur->records++;
			counts[k]++;
		}
	}
	return sh;
}

static int
cmpsize(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* p50, p95 and max (nearest rank) of n values, sorted in place */
static void
percentiles(size_t *v, size_t n, size_t out[3])
{
	qsort(v, n, sizeof *v, cmpsize);
	out[0] = v[(n + 1) / 2 - 1];
	out[1] = v[(95 * n + 99) / 100 - 1];
	out[2] = v[n - 1];
}

/* each part's rows and lengths */
static void
lengths(const struct opts *o, const struct rec *recs, size_t nrecs, struct stats st[NPARTS])
{
	size_t *b = xcalloc(nrecs + 1, sizeof *b), *t = xcalloc(nrecs + 1, sizeof *t), i, n, tk[3];
	int k, c, j;

	for (k = 0; k < NPARTS; k++) {
		c = k >= NSPLITS;
		for (i = n = 0; i < nrecs; i++)
			if (recs[i].in[k]) {
				b[n] = recs[i].bytes[c];
				t[n++] = recs[i].tokens[c] < 0 ? 0 : (size_t)recs[i].tokens[c];
			}
		memset(&st[k], 0, sizeof st[k]);
		st[k].rows = n;
		for (i = 0; i < nrecs; i++) {
			st[k].lang[recs[i].triton] += (size_t)recs[i].in[k];
			st[k].origin[recs[i].origin] += (size_t)recs[i].in[k];
			st[k].noreason += (size_t)(recs[i].in[k] && recs[i].noreason);
		}
		for (j = 0; j < 3; j++)
			st[k].tokens[j] = -1;
		if (!n)
			continue;
		percentiles(b, n, st[k].bytes);
		if (o->tokens) {
			percentiles(t, n, tk);
			for (j = 0; j < 3; j++)
				st[k].tokens[j] = (long)tk[j];
		}
	}
	free(b);
	free(t);
}

/* which archive each shard goes in: at most archive-bytes of shards each (at least one shard) */
static size_t
assignarchives(const struct opts *o, struct shard *sh, size_t nsh)
{
	size_t from = 0, narch = 0;

	do {
		size_t to = from, bytes = 0;
		while (to < nsh && (to == from || bytes + sh[to].data.n <= o->archivebytes)) {
			sh[to].archive = narch;
			bytes += sh[to++].data.n;
		}
		narch++;
		from = to;
	} while (from < nsh);
	return narch;
}

/* manifest.json: counts, shards and their archives, configuration, lengths, measured fields */
static char *
makemanifest(const struct opts *o, struct shard *sh, size_t nsh, const size_t counts[NPARTS],
             const struct stats st[NPARTS], json_t **manifest)
{
	json_t *shards = json_array(), *countj = json_object(), *sftj = json_object(), *mfields = json_array();
	json_t *len = json_object();
	struct buf r;
	size_t i;
	int k;
	char *text;

	for (i = 0; i < nsh; i++) {
		char *arch = xasprintf("%s-%05zu.tar.gz", o->name, sh[i].archive);
		sha256hex(sh[i].data.s, sh[i].data.n, sh[i].sha);
		json_array_append_new(shards, json_pack("{s:s,s:s,s:s,s:I,s:I,s:s,s:s}", "path", sh[i].name, "config",
		                      parts[sh[i].part].config, "split", parts[sh[i].part].split, "records",
		                      (json_int_t)sh[i].records, "bytes", (json_int_t)sh[i].data.n, "sha256", sh[i].sha,
		                      "archive", arch));
		free(arch);
	}
	for (k = 0; k < NPARTS; k++) {
		json_t *l = json_pack("{s:I,s:[I,I,I],s:{s:I,s:I}}", "rows", (json_int_t)st[k].rows, "bytes_p50_p95_max",
		                      (json_int_t)st[k].bytes[0], (json_int_t)st[k].bytes[1], (json_int_t)st[k].bytes[2],
		                      "rows_by_lang", "cuda", (json_int_t)st[k].lang[0], "triton", (json_int_t)st[k].lang[1]);
		json_object_set_new(l, "rows_by_origin", json_object());
		for (i = 0; i < NORIGINS; i++)
			json_object_set_new(json_object_get(l, "rows_by_origin"), origins[i],
			                    json_integer((json_int_t)st[k].origin[i]));
		if (st[k].tokens[2] >= 0)
			json_object_set_new(l, "tokens_p50_p95_max", json_pack("[I,I,I]", (json_int_t)st[k].tokens[0],
			                    (json_int_t)st[k].tokens[1], (json_int_t)st[k].tokens[2]));
		if (st[k].rows)
			json_object_set_new(l, "max_length", json_integer((json_int_t)maxlength(&st[k])));
		if (k >= NSPLITS)
			json_object_set_new(l, "rows_without_reasoning", json_integer((json_int_t)st[k].noreason));
		json_object_set_new(k < NSPLITS ? countj : sftj, parts[k].split, json_integer((json_int_t)counts[k]));
		if (!json_object_get(len, parts[k].config))
			json_object_set_new(len, parts[k].config, json_object());
		json_object_set_new(json_object_get(len, parts[k].config), parts[k].split, l);
	}
	schemameasured(schema_record, mfields);
	bufinit(&r, 4096);
	bufputs(&r, "Rebuilding from the response cache gives byte-identical shards except for measured "
	        "fields (timings and what depends on them: ");
	measuredlist(&r);
	bufputs(&r, "; and so the train split's membership and the sft_final config). `ninja check` compares the "
	        "trajectories and test splits without those fields.");
	*manifest = json_pack("{s:s,s:o,s:o,s:o,s:O,s:f,s:o,s:s,s:o,s:o}", "name", o->name, "counts", countj,
	                      "sft_final_counts", sftj, "shards", shards, "configuration", o->meta, "test_fraction",
	                      o->testfraction, "measured_fields", mfields, "reproducibility", r.s, "lengths", len,
	                      "tokenizer", o->tokens ? json_string(jstr(o->tokens, "tokenizer", "?")) : json_null());
	buffree(&r);
	text = jdumps(*manifest, JFLAGS_FILE);
	text = xrealloc(text, strlen(text) + 2);
	strcat(text, "\n");
	return text;
}

/* ------------------------------------------------------------------ main */

/* the dataset of the records (files, nfiles of them) written to o->out */
static int
package(const struct opts *o, char *const *files, size_t nfiles)
{
	size_t i, nsh = 0, counts[NPARTS] = { 0 }, narch;
	struct rec *recs;
	struct shard *sh;
	struct stats st[NPARTS];
	json_t *manifest;
	char *cardtext, *manitext;
	struct buf *arch;

	recs = xcalloc(nfiles + 1, sizeof *recs);
	for (i = 0; i < nfiles; i++)
		loadrecord(o, files[i], &recs[i]);
	qsort(recs, nfiles, sizeof *recs, cmprec);
	sh = makeshards(o, recs, nfiles, counts, &nsh);
	lengths(o, recs, nfiles, st);
	narch = assignarchives(o, sh, nsh);
	manitext = makemanifest(o, sh, nsh, counts, st, &manifest);
	cardtext = card(o, counts, st, manifest, narch);

	arch = xcalloc(narch, sizeof *arch);
	{
		size_t from = 0, n;
		for (n = 0; n < narch; n++) {
			size_t to = from;
			while (to < nsh && sh[to].archive == n)
				to++;
			makearchive(cardtext, manitext, sh, from, to, &arch[n]);
			from = to;
		}
	}
	writedataset(o->out, o->name, arch, narch);
	if (o->status)
		summary(o, counts, narch);
	for (i = 0; i < narch; i++)
		buffree(&arch[i]);
	free(arch);
	for (i = 0; i < nsh; i++)
		buffree(&sh[i].data);
	free(sh);
	for (i = 0; i < nfiles; i++) {
		free(recs[i].id);
		free(recs[i].line);
		free(recs[i].sftline);
	}
	free(recs);
	free(cardtext);
	free(manitext);
	json_decref(manifest);
	return 0;
}

int
main(int argc, char **argv)
{
	struct opts o = { NULL, "retort-dataset", NULL, HELDOUT_FRACTION, 1000, 256u << 20, (size_t)1 << 30, NULL, NULL };
	const char *projectdir = NULL, *tokens = NULL;
	struct optlist in, meta = { NULL, 0, 0 };
	size_t i;
	int r;
	struct opt tab[] = {
		{ "-o", "DIR", OPT_STR, &o.out, 0, 0, "the output, DATASET_DIR" },
		{ "--project", "DIR", OPT_STR, &projectdir, 0, 0, "print the dataset's reproducible projection" },
		{ "--name", "NAME", OPT_STR, &o.name, 0, 0, "the archives' and the card's name (default retort-dataset)" },
		{ "--meta", "KEY=VALUE", OPT_LIST, &meta, 0, 0, "configuration for the manifest and the card (repeatable)" },
		{ "--test-fraction", "F", OPT_NUM, &o.testfraction, 0, 0.99, "the share of tasks held out (default 0.1)" },
		{ "--shard-records", "N", OPT_SIZE, &o.shardrecords, 1, 1e12, "records a shard at most (default 1000)" },
		{ "--shard-bytes", "B", OPT_SIZE, &o.shardbytes, 1024, 1e15, "bytes a shard at most (default 256 MiB)" },
		{ "--archive-bytes", "B", OPT_SIZE, &o.archivebytes, 1024, 1e15, "bytes an archive at most (default 1 GiB)" },
		{ "--token-counts", "FILE", OPT_STR, &tokens, 0, 0, "a named tokenizer's counts (scripts/token-counts)" },
		{ "--status", "FILE", OPT_STR, &o.status, 0, 0, "then print the build's summary, with this run's requests "
		  "and time from FILE (out/status.json)" },
		{ 0 }
	};
	const struct optspec spec = { usage, tab, OPT_ANY, 1 };

	setprogname(argv[0]);
	optparse(&spec, argc, argv, &in);
	if (!projectdir && !o.out)
		optdie(&spec, "need -o DATASET_DIR");
	o.meta = json_object();
	for (i = 0; i < meta.n; i++) {
		char *eq = strchr(meta.v[i], '=');
		if (!eq)
			die(EXIT_USAGE, "--meta takes KEY=VALUE: '%s'", meta.v[i]);
		*eq = 0;
		json_object_set_new(o.meta, meta.v[i], json_string(eq + 1));
	}
	if (tokens && !projectdir) {
		o.tokens = jmustload(tokens);
		if (!json_is_string(json_object_get(o.tokens, "tokenizer")))
			die(EXIT_USAGE, "token counts without their tokenizer's name: '%s'", tokens);
	}
	r = projectdir ? project(projectdir) : package(&o, in.v, in.n);
	json_decref(o.meta);
	json_decref(o.tokens);
	optfree(&meta);
	optfree(&in);
	return r;
}
