#!/bin/sh
# t0400: compile — the static screen on its corpus (tests/screen: one file
# per rule and way of breaking it, spellings that only the preprocessor
# reveals, honest ones that must pass), what a spec's allow lets through,
# extraction from answers, build records, the build cache and the limits
# on nvcc. No GPU needed.
. "$(dirname "$0")/lib/lib.sh"

one_variant
SCREEN=$RETORT_ROOT/tests/screen

# rules FILE [ALLOW]: the screen's rule names for FILE, sorted, one line
rules() {
	"$RETORT_BIN/compile" --screen "$1" --entry run ${2:+--allow "$2"} |
		python3 -c "import json,sys; print(' '.join(sorted({v['rule'] for v in json.load(sys.stdin)})))"
}
# answer FILE: a response.json whose answer text is FILE's contents
answer() {
	python3 -c "import json,sys; json.dump({'status': 'answered', 'answer': {'text': sys.stdin.read()}}, sys.stdout)"
}
# build RESPONSE [options]: compile it for alpha into c.json
build() {
	r=$1; shift
	"$RETORT_BIN/compile" --arch sm_90 "$@" -o out/c/compile.json "$TASK" "$r"
}
good='__global__ void k(const float* x, float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }
extern "C" void alpha_scale(const float* x, float* y, int n) { k<<<(n + 255) / 256, 256>>>(x, y, n); }'
mkdir -p out/c

# caught FILE...: each file's rule (its name's, RULE-N.cu) among the screen's verdicts; prints the count
caught() {
	n=0
	for f; do
		name=$(basename "$f" .cu) rule=${name%-*}
		test "$rule" = honest && continue
		got=$(rules "$f") || return 1
		case " $got " in *" $rule "*) ;; *) echo "$name: got [$got]"; return 1 ;; esac
		n=$((n + 1))
	done
	echo "$n violating examples"
}
# passes FILE...: the screen finds nothing in each
passes() {
	for f; do
		got=$(rules "$f") && test -z "$got" || { echo "$f: [$got]"; return 1; }
	done
}

