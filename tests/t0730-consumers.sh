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
. "$(dirname "$0")/lib/lib.sh"
cpu_only "the demo's records are unverified here"

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
test_done
