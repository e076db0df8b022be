#!/usr/bin/env python3
"""hidden-unlisted.py TASK_JSON PROMPT: exit 1 unless TASK has hidden cases
(the per-variant ones and the pool's) and PROMPT names none of their sizes
(as "name=value")."""
import json
import re
import sys

task = json.load(open(sys.argv[1]))
prompt = open(sys.argv[2]).read()
hidden = task["cases"].get("hidden", []) + task["cases"].get("pool", [])
named = [c["sizes"] for c in hidden
         if all(re.search(r"\b%s=%d\b" % (k, v), prompt) for k, v in c["sizes"].items())]
if len(hidden) < 3 or named:
    sys.exit("hidden cases: %d; named in the prompt: %s" % (len(hidden), named))
