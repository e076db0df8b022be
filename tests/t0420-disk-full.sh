#!/bin/sh
# t0420: a full disk is the host's failure (exit 1), never the candidate's
# or the spec's, and leaves nothing a later run could take for output:
# verify --expected, prepare --reference, --baseline and --harness, compile,
# gen --split and package, each writing into a small tmpfs (its own mount
# namespace); no empty folder is left behind either.
# Also: the reference's answers are not left readable to the sandbox's uid.
. "$(dirname "$0")/lib/lib.sh"

can_fill || { echo "1..0 # SKIP needs root and mount namespaces (a tmpfs to fill)"; exit 0; }
one_variant
chmod 755 "$T" # the jailed compilers enter it


test_expect_success 'the per-variant programs build where there is room' '
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o ref "$TASK" &&
	"$RETORT_BIN/gen" --split "$RETORT_ROOT/tasks/relu.yaml" --all --tasks-dir "$RETORT_ROOT/tasks" --out relu >/dev/null &&
	"$RETORT_BIN/prepare" --runtime --fake "$RETORT_ROOT/tests/unit/fakedevice.c" --src "$RETORT_ROOT/src" \
		-o rt/harness.o
'
test_expect_success 'verify --expected: no room for the outputs is exit 1, not the reference failing; nothing left' '
	onfull 1M "$RETORT_BIN/verify" --expected --cache-dir "$T/cache" -o full/expected.json "$TASK" ref &&
	test "$(cat rc)" = 1 && grep -q "not enough space in .*full/expected.json.work" err &&
	! grep -q "reference failed" err && test ! -s left
'
test_expect_success 'verify --expected with room: the answers belong to us, not to the sandbox uid, mode 0600' '
	"$RETORT_BIN/verify" --expected --cache-dir "$T/cache" -o ok/expected.json "$TASK" ref &&
	test "$(stat -c "%u %a" ok/expected.bin)" = "$(id -u) 600"
'
test_expect_success 'prepare --reference: exit 1 on a full disk, not the spec'"'"'s error; nothing left' '
	onfull 48K "$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o full/ref "$TASK" &&
	test "$(cat rc)" = 1 && grep -q "the disk is full" err && test ! -s left
'
test_expect_success 'prepare --harness: exit 1, and neither the harness nor its source folder is left' '
	onfull 64K "$RETORT_BIN/prepare" --harness --object rt/harness.o -o full/harness "$TASK" &&
	test "$(cat rc)" = 1 && test ! -s left
'
test_expect_success LONG 'prepare --baseline: exit 1, no empty baseline.so, no "does not build" verdict' '
	onfull 16K "$RETORT_BIN/prepare" --baseline -o full/baseline.so relu/v/relu/task.json &&
	test "$(cat rc)" = 1 && ! grep -q "does not build" err && grep -q "No space left" err && test ! -s left
'
test_expect_success 'compile: exit 1 on a full disk, not a compile_error; no cand.so, no record' '
	printf "\`\`\`cuda\n__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\nextern \"C\" void alpha_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }\n\`\`\`\n" |
		python3 -c "import json,sys; json.dump({\"status\": \"answered\", \"answer\": {\"text\": sys.stdin.read()}}, sys.stdout)" >r.json &&
	onfull 1M "$RETORT_BIN/compile" --arch sm_90 -o full/c/compile.json "$TASK" r.json &&
	test "$(cat rc)" = 1 && grep -q "No space left" err && test -z "$(grep -v "^full/c$" left)"
'
test_expect_success 'gen --split: exit 1 on a full disk, and no empty v/<id>/ folders left' '
	onfull 8K "$RETORT_BIN/gen" --split "$RETORT_ROOT/tasks/relu.yaml" --all --tasks-dir "$RETORT_ROOT/tasks" --out full/o &&
	test "$(cat rc)" = 1 && grep -q "No space left" err && test ! -s left
'
test_expect_success LONG 'compile with only its build cache full: the result stands (exit 0, ok), a warning, nothing half-written in the cache' '
	mkdir -p c2 && onfull 16K "$RETORT_BIN/compile" --arch sm_90 --cache-dir full/cache -o c2/compile.json "$TASK" r.json &&
	test "$(cat rc)" = 0 && test "$(field c2/compile.json "d[\"status\"]")" = ok && test -s c2/cand.so &&
	grep -q "cannot write the build cache .*it is not cached" err && ! grep -q "tmp" left &&
	test -z "$(find full/cache -mindepth 1 -type d -empty)"
'
test_done
