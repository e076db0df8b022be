/* t-opts.c - the command line from one table (src/lib/opts.c) */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/lib/opts.h"
#include "../../src/lib/util.h"
#include "../lib/tap.h"

static const char *out, *name;
static int gpus, flag;
static double frac;
static size_t bytes;
static struct optlist meta;

static const struct opt tab[] = {
	{ "-o", "FILE", OPT_STR, &out, 0, 0, "the output file" },
	{ "--name", "NAME", OPT_STR, &name, 0, 0, "a name (default none)" },
	{ "--gpus", "N", OPT_INT, &gpus, 1, 1024, "GPU slots (default 1)" },
	{ "--fraction", "F", OPT_NUM, &frac, 0, 0.99, "a share of the tasks" },
	{ "--bytes", "B", OPT_SIZE, &bytes, 1024, 1e15, "bytes at most" },
	{ "--flag", NULL, OPT_FLAG, &flag, 0, 0, "a flag" },
	{ "--meta", "KEY=VALUE", OPT_LIST, &meta, 0, 0, "repeatable" },
	{ 0 }
};
static const char synopsis[] = "usage: t-opts [options] -o FILE IN...\n       t-opts --other\n";
static char dir[] = "/tmp/t-opts.XXXXXX";
static const struct optspec spec = { synopsis, tab, 3, 0 }, none = { synopsis, tab, 0, 0 },
                           lists = { synopsis, tab, OPT_ANY, 1 };

static int
startswith(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void
reset(void)
{
	out = name = NULL;
	gpus = 1;
	flag = 0;
	frac = 0.1;
	bytes = 0;
	optfree(&meta);
}

/* args (NULL-ended, argv[0] added) through optparse with spec */
static void
parse(const struct optspec *spec, const char **args, struct optlist *in)
{
	char *argv[32];
	int argc = 1;

	argv[0] = "t-opts";
	while (*args && argc < 31)
		argv[argc++] = (char *)*args++;
	argv[argc] = NULL;
	reset();
	optparse(spec, argc, argv, in);
}

/* the same in a child: its exit status, stdout and stderr */
struct child {
	int status;
	char out[4096], err[4096];
};

static void
slurp(const char *path, char *to, size_t max)
{
	struct buf b;

	bufinit(&b, max - 1);
	to[0] = 0;
	if (readfile(path, &b) == 0)
		memcpy(to, b.s, b.n + 1);
	buffree(&b);
}

static void
inchild(const struct optspec *spec, const char **args, struct child *c)
{
	char outpath[300], errpath[300];
	pid_t pid;
	int st;

	snprintf(outpath, sizeof outpath, "%s/out", dir);
	snprintf(errpath, sizeof errpath, "%s/err", dir);
	fflush(stdout);
	pid = fork();
	need(pid >= 0, "fork");
	if (pid == 0) {
		struct optlist in;
		int o = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600), e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(100);
		parse(spec, args, &in);
		optfree(&in);
		reset();
		exit(99); /* parsed: no exit of optparse's own */
	}
	need(waitpid(pid, &st, 0) == pid, "wait for the child");
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	slurp(outpath, c->out, sizeof c->out);
	slurp(errpath, c->err, sizeof c->err);
}

/* option values: strings, integers, numbers, sizes, flags, lists, and the inputs among them */
static void
values(void)
{
	struct optlist in;

	parse(&spec, (const char *[]){ "-o", "x.json", "--gpus", "8", "--fraction", "0.25", "--bytes", "2.5e3",
	                               "--flag", "a", "-", "--name", "n1", "--name", "n2", NULL }, &in);
	is_str(out, "x.json", "a string value");
	is_int(gpus, 8, "an integer value");
	ok(frac == 0.25, "a number value (%g)", frac);
	is_int(bytes, 2500, "a size value, 2.5e3 read too");
	is_int(flag, 1, "a flag");
	is_str(name, "n2", "a repeated option: the last wins");
	ok(in.n == 2 && !strcmp(in.v[0], "a") && !strcmp(in.v[1], "-") && !in.v[2] && !in.listed,
	   "the inputs, in order, \"-\" one of them, the list NULL-ended (%zu)", in.n);
	optfree(&in);
	parse(&spec, (const char *[]){ "--meta", "a=1", "x", "--meta", "b=2", NULL }, &in);
	ok(meta.n == 2 && !strcmp(meta.v[0], "a=1") && !strcmp(meta.v[1], "b=2") && !meta.v[2],
	   "a list option keeps every value, in order");
	ok(in.n == 1 && !strcmp(in.v[0], "x"), "inputs between options");
	optfree(&in);
	parse(&spec, (const char *[]){ NULL }, &in);
	ok(in.n == 0 && !in.v && !out && gpus == 1, "nothing given: defaults stay, no inputs");
	parse(&spec, (const char *[]){ "-o", "-h", "--name", "--gpus", NULL }, &in);
	ok(out && !strcmp(out, "-h") && !strcmp(name, "--gpus"), "a value is the next argument, whatever it looks like");
}

