import os

import torch
import torch.nn as nn

os._exit(7)  # no Python exit: the process ends here


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(64, 128)]


def get_init_inputs():
    return []
