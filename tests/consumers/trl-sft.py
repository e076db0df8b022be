#!/usr/bin/env python3
"""tests/consumers/trl-sft.py - TRL's SFTTrainer on a retort dataset, run by hand

usage: trl-sft.py DATASET_FOLDER [STEPS]

TRL needs torch, too heavy for the test suite: run this by hand in an
environment with trl, transformers, datasets and torch (CPU is enough).
It trains a byte-level BPE tokenizer on the dataset (check.py's, no
download), builds a tiny random-weight Qwen3, and runs SFTTrainer for
STEPS steps (default 3) on the sft_final config (its train split, else
unverified), with max_length the longest row. Before training it checks
what TRL tokenized: every row whole (not truncated), and the tokens TRL
computes the loss on (completion_mask, or labels not -100) exactly the completion, the turn
flagged training. Prints the rows, lengths and losses; exits 1 on a
failed check.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import check  # noqa: E402 (tests/consumers/check.py: the tokenizer)


def main(argv):
    if not argv:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    folder, steps = argv[0], int(argv[1]) if len(argv) > 1 else 3
    import torch
    from datasets import load_dataset
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM
    from trl import SFTConfig, SFTTrainer
    import trl
    print("torch %s, trl %s" % (torch.__version__, trl.__version__))
    work = tempfile.mkdtemp(prefix="trl-sft.")
    check.tokenizer(work + "/tok", [folder])
    tok = AutoTokenizer.from_pretrained(work + "/tok")
    sft = load_dataset(folder, "sft_final")
    split = "train" if "train" in sft else "unverified"
    rows = sft[split]
    full = [len(tok.apply_chat_template(r["prompt"] + r["completion"], tokenize=True, return_dict=True)["input_ids"])
            for r in rows]
    n = max(full)
    print("sft_final %s: %d rows, %d to %d tokens: max_length %d" % (split, len(rows), min(full), n, n))
    cfg = Qwen3Config(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=n + 64,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id or tok.eos_token_id)
    torch.manual_seed(0)
    model = Qwen3ForCausalLM(cfg)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    args = SFTConfig(output_dir=work + "/out", max_length=n, completion_only_loss=True, max_steps=steps,
                     per_device_train_batch_size=1, logging_steps=1, report_to="none", use_cpu=True, save_strategy="no")
    trainer = SFTTrainer(model=model, args=args, train_dataset=rows, processing_class=tok)
    tokenized = trainer.train_dataset
    for r, t, f in zip(rows, tokenized, full):
        ids = t["input_ids"]
        # the tokens in the loss: TRL's completion_mask, or (newer TRL) labels not -100
        mask = t["completion_mask"] if "completion_mask" in t else [int(x != -100) for x in t["labels"]]
        got = tok.decode([i for i, k in zip(ids, mask) if k])
        c = r["completion"][0]
        want = ("<think>\n%s\n</think>\n" % c["reasoning_content"] if c["reasoning_content"] else "") + c["content"]
        check.check(len(ids) >= f - 1, "%s: truncated to %d of %d tokens" % (r["id"], len(ids), f))
        if os.environ.get("TRL_SFT_DEBUG"):
            print(repr(got[:80]), repr(got[-80:]), repr(want[:40]))
        # TRL's completion: the assistant turn's header, the turn, its end token
        check.check(want in got and len(got) - len(want) < 40,
                    "%s: the loss is not on the completion alone (%d chars, completion %d)" % (r["id"], len(got), len(want)))
        print("%s: %d tokens, %d in the loss (the flagged turn of round %d)" % (r["id"], len(ids), sum(mask), r["final_round"]))
    out = trainer.train()
    losses = [h["loss"] for h in trainer.state.log_history if "loss" in h]
    print("trained %d steps: losses %s, train_loss %.4f" % (out.global_step, ", ".join("%.4f" % l for l in losses), out.training_loss))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
