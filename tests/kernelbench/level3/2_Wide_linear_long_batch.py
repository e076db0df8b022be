import torch
import torch.nn as nn


class Model(nn.Module):
    """A linear layer whose weight (1 GiB) is past retort's cap on a
    verify case, and whose bench case is past the 4 GiB cap on a case
    even with the weight halved (a batch of 65536: 8 GiB of output): the
    constructor size is halved for the weight, the batch divided for the
    rest."""

    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x))


batch_size = 65536
in_features = 4096
out_features = 65536


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
