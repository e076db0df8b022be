#!/usr/bin/env python3
"""examples/trl_sft.py - fine-tune on a retort dataset with TRL's SFTTrainer

usage: python trl_sft.py [--split SPLIT] [--max-length N] [--reasoning keep|drop-empty|only]
                         [--max-steps N] DATASET_FOLDER MODEL [OUTPUT_DIR]

DATASET_FOLDER is the dataset's archives extracted into one folder; MODEL a
causal LM with a chat template (a hub id or a folder); OUTPUT_DIR defaults
to sft-out. Trains on the sft_final config: prompt (the conversation up to
the chosen turn, failed rounds included as context) and completion (the
one turn flagged training, whose kernel is final_kernel), with the loss on
the completion alone.

--split: the split to train on (default train: kernels verified on a GPU).
A build without a GPU has no train split, only unverified (kernels never
run): the card says so, and this script stops and names the splits there
are; --split unverified trains on them, to try the recipe, not for a model
you will use.

--max-length: TRL's max_length. By default the card's Lengths table's
max_length for that split (manifest.json: lengths.sft_final.SPLIT.
max_length): its longest row in bytes (or the card's tokenizer's tokens),
which bound any byte-level BPE's count, with room for the chat template.
TRL's own default of 1024 truncates most rows and drops those whose prompt
fills it.

--reasoning: what to do with completions without reasoning_content. keep
(the default): as the chat template renders them (Qwen3's gives an empty
<think></think>); drop-empty: render each row with MODEL's chat template
and remove the empty thinking block from the completion; only: keep only
the rows whose completion has reasoning. It prints how many rows lack it.

--max-steps: stop after N optimizer steps (default: one epoch).

Exit status: 0 trained; 2 bad usage, or a DATASET_FOLDER without a
readable manifest.json or without the split (one line on stderr says which).

Needs trl, transformers, datasets and torch.
"""
import argparse
import json
import os
import re
import sys

EMPTY_THINK = re.compile(r"^\s*<think>\s*</think>\s*")


def fail(msg):
    sys.stderr.write("trl_sft.py: %s\n" % msg)
    sys.exit(2)


def dig(d, *keys):
    """d[k0][k1]...; None where a level is missing or no object"""
    for k in keys:
        d = d.get(k) if isinstance(d, dict) else None
    return d


def splits(folder):
    """the sft_final splits the card lists, with their rows (manifest.json)"""
    path = os.path.join(folder, "manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            man = json.load(f)
    except OSError as e:
        fail("cannot read '%s': %s" % (path, e.strerror or e))
    except ValueError as e:  # not JSON, or not UTF-8
        fail("cannot read '%s': %s" % (path, e))
    counts = man.get("sft_final_counts", {}) if isinstance(man, dict) else None
    if not isinstance(counts, dict):
        fail("cannot read '%s': no sft_final_counts object (not a retort dataset's manifest)" % path)
    return man, {k: v for k, v in counts.items() if v}


def reasoned(row):
    return bool(row["completion"][0].get("reasoning_content"))


def dropempty(tok, row):
    """the row as text through tok's chat template, without an empty thinking block in its completion"""
    prompt = tok.apply_chat_template(row["prompt"], tokenize=False, add_generation_prompt=True)
    whole = tok.apply_chat_template(row["prompt"] + row["completion"], tokenize=False)
    if not whole.startswith(prompt):
        fail("%s: MODEL's chat template renders the prompt differently alone: use --reasoning keep or only" % row["id"])
    completion = whole[len(prompt):].rstrip()
    if not reasoned(row):
        completion = EMPTY_THINK.sub("", completion, count=1)
    return {"prompt": prompt, "completion": completion}


def options(argv):
    p = argparse.ArgumentParser(prog="trl_sft.py", description="TRL's SFTTrainer on a retort dataset's sft_final")
    p.add_argument("folder", metavar="DATASET_FOLDER")
    p.add_argument("model", metavar="MODEL")
    p.add_argument("output", metavar="OUTPUT_DIR", nargs="?", default="sft-out")
    p.add_argument("--split", default="train", help="the split to train on (default train)")
    p.add_argument("--max-length", type=int, help="TRL's max_length (default: the card's, for SPLIT)")
    p.add_argument("--reasoning", choices=("keep", "drop-empty", "only"), default="keep",
                   help="completions without reasoning: keep, drop-empty (no empty <think></think>), only")
    p.add_argument("--max-steps", type=int, default=-1, help="stop after N steps (default: one epoch)")
    return p.parse_args(argv)


def main(argv):
    o = options(argv)
    man, have = splits(o.folder)
    if o.split not in have:
        if not have:
            fail("%s: the dataset has no sft_final rows: nothing to train on" % o.folder)
        hint = (" (a build without a GPU: its kernels were never run; --split unverified trains on them to try "
                "the recipe, not for a model you will use)" if o.split == "train" and "unverified" in have else "")
        fail("%s: no sft_final split '%s'%s; the splits there are: %s" %
             (o.folder, o.split, hint, ", ".join("%s (%d rows)" % kv for kv in sorted(have.items()))))
    maxlen = o.max_length or dig(man, "lengths", "sft_final", o.split, "max_length")
    if not maxlen:
        fail("%s: manifest.json gives no max_length for sft_final %s (an older package): pass --max-length" %
             (o.folder, o.split))

    import torch
    from datasets import load_dataset
    from transformers import AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    train = load_dataset(o.folder, "sft_final", split=o.split)
    tok = AutoTokenizer.from_pretrained(o.model)
    bare = sum(not reasoned(r) for r in train)
    print("sft_final %s: %d rows; max_length %d (%s)" % (o.split, len(train), maxlen, "--max-length" if o.max_length
          else "the card's Lengths table"))
    if o.split != "train":
        print("note: '%s' is not verified: train on it to try the recipe, not for a model you will use" % o.split)
    print("%d of %d completions have no reasoning_content: --reasoning %s" % (bare, len(train), o.reasoning))
    if o.reasoning == "only":
        train = train.filter(reasoned)
        if not len(train):
            fail("no row of sft_final %s has reasoning: nothing to train on with --reasoning only" % o.split)
    elif o.reasoning == "drop-empty":
        train = train.map(lambda r: dropempty(tok, r), remove_columns=train.column_names)
    print("training on %d rows" % len(train))
    cuda = torch.cuda.is_available()
    args = SFTConfig(output_dir=o.output, max_length=maxlen, completion_only_loss=True, per_device_train_batch_size=1,
                     gradient_accumulation_steps=8, num_train_epochs=1, max_steps=o.max_steps, learning_rate=1e-5,
                     logging_steps=1, report_to="none", bf16=cuda, use_cpu=not cuda, save_strategy="no")
    trainer = SFTTrainer(model=o.model, args=args, train_dataset=train, processing_class=tok)
    out = trainer.train()
    trainer.save_model(o.output)
    print("trained %d steps, loss %.4f: %s" % (out.global_step, out.training_loss, o.output))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