/* values out of their ranges: exit 2, naming the option and the value */
static void
ranges(void)
{
	struct child c;

	inchild(&spec, (const char *[]){ "--gpus", "0", NULL }, &c);
	is_int(c.status, EXIT_USAGE, "an integer under its range: exit 2");
	is_str(c.err, "t-opts: --gpus must be an integer from 1 to 1024: '0'\n", "... naming the option and the value");
	inchild(&spec, (const char *[]){ "--gpus", "1025", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "from 1 to 1024: '1025'"), "an integer over its range");
	inchild(&spec, (const char *[]){ "--gpus", "8x", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "'8x'"), "an integer with a tail");
	inchild(&spec, (const char *[]){ "--gpus", "", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "''"), "an empty integer");
	inchild(&spec, (const char *[]){ "--fraction", "1", NULL }, &c);
	is_str(c.err, "t-opts: --fraction must be a number from 0 to 0.99: '1'\n", "a number over its range: %d",
	       c.status);
	inchild(&spec, (const char *[]){ "--bytes", "1000", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "--bytes must be a number from 1024 to 1e+15: '1000'"),
	   "a size under its range");
	inchild(&spec, (const char *[]){ "--fraction", "nan", NULL }, &c);
	ok(c.status == EXIT_USAGE, "NaN is in no range");
}

/* what is refused, with the synopsis */
static void
refused(void)
{
	struct child c;

	inchild(&spec, (const char *[]){ "x", "-o", NULL }, &c);
	is_int(c.status, EXIT_USAGE, "a missing value: exit 2");
	is_str(c.err, "t-opts: -o needs a value (FILE)\nusage: t-opts [options] -o FILE IN...\n       t-opts --other\n",
	       "... the option, its value's name, the synopsis");
	inchild(&spec, (const char *[]){ "-o", "x", "--nope", NULL }, &c);
	is_int(c.status, EXIT_USAGE, "an unknown option: exit 2");
	ok(startswith(c.err, "t-opts: unknown option: '--nope'\nusage: t-opts"), "... named, the synopsis after");
	inchild(&spec, (const char *[]){ "-x", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "unknown option: '-x'"), "a short unknown option");
	inchild(&spec, (const char *[]){ "--gpus=2", NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "'--gpus=2'"), "--opt=value is not a spelling");
	inchild(&spec, (const char *[]){ "a", "b", "c", "d", NULL }, &c);
	is_int(c.status, EXIT_USAGE, "too many inputs: exit 2");
	ok(startswith(c.err, "t-opts: too many inputs (at most 3): 'd'\nusage:"), "... the first one too many");
	inchild(&spec, (const char *[]){ "a", "b", "c", NULL }, &c);
	is_int(c.status, 99, "as many inputs as allowed");
	inchild(&none, (const char *[]){ "a", NULL }, &c);
	ok(c.status == EXIT_USAGE && startswith(c.err, "t-opts: takes no inputs: 'a'\nusage:"), "a tool without inputs");
}

