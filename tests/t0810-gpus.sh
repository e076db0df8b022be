#!/bin/sh
# t0810: every GPU of a host, without one. configure reports each GPU that
# nvidia-smi lists (a fake nvidia-smi on PATH here) and sizes the gpu pool
# by them, and refuses GPUs of different compute capabilities unless
# --gpus picks GPUs of one, and GPUs not in the Default compute mode.
# verify and bench lease one slot per GPU (src/jail/sandbox.h: a flock
# each) and start the harness with that GPU
# alone visible; the harness here runs on the CPU stand-in
# (tests/unit/fakedevice.c), which refuses to start unless
# CUDA_VISIBLE_DEVICES names exactly one device, and reports a UUID made
# from it. While six verifies share three slots, /proc is sampled
# (tests/lib/harnesses.py): no two harnesses ever run on one device at once,
# and all three are used. A verify killed with its lease held frees it for
# the one waiting. The calibration measures each GPU, and bench uses the
# figures of the one it ran on.
. "$(dirname "$0")/lib/lib.sh"

unset CUDA_VISIBLE_DEVICES RETORT_GPU_LEASE
cd "$T" || exit 1
fake_gpu
ROOT=$$

# a fake nvidia-smi: the GPUs in $T/gpus ("index, name, compute_cap, uuid"
# lines, a compute mode after them where a case gives one), all of them or
# those -i names
mkdir -p bin
cat >bin/nvidia-smi <<'EOF'
#!/bin/sh
sel=
while test $# -gt 0; do case $1 in -i) sel=$2; shift ;; esac; shift; done
if test -z "$sel"; then cat "$FAKE_GPUS"; exit 0; fi
for g in $(echo "$sel" | tr , ' '); do
	grep -E "^$g,|, $g\$" "$FAKE_GPUS" || { echo "No devices were found" >&2; exit 6; }
done
EOF
chmod +x bin/nvidia-smi
export FAKE_GPUS="$T/gpus"
gpus() { for g; do echo "$g"; done >"$T/gpus"; }
H200='NVIDIA H200, 9.0' A100='NVIDIA A100-SXM4-80GB, 8.0'

# harnesses: the devices our running harnesses see, one line
harnesses() { python3 "$RETORT_ROOT/tests/lib/harnesses.py" $ROOT "$@"; }
# until_harnesses N: wait (up to 60 s) until N of them run
until_harnesses() {
	i=0
	while test "$(harnesses | wc -w)" -lt "$1"; do
		i=$((i + 1)); test $i -lt 600 || return 1; sleep 0.1
	done
}
# vrun NAME DIR [verify options]: verify tests/fake/NAME.c (built into DIR)
# into DIR/verify.json; the verify process is this one (exec). vslow DIR
# ...: tests/fake/slow.c, 150 ms a call
vrun() {
	r=$2; fake_candidate $1 $r && shift 2 && exec "$RETORT_BIN/verify" --timeout 5 --lock-dir gpu "$@" -o $r/verify.json \
		out/v/fakescale/task.json $r/compile.json out/v/fakescale/harness out/v/fakescale/expected.json \
		out/v/fakescale/oracle.json
}
vslow() { vrun slow "$@"; }
# hold SLOT: a process holding GPU slot SLOT's lock (its pid in $holder) until killed
hold() {
	rm -f held
	python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open("held", "w").close(); time.sleep(120)' gpu/gpu$1.lock &
	holder=$!
	while ! test -e held; do sleep 0.05; done
}
# lease FILE: the record's lease and UUID, "SLOT DEVICE UUID"
lease() { field $1 '"%s %s %s" % (d["gpu"]["lease"]["slot"], d["gpu"]["lease"]["device"], d["gpu"]["uuid"])'; }

test_expect_success 'configure reports each GPU nvidia-smi lists; a lease slot per GPU, three gpu edges each' '
	gpus "0, $H200, GPU-aaaa" "1, $H200, GPU-bbbb" "2, $H200, GPU-cccc" &&
	scratch_project p && cd p && spec a alpha && PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "^checking for NVIDIA GPUs... 3$" log &&
	grep -q "^  GPU 2: NVIDIA H200, compute capability 9.0, GPU-cccc$" log &&
	grep -q "3 x NVIDIA H200, -arch=sm_90a, 3 GPU job(s)" log && grep -q "^arch=.sm_90a.$" config.status &&
	sed -n "/^pool gpu/,/depth/p" build.ninja | grep -q "depth = 9" && grep -q "^gpu_slots = 3$" build.ninja &&
	ninja -t commands out/v/alpha/s0/r1/verify.json | tail -n 1 | grep -q "^$RETORT_BIN/verify --bench --gpus 3 --lock-dir out/gpu"
