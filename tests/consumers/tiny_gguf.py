#!/usr/bin/env python3
"""tests/consumers/tiny_gguf.py - a tiny llama-architecture GGUF with random weights

usage: tiny_gguf.py OUT.gguf [--ctx N]

Writes, with the gguf package, a one-layer llama (64-wide, 2 heads) whose
weights are random (seed 0) and whose tokenizer is SentencePiece-style with
byte fallback only (<unk>, <s>, </s> and the 256 byte tokens), with a small
chat template: enough for llama.cpp's server to load it and answer chat
completions over the real wire format. Its answers are noise, which is the
point: real servers send what a real model emits (bytes cut in the middle
of UTF-8 characters, no code block, answers that run to max_tokens).
"""
import argparse

import gguf
import numpy as np

TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}\n{% endfor %}"
            "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--ctx", type=int, default=32768)
    a = ap.parse_args()
    embd, ff, heads = 64, 128, 2
    tokens = [b"<unk>", b"<s>", b"</s>"] + [("<0x%02X>" % i).encode() for i in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL] + [gguf.TokenType.BYTE] * 256
    vocab = len(tokens)
    w = gguf.GGUFWriter(a.out, "llama")
    w.add_name("retort-tiny-random")
    w.add_context_length(a.ctx)
    w.add_embedding_length(embd)
    w.add_block_count(1)
    w.add_feed_forward_length(ff)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_rope_dimension_count(embd // heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(0)  # all f32
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores([0.0] * vocab)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_chat_template(TEMPLATE)
    rng = np.random.default_rng(0)

    def t(name, *shape, ones=False):
        v = np.ones(shape, np.float32) if ones else (rng.standard_normal(shape) * 0.02).astype(np.float32)
        w.add_tensor(name, v)

    t("token_embd.weight", vocab, embd)
    t("output_norm.weight", embd, ones=True)
    t("output.weight", vocab, embd)
    t("blk.0.attn_norm.weight", embd, ones=True)
    for n in ("q", "k", "v", "output"):
        t("blk.0.attn_%s.weight" % n, embd, embd)
    t("blk.0.ffn_norm.weight", embd, ones=True)
    t("blk.0.ffn_gate.weight", ff, embd)
    t("blk.0.ffn_up.weight", ff, embd)
    t("blk.0.ffn_down.weight", embd, ff)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


if __name__ == "__main__":
    main()
