/*
 * fuzz_spec.c - a libFuzzer target for gen's spec reader: the bytes are a
 * task spec file, read by specload (YAML tree, spec checks, expressions,
 * matrix expansion), and each variant it accepts is written out as its
 * task.json and read back by taskload, as the tools read it.
 *
 * What counts as a finding: a sanitizer report, a crash, an exit (gen's
 * parts may exit only when memory runs out), a leak, and a spec that gen
 * accepts but whose task.json the tools refuse (abort: gen's output must
 * always be the tools' input).
 *
 * Build and run it with tests/fuzz/run.sh (clang with -fsanitize=fuzzer,
 * ASan and UBSan), from the checkout's root: prompt templates are looked
 * up in tasks/prompts. The input lives in a memfd, not on disk; gen's
 * messages go to /dev/null (FUZZ_VERBOSE=1 keeps them), sanitizer reports
 * still reach stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../src/gen/yaml.h"
#include "../../src/gen/spec.h"
#include "../../src/lib/task.h"
#include "../../src/lib/json.h"
#include "../../src/lib/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int specfd = -1, taskfd = -1;
static char specpath[64], taskpath[64];

/* a file of its own in memory, named through /proc */
static int
memfile(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, 0);

	if (fd < 0) {
		perror("fuzz_spec: memfd_create");
		abort();
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

/* replace the file's bytes with data[0..n) */
static void
fill(int fd, const void *data, size_t n)
{
	if (ftruncate(fd, 0) < 0 || (n && pwrite(fd, data, n, 0) != (ssize_t)n)) {
		perror("fuzz_spec: writing the memfd");
		abort();
	}
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setprogname("gen");
	specfd = memfile("spec.yaml", specpath, sizeof specpath);
	taskfd = memfile("task.json", taskpath, sizeof taskpath);
	specpromptdir = "tasks/prompts";
	if (!getenv("FUZZ_VERBOSE")) {
		/* libFuzzer and the sanitizers write to fd 2 themselves; only
		 * stdio's stderr, where gen's diagnostics go, is silenced */
		FILE *null = fopen("/dev/null", "w");
		if (null)
			stderr = null;
	}
	return 0;
}

/* a variant gen accepted: its task.json must load as the tools load it */
static void
readback(const struct variant *v)
{
	char *s = jdumps(v->json, JFLAGS_FILE), err[1024];
	struct task t;

	fill(taskfd, s, strlen(s));
	free(s);
	if (taskload(taskpath, &t, err, sizeof err) < 0) {
		fprintf(stdout, "fuzz_spec: gen accepted variant '%s' but taskload refuses it: %s\n",
		        v->id, err);
		fflush(stdout);
		abort();
	}
	taskfree(&t);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct specfile sf;
	size_t i;

	fill(specfd, data, size);
	memset(&sf, 0, sizeof sf);
	if (specload(specpath, &sf) == 0)
		for (i = 0; i < sf.nv; i++) {
			readback(&sf.v[i]);
			(void)variantmatch(&sf.v[i], "demo,*.f16*,rel?,[a-c]*");
		}
	specfree(&sf);
	diagreset();
	return 0;
}
