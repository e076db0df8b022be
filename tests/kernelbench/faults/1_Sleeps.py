import time

import torch
import torch.nn as nn


class Model(nn.Module):
    """a forward that never ends: the importer's time limit must"""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        time.sleep(3600)
        return torch.relu(x)


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
