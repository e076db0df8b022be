#!/bin/sh
# t0520: scripts/import-kernelbench over the test problems in
# tests/kernelbench (written for retort in KernelBench's format): each
# mapping case (sizes, parameters as inputs, constructor floats as ranged
# scalars, output shapes as expressions, smaller verify sizes with an odd
# one, cost, provenance), each refusal with its reason, the same bytes on
# a second import, and the imported specs' Python references (torch, in
# float64) through gen and verify --expected on the CPU.
. "$(dirname "$0")/lib/lib.sh"

if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" tests/kernelbench/requirements.txt out/refenv-kernelbench 2>"$T/pyenv.err"); then
	echo "1..0 # SKIP no Python environment with torch (PyPI out of reach?): $(tail -n 1 "$T/pyenv.err")"
	exit 0
fi
ENV=${PY%/bin/python}
KB=$RETORT_ROOT/tests/kernelbench
scratch_project "$T/p" && cp "$KB/requirements.txt" "$T/p/tasks/requirements.txt" || exit 1

test_expect_success 'import: a problem written, its spec valid; a random op refused' '
	scratch_project q && cd q &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level1/1_Matmul_rect.py" \
		"$KB/level1/7_Dropout_train.py" >import.log &&
	cat import.log && tail -n 1 import.log | grep -qx "1 imported, 1 refused" &&
	grep -qx "refused .*/level1/7_Dropout_train.py: random op in the module: Dropout" import.log &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[a_d0, b_d1\]}" tasks/kb1-1-matmul-rect.yaml &&
	"$RETORT_BIN/gen" --list --all --tasks-dir tasks >ids && test -s ids
'

test_expect_success 'the Python harness guard: events only for Triton'"'"'s own benchmarker (the autotuner)' '
	"$PY" "$RETORT_ROOT/tests/lib/guard-events.py" "$RETORT_ROOT/src/runtime/pyharness.py"
'

test_expect_success LONG 'import: 10 problems written, 4 refused' '
	cd p && "$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level1" "$KB/level2" >import.log &&
	cat import.log && tail -n 1 import.log | grep -qx "10 imported, 4 refused" &&
	test "$(ls tasks/kb*.yaml | wc -l)" = 10
'

test_expect_success LONG 'refusals, each with its reason' '
	cd p &&
	grep -qx "refused .*/level1/7_Dropout_train.py: random op in the module: Dropout" import.log &&
	grep -qx "refused .*/level1/8_Positive_entries.py: output shape depends on the data" import.log &&
	grep -qx "refused .*/level1/9_Inplace_clamp.py: forward changes its input 1 in place" import.log &&
	grep -qx "refused .*/level1/10_Mean_as_float.py: output 1 is a float, not a tensor" import.log &&
	! ls tasks | grep -q "dropout\|positive\|inplace\|mean-as"
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

test_expect_success LONG 'the baseline is the module as the reference runs it: batch norm in training mode, inputs not written' '
	cd p && for f in kb2-2-conv2d-batchnorm-relu kb1-5-conv2d-small kb2-3-gemm-sigmoid-sum; do
		"$PY" "$KB/same-on-cpu.py" tasks/$f.yaml || exit 1
	done
'

test_expect_success LONG 'pooling: the output dimension as a floor expression; a reduction keeps its 1' '
	cd p &&
	grep -q "shape: \[8, 16, (x_d2 - 2 - (x_d2 - 2) % 2) / 2 + 1, (x_d3 - 2 - (x_d3 - 2) % 2) / 2 + 1\]" tasks/kb2-4-maxpool-tanh.yaml &&
	grep -qx "  - {name: out, kind: out, dtype: f32, shape: \[x_d0, 1\]}" tasks/kb2-3-gemm-sigmoid-sum.yaml
'

# (level 2 alone: each problem is traced in a process of its own, which
# takes seconds)
test_expect_success LONG 'a second import writes the same bytes (and says unchanged)' '
	cd p && sha256sum tasks/kb*.yaml >sums &&
	"$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out tasks "$KB/level2" >again.log &&
	test "$(grep -c "^unchanged " again.log)" = 4 && ! grep -q "^wrote " again.log && sha256sum -c --quiet sums
'

test_expect_success LONG 'gen: valid specs; provenance in task.json' '
	cd p && "$RETORT_BIN/gen" --list --all >ids && test "$(wc -l <ids)" = 10 &&
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

test_expect_success 'usage: no --out, a missing folder' '
	cd p && expect_fail 2 "say where the specs go" "$PY" "$RETORT_ROOT/scripts/import-kernelbench" "$KB/level1" &&
	expect_fail 2 "no such file or folder: .nowhere." "$PY" "$RETORT_ROOT/scripts/import-kernelbench" --out x nowhere
'

test_done