'
test_expect_success LONG 'GPUs of different compute capabilities are refused, each named; --gpus picks GPUs of one' '
	gpus "0, $H200, GPU-aaaa" "1, $A100, GPU-bbbb" "2, $H200, GPU-cccc" && cd p &&
	{ PATH=$T/bin:$PATH rconfigure --tasks=alpha >log 2>err; test $? = 2; } &&
	grep -q "GPU 1: NVIDIA A100-SXM4-80GB, compute capability 8.0, GPU-bbbb" log &&
	grep -q "different compute capabilities (8.0 9.0).*--gpus=LIST" err &&
	PATH=$T/bin:$PATH rconfigure --tasks=alpha --gpus=0,2 >log && grep -q "2 x NVIDIA H200, -arch=sm_90a, 2 GPU job(s)" log &&
	grep -q "^gpu_launch = env CUDA_VISIBLE_DEVICES=0,2\\$ $" build.ninja &&
	ninja -t commands out/v/alpha/s0/r1/verify.json | tail -n 1 |
		grep -q "^env CUDA_VISIBLE_DEVICES=0,2 $RETORT_BIN/verify --bench --gpus 2 " &&
	{ PATH=$T/bin:$PATH rconfigure --tasks=alpha --gpus=0,2 --gpu-jobs=3 2>err; test $? = 2; } &&
	grep -q "gpu-jobs=3 but 2 GPU(s)" err &&
	CUDA_VISIBLE_DEVICES=1 PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "^checking for NVIDIA GPUs (1)... 1$" log && grep -q "sm_80, 1 GPU job(s)" log
'
test_expect_success 'GPUs not in the Default compute mode are refused, each named; --gpus leaves them out' '
	gpus "0, $H200, GPU-aaaa, Default" "1, $H200, GPU-bbbb, Exclusive_Process" "2, $H200, GPU-cccc, Prohibited" &&
	cd p && { PATH=$T/bin:$PATH rconfigure --tasks=alpha >log 2>err; test $? = 2; } &&
	grep -q "GPU 1 (Exclusive_Process), GPU 2 (Prohibited): not in the Default compute mode.*nvidia-smi -i INDEX -c DEFAULT" err &&
	PATH=$T/bin:$PATH rconfigure --tasks=alpha --gpus=0 >log && grep -q "1 x NVIDIA H200, -arch=sm_90a, 1 GPU job(s)" log
'
test_expect_success 'the arch: the arch-specific target from 9.0 on, plain below, sm_90a with no GPU; --arch wins' '
	cd p && gpus "0, NVIDIA B200, 10.0, GPU-aaaa" && PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "1 x NVIDIA B200, -arch=sm_100a," log &&
	gpus "0, NVIDIA RTX PRO 6000, 12.0, GPU-aaaa" && PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "1 x NVIDIA RTX PRO 6000, -arch=sm_120a," log &&
	gpus "0, NVIDIA L40S, 8.9, GPU-aaaa" && PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "1 x NVIDIA L40S, -arch=sm_89," log &&
	gpus "0, $H200, GPU-aaaa" && PATH=$T/bin:$PATH rconfigure --tasks=alpha --arch=sm_90 >log &&
	grep -q "1 x NVIDIA H200, -arch=sm_90," log && grep -q "^arch = sm_90$" build.ninja &&
	gpus && PATH=$T/bin:$PATH rconfigure --tasks=alpha >log &&
	grep -q "none: candidates are compiled for -arch=sm_90a but not run" log && grep -q "^arch = sm_90a$" build.ninja
'

test_expect_success 'the fake device runtime and a variant build' '
	fake_runtime && fake_variant fakescale fakescale &&
	test "$(field out/v/fakescale/oracle.json "d[\"verdict\"]")" = correct &&
	test "$(lease out/v/fakescale/oracle.json)" = "0 0 GPU-fake-0"
'

