#!/bin/sh
# t0520: scripts/import-kernelbench over the test problems in
# tests/kernelbench (written for retort in KernelBench's format): each
# mapping case (sizes, parameters as inputs, constructor floats as ranged
# scalars, output shapes as expressions, smaller verify sizes with an odd
# one, cost, provenance), each refusal with its reason, the same bytes on
# a second import, and the imported specs' Python references (torch, in
# float64) through gen and verify --expected on the CPU. The inputs'
# values: integer labels within their classes, probabilities non-negative,
# bool masks as u8 0/1, so that the references give finite outputs. The
# problem code's own run: jailed (out/bin/jail), or with a scrubbed
# environment, and no secret of the caller's reaches it either way. A
# full disk: exit 1, no temporary file left.
. "$(dirname "$0")/lib/lib.sh"

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tests/kernelbench/requirements.txt out/refenv-kernelbench 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no Python environment with torch (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
ENV=${PY%/bin/python}
KB=$RETORT_ROOT/tests/kernelbench
scratch_project "$T/p" && cp "$KB/requirements.txt" "$T/p/tasks/requirements.txt" || exit 1

# the caller's secrets, which no problem file may see (env/1_Env_probe.py
# fails its import when it sees one); and a copy of the probe that looks
# for a host file, which a jailed problem cannot see
export ANTHROPIC_API_KEY=sk-ant-FAKE-KEY-0123456789 OPENAI_API_KEY=sk-oai-FAKE-KEY-0123456789
export OPENAI_BASE_URL=http://127.0.0.1:9/v1 GITHUB_TOKEN=ghp-FAKE MY_SECRET=hush RETORT_ASK_KEY=fake
echo "not for problem files" >"$T/host-secret"
mkdir -p "$T/probe" &&
	sed "s|^HOST_FILE = None|HOST_FILE = \"$T/host-secret\"|" "$KB/env/1_Env_probe.py" >"$T/probe/2_Host_file.py" || exit 1

# whether jails here hide the host's files (root with mount namespaces, or
# bubblewrap): the importer jails problem code only then
if "$RETORT_BIN/jail" --kind >"$T/jail-kind" 2>&1; then JAILED=in; else JAILED=NOT; fi

# (one import for the quick cases: each problem file takes seconds)
test_expect_success 'import: a problem written, its spec valid' '
	scratch_project q && cd q &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jail "$RETORT_BIN/jail" --out tasks \
		"$KB/level1/1_Matmul_rect.py" "$KB/level1/11_CrossEntropy_targets.py" \
		"$KB/env/1_Env_probe.py" >import.log 2>import.err &&
	cat import.log import.err && tail -n 1 import.log | grep -qx "3 imported, 0 refused" &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[a_d0, b_d1\]}" tasks/kb1-1-matmul-rect.yaml &&
	"$RETORT_BIN/gen" --list --all --tasks-dir tasks >ids && test "$(wc -l <ids)" = 3
'

test_expect_success 'integer labels drawn within the classes, the bound following the classes'"'"' size' '
	cd q && grep -qx "  - {name: labels, kind: in, dtype: i64, shape: \[scores_d0\], dist: randint, range: \[0, scores_d1\]}" \
		tasks/kb1-11-crossentropy-targets.yaml
'

# (a tmpfs of one page: the spec, a few KiB, does not fit)
if can_fill; then
	test_expect_success LONG 'a full disk: exit 1, saying which spec it could not write, and nothing of it left' '
		mkdir -p k && cd k &&
		onfull 4k "$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jail "$RETORT_BIN/jail" --out full/tasks \
			"$KB/faults/5_Relu_after.py" &&
		test "$(cat rc)" = 1 &&
		grep -qx "import-kernelbench: cannot write .full/tasks/kb0-5-relu-after.yaml.: No space left on device" err &&
		! grep -q Traceback err && test "$(cat left)" = full/tasks
	'
else
	test_skip 'a full disk: needs root and mount namespaces (a tmpfs to fill)'
fi

