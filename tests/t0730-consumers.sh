#!/bin/sh
# t0730: the dataset as trainers read it. With the real Hugging Face
# datasets and transformers (tests/lib/requirements.txt), tests/consumers/check.py
# loads (a) the demo, (b) a dataset that record and package made from
# GPU-shaped round files (tests/consumers/fixtures.py: speedups, review
# flags, reasoning, repairs), (c) both concatenated, (d) one whose shard is
# over 10 MB, checking counts, the card's explicit types and the training
# flags, and renders every record through apply_chat_template with the
# assistant mask: only the flagged turns are trained. A tokenizer trained
# on the data (no download) gives scripts/token-counts' counts for the card.
# The recipes of examples/ on the demo (a build without a GPU) and on the
# GPU-shaped dataset, with TRL, Axolotl and torch on the CPU
# (tests/consumers/requirements*.txt, out/trainenv) and a tiny random Qwen3
# whose template opens an empty thinking block as Qwen3's does
# (tests/consumers/recipes.py): the split the card names, max_length from
# its Lengths table, the reasoning choices, Axolotl's loss on the flagged
# turn alone and no deprecated key; trl_sft.py's one-line refusal of a
# folder without a readable manifest.
. "$(dirname "$0")/lib/lib.sh"
cpu_only "the demo's records are unverified here"

# (before any import of trl: python3 alone will do)
test_expect_success 'examples/trl_sft.py without a readable manifest: one line naming it, exit 2' '
	mkdir -p empty bad list && echo "{" >bad/manifest.json && echo "[]" >list/manifest.json &&
	for d in empty bad list; do
		{ python3 "$RETORT_ROOT/examples/trl_sft.py" $d tiny sft 2>err; r=$?; cat err; } &&
		test $r = 2 && test "$(wc -l <err)" = 1 && grep -q "^trl_sft.py: cannot read .$d/manifest.json.: " err || exit 1
	done &&
	grep -qx "trl_sft.py: cannot read .list/manifest.json.: no sft_final_counts object (not a retort dataset.s manifest)" err
'

C=$RETORT_ROOT/tests/consumers
if ! PY=$("$RETORT_ROOT/tests/lib/pyenv" 2>"$T/pyenv.err"); then
	echo "# $(tail -n 1 "$T/pyenv.err")"
	test_skip 'Hugging Face datasets and transformers: cannot install tests/lib/requirements.txt from PyPI'
	test_done
fi
export HF_HOME="$T/hf" HF_DATASETS_OFFLINE=1 HF_HUB_OFFLINE=1 SOURCE_DATE_EPOCH=1700000000

