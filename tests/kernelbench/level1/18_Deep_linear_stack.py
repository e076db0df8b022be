import torch
import torch.nn as nn


class Model(nn.Module):
    """Twenty linear layers: 40 parameter inputs, more args than 32."""

    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])

    def forward(self, x):
        return self.layers(x)


def get_inputs():
    return [torch.randn(64, 8)]


def get_init_inputs():
    return [8, 20]
