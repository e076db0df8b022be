#!/bin/sh
# t0200: the graph — fragments, regeneration after edits, adding and
# deleting specs, no-op builds, and edits that rerun only their own edges
. "$(dirname "$0")/lib/lib.sh"

scratch_project "$T/p"
cd "$T/p" || exit 1
spec a alpha
spec b beta
spec c gamma "hints: [\"{w}\"]
matrix: {w: [x1, x2]}"
replay gamma.x1 gamma.x2 gamma.x3

test_expect_success 'first build writes one fragment per variant' '
	cd p && rconfigure --all >/dev/null && ninja >n.log &&
	for v in alpha beta gamma.x1 gamma.x2; do test -f out/v/$v/task.json || exit 1; done &&
	grep -q "\"id\": \"gamma.x2\"" out/v/gamma.x2/task.json
'
test_expect_success 'a second ninja does nothing' '
	cd p && ninja >n.log && grep -q "ninja: no work to do" n.log &&
	ninja -n -d explain >n.log 2>&1 && ! grep -q "is dirty" n.log
'
test_expect_success 'matrix expansion ids' '
	cd p && test "$("$RETORT_BIN/gen" --list --all | tr "\n" " ")" = "alpha beta gamma.x1 gamma.x2 "
'
test_expect_success 'editing one spec regenerates and reruns only its edges' '
	# (backdated past every output: ninja then sees a rewrite by its mtime)
	cd p && sleep 1 && touch -d "-1 hour" out/v/*/task.json &&
	for v in alpha gamma.x1 gamma.x2; do cp -p out/v/$v/task.json $v.before; done &&
	sed -i "s/Scale a vector by two (beta)/Scale a vector by two, edited (beta)/" tasks/b.yaml &&
	ninja >n.log && ran n.log >ran.log && cat ran.log &&
	grep -q "^regenerating build.ninja" ran.log && grep -q "^SPLIT tasks/b.yaml" ran.log &&
	grep -q "^ASK out/v/beta/s0/r1/response.json" ran.log &&
	! grep -v "^regenerating\|^PACKAGE out/dataset$" ran.log | grep -v -q "beta\|b.yaml" &&
	grep -q "edited (beta)" out/v/beta/task.json &&
	for v in alpha gamma.x1 gamma.x2; do test ! out/v/$v/task.json -nt $v.before || exit 1; done
'
test_expect_success 'an edit of its prompt takes the variant'"'"'s harness and reference from the build cache' '
	cd p && n=0 && for f in harness reference; do
		for e in $(find "$T/cache/prep" -name out); do
			if cmp -s "$e" out/v/beta/$f; then printf retort-cache-test >>"$e" && n=$((n + 1)) || exit 1; fi
		done
	done && test $n -ge 2 &&
	sed -i "s/edited (beta)/edited twice (beta)/" tasks/b.yaml && ninja >n.log && ran n.log >ran.log &&
	grep -q "^HARNESS out/v/beta/harness" ran.log && grep -q "^REFERENCE out/v/beta/reference" ran.log &&
	for f in harness reference; do test "$(tail -c 17 out/v/beta/$f)" = retort-cache-test || exit 1; done
'
test_expect_success 'and its expected outputs (expected.bin the cache'"'"'s file)' '
	cd p && es=$(find "$T/cache/expected" -samefile out/v/beta/expected.bin) && test -n "$es" &&
	for e in $es; do
		python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d[\"cache_test\"] = 1; json.dump(d, open(sys.argv[1], \"w\"))" \
			"$(dirname "$e")/expected.json" || exit 1
	done &&
	sed -i "s/edited twice (beta)/edited thrice (beta)/" tasks/b.yaml && ninja >n.log && ran n.log >ran.log &&
	grep -q "^EXPECTED out/v/beta/expected.json" ran.log &&
	test "$(field out/v/beta/expected.json "d[\"cache_test\"]")" = 1 &&
	test -n "$(find "$T/cache/expected" -samefile out/v/beta/expected.bin)"
'
# xexpected DIR CACHE [OPTIONS]: verify --expected over beta into DIR, with the cache dir CACHE
xexpected() {
	d=$1 c=$2
	shift 2
	"$RETORT_BIN/verify" --expected --cache-dir "$c" "$@" -o "$d/expected.json" out/v/beta/task.json out/v/beta/reference
}
shm=$(mktemp -d /dev/shm/retort-t0200.XXXXXX 2>/dev/null) && trap 'rm -rf "$shm"; test -n "${KEEP_T:-}" || rm -rf "$T"' EXIT
if test -n "$shm" && test "$(stat -c %d "$shm")" != "$(stat -c %d "$T")"; then
	test_expect_success 'a cache on another file system: the outputs are copied, owner-only in the cache and out of it' '
		cd p && cp "$T/cache/secret" "$shm/" && xexpected e1 "$shm" --no-bench && xexpected e2 "$shm" --no-bench &&
		test "$(find "$shm/expected" -name expected.bin | wc -l)" = 1 &&
		test "$(stat -c %a $(find "$shm/expected" -name expected.bin))" = 600 &&
		test "$(stat -c %a e1/expected.bin) $(stat -c %a e2/expected.bin)" = "600 600" && cmp e1/expected.bin e2/expected.bin
	'
else
	test_skip "a cache on another file system: /dev/shm is not one here"
fi
test_expect_success LONG 'outputs the reference could not afford here (left to the GPU'"'"'s oracle) are not kept' '
	cd p && mkdir -p slow && sed "s/{ for (int i = 0; i < n; i++) y\[i\] = 2 \* x\[i\]; }/{ for (int i = 0; i < n; i++) y[i] = 2 * x[i]; if (n > 1000) for (;;) ; }/" \
		out/v/beta/task.json >slow/task.json && grep -q "for (;;)" slow/task.json &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o slow/reference slow/task.json &&
	"$RETORT_BIN/verify" --expected --cache-dir "$T/cache-slow" --ref-seconds 2 -o slow/expected.json \
		slow/task.json slow/reference 2>slow.err &&
	grep -q "past its budget" slow.err && grep -q cpu_dropped slow/expected.json &&
	test -z "$(find "$T/cache-slow" -path "*expected/*" -name expected.json)"
'
# refvariant DIR OLD NEW N...: beta's task with OLD in its reference replaced by NEW and
# hidden cases of the sizes N, built into DIR
refvariant() {
	mkdir -p "$1" && python3 - "$@" <<-'EOS' && "$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o "$1/reference" "$1/task.json"
	import json, sys
	d = json.load(open("out/v/beta/task.json"))
	assert sys.argv[2] in d["reference"]
	d["reference"] = d["reference"].replace(sys.argv[2], sys.argv[3])
	c = d["cases"]["hidden"][0]
	d["cases"]["hidden"] = [dict(c, bytes=8 * n, sizes={"n": n}, shapes={"x": [n], "y": [n]}) for n in map(int, sys.argv[4:])]
	json.dump(d, open(sys.argv[1] + "/task.json", "w"))
	EOS
}
# nof: a run's n, from its label (n=N)
nof='int(r["label"].split("=")[1])'
test_expect_success LONG 'cases run side by side are written in order: one that never ends takes every later one off the CPU' '
	cd p && refvariant mid "y[i] = 2 * x[i]; }" "y[i] = 2 * x[i]; if (n == 5000) for (;;) ; }" 5000 7000 9000 &&
	"$RETORT_BIN/verify" --expected --cache-dir "$T/cache-mid" --ref-seconds 3 -o mid/expected.json \
		mid/task.json mid/reference 2>mid.err &&
	test "$(field mid/expected.json "\" \".join(r[\"oracle\"] for r in d[\"runs\"] if $nof > 1000)")" = "gpu gpu gpu gpu" &&
	test "$(field mid/expected.json "\" \".join(sorted(set(r[\"oracle\"] for r in d[\"runs\"] if $nof <= 1000)))")" = reference &&
	test "$(stat -c %s mid/expected.bin)" = \
		"$(field mid/expected.json "sum(4 * $nof for r in d[\"runs\"] if \"offset\" in r)")"
'
test_expect_success 'an edit of its reference builds that and its outputs again' '
	cd p && sed -i "s/y\[i\] = 2 \* x\[i\]; }/y[i] = x[i] + x[i]; }/" tasks/b.yaml && ninja >n.log &&
	grep -q "x\[i\] + x\[i\]" out/v/beta/task.json &&
	test "$(tail -c 17 out/v/beta/reference)" != retort-cache-test &&
	test "$(tail -c 17 out/v/beta/harness)" = retort-cache-test &&
	! grep -q cache_test out/v/beta/expected.json
'
test_expect_success 'a touched but unchanged spec rewrites nothing (restat)' '
	cd p && cp -p out/v/beta/task.json beta.before && sleep 1 && touch tasks/b.yaml &&
	ninja >n.log && test ! out/v/beta/task.json -nt beta.before &&
	ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'editing one variant of a matrix moves only that fragment' '
	cd p && cp -p out/v/gamma.x1/task.json x1.before && sleep 1 &&
	sed -i "s/w: \[x1, x2\]/w: [x1, x3]/" tasks/c.yaml && ninja >/dev/null &&
	test ! out/v/gamma.x1/task.json -nt x1.before && test -f out/v/gamma.x3/task.json &&
	test "$("$RETORT_BIN/gen" --list --all | tr "\n" " ")" = "alpha beta gamma.x1 gamma.x3 "
'
test_expect_success 'adding a spec is picked up' '
	cd p && spec d delta && ninja >n.log && test -f out/v/delta/task.json &&
	grep -q "regenerating build.ninja" n.log
'
test_expect_success 'deleting a spec does not wedge the build' '
	cd p && rm tasks/d.yaml && ninja >n.log 2>&1 && cat n.log &&
	! grep -q "out/v/delta" build.ninja && ninja >n.log && grep -q "no work to do" n.log
'
test_expect_success 'editing a template regenerates' '
	cd p && echo "edited" >> tasks/prompts/generate.md && ninja >n.log &&
	grep -q "regenerating build.ninja" n.log
'
# the templates reach the request edges through a stamp (out/inputs/): a
# phony node there would leave them dirty after they ran (restat)
test_expect_success 'editing the repair template re-asks the repair rounds alone' '
	cd p && ninja >/dev/null && echo "edited" >> tasks/prompts/repair.md && ninja >n.log && ran n.log >ran.log &&
	cat ran.log && grep -q "^ASK out/v/alpha/s0/r2/response.json" ran.log && ! grep "^ASK" ran.log | grep -q "/r1/" &&
	ninja -d explain >n.log 2>&1 && grep -q "no work to do" n.log
'
test_expect_success LONG 'rm -rf out and ninja rebuilds everything' '
	cd p && rm -rf out && ninja >n.log 2>&1 && test -f out/v/alpha/task.json
'
# killregen: edit a spec, start ninja, and kill its whole process group
# once the regeneration is seen running; 0 when the kill landed there
killregen() {
	echo "# edit $1" >>tasks/a.yaml &&
	setsid sh -c "echo \$\$ >ninja.pid; exec ninja >/dev/null 2>&1" &
	i=0
	while [ $i -lt 2000 ] && ! pgrep -f "configure --regenerate" >/dev/null; do i=$((i + 1)); sleep 0.002; done
	landed=1
	pgrep -f "configure --regenerate" >/dev/null && kill -KILL "-$(cat ninja.pid)" && landed=0
	wait
	return $landed
}
test_expect_success 'killing ninja during regeneration leaves a working build' '
	cd p && { killregen 1 || killregen 2 || killregen 3; } &&
	ninja >n.log 2>&1 && ninja >n.log && grep -q "no work to do" n.log
'
test_done
