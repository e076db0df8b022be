import torch
import torch.nn as nn


class Model(nn.Module):
    """Cannot be imported: how many entries are positive depends on the data."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x[x > 0]


def get_inputs():
    return [torch.randn(128, 128)]


def get_init_inputs():
    return []
