#!/bin/sh
# t0710: resume — kill a replayed run while its tools run (seeded; in turn
# a crash of the whole build, a Ctrl-C, an OOM kill of one tool: see
# tests/lib/killer.py), rerun it each time, and the final shards match an
# uninterrupted run byte for byte; no cache entry is left corrupt and no
# killed tool's temporary is left in out/ or the cache (twelve kills; the
# full tier alone: ninja test runs none, for the quick tier's time)
. "$(dirname "$0")/lib/lib.sh"
cpu_only "it compares shards byte for byte, and timings vary"
# no leak check at the tools' exit: LeakSanitizer's tracer is a process of
# the tool's group, and a Ctrl-C that catches it there leaves the tool
# waiting for it for ever (the leak checks are the other tests')
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

export SOURCE_DATE_EPOCH=1700000000
scratch_project "$T/p"
cd "$T/p" || exit 1
for s in a b c d; do spec $s t$s; done
# one answer needs a second round
cat > tasks/replay/tb/s0-r1.md <<'EOS'
No code this time.
EOS
sed "s/tc_scale/tb_scale/" tasks/replay/tc/s0-r1.md > tasks/replay/tb/s0-r2.md
cp -R "$T/p" "$T/q"

test_expect_success LONG 'an uninterrupted run' '
	cd p && rconfigure --all --rounds=2 --cache-dir="$T/cache-p" >/dev/null && ninja >/dev/null 2>&1 &&
	test -s out/dataset/SHA256SUMS
'
kills=12
test_expect_success LONG "runs killed while their tools run ($kills), each resumed" '
	cd q && rconfigure --all --rounds=2 --cache-dir="$T/cache-q" >/dev/null &&
	python3 "$RETORT_ROOT/tests/lib/killer.py" 20261129 $kills | tee k.log &&
	test "$(sed -n "s/^kills: //p" k.log)" -ge $((kills * 5 / 6)) &&
	test "$(sed -n "s/^interrupted: //p" k.log)" -ge "$(sed -n "s/^kills: //p" k.log)" &&
	ninja >n.log 2>&1 || { cat n.log; false; }
'
test_expect_success LONG 'the resumed dataset is byte-identical' '
	cmp p/out/dataset/SHA256SUMS q/out/dataset/SHA256SUMS &&
	cmp p/out/dataset/retort-dataset-00000.tar.gz q/out/dataset/retort-dataset-00000.tar.gz
'
test_expect_success LONG 'and no cache entry is corrupt' '
	python3 "$RETORT_ROOT/tests/lib/killer.py" --check-cache "$T/cache-q"
'
test_expect_success LONG 'and no killed tool'"'"'s temporary is left, in out/ or the cache' '
	python3 "$RETORT_ROOT/tests/lib/killer.py" --leftovers q/out &&
	python3 "$RETORT_ROOT/tests/lib/killer.py" --leftovers "$T/cache-q"
'
test_done
