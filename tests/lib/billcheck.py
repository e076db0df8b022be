#!/usr/bin/env python3
"""tests/lib/billcheck.py - what the mock teacher billed, next to what the
ledgers charged: whether the ledger is ever under the bill.

usage: billcheck.py MODEL_JSON BILLED_JSON LEDGER...

MODEL_JSON is out/model.json (its prices and batch_prices); BILLED_JSON
what `mock billed` printed (tests/lib/mock_llm.py); each LEDGER a cache
dir's ledger.jsonl (one that is absent charged nothing). Prints
"billed $B ledger $L" and exits 0 when L >= B (to the micro-dollar), 1
when the ledger is under.
"""
import json
import os
import sys


def cost(prices, provider, u):
    if provider == "anthropic":
        tok = (u.get("input_tokens", 0), u.get("output_tokens", 0), u.get("cache_creation_input_tokens", 0),
               u.get("cache_read_input_tokens", 0))
    else:
        d = u.get("prompt_tokens_details") or {}
        cr, cw = d.get("cached_tokens", 0), d.get("cache_write_tokens", 0)
        tok = (u.get("prompt_tokens", 0) - cr - cw, u.get("completion_tokens", 0), cw, cr)
    return sum(t * prices.get(k, 0) for t, k in zip(tok, ("input", "output", "cache_write", "cache_read"))) / 1e6


def main():
    model = json.load(open(sys.argv[1]))
    billed = sum(cost(model.get("batch_prices" if b["tier"] == "batch" else "prices") or {}, b["provider"], b["usage"])
                 for b in json.load(open(sys.argv[2])))
    charged = 0.0
    for path in sys.argv[3:]:
        if os.path.exists(path):
            for line in open(path):
                charged += json.loads(line).get("cost_usd") or 0
    print("billed $%.6f ledger $%.6f" % (billed, charged))
    return 0 if charged >= billed - 1e-6 else 1


if __name__ == "__main__":
    sys.exit(main())
