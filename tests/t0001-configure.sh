#!/bin/sh
# t0001: configure — options, checks, the saved options, the summary
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta '' 'test, demo'
sq="'"
# the keys configure asks for (fakes; the case on a missing key unsets them)
export ANTHROPIC_API_KEY=sk-ant-FAKE-KEY-0123456789 OPENAI_API_KEY=sk-oai-FAKE-KEY-0123456789

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

test_expect_success 'the summary says how --tasks matched (spec, tag); a term that matches nothing gets a did-you-mean' '
	cd p && rconfigure --tasks=alpha,demo,btea --model=demo >cfg.log &&
	grep -q "^             .alpha.: spec alpha (1 variant)$" cfg.log &&
	grep -q "^             .demo.: tag demo (1 variant of beta)$" cfg.log &&
	grep -q "^             .btea.: matches nothing (did you mean .beta.?)$" cfg.log &&
	expect_fail 2 "gen: .alpah.: matches nothing (did you mean .alpha.?)" rconfigure --tasks=alpah
'

test_expect_success 'gen --list prints the selected ids, --all every id' '
	cd p && rconfigure --tasks="a*" >/dev/null &&
	test "$("$RETORT_BIN/gen" --list --tasks "a*")" = alpha &&
	test "$("$RETORT_BIN/gen" --list --all | tr "\n" " ")" = "alpha beta " &&
	test "$("$RETORT_BIN/gen" --list --tasks demo)" = beta
'

test_expect_success 'an anthropic id models.yaml does not list: accepted with the defaults, prices unknown, a hint' '
	cd p && rconfigure --provider=anthropic --model=claude-sonet-4-6 >cfg.log &&
	cat cfg.log &&
	grep -q "teacher    anthropic / claude-sonet-4-6, online" cfg.log &&
	grep -q "^             model claude-sonet-4-6: not in models.yaml, using anthropic.s defaults; prices unknown (did you mean .claude-sonnet-4-6.?)$" cfg.log &&
	grep -q "tasks      demo: 2 specs, 1 of 2 variants selected$" cfg.log &&
	ninja out/model.json >/dev/null &&
	sed "s/^models:\$/models:\n  claude-sonet-4-6: {provider: anthropic}/" models.yaml >bare.yaml &&
	"$RETORT_BIN/gen" --model-json bare.json --models bare.yaml --provider anthropic --model claude-sonet-4-6 &&
	python3 - out/model.json bare.json <<-\EOS
	import json, sys
	# what it gets: an entry with no settings of its own (the defaults give no prices)
	m, bare = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
	assert m.pop("listed") is False, m
	assert "prices" not in m and "thinking" not in m and "effort" not in m and "entry" not in m, m
	assert m["provider"] == "anthropic" and m["name"] == m["api_model"] == "claude-sonet-4-6", m
	assert bare.pop("entry") == "claude-sonet-4-6" and "prices" not in bare, bare
	assert m == bare, (m, bare)
	EOS
'
test_expect_success 'a listed model: model.json as before (no listed key, its prices and settings)' '
	cd p && rconfigure --provider=anthropic --model=claude-sonnet-4-6 >cfg.log &&
	! grep -q "not in models.yaml" cfg.log && ninja out/model.json >/dev/null &&
	test "$(field out/model.json "[\"listed\" in d, d[\"prices\"][\"input\"], d[\"thinking\"][\"type\"], d[\"entry\"]]")" = \
		"[False, 3, ${sq}enabled${sq}, ${sq}claude-sonnet-4-6${sq}]"
'
test_expect_success 'an unlisted openai id (no catch-all entry): the defaults, prices unknown' '
	cd p && cp models.yaml models.yaml.orig && sed -i "/^  \"\*\":/,\$d" models.yaml &&
	rconfigure --provider=openai --model=my-served-model >cfg.log; rc=$?; mv models.yaml.orig models.yaml &&
	test $rc = 0 &&
	grep -q "model my-served-model: not in models.yaml, using openai.s defaults; prices unknown$" cfg.log
'
test_expect_success 'a served model and --budget: refused (no prices); a missing key: named' '
	cd p && expect_fail 2 "gen: --budget needs prices, and model .gpt-5.1. has none (its entry in models.yaml gives none): its cost would be unknown and the budget never reached. Give them with --price-in=USD --price-out=USD (per million tokens), or in an entry of models.yaml; declare a free server with --price-in=0 --price-out=0; or cap the tokens instead with --budget-tokens=N" \
		rconfigure --provider=openai --model=gpt-5.1 --budget=0.000001 &&
	expect_fail 2 "configure: --provider=anthropic needs the key in ANTHROPIC_API_KEY, which is not set: export it" \
		env -u ANTHROPIC_API_KEY ./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" --provider=anthropic
