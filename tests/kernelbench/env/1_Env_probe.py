import os
import re

import torch
import torch.nn as nn

# A problem file that looks for what it should not see: the importer runs
# it, so it must get none of the caller's secrets (t0520). It writes its
# environment where it runs, then fails its import, naming what it found.
SECRET = re.compile(r"KEY|TOKEN|SECRET|^ANTHROPIC|^OPENAI|^RETORT", re.I)
# t0520 writes a copy of this file with a host path here: a file the
# problem must not be able to read when the importer jails it
HOST_FILE = None


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x * 2


def get_inputs():
    with open("environ.txt", "w") as f:
        f.write("".join("%s=%s\n" % kv for kv in sorted(os.environ.items())))
    seen = sorted(k for k in os.environ if SECRET.search(k))
    if seen:
        raise RuntimeError("the problem sees the caller's %s" % " ".join(seen))
    if HOST_FILE and os.path.exists(HOST_FILE):
        raise RuntimeError("the problem reads the host's %s" % HOST_FILE)
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
