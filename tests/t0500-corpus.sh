#!/bin/sh
# t0500: the task corpus in tasks/ — at least 60 specs and 2,000 variants,
# all valid; every spec's reference builds, reproduces its hand-computed
# examples and gives non-degenerate outputs on its verify sizes, and its
# baseline compiles (scripts/spec-check, on each spec's first variant).
. "$(dirname "$0")/lib/lib.sh"

tasks=$RETORT_ROOT/tasks
# the specs: every tasks/*.yaml but the curriculum (configure --propose reads that)
specs() { ls "$tasks"/*.yaml | grep -v "/curriculum.yaml$"; }

# (gen itself refuses invalid specs and duplicate ids across files)
test_expect_success 'at least 60 specs and 2,000 variants, all valid' '
	"$RETORT_BIN/gen" --list --all --tasks-dir "$tasks" >ids &&
	n=$(wc -l <ids) && s=$(specs | wc -l) &&
	echo "$s specs, $n variants" && test "$s" -ge 60 && test "$n" -ge 2000
'

test_expect_success 'every spec has examples (hand-computed cases for its reference)' '
	for f in $(specs); do
		grep -q "^examples:" "$f" || { echo "no examples: $f"; exit 1; }
	done
'

test_expect_success 'every area the corpus promises has specs' '
	for t in elementwise activation reduction scan softmax norm gemm gemv conv pooling transpose \
		gather scatter embedding histogram sort topk attention fused loss quantize; do
		specs | xargs cat | grep "^tags:" | grep -qw "$t" || { echo "no spec tagged $t"; exit 1; }
	done
'

# check SPEC...: scripts/spec-check over them, TEST_JOBS at once; every variant ok
check() {
	printf "%s\n" "$@" | xargs -n 4 -P "${TEST_JOBS:-2}" env RETORT_BIN="$RETORT_BIN" "$RETORT_ROOT/scripts/spec-check" \
		>check.log 2>&1
	st=$?
	grep -v "^ok " check.log | head -n 40
	echo "$(grep -c "^ok " check.log) variants checked"
	test $st = 0 && ! grep -q "^FAIL" check.log
}

test_expect_success 'references, examples, degenerate checks and baselines: the demo specs and sgemm (elementwise, row, matrix)' '
	check "$tasks/relu.yaml" "$tasks/row_max.yaml" "$tasks/sgemm.yaml"
'
test_expect_success LONG 'references, examples, degenerate checks and baselines (first variant of each spec)' '
	check $(specs)
'
test_done
