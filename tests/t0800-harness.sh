#!/bin/sh
# t0800: verify and bench, the parent's side of the harness protocol, on
# the CPU: the harness built with tests/unit/fakedevice.c instead of CUDA
# runs C candidates (tests/fake/*.c, each naming the stage and verdict it
# must get) through every check verify and bench make: outputs against the
# CPU reference and against the oracle, poison, canaries, inputs, scalars
# drawn per run, fresh inputs and kept calls in bench, the lockdown, forged
# replies, a tampered timer. No GPU needed (RETORT_FAKE_GPU, honoured by
# the test build only).
. "$(dirname "$0")/lib/lib.sh"

cd "$T" || exit 1
fake_gpu
echo '{"gpu": null}' >calibration.json


# candidate NAME VARIANT: tests/fake/NAME.c built and run through verify
# and then bench, as the graph's evaluate edge runs them (verify --bench:
# bench times a correct candidate in the harness verify hands it), into
# runs/NAME.VARIANT
candidate() {
	d=out/v/$2 r=runs/$1.$2
	fake_candidate $1 $r &&
	"$RETORT_BIN/verify" --bench --timeout 3 --lock-dir gpu --cache-dir cache -o $r/verify.json $r/bench.json $d/task.json \
		$r/compile.json $d/harness $d/expected.json calibration.json $d/oracle.json $d/baseline.json
}
# the same, verify and bench apart: two harnesses
candidate_apart() {
	d=out/v/$2 r=runs/$1.$2
	fake_candidate $1 $r &&
	"$RETORT_BIN/verify" --timeout 3 --lock-dir gpu --cache-dir cache -o $r/verify.json $d/task.json $r/compile.json $d/harness \
		$d/expected.json $d/oracle.json &&
	"$RETORT_BIN/bench" --timeout 3 --lock-dir gpu -o $r/bench.json $d/task.json $r/verify.json $r/compile.json \
		$d/harness calibration.json $d/baseline.json
}

# expect NAME VARIANT: the run's stage and verdict as NAME.c's header says
expect() { fake_expect runs/$1.$2 "$FAKE/$1.c"; }

test_expect_success 'the fake device runtime and the variants build' '
	fake_runtime && test -f out/runtime/harness.o.fake &&
	fake_variant fakescale fakescale && fake_variant fakeheavy fakeheavy &&
	test "$(field out/v/fakescale/oracle.json "d[\"verdict\"]")" = correct &&
	test "$(field out/v/fakescale/baseline.json "d[\"oracle\"][\"status\"]")" = ok &&
	test "$(field out/v/fakescale/baseline.json "d[\"cases\"][0][\"baseline\"][\"count\"]")" -ge 20
'
test_expect_success 'the linker exports every runtime call the guard defines, and nothing else' '
	sed -n "/^cudaError_t$/{n;s/(.*//p}" "$RETORT_ROOT/src/runtime/guard.c" | sort >defined &&
	tr -d "{};\t" <out/runtime/harness.o.list | tr " " "\n" | sed "/^$/d" | sort >exported &&
	test -s defined && diff defined exported
