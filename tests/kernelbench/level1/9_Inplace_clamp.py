import torch
import torch.nn as nn


class Model(nn.Module):
    """Cannot be imported: it clamps its input in place and returns it."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        x.clamp_(min=-0.5, max=0.5)
        return x * 3


def get_inputs():
    return [torch.randn(256, 512)]


def get_init_inputs():
    return []
