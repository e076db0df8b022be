# tests/lib/lib.sh - TAP helpers for the shell integration tests, after git's
# t/test-lib.sh. Each test script sources this, calls test_expect_success
# 'title' 'commands' for each case, and ends with test_done.
#
# Every script gets a scratch folder $T (removed at exit) and these
# variables from tests/run: RETORT_ROOT (the checkout) and RETORT_BIN (the
# sanitizer-built tools the scratch projects use through --with-tools).

set -u
: "${RETORT_ROOT:?run the tests through tests/run or ninja test}"
: "${RETORT_BIN:=$RETORT_ROOT/out/asan/bin}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

test_count=0
test_failed=0
T=$(mktemp -d "${TMPDIR:-/tmp}/retort-test.XXXXXX")
trap 'rm -rf "$T"' EXIT
# KEEP_T=1: keep the scratch folder, to look at after a failure
test -z "${KEEP_T:-}" || { trap '' EXIT; echo "# scratch folder: $T"; }

# test_expect_success [LONG] TITLE COMMANDS: eval COMMANDS in $T; the
# status is the last command's, so chain them with && (as every test here
# does). A case marked LONG runs only in the full tier (ninja test-all,
# RETORT_TEST_LONG=1); the quick tier (ninja test) reports it skipped
test_expect_success() {
	if test $# = 3 && test "$1" = LONG; then
		shift
		if test -z "${RETORT_TEST_LONG:-}"; then
			test_skip "long: $1 (ninja test-all runs it)"
			return 0
		fi
	fi
	test_count=$((test_count + 1))
	t0=$(date +%s%N)
	if (cd "$T" && eval "$2") >"$T/.log" 2>&1; then
		echo "ok $test_count - $1"
	else
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$T/.log"
		test_failed=$((test_failed + 1))
	fi
	# RETORT_TEST_TIMES=FILE: each case's milliseconds appended to FILE
	# (script, case, ms, title), to choose what the quick tier leaves out
	test -z "${RETORT_TEST_TIMES:-}" ||
		printf '%s\t%d\t%d\t%s\n' "${0##*/}" "$test_count" $((($(date +%s%N) - t0) / 1000000)) "$1" \
			>>"$RETORT_TEST_TIMES"
}

test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count # SKIP $1"
}

test_done() {
	echo "1..$test_count"
	test "$test_failed" = 0
	exit $?
}

# cpu_only WHY: skip the whole file, visibly, on a machine with a GPU
# (records there are verified and timings re-measured, so WHY no longer holds)
cpu_only() {
	if nvidia-smi -L 2>/dev/null | grep -q GPU; then
		echo "1..0 # SKIP a GPU is present: $1; tests/gpu/run covers GPU hosts"
		exit 0
	fi
}

