#!/bin/sh
# t0900: the GPU edges on a real Slurm. A single-node cluster of Debian's
# slurmctld, slurmd and munged is started here (as root; private config,
# state, ports and munge key under the scratch folder; two fake GPUs: gres
# on two character devices that are /dev/null, so that Slurm schedules and
# hands out GPUs, CUDA_VISIBLE_DEVICES included, with no GPU), and the
# demo runs through ./configure --launcher=slurm inside an allocation of
# both (sbatch --gres=gpu:2). configure's probe step finds the project
# from the node and refuses one the node cannot see; every GPU edge runs
# as a step of the allocation (the .step record its node side wrote:
# SLURM_JOB_ID, SLURM_STEP_ID, CUDA_VISIBLE_DEVICES); slurmd is killed
# with SIGKILL during the run: the steps it could not launch are exit 1
# with nothing written, and the next ninja finishes with shards
# byte-identical to a local run's. Skips, saying why, where Slurm is not
# installed, where this is not root, or where the cluster does not start.
. "$(dirname "$0")/lib/lib.sh"

for p in munged slurmctld slurmd srun sbatch scontrol sinfo; do
	command -v $p >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
	command -v $p >/dev/null 2>&1 || { echo "1..0 # SKIP Slurm is not installed (no $p: apt-get install slurm-wlm)"; exit 0; }
done
test "$(id -u)" = 0 || { echo "1..0 # SKIP the cluster's daemons are started as root"; exit 0; }

S=$T/slurm
mkdir -p "$S/state" "$S/spool" "$S/munge"
chmod 700 "$S/munge"
pids=
down() {
	# the jobs first, while slurmd can end their steps (no slurmstepd left)
	if test -n "$pids"; then
		squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null
		i=0; while test -n "$(squeue -h 2>/dev/null)" && test $i -lt 20; do sleep 0.5; i=$((i + 1)); done
	fi
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
}
trap 'down; test -n "${KEEP_T:-}" || rm -rf "$T"' EXIT