test_expect_success 'every screen rule catches its first example' '
	caught "$SCREEN"/*-1.cu >n && cat n && test "$(cut -d" " -f1 n)" -ge 15
'
test_expect_success LONG 'every screen rule catches its examples' '
	caught "$SCREEN"/*-[0-9]*.cu >n && cat n && test "$(cut -d" " -f1 n)" -ge 40
'
test_expect_success 'the first honest example passes the screen' '
	passes "$SCREEN"/honest-1.cu
'
test_expect_success LONG 'the honest examples pass the screen' '
	passes "$SCREEN"/honest-*.cu
'
test_expect_success 'every rule the screen names has a violating example' '
	for rule in entry_point kernel library host_compute process network file_io environment \
		threads timing interposition streams device_state include asm; do
		ls "$SCREEN/$rule"-[0-9].cu >/dev/null 2>&1 || { echo "no example for $rule"; exit 1; }
	done
'
test_expect_success LONG 'CUB: block- and warp-level primitives pass' '
	passes "$SCREEN"/honest-7.cu
'
test_expect_success LONG 'CUB: device-wide algorithms and allocators by name do not' '
	"$RETORT_BIN/compile" --screen "$SCREEN/library-5.cu" --entry run >v.json &&
	test "$(field v.json "\" \".join(sorted({v[\"rule\"] for v in d}))")" = library &&
	grep -q "cub::DeviceReduce" v.json && grep -q "cub::CachingDeviceAllocator" v.json
'
test_expect_success LONG 'a spec allow lets its rule through, and no other' '
	test "$(rules "$SCREEN/library-2.cu")" = library && test -z "$(rules "$SCREEN/library-2.cu" library)" &&
	test "$(rules "$SCREEN/timing-1.cu" library)" = timing
'

test_expect_success 'extraction: the block that defines the entry point, even when not the last' '
	printf "Here:\n\n\`\`\`cuda\n%s\n\`\`\`\n\nUsage:\n\n\`\`\`cpp\nalpha_scale(x, y, n); // call it so\n\`\`\`\n" "$good" |
		answer >r.json && build r.json &&
	test "$(field out/c/compile.json "d[\"status\"]")" = ok &&
	test "$(field out/c/compile.json "d[\"block\"][\"index\"]")" = 1 &&
	test "$(field out/c/compile.json "d[\"block\"][\"count\"]")" = 2
'
test_expect_success LONG 'extraction: a block that only mentions the entry point does not count' '
	printf "\`\`\`cuda\n%s\n\`\`\`\n\n\`\`\`cuda\n// extern \"C\" void alpha_scale(...) is defined above\nint unused;\n\`\`\`\n" "$good" |
		answer >r.json && build r.json &&
	test "$(field out/c/compile.json "d[\"block\"][\"index\"]")" = 1
'
test_expect_success LONG 'extraction: no block, or only other languages, is no_code with a reason' '
	printf "I would use a grid-stride loop.\n" | answer >r.json && build r.json &&
	test "$(field out/c/compile.json "d[\"status\"]")" = no_code &&
	field out/c/compile.json "d[\"reason\"]" | grep -q "no fenced code block" &&
	printf "\`\`\`python\nprint(1)\n\`\`\`\n" | answer >r.json && build r.json &&
	test "$(field out/c/compile.json "d[\"status\"]")" = no_code &&
	field out/c/compile.json "d[\"reason\"]" | grep -q "other languages"
'
test_expect_success 'extraction: binary junk in a block is a recorded failure, not a crash' '
	python3 -c "import json,sys; json.dump({\"status\": \"answered\", \"answer\": {\"text\": \"\`\`\`cuda\\n\" + \"\".join(map(chr, range(1, 32))) * 50 + \"\\n\`\`\`\\n\"}}, sys.stdout)" >r.json &&
	build r.json && st=$(field out/c/compile.json "d[\"status\"]") && echo "$st" &&
	case $st in no_code|screen_failed) ;; *) false ;; esac
'
test_expect_success 'a screen violation is recorded with its rules, and nothing is built' '
	{ printf "\`\`\`cuda\n"; cat "$SCREEN/network-1.cu" | sed "s/\brun\b/alpha_scale/"; printf "\`\`\`\n"; } | answer >r.json &&
	build r.json && test "$(field out/c/compile.json "d[\"status\"]")" = screen_failed &&
	field out/c/compile.json "[v[\"rule\"] for v in d[\"violations\"]]" | grep -q network &&
	test ! -s out/c/cand.so
'

test_expect_success 'a build: status ok, nvcc version, flags, resources, a shared object' '
	printf "\`\`\`cuda\n%s\n\`\`\`\n" "$good" | answer >good.json && build good.json --cache-dir "$T/cc" &&
	test "$(field out/c/compile.json "d[\"status\"]")" = ok &&
	field out/c/compile.json "d[\"flags\"]" | grep -q -- "-arch=sm_90" &&
	test -n "$(field out/c/compile.json "d[\"nvcc_version\"]")" &&
	test "$(field out/c/compile.json "len(d[\"resources\"])")" = 1 &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"registers\"]")" -gt 0 &&
	test "$(field out/c/compile.json "d[\"resources\"][0][\"spill_loads\"]")" = 0 &&
	test -s out/c/cand.so && cp out/c/compile.json first.json
'
test_expect_success 'the same candidate again is a cache hit: no nvcc, the same record' '
	cp good.json again.json && start=$(date +%s%N) && build again.json --cache-dir "$T/cc" &&
	ms=$(( ($(date +%s%N) - start) / 1000000 )) && echo "cache hit in $ms ms" &&
	test "$ms" -lt 1000 && cmp first.json out/c/compile.json
'
test_expect_success 'a compile error: the diagnostics, with no temporary paths in them' '
	printf "\`\`\`cuda\n%s\nint broken = ;\n\`\`\`\n" "$good" | answer >bad.json && build bad.json --cache-dir "$T/cc" &&
	test "$(field out/c/compile.json "d[\"status\"]")" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" >diag && grep -q "error" diag &&
	! grep -q "$T/cc\|/tmp/" diag && test ! -s out/c/cand.so
'
# nvcc runs in the sandbox as an unprivileged uid, seeing its own folder:
# the fake ones below live in $T, which it must be able to enter
chmod 755 "$T"
test_expect_success 'limits: nvcc past --time-limit is a timeout, and is not cached' '
	cat >slow-nvcc <<-\EOF &&
	#!/bin/sh
	case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.0"; exit 0 ;; esac
	sleep 30
	EOF
	chmod +x slow-nvcc && cp good.json slow.json &&
	build slow.json --cache-dir "$T/slow" --nvcc "$PWD/slow-nvcc" --time-limit 1 &&
	test "$(field out/c/compile.json "d[\"status\"]")" = timeout &&
	field out/c/compile.json "d[\"reason\"]" | grep -q "longer than 1 s" &&
	test -z "$(find "$T/slow" -name result.json)"
'
test_expect_success LONG 'a SIGKILLed compile leaves its build folder; the next compile there sweeps it' '
	"$RETORT_BIN/compile" --arch sm_90 --nvcc "$PWD/slow-nvcc" --time-limit 60 -o out/c/compile.json "$TASK" slow.json &
	pid=$! && n=0 &&
	until ls -d out/c/cand.so.build-$pid@* >/dev/null 2>&1 || test $n -ge 100; do sleep 0.1; n=$((n + 1)); done &&
	kill -9 $pid && wait $pid; ls -d out/c/cand.so.build-$pid@* &&
	build good.json && test "$(field out/c/compile.json "d[\"status\"]")" = ok &&
	! ls -d out/c/cand.so.build-* 2>/dev/null
'
test_expect_success 'limits: an nvcc that outgrows --mem-limit fails as the candidate, not the tool' '
	cat >big-nvcc <<-\EOF &&
	#!/bin/sh
	case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.0"; exit 0 ;; esac
	exec python3 -c "x = bytearray(1 << 30)"
	EOF
	chmod +x big-nvcc &&
	build good.json --nvcc "$PWD/big-nvcc" --mem-limit 256 &&
	test "$(field out/c/compile.json "d[\"status\"]")" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q MemoryError
'
test_expect_success 'limits: an nvcc that writes more than --disk-limit in many files is stopped, the candidate'"'"'s failure' '
	cat >fill-nvcc <<-\EOF &&
	#!/bin/sh
	case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.0"; exit 0 ;; esac
	for i in 1 2 3 4 5 6 7 8; do head -c 4194304 /dev/zero >"$(mktemp junk.XXXXXX)"; done; sleep 5
	EOF
	chmod +x fill-nvcc && start=$(date +%s%N) &&
	build good.json --nvcc "$PWD/fill-nvcc" --disk-limit 16 &&
	test $((($(date +%s%N) - start) / 1000000)) -lt 4000 &&
	test "$(field out/c/compile.json "d[\"status\"]")" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q "wrote more than 16 MiB" &&
	! ls -d out/c/cand.so.build-* 2>/dev/null
'
test_expect_success LONG 'limits: a build that writes more than --disk-limit is refused as the candidate'"'"'s, and leaves nothing' '
	# an initialised host array: 64 MiB of data in the object and the shared object
	printf "\`\`\`cuda\nstatic char pad[64 << 20] = {1};\n%s\n\`\`\`\n" "$(printf "%s" "$good" |
		sed "s/(x, y, n); }\$/(x, y, n + pad[n \& 1]); }/")" | answer >huge.json && grep -q "pad\[n" huge.json &&
	build huge.json --disk-limit 16 --cache-dir "$T/huge" &&
	test "$(field out/c/compile.json "d[\"status\"]")" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" | grep -q "wrote more than 16 MiB" &&
	test ! -s out/c/cand.so && ! ls -d out/c/cand.so.build-* 2>/dev/null &&
	test -z "$(find "$T/huge" -name cand.so -size +1M)"
'
test_expect_success 'an nvcc killed from outside (the OOM killer'"'"'s SIGKILL) is no verdict: exit 1, nothing written or cached' '
	cat >killed-nvcc <<-\EOF &&
	#!/bin/sh
	case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.0"; exit 0 ;; esac
	sleep 30
	EOF
	chmod +x killed-nvcc && rm -f out/c/k.json &&
	{ "$RETORT_BIN/compile" --arch sm_90 --cache-dir "$T/killed" --nvcc "$PWD/killed-nvcc" -o out/c/k.json "$TASK" good.json \
		>k.out 2>k.err; echo $? >k.rc; } &
	n=0 && until pkill -KILL -f "^/bin/sh [^ ]*killed-nvcc -[^-]" || test $n -ge 400; do sleep 0.05; n=$((n + 1)); done &&
	wait && cat k.err && test "$(cat k.rc)" = 1 && grep -q "stopped by signal 9 from outside" k.err &&
	test ! -e out/c/k.json && test -z "$(find "$T/killed" -name result.json)"
'
test_expect_success 'diagnostics cut inside a character still reach the teacher' '
	cat >utf-nvcc <<-\EOF &&
	#!/bin/sh
	case "$1" in --version) echo "Cuda compilation tools, release 13.0, V13.0.0"; exit 0 ;; esac
	python3 -c "print(\"x\" + \"\u00e9\" * 4000)"; exit 1
	EOF
	chmod +x utf-nvcc &&
	build good.json --cache-dir "$T/utf" --nvcc "$PWD/utf-nvcc" &&
	test "$(field out/c/compile.json "d[\"status\"]")" = compile_error &&
	field out/c/compile.json "d[\"diagnostics\"]" >diag && grep -q "?$" diag && grep -q "more diagnostics cut" diag
'
test_expect_success 'a compiler that is not there is a failure of the tool (exit 1), in every mode' '
	expect_fail 1 "cannot run" "$RETORT_BIN/compile" --nvcc /nonexistent/nvcc -o x.json "$TASK" good.json &&
	"$RETORT_BIN/gen" --split "$RETORT_ROOT/tasks/relu.yaml" --all --tasks-dir "$RETORT_ROOT/tasks" --out relu >/dev/null &&
	expect_fail 1 "cannot run" "$RETORT_BIN/prepare" --baseline --nvcc /nonexistent/nvcc -o x.so relu/v/relu/task.json &&
	test ! -e x.so &&
	expect_fail 1 "cannot run" "$RETORT_BIN/prepare" --reference --cc /nonexistent/cc --src "$RETORT_ROOT/src" \
		-o x.ref "$TASK" && test ! -e x.ref && ! ls x.ref.work* 2>/dev/null &&
	expect_fail 2 "runner: cannot read ./nonexistent/runner.o." "$RETORT_BIN/prepare" --reference \
		--runner /nonexistent/runner.o -o x.ref "$TASK" && test ! -e x.ref
'
test_expect_success LONG 'an entry point named id: the baseline builds under its own name (not found inside void)' '
	mkdir -p idp/tasks && ln -s "$RETORT_ROOT/tasks/prompts" idp/tasks/prompts && sed -e "s/^id: relu$/id: idtask/" -e "s/^entry: relu_forward$/entry: id/" \
		"$RETORT_ROOT/tasks/relu.yaml" >idp/tasks/idtask.yaml && grep -q "^entry: id$" idp/tasks/idtask.yaml &&
	"$RETORT_BIN/gen" --split idp/tasks/idtask.yaml --all --tasks-dir idp/tasks --out idp/out >/dev/null &&
	"$RETORT_BIN/prepare" --baseline -o idp/baseline.so idp/out/v/idtask/task.json && test -s idp/baseline.so &&
	nm -D --defined-only idp/baseline.so | grep -q " T baseline$"
'
# obj NAME: out/obj/NAME.so built from the lines on stdin and a kernel, with compile's flags
obj() {
	mkdir -p out/obj && { cat; echo "$objkernel"; } >out/obj/$1.cu &&
	nvcc -arch=sm_90 -O3 -lineinfo -std=c++17 -shared -Xcompiler -fPIC -cudart shared -o out/obj/$1.so \
		out/obj/$1.cu 2>/dev/null
}
objkernel='__global__ void k(float* x) { x[threadIdx.x] = 1; }
extern "C" void run(float* x) { k<<<1, 32>>>(x); }'
objrules() {
	"$RETORT_BIN/compile" --object "out/obj/$1.so" |
		python3 -c "import json,sys; print(\" \".join(sorted({v[\"rule\"] for v in json.load(sys.stdin)})))"
}
test_expect_success LONG 'the object check: what only the built object shows; a CUB kernel passes' '
	: | obj honest && test -z "$(objrules honest)" &&
	printf "#include <cstdio>\n[[gnu::constructor]] static void my__sti____cudaRegisterAll() { puts(\"x\"); }\n" |
		obj ctor && test "$(objrules ctor)" = interposition &&
	printf "#include <cstdlib>\nint sneak() { return std::system(\"true\"); }\n" | obj system &&
		test "$(objrules system)" = process &&
	printf "long raw(long n) { long r; asm volatile(\"syscall\" : \"=a\"(r) : \"a\"(n) : \"rcx\", \"r11\"); return r; }\n" |
		obj syscall && test "$(objrules syscall)" = asm &&
	printf "extern \"C\" int puts(const char *s) { (void)s; return 0; }\n" | obj shadow &&
		test "$(objrules shadow)" = interposition &&
	sed "s/ void run(/ void run_cub(/" "$SCREEN/honest-7.cu" | obj cub && test -z "$(objrules cub)"
'
test_expect_success 'bad usage exits 2' '
	expect_fail 2 "time-limit must be an integer" "$RETORT_BIN/compile" --time-limit soon -o x.json "$TASK" good.json &&
	expect_fail 2 "needs --entry" "$RETORT_BIN/compile" --screen "$SCREEN/honest-1.cu"
'
test_expect_success 'a JSON input that cannot be read: tool, what failed, the path once, quoted' '
	mkdir -p folder.json &&
	expect_fail 2 "^compile: cannot read .folder.json.: Is a directory$" \
		"$RETORT_BIN/compile" --arch sm_90 -o out/c/f.json folder.json good.json &&
	expect_fail 2 "^compile: cannot read .none.json.: No such file or directory$" \
		"$RETORT_BIN/compile" --arch sm_90 -o out/c/f.json "$TASK" none.json &&
	expect_fail 2 "^verify: cannot read .folder.json.: Is a directory$" \
		"$RETORT_BIN/verify" --expected -o out/c/e.json folder.json ref &&
	mkdir -p rr/r1/response.json &&
	expect_fail 2 "^record: cannot read .rr/r1/response.json.: Is a directory$" \
		"$RETORT_BIN/record" -o out/c/r.json "$TASK" rr/r1/response.json &&
	test ! -e out/c/f.json && test ! -e out/c/e.json && test ! -e out/c/r.json
'
test_expect_success LONG 'prepare --baseline: the same baseline elsewhere is the cached build; another arch is not' '
	"$RETORT_BIN/gen" --split "$RETORT_ROOT/tasks/relu.yaml" --all --tasks-dir "$RETORT_ROOT/tasks" --out relu \
		>/dev/null &&
	"$RETORT_BIN/prepare" --baseline --cache-dir "$T/bc" -o b1/baseline.so relu/v/relu/task.json &&
	e=$(find "$T/bc/prep" -name out) && cmp "$e" b1/baseline.so && printf retort-cache-test >>"$e" &&
	"$RETORT_BIN/prepare" --baseline --cache-dir "$T/bc" -o b2/baseline.so relu/v/relu/task.json &&
	test "$(tail -c 17 b2/baseline.so)" = retort-cache-test &&
	"$RETORT_BIN/prepare" --baseline --cache-dir "$T/bc" --arch sm_80 -o b3/baseline.so relu/v/relu/task.json &&
	test -s b3/baseline.so && test "$(tail -c 17 b3/baseline.so)" != retort-cache-test &&
	test "$(find "$T/bc/prep" -name out | wc -l)" = 2
'
test_expect_success LONG 'prepare --harness: after the runtime is built again (nvcc names a temporary by its pid), the cached build' '
	"$RETORT_BIN/prepare" --runtime --src "$RETORT_ROOT/src" -o rt1/harness.o >/dev/null &&
	"$RETORT_BIN/prepare" --runtime --src "$RETORT_ROOT/src" -o rt2/harness.o >/dev/null &&
	! cmp -s rt1/harness.o rt2/harness.o &&
	"$RETORT_BIN/prepare" --harness --object rt1/harness.o --cache-dir "$T/hc" -o h1/harness relu/v/relu/task.json &&
	e=$(find "$T/hc/prep" -name out) && cmp "$e" h1/harness && printf retort-cache-test >>"$e" &&
	"$RETORT_BIN/prepare" --harness --object rt2/harness.o --cache-dir "$T/hc" -o h2/harness relu/v/relu/task.json &&
	test "$(tail -c 17 h2/harness)" = retort-cache-test
'
test_done
