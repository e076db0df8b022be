#!/bin/sh
# t0710: resume — SIGKILL ninja at random points (seeded) during a replayed
# run, rerun it each time, and the final shards match an uninterrupted run
# byte; no cache entry is left corrupt (twelve kills; two in ninja test)
. "$(dirname "$0")/lib/lib.sh"
cpu_only "it compares shards byte for byte, and timings vary"

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

test_expect_success 'an uninterrupted run' '
	cd p && rconfigure --all --rounds=2 --cache-dir="$T/cache-p" >/dev/null && ninja >/dev/null 2>&1 &&
	test -s out/dataset/SHA256SUMS
'
# twelve kills in the full tier, two in the quick one (tests/README)
kills=2
test -z "${RETORT_TEST_LONG:-}" || kills=12
test_expect_success "runs killed with SIGKILL at random points ($kills), each resumed" '
	cd q && rconfigure --all --rounds=2 --cache-dir="$T/cache-q" >/dev/null &&
	python3 "$RETORT_ROOT/tests/lib/killer.py" 20261129 $kills | tee k.log &&
	test "$(sed -n "s/^kills: //p" k.log)" -ge $((kills * 5 / 6)) &&
	ninja >n.log 2>&1 || { cat n.log; false; }
'
test_expect_success 'the resumed dataset is byte-identical' '
	cmp p/out/dataset/SHA256SUMS q/out/dataset/SHA256SUMS &&
	cmp p/out/dataset/retort-dataset-00000.tar.gz q/out/dataset/retort-dataset-00000.tar.gz
'
test_expect_success 'and no cache entry is corrupt' '
	python3 "$RETORT_ROOT/tests/lib/killer.py" --check-cache "$T/cache-q"
'
test_done