'
test_expect_success 'expected.json: every verify size three times, each hidden size and the bench size once; answers for the owner only' '
	nh=$(field out/v/fakescale/task.json "len(d[\"cases\"][\"hidden\"])") && test "$nh" = 2 &&
	test "$(field out/v/fakescale/expected.json "[r[\"set\"] for r in d[\"runs\"]]")" = \
		"$(python3 -c "print([\"verify\"] * 6 + [\"hidden\"] * $nh + [\"bench\"])")" &&
	test "$(field out/v/fakescale/expected.json "d[\"runs\"][-1][\"oracle\"]")" = reference &&
	test "$(field out/v/fakeheavy/expected.json "d[\"runs\"][-1][\"oracle\"]")" = gpu &&
	test "$(stat -c %a out/v/fakescale/expected.bin)" = 600 &&
	test "$(field out/v/fakescale/expected.json "len({r[\"scalars\"][0] for r in d[\"runs\"]})")" = $((nh + 7)) &&
	test "$(field out/v/fakescale/expected.json "sorted({r[\"poison\"] for r in d[\"runs\"]})")" = \
		"['"'"'huge'"'"', '"'"'ones'"'"', '"'"'random'"'"', '"'"'zeros'"'"']"
'
test_expect_success 'hidden sizes: a pool of every residue mod 16 and the small degenerate ones, a large ragged one; none in the prompt' '
	test "$(field out/v/fakescale/task.json "sorted({c[\"sizes\"][\"n\"] % 16 for c in d[\"cases\"][\"pool\"]})")" = \
		"$(python3 -c "print(list(range(16)))")" &&
	test "$(field out/v/fakescale/task.json "sorted(c[\"sizes\"][\"n\"] for c in d[\"cases\"][\"pool\"])[:2]")" = "[2, 3]" &&
	test "$(field out/v/fakescale/task.json "[sum(c[\"slot\"] == s for c in d[\"cases\"][\"pool\"]) for s in range(16)]")" = \
		"$(python3 -c "print([4] * 16)")" &&
	test "$(field out/v/fakescale/task.json "65536 - 48 <= max(c[\"sizes\"][\"n\"] for c in d[\"cases\"][\"hidden\"]) < 65536")" = True
'
test_expect_success 'a reference past its memory limit (a 17 GiB malloc) is refused, not left to the OOM killer' '
	sed "s/fakescale/fakemem/g; s/^  void reference(const float \*x, float \*y, int n, float alpha)\$/&\n  { if (!malloc((size_t)17 << 30)) abort(); }\n  void unused(const float *x, float *y, int n, float alpha)/" \
		tasks/fakescale.yaml >tasks/fakemem.yaml &&
	sed -i "s/^reference: |/reference: |\n  #include <stdlib.h>/" tasks/fakemem.yaml && grep -q "17 << 30" tasks/fakemem.yaml &&
	"$RETORT_BIN/gen" --split tasks/fakemem.yaml --all --out out --tasks-dir tasks >/dev/null &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o out/v/fakemem/reference out/v/fakemem/task.json &&
	{ "$RETORT_BIN/verify" --expected --cache-dir cache -o out/v/fakemem/expected.json out/v/fakemem/task.json \
		out/v/fakemem/reference 2>err; test $? = 2; } && cat err &&
	grep -q "the reference failed" err && grep -q "killed by signal" err && rm -f tasks/fakemem.yaml
'
test_expect_success LONG 'a hidden or bench size whose reference runs out of memory goes to the GPU oracle; the variant stands' '
	sed "s/fakescale/fakebig/g; s/^      for (int i = 0; i < n; i++)\$/      if (n > 60000 \&\& !malloc((size_t)17 << 30)) abort();\n&/" \
		tasks/fakescale.yaml >tasks/fakebig.yaml &&
	sed -i "s/^reference: |/reference: |\n  #include <stdlib.h>/" tasks/fakebig.yaml && grep -q "17 << 30" tasks/fakebig.yaml &&
	fake_variant fakebig fakebig 2>err && grep -q "past its budget: checked by the GPU oracle instead" err &&
	test "$(field out/v/fakebig/expected.json "[r[\"oracle\"] for r in d[\"runs\"] if r[\"set\"] != \"hidden\"]")" = \
		"$(python3 -c "print([\"reference\"] * 6 + [\"gpu\"])")" &&
	field out/v/fakebig/expected.json "[r for r in d[\"runs\"] if \"cpu_dropped\" in r][0][\"cpu_dropped\"]" | grep -q "killed by signal" &&
	candidate ok fakebig && expect ok fakebig && rm -f tasks/fakebig.yaml &&
	test "$(field runs/ok.fakebig/verify.json "d[\"checked\"][\"gpu_oracle_runs\"] >= 2")" = True
'
test_expect_success 'an honest candidate: correct at every size, timed, every kept call checked, the parent clock calm' '
	candidate ok fakescale && expect ok fakescale &&
	test "$(field runs/ok.fakescale/verify.json "d[\"bench_checked\"]")" = True &&
	np=$(field runs/ok.fakescale/verify.json "d[\"hidden_pool\"][\"drawn\"]") && test "$np" = 18 &&
	test "$(field runs/ok.fakescale/verify.json "len(d[\"runs\"])")" = $(($(field out/v/fakescale/expected.json "len(d[\"runs\"])") + np)) &&
	test "$(field runs/ok.fakescale/verify.json "[d[\"checked\"][k] for k in (\"listed_runs\", \"hidden_runs\", \"gpu_oracle_runs\", \"unjudged_runs\", \"offsets\", \"ties\", \"specials\")]")" = \
		"[7, $(($(field out/v/fakescale/task.json "len(d[\"cases\"][\"hidden\"])") + np)), 0, 0, False, False, False]" &&
	test "$(field runs/ok.fakescale/verify.json "len(d[\"checked\"][\"poisons\"])")" = 5 &&
	test "$(field runs/ok.fakescale/verify.json "all(r[\"host_ms\"] > 0 for r in d[\"runs\"])")" = True &&
	test "$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"kept\"]")" -ge 4 &&
	test "$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" = \
		"$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	test "$(field runs/ok.fakescale/bench.json "d.get(\"review\", [])")" = "[]" &&
	test "$(field runs/ok.fakescale/verify.json "d[\"harness\"]")" = "handed to bench" &&
	test "$(field runs/ok.fakescale/bench.json "d[\"cases\"][0][\"harness\"]")" = "verify'"'"'s" &&
	test "$(field runs/ok.fakescale/bench.json "0 <= d[\"handover_seconds\"] < 1")" = True &&
	test "$(field runs/ok.fakescale/bench.json "d[\"gpu_seconds\"] >= d[\"handover_seconds\"] + \
		sum(sum(c[\"seconds\"].values()) for c in d[\"cases\"])")" = True &&
	candidate ok fakeheavy && expect ok fakeheavy &&
	test "$(field runs/ok.fakeheavy/verify.json "d[\"runs\"][-1][\"oracle\"]")" = gpu &&
	test "$(field runs/ok.fakeheavy/bench.json "d[\"cases\"][0][\"checks\"][\"kept_via\"]")" = "shared memory" &&
	field runs/ok.fakeheavy/bench.json "d[\"cases\"][0][\"checks\"][\"no_ipc\"]" | grep -q "candidate.s harness: .*error 801" &&
	field runs/ok.fakeheavy/bench.json "d[\"cases\"][0][\"parent_clock\"]" &&
	test "$(field runs/ok.fakeheavy/bench.json \
		"(lambda p: abs(p[\"excess_ms\"]) <= p[\"noise_ms\"] + 0.3)(d[\"cases\"][0][\"parent_clock\"])")" = True
'
# pooled R SOURCE HASH: SOURCE built into runs/R, compile.json saying its
# source hashes to HASH, and verified (no bench) on fakescale
pooled() {
	mkdir -p runs/$1 && cc -shared -fPIC -O1 -o runs/$1/cand.so "$2" &&
	echo "{\"status\": \"ok\", \"source_sha256\": \"$3\"}" >runs/$1/compile.json &&
	"$RETORT_BIN/verify" --timeout 3 --lock-dir gpu --cache-dir cache -o runs/$1/verify.json out/v/fakescale/task.json \
		runs/$1/compile.json out/v/fakescale/harness out/v/fakescale/expected.json out/v/fakescale/oracle.json
}
sizes() { field runs/$1/verify.json "[r[\"case\"] for r in d[\"runs\"]]"; }
test_expect_success LONG 'the hidden pool: each candidate draws its own sizes, the same candidate the same ones, from the cache' '
	pooled a1 "$FAKE/ok.c" aaaa && pooled a2 "$FAKE/ok.c" aaaa && pooled b1 "$FAKE/ok.c" bbbb &&
	test "$(field runs/a1/verify.json "d[\"verdict\"]")" = correct && test "$(sizes a1)" = "$(sizes a2)" &&
	test "$(sizes a1)" != "$(sizes b1)" &&
	test "$(field runs/a2/verify.json "d[\"hidden_pool\"][\"cached\"] == d[\"hidden_pool\"][\"drawn\"] == 18")" = True &&
	test "$(field runs/b1/verify.json "d[\"hidden_pool\"][\"cached\"] < 18")" = True &&
	test "$(stat -c %a cache/pool/$(ls cache/pool | head -n 1))" = 600
'
test_expect_success LONG 'a kernel right only at the sizes it was shown and told: the next candidate draws others and is caught' '
	{ printf "static const int known[] = { %s };\n" "$(sizes a1 | tr -d "[]'"'"'n=" )" &&
	  printf "%s\n" "void scale(const float *x, float *y, int n, float alpha)" "{" "	int k = 0;" \
		"	for (unsigned i = 0; i < sizeof known / sizeof *known; i++)" "		k |= known[i] == n;" \
		"	for (int i = 0; i < n; i++)" "		y[i] = alpha * x[i] + (k ? 1.0f : 0.0f);" "}"; } >told.c &&
	pooled told1 told.c aaaa && test "$(field runs/told1/verify.json "d[\"verdict\"]")" = correct &&
	pooled told2 told.c cccc && test "$(field runs/told2/verify.json "d[\"verdict\"]")" = mismatch &&
	field runs/told2/verify.json "d[\"feedback\"]" | grep -q "a size the task does not list"
'
# (the full tier's: hang waits out verify's timeout; alternate, late's twin)
for c in wrong-bench tail late alternate cache scalar modify oob crash hang openfile timer forge; do
	long=; case $c in hang|alternate) long=LONG ;; esac
	test_expect_success $long "$(sed -n 2p "$FAKE/$c.c" | sed 's|^// ||'): caught" "candidate $c fakescale; expect $c fakescale"
done
test_expect_success LONG 'a candidate ten times slower than the baseline is timed on 8 calls, 8 pairs, every kept call checked' '
	candidate crawl fakescale && expect crawl fakescale &&
	test "$(field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"candidate\"][\"count\"]")" = 8 &&
	test "$(field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"parent_clock\"][\"pairs\"]")" = 8 &&
	field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"slow\"]" | grep -q "timed on 8 calls" &&
	test "$(field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"candidate\"][\"median_ms\"] >= 50")" = True &&
	test "$(field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" = \
		"$(field runs/crawl.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	field runs/crawl.fakescale/bench.json "d[\"feedback\"]" | grep -q "more than 10 times slower"
'
test_expect_success LONG 'one whose first call takes past 100 times the baseline and 1 s is timed on 2 calls, 2 pairs, still checked' '
	candidate crawl-long fakescale && expect crawl-long fakescale &&
	b=runs/crawl-long.fakescale/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"candidate\"][\"count\"]")" = 2 &&
	test "$(field $b "d[\"cases\"][0][\"parent_clock\"][\"pairs\"]")" = 2 &&
	field $b "d[\"cases\"][0][\"slow\"]" | grep -q "more than 100x the baseline.s time: timed on 2 calls" &&
	test "$(field $b "d[\"cases\"][0][\"candidate\"][\"median_ms\"] >= 1200")" = True &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"passed\"]")" = "$(field $b "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	field $b "d[\"feedback\"]" | grep -q "more than 100 times slower"
'
test_expect_success LONG 'one whose first bench call crawls and the rest do not is timed in full (two pairs would hide a forged timer)' '
	candidate crawl-once fakescale && expect crawl-once fakescale &&
	b=runs/crawl-once.fakescale/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"candidate\"][\"count\"]")" -ge 20 &&
	test "$(field $b "d[\"cases\"][0][\"parent_clock\"][\"pairs\"]")" -ge 8 &&
	test "$(field $b "\"slow\" in d[\"cases\"][0]")" = False
'
test_expect_success 'a candidate cannot shrink the shared memory: it is sealed, and the candidate is timed' '
	candidate shrink fakescale && expect shrink fakescale &&
	test "$(field runs/shrink.fakescale/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" -ge 4
'
# (where the harness's /work is a tmpfs, its output file a mount there that
# it cannot unlink; else the link is made and refused when read)
# intoffset ID DTYPE CTYPE ADD: a task ID, y = x + ADD in DTYPE, and a
# candidate that adds ADD + 1, verified on the fake device (runs/ID)
intoffset() {
	cat >tasks/$1.yaml <<-EOF &&
	id: $1
	description: |
	  y[i] = x[i] + $4 for 0 <= i < n, in $2. (A test task: the test
	  suite runs C candidates for it on the CPU fake device.)
	tags: [test]
	entry: offset
	args:
	  - {name: x, kind: in, dtype: $2, shape: [n]}
	  - {name: y, kind: out, dtype: $2, shape: [n]}
	  - {name: n, kind: size}
	sizes:
	  verify: [{n: 1}, {n: 1000}]
	  bench: [{n: 4096}]
	reference: |
	  #include <stdint.h>
	  void reference(const $3 *x, $3 *y, int n)
	  {
	      for (int i = 0; i < n; i++)
	          y[i] = x[i] + ${4}ll;
	  }
	cost: {flops: n}
	EOF
	d=out/v/$1 &&
	"$RETORT_BIN/gen" --split tasks/$1.yaml --all --out out --tasks-dir tasks >/dev/null &&
	"$RETORT_BIN/prepare" --harness --object out/runtime/harness.o -o $d/harness $d/task.json &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o $d/reference $d/task.json &&
	"$RETORT_BIN/verify" --expected --cache-dir cache -o $d/expected.json $d/task.json $d/reference &&
	mkdir -p runs/$1 && echo "{\"status\": \"ok\"}" >runs/$1/compile.json &&
	printf "%s\n" "#include <stdint.h>" "void offset(const $3 *x, $3 *y, int n)" "{" \
		"	for (int i = 0; i < n; i++)" "		y[i] = x[i] + ${4}ll + 1;" "}" >$1.c &&
	cc -shared -fPIC -O1 -o runs/$1/cand.so $1.c &&
	"$RETORT_BIN/verify" --timeout 3 --lock-dir gpu -o runs/$1/verify.json $d/task.json runs/$1/compile.json \
		$d/harness $d/expected.json &&
	field runs/$1/verify.json "d[\"feedback\"]" >feedback && cat feedback &&
	test "$(field runs/$1/verify.json "d[\"verdict\"]")" = mismatch
}
test_expect_success 'a wrong i32 output: the feedback shows its values in full, not 2.000045e+07 twice' '
	intoffset fakei32 i32 int32_t 20000000 &&
	grep -Eq "First: y\[0\] = -?[0-9]{8}, expected -?[0-9]{8}" feedback
'
test_expect_success 'an i64 output one off past 2^62 (where doubles are 1024 apart) is wrong, shown in full' '
	intoffset fakei64 i64 int64_t 4611686018427387904 &&
	test "$(field runs/fakei64/verify.json "d[\"runs\"][0][\"outputs\"][\"y\"][\"wrong\"]")" = 1 &&
	test "$(field runs/fakei64/verify.json "(lambda f: f[\"got\"] - f[\"expected\"])(d[\"runs\"][0][\"outputs\"][\"y\"][\"first\"][0])")" = 1 &&
	sed -n "s/.*First: y\[0\] = \(-*[0-9]*\), expected \(-*[0-9]*\)\..*/\1 - \2/p" feedback >diff &&
	test "$(python3 -c "print(eval(open(\"diff\").read()))")" = 1
'
test_expect_success 'an output file the candidate turns into a link is not read: the host file stays out of the feedback' '
	candidate outlink fakescale && expect outlink fakescale &&
	field runs/outlink.fakescale/verify.json "d[\"feedback\"]" >feedback && cat feedback &&
	! grep -q "root:" feedback
'
test_expect_success LONG 'verify and bench apart: each its own harness, and the same verdicts' '
	candidate_apart ok fakeheavy && expect ok fakeheavy &&
	test "$(field runs/ok.fakeheavy/verify.json "\"harness\" in d")" = False &&
	test "$(field runs/ok.fakeheavy/bench.json "\"harness\" in d[\"cases\"][0]")" = False &&
	test "$(field runs/ok.fakeheavy/bench.json "d[\"cases\"][0][\"checks\"][\"passed\"]")" -ge 4 &&
	candidate_apart late fakescale && expect late fakescale
'
test_expect_success 'verify --bench: a candidate verify rejects is not timed, and nothing is handed over' '
	candidate wrong-bench fakeheavy && expect wrong-bench fakeheavy &&
	test "$(field runs/wrong-bench.fakeheavy/bench.json "d[\"status\"]")" = not_verified &&
	test "$(field runs/wrong-bench.fakeheavy/verify.json "\"harness\" in d")" = False &&
	expect_fail 2 "not a handed-over harness" "$RETORT_BIN/bench" --harness-from "1 2 3" -o x.json \
		out/v/fakeheavy/task.json runs/ok.fakeheavy/verify.json runs/ok.fakeheavy/compile.json \
		out/v/fakeheavy/harness calibration.json && test ! -e x.json &&
	expect_fail 2 "bench needs -o VERIFY_JSON and BENCH_JSON" "$RETORT_BIN/verify" --bench -o x.json runs/x.json \
		out/v/fakeheavy/task.json
'
test_expect_success 'wrong only at a bench size the CPU cannot afford: the oracle catches it' '
	candidate wrong-bench fakeheavy; expect wrong-bench fakeheavy &&
	field runs/wrong-bench.fakeheavy/verify.json "d[\"feedback\"]" | grep -q "checked against the spec'"'"'s baseline"
'
test_expect_success 'the oracle computes once per variant: its outputs in oracle.bin (the owner only), none at the CPU-checked runs' '
	test "$(field out/v/fakeheavy/oracle.json "d[\"oracle_bytes\"]")" = "$(stat -c %s out/v/fakeheavy/oracle.bin)" &&
	test "$(stat -c %a out/v/fakeheavy/oracle.bin)" = 600 &&
	test "$(field out/v/fakeheavy/oracle.json "[r.get(\"oracle_offset\") is None for r in d[\"runs\"]]")" = \
		"$(field out/v/fakeheavy/expected.json "[r[\"oracle\"] == \"reference\" for r in d[\"runs\"]]")" &&
	test "$(field out/v/fakeheavy/oracle.json "d[\"runs\"][6][\"oracle_offset\"]")" = 0 &&
	test "$(field out/v/fakescale/oracle.json "d[\"oracle_bytes\"]")" = 0 &&
	test "$(field runs/ok.fakeheavy/verify.json "sorted(d[\"phase_seconds\"])")" = \
		"['"'"'calls'"'"', '"'"'cases'"'"', '"'"'comparisons'"'"', '"'"'end'"'"', '"'"'fetches'"'"']" &&
	test "$(field runs/ok.fakeheavy/bench.json "sorted(d[\"cases\"][0][\"check_seconds\"])")" = \
		"['"'"'compare'"'"', '"'"'end'"'"', '"'"'export'"'"', '"'"'fetch'"'"', '"'"'import'"'"', '"'"'oracle_calls'"'"', '"'"'oracle_case'"'"', '"'"'oracle_end'"'"', '"'"'oracle_start'"'"']"
'
test_expect_success 'an oracle.bin that is not its oracle.json'"'"'s: exit 2, named' '
	mkdir -p stale && cp out/v/fakeheavy/oracle.json stale/ && head -c 100 out/v/fakeheavy/oracle.bin >stale/oracle.bin &&
	{ "$RETORT_BIN/verify" --lock-dir gpu -o runs/stale.json out/v/fakeheavy/task.json runs/ok.fakeheavy/compile.json \
		out/v/fakeheavy/harness out/v/fakeheavy/expected.json stale/oracle.json 2>err; test $? = 2; } &&
	grep -q "stale/oracle.bin. is not the oracle.bin of" err && test ! -e runs/stale.json
'
test_expect_success 'a kept call is named in the feedback, with its inputs' '
	field runs/late.fakescale/bench.json "d[\"feedback\"]" | grep -q "call [0-9]* of the timing run at n=65536 (inputs x: "
'
test_expect_success 'the lockdown names what it refused' '
	field runs/openfile.fakescale/verify.json "d[\"feedback\"]" | grep -q "rule lockdown.*openat"
'
test_expect_success LONG 'without an oracle the kept calls are not judged, and the record says so' '
	cp out/v/fakeheavy/baseline.json nobase.json && cp out/v/fakeheavy/oracle.json nooracle.json &&
	python3 -c "import json; d = json.load(open(\"nobase.json\")); d[\"oracle\"] = {\"status\": \"failed\", \"why\": \"test\"}; json.dump(d, open(\"nobase.json\", \"w\"))" &&
	python3 -c "import json; d = json.load(open(\"nooracle.json\")); d[\"verdict\"] = \"mismatch\"; json.dump(d, open(\"nooracle.json\", \"w\"))" &&
	mkdir -p runs/noor && cp runs/ok.fakeheavy/cand.so runs/ok.fakeheavy/compile.json runs/noor/ &&
	"$RETORT_BIN/verify" --lock-dir gpu -o runs/noor/verify.json out/v/fakeheavy/task.json runs/noor/compile.json \
		out/v/fakeheavy/harness out/v/fakeheavy/expected.json nooracle.json &&
	field runs/noor/verify.json "d[\"bench_checked\"]" | grep -q "^no:" &&
	"$RETORT_BIN/bench" --lock-dir gpu -o runs/noor/bench.json out/v/fakeheavy/task.json runs/noor/verify.json \
		runs/noor/compile.json out/v/fakeheavy/harness calibration.json nobase.json &&
	field runs/noor/bench.json "d[\"review\"]" | grep -q "not checked against an oracle"
'
test_expect_success 'an oracle harness started gated loads its object and touches the device only after "go"' '
	head -c 4096 /dev/zero >shm.bin &&
	printf "go\nquit\n" >cmds.go && printf "quit\n" >cmds.nogo &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakeheavy/harness out/v/fakeheavy/baseline.so baseline 0 open-gated \
		3<cmds.go 4>reply.go 5<>shm.bin &&
	grep -q "^ready Fake GPU|9.0|.*|none: open" reply.go &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakeheavy/harness out/v/fakeheavy/baseline.so baseline 0 open-gated \
		3<cmds.nogo 4>reply.nogo 5<>shm.bin &&
	test ! -s reply.nogo &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakeheavy/harness out/v/fakeheavy/nonesuch.so baseline 0 open-gated \
		3<cmds.nogo 4>reply.bad 5<>shm.bin &&
	grep -q "^loaderror .*nonesuch.so" reply.bad
'
test_expect_success 'a candidate harness started gated touches neither the device nor its object before "go"' '
	head -c 4096 /dev/zero >shm.bin &&
	printf "go\nquit\n" >cmds.go && printf "quit\n" >cmds.nogo &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakescale/harness nonesuch.so scale 0 gated 3<cmds.nogo 4>reply.nogo 5<>shm.bin &&
	test ! -s reply.nogo &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakescale/harness nonesuch.so scale 0 gated 3<cmds.go 4>reply.go 5<>shm.bin &&
	grep -q "^loaderror .*nonesuch.so" reply.go &&
	(unset CUDA_VISIBLE_DEVICES; out/v/fakescale/harness ok.so scale 0 gated 3<cmds.nogo 4>reply.nodev 5<>shm.bin) &&
	test ! -s reply.nodev &&
	(unset CUDA_VISIBLE_DEVICES; out/v/fakescale/harness ok.so scale 0 gated 3<cmds.go 4>reply.dev 5<>shm.bin) &&
	grep -q "^nodevice " reply.dev
'
test_expect_success 'a gated harness makes its context at "ctx"; one that failed there is made again after "go"' '
	printf "ctx\nquit\n" >cmds.ctx && printf "ctx\ngo\nquit\n" >cmds.ctxgo &&
	CUDA_VISIBLE_DEVICES=0 out/v/fakescale/harness ok.so scale 0 gated 3<cmds.ctx 4>reply.ctx 5<>shm.bin &&
	test ! -s reply.ctx &&
	CUDA_VISIBLE_DEVICES=failctx out/v/fakescale/harness nonesuch.so scale 0 gated 3<cmds.ctxgo 4>reply.fail 5<>shm.bin &&
	grep -q "^loaderror .*nonesuch.so" reply.fail &&
	(unset CUDA_VISIBLE_DEVICES; out/v/fakescale/harness nonesuch.so scale 0 gated 3<cmds.ctxgo 4>reply.none 5<>shm.bin) &&
	grep -q "^nodevice " reply.none
'
# a CUDA candidate's harness (fake_early): its object named, started gated
HARNESS_LIKE="cand.so scale 0 gated"
test_expect_success LONG 'a candidate'"'"'s harness starts before the lease (one GPU slot, CPUs to spare); its object loads in the lease' '
	fake_early slowload fakescale && expect slowload fakescale &&
	test "$(field runs/slowload.fakescale/verify.json "d[\"harness_start\"]")" = "before the lease, its CUDA context too (on deck)" &&
	field runs/slowload.fakescale/verify.json "d[\"start_seconds\"] >= 1.9" | grep -q True
'
test_expect_success LONG 'the harness on deck makes its CUDA context before the lease (a device whose context takes 2 s)' '
	CUDA_VISIBLE_DEVICES=slowctx EARLY_WAIT=5 fake_early ok fakescale && expect ok fakescale &&
	test -e gpu/gpu0.deck && v=runs/ok.fakescale/verify.json &&
	test "$(field $v "d[\"harness_start\"]")" = "before the lease, its CUDA context too (on deck)" &&
	field $v "d[\"start_seconds\"] < 1" | grep -q True
'
# the lease was taken (the record's time less the lease's) 2 s (the
# context's) or more after the other edge left the deck
test_expect_success LONG 'one on deck at a time: while another edge is on it, the harness makes no context (it waits its turn)' '
	mkdir -p gpu && rm -f deckheld left && python3 -c "import fcntl, sys, time
f, g = open(sys.argv[1], \"a\"), open(sys.argv[2], \"a\")
fcntl.flock(f, fcntl.LOCK_EX); fcntl.flock(g, fcntl.LOCK_EX); open(\"deckheld\", \"w\").close(); time.sleep(3)
open(\"left\", \"w\").write(repr(time.time()))" gpu/gpu0.deck gpu/gpu0.lock &
	k=0; while ! test -e deckheld && test $k -lt 600; do sleep 0.05; k=$((k + 1)); done &&
	CUDA_VISIBLE_DEVICES=slowctx RETORT_SPARE_CPUS=1 candidate ok fakescale && expect ok fakescale &&
	v=runs/ok.fakescale/verify.json && wait &&
	python3 -c "import json, os, sys
d = json.load(open(sys.argv[1]))
lease = os.stat(sys.argv[1]).st_mtime - d[\"gpu_seconds\"]
print(lease - float(open(\"left\").read()), d[\"start_seconds\"])
sys.exit(not (lease - float(open(\"left\").read()) >= 1.9 and d[\"start_seconds\"] < 1))" $v
'
test_expect_success LONG 'bench'"'"'s oracle makes its CUDA context beside the candidate'"'"'s calls (150 ms each)' '
	CUDA_VISIBLE_DEVICES=slowctx RETORT_SPARE_CPUS=1 candidate slow fakescale && expect slow fakescale &&
	b=runs/slow.fakescale/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"oracle_early\"]")" = True &&
	field $b "d[\"cases\"][0][\"seconds\"][\"calls\"] >= 1.2" | grep -q True &&
	field $b "d[\"cases\"][0][\"check_seconds\"][\"oracle_start\"] < 1" | grep -q True &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"passed\"]")" = "$(field $b "d[\"cases\"][0][\"checks\"][\"kept\"]")"
'
test_expect_success 'kept calls shared with the oracle (a device with IPC): all judged, the candidate'"'"'s harness not waited for in the lease' '
	CUDA_VISIBLE_DEVICES=ipc candidate ok fakescale && expect ok fakescale &&
	b=runs/ok.fakescale/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"kept_via\"]")" = ipc &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"passed\"]")" = "$(field $b "d[\"cases\"][0][\"checks\"][\"kept\"]")" &&
	test "$(field $b "d[\"cases\"][0][\"check_seconds\"][\"end\"]")" = 0.0
'
test_expect_success LONG 'kept calls exported but refused by the oracle: fetched instead, all judged' '
	CUDA_VISIBLE_DEVICES=ipc-noimport candidate ok fakescale && expect ok fakescale &&
	b=runs/ok.fakescale/bench.json &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"kept_via\"]")" = "shared memory" &&
	field $b "d[\"cases\"][0][\"checks\"][\"no_ipc\"]" | grep -q "oracle.s harness: .*801" &&
	test "$(field $b "d[\"cases\"][0][\"checks\"][\"passed\"]")" = "$(field $b "d[\"cases\"][0][\"checks\"][\"kept\"]")"
'
test_expect_success LONG 'one that ends while it waits for the lease is not the candidate'"'"'s: another starts in the lease' '
	fake_early ok fakescale kill && expect ok fakescale &&
	field runs/ok.fakescale/verify.json "d[\"harness_start\"]" | grep -q "^in the lease (the one started before it had ended)$"
'
test_done