'
test_expect_success LONG 'a served model through the "*" entry: no prices (not zeros), and the summary says so' '
	cd p && rconfigure --provider=openai --model=gpt-5.1 >cfg.log && cat cfg.log &&
	grep -q "^             model gpt-5.1: models.yaml.s entry .\*. has no prices: prices unknown$" cfg.log &&
	ninja out/model.json >/dev/null &&
	test "$(field out/model.json "[\"prices\" in d, \"batch_prices\" in d, d[\"entry\"]]")" = "[False, False, ${sq}*${sq}]"
'
test_expect_success LONG '--budget for a model without prices: refused; bad price and token options' '
	cd p && expect_fail 2 "gen: --budget needs prices, and model .claude-next-1. has none (it is not in models.yaml)" \
		rconfigure --provider=anthropic --model=claude-next-1 --budget=5 &&
	expect_fail 2 "configure: --price-in and --price-out go together" rconfigure --provider=openai --model=gpt-5.1 --price-in=1 &&
	expect_fail 2 "configure: --price-out must be a number of USD per million tokens: .x." \
		rconfigure --provider=openai --model=gpt-5.1 --price-in=1 --price-out=x &&
	expect_fail 2 "configure: --budget-tokens must be a whole number of tokens: .1e6." \
		rconfigure --provider=openai --model=gpt-5.1 --budget-tokens=1e6 &&
	expect_fail 2 "configure: --budget-tokens does not hold batches yet" \
		rconfigure --provider=openai --model=gpt-5.1 --budget-tokens=1000 --batch &&
	rconfigure >/dev/null
'
test_expect_success LONG 'prices from the command line, a free server, or a budget in tokens: taken' '
	cd p && rconfigure --provider=openai --model=gpt-5.1 --budget=2 --price-in=1.25 --price-out=10 >cfg.log &&
	grep -q "teacher    openai / gpt-5.1, online, budget \$2$" cfg.log &&
	grep -q "model gpt-5.1: priced from the command line: \$1.25 in, \$10 out per million tokens$" cfg.log &&
	ninja out/model.json >/dev/null &&
	test "$(field out/model.json "[d[\"prices\"], d[\"batch_prices\"] == d[\"prices\"], d[\"prices_from\"]]")" = \
		"[{${sq}cache_read${sq}: 1.25, ${sq}cache_write${sq}: 1.25, ${sq}input${sq}: 1.25, ${sq}output${sq}: 10.0}, True, ${sq}configure${sq}]" &&
	rconfigure --provider=openai --model=gpt-5.1 --budget=2 --price-in=0 --price-out=0 >cfg.log &&
	grep -q "model gpt-5.1: free (--price-in=0 --price-out=0)$" cfg.log &&
	rconfigure --provider=openai --model=gpt-5.1 --budget-tokens=50000 >cfg.log &&
	grep -q "teacher    openai / gpt-5.1, online, budget 50000 tokens$" cfg.log &&
	grep -q "^budget_tokens=.50000.$" config.status && grep -q "^budget_tokens = 50000$" build.ninja &&
	expect_fail 2 "--price-in and --price-out are for a model that is asked" rconfigure --price-in=0 --price-out=0 &&
	rconfigure >/dev/null
'
test_expect_success LONG 'a missing key is named (exit 2, the key never printed); --offline needs none' '
	cd p && rconfigure >/dev/null && cp config.status keep.status &&
	expect_fail 2 "configure: --provider=anthropic needs the key in ANTHROPIC_API_KEY, which is not set: export it" \
		env -u ANTHROPIC_API_KEY ./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" --provider=anthropic &&
	expect_fail 2 "configure: --provider=openai needs the key in OPENAI_API_KEY, which is not set" \
		env -u OPENAI_API_KEY -u OPENAI_BASE_URL ./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" --provider=openai --model=m &&
	cmp config.status keep.status &&
	env -u OPENAI_API_KEY OPENAI_BASE_URL=http://127.0.0.1:9/v1 ./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" --provider=openai --model=m >/dev/null &&
	env -u ANTHROPIC_API_KEY ./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" --provider=anthropic --offline >/dev/null &&
	rconfigure --provider=anthropic >out.log 2>&1 && ! grep -r "FAKE-KEY" out.log config.status build.ninja &&
	rconfigure >/dev/null
'
test_expect_success 'an id of no provider family is refused, with the nearest listed id' '
	cd p && expect_fail 2 "no entry for model .gpt-5. with provider anthropic, and it is no Anthropic id (claude-...): add one under .models." \
		rconfigure --provider=anthropic --model=gpt-5 &&
	expect_fail 2 "no entry for model .dem. with provider replay: add one under .models. (did you mean .demo.?)" \
		rconfigure --provider=replay --model=dem &&
	rconfigure >/dev/null
'

# a pkg-config that lacks jansson until the fake apt-get "installs" it, one
# that knows nothing, and an ldd that, until then, finds no libjansson for
# query-llm and record (and no libfoo when $T/foo exists)
mkdir -p "$T/fake" "$T/nopc"
cat > "$T/fake/pkg-config" <<EOS
#!/bin/sh
for a; do last=\$a; done
if test "\$last" = jansson && test ! -f "$T/installed"; then exit 1; fi
exec /usr/bin/pkg-config "\$@"
EOS
printf '#!/bin/sh\nexit 1\n' > "$T/nopc/pkg-config"
cat > "$T/fake/ldd" <<EOS
#!/bin/sh
/usr/bin/ldd "\$@" || exit
case \$1 in */query-llm|*/record)
	test -f "$T/installed" || printf '\\tlibjansson.so.4 => not found\\n'
	test ! -f "$T/foo" || printf '\\tlibfoo.so.9 => not found\\n' ;;