# unpack DATASET_DIR DIR: every archive extracted into DIR
unpack() { rm -rf "$2" && mkdir -p "$2" && for a in "$1"/*.tar.gz; do tar xzf "$a" -C "$2" || return 1; done; }

test_expect_success LONG 'the demo builds (replayed answers, no GPU)' '
	scratch_project p && cp "$RETORT_ROOT"/tasks/relu.yaml "$RETORT_ROOT"/tasks/row_max.yaml p/tasks/ &&
	cp -R "$RETORT_ROOT"/tasks/replay p/tasks/ && cd p && rconfigure >/dev/null &&
	{ ninja >n.log 2>&1 || { tail -n 20 n.log; false; }; } && unpack out/dataset ../demo
'
test_expect_success LONG 'GPU-shaped round files through record and package' '
	"$PY" "$C/fixtures.py" gpuv gpu && records gpuv && test "$(wc -l <gpuv/records)" = 12 &&
	"$RETORT_BIN/package" -o gpuds --meta provider=anthropic --meta model=claude-fixture @gpuv/records &&
	unpack gpuds gpu0 && test -s gpu0/data/train-00000.jsonl && grep -q "^| sft_final | train | [1-9]" gpu0/README.md
'
test_expect_success LONG 'a shard over 10 MB through record and package' '
	"$PY" "$C/fixtures.py" bigv big && records bigv &&
	"$RETORT_BIN/package" -o bigds --meta provider=anthropic --meta model=claude-fixture @bigv/records &&
	unpack bigds big && test "$(wc -c <big/data/trajectories-00000.jsonl)" -gt 10485760
'
test_expect_success LONG 'scripts/token-counts: a named tokenizer'"'"'s lengths in the card' '
	"$PY" "$C/check.py" tokenizer tok demo gpu0 &&
	"$PY" "$RETORT_ROOT/scripts/token-counts" --tokenizer "$T/tok" -o counts.json @gpuv/records &&
	"$RETORT_BIN/package" -o gpuds --meta provider=anthropic --meta model=claude-fixture \
		--token-counts counts.json @gpuv/records && unpack gpuds gpu &&
	grep -q "tokens p50 | tokens p95 | tokens max" gpu/README.md &&
	grep -q "is \`$T/tok\`.s count" gpu/README.md &&
	expect_fail 2 "cannot load tokenizer" "$PY" "$RETORT_ROOT/scripts/token-counts" --tokenizer "$T/none" -o x.json @gpuv/records &&
	test ! -e x.json
'
test_expect_success LONG 'configure --tokenizer: ninja dataset puts its counts in the card' '
	cd p && PATH=$(dirname "$PY"):$PATH && export PATH &&
	rconfigure --tokenizer="$T/tok" >c.log && grep -q "python3 with transformers (--tokenizer)... yes" c.log &&
	ninja dataset >n.log 2>&1 && unpack out/dataset ../demotok && grep -q "tokens max" ../demotok/README.md &&
	test "$(field ../demotok/manifest.json "d[\"tokenizer\"]")" = "$T/tok"
'
test_expect_success LONG 'package refuses a record that does not fit the dataset'"'"'s fields (exit 2)' '
	r=$(sed -n 1p gpuv/records) && mkdir -p bad && python3 -c "import json,sys; d = json.load(open(sys.argv[1])); d[\"messages\"][1][\"training\"] = \"yes\"; json.dump(d, open(\"bad/record.json\", \"w\"))" "$r" &&
	expect_fail 2 "messages\[1\]\.training: not a boolean" "$RETORT_BIN/package" -o badds bad/record.json && test ! -e badds
'
test_expect_success LONG 'datasets loads (a) the demo, (b) GPU-shaped records, (c) both, (d) a 10 MB shard; only flagged turns train' '
	"$PY" "$C/check.py" load demo gpu big tok
'

# ---- the recipes of examples/, with TRL and Axolotl ----
if test -n "${RETORT_TEST_LONG:-}" && ! TPY=$("$RETORT_ROOT/tests/lib/pyenv" tests/consumers/requirements.txt \
	out/trainenv tests/consumers/requirements-nodeps.txt 2>"$T/trainenv.err"); then
	echo "# $(tail -n 1 "$T/trainenv.err")"
	test_skip 'TRL, Axolotl and torch: cannot install tests/consumers/requirements*.txt from PyPI'
	test_done
fi
test_expect_success LONG 'the card of a build without a GPU: no train split, the recipes on unverified, said so' '
	grep -q "^\*\*This build has no .train. split\*\*" demo/README.md &&
	grep -q "split=\"unverified\")  # never run: to try the recipe only" demo/README.md &&
	grep -q "^    split: unverified  # never run" demo/README.md &&
	n=$(field demo/manifest.json "d[\"lengths\"][\"sft_final\"][\"unverified\"][\"max_length\"]") &&
	grep -q "SFTConfig(max_length=$n, " demo/README.md && grep -q "^sequence_len: $n " demo/README.md &&
	grep -q "^\*\*The split to train on: .train.\*\*" gpu0/README.md && grep -q "split=\"train\")$" gpu0/README.md
'
test_expect_success LONG 'a tiny Qwen3 (random weights, a Qwen3-like template) from the data' '
	"$TPY" "$C/recipes.py" model tiny demo gpu0
'
test_expect_success LONG 'examples/trl_sft.py on a build without a GPU: no train split, the splits named (exit 2)' '
	expect_fail 2 "no sft_final split .train. (a build without a GPU.*--split unverified.*the splits there are: unverified (6 rows)" \
		"$TPY" "$RETORT_ROOT/examples/trl_sft.py" demo tiny sft
'
test_expect_success LONG 'examples/trl_sft.py --split unverified --reasoning drop-empty: trains, max_length from the card' '
	n=$(field demo/manifest.json "d[\"lengths\"][\"sft_final\"][\"unverified\"][\"max_length\"]") &&
	bare=$(field demo/manifest.json "d[\"lengths\"][\"sft_final\"][\"unverified\"][\"rows_without_reasoning\"]") &&
	test "$bare" -gt 0 &&
	{ "$TPY" "$RETORT_ROOT/examples/trl_sft.py" --split unverified --reasoning drop-empty --max-steps 1 demo tiny sft \
		>trl.log 2>&1 || { tail -n 30 trl.log; false; }; } &&
	grep -q "^sft_final unverified: 6 rows; max_length $n (the card.s Lengths table)" trl.log &&
	grep -q "^$bare of 6 completions have no reasoning_content: --reasoning drop-empty" trl.log &&
	grep -q "^trained 1 steps" trl.log && test -s sft/model.safetensors &&
	"$TPY" "$C/recipes.py" reasoning demo unverified tiny
'
test_expect_success LONG 'examples/trl_sft.py --reasoning only: the rows with reasoning alone' '
	bare=$(field demo/manifest.json "d[\"lengths\"][\"sft_final\"][\"unverified\"][\"rows_without_reasoning\"]") &&
	{ "$TPY" "$RETORT_ROOT/examples/trl_sft.py" --split unverified --reasoning only --max-steps 1 demo tiny sft2 \
		>trl2.log 2>&1 || { tail -n 30 trl2.log; false; }; } &&
	grep -q "^training on $((6 - bare)) rows" trl2.log && grep -q "^trained 1 steps" trl2.log
'
test_expect_success LONG 'examples/axolotl.yaml: no deprecated key; the loss on the flagged turn alone, no last-turn warning' '
	"$TPY" "$C/recipes.py" axolotl "$RETORT_ROOT/examples/axolotl.yaml" demo unverified tiny &&
	"$TPY" "$C/recipes.py" axolotl "$RETORT_ROOT/examples/axolotl.yaml" gpu0 train tiny
'
test_done