test_expect_success 'problem code runs jailed where it can, and none of the caller'"'"'s secrets reach it' '
	cd q && grep -q "^import-kernelbench: problem files run $JAILED " import.err &&
	grep -qx "wrote .*/env/1_Env_probe.py -> tasks/kb0-1-env-probe.yaml" import.log
'

test_expect_success LONG 'values as get_inputs draws them: probabilities non-negative, a bool mask as u8 0 or 1' '
	scratch_project d && cd d &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jail "$RETORT_BIN/jail" --out tasks \
		"$KB/level1/12_KLDiv_probs.py" "$KB/level1/13_Masked_fill.py" "$T/probe/2_Host_file.py" \
		>import.log 2>import.err &&
	cat import.log import.err && tail -n 1 import.log | grep -qx "3 imported, 0 refused" &&
	grep -qx "  - {name: p, kind: in, dtype: f32, shape: \[p_d0, p_d1\], dist: uniform, range: \[[0-9.e-]*, 0.2\]}" \
		tasks/kb1-12-kldiv-probs.yaml &&
	grep -qx "  - {name: q, kind: in, dtype: f32, shape: \[p_d0, p_d1\], dist: uniform, range: \[[0-9.e-]*, 0.2\]}" \
		tasks/kb1-12-kldiv-probs.yaml &&
	grep -qx "  - {name: mask, kind: in, dtype: u8, shape: \[x_d0, x_d1\], dist: randint, range: \[0, 2\]}" \
		tasks/kb1-13-masked-fill.yaml && grep -q "_torch.from_numpy(mask).bool()" tasks/kb1-13-masked-fill.yaml &&
	"$RETORT_BIN/gen" --list --all --tasks-dir tasks >ids && test "$(wc -l <ids)" = 3
'

test_expect_success LONG 'a jailed problem cannot read the host'"'"'s files' '
	cd d && test $JAILED = NOT || grep -qx "wrote .*/probe/2_Host_file.py -> tasks/kb0-2-host-file.yaml" import.log
'

test_expect_success LONG 'without a jail: a scrubbed environment and rlimits, said on stderr; host files readable' '
	scratch_project u && cd u &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jail "$T/no-jail" --out tasks \
		"$KB/env/1_Env_probe.py" "$T/probe/2_Host_file.py" >import.log 2>import.err &&
	cat import.log import.err &&
	grep -q "^import-kernelbench: problem files run NOT jailed, with a scrubbed environment" import.err &&
	grep -qx "wrote .*/env/1_Env_probe.py -> tasks/kb0-1-env-probe.yaml" import.log &&
	grep -qx "refused .*/probe/2_Host_file.py: cannot trace it: RuntimeError: the problem reads the host.s .*" import.log
'

test_expect_success 'the jail tool: the program in a root of its own, an environment of its own, its status' '
	test $JAILED = NOT && expect_fail 1 "cannot jail" "$RETORT_BIN/jail" --work . -- /bin/true && exit 0
	mkdir w && "$RETORT_BIN/jail" --kind >kind && test -s kind &&
	"$RETORT_BIN/jail" --work w --seconds 20 -- /bin/sh -c "env; ls /; test ! -e \"$T/host-secret\"" >out &&
	cat out && ! grep -q "KEY\|TOKEN\|SECRET" out && grep -qx HOME=/work out && grep -qx work out &&
	expect_fail 1 "jail: .*/bin/sh. exited with status 3" "$RETORT_BIN/jail" --work w -- /bin/sh -c "exit 3" &&
	expect_fail 1 "ran longer than 1 s" "$RETORT_BIN/jail" --work w --seconds 1 -- /bin/sleep 30 &&
	expect_fail 2 "the program must be an absolute path" "$RETORT_BIN/jail" --work w -- sh &&
	"$RETORT_BIN/jail" --help | grep -q "^usage: jail"
'

test_expect_success LONG 'the Python harness guard: events, streams and read-backs only for Triton'"'"'s and torch'"'"'s own code' '
	"$PY" "$RETORT_ROOT/tests/lib/guard-events.py" "$RETORT_ROOT/src/runtime/pyharness.py"
