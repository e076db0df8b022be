#!/bin/sh
# t0001: configure — options, checks, the saved options, the summary
. "$(dirname "$0")/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta '' 'test, demo'

test_expect_success '--help lists every option with its default' '
	cd p && ./configure --help >help &&
	for o in --provider= --model= --budget= --samples= --rounds= --llm-jobs= --gpu-jobs= \
		--cache-dir= --tasks= --all --offline --install-deps --arch= --with-tools= CC= --regenerate; do
		grep -q -e "$o" help || { echo "missing $o"; exit 1; }
	done &&
	for d in "\[replay\]" "\[demo\]" "\[3\]" "\[1\]" "\[8\]" "\[0\]" "\[cc\]" "XDG_CACHE_HOME/retort\]"; do
		grep -q -e "$d" help || { echo "missing default $d"; exit 1; }
	done
'

test_expect_success 'an unknown option is a usage error (exit 2)' '
	cd p && expect_fail 2 "unknown option .--bogus." ./configure --bogus
'

test_expect_success 'bad values are usage errors' '
	cd p && expect_fail 2 "samples must be a positive integer" ./configure --samples=x &&
	expect_fail 2 "provider must be anthropic, openai or replay" ./configure --provider=foo &&
	expect_fail 2 "arch looks like sm_90" ./configure --arch=90
'

test_expect_success 'configure writes build.ninja and config.status and prints a summary' '
	cd p && rconfigure --tasks=demo --model=demo >cfg.log &&
	test -f build.ninja && test -f config.status &&
	grep -q "teacher    replay / demo, offline (replay)" cfg.log &&
	grep -q "GPU        " cfg.log &&
	grep -q "tasks      demo: 2 specs, 1 of 2 variants selected" cfg.log &&
	grep -q "^tasks=.demo.$" config.status
'

test_expect_success 'the same options leave config.status untouched' '
	cd p && cp -p config.status before && sleep 1 && rconfigure --tasks=demo --model=demo >/dev/null &&
	test ! config.status -nt before && cmp config.status before
'

test_expect_success 'a --tasks glob that selects nothing is an error' '
	cd p && expect_fail 2 "selects none of the 2 variants" rconfigure --tasks=nothing*
'

test_expect_success 'gen --list prints the selected ids, --all every id' '
	cd p && rconfigure --tasks="a*" >/dev/null &&
	test "$("$RETORT_BIN/gen" --list --tasks "a*")" = alpha &&
	test "$("$RETORT_BIN/gen" --list --all | tr "\n" " ")" = "alpha beta " &&
	test "$("$RETORT_BIN/gen" --list --tasks demo)" = beta
'

# a pkg-config that lacks jansson until the fake apt-get "installs" it
mkdir -p "$T/fake"
cat > "$T/fake/pkg-config" <<EOS
#!/bin/sh
for a; do last=\$a; done
if test "\$last" = jansson && test ! -f "$T/installed"; then exit 1; fi
exec /usr/bin/pkg-config "\$@"
EOS
cat > "$T/fake/apt-get" <<EOS
#!/bin/sh
echo "\$*" >> "$T/apt.log"
case "\$*" in *install*) touch "$T/installed" ;; esac
EOS
chmod +x "$T/fake/pkg-config" "$T/fake/apt-get"

test_expect_success 'a missing library prints the exact apt-get line and exits 1' '
	cd p && PATH="$T/fake:$PATH" expect_fail 1 "apt-get install -y libjansson-dev" rconfigure
'

if test "$(id -u)" = 0; then
	test_expect_success '--install-deps runs apt-get and continues' '
		cd p && PATH="$T/fake:$PATH" rconfigure --install-deps >cfg.log &&
		grep -q "install -y -q libjansson-dev" "$T/apt.log" &&
		grep -q "retort configured" cfg.log
	'
else
	test_skip '--install-deps runs apt-get and continues: not root'
fi

test_done