/* --help: the synopsis and every row's help, on stdout, exit 0 */
static void
help(void)
{
	struct child c;
	const struct opt *o;

	inchild(&spec, (const char *[]){ "-o", "x", "--help", "--nope", NULL }, &c);
	is_int(c.status, 0, "--help: exit 0, what follows it unread");
	ok(!c.err[0], "--help: nothing on stderr");
	ok(startswith(c.out, synopsis), "--help: the synopsis first");
	for (o = tab; o->name; o++) {
		char left[200], *at, *end;
		snprintf(left, sizeof left, "\n  %s%s%s ", o->name, o->meta ? " " : "", o->meta ? o->meta : "");
		at = strstr(c.out, left);
		end = at ? strchr(at + 1, '\n') : NULL;
		ok(end && end - strlen(o->help) > at && !strncmp(end - strlen(o->help), o->help, strlen(o->help)),
		   "--help: a line for %s, its help at the end", o->name);
	}
	ok(strstr(c.out, "\n  -h, --help ") != NULL, "--help lists itself");
	ok(strstr(c.out, "\n  --meta KEY=VALUE  repeatable\n") != NULL, "--help lines the help up after the widest");
	inchild(&spec, (const char *[]){ "-h", NULL }, &c);
	ok(c.status == 0 && strstr(c.out, "GPU slots (default 1)"), "-h too");
}

/* lists: "@FILE" stands for its lines where the tool takes lists */
static void
listfiles(void)
{
	struct optlist in;
	struct child c;
	char list[300], arg[310];

	snprintf(list, sizeof list, "%s/list", dir);
	need(writefile(list, "a.json\nb.json\n\nc.json\n", 23) == 1, "write a list");
	snprintf(arg, sizeof arg, "@%s", list);
	parse(&lists, (const char *[]){ "first.json", arg, "-o", "x", "last.json", NULL }, &in);
	ok(in.n == 5 && !strcmp(in.v[0], "first.json") && !strcmp(in.v[1], "a.json") && !strcmp(in.v[3], "c.json") &&
	   !strcmp(in.v[4], "last.json") && in.listed == 1,
	   "an input, an @rspfile's lines (empty ones skipped), an input (%zu)", in.n);
	optfree(&in);
	parse(&spec, (const char *[]){ arg, NULL }, &in);
	ok(in.n == 1 && !strcmp(in.v[0], arg) && !in.listed, "without lists, @FILE is an input as it is");
	optfree(&in);
	{
		const struct optspec two = { synopsis, tab, 2, 1 };
		inchild(&two, (const char *[]){ arg, NULL }, &c);
		ok(c.status == EXIT_USAGE && strstr(c.err, "too many inputs (at most 2): 'c.json' in"),
		   "a list's lines count as inputs");
	}
	snprintf(arg, sizeof arg, "@%s/none", dir);
	inchild(&lists, (const char *[]){ arg, NULL }, &c);
	ok(c.status == EXIT_USAGE && strstr(c.err, "cannot read '") && strstr(c.err, "/none': No such file"),
	   "a list that cannot be read: exit 2");
}

/* optdie: a usage error the tool finds later */
static void
later(void)
{
	struct child c;
	char arg[310];

	fflush(stdout);
	{
		pid_t pid = fork();
		int st;
		need(pid >= 0, "fork");
		if (pid == 0) {
			char errpath[300];
			snprintf(errpath, sizeof errpath, "%s/err", dir);
			int e = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			if (e < 0 || dup2(e, 2) < 0)
				_exit(100);
			optdie(&spec, "need -o");
		}
		need(waitpid(pid, &st, 0) == pid, "wait for the child");
		snprintf(arg, sizeof arg, "%s/err", dir);
		slurp(arg, c.err, sizeof c.err);
		ok(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_USAGE, "optdie: exit 2");
		is_str(c.err, "t-opts: need -o\nusage: t-opts [options] -o FILE IN...\n       t-opts --other\n",
		       "optdie: the message, then the synopsis");
	}
}

int
main(void)
{
	setprogname("t-opts");
	need(mkdtemp(dir) != NULL, "make a scratch folder");

	values();
	ranges();
	refused();
	help();
	listfiles();
	later();

	/* intarg, for values that are not options (query-llm's paths) */
	ok(intarg("42", "--n", 1, 100) == 42 && intarg("-3", "--n", -5, 5) == -3, "intarg");

	reset();
	rmtree(dir);
	return done_testing();
}
