#!/usr/bin/env python3
"""tests/consumers/tiny_hf.py - a tiny Llama with random weights, as a transformers model folder

usage: tiny_hf.py OUT_DIR [--think]

Writes a one-layer LlamaForCausalLM (64-wide, 2 heads, 64k positions)
whose weights are random (seed 0), with a tokenizer built with the
tokenizers library (BPE over <unk>, <s>, </s> and the 256 byte tokens
only, byte fallback) and a small chat template: enough for `transformers
serve` to load it and answer chat completions over the real wire format.
Its answers are noise, which is the point: what a real server sends for
what a real model emits (bytes that are not UTF-8, no code block, answers
that run to max_tokens). With --think it is a Qwen3ForCausalLM whose
chat template opens the answer with "<think>\n", as Qwen3's does when
thinking: transformers serve then streams what it writes (it never
writes "</think>") as reasoning_content.
"""
import sys

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
THINK = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
         "{% if add_generation_prompt %}<|im_start|>assistant\n<think>\n{% endif %}")


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[2:] not in ([], ["--think"]):
        sys.exit("usage: tiny_hf.py OUT_DIR [--think]")
    out, think = sys.argv[1], sys.argv[2:] == ["--think"]
    vocab = {"<unk>": 0, "<s>": 1, "</s>": 2}
    vocab.update(("<0x%02X>" % i, 3 + i) for i in range(256))
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], unk_token="<unk>", byte_fallback=True))
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="never")
    tok.decoder = decoders.Sequence([decoders.ByteFallback(), decoders.Fuse()])
    t = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>")
    t.chat_template = THINK if think else TEMPLATE
    t.save_pretrained(out)
    torch.manual_seed(0)
    shape = dict(vocab_size=len(vocab), hidden_size=64, intermediate_size=128, num_hidden_layers=1,
                 num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=65536,
                 bos_token_id=1, eos_token_id=2, tie_word_embeddings=False)
    if think:
        Qwen3ForCausalLM(Qwen3Config(head_dim=32, **shape)).save_pretrained(out)
    else:
        LlamaForCausalLM(LlamaConfig(**shape)).save_pretrained(out)


if __name__ == "__main__":
    main()
