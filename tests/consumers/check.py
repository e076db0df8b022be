#!/usr/bin/env python3
"""tests/consumers/check.py - the dataset as trainers read it (t0730)

usage: check.py tokenizer TOKDIR DATASET_DIR...
       check.py load DEMO_DIR GPU_DIR BIG_DIR TOKDIR

tokenizer: trains a small byte-level BPE tokenizer on the datasets' text
(no download) and saves it, with a ChatML chat template that puts
{% generation %} around the assistant turns flagged training (and their
reasoning), into TOKDIR for transformers' AutoTokenizer.

load: with the real Hugging Face datasets, loads (a) the demo, (b) the
GPU-shaped dataset, (c) both concatenated, (d) the dataset whose shard is
over 10 MB, asserting counts (against each manifest), the card's explicit
types, and the training flags; then renders every record and sft_final
row through transformers' apply_chat_template with the assistant mask and
asserts that exactly the flagged turns are trained. Each DIR is an
extracted dataset. Prints what it saw; exits 1 on the first failed check.
"""
import glob
import json
import os
import sys

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

TEMPLATE = (
    "{%- for m in messages -%}"
    "<|im_start|>{{ m.role + '\\n' }}"
    "{%- if m.role == 'assistant' and m.training -%}"
    "{% generation %}{% if m.reasoning_content %}<think>\n{{ m.reasoning_content }}\n</think>\n{% endif %}"
    "{{ m.content }}{% endgeneration %}"
    "{%- else -%}"
    "{% if m.role == 'assistant' and m.reasoning_content %}<think>\n{{ m.reasoning_content }}\n</think>\n{% endif %}"
    "{{ m.content }}"
    "{%- endif -%}"
    "<|im_end|>\n"
    "{%- endfor -%}"
)


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def texts(dirs):
    for d in dirs:
        for f in sorted(glob.glob(d + "/data/*.jsonl")):
            for line in open(f):
                for m in json.loads(line)["messages"]:
                    yield m["content"][:20000]
                    yield (m["reasoning_content"] or "")[:20000]


def tokenizer(tokdir, dirs):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast
    tk = Tokenizer(models.BPE())
    tk.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tk.decoder = decoders.ByteLevel()
    tr = trainers.BpeTrainer(vocab_size=2000, special_tokens=["<|im_start|>", "<|im_end|>"],
                             initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tk.train_from_iterator(texts(dirs), tr)
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, eos_token="<|im_end|>")
    tok.chat_template = TEMPLATE
    tok.save_pretrained(tokdir)
    print("tokenizer: byte-level BPE, %d tokens, saved in %s" % (len(tok), tokdir))


def front(d):
    """the card's front matter, parsed"""
    import yaml
    text = open(d + "/README.md").read()
    check(text.startswith("---\n"), d + ": the card has no front matter")
    return yaml.safe_load(text.split("\n---\n", 1)[0][4:])


def cardfeatures(d, config):
    from datasets import Features
    for info in front(d)["dataset_info"]:
        if info["config_name"] == config:
            return Features._from_yaml_list(info["features"])
    fail("%s: no dataset_info for %s" % (d, config))


def flags(rec):
    """the (index, message) of the training-flagged turns, checked against final_round"""
    got = [(i, m) for i, m in enumerate(rec["messages"]) if m["training"]]
    ok = rec["final_round"] is not None and rec["outcome"] in ("correct", "unverified")
    check(len(got) == (1 if ok else 0), "%s: %d flagged turns, outcome %s" % (rec["id"], len(got), rec["outcome"]))
    for i, m in got:
        check(m["role"] == "assistant" and m["round"] == rec["final_round"], "%s: the flag is on %s round %s, final_round %s"
              % (rec["id"], m["role"], m["round"], rec["final_round"]))
    rounds = [m["round"] for m in rec["messages"]]
    check(rounds[0] == 0 and rounds[1:] == sorted(rounds[1:]), "%s: message rounds %s" % (rec["id"], rounds))
    if rec["final_round"] is None:
        check(rec["final_kernel"] is None, "%s: final_kernel without final_round" % rec["id"])
    return got


def load(d, name):
    """one dataset's configs, checked against its manifest and card"""
    from datasets import load_dataset
    man = json.load(open(d + "/manifest.json"))
    ds = load_dataset(d)
    got = {k: len(v) for k, v in ds.items()}
    want = {k: n for k, n in man["counts"].items() if n}
    print("%s: default %s (manifest %s)" % (name, got, want), flush=True)
    check(got == want, "%s: counts differ from the manifest" % name)
    feats = cardfeatures(d, "default")
    for split, part in ds.items():
        check(part.features == feats, "%s %s: features differ from the card's" % (name, split))
    sft = None
    if any(man["sft_final_counts"].values()):
        sft = load_dataset(d, "sft_final")
        got = {k: len(v) for k, v in sft.items()}
        print("%s: sft_final %s (manifest %s)" % (name, got, {k: n for k, n in man["sft_final_counts"].items() if n}), flush=True)
        check(got == {k: n for k, n in man["sft_final_counts"].items() if n}, "%s: sft_final counts" % name)
        for part in sft.values():
            check(part.features == cardfeatures(d, "sft_final"), "%s: sft_final features differ from the card's" % name)
    return ds, sft, man


def types(ds, name):
    f = next(iter(ds.values())).features
    m = f["messages"].feature
    r = f["rounds"].feature
    want = [(m["reasoning_content"].dtype, "string"), (m["training"].dtype, "bool"), (m["round"].dtype, "int64"),
            (f["speedup"].dtype, "float64"), (f["final_round"].dtype, "int64"), (f["gpu"].dtype, "string"),
            (f["review"].feature.dtype, "string"), (r["feedback"].dtype, "string"),
            (r["diagnostics"]["violations"].feature["line"].dtype, "int64")]
    check(all(a == b for a, b in want), "%s: types %s" % (name, want))
    print("%s: types: reasoning_content string, training bool, round int64, speedup float64, final_round int64, "
          "gpu string, review list of string, rounds[].diagnostics.violations[].line int64" % name, flush=True)


