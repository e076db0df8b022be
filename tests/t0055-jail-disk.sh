#!/bin/sh
# t0055: a jailed reference's disk budget. Its outputs go to the host's
# disk, each file no larger than its outputs plus 64 MiB (RLIMIT_FSIZE);
# everything else it writes, in /work and /tmp together, goes to one tmpfs
# of 64 MiB, so many files each under the per-file limit cannot fill the
# host's disk: the reference is refused, "wrote more than 64 MiB", for a
# proposal as data (exit 0), for a hand-written spec as its error (exit 2).
# A normal reference's outputs still reach verify.
. "$(dirname "$0")/lib/lib.sh"

test "$(id -u)" = 0 && can_fill || { echo "1..0 # SKIP needs root and mount namespaces (the unshare jail)"; exit 0; }
one_variant
chmod 755 "$T" # the jailed compilers enter it

# refspec NAME ID C-STATEMENTS: spec ID whose reference runs C-STATEMENTS
# once per process, then doubles x; its variant split, built by prepare
refspec() {
	spec "$1" "$2" && python3 - "tasks/$1.yaml" "$3" <<-'PY' &&
	import re, sys
	s = open(sys.argv[1]).read()
	body = ("  #include <stdio.h>\n  static char blk[1 << 20];\n"
	        "  /* N files of M MiB into the folder DIR, errors ignored */\n"
	        "  static void junk(const char *dir, int n, int m)\n  {\n"
	        "    char p[64];\n    for (int f = 0; f < n; f++) {\n"
	        "      snprintf(p, sizeof p, \"%s/junk%d\", dir, f);\n      FILE *o = fopen(p, \"wb\");\n"
	        "      if (!o) continue;\n      for (int k = 0; k < m; k++) fwrite(blk, 1, sizeof blk, o);\n"
	        "      fclose(o);\n    }\n  }\n"
	        "  void reference(const float *x, float *y, int n)\n  {\n    static int done;\n"
	        "    if (!done++) { " + sys.argv[2] + " }\n"
	        "    for (int i = 0; i < n; i++) y[i] = 2 * x[i];\n  }\n")
	s = re.sub(r"^reference: \|\n(  .*\n)+", lambda m: "reference: |\n" + body, s, flags=re.M)
	open(sys.argv[1], "w").write(s)
	PY
	"$RETORT_BIN/gen" --split "tasks/$1.yaml" --all >/dev/null &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o "ref-$2" "out/v/$2/task.json"
}
# proposal ID: variant ID's task.json as a proposal's (origin: teacher), in prop-ID.json
proposal() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); d['origin'] = {'source': 'teacher'}
json.dump(d, open(sys.argv[2], 'w'))" "out/v/$1/task.json" "prop-$1.json"
}
# expect ID TASK: verify --expected on TASK with ref-ID into exp-ID/; its exit status in rc, stderr in err
expect() {
	"$RETORT_BIN/verify" --expected --cache-dir "$T/cache" -o "exp-$1/expected.json" "$2" "ref-$1" 2>err
	echo $? >rc; cat err; echo "exit $(cat rc)"
}

test_expect_success 'a normal reference: its outputs reach verify, its folder is gone after' '
	cd p && "$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o ref-alpha "$TASK" &&
	expect alpha "$TASK" && test "$(cat rc)" = 0 &&
	test "$(field exp-alpha/expected.json "\"refused\" in d")" = False &&
	test "$(field exp-alpha/expected.json "len(d[\"runs\"]) > 0")" = True &&
	test -s exp-alpha/expected.bin && test ! -e exp-alpha/expected.json.work
'
test_expect_success 'many files, each under the per-file limit, together past the budget: a proposal refused as data' '
	cd p && refspec b beta "junk(\".\", 24, 8);" && proposal beta &&
	expect beta prop-beta.json && test "$(cat rc)" = 0 &&
	field exp-beta/expected.json "d[\"refused\"]" >why && cat why &&
	grep -q "wrote more than 64 MiB" why && test ! -s exp-beta/expected.bin
'
test_expect_success LONG 'the same reference in a hand-written spec: exit 2, the budget named' '
	cd p && expect beta out/v/beta/task.json && test "$(cat rc)" = 2 && grep -q "wrote more than 64 MiB" err
'
test_expect_success LONG '/work and /tmp share the budget: 40 MiB in each is too much' '
	cd p && refspec c gamma "junk(\".\", 5, 8); junk(\"/tmp\", 5, 8);" && proposal gamma &&
	expect gamma prop-gamma.json && test "$(cat rc)" = 0 &&
	grep -q "wrote more than 64 MiB" exp-gamma/expected.json
'
test_expect_success LONG 'its outputs'"'"' file past the per-file limit (the first process of a PID namespace is not killed): refused' '
	cd p && refspec d delta "FILE *o = fopen(\"seg.bin\", \"ab\"); for (int k = 0; o && k < 100; k++) fwrite(blk, 1, sizeof blk, o); if (o) fclose(o);" &&
	proposal delta &&
	expect delta prop-delta.json && test "$(cat rc)" = 0 &&
	grep -q "wrote more than [0-9]* MiB into one file" exp-delta/expected.json
'
test_expect_success LONG 'a reference whose build writes past its work area (256 MiB): refused, nothing left' '
	cd p && ! refspec e eps "static char pad[300 << 20] = {1}; pad[1]++;" 2>err && cat err &&
	grep -q "wrote more than 256 MiB" err && test ! -e ref-eps && ! ls -d ref-eps.* 2>/dev/null
'
test_done
