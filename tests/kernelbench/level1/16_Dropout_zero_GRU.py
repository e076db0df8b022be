import torch
import torch.nn as nn


class Model(nn.Module):
    """Dropouts of probability 0 (a module and a two-layer GRU's, from a
    constructor float): no random op."""

    def __init__(self, p):
        super().__init__()
        self.drop = nn.Dropout(p)
        self.rnn = nn.GRU(8, 8, num_layers=2, dropout=p, batch_first=True)

    def forward(self, x):
        y, _ = self.rnn(self.drop(x))
        return y


def get_inputs():
    return [torch.randn(4, 40, 8)]


def get_init_inputs():
    return [0.0]