def masks(tok, rows, name):
    """render each row; the masked tokens must be exactly the flagged turns"""
    trained = untrained = 0
    for rec in rows:
        msgs = rec["messages"] if "messages" in rec else rec["prompt"] + rec["completion"]
        want = "".join(("<think>\n%s\n</think>\n" % m["reasoning_content"] if m["reasoning_content"] else "") + m["content"]
                       for m in msgs if m["training"])
        out = tok.apply_chat_template(msgs, tokenize=True, return_dict=True, return_assistant_tokens_mask=True)
        ids, mask = out["input_ids"], out["assistant_masks"]
        got = tok.decode([i for i, k in zip(ids, mask) if k])
        check(got == want, "%s %s: trained text differs from the flagged turns (%d vs %d chars)"
              % (name, rec["id"], len(got), len(want)))
        trained += sum(mask)
        untrained += len(mask) - sum(mask)
        if "completion" in rec:
            check([m["training"] for m in rec["completion"]] == [True] and not any(m["training"] for m in rec["prompt"]),
                  "%s %s: sft_final's completion is not the flagged turn alone" % (name, rec["id"]))
    print("%s: %d rows through apply_chat_template: %d tokens trained, %d masked; only flagged turns trained"
          % (name, len(rows), trained, untrained), flush=True)


def main(argv):
    if len(argv) >= 2 and argv[0] == "tokenizer":
        tokenizer(argv[1], argv[2:])
        return 0
    if len(argv) != 5 or argv[0] != "load":
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    from datasets import concatenate_datasets, load_dataset
    from transformers import AutoTokenizer
    demo, gpu, big, tokdir = argv[1:]
    tok = AutoTokenizer.from_pretrained(tokdir)

    # (a) the demo
    a, asft, _ = load(demo, "demo")
    types(a, "demo")
    for rec in a["trajectories"]:
        flags(rec)
    masks(tok, list(a["trajectories"]), "demo trajectories")
    masks(tok, list(asft["unverified"]), "demo sft_final")
    check(any(m["reasoning_content"] for r in a["trajectories"] for m in r["messages"]), "demo: no reasoning anywhere")

    # (b) GPU-shaped records
    b, bsft, bman = load(gpu, "gpu")
    types(b, "gpu")
    n = sum(len(flags(r)) for r in b["trajectories"]) + sum(len(flags(r)) for r in b.get("test", []))
    check("train" in b and len(b["train"]) > 0, "gpu: no train split")
    for rec in b["train"]:
        check(rec["outcome"] == "correct" and not rec["review"] and rec["speedup"] is not None, "gpu: %s in train" % rec["id"])
    print("gpu: %d flagged turns; train: %d records, all correct and unflagged for review" % (n, len(b["train"])), flush=True)
    masks(tok, list(b["trajectories"]) + list(b.get("test", [])), "gpu trajectories+test")
    masks(tok, [r for part in bsft.values() for r in part], "gpu sft_final")

    # (c) both concatenated
    c = concatenate_datasets([a["trajectories"], b["trajectories"]])
    check(len(c) == len(a["trajectories"]) + len(b["trajectories"]), "concatenated: count")
    print("demo+gpu trajectories concatenated: %d rows, features aligned" % len(c), flush=True)
    s = concatenate_datasets([asft["unverified"], bsft["train"]])
    print("demo+gpu sft_final concatenated: %d rows" % len(s), flush=True)

    # (d) a shard over 10 MB, read in chunks
    d, _, dman = load(big, "big")
    shard = max((s for s in dman["shards"] if s["split"] == "trajectories"), key=lambda s: s["bytes"])
    check(shard["bytes"] > 10 << 20, "big: the largest shard is only %d bytes" % shard["bytes"])
    t = d["trajectories"]
    late = [r["id"] for r in t if r["messages"][-1]["reasoning_content"]]
    check(len(late) == 3 and [r["gpu"] for r in t][-3:] == ["NVIDIA H200"] * 3, "big: the late records lost their values")
    print("big: %s of %d bytes, %d records; reasoning and review flags only on the last 3 (%s) load as strings"
          % (shard["path"], shard["bytes"], len(t), ", ".join(late)), flush=True)
    # the control: without the card's features the same shard does not load
    try:
        load_dataset("json", data_files=big + "/" + shard["path"], split="train")
        fail("big: the shard loads even without explicit features: it does not test chunked type inference")
    except Exception as e:  # datasets' DatasetGenerationError, arrow's cast errors
        print("big without the card's features: %s (as expected)" % type(e).__name__, flush=True)

    # the named tokenizer's counts in the card, when package had them
    man = json.load(open(gpu + "/manifest.json"))
    if man.get("tokenizer"):
        lens = sorted(len(tok.apply_chat_template(
            [{k: m[k] for k in ("role", "content", "reasoning_content") if m[k] is not None} for m in r["messages"]],
            tokenize=True, return_dict=True)["input_ids"]) for r in b["trajectories"])
        got = man["lengths"]["default"]["trajectories"]["tokens_p50_p95_max"]
        check(got[2] == lens[-1] and got[0] == lens[(len(lens) + 1) // 2 - 1], "gpu: token lengths %s, counted %s" % (got, lens))
        print("gpu: the card's %s token lengths (p50, p95, max %s) match apply_chat_template's" % (man["tokenizer"], got), flush=True)
    print("all consumer checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