'

test_expect_success LONG 'import: 18 problems written, 4 refused' '
	cd p && "$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level1" "$KB/level2" >import.log &&
	cat import.log && tail -n 1 import.log | grep -qx "18 imported, 4 refused" &&
	test "$(ls tasks/kb*.yaml | wc -l)" = 18
'

test_expect_success LONG 'refusals, each with its reason' '
	cd p &&
	grep -qx "refused .*/level1/7_Dropout_train.py: random op in the module: Dropout at drop, p = 0.25" import.log &&
	grep -qx "refused .*/level1/8_Positive_entries.py: output shape depends on the data" import.log &&
	grep -qx "refused .*/level1/9_Inplace_clamp.py: forward changes its input 1 in place" import.log &&
	grep -qx "refused .*/level1/10_Mean_as_float.py: output 1 is a float, not a tensor" import.log &&
	! ls tasks | grep -q "dropout-train\|positive\|inplace\|mean-as"
'

test_expect_success LONG 'matmul: a size per dimension, bench from get_inputs, distinct verify sizes, one odd' '
	cd p && f=tasks/kb1-1-matmul-rect.yaml &&
	grep -qx "  - {name: a, kind: in, dtype: f32, shape: \[a_d0, a_d1\]}" $f &&
	grep -qx "  - {name: b, kind: in, dtype: f32, shape: \[a_d1, b_d1\]}" $f &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[a_d0, b_d1\]}" $f &&
	grep -qx "  bench: \[{a_d1: 256, b_d1: 320, a_d0: 384}\]" $f &&
	grep -qx "  verify: \[{a_d1: 32, b_d1: 48, a_d0: 64}, {a_d1: 33, b_d1: 39, a_d0: 45}\]" $f &&
	grep -qx "cost: {flops: 2.0 \* a_d1 \* b_d1 \* a_d0}" $f
'

test_expect_success LONG 'conv2d: weight and bias as inputs in their init bound, channels fixed, H-2 and W-2' '
	cd p && f=tasks/kb1-5-conv2d-small.yaml &&
	grep -q "  - {name: p_conv_weight, kind: in, dtype: f32, shape: \[8, 3, 3, 3\], dist: uniform, range: \[-0.19[0-9]*, 0.19[0-9]*\]}" $f &&
	grep -q "  - {name: p_conv_bias, kind: in, dtype: f32, shape: \[8\], dist: uniform" $f &&
	grep -qx "  - {name: x, kind: in, dtype: f32, shape: \[4, 3, x_d2, x_d3\]}" $f &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[4, 8, x_d2 - 2, x_d3 - 2\]}" $f
'

test_expect_success LONG 'constructor floats: ranged scalars (a scale, an eps); integers stay fixed' '
	cd p &&
	grep -qx "  - {name: init2, kind: scalar, dtype: f32, value: 1.5, range: \[0.75, 2.25\]}" tasks/kb2-1-linear-relu-scale.yaml &&
	grep -qx "    _INIT = \[512, 256, 1.5\]" tasks/kb2-1-linear-relu-scale.yaml &&
	grep -qx "  - {name: init1, kind: scalar, dtype: f32, value: 1e-05, range: \[5e-06, 1.5e-05\]}" tasks/kb1-6-layernorm-affine.yaml
'

test_expect_success LONG 'buffers too: batch norm running statistics as inputs, its count kept' '
	cd p && f=tasks/kb2-2-conv2d-batchnorm-relu.yaml &&
	grep -q "name: p_bn_running_mean, kind: in" $f && grep -q "name: p_bn_running_var, kind: in" $f &&
	! grep -q num_batches_tracked $f
'