test_expect_success LONG 'six verifies on three slots: each harness sees its GPU alone, no two at once share one, all are used' '
	rm -f stop && { harnesses stop >snaps & } && pids= &&
	for k in 1 2 3 4 5 6; do (vslow runs/six$k --gpus 3) & pids="$pids $!"; done &&
	ok=1 && for p in $pids; do wait $p || ok=0; done; touch stop; wait; test $ok = 1 &&
	for k in 1 2 3 4 5 6; do
		test "$(field runs/six$k/verify.json "d[\"verdict\"]")" = correct || exit 1
		set -- $(lease runs/six$k/verify.json)
		test "$1" = "$2" && test "$3" = "GPU-fake-$2" && echo "$2" >>devices || exit 1
	done &&
	test "$(sort -u devices | tr "\n" " ")" = "0 1 2 " &&
	echo "snapshots: $(wc -l <snaps), with 2 or more harnesses: $(awk "NF >= 2" snaps | wc -l)" &&
	! grep -v "^[012 ]*$" snaps && test "$(awk "NF >= 2" snaps | wc -l)" -gt 0 &&
	awk "{ delete seen; for (i = 1; i <= NF; i++) if (seen[\$i]++) { print \"shared: \" \$0; bad = 1 } } END { exit bad }" snaps
'
test_expect_success LONG 'the slots stand for the devices CUDA_VISIBLE_DEVICES gave the tool, and there are no more of them' '
	for k in 1 2 3; do (export CUDA_VISIBLE_DEVICES=5,7; vslow runs/cvd$k --gpus 4) & done; wait &&
	for k in 1 2 3; do lease runs/cvd$k/verify.json; done | sort -u >got && cat got &&
	test "$(tr "\n" " " <got)" = "0 5 GPU-fake-5 1 7 GPU-fake-7 "
'
test_expect_success LONG 'a verify killed with its lease held frees it: the one waiting for it goes on' '
	{ (vrun hang runs/killed --gpus 1) & } && killed=$! && until_harnesses 1 &&
	{ (vslow runs/waiter --gpus 1) & } && waiter=$! && sleep 1 &&
	test "$(harnesses)" = 0 && test ! -e runs/waiter/verify.json &&
	kill -KILL $killed && wait $waiter && test ! -e runs/killed/verify.json &&
	test "$(field runs/waiter/verify.json "d[\"verdict\"]")" = correct &&
	test "$(lease runs/waiter/verify.json)" = "0 0 GPU-fake-0"
'
test_expect_success LONG 'RETORT_GPU_LEASE=step (a Slurm step): the GPU is the step'"'"'s, no lock is taken' '
	hold 0 && (export RETORT_GPU_LEASE=step CUDA_VISIBLE_DEVICES=3; vslow runs/step --gpus 4); rc=$? &&
	kill -0 $holder && kill $holder && wait && test $rc = 0 &&
	test "$(lease runs/step/verify.json)" = "0 3 GPU-fake-3"
'
test_expect_success LONG 'the calibration measures each GPU alone; bench uses the figures of the GPU it ran on' '
	cat >fakecal <<-\EOF &&
	#!/bin/sh
	d=$CUDA_VISIBLE_DEVICES
	echo "{\"gpu\": \"Fake GPU\", \"uuid\": \"GPU-fake-$d\", \"copy_gbs\": $((100 * (d + 1))), \"read_gbs\": 1, \"write_gbs\": 1, \"fp32_tflops\": 50, \"fp64_tflops\": 1, \"tensor_tflops\": 500}"
	EOF
	chmod +x fakecal && "$RETORT_BIN/bench" --calibrate --gpus 3 --lock-dir gpu -o cal.json ./fakecal &&
	test "$(field cal.json "\" \".join(g[\"uuid\"] + \"@\" + g[\"lease\"][\"device\"] for g in d[\"devices\"])")" = \
		"GPU-fake-0@0 GPU-fake-1@1 GPU-fake-2@2" &&
	fake_candidate ok runs/cal && d=out/v/fakescale &&
	"$RETORT_BIN/verify" --lock-dir gpu --gpus 3 -o runs/cal/verify.json $d/task.json runs/cal/compile.json $d/harness \
		$d/expected.json $d/oracle.json &&
	hold 0 && "$RETORT_BIN/bench" --lock-dir gpu --gpus 3 -o runs/cal/bench.json $d/task.json runs/cal/verify.json \
		runs/cal/compile.json $d/harness cal.json $d/baseline.json; rc=$?; kill $holder; wait; test $rc = 0 &&
	test "$(lease runs/cal/bench.json)" = "1 1 GPU-fake-1" &&
	test "$(field runs/cal/bench.json "round(d[\"cases\"][0][\"sol\"][\"memory_gbs\"])")" = 210 &&
	test "$(field runs/cal/bench.json "d[\"gpu\"][\"sm_clock_mhz_start\"]")" = -1
'
test_done
