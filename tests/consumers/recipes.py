#!/usr/bin/env python3
"""tests/consumers/recipes.py - the training recipes of examples/ checked (t0730)

usage: recipes.py model OUT_DIR DATASET_DIR...
       recipes.py reasoning DATASET_DIR SPLIT MODEL_DIR
       recipes.py axolotl CONFIG DATASET_DIR SPLIT MODEL_DIR

model: a tiny random-weight Qwen3 (2 layers, 64 wide) in OUT_DIR with
check.py's byte-level BPE tokenizer trained on the datasets' text (no
download) and a chat template that does what Qwen3's does with reasoning:
the last assistant turn always opens a thinking block, empty when the
message has no reasoning_content; earlier ones have one only when they
have reasoning.

reasoning: examples/trl_sft.py's --reasoning drop-empty rows against the
template's own rendering: a completion without reasoning loses its empty
<think></think> and nothing else; one with reasoning is unchanged.

axolotl: CONFIG (examples/axolotl.yaml) with its dataset's path set to
DATASET_DIR and its split to SPLIT, checked by Axolotl's own dataset
schema (no deprecation warning), then every row of the dataset it names
tokenized by Axolotl's chat_template strategy with MODEL_DIR's tokenizer:
the tokens in the loss are exactly the turn flagged training (its
reasoning and content) and its end token, and Axolotl never warns that
the last turn is not trainable. Exits 1 on a failed check.
"""
import importlib.util
import logging
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import check as consumers  # noqa: E402 (tests/consumers/check.py: the tokenizer)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

# what Qwen3's template does with reasoning_content, in a few lines
TEMPLATE = (
    "{%- for m in messages -%}"
    "{{ '<|im_start|>' + m.role + '\\n' }}"
    "{%- if m.role == 'assistant' and (loop.last or m.reasoning_content) -%}"
    "{{ '<think>\\n' + (m.reasoning_content or '') + '\\n</think>\\n\\n' }}"
    "{%- endif -%}"
    "{{ m.content + '<|im_end|>\\n' }}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{ '<|im_start|>assistant\\n' }}{%- endif -%}"
)


def model(out, dirs):
    import torch
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM
    consumers.tokenizer(out, dirs)
    tok = AutoTokenizer.from_pretrained(out)
    tok.chat_template = TEMPLATE
    tok.pad_token = tok.eos_token
    tok.save_pretrained(out)
    cfg = Qwen3Config(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, head_dim=16, max_position_embeddings=65536,
                      eos_token_id=tok.eos_token_id, pad_token_id=tok.eos_token_id)
    torch.manual_seed(0)
    Qwen3ForCausalLM(cfg).save_pretrained(out)
    print("model: a random Qwen3, %d-token vocabulary, in %s" % (len(tok), out))


def example():
    spec = importlib.util.spec_from_file_location("trl_sft", os.path.join(ROOT, "examples", "trl_sft.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def reasoning(folder, split, modeldir):
    from datasets import load_dataset
    from transformers import AutoTokenizer
    ex = example()
    tok = AutoTokenizer.from_pretrained(modeldir)
    rows = load_dataset(folder, "sft_final", split=split)
    bare = 0
    for r in rows:
        whole = tok.apply_chat_template(r["prompt"] + r["completion"], tokenize=False)
        got = ex.dropempty(tok, r)
        check(got["prompt"] + got["completion"] != "" and whole.startswith(got["prompt"]), r["id"] + ": prompt")
        kept = whole[len(got["prompt"]):].rstrip()
        if r["completion"][0]["reasoning_content"]:
            check(got["completion"] == kept, "%s: a completion with reasoning changed" % r["id"])
        else:
            bare += 1
            check(kept.startswith("<think>\n\n</think>\n\n"), "%s: the template gave no empty block: %r" % (r["id"], kept[:40]))
            check("<think>" not in got["completion"], "%s: the empty block is still there" % r["id"])
            check(got["completion"] == kept[len("<think>\n\n</think>\n\n"):], "%s: more than the block went" % r["id"])
    print("reasoning: %d rows, %d without reasoning lose their empty <think></think> and nothing else" % (len(rows), bare))


def check(cond, msg):
    if not cond:
        check_fail(msg)


def check_fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


class Caught(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.seen = []

    def emit(self, record):
        self.seen.append(record.getMessage())


def axolotl(config, folder, split, modeldir):
    import yaml
    from datasets import load_dataset
    from transformers import AutoTokenizer
    from axolotl.prompt_strategies.chat_template import load
    from axolotl.utils.dict import DictDefault
    from axolotl.utils.schemas.datasets import SFTDataset
    caught = Caught()
    logging.getLogger("axolotl").addHandler(caught)
    cfg = yaml.safe_load(open(config))
    ds = dict(cfg["datasets"][0], path=folder, split=split)
    valid = SFTDataset(**ds)
    deprecated = [m for m in caught.seen if "deprecated" in m]
    check(not deprecated, "%s: Axolotl says: %s" % (config, deprecated))
    tok = AutoTokenizer.from_pretrained(modeldir)
    rows = load_dataset(folder, ds.get("name"), split=split)
    c = DictDefault(cfg, sequence_len=1 << 20, train_on_inputs=False)
    strategy = load(tok, c, valid.model_dump())
    trained = 0
    for r in rows:
        msgs = r[ds["field_messages"]]
        flagged = [m for m in msgs if m["training"]]
        check(len(flagged) == 1, "%s: %d turns flagged" % (r["id"], len(flagged)))
        out = strategy.tokenize_prompt(r)
        ids = [i for i, lab in zip(out["input_ids"], out["labels"]) if lab != -100]
        got = tok.decode(ids)
        m = flagged[0]
        # the turn's content and end token; before them its thinking block or nothing
        end = m["content"] + tok.eos_token
        head = got[:-len(end)] if got.endswith(end) else None
        if os.environ.get("RECIPES_DEBUG"):
            print(r["id"], repr(got[:70]), repr(got[-30:]))
        check(head in ("", "<think>\n%s\n</think>\n\n" % (m["reasoning_content"] or "")),
              "%s: the loss is not on the flagged turn alone: %r ... %r" % (r["id"], got[:60], got[-60:]))
        trained += 1
    last = [m for m in caught.seen if "Last turn is not trainable" in m]
    check(not last, "Axolotl warned %d times: %s" % (len(last), last[:1]))
    print("axolotl: %s %s (%s): %d rows, the loss on the flagged turn and its end token only, no warning"
          % (folder, split, ds.get("name") or "default", trained))


def main(argv):
    if argv[:1] == ["model"] and len(argv) >= 3:
        model(argv[1], argv[2:])
    elif argv[:1] == ["reasoning"] and len(argv) == 4:
        reasoning(*argv[1:])
    elif argv[:1] == ["axolotl"] and len(argv) == 5:
        axolotl(*argv[1:])
    else:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