# (the trace runs the module in training mode, which moves the running
# statistics: their range is the module's as built, not as the runs left it)
test_expect_success LONG 'running statistics drawn within their values as built (zeros: 1; ones: 1)' '
	cd p && f=tasks/kb2-2-conv2d-batchnorm-relu.yaml &&
	grep -qx "  - {name: p_bn_running_mean, kind: in, dtype: f32, shape: \[8\], dist: uniform, range: \[-1.0, 1.0\]}" $f &&
	grep -qx "  - {name: p_bn_running_var, kind: in, dtype: f32, shape: \[8\], dist: uniform, range: \[-1.0, 1.0\]}" $f
'

test_expect_success LONG 'the baseline is the module as the reference runs it: batch norm in training mode, inputs not written' '
	cd p && for f in kb2-2-conv2d-batchnorm-relu kb1-5-conv2d-small kb2-3-gemm-sigmoid-sum \
		kb1-11-crossentropy-targets kb1-12-kldiv-probs kb1-13-masked-fill; do
		"$PY" "$KB/same-on-cpu.py" tasks/$f.yaml || exit 1
	done
'

test_expect_success LONG 'pooling: the output dimension as a floor expression; a reduction keeps its 1' '
	cd p &&
	grep -q "shape: \[8, 16, (x_d2 - (x_d2) % 2) / 2, (x_d3 - (x_d3) % 2) / 2\]" tasks/kb2-4-maxpool-tanh.yaml &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[x_d0, 1\]}" tasks/kb2-3-gemm-sigmoid-sum.yaml
'

test_expect_success LONG 'output sizes past a shift and a small stride: cut to even, a pool of stride 11' '
	cd p && f=tasks/kb1-15-even-crop-and-pool11.yaml &&
	grep -qx "  - {name: out0, kind: out, dtype: f32, shape: \[x_d0, x_d1 - x_d1 % 2\]}" $f &&
	grep -qx "  - {name: out1, kind: out, dtype: f32, shape: \[x_d0, (x_d1 - (x_d1) % 11) / 11\]}" $f
'

test_expect_success LONG 'a float forward input: a ranged scalar arg, passed to forward as a float' '
	cd p && f=tasks/kb1-14-scale-by-float.yaml &&
	grep -qx "  - {name: s, kind: scalar, dtype: f32, value: 2.5, range: \[1.25, 3.75\]}" $f &&
	grep -qx "            y = m(_torch.from_numpy(x), float(s))" $f && ! grep -q "def baseline_compile" $f
'

test_expect_success LONG 'dropouts of p = 0 (a module, a GRU'"'"'s) are no random op; their float stays fixed' '
	cd p && f=tasks/kb1-16-dropout-zero-gru.yaml &&
	grep -qx "    _INIT = \[0.0\]" $f && ! grep -q "kind: scalar" $f && grep -q "name: p_rnn_weight_hh_l1, kind: in" $f
'

test_expect_success LONG 'more than 32 args: a deep stack'"'"'s 40 parameters are inputs' '
	cd p && test "$(grep -c "name: p_layers_[0-9]*_\(weight\|bias\), kind: in" tasks/kb1-18-deep-linear-stack.yaml)" = 40
'