# scratch_project DIR: a retort checkout without specs in DIR
scratch_project() {
	mkdir -p "$1/tasks/prompts" &&
	cp "$RETORT_ROOT/configure" "$RETORT_ROOT/build.ninja.in" "$1/" &&
	cp -R "$RETORT_ROOT/rules" "$RETORT_ROOT/src" "$RETORT_ROOT/scripts" "$1/" &&
	cp "$RETORT_ROOT"/tasks/prompts/*.md "$1/tasks/prompts/" &&
	if test -f "$RETORT_ROOT/models.yaml"; then cp "$RETORT_ROOT/models.yaml" "$1/"; fi
}

# start_mock [ARGS]: the loopback mock teacher (tests/lib/mock_llm.py ARGS) in
# the background, stopped at exit; both providers' keys (fakes that the
# tests grep for: sk-ant-FAKE-KEY-0123456789, sk-oai-FAKE-KEY-0123456789)
# and base URLs point at it
start_mock() {
	start_mock_of "$RETORT_ROOT/tests/lib/mock_llm.py" "$@"
}

# start_mock_of SCRIPT [ARGS]: start_mock with another mock of the same
# command line (tests/lib/mock_fast.py), run under $MOCK_PIN when set (a
# command that execs the rest, such as "taskset -c 1": MOCK stays its pid)
start_mock_of() {
	script=$1; shift
	${MOCK_PIN:-} python3 "$script" "$T/port" "$@" &
	MOCK=$!
	trap 'kill $MOCK 2>/dev/null; rm -rf "$T"' EXIT
	i=0; while test ! -s "$T/port" && test $i -lt 100; do sleep 0.05; i=$((i + 1)); done
	test -s "$T/port" || { echo "Bail out! the mock teacher did not start"; exit 1; }
	PORT=$(cat "$T/port")
	export ANTHROPIC_API_KEY=sk-ant-FAKE-KEY-0123456789 OPENAI_API_KEY=sk-oai-FAKE-KEY-0123456789
	export ANTHROPIC_BASE_URL=http://127.0.0.1:$PORT OPENAI_BASE_URL=http://127.0.0.1:$PORT/v1
}

# the mock's fault kinds (tests/lib/mock_llm.py), each a cell of
# bench/faults.sh and bench/charges.sh
FAULT_KINDS="429 429ms 429date 503noretry 400retry quota credit 401echo html502 reset rst resetmid
	timeout stall badjson wrongshape truncstream errevent nonutf8 midjunk nofinish nodone slow
	400 401 402 403 404 408 409 413 422 500 502 503 529"

# gpt_test [FROM]: models.yaml here, from FROM (default itself), with
# gpt-test: an OpenAI model with prices and batch prices, before "*"
gpt_test() {
	python3 - "${1:-models.yaml}" <<'EOF'
import sys
s = open(sys.argv[1]).read()
entry = """  gpt-test:
    provider: openai
    max_tokens_field: max_completion_tokens
    prices: {input: 2, output: 8, cache_write: 0, cache_read: 0.5}
    batch_prices: {input: 1, output: 4, cache_write: 0, cache_read: 0.25}
"""
open("models.yaml", "w").write(s.replace('  "*":', entry + '  "*":', 1))
EOF
}

# one_variant: a scratch project in $T/p, the current folder from then on,
# with one small spec split into its variant; TASK is that variant's task.json
one_variant() {
	scratch_project "$T/p" && cd "$T/p" || exit 1
	spec a alpha
	"$RETORT_BIN/gen" --split tasks/a.yaml --all >/dev/null || { echo "Bail out! split failed"; exit 1; }
	TASK=$T/p/out/v/alpha/task.json
}

# rconfigure [OPTIONS]: configure the project in the current folder with
# the prebuilt tools and a private cache
rconfigure() {
	./configure --with-tools="$RETORT_BIN" --cache-dir="$T/cache" "$@"
}

# spec NAME ID [EXTRA YAML [TAGS]]: a small valid spec in tasks/NAME.yaml
spec() {
	cat > "tasks/$1.yaml" <<EOS
id: $2
description: Scale a vector by two ($2).
tags: [${4:-test}]
entry: $2_scale
args:
  - {name: x, kind: in, dtype: f32, shape: [n]}
  - {name: y, kind: out, dtype: f32, shape: [n]}
  - {name: n, kind: size}
sizes:
  verify: [{n: 1}, {n: 1000}]
  bench: [{n: 1048576}]
reference: |
  void reference(const float *x, float *y, int n)
  { for (int i = 0; i < n; i++) y[i] = 2 * x[i]; }
${3:-}
EOS
	replay "$2"
}

# replay VARIANT...: a hand-written round-1 answer for each variant (the
# default provider, replay, reads tasks/replay/<variant>/s0-r1.md)
replay() {
	for v; do
		mkdir -p "tasks/replay/$v" &&
		cat > "tasks/replay/$v/s0-r1.md" <<EOS || return 1
A test answer for $v: one thread per element.

\`\`\`cuda
__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void ${v%%.*}_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }
\`\`\`
EOS
	done
}

# records DIR: record on round files DIR/<variant>/s<k>/r<j>/*.json (as
# tests/consumers/fixtures.py writes them) -> DIR/<variant>/s<k>/record.json,
# listed in DIR/records
records() {
	for d in "$1"/*/s*; do
		"$RETORT_BIN/record" -o "$d/record.json" "$(dirname "$d")/task.json" "$d"/r*/*.json || return 1
		echo "$d/record.json"
	done >"$1/records"
}

# ran LOG: the descriptions of the edges ninja ran, one per line
ran() { sed -n 's/^\[[0-9]*\/[0-9]*\] //p' "$1"; }

# field FILE EXPR: a Python expression over the JSON file FILE as d
field() { python3 -c "import json,sys; d = json.load(open('$1')); print(eval(sys.argv[1]))" "$2"; }

# can_fill: whether onfull can mount a tmpfs (root, mount namespaces)
can_fill() {
	test "$(id -u)" = 0 && mkdir -p "$T/.fill" &&
	unshare -m sh -c 'mount -t tmpfs -o size=64k tmpfs "$0"' "$T/.fill" 2>/dev/null
}
# onfull SIZE CMD...: CMD with ./full a tmpfs of SIZE (in a mount
# namespace of its own, so it is gone after); CMD's exit status and stderr
# in ./rc and ./err, then what is left in full/ listed in ./left
onfull() {
	size=$1; shift
	mkdir -p full &&
	unshare -m sh -c 'mount -t tmpfs -o size="$0" tmpfs full && { "$@" 2>err; echo $? >rc; find full -mindepth 1 >left; }' "$size" "$@"
	cat err; echo "exit $(cat rc); left: $(cat left)"
}

# for the query-llm tests (after one_variant):
# model PROVIDER MODEL [python statements on dict m]: write m.json
model() {
	"$RETORT_BIN/gen" --model-json m.json --models "$RETORT_ROOT/models.yaml" --provider "$1" --model "$2" &&
	python3 -c "import json; m = json.load(open('m.json')); m['limits'] = {'rpm': 0, 'tpm': 0}
m['retry']['max_wait_s'] = 30
${3:-}
json.dump(m, open('m.json', 'w'))"
}
# q OUT [extra query-llm args]: one round-1 request for the variant in TASK
q() {
	out=$1; shift
	"$RETORT_BIN/query-llm" -o "$out" --model-config m.json --prompts tasks/prompts \
		--cache-dir "$T/cache" --sample 0 --round 1 --log "$T/llm.log" "$@" "$TASK"
}
# fresh: an empty response cache
fresh() { rm -rf "$T/cache"; }

# mock ARGS...: control the mock teacher listening on the port in $T/port
mock() { python3 "$RETORT_ROOT/tests/lib/mock_llm.py" --ctl "$T/port" "$@"; }

# expect_fail STATUS PATTERN CMD...: CMD exits STATUS and its stderr has PATTERN
expect_fail() {
	want=$1 pattern=$2
	shift 2
	"$@" >"$T/.out" 2>"$T/.err"
	got=$?
	cat "$T/.err"
	test "$got" = "$want" || { echo "exit $got, want $want"; return 1; }
	grep -q -e "$pattern" "$T/.err" || { echo "stderr lacks: $pattern"; return 1; }
}

# for the tests over the CPU stand-in for the GPU (tests/unit/fakedevice.c,
# honoured by the test build only), in the current folder:
# fake_gpu: RETORT_FAKE_GPU set, tests/fake's specs in tasks/, the lock
# folder gpu/; FAKE is tests/fake
fake_gpu() {
	FAKE=$RETORT_ROOT/tests/fake
	export RETORT_FAKE_GPU=1
	mkdir -p out cache gpu tasks && cp "$FAKE"/*.yaml tasks/ && ln -s "$RETORT_ROOT/tasks/prompts" tasks/prompts
}
# fake_runtime [OPTION...]: the harness's runtime on the fake device (out/runtime/harness.o)
fake_runtime() {
	"$RETORT_BIN/prepare" --runtime --fake "$RETORT_ROOT/tests/unit/fakedevice.c" --src "$RETORT_ROOT/src" \
		-o out/runtime/harness.o "$@"
}
# fake_variant ID SPEC: its task.json, harness, reference, expected outputs,
# baseline (tests/fake/baseline.c), oracle check and baseline timing
fake_variant() {
	d=out/v/$1
	"$RETORT_BIN/gen" --split tasks/$2.yaml --all --out out --tasks-dir tasks >/dev/null &&
	"$RETORT_BIN/prepare" --harness --object out/runtime/harness.o -o $d/harness $d/task.json &&
	"$RETORT_BIN/prepare" --reference --src "$RETORT_ROOT/src" -o $d/reference $d/task.json &&
	"$RETORT_BIN/verify" --expected --cache-dir cache -o $d/expected.json $d/task.json $d/reference &&
	cc -shared -fPIC -o $d/baseline.so "$FAKE/baseline.c" &&
	"$RETORT_BIN/verify" --baseline --lock-dir gpu -o $d/oracle.json $d/task.json $d/harness $d/expected.json \
		$d/baseline.so &&
	"$RETORT_BIN/bench" --baseline --lock-dir gpu -o $d/baseline.json $d/task.json $d/harness $d/oracle.json \
		$d/baseline.so
}
# fake_expect RUN SOURCE: RUN's stage and verdict (its verify.json and
# bench.json) as SOURCE's "expect:" comment line says (tests/fake)
fake_expect() {
	want=$(sed -n 's@^\(//\|#\) expect: @@p' "$2")
	got_v=$(field $1/verify.json 'd["verdict"]') got_b=$(field $1/bench.json 'd["status"]')
	echo "$1: verify $got_v, bench $got_b; want $want"
	case $want in
	"verify $got_v") test "$got_v" != correct ;;
	"bench $got_b") test "$got_v" = correct ;;
	*) false ;;
	esac
}
# fake_holdlock: the GPU slot's lock (gpu/gpu0.lock) held by another
# process, as another edge would, until fake_release (or 60 s)
fake_holdlock() {
	rm -f held release
	python3 -c 'import fcntl, os, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open("held", "w").close()
end = time.time() + 60
while not os.path.exists("release") and time.time() < end:
    time.sleep(0.05)' gpu/gpu0.lock &
	while ! test -e held; do sleep 0.05; done
}
fake_release() { touch release; }
# fake_harnesses PID: PID's descendants whose command line matches
# $HARNESS_LIKE (grep's pattern)
fake_harnesses() {
	for c in $(pgrep -P "$1"); do
		tr "\0" " " </proc/$c/cmdline 2>&1 | grep -q -- "$HARNESS_LIKE" && echo $c
		fake_harnesses $c
	done
}
# fake_waitharnesses PID N: until N of them run (30 s at most; a loaded
# box is slow), listed in the file pids
fake_waitharnesses() {
	k=0
	while fake_harnesses $1 >pids && test "$(wc -l <pids)" -lt $2 && test $k -lt 600; do sleep 0.05; k=$((k + 1)); done
	test "$(wc -l <pids)" -ge $2
}
# fake_early NAME VARIANT [kill]: the test's own "candidate NAME VARIANT"
# run while another process holds the GPU slot's lock, with CPUs to
# spare, so that its harness starts before the lease; the lock released
# $EARLY_WAIT s (default 1) after a harness matching $HARNESS_LIKE runs
# (killed first with kill), so that whatever it did before the lease is
# not counted in it
fake_early() {
	fake_holdlock && { RETORT_SPARE_CPUS=1 candidate $1 $2 & } && cand=$! &&
	fake_waitharnesses $cand 1 && sleep ${EARLY_WAIT:-1} && { test -z "${3:-}" || kill -9 $(cat pids); }; ok=$?
	fake_release; wait $cand && test $ok = 0
}
# fake_candidate NAME DIR: tests/fake/NAME.c built into DIR/cand.so, with
# the compile.json that says it built
fake_candidate() {
	mkdir -p $2 && cc -shared -fPIC -O1 -o $2/cand.so "$FAKE/$1.c" && echo '{"status": "ok"}' >$2/compile.json
}