# the node as slurmd sees this machine (its CPUs), with two fake GPUs
node=$(slurmd -C 2>/dev/null | sed -n 's/ *UpTime=.*//; /^NodeName=/p' | head -n 1)
host=$(printf '%s\n' "$node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
test -n "$host" || { echo "1..0 # SKIP slurmd -C cannot describe this machine"; exit 0; }
mknod "$S/gpu0" c 1 3 && mknod "$S/gpu1" c 1 3 || { echo "1..0 # SKIP cannot make the fake GPU devices (mknod)"; exit 0; }
port=$((20000 + $$ % 20000))
cat >"$S/slurm.conf" <<EOF
ClusterName=retort-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=120
MessageTimeout=5
KillWait=2
GresTypes=gpu
$node Gres=gpu:2 NodeAddr=127.0.0.1
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
echo "Name=gpu File=$S/gpu[0-1]" >"$S/gres.conf"
echo "CgroupPlugin=autodetect" >"$S/cgroup.conf"
export SLURM_CONF="$S/slurm.conf"
dd if=/dev/urandom of="$S/munge/key" bs=1024 count=1 2>/dev/null && chmod 400 "$S/munge/key"

munged -F --force --key-file="$S/munge/key" --socket="$S/munge/socket" --pid-file="$S/munge/pid" \
	--seed-file="$S/munge/seed" --log-file="$S/munge/log" 2>/dev/null &
pids="$pids $!"
slurmctld -D -f "$SLURM_CONF" 2>>"$S/slurmctld.err" &
pids="$pids $!"
slurmd_up() {
	slurmd -D -f "$SLURM_CONF" 2>>"$S/slurmd.err" &
	slurmd_pid=$!
	pids="$pids $slurmd_pid"
}
slurmd_up
# until CMD: CMD succeeds within 60 s
until_ok() {
	i=0
	until "$@" >/dev/null 2>&1; do i=$((i + 1)); test $i -lt 120 || return 1; sleep 0.5; done
}
if ! until_ok sh -c 'sinfo -h -o %T | grep -qx idle'; then
	echo "1..0 # SKIP the test cluster did not start: $(tail -n 3 "$S/slurmctld.log" "$S/slurmd.log" 2>/dev/null | tr '\n' ' ')"
	exit 0
fi
echo "# a cluster of one: $node Gres=gpu:2, slurm $(srun --version)"

# project NAME: the demo's checkout in $T/NAME
project() {
	mkdir -p "$T/$1" && (cd "$RETORT_ROOT" && tar -cf - configure build.ninja.in models.yaml rules src scripts tasks) |
		tar -xf - -C "$T/$1"
}
export XDG_CACHE_HOME="$T/xdg"
unset ANTHROPIC_API_KEY OPENAI_API_KEY CUDA_VISIBLE_DEVICES SLURM_JOB_ID

test_expect_success LONG 'the demo, run here: the shards to compare with' '
	project local && cd local && rconfigure >log && ninja >ninja.log 2>&1 && test -s out/dataset/SHA256SUMS
'

test_expect_success 'an allocation of both GPUs, for the steps' '
	sbatch --parsable --gres=gpu:2 --ntasks=2 --output=/dev/null --wrap "sleep 3600" >job &&
	until_ok sh -c "squeue -h -j $(cat job) -o %T | grep -qx RUNNING"
'
J=$(cat "$T/job" 2>/dev/null)

test_expect_success 'configure --launcher=slurm: a probe step sees the project; the gpu pool is the allocation'"'"'s GPUs' '
	project slurm && cd slurm && rconfigure --launcher=slurm --slurm-jobid=$J >log &&
	grep -q "^checking that a Slurm step sees this folder (allocation $J)... yes ($host, job $J)$" log &&
	grep -q "^checking for the GPUs the steps can have... 2$" log &&
	sed -n "/^pool gpu/,/depth/p" build.ninja | grep -q "depth = 2" &&
	grep -q "^gpu_launch = scripts/slurm-launch gpu --\\$ $" build.ninja && grep -q "^gpu_slots = 1$" build.ninja &&
	ninja -t commands out/v/relu/s0/r1/verify.json | tail -n 1 | grep -q "^scripts/slurm-launch gpu -- $RETORT_BIN/verify --bench --gpus 1 "
'
test_expect_success 'a project the node cannot see is refused, and why (the step runs elsewhere: --chdir=/)' '
	cd slurm && cp config.status config.keep &&
	{ rconfigure --launcher=slurm --slurm-jobid=$J --slurm-args=--chdir=/ >log 2>err; test $? = 1; } && cat err &&
	grep -q "cannot see .*filesystem the nodes share" err && grep -q "compute nodes share, at the same path" err &&
	cmp config.status config.keep &&
	{ rconfigure --launcher=slurm --slurm-args=--overlap 2>err; test $? = 2; } && grep -q "overlap.*share" err
'
test_expect_success 'the launcher: the tool'"'"'s 0, 1 and 2 pass through, anything else is 1; a cpu step gets no GPU' '
	cd slurm && mkdir -p out/t &&
	for c in 0 1 2 7; do
		scripts/slurm-launch gpu -- sh -c "echo \$RETORT_GPU_LEASE:\$CUDA_VISIBLE_DEVICES >\$1; exit $c" sh out/t/g$c -o out/t/g$c
		echo "$c -> $?" >>codes
	done &&
	test "$(tr "\n" " " <codes)" = "0 -> 0 1 -> 1 2 -> 2 7 -> 1 " &&
	grep -q "^step:[01]$" out/t/g0 && grep -q "^exit=7$" out/t/g7.step &&
	scripts/slurm-launch cpu -- sh -c "echo \${RETORT_GPU_LEASE:-none}:\${CUDA_VISIBLE_DEVICES:-none} >\$1" sh out/t/c -o out/t/c &&
	test "$(cat out/t/c)" = none:none
'

# steps NAME: check that every GPU edge's output has the .step record of a
# step of the allocation that ran its tool to a good end (an evaluate
# edge's beside its -o, verify.json: bench ran in the same step)
steps() {
	for r in oracle evaluate benchbase calibrate; do ninja -t targets rule $r; done | grep "\.json$" |
		grep -v "/bench\.json$" >gpuedges &&
	test "$(wc -l <gpuedges)" -ge 15 && : >stepids &&
	while read -r o; do
		grep -qx "job=$J" $o.step && grep -qx "exit=0" $o.step && grep -qx "host=$host" $o.step &&
		grep -qx "gpus=[01]" $o.step && sed -n "s/^step=\([0-9][0-9]*\)$/\1/p" $o.step >>stepids ||
		{ echo "not a step of job $J: $o"; cat $o.step; return 1; }
	done <gpuedges &&
	test "$(sort -u stepids | wc -l)" = "$(wc -l <gpuedges)" &&
	echo "$(wc -l <gpuedges) GPU edges, each a step of job $J"
}
test_expect_success LONG 'slurmd killed during the run: the steps it could not start are exit 1, nothing recorded' '
	cd slurm && { ninja >ninja.log 2>&1 & } && n=$! &&
	until_ok sh -c "find out -name \"*.step\" | grep -q ." && kill -KILL $slurmd_pid &&
	{ wait $n; test $? != 0; } &&
	grep "FAILED" ninja.log && grep -q "the step did not run its tool to the end (srun exit [0-9]*): the cluster" ninja.log &&
	sed -n "s/^FAILED: \(\[code=[0-9]*\] \)\{0,1\}//p" ninja.log | tr " " "\n" >failed && test -s failed &&
	while read -r o; do test -z "$o" || test ! -e "$o" || { echo "written: $o"; exit 1; }; done <failed
'
slurmd_up
test_expect_success LONG 'slurmd back: the next ninja finishes; every GPU edge ran as a step of the allocation' '
	until_ok srun --jobid=$J --ntasks=1 --exact --quiet true && cd slurm && ninja >ninja2.log 2>&1 && steps
'
test_expect_success LONG 'the shards are byte-identical to the local run'"'"'s' '
	cd slurm && ls out/dataset >list && test -s list && (cd ../local && ls out/dataset) | cmp - list &&
	while read -r f; do cmp out/dataset/$f ../local/out/dataset/$f || exit 1; done <list
'
test_done