test_expect_success LONG 'a bench case past the cap: the batch divided to fit, the origin and the description saying so' '
	cd p && f=tasks/kb1-17-relu-oversized.yaml &&
	grep -qx "  bench: \[{x_d1: 24576, x_d0: 16384}\]" $f &&
	grep -qx "origin: {source: kernelbench, file: \"level1/17_Relu_oversized.py\", level: 1, problem: 17, scaled_size: x_d0, scaled_from: 65536, scaled_factor: 4}" $f &&
	grep -q "Its bench size x_d0 is KernelBench.s 65536 divided by 4" $f &&
	"$RETORT_BIN/gen" --split $f --all &&
	test "$(field out/v/kb1-17-relu-oversized/task.json "(d[\"origin\"][\"scaled_size\"], d[\"origin\"][\"scaled_from\"], d[\"origin\"][\"scaled_factor\"])")" = "('"'"'x_d0'"'"', 65536, 4)"
'

test_expect_success LONG 'parameters past the cap: a constructor size divided to fit, in the reference and the baseline too' '
	scratch_project w && cd w &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level3/1_Wide_linear.py" >import.log &&
	cat import.log && tail -n 1 import.log | grep -qx "1 imported, 0 refused" && f=tasks/kb3-1-wide-linear.yaml &&
	grep -qx "  - {name: p_fc_weight, kind: in, dtype: f32, shape: \[32768, 4096\], dist: uniform, range: \[-0.01562, 0.01562\]}" $f &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[8, 32768\]}" $f &&
	grep -qx "origin: {source: kernelbench, file: \"level3/1_Wide_linear.py\", level: 3, problem: 1, scaled_size: out_features, scaled_from: 65536, scaled_factor: 2}" $f &&
	grep -q "Its constructor size out_features is KernelBench.s 65536 divided by 2" $f &&
	test "$(grep -cx "    out_features = 32768" $f)" = 2 && test "$(grep -cx "    _INIT = \[4096, 32768\]" $f)" = 2 &&
	"$PY" "$KB/same-on-cpu.py" $f &&
	"$RETORT_BIN/gen" --split $f --all &&
	test "$(field out/v/kb3-1-wide-linear/task.json "(d[\"origin\"][\"scaled_size\"], d[\"origin\"][\"scaled_from\"], d[\"origin\"][\"scaled_factor\"])")" = "('"'"'out_features'"'"', 65536, 2)"
'

test_expect_success LONG 'parameters and a batch past the caps: the constructor size halved for the parameters, the batch divided for the rest' '
	scratch_project w2 && cd w2 &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level3/2_Wide_linear_long_batch.py" >import.log &&
	cat import.log && tail -n 1 import.log | grep -qx "1 imported, 0 refused" && f=tasks/kb3-2-wide-linear-long-batch.yaml &&
	grep -qx "  - {name: p_fc_weight, kind: in, dtype: f32, shape: \[32768, 4096\], dist: uniform, range: \[-0.01562, 0.01562\]}" $f &&
	grep -qx "  bench: \[{x_d0: 16384}\]" $f &&
	grep -q "Its bench size x_d0 is KernelBench.s 65536 divided by 4" $f &&
	grep -q "Its constructor size out_features is KernelBench.s 65536 divided by 2" $f &&
	grep -qx "origin: {source: kernelbench, file: \"level3/2_Wide_linear_long_batch.py\", level: 3, problem: 2, scaled_size: out_features, scaled_from: 65536, scaled_factor: 2}" $f &&
	"$RETORT_BIN/gen" --split $f --all
'

test_expect_success LONG 'the importer writes no spec gen refuses: it checks each with gen first' '
	cd p && mkdir -p gated/prompts &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --gen "$RETORT_BIN/gen" --out gated "$KB/level1/2_Relu_plain.py" >gated.log &&
	cat gated.log &&
	grep -qx "refused .*/2_Relu_plain.py: gen refuses the spec: default prompt template .*generate.md not found (in variant .kb1-2-relu-plain.)" gated.log &&
	! ls gated/*.yaml
'

# (level 2 alone, one file at a time: the first import traced several at once)
test_expect_success LONG 'a second import, one file at a time, writes the same bytes (and says unchanged)' '
	cd p && sha256sum tasks/kb*.yaml >sums &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jobs 1 --out tasks "$KB/level2" >again.log &&
	test "$(grep -c "^unchanged " again.log)" = 4 && ! grep -q "^wrote " again.log && sha256sum -c --quiet sums
'

# (one worker for all five, in this order: a file that hangs, one that
# ends its process, one that kills the process that runs it, one that
# breaks torch for what runs after it, then a plain one. Jailed, the
# worker is its jail's first process, which no child can kill: the
# third file hangs instead; not jailed, it kills its worker, and a new
# one takes the fourth)
test_expect_success LONG 'one file that hangs, dies, kills its worker or breaks torch stops none of the others' '
	scratch_project f && cd f &&
	for how in jailed not-jailed; do
		jail=$RETORT_BIN/jail killed="tracing took longer than 5 s"
		test $how = jailed || jail=$T/no-jail
		test $how = jailed && test $JAILED = in || killed="the trace failed: its worker ended (.*)"
		start=$(date +%s) &&
		"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --jail "$jail" --jobs 1 --timeout 5 --out $how \
			"$KB/faults" >$how.log 2>$how.err &&
		cat $how.log $how.err && test $(($(date +%s) - start)) -lt 120 &&
		grep -qx "refused .*/faults/1_Sleeps.py: tracing took longer than 5 s" $how.log &&
		grep -qx "refused .*/faults/2_Exits_hard.py: the trace failed: exited with status 7" $how.log &&
		grep -qx "refused .*/faults/3_Kills_its_parent.py: $killed" $how.log &&
		grep -qx "refused .*/faults/4_Breaks_torch.py: cannot trace it: .*" $how.log &&
		grep -qx "wrote .*/faults/5_Relu_after.py -> $how/kb0-5-relu-after.yaml" $how.log &&
		tail -n 1 $how.log | grep -qx "1 imported, 4 refused" &&
		grep -q "^import-kernelbench: 5 problem files in [0-9.]* s, 1 at a time" $how.err || exit 1
	done
'

test_expect_success LONG 'gen: valid specs; provenance in task.json' '
	cd p && "$RETORT_BIN/gen" --list --all >ids && test "$(wc -l <ids)" = 18 &&
	"$RETORT_BIN/gen" --split tasks/kb1-5-conv2d-small.yaml --all &&
	test "$(field out/v/kb1-5-conv2d-small/task.json "d[\"origin\"]")" = "{'"'"'file'"'"': '"'"'level1/5_Conv2d_small.py'"'"', '"'"'level'"'"': 1, '"'"'problem'"'"': 5, '"'"'source'"'"': '"'"'kernelbench'"'"'}" &&
	test "$(field out/v/kb1-5-conv2d-small/task.json "d[\"reference_language\"]")" = python
'

test_expect_success LONG 'the imported references run (torch, float64, in the sandbox) to expected.json' '
	cd p && rconfigure --all --python-env="$ENV" >conf.log &&
	ninja $(sed "s|.*|out/v/&/expected.json|" ids) >ref.log 2>&1 || { tail -n 30 ref.log; exit 1; }
	for v in $(cat ids); do
		test "$(field out/v/$v/expected.json "d[\"reference_precision\"]")" = float64 || exit 1
	done
'

test_expect_success LONG 'the CrossEntropy and KLDiv references: finite on every run (labels in range, probabilities positive)' '
	cd p && for v in kb1-11-crossentropy-targets kb1-12-kldiv-probs; do
		test "$(field out/v/$v/expected.json "len(d[\"runs\"])")" -ge 6 &&
		python3 -c "import math, struct, sys; b = open(sys.argv[1], \"rb\").read(); v = struct.unpack(\"%df\" % (len(b) // 4), b); print(sys.argv[1], v); sys.exit(not v or not all(map(math.isfinite, v)))" \
			out/v/$v/expected.bin || exit 1
	done
'

test_expect_success 'the importer'"'"'s cap on parameters (those it divides without a trace at full size) is gen'"'"'s' '
	c=$(sed -n "s/^static const double MAX_VERIFY_BYTES = \(.*\);$/\1/p" "$RETORT_ROOT/src/gen/spec.c") && test -n "$c" &&
	i=$(sed -n "s/^GEN_VERIFY_CAP = \(.*\)$/\1/p" "$RETORT_ROOT/scripts/import-kernelbench") && test -n "$i" &&
	test "$(python3 -c "print(int($c))")" = "$(python3 -c "print(int($i))")"
'

test_expect_success 'usage: no --out, a missing folder' '
	cd p && expect_fail 2 "say where the specs go" "$PY" "$RETORT_ROOT/scripts/import-kernelbench" "$KB/level1" &&
	expect_fail 2 "no such file or folder: .nowhere." "$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out x nowhere
'

test_done