*/package) test ! -f "$T/noarc" || printf '\\tlibarchive.so.13 => not found\\n' ;;
esac
EOS
cat > "$T/fake/apt-get" <<EOS
#!/bin/sh
echo "\$*" >> "$T/apt.log"
case "\$*" in *install*) touch "$T/installed" ;; esac
EOS
chmod +x "$T/fake/pkg-config" "$T/fake/ldd" "$T/fake/apt-get" "$T/nopc/pkg-config"

test_expect_success 'a missing library prints the exact apt-get line and exits 1' '
	cd p && PATH="$T/fake:$PATH" expect_fail 1 "apt-get install -y libjansson-dev" \
		./configure --cache-dir="$T/cache" &&
	grep -q "checking for jansson... no" "$T/.out"
'
test_expect_success 'prebuilt tools: no pkg-config or development libraries needed' '
	cd p && PATH="$T/nopc:$PATH" rconfigure >cfg.log &&
	grep -q "checking for the shared libraries the tools in $RETORT_BIN load... yes" cfg.log &&
	! grep -q "pkg-config\|yaml\|jansson\|libarchive\|prove\|python" cfg.log &&
	grep -q "retort configured" cfg.log
'
test_expect_success 'prebuilt tools: a shared library they load that is missing, named with its users and package' '
	cd p && PATH="$T/fake:$T/nopc:$PATH" expect_fail 1 "apt-get install -y libjansson4" rconfigure &&
	grep -q "^configure: query-llm record cannot load .libjansson.so.4.: not on this host (package libjansson4\(t64\)\?)$" "$T/.err" &&
	grep -q "load... no: libjansson.so.4$" "$T/.out" &&
	! grep -q "dev" "$T/.err"
'
test_expect_success LONG 'prebuilt tools: an evaluation needs no library of package (it packages nothing)' '
	cd p && touch "$T/noarc" "$T/installed" &&
	PATH="$T/fake:$T/nopc:$PATH" expect_fail 1 "^configure: package cannot load .libarchive.so.13." rconfigure; rc=$?
	PATH="$T/fake:$T/nopc:$PATH" rconfigure --eval >cfg.log; rc2=$?; rm -f "$T/noarc" "$T/installed" &&
	test $rc = 0 && test $rc2 = 0 && grep -q "load... yes" cfg.log
'
test_expect_success 'prebuilt tools: a library no package is known for, and a tool missing from the folder' '
	cd p && touch "$T/foo" "$T/installed" &&
	PATH="$T/fake:$T/nopc:$PATH" expect_fail 1 "cannot run here" rconfigure; rc=$?; rm -f "$T/foo" "$T/installed" &&
	test $rc = 0 && grep -q "^configure: query-llm record cannot load .libfoo.so.9.: not on this host$" "$T/.err" &&
	mkdir -p "$T/few" && cp "$RETORT_BIN/gen" "$RETORT_BIN/compile" "$T/few/" &&
	expect_fail 2 "with-tools: .$T/few. lacks query-llm prepare bench verify package record" \
		./configure --with-tools="$T/few" --cache-dir="$T/cache"
'

if test "$(id -u)" = 0; then
	test_expect_success LONG '--install-deps runs apt-get and continues' '
		cd p && PATH="$T/fake:$T/nopc:$PATH" rconfigure --install-deps >cfg.log &&
		grep -q "install -y -q libjansson4" "$T/apt.log" &&
		grep -q "retort configured" cfg.log
	'
else
	test_skip '--install-deps runs apt-get and continues: not root'
fi

test_done
