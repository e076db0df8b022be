#!/bin/sh
# t0020: every tool's manual basics, under the sanitizer build: --help
# prints the usage and the options (lib/opts.c, from the tool's table) on
# stdout and exits 0 with nothing on stderr (package and report leaked
# there, so ASan made --help exit 1); an unknown option exits 2 and names
# it.
. "$(dirname "$0")/lib/lib.sh"

for t in bench compile gen jail metrics package prepare query-llm record report verify propose-check propose-accept; do
	test_expect_success "$t --help: usage on stdout, exit 0, nothing on stderr" '
		"$RETORT_BIN/'$t'" --help >out 2>err &&
		grep -q "^usage: '$t'" out && grep -q "^options:$" out &&
		test "$(grep -c "^  -[a-z-]" out)" -ge 2 && grep -q "^  -h, --help  *this text$" out &&
		test ! -s err
	'
	test_expect_success "$t --no-such-option: exit 2, the option named" '
		"$RETORT_BIN/'$t'" --no-such-option >out 2>err; test $? = 2 &&
		grep -q "no-such-option" err
	'
done

test_expect_success 'the scripts: bad usage and no configuration exit 2 with the reason, not the shell'"'"'s error' '
	mkdir -p bare && cd bare &&
	expect_fail 2 "usage: slurm-launch" "$RETORT_ROOT/scripts/slurm-launch" --bogus &&
	expect_fail 2 "cannot read .*config.status.: run ./configure --launcher=slurm" "$RETORT_ROOT/scripts/slurm-launch" probe &&
	expect_fail 2 "reproduce: no config.status here: run ./configure first" "$RETORT_ROOT/scripts/reproduce" &&
	! grep -q "cannot open" "$T/.err"
'

test_expect_success 'scripts/reproduce --help: the usage, exit 0, no rebuild; another argument exits 2' '
	mkdir -p bare2 && cd bare2 && : >config.status &&
	"$RETORT_ROOT/scripts/reproduce" --help >out 2>err && grep -q "^usage: scripts/reproduce" out &&
	test ! -s err && ! grep -q rebuilding out &&
	expect_fail 2 "reproduce: unknown argument: .--bogus.$" "$RETORT_ROOT/scripts/reproduce" --bogus &&
	expect_fail 2 "reproduce: unknown argument: .extra.$" "$RETORT_ROOT/scripts/reproduce" --help extra &&
	expect_fail 2 "reproduce: unknown argument: ..$" "$RETORT_ROOT/scripts/reproduce" ""
'

test_done
