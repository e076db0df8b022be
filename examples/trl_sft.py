#!/usr/bin/env python3
"""examples/trl_sft.py - fine-tune on a retort dataset with TRL's SFTTrainer

usage: python trl_sft.py DATASET_FOLDER MODEL [OUTPUT_DIR]

DATASET_FOLDER is the dataset's archives extracted into one folder; MODEL a
causal LM with a chat template (a hub id or a folder). Trains on the
sft_final config's train split: prompt (the conversation up to the chosen
turn, failed rounds included as context) and completion (the one turn
flagged training, whose kernel is final_kernel), with the loss on the
completion alone. max_length is the longest row by MODEL's tokenizer with
its chat template, measured here, so nothing is truncated (TRL's default
of 1024 cuts most rows); the card's Lengths table gives the same for the
tokenizer it names, and its byte counts bound any byte-level BPE's.

Needs trl, transformers, datasets and torch.
"""
import sys

import torch
from datasets import load_dataset
from transformers import AutoTokenizer
from trl import SFTConfig, SFTTrainer


def longest(tok, rows):
    """the longest prompt + completion in tokens, as the chat template renders it"""
    return max(len(tok.apply_chat_template(r["prompt"] + r["completion"], tokenize=True, return_dict=True)["input_ids"])
               for r in rows)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    folder, model = argv[0], argv[1]
    out = argv[2] if len(argv) > 2 else "sft-out"
    train = load_dataset(folder, "sft_final", split="train")
    tok = AutoTokenizer.from_pretrained(model)
    n = longest(tok, train)
    print("sft_final train: %d rows, the longest %d tokens" % (len(train), n))
    args = SFTConfig(output_dir=out, max_length=n, completion_only_loss=True, per_device_train_batch_size=1,
                     gradient_accumulation_steps=8, num_train_epochs=1, learning_rate=1e-5, logging_steps=1,
                     report_to="none", bf16=torch.cuda.is_available(), use_cpu=not torch.cuda.is_available())
    SFTTrainer(model=model, args=args, train_dataset=train, processing_class=tok).train()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
